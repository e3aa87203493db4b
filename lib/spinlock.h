/* lib/spinlock.h -- spinlocks that disable interrupts, with a lock-order
 * checker (a small lockdep).
 *
 * Holding any spinlock keeps interrupts off on this CPU (an interrupt
 * handler could otherwise spin forever on a lock its own CPU holds).
 * Disabling nests, xv6 style: push_off/pop_off count per CPU, and
 * interrupts come back on only when the outermost lock is released,
 * whatever the release order; the state interrupts were in before the
 * first lock is saved and restored.
 *
 * Every lock has a rank (enum lock_rank: the lock order of the whole kernel,
 * docs/smp-and-locking.md). A CPU takes locks in strictly increasing rank.
 * With lockdep on (the default; `lockdep=off` on the command line turns it
 * off) these panic, naming the locks:
 *   - taking a lock whose rank is lower than or equal to one this CPU holds
 *     (that includes taking a lock twice);
 *   - releasing a lock this CPU does not hold;
 *   - switching to another process with any lock but proc_lock held
 *     (lockdep_assert_switchable, called by sched()).
 * A CPU waiting for a lock answers cross-CPU calls meanwhile
 * (spin_wait_hook), so a call round cannot deadlock against a spinner.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include "lib/types.h"

/* The lock order: lower ranks are taken first. Equal ranks never nest. */
enum lock_rank {
	LOCK_RANK_SWAP_IO = 7,    /* waiting for a page under swap I/O (mm/frame/swap.c): a sleep takes proc_lock */
	LOCK_RANK_INODE_IDLE = 8, /* idle inodes of disk file systems (fs/inode.c): before their lists */
	LOCK_RANK_FS_CONTEXT = 9, /* a process's root and cwd (kernel/thread.h): before dcache */
	LOCK_RANK_CONSOLE = 10,   /* kernel/tty.c input ring */
	LOCK_RANK_PIPE = 10,      /* each pipe's buffer (kernel/pipe.c) */
	LOCK_RANK_FDTABLE = 12,   /* one descriptor table's slots (kernel/thread.h) */
	LOCK_RANK_PAGECACHE_LIST = 11, /* the list of every page cache (mm/pagecache.c): reclaim's */
	LOCK_RANK_PAGECACHE = 13, /* one page cache's tree and page states (mm/pagecache.c): waits take proc_lock */
	LOCK_RANK_RWSEM = 14,     /* a sleeping lock's own guard (lib/rwsem.c) */
	LOCK_RANK_FILE_LOCKS = 15, /* every inode's advisory locks, their waiters (fs/locks.c): wakes take proc_lock */
	LOCK_RANK_BLK_QUEUE = 16, /* one disk's request queue (drivers/virtio/virtio_blk.c) */
	LOCK_RANK_BLK_CLAIM = 16, /* the disks' exclusive holders (drivers/block/blkdev.c): taken alone */
	LOCK_RANK_BLK_DONE = 17,  /* block requests' completion (drivers/block/blkdev.c): wakes take proc_lock */
	LOCK_RANK_FUTEX = 18,     /* one futex hash bucket (kernel/futex.c): wakes take proc_lock */
	LOCK_RANK_SB_INODES = 19, /* one file system's list of inodes (fs/inode.c) */
	LOCK_RANK_PROC = 20,      /* proc table, run states, sleep/wakeup */
	LOCK_RANK_DCACHE = 21,    /* dentries, the mount table (fs/dcache.c, fs/mount.c): /proc's maps names files under proc_lock */
	LOCK_RANK_AS_LIST = 22,   /* the list of every address space (mm/as.c) */
	LOCK_RANK_RMAP = 23,      /* one object's list of the VMAs mapping it (mm/rmap.h) */
	LOCK_RANK_KSTACK_MAP = 25,
	LOCK_RANK_ANON_VMA = 26,  /* one anon_vma's list of VMAs (mm/anon_rmap.h) */ /* the kernel stacks' page tables (mm/pt/kstack.c) */
	LOCK_RANK_UNSHARE = 28,   /* one address space's table unsharing (mm/ptshare.c) */
	LOCK_RANK_TEXT_SHARE = 30, /* text-sharing records, library slots (planned: mm/ptshare_text.c) */
	LOCK_RANK_PTL_UPPER = 39, /* one PD/PDPT/PML4 page's entries (mm/pt/ptpage.h): before its PT pages' */
	LOCK_RANK_PTL = 40,       /* one page-table page's leaves (mm/pt/ptpage.h: the split PT lock) */
	LOCK_RANK_SWAP = 45,      /* swap slots and the swap cache (mm/frame/swap.h): inside PT locks */
	LOCK_RANK_LRU = 55,       /* the replacement lists (mm/frame/lru.h): page_put's release and the page cache's insertions take it */
	LOCK_RANK_KMALLOC = 60,   /* kmalloc's partial lists (mm/frame/kmalloc.c) */
	LOCK_RANK_KSTACK = 65,    /* kernel-stack slots (mm/pt/kstack.c) */
	LOCK_RANK_PCP = 68,       /* one CPU's free-frame cache (mm/frame/buddy.c) */
	LOCK_RANK_FRAMES = 70,    /* the buddy free lists (mm/frame/buddy.c) */
	LOCK_RANK_PCI_CFG = 80,   /* the PCI configuration ports (arch/x86_64/pci_cfg.c) */
	LOCK_RANK_TEST_LOW = 90,  /* the lockdep tests' own locks */
	LOCK_RANK_TEST_HIGH = 91,
	LOCK_RANK_COUNT = 92,     /* one past the highest rank */
};

/* 16 bytes: small enough for a page-table page's struct page (its split
 * lock, mm/pt/ptpage.h). */
struct spinlock {
	volatile uint32_t locked;
	uint8_t rank;             /* enum lock_rank */
	int8_t cpu;               /* holder's CPU id while locked, else -1 */
	const char *name;
};

#define SPINLOCK_INIT(n, r) { .locked = 0, .rank = (r), .cpu = -1, .name = (n) }

/* Set up a lock that was not statically initialised. */
void spin_init(struct spinlock *l, const char *name, enum lock_rank rank);

/* Take l (interrupts off until the outermost release); panics on a lock
 * order violation when lockdep is on. */
void spin_lock(struct spinlock *l);

/* Take l if it is free (true), else return false at once. No lock-order
 * check: a try that fails cannot wait, so it cannot deadlock; the lock is
 * recorded as held like any other. */
bool spin_trylock(struct spinlock *l);

/* Release l; panics if this CPU does not hold it. */
void spin_unlock(struct spinlock *l);

/* Does this CPU hold l? */
bool spin_holding(const struct spinlock *l);

/* Panics (naming it) if this CPU holds any lock other than allowed (which
 * may be NULL): the check before a context switch. */
void lockdep_assert_switchable(const struct spinlock *allowed);

/* How many spinlocks this CPU holds (0: it may sleep), and the name of the
 * last one taken (NULL: none). */
int spin_held_count(void);
const char *spin_held_name(void);

/* Lock statistics per lock class (every lock of one rank: all the split
 * PT locks are one class), in the manner of Linux's /proc/lock_stat:
 * acquisitions (spin_lock and successful spin_trylock: counted per CPU,
 * struct cpu.lock_acquired, summed by lock_acquired -- one shared atomic
 * per acquisition was 200 of a page fault's 6 000 cycles under TCG), those
 * that found the lock taken and waited, and the time they waited in
 * spin_clock's units (the TSC, registered by the architecture; 0 until
 * then). Relaxed atomic counters; wait_max is a best effort. /proc/lockstat
 * prints them. */
struct lock_class_stat {
	const char *name;         /* the first lock of this rank taken */
	uint64_t contended, wait_cycles, wait_max;
};

/* Acquisitions of locks of rank `rank` since boot, all CPUs. */
uint64_t lock_acquired(int rank);
extern struct lock_class_stat lock_stats[LOCK_RANK_COUNT];
extern uint64_t (*spin_clock)(void);

/* One turn of a spin-wait loop: answer cross-CPU calls, pause. */
void spin_relax(void);

/* Lockdep on? Set once at boot from the command line. */
extern bool lockdep_on;

/* Called in every spin-wait loop (the cross-CPU call poll), may be NULL. */
extern void (*spin_wait_hook)(void);

/* Interrupts off, nested (the lock functions use these). */
void push_off(void);
void pop_off(void);

#endif

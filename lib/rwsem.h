/* lib/rwsem.h -- a sleeping reader/writer lock (Linux's rw_semaphore).
 *
 * Many readers or one writer. A task that cannot have it sleeps until it
 * can; so it may be held across anything but a spinlock, and it is never
 * taken while this CPU holds a spinlock (lockdep panics: sleeping there
 * would switch with the spinlock held). Writers are preferred: once a
 * writer waits, new readers wait behind it, so a stream of page faults
 * cannot starve an munmap.
 *
 *   down_read   -----> [ readers = 3, writer = no ] <----- up_read
 *   down_write  -----> waits until readers = 0, then writer = me
 *   (no writer holding or waiting: one atomic add each way, nothing else
 *   shared is touched)
 *
 * A contended lock waits with lib/wait.h (sleeping through the scheduler,
 * or spinning where there is no task); kernel/sched.c registers
 * rwsem_self_hook, the running task, at boot.
 *
 * Lock order: every sleeping lock has a rank (enum sleep_rank), and a task
 * takes them in increasing rank: one of a lower rank while it holds one of
 * a higher rank panics when lockdep is on (lib/spinlock.h's lockdep_on),
 * naming both. Equal ranks may nest (a reader may take the same lock
 * again). Each task's held ranks live with the task (rwsem_held_hook);
 * without one (early boot, host tests) in one static record.
 *
 * Errors: none. Panics (naming the lock): releasing a lock not held that
 * way; the writer taking its own lock again (for reading or writing),
 * which would wait for itself forever; a lock order violation.
 */
#ifndef LIB_RWSEM_H
#define LIB_RWSEM_H

#include "lib/spinlock.h"

/* The order of the sleeping locks (docs/smp-and-locking.md): an open
 * file's position or a pipe's mutex, then the address-space lock (a user
 * copy under either faults, and the fault takes it); never the other way
 * (copies run after as_unlock). */
enum sleep_rank {
	SLEEP_RANK_FILE = 1,        /* f_pos (fs/file.h), a pipe's mutex (kernel/pipe.c) */
	SLEEP_RANK_MOUNT = 2,       /* the mount table's changes (fs/mount.c) */
	SLEEP_RANK_NAMESPACE = 3,   /* a file system's names (fs/vfs.h: sb->ns) */
	SLEEP_RANK_INODE = 4,       /* a file's size and contents (fs/vfs.h: inode->lock) */
	SLEEP_RANK_RMAP_WALK = 5,   /* one walk of the reverse map at a time (mm/rmap.c) */
	SLEEP_RANK_ADDRSPACE = 6,   /* an address space (mm/as.h) */
	SLEEP_RANK_INVALIDATE = 7,  /* a file's pages against truncation (fs/vfs.h: inode->invalidate) */
	SLEEP_RANK_BLOCK_MAP = 8,   /* a file's block map (fs/ext2: map_lock); a store
				     * through a mapping fills a hole under the above */
	SLEEP_RANK_FS_ALLOC = 9,    /* a file system's free space (fs/ext2: alloc_lock) */
	SLEEP_RANK_TEST_LOW = 10,   /* the lockdep tests' own locks */
	SLEEP_RANK_TEST_HIGH = 11,
	SLEEP_RANK_COUNT = 12,
};

/* The sleeping locks a task holds: how many of each rank. */
struct sleep_locks_held {
	uint8_t n[SLEEP_RANK_COUNT];
};

/* The lock's state is one word, so that the common case -- a reader
 * with no writer holding or waiting, every page fault -- takes and drops
 * it with one atomic instruction each (as Linux's rwsem fast paths); the
 * spinlock lk serializes only the slow paths (waiting and waking):
 *
 *   count:  bits 0..31   readers holding it        (RWSEM_READER each)
 *           bit 32       a writer holds it         (RWSEM_WRITER)
 *           bits 33..63  writers waiting           (RWSEM_WAITING each)
 */
#define RWSEM_READER   1ULL
#define RWSEM_READERS  0xffffffffULL
#define RWSEM_WRITER   (1ULL << 32)
#define RWSEM_WAITING  (1ULL << 33)

struct rwsem {
	struct spinlock lk;       /* the slow paths: a sleeper checks and sleeps under it */
	uint64_t count;           /* the state above (atomic) */
	const void *writer;       /* the holder for writing (rwsem_self), or NULL */
	const char *name;
	uint8_t rank;             /* enum sleep_rank */
};

void rwsem_init(struct rwsem *l, const char *name, enum sleep_rank rank);

/* rwsem_init's result, for a lock defined statically. */
#define RWSEM_INIT(n, r) { .lk = SPINLOCK_INIT(n, LOCK_RANK_RWSEM), .name = (n), .rank = (r) }

void down_read(struct rwsem *l);
void up_read(struct rwsem *l);
void down_write(struct rwsem *l);
void up_write(struct rwsem *l);

/* Take l for writing if nobody holds it: true; never sleeps. */
bool down_write_trylock(struct rwsem *l);
/* Take l for reading if no writer holds or waits for it; true if taken.
 * Never waits, so it checks no order (reclaim visiting address spaces
 * that a task waiting for reclaim may hold). */
bool down_read_trylock(struct rwsem *l);

/* Is it held for writing by the caller? (for assertions) */
bool rwsem_is_write_locked_by_me(const struct rwsem *l);

/* Is it held at all (a snapshot)? */
static inline bool rwsem_is_locked(const struct rwsem *l)
{
	return __atomic_load_n(&l->count, __ATOMIC_RELAXED) & (RWSEM_READERS | RWSEM_WRITER);
}

/* The scheduler's part: name the running task. */
/* The running task's record of held sleeping locks (NULL: none yet). */
extern struct sleep_locks_held *(*rwsem_held_hook)(void);
extern const void *(*rwsem_self_hook)(void);

#endif

/* kernel/futex.c -- futex(2): wait, wake, bitsets, requeue, timeouts
 * (kernel/futex.h).
 *
 * Waiters live on their own kernel stacks, queued in a hash table by key.
 * One lock, futex_lock, guards the whole table: the read of the futex word
 * and the enqueue of a waiter happen under it, and so does every wake and
 * requeue, so a wake cannot slip between a waiter's check and its sleep (on
 * any CPU). A requeue moves waiters between two buckets atomically, which
 * with one lock per bucket would need two locks of one rank nested (the
 * lock order forbids it): the hash spreads the search, not the locking.
 *
 * The word is read under the lock without taking a fault: through the
 * page table to the frame and the direct map (read_word_locked). A page
 * that is not present is faulted in with the lock dropped, then the check
 * starts over, as Linux's futex_get_value_locked does.
 */
#include "kernel/futex.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/atomic.h"
#include "lib/list.h"
#include "mm/as.h"
#include "mm/pt/pgtable.h"
#include "mm/uaccess.h"
#include "mm/pt/vmflags.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pte.h"
#include "arch/x86_64/timer.h"

#define FUTEX_BUCKETS 64
#define SHARED_KEY 1UL   /* tag of a shared key's first word (pointers are even) */

/* What names a futex word: (address space, address) or (object | 1, offset). */
struct futex_key {
	uintptr_t space;
	uint64_t off;
};

struct futex_waiter {
	struct list link;          /* in its bucket */
	struct futex_key key;      /* a requeue changes it */
	uint32_t bitset;
	bool woken;                /* set by the waker, with the waiter dequeued */
};

static struct spinlock futex_lock = SPINLOCK_INIT("futex", LOCK_RANK_FUTEX);
static struct list buckets[FUTEX_BUCKETS];
static bool buckets_ready;

static struct list *bucket_of(const struct futex_key *k)
{
	if (!buckets_ready) {   /* first use, under futex_lock */
		for (int i = 0; i < FUTEX_BUCKETS; i++)
			list_init(&buckets[i]);
		buckets_ready = true;
	}
	uint64_t h = (k->space >> 4) * 0x9e3779b97f4a7c15ULL ^ (k->off >> 2) * 0xff51afd7ed558ccdULL;
	return &buckets[(h >> 32) % FUTEX_BUCKETS];
}

static bool key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->space == b->space && a->off == b->off;
}

/* The key of uaddr in the current address space: 0, or -EINVAL
 * (misaligned), -EFAULT (not user memory, or no mapping for a shared key). */
static int futex_key_of(vaddr_t uaddr, bool private, struct futex_key *k)
{
	struct addrspace *as = current_proc()->as;
	if (uaddr & 3)
		return -EINVAL;
	if (uaddr >= USER_TOP - 4)
		return -EFAULT;
	k->space = (uintptr_t)as;
	k->off = uaddr;
	if (private)
		return 0;
	as_lock_read(as);   /* another thread may be unmapping meanwhile */
	struct vma *v = as_find_vma(as, uaddr);
	if (v && (v->flags & VM_SHARED) && v->obj) {
		k->space = (uintptr_t)v->obj | SHARED_KEY;
		k->off = v->obj_off + (uaddr - v->start);
	}
	as_unlock_read(as);
	return v ? 0 : -EFAULT;
}

/* Read the word at uaddr without faulting (futex_lock held): 0, or -EAGAIN
 * when its page is not mapped readable now (fault it in and retry). */
static int read_word_locked(vaddr_t uaddr, uint32_t *val)
{
	paddr_t pa;
	pte_t e;
	if (!pgt_lookup(current_proc()->as->pgt, uaddr, &pa, &e) || !pte_present(e) ||
	    !pte_user(e))
		return -EAGAIN;
	*val = __atomic_load_n((volatile uint32_t *)P2V(pa), __ATOMIC_SEQ_CST);
	return 0;
}

/* Lock futex_lock with the word at uaddr read into *val: 0 (locked), or
 * -EFAULT / -ENOMEM (unlocked) when the word cannot be read. */
static int lock_and_read(vaddr_t uaddr, uint32_t *val)
{
	for (;;) {
		spin_lock(&futex_lock);
		if (read_word_locked(uaddr, val) == 0)
			return 0;
		spin_unlock(&futex_lock);
		int r = copyin(val, uaddr, sizeof(*val));   /* takes the fault */
		if (r < 0)
			return r;
	}
}

/* Wake up to n waiters of k whose bitset meets bitset (futex_lock held). */
static int wake_locked(const struct futex_key *k, int n, uint32_t bitset)
{
	int woken = 0;
	struct list *b = bucket_of(k);
	for (struct list *it = b->next, *next; it != b && woken < n; it = next) {
		next = it->next;
		struct futex_waiter *w = list_entry(it, struct futex_waiter, link);
		if (!key_eq(&w->key, k) || !(w->bitset & bitset))
			continue;
		list_del(&w->link);
		w->woken = true;
		wakeup(w);   /* takes proc_lock (ranked after futex_lock) */
		woken++;
	}
	return woken;
}

/* Move up to n waiters of from to to (futex_lock held); how many moved. */
static int requeue_locked(const struct futex_key *from, const struct futex_key *to, int n)
{
	int moved = 0;
	struct list *b = bucket_of(from), *dst = bucket_of(to);
	for (struct list *it = b->next, *next; it != b && moved < n; it = next) {
		next = it->next;
		struct futex_waiter *w = list_entry(it, struct futex_waiter, link);
		if (!key_eq(&w->key, from))
			continue;
		list_del(&w->link);
		w->key = *to;
		list_add_tail(dst, &w->link);
		moved++;
	}
	return moved;
}

/* Sleep as w until woken, a signal, or the deadline (clock_ns(); 0: none),
 * futex_lock held throughout but while asleep: 0, -EINTR or -ETIMEDOUT.
 * A waiter not woken takes itself off its queue. */
static long wait_queued(struct futex_waiter *w, uint64_t deadline)
{
	struct proc *p = current_proc();
	long r = 0;
	while (!w->woken) {
		if (signal_interrupted(p))
			r = -EINTR;
		else if (deadline && clock_ns() >= deadline)
			r = -ETIMEDOUT;
		if (r < 0) {
			list_del(&w->link);
			return r;
		}
		if (deadline)
			sleep_on_signal_until(w, &futex_lock, deadline);
		else
			sleep_on_signal(w, &futex_lock);
	}
	return 0;
}

/* FUTEX_WAIT(_BITSET): sleep if the word at uaddr holds val. */
static long futex_wait(vaddr_t uaddr, uint32_t val, uint64_t deadline, uint32_t bitset,
		       bool private)
{
	struct futex_waiter w = { .bitset = bitset };
	uint32_t cur;
	int r = futex_key_of(uaddr, private, &w.key);
	if (r < 0 || (r = lock_and_read(uaddr, &cur)) < 0)
		return r;
	if (cur != val) {
		spin_unlock(&futex_lock);
		return -EAGAIN;
	}
	list_add_tail(bucket_of(&w.key), &w.link);
	long res = wait_queued(&w, deadline);
	spin_unlock(&futex_lock);
	return res;
}

long futex_wake(vaddr_t uaddr, int n, uint32_t bitset, bool private)
{
	struct futex_key k;
	int r = futex_key_of(uaddr, private, &k);
	if (r < 0)
		return r;
	spin_lock(&futex_lock);
	long woken = wake_locked(&k, n, bitset);
	spin_unlock(&futex_lock);
	return woken;
}

/* FUTEX_(CMP_)REQUEUE: wake nwake waiters of uaddr, move up to nmove of the
 * rest to uaddr2; cmp: only if the word still holds val3 (else -EAGAIN).
 * Woken plus moved. */
static long futex_requeue(vaddr_t uaddr, vaddr_t uaddr2, int nwake, int nmove, bool cmp,
			  uint32_t val3, bool private)
{
	struct futex_key k1, k2;
	uint32_t cur = val3;
	int r = futex_key_of(uaddr, private, &k1);
	if (r < 0 || (r = futex_key_of(uaddr2, private, &k2)) < 0)
		return r;
	if (cmp)
		r = lock_and_read(uaddr, &cur);
	else
		spin_lock(&futex_lock);
	if (r < 0)
		return r;
	long done = -EAGAIN;
	if (cur == val3) {
		done = wake_locked(&k1, nwake, FUTEX_BITSET_MATCH_ANY);
		done += requeue_locked(&k1, &k2, nmove);
	}
	spin_unlock(&futex_lock);
	return done;
}

/* ---- robust futexes: the list a dying thread leaves ---- */

#define FUTEX_WAITERS 0x80000000U
#define FUTEX_OWNER_DIED 0x40000000U
#define FUTEX_TID_MASK 0x3fffffffU
#define ROBUST_LIST_LIMIT 2048   /* Linux's: a looping list ends here */

/* struct robust_list_head of <linux/futex.h>, in user memory. */
struct robust_head {
	uint64_t next;            /* first entry; the head's own address ends */
	int64_t futex_offset;     /* from an entry to its futex word */
	uint64_t pending;         /* an entry being locked or unlocked */
};

/* Thread tid died holding the futex word at uaddr (if it still names tid
 * as its owner): mark it OWNER_DIED, keep WAITERS, and wake one waiter
 * (Linux's handle_futex_death). A pending entry already released (0) with
 * waiters gets its wake too. */
static void owner_died(vaddr_t uaddr, uint32_t tid, bool pending)
{
	for (int tries = 0; tries < 16; tries++) {   /* the owner's peers may race us */
		uint32_t val, seen;
		if (copyin(&val, uaddr, sizeof(val)) < 0)
			return;
		if ((val & FUTEX_TID_MASK) != tid) {
			if (pending && val == 0)
				(void)futex_wake(uaddr, 1, FUTEX_BITSET_MATCH_ANY, false);
			return;
		}
		uint32_t dead = (val & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (cmpxchg_user32(uaddr, val, dead, &seen) < 0)
			return;
		if (seen == val) {
			if (val & FUTEX_WAITERS)
				(void)futex_wake(uaddr, 1, FUTEX_BITSET_MATCH_ANY, false);
			return;
		}
	}
}

/* Walk the robust list of exiting (or exec'ing) thread p, the current one:
 * every futex it still owns is marked and one waiter woken. A bad list
 * ends the walk; bit 0 of an entry (PI) is ignored. */
static void exit_robust_list(struct proc *p)
{
	struct robust_head h;
	vaddr_t head = p->robust_list;
	p->robust_list = 0;
	if (!head || copyin(&h, head, sizeof(h)) < 0)
		return;
	vaddr_t entry = h.next & ~1UL, pending = h.pending & ~1UL;
	for (int n = 0; entry != head && n < ROBUST_LIST_LIMIT; n++) {
		uint64_t next;
		if (copyin(&next, entry, sizeof(next)) < 0)
			return;
		if (entry != pending)
			owner_died(entry + (vaddr_t)h.futex_offset, (uint32_t)p->pid, false);
		entry = next & ~1UL;
	}
	if (pending)
		owner_died(pending + (vaddr_t)h.futex_offset, (uint32_t)p->pid, true);
}

void futex_exec_notify(struct proc *p)
{
	exit_robust_list(p);
}

void futex_exit_notify(struct proc *p)
{
	exit_robust_list(p);
	vaddr_t a = p->clear_child_tid;
	uint32_t zero = 0;
	if (!a || !p->as || atomic_load(&p->as->users) < 2)
		return;
	p->clear_child_tid = 0;
	if (copyout(a, &zero, sizeof(zero)) == 0)
		(void)futex_wake(a, 1, FUTEX_BITSET_MATCH_ANY, false);
}

/* ---- the system call ---- */

/* The deadline on clock_ns() of the timeout at utime (0: none): relative
 * for LINUX_FUTEX_WAIT, absolute on CLOCK_REALTIME or CLOCK_MONOTONIC for
 * LINUX_FUTEX_WAIT_BITSET (kernel/time.h saturates both, as Linux does: a
 * timeout too far to count waits forever). 0 or -EFAULT / -EINVAL. */
static int futex_deadline(vaddr_t utime, bool absolute, bool realtime, uint64_t *deadline)
{
	uint64_t ns;
	*deadline = 0;
	if (!utime)
		return 0;
	int r = timespec_from_user(utime, &ns);
	if (r < 0)
		return r;
	if (absolute)
		*deadline = deadline_at(ns, realtime ? TIME_REALTIME : TIME_MONOTONIC);
	else
		*deadline = deadline_after(ns);
	return 0;
}

/* futex(uaddr, op, val, timeout or val2, uaddr2, val3) */
static long sys_futex(const uint64_t a[6])
{
	int op = (int)a[1] & ~(LINUX_FUTEX_PRIVATE | LINUX_FUTEX_CLOCK_REALTIME);
	bool private = a[1] & LINUX_FUTEX_PRIVATE, realtime = a[1] & LINUX_FUTEX_CLOCK_REALTIME;
	uint32_t val = (uint32_t)a[2], val3 = (uint32_t)a[5];
	uint64_t deadline;
	int r;
	if (realtime && op != LINUX_FUTEX_WAIT && op != LINUX_FUTEX_WAIT_BITSET)
		return -ENOSYS;
	switch (op) {
	case LINUX_FUTEX_WAIT:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case LINUX_FUTEX_WAIT_BITSET:
		if (val3 == 0)
			return -EINVAL;
		r = futex_deadline(a[3], op == LINUX_FUTEX_WAIT_BITSET, realtime, &deadline);
		return r < 0 ? r : futex_wait(a[0], val, deadline, val3, private);
	case LINUX_FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* fall through */
	case LINUX_FUTEX_WAKE_BITSET:
		if (val3 == 0)
			return -EINVAL;
		return futex_wake(a[0], (int)MIN(val, (uint32_t)INT32_MAX), val3, private);
	case LINUX_FUTEX_REQUEUE:
	case LINUX_FUTEX_CMP_REQUEUE:
		if ((int)val < 0 || (int)a[3] < 0)
			return -EINVAL;
		return futex_requeue(a[0], a[4], (int)val, (int)a[3], op == LINUX_FUTEX_CMP_REQUEUE,
				     val3, private);
	default:
		return -ENOSYS;
	}
}

const struct syscall_entry sys_futex_table[] = {
	{ SYS_futex, "futex", sys_futex },
	{ 0, NULL, NULL },
};

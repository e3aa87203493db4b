/* lib/rwsem.c -- the sleeping reader/writer lock (see lib/rwsem.h). */
#include "lib/rwsem.h"
#include "lib/printk.h"
#include "lib/wait.h"

const void *(*rwsem_self_hook)(void);
struct sleep_locks_held *(*rwsem_held_hook)(void);

/* The guard is taken by tasks that may sleep, so below the proc lock. */
void rwsem_init(struct rwsem *l, const char *name, enum sleep_rank rank)
{
	spin_init(&l->lk, name, LOCK_RANK_RWSEM);
	l->count = 0;
	l->writer = NULL;
	l->name = name;
	l->rank = (uint8_t)rank;
}

/* ---- lock order ---- */

static struct sleep_locks_held no_task_held;   /* early boot, host tests */

static struct sleep_locks_held *held(void)
{
	struct sleep_locks_held *h = rwsem_held_hook ? rwsem_held_hook() : NULL;
	return h ? h : &no_task_held;
}

/* Taking l while holding a lock of a higher rank: the opposite order
 * exists, and the two tasks could wait for each other forever. */
static void check_order(const struct rwsem *l)
{
	const struct sleep_locks_held *h = held();
	for (int r = l->rank + 1; lockdep_on && r < SLEEP_RANK_COUNT; r++)
		if (h->n[r])
			panic("lockdep: takes sleeping lock %s (rank %d) while holding a sleeping "
			      "lock of rank %d", l->name, l->rank, r);
}

static void note_taken(const struct rwsem *l)
{
	held()->n[l->rank]++;
}

static void note_released(const struct rwsem *l)
{
	struct sleep_locks_held *h = held();
	if (h->n[l->rank])
		h->n[l->rank]--;
}

static const void *self(void)
{
	return rwsem_self_hook ? rwsem_self_hook() : (const void *)1;
}

/* Wait for l to change (l->lk held; it is held again on return). */
SLEEP_TEXT static void wait(struct rwsem *l)
{
	wait_on(l, &l->lk);
}

static void wake(struct rwsem *l)
{
	wait_wake(l);
}

/* Sleeping with a spinlock held would switch with it held. */
static void check_may_sleep(const struct rwsem *l)
{
	if (spin_held_count() > 0)
		panic("lockdep: takes sleeping lock %s while holding spinlock %s", l->name,
		      spin_held_name());
}

static void check_not_writer(const struct rwsem *l)
{
	if (l->writer && l->writer == self())
		panic("rwsem %s: taken again by its writer (it would wait for itself)",
		      l->name);
}

/* ---- the state word ---- */

static uint64_t count_of(const struct rwsem *l)
{
	return __atomic_load_n(&l->count, __ATOMIC_ACQUIRE);
}

/* Add one reader if no writer holds or waits; false if one does. */
static bool try_read(struct rwsem *l)
{
	uint64_t c = count_of(l);
	while (!(c & ~RWSEM_READERS))
		if (__atomic_compare_exchange_n(&l->count, &c, c + RWSEM_READER, false,
						__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* Become the writer if nobody holds it, giving up `waiting` (0 or one
 * RWSEM_WAITING: the caller's own); false if somebody holds it. */
static bool try_write(struct rwsem *l, uint64_t waiting)
{
	uint64_t c = count_of(l);
	while (!(c & (RWSEM_READERS | RWSEM_WRITER)))
		if (__atomic_compare_exchange_n(&l->count, &c, c - waiting + RWSEM_WRITER, false,
						__ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* Wake every sleeper of l (they re-check under lk). */
static void wake_all(struct rwsem *l)
{
	spin_lock(&l->lk);
	wake(l);
	spin_unlock(&l->lk);
}

/* ---- readers ---- */

SLEEP_TEXT void down_read(struct rwsem *l)
{
	check_may_sleep(l);
	check_order(l);
	check_not_writer(l);
	if (!try_read(l)) {   /* a writer holds or waits: sleep behind it */
		spin_lock(&l->lk);
		while (!try_read(l))
			wait(l);
		spin_unlock(&l->lk);
	}
	note_taken(l);
}

bool down_read_trylock(struct rwsem *l)
{
	if (!try_read(l))
		return false;   /* a writer holds or waits: no wait here */
	note_taken(l);
	return true;
}

/* Only a writer can wait for the readers to leave (readers waiting behind
 * it are woken by its up_write), so the last reader out wakes only when a
 * writer waits: waking nobody still scanned every sleeper under the process
 * lock, 0.5 us of each page fault of a single-threaded process
 * (lat_pagefault write 4.4 -> 3.9 us). A writer that counted itself
 * waiting (under lk) and saw readers sleeps under lk: this reader's
 * decrement came after its look, so it sees RWSEM_WAITING, and its wake
 * (under lk) comes after the writer went to sleep. */
void up_read(struct rwsem *l)
{
	uint64_t was = __atomic_fetch_sub(&l->count, RWSEM_READER, __ATOMIC_SEQ_CST);
	if (!(was & RWSEM_READERS))
		panic("rwsem %s: up_read, not held for reading", l->name);
	if ((was & RWSEM_READERS) == RWSEM_READER && (was & ~(RWSEM_READERS | RWSEM_WRITER)))
		wake_all(l);
	note_released(l);
}

/* ---- the writer ---- */

/* The trylock checks no order: a try that fails does not wait. */
bool down_write_trylock(struct rwsem *l)
{
	if (!try_write(l, 0))
		return false;
	l->writer = self();
	note_taken(l);
	return true;
}

SLEEP_TEXT void down_write(struct rwsem *l)
{
	check_may_sleep(l);
	check_order(l);
	check_not_writer(l);
	spin_lock(&l->lk);
	__atomic_fetch_add(&l->count, RWSEM_WAITING, __ATOMIC_SEQ_CST);   /* new readers wait */
	while (!try_write(l, RWSEM_WAITING))
		wait(l);
	l->writer = self();
	spin_unlock(&l->lk);
	note_taken(l);
}

void up_write(struct rwsem *l)
{
	if (!l->writer || l->writer != self() || !(count_of(l) & RWSEM_WRITER))
		panic("rwsem %s: up_write, not held for writing by the caller", l->name);
	l->writer = NULL;
	__atomic_fetch_sub(&l->count, RWSEM_WRITER, __ATOMIC_SEQ_CST);
	wake_all(l);   /* the readers and writers waiting behind it */
	note_released(l);
}

bool rwsem_is_write_locked_by_me(const struct rwsem *l)
{
	return l->writer && l->writer == self();
}

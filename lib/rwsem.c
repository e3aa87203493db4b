/* lib/rwsem.c -- the sleeping reader/writer lock (see lib/rwsem.h). */
#include "lib/rwsem.h"
#include "lib/printk.h"

void (*rwsem_sleep_hook)(const void *chan, struct spinlock *lk);
void (*rwsem_wake_hook)(const void *chan);
const void *(*rwsem_self_hook)(void);
struct sleep_locks_held *(*rwsem_held_hook)(void);

/* The guard is taken by tasks that may sleep, so below the proc lock. */
void rwsem_init(struct rwsem *l, const char *name, enum sleep_rank rank)
{
	spin_init(&l->lk, name, LOCK_RANK_RWSEM);
	l->readers = l->writers_waiting = 0;
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
static void wait(struct rwsem *l)
{
	if (rwsem_sleep_hook) {
		rwsem_sleep_hook(l, &l->lk);
		return;
	}
	spin_unlock(&l->lk);
	spin_relax();
	spin_lock(&l->lk);
}

static void wake(struct rwsem *l)
{
	if (rwsem_wake_hook)
		rwsem_wake_hook(l);
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

void down_read(struct rwsem *l)
{
	check_may_sleep(l);
	check_order(l);
	spin_lock(&l->lk);
	check_not_writer(l);
	while (l->writer || l->writers_waiting)
		wait(l);
	l->readers++;
	spin_unlock(&l->lk);
	note_taken(l);
}

/* The trylock checks no order: a try that fails does not wait. */
bool down_write_trylock(struct rwsem *l)
{
	spin_lock(&l->lk);
	bool ok = !l->writer && !l->readers;
	if (ok)
		l->writer = self();
	spin_unlock(&l->lk);
	if (ok)
		note_taken(l);
	return ok;
}

void up_read(struct rwsem *l)
{
	spin_lock(&l->lk);
	if (l->readers <= 0)
		panic("rwsem %s: up_read, not held for reading", l->name);
	/* Only a writer can wait for the readers to leave (readers waiting
	 * behind it are woken by its up_write). Waking nobody still scanned
	 * every sleeper under the process lock: 0.5 us of each page fault of
	 * a single-threaded process (lat_pagefault write 4.4 -> 3.9 us). */
	if (--l->readers == 0 && l->writers_waiting)
		wake(l);
	spin_unlock(&l->lk);
	note_released(l);
}

void down_write(struct rwsem *l)
{
	check_may_sleep(l);
	check_order(l);
	spin_lock(&l->lk);
	check_not_writer(l);
	l->writers_waiting++;
	while (l->writer || l->readers)
		wait(l);
	l->writers_waiting--;
	l->writer = self();
	spin_unlock(&l->lk);
	note_taken(l);
}

void up_write(struct rwsem *l)
{
	spin_lock(&l->lk);
	if (!l->writer || l->writer != self())
		panic("rwsem %s: up_write, not held for writing by the caller", l->name);
	l->writer = NULL;
	wake(l);
	spin_unlock(&l->lk);
	note_released(l);
}

bool rwsem_is_write_locked_by_me(const struct rwsem *l)
{
	return l->writer && l->writer == self();
}

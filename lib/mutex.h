/* lib/mutex.h -- a sleeping lock with one holder at a time (Linux's mutex).
 *
 * It is an rwsem (lib/rwsem.h) always taken for writing, with its rules: a
 * task that cannot have it sleeps; it may be held across anything but a
 * spinlock (a user copy that faults, an allocation), and it is never taken
 * while this CPU holds a spinlock (lockdep panics). Its holder must not
 * wait for anything unbounded while holding it (a pipe drops its mutex
 * before it sleeps for room or data), so that waiting for it never hangs.
 *
 * Errors: none. Panics (naming the lock): unlocking a mutex not held,
 * locking one the caller holds already.
 */
#ifndef LIB_MUTEX_H
#define LIB_MUTEX_H

#include "lib/rwsem.h"

struct mutex {
	struct rwsem sem;
};

/* mutex_init's result, for a mutex defined statically. */
#define MUTEX_INIT(n, r) { .sem = RWSEM_INIT(n, r) }

static inline void mutex_init(struct mutex *m, const char *name, enum sleep_rank rank)
{
	rwsem_init(&m->sem, name, rank);
}

static inline void mutex_lock(struct mutex *m)
{
	down_write(&m->sem);
}

static inline void mutex_unlock(struct mutex *m)
{
	up_write(&m->sem);
}

#endif

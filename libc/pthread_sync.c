/* libc/pthread_sync.c -- mutexes, condition variables, rwlocks, barriers
 * and spinlocks on futex words (libc/include/pthread.h; newlib build).
 *
 * Each waits in FUTEX_WAIT on a word that the waker changes before its
 * FUTEX_WAKE, so a wake between a waiter's check and its sleep makes the
 * kernel's own check fail (EAGAIN) instead of being lost. Private futexes
 * unless the object is PTHREAD_PROCESS_SHARED.
 */
#include <errno.h>
#include <limits.h>
#include <time.h>
#include "linux_abi.h"
#include "pthread_impl.h"

#define XCHG(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define CAS(p, o, n) __extension__({ int o_ = (o); \
	__atomic_compare_exchange_n((p), &o_, (n), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); })

static int priv(int pshared)
{
	return pshared ? 0 : LINUX_FUTEX_PRIVATE;
}

static void wait_on(volatile void *w, unsigned val, int pshared)
{
	__pagoda_futex(w, LINUX_FUTEX_WAIT | priv(pshared), val, NULL, 0);
}

static void wake(volatile void *w, int n, int pshared)
{
	__pagoda_futex(w, LINUX_FUTEX_WAKE | priv(pshared), (unsigned)n, NULL, 0);
}

/* ---- mutexes: 0 free, 1 locked, 2 locked and maybe waited for ---- */

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	*m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	if (a) {
		m->type = a->type;
		m->pshared = a->pshared;
	}
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	return m->lock ? EBUSY : 0;
}

/* The recursive and error-checking kinds' rules for the owner: 0 to go on
 * and lock, -1 when done (a recursion), or an error number. */
static int owner_check(pthread_mutex_t *m)
{
	if (m->type == PTHREAD_MUTEX_NORMAL || m->owner != __pagoda_self())
		return 0;
	if (m->type == PTHREAD_MUTEX_ERRORCHECK)
		return EDEADLK;
	if (m->count == INT_MAX)
		return EAGAIN;
	m->count++;
	return -1;
}

static void took(pthread_mutex_t *m)
{
	if (m->type != PTHREAD_MUTEX_NORMAL) {
		m->owner = __pagoda_self();
		m->count = 1;
	}
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	int r = owner_check(m);
	if (r)
		return r < 0 ? 0 : r;
	if (!CAS(&m->lock, 0, 1))
		while (XCHG(&m->lock, 2) != 0)
			wait_on(&m->lock, 2, m->pshared);
	took(m);
	return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	int r = owner_check(m);
	if (r)
		return r < 0 ? 0 : r == EDEADLK ? EBUSY : r;
	if (!CAS(&m->lock, 0, 1))
		return EBUSY;
	took(m);
	return 0;
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (m->type != PTHREAD_MUTEX_NORMAL) {
		if (m->owner != __pagoda_self())
			return EPERM;
		if (--m->count > 0)
			return 0;
		m->owner = NULL;
	}
	if (XCHG(&m->lock, 0) == 2)
		wake(&m->lock, 1, m->pshared);
	return 0;
}

int pthread_mutexattr_init(pthread_mutexattr_t *a)
{
	a->type = PTHREAD_MUTEX_DEFAULT;
	a->pshared = 0;
	return 0;
}

int pthread_mutexattr_destroy(pthread_mutexattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ERRORCHECK)
		return EINVAL;
	a->type = type;
	return 0;
}

int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
	*type = a->type;
	return 0;
}

int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->pshared = pshared;
	return 0;
}

/* ---- condition variables: a sequence number ---- */

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	*c = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	if (a) {
		c->pshared = a->pshared;
		c->clock = a->clock;
	}
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	(void)c;
	return 0;
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	if (abstime && (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000L))
		return EINVAL;
	struct { int64_t s, ns; } ts = { abstime ? abstime->tv_sec : 0, abstime ? abstime->tv_nsec : 0 };
	int op = LINUX_FUTEX_WAIT_BITSET | priv(c->pshared) |
		 (c->clock == CLOCK_MONOTONIC ? 0 : LINUX_FUTEX_CLOCK_REALTIME);
	unsigned seq = c->seq;
	pthread_mutex_unlock(m);
	long r = __pagoda_futex(&c->seq, op, seq, abstime ? &ts : NULL, ~0u);
	pthread_mutex_lock(m);
	return r == -LINUX_ETIMEDOUT ? ETIMEDOUT : 0;   /* else woken, or spurious */
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return pthread_cond_timedwait(c, m, NULL);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
	wake(&c->seq, 1, c->pshared);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
	wake(&c->seq, INT_MAX, c->pshared);
	return 0;
}

int pthread_condattr_init(pthread_condattr_t *a)
{
	a->pshared = 0;
	a->clock = CLOCK_REALTIME;
	return 0;
}

int pthread_condattr_destroy(pthread_condattr_t *a)
{
	(void)a;
	return 0;
}

int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t clock)
{
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return EINVAL;
	a->clock = clock;
	return 0;
}

int pthread_condattr_setpshared(pthread_condattr_t *a, int pshared)
{
	a->pshared = pshared;
	return 0;
}

/* ---- rwlocks: state -1 (a writer) or the number of readers ---- */

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	*l = (pthread_rwlock_t)PTHREAD_RWLOCK_INITIALIZER;
	l->pshared = a ? a->pshared : 0;
	return 0;
}

int pthread_rwlock_destroy(pthread_rwlock_t *l)
{
	return l->state ? EBUSY : 0;
}

static int try_read(pthread_rwlock_t *l)
{
	int s = l->state;
	return s >= 0 && s < INT_MAX && CAS(&l->state, s, s + 1);
}

static int try_write(pthread_rwlock_t *l)
{
	return CAS(&l->state, 0, -1);
}

/* Take l with try, sleeping on its sequence word between attempts. */
static void rw_take(pthread_rwlock_t *l, int (*try)(pthread_rwlock_t *))
{
	while (!try(l)) {
		__atomic_add_fetch(&l->waiters, 1, __ATOMIC_SEQ_CST);
		unsigned seq = __atomic_load_n(&l->seq, __ATOMIC_SEQ_CST);
		if (!try(l)) {
			wait_on(&l->seq, seq, l->pshared);
			__atomic_sub_fetch(&l->waiters, 1, __ATOMIC_SEQ_CST);
			continue;
		}
		__atomic_sub_fetch(&l->waiters, 1, __ATOMIC_SEQ_CST);
		return;
	}
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	rw_take(l, try_read);
	return 0;
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	rw_take(l, try_write);
	return 0;
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return try_read(l) ? 0 : EBUSY;
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return try_write(l) ? 0 : EBUSY;
}

int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	if (l->state == -1)
		__atomic_store_n(&l->state, 0, __ATOMIC_SEQ_CST);
	else
		__atomic_sub_fetch(&l->state, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&l->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->waiters, __ATOMIC_SEQ_CST))
		wake(&l->seq, INT_MAX, l->pshared);
	return 0;
}

/* ---- barriers: arrivals and a round number ---- */

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	if (n == 0)
		return EINVAL;
	b->count = b->gen = 0;
	b->n = n;
	b->pshared = a ? a->pshared : 0;
	return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
	(void)b;
	return 0;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
	unsigned gen = __atomic_load_n(&b->gen, __ATOMIC_SEQ_CST);
	if (__atomic_add_fetch(&b->count, 1, __ATOMIC_SEQ_CST) == b->n) {
		__atomic_store_n(&b->count, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&b->gen, 1, __ATOMIC_SEQ_CST);
		wake(&b->gen, INT_MAX, b->pshared);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_SEQ_CST) == gen)
		wait_on(&b->gen, gen, b->pshared);
	return 0;
}

/* ---- spinlocks ---- */

int pthread_spin_init(pthread_spinlock_t *s, int pshared)
{
	(void)pshared;
	*s = 0;
	return 0;
}

int pthread_spin_destroy(pthread_spinlock_t *s)
{
	(void)s;
	return 0;
}

int pthread_spin_lock(pthread_spinlock_t *s)
{
	while (XCHG(s, 1))
		while (*s)
			__builtin_ia32_pause();
	return 0;
}

int pthread_spin_trylock(pthread_spinlock_t *s)
{
	return XCHG(s, 1) ? EBUSY : 0;
}

int pthread_spin_unlock(pthread_spinlock_t *s)
{
	__atomic_store_n(s, 0, __ATOMIC_RELEASE);
	return 0;
}

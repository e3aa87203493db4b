/* libc/pthread_impl.h -- the inside of Pagoda's pthreads (newlib build):
 * the thread control block, TLS blocks, the futex calls and the small lock
 * the C library's own state (malloc) takes once threads exist. */
#ifndef LIBC_PTHREAD_IMPL_H
#define LIBC_PTHREAD_IMPL_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <pagoda/abi-linux.h>
#include "raw_syscall.h"

#define LINUX_EAGAIN 11
#define LINUX_EINTR 4
#define LINUX_ETIMEDOUT 110

/* Thread states (struct __pthread.state). */
enum { PT_JOINABLE, PT_DETACHED, PT_EXITED };

/* A thread's control block: at its thread pointer (%fs:0 holds `self`, as
 * the x86-64 TLS ABI wants), just above its TLS block; a new thread's stack
 * lies below them in the same mapping. */
struct __pthread {
	struct __pthread *self;
	volatile int tid;       /* cleared (and futex-woken) by the kernel at exit */
	volatile int state;     /* PT_* */
	void *(*start)(void *);
	void *arg, *result;
	void *map;              /* the mapping of stack, TLS and this (NULL: main) */
	size_t map_len;
	int err;                /* errno of this thread (main: newlib's) */
	uint64_t sigmask;       /* Linux mask to restore in a new thread */
	void *tsd[PTHREAD_KEYS_MAX];
};

/* Set once the first thread is created; the locks below do nothing before. */
extern volatile int __pagoda_threaded;

/* The calling thread's control block (sets up the main thread's first). */
struct __pthread *__pagoda_self(void);

/* The main thread's control block and TLS, once (libc/tls.c): at start-up
 * if the program has __thread data, else at the first pthread call. */
void __pagoda_tls_main(void);

/* Lay out a TLS block and control block ending at most at top (the TLS
 * template copied, the rest zero): the control block, or NULL when
 * [bottom, top) is too small. */
struct __pthread *__pagoda_tls_place(char *bottom, char *top);

/* Bytes a TLS block and control block need (alignment slack included). */
size_t __pagoda_tls_need(void);

/* futex(2), raw: 0 / woken count, or -Linux errno. */
static inline long __pagoda_futex(volatile void *addr, int op, unsigned val,
				  const void *ts, unsigned val3)
{
	return raw_syscall6(SYS_futex, (long)addr, op, val, (long)ts, 0, val3);
}

/* A lock for the C library's own state: 0 free, 1 held, 2 held with
 * waiters. Free to take while the program has one thread. */
static inline void __pagoda_lock(volatile int *l)
{
	if (!__pagoda_threaded)
		return;
	int z = 0;
	if (__atomic_compare_exchange_n(l, &z, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	while (__atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE) != 0)
		__pagoda_futex(l, LINUX_FUTEX_WAIT | LINUX_FUTEX_PRIVATE, 2, NULL, 0);
}

static inline void __pagoda_unlock(volatile int *l)
{
	if (!__pagoda_threaded)
		return;
	if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
		__pagoda_futex(l, LINUX_FUTEX_WAKE | LINUX_FUTEX_PRIVATE, 1, NULL, 0);
}

/* malloc's lock (libc/malloc.c), also held across fork. */
extern volatile int __pagoda_malloc_lock;

#endif

/* sys/_pthreadtypes.h -- Pagoda's pthread types, replacing newlib's (whose
 * 32-bit handles suit an RTOS's kernel objects, not futex words with their
 * owners). libc/pthread*.c implements them on clone(2) and futex(2);
 * <sys/types.h> includes this. */
#ifndef _SYS__PTHREADTYPES_H_
#define _SYS__PTHREADTYPES_H_

#include <sys/_types.h>

typedef struct __pthread *pthread_t;   /* the thread's control block */

typedef struct {
	int detachstate;       /* PTHREAD_CREATE_JOINABLE / _DETACHED */
	__SIZE_TYPE__ stacksize;
} pthread_attr_t;

typedef struct {
	volatile int lock;     /* 0 free, 1 locked, 2 locked with waiters (a futex) */
	int type;              /* PTHREAD_MUTEX_NORMAL / _RECURSIVE / _ERRORCHECK */
	int pshared;
	int count;             /* recursive depth */
	void *owner;           /* the holder (recursive and error-checking kinds) */
} pthread_mutex_t;

typedef struct {
	int type, pshared;
} pthread_mutexattr_t;

typedef struct {
	volatile unsigned seq; /* bumped by every signal and broadcast (a futex) */
	int pshared, clock;
} pthread_cond_t;

typedef struct {
	int pshared, clock;
} pthread_condattr_t;

typedef struct {
	volatile int state;    /* -1 a writer, n > 0 readers, 0 free */
	volatile unsigned seq; /* bumped at every unlock (a futex) */
	volatile int waiters;
	int pshared;
} pthread_rwlock_t;

typedef struct {
	int pshared;
} pthread_rwlockattr_t;

typedef struct {
	volatile unsigned count, gen;   /* arrivals; the round (a futex) */
	unsigned n;
	int pshared;
} pthread_barrier_t;

typedef struct {
	int pshared;
} pthread_barrierattr_t;

typedef volatile int pthread_spinlock_t;
typedef unsigned pthread_key_t;
typedef volatile int pthread_once_t;

#endif

/* libc/pthread.c -- threads for newlib programs: create, join, detach,
 * exit, keys, once, signals (libc/include/pthread.h).
 *
 * A thread is one anonymous mapping: a guard page, its stack, its TLS block
 * and control block at the top (libc/tls.c). pthread_create clones with
 * the flags musl uses (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
 * CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID |
 * CLONE_CHILD_CLEARTID): the kernel writes the tid into the control block
 * and clears it, waking one futex waiter, when the thread has exited, so
 * pthread_join waits on that word and then unmaps the thread. A detached
 * thread unmaps itself on its way out, with every signal blocked and no
 * clear-tid address, so nothing touches the mapping after munmap.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "linux_abi.h"
#include "pthread_impl.h"

#define CLONE_THREAD_FLAGS 0x003d0f00UL   /* the nine flags above */
#define GUARD 4096
#define DEFAULT_STACK (256 * 1024)

static void (*key_dtor[PTHREAD_KEYS_MAX])(void *);
static volatile unsigned char key_used[PTHREAD_KEYS_MAX];
static volatile int key_lock;

/* ---- the thread's life ---- */

/* Run every key's destructor on the thread's non-NULL values (up to 4
 * rounds, as POSIX allows). */
static void run_destructors(struct __pthread *t)
{
	for (int round = 0; round < 4; round++) {
		int any = 0;
		for (int k = 0; k < PTHREAD_KEYS_MAX; k++) {
			void *v = t->tsd[k];
			if (v && key_used[k] && key_dtor[k]) {
				t->tsd[k] = NULL;
				key_dtor[k](v);
				any = 1;
			}
		}
		if (!any)
			return;
	}
}

/* A detached thread's end: block signals, leave no clear-tid address,
 * unmap the mapping we run on, exit; only registers after the munmap. */
static __attribute__((noreturn)) void unmap_self(void *map, size_t len)
{
	uint64_t all = ~0ULL;
	raw_syscall4(SYS_rt_sigprocmask, LINUX_SIG_BLOCK, &all, NULL, LINUX_SIGSET_SIZE);
	raw_syscall1(SYS_set_tid_address, 0);
	__asm__ volatile("syscall\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "hlt"
			 : : "a"(SYS_munmap), "D"(map), "S"(len) : "rcx", "r11", "memory");
	__builtin_unreachable();
}

void pthread_exit(void *result)
{
	struct __pthread *t = __pagoda_self();
	t->result = result;
	run_destructors(t);
	if (__atomic_exchange_n(&t->state, PT_EXITED, __ATOMIC_ACQ_REL) == PT_DETACHED && t->map)
		unmap_self(t->map, t->map_len);
	for (;;)
		raw_syscall1(SYS_exit, 0);   /* this thread only; the kernel clears tid */
}

/* First C code of a new thread (on its own stack). */
static __attribute__((noreturn, used)) void thread_main(struct __pthread *t)
{
	raw_syscall4(SYS_rt_sigprocmask, LINUX_SIG_SETMASK, &t->sigmask, NULL, LINUX_SIGSET_SIZE);
	pthread_exit(t->start(t->arg));
}

/* clone into thread_main(t) on stack: the child's tid, or -errno. The child
 * finds t in r12 (callee-saved registers are the parent's in the child). */
static long clone_thread(struct __pthread *t, void *stack)
{
	register long r10 __asm__("r10") = (long)&t->tid;   /* child_tid */
	register long r8 __asm__("r8") = (long)t;           /* tls */
	register long r12 __asm__("r12") = (long)t;
	long ret;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r12, %%rdi\n\t"
			 "call thread_main\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(SYS_clone), "D"(CLONE_THREAD_FLAGS), "S"(stack), "d"(&t->tid),
			   "r"(r10), "r"(r8), "r"(r12)
			 : "rcx", "r11", "memory");
	return ret;
}

/* A mapping with a guard page, a stack of size bytes and the TLS and
 * control blocks on top: the control block, or NULL. */
static struct __pthread *thread_alloc(size_t size, char **stack_top)
{
	size_t len = (GUARD + size + __pagoda_tls_need() + 4095) & ~4095UL;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	mprotect(m, GUARD, PROT_NONE);
	struct __pthread *t = __pagoda_tls_place(m + GUARD, m + len);
	t->map = m;
	t->map_len = len;
	*stack_top = (char *)(((uintptr_t)t - __pagoda_tls_need()) & ~15UL);
	return t;
}

int pthread_create(pthread_t *out, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	size_t size = attr && attr->stacksize ? attr->stacksize : DEFAULT_STACK;
	char *top;
	__pagoda_self();   /* the main thread's control block exists first */
	struct __pthread *t = thread_alloc(size, &top);
	if (!t)
		return EAGAIN;
	t->start = fn;
	t->arg = arg;
	t->state = attr && attr->detachstate == PTHREAD_CREATE_DETACHED ? PT_DETACHED : PT_JOINABLE;
	uint64_t all = ~0ULL;
	raw_syscall4(SYS_rt_sigprocmask, LINUX_SIG_BLOCK, &all, &t->sigmask, LINUX_SIGSET_SIZE);
	__pagoda_threaded = 1;
	long r = clone_thread(t, top);
	raw_syscall4(SYS_rt_sigprocmask, LINUX_SIG_SETMASK, &t->sigmask, NULL, LINUX_SIGSET_SIZE);
	if (raw_is_error(r)) {
		munmap(t->map, t->map_len);
		return errno_from_linux((int)-r);
	}
	*out = t;
	return 0;
}

/* Wait until the kernel has let go of t (its tid word is 0), then unmap
 * it: t's result (written before the kernel cleared tid). */
static void *reap(struct __pthread *t)
{
	int tid;
	while ((tid = t->tid) != 0)
		__pagoda_futex(&t->tid, LINUX_FUTEX_WAIT, (unsigned)tid, NULL, 0);
	void *result = t->result;
	munmap(t->map, t->map_len);
	return result;
}

int pthread_join(pthread_t t, void **result)
{
	if (t == __pagoda_self())
		return EDEADLK;
	if (t->state == PT_DETACHED || !t->map)
		return EINVAL;
	void *r = reap(t);
	if (result)
		*result = r;
	return 0;
}

int pthread_detach(pthread_t t)
{
	int old = __atomic_exchange_n(&t->state, PT_DETACHED, __ATOMIC_ACQ_REL);
	if (old == PT_DETACHED)
		return EINVAL;
	if (old == PT_EXITED && t->map)
		(void)reap(t);   /* it ended joinable: nobody else will unmap it */
	return 0;
}

pthread_t pthread_self(void)
{
	return __pagoda_self();
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

/* ---- once and keys ---- */

int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	int z = 0;
	if (__atomic_compare_exchange_n(once, &z, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fn();
		__atomic_store_n(once, 2, __ATOMIC_RELEASE);
		__pagoda_futex(once, LINUX_FUTEX_WAKE | LINUX_FUTEX_PRIVATE, INT_MAX, NULL, 0);
		return 0;
	}
	while ((z = *once) != 2)
		__pagoda_futex(once, LINUX_FUTEX_WAIT | LINUX_FUTEX_PRIVATE, (unsigned)z, NULL, 0);
	return 0;
}

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *))
{
	int r = EAGAIN;
	__pagoda_lock(&key_lock);
	for (unsigned k = 0; k < PTHREAD_KEYS_MAX && r; k++) {
		if (!key_used[k]) {
			key_dtor[k] = destructor;
			key_used[k] = 1;
			*key = k;
			r = 0;
		}
	}
	__pagoda_unlock(&key_lock);
	return r;
}

int pthread_key_delete(pthread_key_t key)
{
	if (key >= PTHREAD_KEYS_MAX || !key_used[key])
		return EINVAL;
	key_used[key] = 0;
	return 0;
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
	if (key >= PTHREAD_KEYS_MAX || !key_used[key])
		return EINVAL;
	__pagoda_self()->tsd[key] = (void *)value;
	return 0;
}

void *pthread_getspecific(pthread_key_t key)
{
	return key < PTHREAD_KEYS_MAX ? __pagoda_self()->tsd[key] : NULL;
}

/* ---- signals ---- */

int pthread_kill(pthread_t t, int sig)
{
	int tid = t->tid;
	if (!tid)
		return ESRCH;
	long r = raw_syscall3(SYS_tgkill, raw_syscall0(SYS_getpid), tid, sig ? signal_to_linux(sig) : 0);
	return raw_is_error(r) ? errno_from_linux((int)-r) : 0;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	int saved = errno;
	int r = sigprocmask(how, set, old) < 0 ? errno : 0;
	errno = saved;
	return r;
}

/* ---- attributes ---- */

int pthread_attr_init(pthread_attr_t *a)
{
	a->detachstate = PTHREAD_CREATE_JOINABLE;
	a->stacksize = 0;
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *a)
{
	(void)a;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int state)
{
	if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	a->detachstate = state;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *state)
{
	*state = a->detachstate;
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t size)
{
	if (size < PTHREAD_STACK_MIN)
		return EINVAL;
	a->stacksize = size;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *size)
{
	*size = a->stacksize ? a->stacksize : DEFAULT_STACK;
	return 0;
}

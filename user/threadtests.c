/* user/threadtests.c -- threads: pthreads and the system calls under them
 * (clone, futex, tgkill, exit_group, ...).
 *
 * Built twice from this source (user/user.mk): bin/threadtests against
 * newlib and Pagoda's own pthread layer (libc/pthread.c), and with
 * musl-gcc -static as bin/threadtests-musl (musl's pthreads, unmodified).
 * Both run as pid 1 on Pagoda (suites user-threads*, on 1, 2 and 4 CPUs)
 * and on the Linux host (script user-host-threads), the reference. Each test runs
 * in a forked child whose exit status decides; it prints
 *     TEST user.thread_NAME PASS | FAIL <why>
 * and "THREADTESTS END <n> passed, <m> failed", and exits 0 only if all
 * passed. Nothing is timed: every wait is for an event, the few timeouts
 * only check that a timeout is reported.
 *
 * `threadtests-musl NAME...` runs only those tests, `threadtests -x
 * NAME...` all but those; `--exec-check PID` is
 * the program a thread's execve runs (thread_exec).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#include <pagoda/abi-linux.h>

#define FUTEX_WAIT LINUX_FUTEX_WAIT   /* <linux/futex.h>'s names */
#define FUTEX_WAKE LINUX_FUTEX_WAKE
#define FUTEX_CMP_REQUEUE LINUX_FUTEX_CMP_REQUEUE
#define FUTEX_WAIT_BITSET LINUX_FUTEX_WAIT_BITSET
#define FUTEX_WAKE_BITSET LINUX_FUTEX_WAKE_BITSET
#define FUTEX_PRIVATE LINUX_FUTEX_PRIVATE
#define FUTEX_CLOCK_REALTIME LINUX_FUTEX_CLOCK_REALTIME

static const char *self_path;   /* argv[0], for thread_exec */

/* ---- the runner ---- */

static void fail(int line, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void fail(int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stdout, "  threadtests.c:%d: ", line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, "\n");
	fflush(stdout);
	_exit(1);
}

#define CHECK(c) do { if (!(c)) fail(__LINE__, "%s", #c); } while (0)
#define CHECK_ERR(e, err) do { long r_ = (long)(e); int e_ = errno; \
	if (r_ != -1 || e_ != (err)) fail(__LINE__, "%s: %ld errno %d, want -1 errno %d", #e, r_, e_, err); } while (0)

static long futex(volatile uint32_t *a, int op, uint32_t val, const struct timespec *t,
		  volatile uint32_t *a2, uint32_t val3)
{
	return syscall(SYS_futex, a, op, val, t, a2, val3);
}

/* A /proc file's field (procfs style "Name:\tvalue"), or -1. */
static long proc_field(const char *path, const char *name)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *t = strstr(buf, name);
	return t ? atol(t + strlen(name)) : -1;
}

/* The "Threads:" figure of /proc/self/status, or -1. */
static int proc_threads(void)
{
	return (int)proc_field("/proc/self/status", "Threads:");
}

/* Wait (yielding, bounded) until only the calling thread is left. */
static int settle_threads(void)
{
	int n = proc_threads();
	for (int i = 0; i < 100000 && n != 1; i++) {
		sched_yield();
		n = proc_threads();
	}
	return n;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Start n threads running fn((void *)i), i = 0..n-1. */
static void start_all(pthread_t *t, int n, void *(*fn)(void *))
{
	for (intptr_t i = 0; i < n; i++)
		CHECK(pthread_create(&t[i], NULL, fn, (void *)i) == 0);
}

/* Join n threads; each must return NULL. */
static void join_all(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0);
		CHECK(r == NULL);
	}
}

/* ---- create, join, detach ---- */

static void *ret_arg_plus_one(void *a)
{
	return (void *)((intptr_t)a + 1);
}

static pid_t tids[8];
static void *record_tid(void *a)
{
	tids[(intptr_t)a] = gettid_();
	return (void *)(intptr_t)getpid();
}

/* create_join: results come back through join; every thread has the
 * process's pid and a tid of its own. */
static void t_create_join(void)
{
	pthread_t t[8];
	for (intptr_t i = 0; i < 8; i++)
		CHECK(pthread_create(&t[i], NULL, ret_arg_plus_one, (void *)(i * 10)) == 0);
	for (intptr_t i = 0; i < 8; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0);
		CHECK((intptr_t)r == i * 10 + 1);
	}
	start_all(t, 8, record_tid);
	for (int i = 0; i < 8; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0);
		CHECK((pid_t)(intptr_t)r == getpid());
		CHECK(tids[i] > 0 && tids[i] != getpid());
		for (int j = 0; j < i; j++)
			CHECK(tids[j] != tids[i]);
	}
	CHECK(gettid_() == getpid());
	CHECK(settle_threads() == 1);
}

static volatile uint32_t detached_done;
static void *detached_body(void *a)
{
	(void)a;
	__atomic_add_fetch(&detached_done, 1, __ATOMIC_SEQ_CST);
	futex(&detached_done, FUTEX_WAKE | FUTEX_PRIVATE, INT_MAX, NULL, NULL, 0);
	return NULL;
}

/* detach: detached threads run and vanish; the thread count returns to 1. */
static void t_detach(void)
{
	enum { N = 6 };
	pthread_attr_t at;
	CHECK(pthread_attr_init(&at) == 0);
	CHECK(pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) == 0);
	for (int i = 0; i < N; i++) {
		pthread_t t;
		CHECK(pthread_create(&t, &at, detached_body, NULL) == 0);
	}
	uint32_t v;
	while ((v = detached_done) < N)
		futex(&detached_done, FUTEX_WAIT | FUTEX_PRIVATE, v, NULL, NULL, 0);
	CHECK(settle_threads() == 1);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, detached_body, NULL) == 0);
	CHECK(pthread_detach(t) == 0);
	CHECK(settle_threads() == 1);
}

/* ---- mutexes, condition variables, rwlocks, barriers ---- */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static long counter;
enum { ADDS = 20000 };

static void *add_locked(void *a)
{
	(void)a;
	for (int i = 0; i < ADDS; i++) {
		pthread_mutex_lock(&mtx);
		long c = counter;
		if ((i & 63) == 0)
			sched_yield();   /* be preempted inside the lock now and then */
		counter = c + 1;
		pthread_mutex_unlock(&mtx);
	}
	return NULL;
}

/* mutex: four threads add under one mutex; no increment is lost. */
static void t_mutex(void)
{
	pthread_t t[4];
	start_all(t, 4, add_locked);
	join_all(t, 4);
	CHECK(counter == 4L * ADDS);
	CHECK(pthread_mutex_trylock(&mtx) == 0);
	CHECK(pthread_mutex_trylock(&mtx) == EBUSY);
	CHECK(pthread_mutex_unlock(&mtx) == 0);
}

static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER, nonfull = PTHREAD_COND_INITIALIZER;
static int queue[4], qhead, qlen;
enum { ITEMS = 3000 };

static void *producer(void *a)
{
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&mtx);
		while (qlen == 4)
			pthread_cond_wait(&nonfull, &mtx);
		queue[(qhead + qlen++) % 4] = i * (int)(intptr_t)a;
		pthread_cond_signal(&nonempty);
		pthread_mutex_unlock(&mtx);
	}
	return NULL;
}

static void *consumer(void *a)
{
	long sum = 0;
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&mtx);
		while (qlen == 0)
			pthread_cond_wait(&nonempty, &mtx);
		sum += queue[qhead];
		qhead = (qhead + 1) % 4;
		qlen--;
		pthread_cond_broadcast(&nonfull);
		pthread_mutex_unlock(&mtx);
	}
	(void)a;
	return (void *)sum;
}

/* cond: two producers, two consumers through a 4-slot queue; every item
 * arrives exactly once (the sums match). */
static void t_cond(void)
{
	pthread_t p[2], c[2];
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_create(&p[i], NULL, producer, (void *)(intptr_t)(i + 1)) == 0);
		CHECK(pthread_create(&c[i], NULL, consumer, NULL) == 0);
	}
	long total = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		CHECK(pthread_join(p[i], NULL) == 0);
		CHECK(pthread_join(c[i], &r) == 0);
		total += (long)r;
	}
	long each = (long)ITEMS * (ITEMS + 1) / 2;
	CHECK(total == each * 1 + each * 2);
	/* a timed wait that nobody signals times out */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000)
		ts.tv_sec++, ts.tv_nsec -= 1000000000;
	pthread_mutex_lock(&mtx);
	CHECK(pthread_cond_timedwait(&nonempty, &mtx, &ts) == ETIMEDOUT);
	pthread_mutex_unlock(&mtx);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile long pair_a, pair_b;
static volatile int rw_bad;

static void *rw_reader(void *a);
static void *rw_writer(void *a)
{
	if ((intptr_t)a >= 2)
		return rw_reader(a);
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_wrlock(&rw);
		pair_a++;
		if ((i & 31) == 0)
			sched_yield();
		pair_b++;
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

static void *rw_reader(void *a)
{
	(void)a;
	for (int i = 0; i < 4000; i++) {
		pthread_rwlock_rdlock(&rw);
		if (pair_a != pair_b)
			rw_bad = 1;
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

/* rwlock: readers never see a writer's half-done update. */
static void t_rwlock(void)
{
	pthread_t t[5];
	start_all(t, 5, rw_writer);   /* threads 0 and 1 write, the others read */
	join_all(t, 5);
	CHECK(!rw_bad);
	CHECK(pair_a == 4000 && pair_b == 4000);
	CHECK(pthread_rwlock_rdlock(&rw) == 0);
	CHECK(pthread_rwlock_trywrlock(&rw) == EBUSY);
	CHECK(pthread_rwlock_unlock(&rw) == 0);
}

enum { BARRIER_N = 4, ROUNDS = 200 };
static pthread_barrier_t bar;
static volatile int phase_of[BARRIER_N];
static volatile int barrier_bad, serial_count;

static void *barrier_body(void *a)
{
	int me = (int)(intptr_t)a;
	for (int r = 0; r < ROUNDS; r++) {
		phase_of[me] = r;
		if (pthread_barrier_wait(&bar) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_add_fetch(&serial_count, 1, __ATOMIC_SEQ_CST);
		for (int i = 0; i < BARRIER_N; i++)
			if (phase_of[i] < r)
				barrier_bad = 1;   /* someone passed before all arrived */
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

/* barrier: nobody passes a round before all arrived; one serial thread per round. */
static void t_barrier(void)
{
	pthread_t t[BARRIER_N];
	CHECK(pthread_barrier_init(&bar, NULL, BARRIER_N) == 0);
	start_all(t, BARRIER_N, barrier_body);
	join_all(t, BARRIER_N);
	CHECK(!barrier_bad);
	CHECK(serial_count == ROUNDS);
	CHECK(pthread_barrier_destroy(&bar) == 0);
}

/* ---- thread-local storage ---- */

static __thread long tls_value = 42;
static __thread char tls_buf[64];
static pthread_key_t key;

static void *tls_body(void *a)
{
	long me = 100 + (long)(intptr_t)a;
	if (tls_value != 42 || tls_buf[0] != 0)
		return (void *)1;
	tls_value = me;
	snprintf(tls_buf, sizeof tls_buf, "thread %ld", me);
	pthread_setspecific(key, (void *)me);
	for (int i = 0; i < 100; i++)
		sched_yield();
	char want[64];
	snprintf(want, sizeof want, "thread %ld", me);
	return (void *)(intptr_t)(tls_value != me || strcmp(tls_buf, want) != 0 ||
				  pthread_getspecific(key) != (void *)me);
}

/* tls: __thread variables and pthread keys are each thread's own. */
static void t_tls(void)
{
	pthread_t t[4];
	CHECK(pthread_key_create(&key, NULL) == 0);
	tls_value = 7;
	start_all(t, 4, tls_body);
	join_all(t, 4);
	CHECK(tls_value == 7);
	CHECK(pthread_getspecific(key) == NULL);
}

/* ---- futex ---- */

enum { PINGS = 2000 };
static volatile uint32_t turn;
static long wakes_reported[2], waits_woken[2];

/* Play side `me` (0 or 1) of the ping-pong: wait for our turn, pass it. */
static void *pingpong(void *a)
{
	int me = (int)(intptr_t)a;
	for (int i = 0; i < PINGS; i++) {
		uint32_t v;
		while ((v = turn) % 2 != (uint32_t)me) {
			long r = futex(&turn, FUTEX_WAIT | FUTEX_PRIVATE, v, NULL, NULL, 0);
			if (r == 0)
				waits_woken[me]++;
			else if (errno != EAGAIN && errno != EINTR)
				return (void *)1;
		}
		__atomic_add_fetch(&turn, 1, __ATOMIC_SEQ_CST);
		long w = futex(&turn, FUTEX_WAKE | FUTEX_PRIVATE, 1, NULL, NULL, 0);
		if (w < 0)
			return (void *)1;
		wakes_reported[me] += w;
	}
	return NULL;
}

/* futex_pingpong: two threads pass a turn 2 x 2000 times through one futex
 * word; every wakeup a FUTEX_WAKE reports is one FUTEX_WAIT that returned 0
 * on the other side: none lost, none invented. */
static void t_futex_pingpong(void)
{
	pthread_t t[2];
	start_all(t, 2, pingpong);
	join_all(t, 2);
	CHECK(turn == 2 * PINGS);
	printf("  futex ping-pong: %ld + %ld wakeups reported, %ld + %ld waits woken\n",
	       wakes_reported[0], wakes_reported[1], waits_woken[1], waits_woken[0]);
	CHECK(wakes_reported[0] == waits_woken[1]);
	CHECK(wakes_reported[1] == waits_woken[0]);
}

static volatile uint32_t fw1, fw2, waiters_in;
static void *wait_on_fw1(void *a)
{
	int op = (int)(intptr_t)a;
	__atomic_add_fetch(&waiters_in, 1, __ATOMIC_SEQ_CST);
	long r;
	if (op == FUTEX_WAIT_BITSET)
		r = futex(&fw1, FUTEX_WAIT_BITSET | FUTEX_PRIVATE, 0, NULL, NULL, 0x2);
	else
		r = futex(&fw1, FUTEX_WAIT | FUTEX_PRIVATE, 0, NULL, NULL, 0);
	return (void *)(intptr_t)(r == 0 ? 0 : errno);
}

/* Wake (with op on word w) until n waiters were woken in all. */
static void wake_all(volatile uint32_t *w, int op, uint32_t bits, int n)
{
	int got = 0;
	while (got < n) {
		long r = futex(w, op | FUTEX_PRIVATE, (uint32_t)(n - got), NULL, NULL, bits);
		CHECK(r >= 0);
		got += (int)r;
		if (!r)
			sched_yield();
	}
}

/* futex_ops: errors, timeouts (relative, absolute monotonic and realtime),
 * bitsets, requeue and cmp_requeue, with Linux's results. */
static void t_futex_ops(void)
{
	struct timespec rel = { 0, 10 * 1000 * 1000 }, abs;
	fw1 = 5;
	CHECK_ERR(futex(&fw1, FUTEX_WAIT, 4, NULL, NULL, 0), EAGAIN);
	CHECK_ERR(futex((uint32_t *)((char *)&fw1 + 1), FUTEX_WAIT, 5, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(NULL, FUTEX_WAIT, 0, NULL, NULL, 0), EFAULT);
	CHECK_ERR(futex(&fw1, FUTEX_WAIT_BITSET, 5, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(&fw1, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0), EINVAL);
	CHECK_ERR(futex(&fw1, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), ENOSYS);
	struct timespec bad = { 0, 1000000000 };
	CHECK_ERR(futex(&fw1, FUTEX_WAIT, 5, &bad, NULL, 0), EINVAL);
	CHECK_ERR(futex(&fw1, FUTEX_WAIT | FUTEX_PRIVATE, 5, &rel, NULL, 0), ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &abs);
	CHECK_ERR(futex(&fw1, FUTEX_WAIT_BITSET, 5, &abs, NULL, ~0u), ETIMEDOUT);
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_nsec = 0;   /* up to a second in the past */
	CHECK_ERR(futex(&fw1, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 5, &abs, NULL, ~0u),
		  ETIMEDOUT);
	CHECK(futex(&fw1, FUTEX_WAKE, 1, NULL, NULL, 0) == 0);   /* nobody waits */
	/* bitsets: a wake for bit 0x1 passes over a waiter of 0x2 */
	pthread_t t[3];
	fw1 = 0;
	waiters_in = 0;
	CHECK(pthread_create(&t[0], NULL, wait_on_fw1, (void *)FUTEX_WAIT_BITSET) == 0);
	while (waiters_in < 1)
		sched_yield();
	for (int i = 0; i < 50; i++)
		CHECK(futex(&fw1, FUTEX_WAKE_BITSET | FUTEX_PRIVATE, 1, NULL, NULL, 0x1) == 0);
	wake_all(&fw1, FUTEX_WAKE_BITSET, 0x6, 1);
	void *r;
	CHECK(pthread_join(t[0], &r) == 0 && r == NULL);
	/* requeue: three waiters on fw1; cmp_requeue with a stale value fails;
	 * requeue wakes one and moves two to fw2, where a wake finds them */
	waiters_in = 0;
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, wait_on_fw1, (void *)FUTEX_WAIT) == 0);
	while (waiters_in < 3)
		sched_yield();
	CHECK_ERR(futex(&fw1, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE, 0, (void *)2L, &fw2, 1), EAGAIN);
	int woken = 0, moved = 0;
	while (woken + moved < 3) {   /* until all three sleep and are handled */
		long n = futex(&fw1, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE, woken ? 0 : 1,
			       (void *)2L, &fw2, 0);
		CHECK(n >= 0);
		if (n > 0 && !woken)
			woken = 1, n--;
		moved += (int)n;
		if (!n)
			sched_yield();
	}
	CHECK(futex(&fw1, FUTEX_WAKE | FUTEX_PRIVATE, 10, NULL, NULL, 0) == 0);
	wake_all(&fw2, FUTEX_WAKE, 0, moved);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], &r) == 0 && r == NULL);
}

/* futex_shared: a MAP_SHARED word at two addresses in two processes (no
 * PRIVATE flag): the parent's wake reaches the child's wait. */
static void t_futex_shared(void)
{
	volatile uint32_t *w = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(w != MAP_FAILED);
	w[1] = 0;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		w[1] = 1;
		while (w[0] == 0)
			futex(&w[0], FUTEX_WAIT, 0, NULL, NULL, 0);
		_exit(w[0] == 7 ? 0 : 1);
	}
	while (w[1] == 0)
		sched_yield();
	w[0] = 7;
	long n;
	while ((n = futex(&w[0], FUTEX_WAKE, 1, NULL, NULL, 0)) == 0) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {   /* saw 7 before it slept */
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			return;
		}
		sched_yield();
	}
	CHECK(n == 1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- leaks ---- */

static void *nothing(void *a)
{
	return a;
}

/* One round of no_leak: 100 threads created and joined, 20 detached. */
static void thread_round(void)
{
	pthread_t t;
	for (int i = 0; i < 100; i++) {
		CHECK(pthread_create(&t, NULL, nothing, NULL) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
	for (int i = 0; i < 20; i++) {
		CHECK(pthread_create(&t, NULL, nothing, NULL) == 0);
		CHECK(pthread_detach(t) == 0);
	}
	CHECK(settle_threads() == 1);
	for (int i = 0; i < 100; i++)
		sched_yield();   /* the last one's slot goes once it switched away */
}

/* no_leak: a second round of 120 threads leaves the kernel's kmalloc
 * objects exactly where the first left them, and its free frames within
 * PT_SLACK pages: the page tables of the stacks' address range, which
 * depends on where mmap finds room while detached threads unmap themselves
 * (the first round grows it once). A thread's kernel stack is 4 pages:
 * leaking it shows as 480. Pagoda only. */
#define PT_SLACK 4
static void t_no_leak(void)
{
	struct pagoda_meminfo before, after;
	if (pagoda_meminfo(&before) != 0) {
		printf("  (no pagoda_meminfo: not Pagoda, skipped)\n");
		return;
	}
	thread_round();
	CHECK(pagoda_meminfo(&before) == 0);
	thread_round();
	CHECK(pagoda_meminfo(&after) == 0);
	printf("  free pages %llu -> %llu, kmalloc objects %llu -> %llu\n",
	       (unsigned long long)before.free_pages, (unsigned long long)after.free_pages,
	       (unsigned long long)before.kmalloc_objects, (unsigned long long)after.kmalloc_objects);
	CHECK(after.kmalloc_objects == before.kmalloc_objects);
	CHECK(after.free_pages + PT_SLACK >= before.free_pages &&
	      after.free_pages <= before.free_pages + PT_SLACK);
}

/* ---- processes with threads ---- */

/* fork_unshare_race: after fork the parent's PT pages are shared with the
 * child (Pagoda; Linux copies them); then four threads write at once into
 * one 2 MiB chunk, each to its own page, so that their write faults all
 * find the same shared PT page and unshare it together. Every thread's
 * byte lands, the child still sees the bytes of before the fork, and 20
 * rounds leave the free frames where they were (on Pagoda: an unshare
 * done twice leaked a PT page copy per round). */
#define UNSHARE_THREADS 4
#define UNSHARE_ROUNDS 20
static volatile unsigned char *unshare_buf;
static volatile int unshare_go, unshare_ready;
static void *unshare_writer(void *a)
{
	long i = (long)a;
	__atomic_add_fetch(&unshare_ready, 1, __ATOMIC_SEQ_CST);
	while (!unshare_go)
		;
	unshare_buf[i * 4096 * 7] = (unsigned char)(0x40 + i);
	return NULL;
}

static void unshare_round(int round)
{
	int go_child[2];
	CHECK(pipe(go_child) == 0);
	for (long i = 0; i < UNSHARE_THREADS; i++)
		unshare_buf[i * 4096 * 7] = (unsigned char)round;
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {   /* wait until the parent's threads wrote, then look */
		char c;
		close(go_child[1]);
		int ok = read(go_child[0], &c, 1) == 1;
		for (long i = 0; i < UNSHARE_THREADS; i++)
			ok &= unshare_buf[i * 4096 * 7] == (unsigned char)round;
		_exit(ok ? 0 : 1);
	}
	close(go_child[0]);
	pthread_t t[UNSHARE_THREADS];
	unshare_go = 0, unshare_ready = 0;
	for (long i = 0; i < UNSHARE_THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, unshare_writer, (void *)i) == 0);
	while (unshare_ready < UNSHARE_THREADS)
		sched_yield();
	unshare_go = 1;
	join_all(t, UNSHARE_THREADS);
	for (long i = 0; i < UNSHARE_THREADS; i++)
		CHECK(unshare_buf[i * 4096 * 7] == (unsigned char)(0x40 + i));
	CHECK(write(go_child[1], "x", 1) == 1);
	close(go_child[1]);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void t_fork_unshare_race(void)
{
	size_t len = 4u << 20;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	unshare_buf = (unsigned char *)(((uintptr_t)m + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	memset((void *)unshare_buf, 1, 2u << 20);   /* a full PT page, shared at fork */
	struct pagoda_meminfo before, after;
	int pagoda = pagoda_meminfo(&before) == 0;
	unshare_round(0);   /* the first round's stacks and tables stay */
	if (pagoda)
		CHECK(pagoda_meminfo(&before) == 0);
	for (int r = 1; r <= UNSHARE_ROUNDS; r++)
		unshare_round(r);
	if (pagoda) {
		CHECK(settle_threads() == 1);
		CHECK(pagoda_meminfo(&after) == 0);
		printf("  free pages %llu -> %llu after %d rounds\n",
		       (unsigned long long)before.free_pages, (unsigned long long)after.free_pages,
		       UNSHARE_ROUNDS);
		CHECK(after.free_pages + PT_SLACK >= before.free_pages);
	}
	CHECK(munmap(m, len) == 0);
}

static volatile int spin_stop;
static volatile long spun;
static void *spinner(void *a)
{
	(void)a;
	while (!spin_stop) {
		pthread_mutex_lock(&mtx);
		spun++;
		pthread_mutex_unlock(&mtx);
	}
	return NULL;
}

/* fork_threads: fork while three threads run and take a mutex: the child
 * has one thread, can take the mutex (it was unlocked at fork in the
 * caller's view once it holds it) and exits cleanly. */
static void t_fork_threads(void)
{
	pthread_t t[3];
	start_all(t, 3, spinner);
	while (spun < 100)
		sched_yield();
	for (int k = 0; k < 5; k++) {
		pthread_mutex_lock(&mtx);   /* the child's copy is then in a known state */
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			pthread_mutex_unlock(&mtx);
			int n = proc_threads();
			pthread_mutex_lock(&mtx);
			long s = spun;
			pthread_mutex_unlock(&mtx);
			_exit(n == 1 && s >= 100 ? 0 : 1);
		}
		pthread_mutex_unlock(&mtx);
		CHECK(pid > 0);
		int st;
		CHECK(waitpid(pid, &st, 0) == pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	spin_stop = 1;
	join_all(t, 3);
}

static pid_t exec_expect;
static void *exec_body(void *a)
{
	(void)a;
	char pid[16];
	snprintf(pid, sizeof pid, "%d", (int)exec_expect);
	char *argv[] = { (char *)self_path, "--exec-check", pid, NULL };
	execv(self_path, argv);
	_exit(99);
}

static void *sleeper(void *a)
{
	(void)a;
	for (;;)
		pause();
	return NULL;
}

/* The program thread_exec runs: the pid it was given, one thread. */
static int exec_check(const char *pid)
{
	int n = proc_threads();
	if (getpid() != atoi(pid) || gettid_() != getpid() || n != 1) {
		printf("  exec-check: pid %d tid %d (want %s), threads %d\n", (int)getpid(),
		       (int)gettid_(), pid, n);
		return 1;
	}
	return 42;
}

static void *null_write(void *a)
{
	(void)a;
	*(volatile int *)0 = 1;
	return NULL;
}

static void *exit_five(void *a)
{
	(void)a;
	exit(5);
}

/* Run body in a child process with two more threads (one sleeping, one
 * spinning on a mutex), on a thread of its own while the main thread
 * waits in join (on_main: on the main thread): the child's wait status. */
static int child_status(void *(*body)(void *), int on_main)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t s[2], t;
		exec_expect = getpid();
		CHECK(pthread_create(&s[0], NULL, sleeper, NULL) == 0);
		CHECK(pthread_create(&s[1], NULL, spinner, NULL) == 0);
		if (on_main)
			body(NULL);
		CHECK(pthread_create(&t, NULL, body, NULL) == 0);
		pthread_join(t, NULL);
		_exit(77);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	return st;
}

/* exec_thread: a thread (not the main one) of a 4-thread process execs:
 * the new program runs with the process's pid, alone, and its exit status
 * reaches the parent; exec_main: the same from the main thread. */
static void t_exec_thread(void)
{
	int st = child_status(exec_body, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 42)
		fail(__LINE__, "status %#x, want exit 42", st);
}

static void t_exec_main(void)
{
	int st = child_status(exec_body, 1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 42)
		fail(__LINE__, "status %#x, want exit 42", st);
}

/* fault_kills_group: a NULL write in one thread kills the whole process
 * with SIGSEGV; exit() in a thread ends every thread with its status. */
static void t_fault_kills_group(void)
{
	int st = child_status(null_write, 0);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
		fail(__LINE__, "status %#x, want SIGSEGV", st);
	st = child_status(exit_five, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 5)
		fail(__LINE__, "status %#x, want exit 5", st);
}

static volatile pid_t handled_on;
static void on_usr1(int s)
{
	(void)s;
	handled_on = gettid_();
}

static volatile pid_t target_tid;
static void *wait_usr1(void *a)
{
	(void)a;
	target_tid = gettid_();
	while (!handled_on)
		sched_yield();
	return NULL;
}

/* tgkill: pthread_kill's signal runs its handler on the target thread; a
 * bad tid or mismatched tgid is ESRCH, a bad signal EINVAL. */
static void t_tgkill(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, wait_usr1, NULL) == 0);
	while (!target_tid)
		sched_yield();
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(handled_on == target_tid);
	CHECK_ERR(syscall(SYS_tgkill, getpid(), 0x7ffffff0, SIGUSR1), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, getpid() + 100000, getpid(), SIGUSR1), ESRCH);
	CHECK_ERR(syscall(SYS_tgkill, getpid(), getpid(), 1000), EINVAL);
	CHECK_ERR(syscall(SYS_tgkill, 0, getpid(), SIGUSR1), EINVAL);
	CHECK(syscall(SYS_tgkill, getpid(), getpid(), 0) == 0);
}

/* clone_flags: Linux's rules between clone flags; sched_getaffinity and the
 * robust list calls. */
static void t_clone_flags(void)
{
	CHECK_ERR(syscall(SYS_clone, 0x10000L /* THREAD */ | 0x100L, 0, 0, 0, 0), EINVAL);
	CHECK_ERR(syscall(SYS_clone, 0x800L /* SIGHAND */, 0, 0, 0, 0), EINVAL);
	unsigned long set[16] = { 0 };
	long n = syscall(SYS_sched_getaffinity, 0, sizeof set, set);
	CHECK(n >= 8 && n % 8 == 0);   /* the kernel's mask size */
	long cpus = 0;
	for (long i = 0; i < n / 8; i++)
		cpus += __builtin_popcountl(set[i]);
	CHECK(cpus >= 1 && (set[0] & 1));
	CHECK(cpus == sysconf(_SC_NPROCESSORS_ONLN));
	CHECK_ERR(syscall(SYS_sched_getaffinity, 0, 3, set), EINVAL);
	long head[3] = { 0 };
	CHECK_ERR(syscall(SYS_set_robust_list, head, 12), EINVAL);
	void *h;
	size_t len;
	CHECK(syscall(SYS_get_robust_list, 0, &h, &len) == 0 && len == 24);
}

/* ---- /proc, signals, wait4 across threads ---- */

static volatile uint32_t hold;   /* threads wait on it until released */
static volatile pid_t held_tid[3];
static void *hold_body(void *a)
{
	held_tid[(intptr_t)a] = gettid_();
	while (!hold)
		futex(&hold, FUTEX_WAIT | FUTEX_PRIVATE, 0, NULL, NULL, 0);
	return NULL;
}

/* Release the hold_body threads t[0..n) and join them. */
static void release(pthread_t *t, int n)
{
	hold = 1;
	futex(&hold, FUTEX_WAKE | FUTEX_PRIVATE, INT_MAX, NULL, NULL, 0);
	join_all(t, n);
	hold = 0;
}

/* Does directory path list name? */
static int lists(const char *path, long name)
{
	char want[24];
	snprintf(want, sizeof want, "%ld", name);
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;
	while (d && (e = readdir(d)))
		found |= strcmp(e->d_name, want) == 0;
	if (d)
		closedir(d);
	return found;
}

/* proc_task: /proc/self/status counts the threads; /proc/PID/task lists
 * each, whose status names its tid and the process's pid; /proc lists the
 * process only, though /proc/TID can be opened, as on Linux. */
static void t_proc_task(void)
{
	pthread_t t[3];
	start_all(t, 3, hold_body);
	for (int i = 0; i < 3; i++)
		while (!held_tid[i])
			sched_yield();
	char path[96], task[64];
	CHECK(proc_threads() == 4);
	snprintf(task, sizeof task, "/proc/%d/task", (int)getpid());
	CHECK(lists(task, getpid()));
	for (int i = 0; i < 3; i++) {
		CHECK(lists(task, held_tid[i]));
		CHECK(!lists("/proc", held_tid[i]));
		snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)getpid(), (int)held_tid[i]);
		CHECK(proc_field(path, "Pid:") == held_tid[i]);
		CHECK(proc_field(path, "Tgid:") == getpid());
		CHECK(proc_field(path, "Threads:") == 4);
		snprintf(path, sizeof path, "/proc/%d/status", (int)held_tid[i]);
		CHECK(proc_field(path, "Tgid:") == getpid());
	}
	CHECK(lists("/proc", getpid()));
	snprintf(path, sizeof path, "/proc/%d/task/%d", (int)getpid(), (int)getpid() + 100000);
	CHECK(open(path, O_RDONLY) < 0);
	release(t, 3);
	CHECK(settle_threads() == 1);
	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)getpid(), (int)held_tid[0]);
	CHECK(open(path, O_RDONLY) < 0 && errno == ENOENT);
}

static volatile pid_t usr2_on;
static void on_usr2(int s)
{
	(void)s;
	usr2_on = gettid_();
}

/* signal_group: kill() to the process reaches the thread that does not
 * block the signal (the main thread blocks it). */
static void t_signal_group(void)
{
	struct sigaction sa = { .sa_handler = on_usr2 };
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_t t[1];
	CHECK(pthread_create(&t[0], NULL, hold_body, (void *)0) == 0);   /* unblocked */
	CHECK(pthread_sigmask(SIG_BLOCK, &set, NULL) == 0);
	while (!held_tid[0])
		sched_yield();
	CHECK(kill(getpid(), SIGUSR2) == 0);
	while (!usr2_on)
		sched_yield();
	CHECK(usr2_on == held_tid[0]);
	release(t, 1);
	/* blocked by every thread: it waits, pending for the process */
	usr2_on = 0;
	CHECK(kill(getpid(), SIGUSR2) == 0);
	sigset_t pend;
	CHECK(sigpending(&pend) == 0 && sigismember(&pend, SIGUSR2));
	CHECK(usr2_on == 0);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0);
	CHECK(usr2_on == gettid_());
}

static volatile pid_t fault_tid;
static void on_segv(int s)
{
	(void)s;
	_exit(gettid_() == fault_tid ? 0 : 3);
}

static void *fault_with_handler(void *a)
{
	(void)a;
	struct sigaction sa = { .sa_handler = on_segv };
	CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
	fault_tid = gettid_();
	*(volatile int *)0 = 1;
	return NULL;
}

/* fault_thread: a fault's signal goes to the faulting thread: its handler
 * runs there (it sees that thread's tid). */
static void t_fault_thread(void)
{
	int st = child_status(fault_with_handler, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail(__LINE__, "status %#x, want exit 0", st);
}

static volatile pid_t wait_for;
static void *wait_child(void *a)
{
	(void)a;
	int st;
	pid_t got = waitpid(wait_for, &st, 0);
	return (void *)(intptr_t)(got == wait_for && WIFEXITED(st) && WEXITSTATUS(st) == 9);
}

/* wait_thread: a child forked by the main thread is reaped by another
 * thread of the process (children belong to the process); getppid in a
 * thread is the process's parent. */
static void t_wait_thread(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(9);
	wait_for = pid;
	pthread_t t;
	void *r;
	CHECK(pthread_create(&t, NULL, wait_child, NULL) == 0);
	CHECK(pthread_join(t, &r) == 0);
	CHECK(r == (void *)1);
	CHECK_ERR(waitpid(-1, NULL, WNOHANG), ECHILD);
}

static int pipe_fd[2];
static volatile pid_t reader_tid;
static void *blocked_reader(void *a)
{
	(void)a;
	char c = 0;
	reader_tid = gettid_();
	ssize_t n = read(pipe_fd[0], &c, 1);
	return (void *)(intptr_t)(n == 1 && c == 'x' ? 0 : 1);
}

/* Is thread tid of this process asleep (State: S)? */
static int sleeping(pid_t tid)
{
	char path[96], buf[512];
	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)getpid(), (int)tid);
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, "State:\tS") != NULL;
}

/* close_while_reading: one thread closes the descriptor another thread is
 * blocked reading: the read keeps its file (Linux's fget), so a write to
 * the pipe still has a reader and the blocked read gets the byte. */
static void t_close_while_reading(void)
{
	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(pipe_fd) == 0);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, blocked_reader, NULL) == 0);
	while (!reader_tid)
		sched_yield();
	for (int i = 0; i < 100000 && !sleeping(reader_tid); i++)
		sched_yield();
	CHECK(sleeping(reader_tid));
	CHECK(close(pipe_fd[0]) == 0);
	CHECK(write(pipe_fd[1], "x", 1) == 1);
	void *r;
	CHECK(pthread_join(t, &r) == 0);
	CHECK(r == NULL);
}

/* ---- the address space under threads: faults against munmap and
 * mprotect, fork while threads write, MADV_FREE against reclaim ---- */

/* A probe: an access that may fault. The SIGSEGV handler (installed by
 * probe_init) jumps back to the probing thread's own probe_env. */
static __thread jmp_buf probe_env;
static __thread volatile int probing;

static void probe_fault(int sig)
{
	sigset_t s;
	if (!probing)
		_exit(3);   /* a fault nobody expected: the test fails */
	probing = 0;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	longjmp(probe_env, 1);
}

static void probe_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = probe_fault;
	CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
	CHECK(sigaction(SIGBUS, &sa, NULL) == 0);
}

/* probe_read: word *p into *v (1), or 0 if it faulted. */
static int probe_read(volatile uint64_t *p, uint64_t *v)
{
	probing = 1;
	if (setjmp(probe_env))
		return 0;
	*v = *p;
	probing = 0;
	return 1;
}

/* probe_write: *p = v (1), or 0 if it faulted. */
static int probe_write(volatile uint64_t *p, uint64_t v)
{
	probing = 1;
	if (setjmp(probe_env))
		return 0;
	*p = v;
	probing = 0;
	return 1;
}

/* The value of word w of page p in generation g: nobody else's data looks
 * like it (the tag 0x5a in the top byte, then page, generation, word). */
static uint64_t tagv(unsigned p, uint64_t g, unsigned w)
{
	return 0x5a00000000000000ULL | (uint64_t)p << 48 | (g & 0xffffffffULL) << 12 | w;
}

/* Does x look like page p's data of some generation <= gmax (or zero)? */
static int tag_ok(uint64_t x, unsigned p, uint64_t gmax)
{
	return x == 0 || ((x >> 56) == 0x5a && ((x >> 48) & 0xff) == p &&
			  ((x >> 12) & 0xffffffffULL) <= gmax);
}

/* Free frames settle within PT_SLACK of where they were (Pagoda only):
 * base < 0 takes the reading. */
static long free_pages_now(void)
{
	struct pagoda_meminfo m;
	return pagoda_meminfo(&m) == 0 ? (long)m.free_pages : -1;
}

/* Free frames once the threads that exited are gone: each one's kernel
 * stack is freed only after it switched away on its own CPU, which may be
 * a moment after its join returned (with processes on every CPU, a reading
 * taken at once was 8 pages short). Waits until the count holds still for
 * 20 yields in a row (bounded); -1 if not Pagoda. */
static long free_pages_settled(void)
{
	CHECK(settle_threads() == 1);
	long n = free_pages_now();
	for (int i = 0, same = 0; i < 20000 && same < 20; i++) {
		sched_yield();
		long m = free_pages_now();
		same = m == n ? same + 1 : 0;
		n = m;
	}
	return n;
}

/* A churner thread: maps, fills with garbage (0xbad...) and unmaps memory
 * until told to stop, so that a frame freed by munmap is soon reused: a
 * stale TLB entry elsewhere would then read the garbage. */
static volatile int churn_stop;
static void *churner(void *a)
{
	(void)a;
	while (!churn_stop) {
		uint64_t *m = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return (void *)1;
		for (int i = 0; i < 16 * 512; i++)
			m[i] = 0xbadbadbadbad0000ULL | (uint64_t)i;
		munmap(m, 16 * 4096);
	}
	return NULL;
}

/* The race of unmap_fault and prot_race: NPG pages (in one PT page), each
 * cycled by one control thread through states, published with a seqlock
 * (seq odd: a system call in flight; even: the state below holds), while
 * reader and writer threads access them. An access whose seq was the same
 * even value before and after it must have the state's result exactly;
 * any other may have either result, but a value read is always the page's
 * own data of a published generation, or zero. */
#define NPG 8
enum pstate { PS_RW, PS_RO, PS_NONE, PS_GONE };
static struct {
	uint64_t *base;
	volatile uint64_t seq[NPG];
	volatile int state[NPG];
	volatile uint64_t gen[NPG];   /* the generation its content has (RW, RO) */
	volatile int stop, full;      /* full: mprotect and writers too (prot_race) */
	volatile long bad, faults, reads, writes;
	volatile char why[160];
} pr;

static volatile uint64_t *pr_page(unsigned p)
{
	return pr.base + (size_t)p * 512;
}

static void pr_bad(const char *fmt, unsigned p, uint64_t x)
{
	if (__atomic_fetch_add(&pr.bad, 1, __ATOMIC_SEQ_CST) == 0)
		snprintf((char *)pr.why, sizeof pr.why, fmt, p, (unsigned long long)x);
}

/* One access to page p: a read (or with write, a write of the next value)
 * checked against the seqlock. */
static void pr_access(unsigned p, unsigned w, int write)
{
	uint64_t s1 = __atomic_load_n(&pr.seq[p], __ATOMIC_SEQ_CST), x = 0;
	int st = pr.state[p];
	uint64_t g = pr.gen[p];
	int ok = write ? probe_write(pr_page(p) + w, tagv(p, g, w) | 0x800) : probe_read(pr_page(p) + w, &x);
	uint64_t s2 = __atomic_load_n(&pr.seq[p], __ATOMIC_SEQ_CST);
	if (!ok)
		__atomic_add_fetch(&pr.faults, 1, __ATOMIC_RELAXED);
	if (ok && !write && !tag_ok(x & ~0x800ULL, p, pr.gen[p]))
		pr_bad("page %u read foreign data %#llx", p, x);
	if (s1 != s2 || (s1 & 1))
		return;   /* a change in flight: either result */
	int want = write ? st == PS_RW : st == PS_RW || st == PS_RO;
	if (ok != want)
		pr_bad(ok ? "page %u: an access that must fault did not (state %llu)"
			  : "page %u: an access that must succeed faulted (state %llu)", p, (uint64_t)st);
	if (ok && !write && x != tagv(p, g, w) && !(pr.full && (x & 0x800) && tag_ok(x & ~0x800ULL, p, g)))
		pr_bad("page %u reads %#llx, not its data of the generation mapped", p, x);
}

static void *pr_reader(void *a)
{
	uint64_t r = 0x1234567ULL + (uint64_t)(intptr_t)a;
	int write = (intptr_t)a >= 2;   /* threads 2 and 3 write (prot_race) */
	while (!pr.stop) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		pr_access((unsigned)(r >> 33) % NPG, (unsigned)(r >> 40) % 512, write && pr.full);
		__atomic_add_fetch(write && pr.full ? &pr.writes : &pr.reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* pr_set: publish page p's new state after the call that made it. */
static void pr_begin(unsigned p)
{
	__atomic_add_fetch(&pr.seq[p], 1, __ATOMIC_SEQ_CST);
}

static void pr_end(unsigned p, int st)
{
	pr.state[p] = st;
	__atomic_add_fetch(&pr.seq[p], 1, __ATOMIC_SEQ_CST);
}

/* One transition of page p to its next state (the cycle RW -> RO -> NONE
 * -> GONE -> RW with prot_race's full, RW -> GONE -> RW without). */
static void pr_step(unsigned p)
{
	volatile uint64_t *pg = pr_page(p);
	int st = pr.state[p];
	pr_begin(p);
	if (st == PS_GONE) {
		void *m = mmap((void *)pg, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		CHECK(m == (void *)pg);
		uint64_t g = pr.gen[p] + 1;
		__atomic_store_n(&pr.gen[p], g, __ATOMIC_SEQ_CST);   /* before its data */
		for (unsigned w = 0; w < 512; w++)
			pg[w] = tagv(p, g, w);
		pr_end(p, PS_RW);
	} else if (st == PS_RW && pr.full) {
		CHECK(mprotect((void *)pg, 4096, PROT_READ) == 0);
		pr_end(p, PS_RO);
	} else if (st == PS_RO) {
		CHECK(mprotect((void *)pg, 4096, PROT_NONE) == 0);
		pr_end(p, PS_NONE);
	} else {
		CHECK(munmap((void *)pg, 4096) == 0);
		pr_end(p, PS_GONE);
	}
}

/* pr_run: the race for steps transitions, 4 accessing threads and a
 * churner; the leak check (Pagoda: free frames back within PT_SLACK after
 * a first, warm-up run). */
static void pr_round(int steps)
{
	pthread_t t[5];
	memset((void *)&pr.seq, 0, sizeof pr.seq);
	pr.stop = churn_stop = 0;
	for (unsigned p = 0; p < NPG; p++) {
		pr.state[p] = PS_GONE;
		pr.gen[p] = 0;
	}
	start_all(t, 4, pr_reader);
	CHECK(pthread_create(&t[4], NULL, churner, NULL) == 0);
	uint64_t r = 99;
	for (int i = 0; i < steps && !pr.bad; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		pr_step((unsigned)(r >> 33) % NPG);
	}
	pr.stop = churn_stop = 1;
	join_all(t, 5);
	for (unsigned p = 0; p < NPG; p++)
		if (pr.state[p] != PS_GONE)
			CHECK(munmap((void *)pr_page(p), 4096) == 0);
}

static void pr_test(int full)
{
	probe_init();
	char *m = mmap(NULL, 4u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	pr.base = (uint64_t *)(((uintptr_t)m + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	CHECK(munmap(m, 4u << 20) == 0);   /* the pages come and go alone */
	pr.full = full;
	pr_round(50);
	long before = free_pages_settled();
	pr_round(3000);
	long after = free_pages_settled();
	printf("  %ld reads, %ld writes, %ld faults; free pages %ld -> %ld\n", pr.reads,
	       pr.writes, pr.faults, before, after);
	if (pr.bad)
		fail(__LINE__, "%ld bad accesses, the first: %s", pr.bad, (char *)pr.why);
	CHECK(pr.faults > 0 && pr.reads > 0);
	CHECK(after + PT_SLACK >= before && after <= before + PT_SLACK);
}

/* unmap_fault: readers fault on pages another thread unmaps and maps again
 * (filled with a new generation) while a churner reuses the freed frames:
 * a read sees the page's data or zero or faults (SIGSEGV, handled), never
 * another page's or process's data; a read while the page is known unmapped
 * faults, one while it is known mapped does not. No frame leaks. */
static void t_unmap_fault(void)
{
	pr_test(0);
}

/* prot_race: the same with mprotect: pages cycle read-write, read-only,
 * none, unmapped, while two threads read and two write them: once
 * mprotect or munmap returned, no thread writes a read-only page or reads
 * an inaccessible one (stale TLB entries on other CPUs), and while a page
 * is writable no write faults. */
static void t_prot_race(void)
{
	pr_test(1);
}

/* fork_snapshot: four threads rewrite whole pages, each page under a lock
 * word in the page itself, while the main thread forks 20 times. The
 * child's copy of a page whose lock word reads free holds one complete
 * write (every word of one value), the child's pages do not change under
 * it afterwards (the parent's writes stay the parent's), and the writers never lose a write in
 * the parent (each reads its page back before unlocking; at the end every
 * page holds the last value written to it). */
#define FS_PAGES 32
#define FS_WRITERS 4
static volatile uint64_t *fs_base;
static volatile int fs_stop;
static volatile long fs_lost;
static uint64_t fs_last[FS_PAGES];

static void *fs_writer(void *a)
{
	uint64_t r = 777 + (uint64_t)(intptr_t)a, n = 0;
	while (!fs_stop) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned p = (unsigned)(r >> 33) % FS_PAGES;
		volatile uint64_t *pg = fs_base + (size_t)p * 512;
		for (long spins = 0; __atomic_exchange_n(&pg[0], 1, __ATOMIC_ACQUIRE); spins++) {
			if (spins == 1000000) {   /* a lock word that never frees: a lost unlock */
				__atomic_add_fetch(&fs_lost, 1, __ATOMIC_RELAXED);
				fs_stop = 1;
				return NULL;
			}
			sched_yield();
		}
		uint64_t v = tagv(p, ++n, 0) ^ ((uint64_t)(intptr_t)a << 40);
		for (unsigned w = 1; w < 512; w++)
			pg[w] = v;
		for (unsigned w = 1; w < 512; w++)
			if (pg[w] != v)
				__atomic_add_fetch(&fs_lost, 1, __ATOMIC_RELAXED);
		fs_last[p] = v;
		__atomic_store_n(&pg[0], 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The child's check: every unlocked page is one whole write, and its
 * memory stays as it was while the parent's writers go on (a write through
 * a TLB entry that fork did not flush would land in the frame the child now
 * shares): exit status 0, 1 + the first torn page, 50 + the first page
 * that changed, or 100 if every page was locked. */
static uint64_t fs_copy[FS_PAGES * 512];

static int fs_child_check(void)
{
	int locked = 0;
	for (unsigned p = 0; p < FS_PAGES; p++) {
		volatile uint64_t *pg = fs_base + (size_t)p * 512;
		for (unsigned w = 0; w < 512; w++)
			fs_copy[p * 512 + w] = pg[w];
		if (fs_copy[p * 512]) {
			locked++;
			continue;
		}
		for (unsigned w = 2; w < 512; w++)
			if (fs_copy[p * 512 + w] != fs_copy[p * 512 + 1])
				return 1 + (int)p;
	}
	for (int i = 0; i < 50; i++)
		sched_yield();
	for (unsigned p = 0; p < FS_PAGES; p++)
		for (unsigned w = 0; w < 512; w++)
			if (fs_base[(size_t)p * 512 + w] != fs_copy[p * 512 + w])
				return 50 + (int)p;
	return locked == FS_PAGES ? 100 : 0;
}

static void t_fork_snapshot(void)
{
	fs_base = mmap(NULL, FS_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(fs_base != MAP_FAILED);
	pthread_t t[FS_WRITERS];
	start_all(t, FS_WRITERS, fs_writer);
	for (int k = 0; k < 20; k++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(fs_child_check());
		CHECK(pid > 0);
		int st;
		CHECK(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			fail(__LINE__, "fork %d: child status %#x (exit 1+N: page N torn, 50+N: page N changed in the child)", k, st);
		sched_yield();
	}
	fs_stop = 1;
	join_all(t, FS_WRITERS);
	CHECK(fs_lost == 0);
	for (unsigned p = 0; p < FS_PAGES; p++)
		for (unsigned w = 1; w < 512; w++)
			if (fs_base[(size_t)p * 512 + w] != fs_last[p])
				fail(__LINE__, "page %u word %u: %#llx, last written %#llx", p, w,
				     (unsigned long long)fs_base[(size_t)p * 512 + w],
				     (unsigned long long)fs_last[p]);
}

/* madv_free_reclaim: one thread MADV_FREEs 64 pages, then writes the first
 * half of every other page, round after round, while another thread of the
 * process drives memory below the reclaim mark again and again (Pagoda: a
 * hog of all free memory down to 16 pages below the min watermark, 1/128
 * of RAM, where each page fault reclaims directly -- and no further: the
 * other threads' faults need frames too; on Linux a small one). After
 * every round: each written half reads exactly what was written; the rest
 * of a written page is all its old data or all zeros (reclaim took it
 * before the write); an unwritten page reads its old data or zeros word by
 * word. No written byte is lost. On Pagoda, reclaim must have discarded
 * some lazy-free pages. */
#define MF_PAGES 64
static volatile int mf_stop;
static volatile uint8_t *mf_base;

static size_t mf_hog_pages(void)
{
	struct pagoda_meminfo m;
	if (pagoda_meminfo(&m) != 0)
		return 4096;
	uint64_t keep = m.total_pages / 128 - 16;
	return m.free_pages > keep ? (size_t)(m.free_pages - keep) : 0;
}

static void *mf_presser(void *a)
{
	(void)a;
	for (int cycle = 0; cycle < 8; cycle++) {
		size_t n = mf_hog_pages();
		char *h = mmap(NULL, n * 4096 + 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED)
			return (void *)1;
		for (size_t k = 0; k < n; k++)
			h[k * 4096] = 1;
		munmap(h, n * 4096 + 4096);
	}
	mf_stop = 1;
	return NULL;
}

static uint8_t mf_byte(unsigned p, unsigned i, unsigned round)
{
	return (uint8_t)(p * 7 + i * 13 + round * 101 + 1) | 1;   /* never 0 */
}

/* mf_check: page p after round r (written: its first half has round r's
 * bytes): 0 if it is right. */
static int mf_check(unsigned p, unsigned r, int written)
{
	volatile uint8_t *pg = mf_base + (size_t)p * 4096;
	int old = 1, zero = 1;
	for (unsigned i = 0; i < 4096; i++) {
		if (written && i < 2048) {
			if (pg[i] != mf_byte(p, i, r))
				return 1;
			continue;
		}
		int was = pg[i] == mf_byte(p, i, r - 1);
		if (!was && pg[i] != 0)
			return 2;
		old &= was;
		zero &= pg[i] == 0;
	}
	return written && !old && !zero ? 3 : 0;
}

static void t_madv_free_reclaim(void)
{
	struct pagoda_meminfo m0, m1;
	int pagoda = pagoda_meminfo(&m0) == 0;
	mf_base = mmap(NULL, MF_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mf_base != MAP_FAILED);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, mf_presser, NULL) == 0);
	unsigned r, lost_halves = 0;
	for (r = 1; !mf_stop; r++) {
		for (unsigned p = 0; p < MF_PAGES; p++)   /* old data: round r - 1 */
			for (unsigned i = 0; i < 4096; i++)
				mf_base[(size_t)p * 4096 + i] = mf_byte(p, i, r - 1);
		CHECK(madvise((void *)mf_base, MF_PAGES * 4096, MADV_FREE) == 0);
		for (unsigned p = r % 2; p < MF_PAGES; p += 2)
			for (unsigned i = 0; i < 2048; i++)
				mf_base[(size_t)p * 4096 + i] = mf_byte(p, i, r);
		for (unsigned p = 0; p < MF_PAGES; p++) {
			int e = mf_check(p, r, p % 2 == r % 2);
			if (e)
				fail(__LINE__, "round %u page %u: %s", r, p, e == 1 ? "a written byte is lost" :
				     e == 2 ? "a byte is neither old data nor zero" :
				     "the unwritten half is part old, part zero");
			lost_halves += p % 2 == r % 2 && mf_base[(size_t)p * 4096 + 4095] == 0;
		}
	}
	void *res;
	CHECK(pthread_join(t, &res) == 0 && res == NULL);
	if (pagoda) {
		CHECK(pagoda_meminfo(&m1) == 0);
		printf("  %u rounds, %u written pages reclaimed before their write, "
		       "lazy-free pages reclaimed %llu\n", r - 1, lost_halves,
		       (unsigned long long)(m1.pglazyfreed - m0.pglazyfreed));
		CHECK(m1.pglazyfreed > m0.pglazyfreed);
	}
}

/* ---- main ---- */

struct threadtest {
	const char *name;
	void (*fn)(void);
};

/* ---- a signal racing a futex sleep ---- */

static volatile uint32_t signal_sent, waiter_started, slept_through;
static void note_usr1(int s)
{
	(void)s;
}

/* Waits on signal_sent, which only the signal ends: the sender stores 1
 * in it before it signals, and never wakes the futex. A wait that starts
 * after the store returns EAGAIN at once (even when the handler ran just
 * before the system call); one that started before must end with EINTR.
 * A wait that sleeps through the signal times out after 10 s instead of
 * hanging the run. */
static void *wait_for_signal(void *a)
{
	(void)a;
	struct timespec limit = { .tv_sec = 10 };
	waiter_started = 1;
	while (!signal_sent)
		if (futex(&signal_sent, FUTEX_WAIT | FUTEX_PRIVATE, 0, &limit, NULL, 0) < 0 &&
		    errno == ETIMEDOUT)
			slept_through++;
	return NULL;
}

/* signal_ends_futex_wait: 300 times, a thread starts a futex wait and the
 * main thread signals it at once, so the signal often arrives while the
 * waiter is between its signal check and its sleep: the wait must end
 * (EINTR) every time. On several CPUs a sender used to find the waiter not
 * asleep yet, only kick its CPU, and the waiter then slept for good. */
static void t_signal_ends_futex_wait(void)
{
	struct sigaction sa = { .sa_handler = note_usr1 };   /* no SA_RESTART */
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	slept_through = 0;
	for (int round = 0; round < 300; round++) {
		pthread_t t;
		signal_sent = 0, waiter_started = 0;
		CHECK(pthread_create(&t, NULL, wait_for_signal, NULL) == 0);
		while (!waiter_started)
			;
		signal_sent = 1;
		int r = pthread_kill(t, SIGUSR1);   /* ESRCH: it saw the store, ended */
		CHECK(r == 0 || r == ESRCH);
		join_all(&t, 1);
	}
	if (slept_through)
		printf("  %u futex waits slept through their signal (10 s each)\n",
		       (unsigned)slept_through);
	CHECK(slept_through == 0);
}

/* ---- robust futexes and process CPU time ---- */

/* One robust list as <linux/futex.h> lays it out: a head, and entries each
 * followed (futex_offset bytes on) by its futex word. */
struct robust_entry {
	struct robust_entry *next;
	volatile uint32_t word;
};
struct robust_head {
	struct robust_entry *next;
	long futex_offset;
	struct robust_entry *pending;
};

static struct robust_head rhead;
static struct robust_entry rowned, rforeign, rwaited;
static volatile uint32_t robust_waiter_in;
static long robust_wait_result = -1;
static int robust_wait_errno;

/* Owns rowned and rwaited (its tid in them), lists rforeign too (another
 * tid), registers the list and exits without unlocking anything. */
static void *robust_owner(void *a)
{
	(void)a;
	uint32_t tid = (uint32_t)gettid_();
	rhead = (struct robust_head){ &rowned, offsetof(struct robust_entry, word), NULL };
	rowned = (struct robust_entry){ &rforeign, tid };
	rforeign = (struct robust_entry){ &rwaited, 12345 };
	rwaited = (struct robust_entry){ (struct robust_entry *)&rhead, tid | 0x80000000U };
	CHECK(syscall(SYS_set_robust_list, &rhead, sizeof(rhead)) == 0);
	while (!robust_waiter_in)
		sched_yield();
	return NULL;
}

static void *robust_waiter(void *a)
{
	(void)a;
	uint32_t v = rwaited.word;
	robust_waiter_in = 1;
	robust_wait_result = futex(&rwaited.word, FUTEX_WAIT, v, NULL, NULL, 0);
	robust_wait_errno = errno;   /* errno is the waiter's own */
	return NULL;
}

/* robust_list: a thread dies owning two robust futexes: both are marked
 * FUTEX_OWNER_DIED with the owner's tid cleared (WAITERS kept), the one
 * with a waiter wakes it, an entry naming another tid stays as it was
 * (Linux's exit_robust_list semantics; the same on the host). */
static void t_robust_list(void)
{
	pthread_t owner, waiter;
	CHECK(pthread_create(&owner, NULL, robust_owner, NULL) == 0);
	while (!rwaited.word)
		sched_yield();
	CHECK(pthread_create(&waiter, NULL, robust_waiter, NULL) == 0);
	join_all(&owner, 1);
	join_all(&waiter, 1);
	printf("  words after the owner died: %#x %#x %#x, waiter's wait returned %ld\n",
	       rowned.word, rforeign.word, rwaited.word, robust_wait_result);
	CHECK(rowned.word == 0x40000000U);
	CHECK(rforeign.word == 12345);
	CHECK(rwaited.word == (0x80000000U | 0x40000000U));
	CHECK(robust_wait_result == 0 || (robust_wait_result == -1 && robust_wait_errno == EAGAIN));
}

static volatile long spun_ticks;

/* Spins until its process's times() has grown by 20 ticks, then exits. */
static void *burn_cpu(void *a)
{
	(void)a;
	struct tms t0, t;
	times(&t0);
	do
		times(&t);
	while ((long)(t.tms_utime + t.tms_stime - t0.tms_utime - t0.tms_stime) < 20);
	spun_ticks = (long)(t.tms_utime + t.tms_stime);
	return NULL;
}

/* times_whole_group: times() is the process's CPU time, every thread's,
 * exited ones included (as on Linux): after joining a thread that burnt
 * 20 ticks, the process has at least what that thread last saw; after
 * reaping a child that did the same, tms_cutime + tms_cstime has it. */
static void t_times_whole_group(void)
{
	pthread_t t;
	struct tms now;
	CHECK(pthread_create(&t, NULL, burn_cpu, NULL) == 0);
	join_all(&t, 1);
	times(&now);
	printf("  the thread saw %ld ticks, the process has %ld\n", spun_ticks,
	       (long)(now.tms_utime + now.tms_stime));
	CHECK((long)(now.tms_utime + now.tms_stime) >= spun_ticks);
	pid_t pid = fork();
	if (pid == 0) {
		burn_cpu(NULL);
		_exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	times(&now);
	CHECK((long)(now.tms_cutime + now.tms_cstime) >= 20);
}

/* ---- two COW breaks of one page at once ---- */

#define CR_PAGES 16
#define CR_THREADS 4
static volatile uint64_t *cr_base;
static volatile int cr_go, cr_ready;

static uint64_t cr_tag(unsigned p, unsigned id)
{
	return 0xc0de000000000000ULL | (uint64_t)p << 8 | id;
}

/* Writes its own word of every page, all writers at once. */
static void *cr_writer(void *a)
{
	unsigned id = (unsigned)(intptr_t)a;
	__atomic_add_fetch(&cr_ready, 1, __ATOMIC_SEQ_CST);
	while (!cr_go)
		;
	for (unsigned p = 0; p < CR_PAGES; p++)
		cr_base[(size_t)p * 512 + id * 8] = cr_tag(p, id);
	return NULL;
}

/* cow_race: 30 times, a fork makes 16 pages copy-on-write (the child just
 * waits), then 4 threads of the parent write their own word of every page
 * at once, so two threads often break the COW of one page together; every
 * word written must be there. Before pgt_replace checked the entry under
 * the PT lock, the second break replaced the first one's copy and that
 * thread's write was lost (the fork_snapshot hang: libc's malloc-lock
 * release after a fork, lost to a writer's COW break of the same page). */
static void t_cow_race(void)
{
	for (int round = 0; round < 30; round++) {
		cr_base = mmap(NULL, CR_PAGES * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(cr_base != MAP_FAILED);
		memset((void *)cr_base, 0x5a, CR_PAGES * 4096);
		pid_t child = fork();
		if (child == 0) {
			for (;;)
				pause();
		}
		CHECK(child > 0);
		cr_go = 0, cr_ready = 0;
		pthread_t t[CR_THREADS];
		for (int i = 0; i < CR_THREADS; i++)
			CHECK(pthread_create(&t[i], NULL, cr_writer, (void *)(intptr_t)i) == 0);
		while (cr_ready != CR_THREADS)
			sched_yield();
		cr_go = 1;
		join_all(t, CR_THREADS);
		int lost = 0;
		for (unsigned p = 0; p < CR_PAGES; p++)
			for (unsigned id = 0; id < CR_THREADS; id++)
				lost += cr_base[(size_t)p * 512 + id * 8] != cr_tag(p, id);
		kill(child, SIGKILL);
		CHECK(waitpid(child, NULL, 0) == child);
		CHECK(munmap((void *)cr_base, CR_PAGES * 4096) == 0);
		if (lost)
			fail(__LINE__, "round %d: %d of %d words written after the fork are gone",
			     round, lost, CR_PAGES * CR_THREADS);
	}
}

static const struct threadtest tests[] = {
	{ "create_join", t_create_join }, { "detach", t_detach }, { "mutex", t_mutex },
	{ "cond", t_cond }, { "rwlock", t_rwlock }, { "barrier", t_barrier }, { "tls", t_tls },
	{ "futex_pingpong", t_futex_pingpong }, { "futex_ops", t_futex_ops },
	{ "futex_shared", t_futex_shared }, { "no_leak", t_no_leak },
	{ "fork_threads", t_fork_threads }, { "fork_unshare_race", t_fork_unshare_race }, { "exec_thread", t_exec_thread },
	{ "fault_kills_group", t_fault_kills_group }, { "tgkill", t_tgkill },
	{ "clone_flags", t_clone_flags }, { "proc_task", t_proc_task },
	{ "signal_group", t_signal_group }, { "fault_thread", t_fault_thread },
	{ "wait_thread", t_wait_thread }, { "exec_main", t_exec_main },
	{ "close_while_reading", t_close_while_reading }, { "robust_list", t_robust_list },
	{ "times_whole_group", t_times_whole_group },
	{ "signal_ends_futex_wait", t_signal_ends_futex_wait }, { "unmap_fault", t_unmap_fault },
	{ "prot_race", t_prot_race }, { "fork_snapshot", t_fork_snapshot },
	{ "madv_free_reclaim", t_madv_free_reclaim }, { "cow_race", t_cow_race },
};
#define NTESTS (sizeof tests / sizeof tests[0])

/* Is test name to run: every test without arguments; the named ones; with
 * -x first, every test but the named ones. */
static int selected(const char *name, int argc, char **argv)
{
	int except = argc >= 2 && strcmp(argv[1], "-x") == 0;
	if (argc < 2)
		return 1;
	for (int i = 1 + except; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return !except;
	return except;
}

/* Reap whatever is left (as pid 1 we inherit orphans). */
static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	self_path = argv[0];
	if (argc == 3 && strcmp(argv[1], "--exec-check") == 0)
		return exec_check(argv[2]);
	printf("threadtests: starting\n");
	for (size_t i = 0; i < NTESTS; i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			tests[i].fn();
			fflush(stdout);
			_exit(0);
		}
		int st = 0;
		int ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		if (ok)
			passed++, printf("TEST user.thread_%s PASS\n", tests[i].name);
		else
			failed++, printf("TEST user.thread_%s FAIL status %#x\n", tests[i].name, st);
		reap();
	}
	printf("THREADTESTS END %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

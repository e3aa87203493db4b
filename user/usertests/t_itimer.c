/* user/usertests/t_itimer.c -- alarm(2), setitimer(2), getitimer(2): the
 * three interval timers, their signals, re-arming, fork and errors. The
 * tests wait for signals, never for a measured time. */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

static volatile sig_atomic_t fired;

static void on_timer(int sig)
{
	(void)sig;
	fired++;
}

static void catch_signal(int sig)
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	a.sa_handler = on_timer;
	sigemptyset(&a.sa_mask);
	CHECK_OK(sigaction(sig, &a, NULL));
}

static struct itimerval itv(long value_us, long interval_us)
{
	struct itimerval v;

	v.it_value.tv_sec = value_us / 1000000;
	v.it_value.tv_usec = value_us % 1000000;
	v.it_interval.tv_sec = interval_us / 1000000;
	v.it_interval.tv_usec = interval_us % 1000000;
	return v;
}

/* itimer_alarm: alarm() reports what was left of the previous alarm, 0
 * cancels it, and an armed alarm ends pause() with SIGALRM's handler. */
void test_itimer_alarm(void)
{
	struct itimerval v;

	fired = 0;
	catch_signal(SIGALRM);
	CHECK(alarm(100) == 0);
	unsigned left = alarm(50);
	CHECK(left >= 99 && left <= 100);
	CHECK_OK(getitimer(ITIMER_REAL, &v));
	CHECK(v.it_value.tv_sec >= 49 && v.it_value.tv_sec <= 50);
	CHECK(v.it_interval.tv_sec == 0 && v.it_interval.tv_usec == 0);
	CHECK(alarm(0) >= 49);
	CHECK_OK(getitimer(ITIMER_REAL, &v));
	CHECK(v.it_value.tv_sec == 0 && v.it_value.tv_usec == 0);
	CHECK(alarm(1) == 0);
	while (!fired)
		pause();
	CHECK(fired == 1);
	CHECK(alarm(0) == 0);
}

static void spin_until_fired(int n)
{
	while (fired < n)
		;
}

/* itimer_interval: a REAL timer with an interval fires again and again and
 * stays armed; VIRTUAL and PROF count CPU time (a busy loop) and fire
 * SIGVTALRM and SIGPROF. */
void test_itimer_interval(void)
{
	struct itimerval v = itv(10000, 10000), old;

	fired = 0;
	catch_signal(SIGALRM);
	CHECK_OK(setitimer(ITIMER_REAL, &v, &old));
	CHECK(old.it_value.tv_sec == 0 && old.it_value.tv_usec == 0);
	while (fired < 3)
		pause();
	CHECK_OK(getitimer(ITIMER_REAL, &old));
	CHECK(old.it_interval.tv_usec == 10000);
	CHECK(old.it_value.tv_sec == 0 && old.it_value.tv_usec > 0);
	v = itv(0, 0);
	CHECK_OK(setitimer(ITIMER_REAL, &v, NULL));
	int which[] = { ITIMER_VIRTUAL, ITIMER_PROF }, sig[] = { SIGVTALRM, SIGPROF };
	for (int i = 0; i < 2; i++) {
		fired = 0;
		catch_signal(sig[i]);
		v = itv(20000, 20000);
		CHECK_OK(setitimer(which[i], &v, NULL));
		spin_until_fired(2);
		v = itv(0, 0);
		CHECK_OK(setitimer(which[i], &v, &old));
		CHECK(old.it_interval.tv_usec == 20000);
	}
}

static void die_by_alarm(void *arg)
{
	(void)arg;
	alarm(1);
	for (;;)
		pause();
}

/* itimer_fork: SIGALRM's default action kills (the wait status says
 * SIGALRM); a forked child inherits no timer. */
void test_itimer_fork(void)
{
	struct itimerval v = itv(30000000, 0), got;

	ut_expect_signal(SIGALRM, die_by_alarm, NULL);
	CHECK_OK(setitimer(ITIMER_REAL, &v, NULL));
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (getitimer(ITIMER_REAL, &got) < 0 || got.it_value.tv_sec || got.it_value.tv_usec)
			_exit(1);
		_exit(0);
	}
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(alarm(0) >= 29);
}

/* itimer_errors: Linux's errnos for a bad timer, a bad value, bad memory. */
void test_itimer_errors(void)
{
	struct itimerval v = itv(0, 0);

	CHECK_ERR(getitimer(7, &v), EINVAL);
	CHECK_ERR(setitimer(-1, &v, NULL), EINVAL);
	v.it_value.tv_usec = 1000000;
	CHECK_ERR(setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	v = itv(0, 0);
	v.it_interval.tv_sec = -1;
	CHECK_ERR(setitimer(ITIMER_REAL, &v, NULL), EINVAL);
	CHECK_ERR(getitimer(ITIMER_REAL, (struct itimerval *)8), EFAULT);
	CHECK_ERR(setitimer(ITIMER_REAL, (struct itimerval *)8, NULL), EFAULT);
}

/* One futex wait with timeout t on a word nobody wakes, ended by a 30 ms
 * SIGALRM (no SA_RESTART): it must report EINTR, not ETIMEDOUT. */
static void expect_wait_interrupted(int op, const struct timespec *t)
{
	static uint32_t word;
	struct itimerval shot = itv(30000, 0);

	fired = 0;
	CHECK_OK(setitimer(ITIMER_REAL, &shot, NULL));
	CHECK_ERR(syscall(SYS_futex, &word, op, 0, t, NULL, ~0u), EINTR);
	CHECK(fired == 1);
}

/* timeout_saturates: a timeout too large for 64-bit nanoseconds means
 * "never", as Linux saturates at KTIME_MAX: setitimer of INT64_MAX
 * seconds does not fire and reads back armed for centuries; FUTEX_WAIT
 * with a relative INT64_MAX s, FUTEX_WAIT_BITSET with an absolute 2^62 s
 * on the monotonic and the realtime clock wait until a signal ends them
 * (before: each wrapped and timed out at once). */
void test_timeout_saturates(void)
{
	enum { WAIT = 0, WAIT_BITSET = 9, PRIVATE = 128, CLOCK_RT = 256 };
	struct itimerval never = itv(0, 0), got;
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	struct timespec forever = { INT64_MAX, 999999999 }, far = { (int64_t)1 << 62, 0 };

	catch_signal(SIGALRM);
	fired = 0;
	never.it_value.tv_sec = INT64_MAX;
	CHECK_OK(setitimer(ITIMER_REAL, &never, NULL));
	nanosleep(&nap, NULL);
	CHECK(fired == 0);
	CHECK_OK(getitimer(ITIMER_REAL, &got));
	CHECK(got.it_value.tv_sec > 1000000000);
	never = itv(0, 0);
	CHECK_OK(setitimer(ITIMER_REAL, &never, NULL));
	expect_wait_interrupted(WAIT | PRIVATE, &forever);
	expect_wait_interrupted(WAIT_BITSET | PRIVATE, &far);
	expect_wait_interrupted(WAIT_BITSET | PRIVATE | CLOCK_RT, &far);
}

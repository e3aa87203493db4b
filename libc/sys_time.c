/* libc/sys_time.c -- clocks and sleeping.
 *
 * Time comes from clock_gettime (the one clock call Pagoda implements);
 * gettimeofday is built on it. times() reports Linux's USER_HZ ticks scaled
 * to newlib's CLK_TCK (= CLOCKS_PER_SEC), so clock() and times() agree.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>
#include "linux_abi.h"
#include "raw_syscall.h"

/* clock_gettime(2): the time of clock (newlib's id, translated) in *ts. */
int clock_gettime(clockid_t clock, struct timespec *ts)
{
	int lclock = clock_to_linux(clock);

	if (lclock < 0) {
		errno = EINVAL;
		return -1;
	}
	return (int)sys_result(raw_syscall2(SYS_clock_gettime, lclock, ts));
}

/* gettimeofday: the real-time clock in microseconds; tz is ignored. */
int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -1;
	if (tv) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return 0;
}

/* times: process times in CLK_TCK units; returns elapsed ticks since an
 * arbitrary point (boot), or (clock_t)-1 with errno. */
clock_t times(struct tms *t)
{
	const long scale = CLOCKS_PER_SEC / LINUX_USER_HZ;
	long lt[4];	/* Linux struct tms: four longs of USER_HZ ticks */
	long r = raw_syscall1(SYS_times, lt);

	if (raw_is_error(r))
		return (clock_t)sys_result(r);
	if (t) {
		t->tms_utime = lt[0] * scale;
		t->tms_stime = lt[1] * scale;
		t->tms_cutime = lt[2] * scale;
		t->tms_cstime = lt[3] * scale;
	}
	return (clock_t)(r * scale);
}

/* nanosleep(2): sleep *req; the rest in *rem if interrupted. */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return (int)sys_result(raw_syscall2(SYS_nanosleep, req, rem));
}

/* sleep: returns the seconds left if interrupted, else 0. */
unsigned sleep(unsigned seconds)
{
	struct timespec req = { .tv_sec = seconds, .tv_nsec = 0 }, rem = { 0, 0 };

	if (nanosleep(&req, &rem) < 0 && errno == EINTR)
		return (unsigned)rem.tv_sec + (rem.tv_nsec > 0);
	return 0;
}

/* usleep: sleep usec microseconds. */
int usleep(useconds_t usec)
{
	struct timespec req = { .tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000L };

	return nanosleep(&req, NULL);
}

/* getitimer(2) / setitimer(2): newlib's struct itimerval is Linux's (two
 * struct timeval of 64-bit seconds and microseconds), and ITIMER_REAL,
 * _VIRTUAL and _PROF have Linux's numbers, so they pass straight through. */
int getitimer(int which, struct itimerval *value)
{
	return (int)sys_result(raw_syscall2(SYS_getitimer, which, value));
}

int setitimer(int which, const struct itimerval *value, struct itimerval *ovalue)
{
	return (int)sys_result(raw_syscall3(SYS_setitimer, which, value, ovalue));
}

/* alarm(2): SIGALRM after seconds (0 cancels); the seconds that were left
 * of the previous alarm. */
unsigned alarm(unsigned seconds)
{
	return (unsigned)raw_syscall1(SYS_alarm, seconds);
}

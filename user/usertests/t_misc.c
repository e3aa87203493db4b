/* user/usertests/t_misc.c -- clocks, sleeping, identity calls. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "usertests.h"

/* ns_between: nanoseconds from a to b. */
static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* clock_realtime: time(), gettimeofday and CLOCK_REALTIME tell one wall
 * clock, a current one (after 2026-01-02: on Pagoda the RTC's, not the
 * fixed boot date of before), /proc/stat's btime plus /proc/uptime is
 * now, and sysinfo's uptime is /proc/uptime's. */
void test_clock_realtime(void)
{
	struct timespec ts;
	struct timeval tv;
	time_t t = time(NULL);
	CHECK_OK(clock_gettime(CLOCK_REALTIME, &ts));
	CHECK_OK(gettimeofday(&tv, NULL));
	CHECK(t > 1767312000);
	CHECK(ts.tv_sec >= t && ts.tv_sec - t <= 2);
	CHECK(tv.tv_sec >= t && tv.tv_sec - t <= 2 && tv.tv_usec >= 0 && tv.tv_usec < 1000000);
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	long long btime = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	if (f)
		fclose(f);
	double up = -1;
	f = fopen("/proc/uptime", "r");
	CHECK(f && fscanf(f, "%lf", &up) == 1);
	fclose(f);
	CHECK(btime > 0 && up >= 0);
	CHECK(btime + (long long)up >= (long long)t - 3 && btime + (long long)up <= (long long)t + 3);
	long si[14];   /* Linux's struct sysinfo (112 bytes) starts with the uptime in seconds */
	CHECK(syscall(99 /* sysinfo */, si) == 0);
	CHECK(si[0] >= (long)up - 2 && si[0] <= (long)up + 2);
}

/* clock_sleep: the monotonic clock never goes back, and a sleep of 20 ms
 * lasts at least 20 ms by it (a correctness check, not a measurement). */
void test_clock_sleep(void)
{
	struct timespec a, b, req = { 0, 20 * 1000 * 1000 };

	CHECK_OK(clock_gettime(CLOCK_MONOTONIC, &a));
	CHECK(a.tv_nsec >= 0 && a.tv_nsec < 1000000000L);
	CHECK_OK(nanosleep(&req, NULL));
	CHECK_OK(clock_gettime(CLOCK_MONOTONIC, &b));
	CHECK(ns_between(&a, &b) >= 20 * 1000 * 1000LL);
	CHECK_OK(usleep(1000));
	CHECK(sleep(0) == 0);
	req.tv_nsec = 1000000000L;	/* out of range */
	CHECK_ERR(nanosleep(&req, NULL), EINVAL);
	CHECK_OK(clock_gettime(CLOCK_REALTIME, &a));
	CHECK(a.tv_sec > 0);
}

/* The raw clock_nanosleep system call (both libcs' wrappers turn its
 * -errno into a return value): 0, or -1 with errno. */
static long raw_clock_nanosleep(long clock, long flags, const struct timespec *req,
				struct timespec *rem)
{
	return syscall(SYS_clock_nanosleep, clock, flags, req, rem);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* clock_nanosleep: a relative sleep on the monotonic and the realtime clock
 * lasts at least as long; a deadline (TIMER_ABSTIME) on either is reached;
 * one already past returns at once; a signal interrupts a relative sleep
 * with EINTR and the time left in rem; bad clocks, times and pointers give
 * Linux's errors. Pagoda had no clock_nanosleep (ENOSYS): glibc's sleep()
 * returned at once, and busybox's `sleep 10 &` exited before `kill $!`. */
void test_clock_nanosleep(void)
{
	struct timespec a, b, req = { 0, 20 * 1000 * 1000 }, rem;
	/* the raw call takes Linux's ids (newlib's CLOCK_ constants differ) */
	enum { LINUX_REALTIME = 0, LINUX_MONOTONIC = 1, LINUX_ABSTIME = 1 };
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME };
	static const long ids[] = { LINUX_MONOTONIC, LINUX_REALTIME };
	for (int i = 0; i < 2; i++) {
		CHECK_OK(clock_gettime(clocks[i], &a));
		CHECK_OK(raw_clock_nanosleep(ids[i], 0, &req, NULL));
		CHECK_OK(clock_gettime(clocks[i], &b));
		CHECK(ns_between(&a, &b) >= 20 * 1000 * 1000LL);
		struct timespec until = b;
		until.tv_nsec += 30 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		CHECK_OK(raw_clock_nanosleep(ids[i], LINUX_ABSTIME, &until, NULL));
		CHECK_OK(clock_gettime(clocks[i], &b));
		CHECK(ns_between(&until, &b) >= 0);
		CHECK_OK(raw_clock_nanosleep(ids[i], LINUX_ABSTIME, &a, NULL));  /* past */
	}
	struct sigaction sa = { 0 }, old;
	sa.sa_handler = on_alarm;
	CHECK_OK(sigaction(SIGALRM, &sa, &old));
	alarm(1);
	struct timespec ten = { 10, 0 };
	rem.tv_sec = -1;
	CHECK_ERR(raw_clock_nanosleep(LINUX_MONOTONIC, 0, &ten, &rem), EINTR);
	CHECK(rem.tv_sec >= 7 && rem.tv_sec <= 9 && rem.tv_nsec >= 0 && rem.tv_nsec < 1000000000L);
	CHECK_OK(sigaction(SIGALRM, &old, NULL));
	struct timespec bad = { 0, 1000000000L };
	CHECK_ERR(raw_clock_nanosleep(LINUX_MONOTONIC, 0, &bad, NULL), EINVAL);
	bad.tv_sec = -1;
	bad.tv_nsec = 0;
	CHECK_ERR(raw_clock_nanosleep(LINUX_MONOTONIC, 0, &bad, NULL), EINVAL);
	CHECK_ERR(raw_clock_nanosleep(12345, 0, &req, NULL), EINVAL);
	CHECK_ERR(raw_clock_nanosleep(LINUX_MONOTONIC, 0, (void *)8, NULL), EFAULT);
}

/* times_faults: time spent resolving page faults is system time. Touch fresh
 * anonymous pages (one store each) until 0.3 s of CPU time has passed;
 * zeroing and mapping the pages must outweigh the stores. */
void test_times_faults(void)
{
	const size_t len = 16 << 20, page = 4096;
	const long hz = sysconf(_SC_CLK_TCK);
	struct tms t;
	int rounds = 0;

	CHECK(hz > 0);

	do {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p != MAP_FAILED);
		for (size_t off = 0; off < len; off += page)
			p[off] = 1;
		CHECK_OK(munmap(p, len));
		CHECK(times(&t) != (clock_t)-1);
		CHECK(++rounds < 400);	/* else the CPU time never advances */
	} while ((long)(t.tms_utime + t.tms_stime) < hz * 3 / 10);
	if (t.tms_stime * 2 < t.tms_utime)
		ut_fail(__FILE__, __LINE__, "user %ld, system %ld ticks: fault time counted as user time",
			(long)t.tms_utime, (long)t.tms_stime);
}

static void chdir_dev(void *arg)
{
	(void)arg;
	if (chdir("/dev") < 0)
		_exit(2);
}

/* cwd: chdir moves the current directory (absolute, relative, ".."),
 * getcwd reports it, relative paths start there, a child's chdir leaves
 * the parent alone; chdir checks its target. */
void test_cwd(void)
{
	char buf[256];
	int fd;

	CHECK(getcwd(buf, sizeof buf) == buf && buf[0] == '/');
	CHECK_OK(chdir("/"));
	CHECK(getcwd(buf, sizeof buf) == buf && strcmp(buf, "/") == 0);
	CHECK(getcwd(buf, 1) == NULL && errno == ERANGE);
	CHECK_OK(chdir("dev"));
	CHECK(getcwd(buf, sizeof buf) == buf && strcmp(buf, "/dev") == 0);
	CHECK(getcwd(buf, 4) == NULL && errno == ERANGE);
	fd = CHECK_OK(open("null", O_WRONLY));
	CHECK(write(fd, "x", 1) == 1);
	CHECK_OK(close(fd));
	CHECK_OK(access("./zero", F_OK));
	CHECK_OK(chdir(".."));
	CHECK(getcwd(buf, sizeof buf) == buf && strcmp(buf, "/") == 0);
	CHECK(ut_run(chdir_dev, NULL) == 0);
	CHECK(getcwd(buf, sizeof buf) == buf && strcmp(buf, "/") == 0);
	CHECK_ERR(open("null", O_WRONLY), ENOENT);
	CHECK_ERR(chdir("/no/such/dir"), ENOENT);
	CHECK_ERR(chdir("/dev/null"), ENOTDIR);
	CHECK_OK(access("/dev/null", F_OK));
	CHECK_ERR(access("/no/such/file", F_OK), ENOENT);
}

/* uname_ids: uname fills every field; pids are positive. */
void test_uname_ids(void)
{
	struct utsname u;

	memset(&u, 0xff, sizeof u);
	CHECK_OK(uname(&u));
	CHECK(u.sysname[0] != '\0' && memchr(u.sysname, 0, sizeof u.sysname));
	CHECK(strcmp(u.machine, "x86_64") == 0);
	CHECK(memchr(u.release, 0, sizeof u.release) != NULL);
	CHECK(getpid() > 0 && getppid() > 0 && getpid() != getppid());
}

/* tcgets_size: TCGETS writes the kernel's struct termios, 36 bytes, and
 * not a byte more (glibc's tcgetattr passes a buffer of exactly that: a
 * longer write smashed busybox's stack). Pagoda's fds 0-2 are its console;
 * on Linux the check needs one of them to be a terminal. */
void test_tcgets_size(void)
{
	unsigned char buf[64];
	int tty = -1;
	for (int fd = 0; fd <= 2 && tty < 0; fd++) {
		memset(buf, 0xaa, sizeof(buf));
		if (syscall(SYS_ioctl, fd, 0x5401, buf) == 0)
			tty = fd;
	}
	CHECK(tty >= 0 || ut_on_linux());
	for (size_t i = 36; tty >= 0 && i < sizeof(buf); i++)
		CHECK(buf[i] == 0xaa);
}

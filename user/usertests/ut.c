/* user/usertests/ut.c -- helpers every test uses (contracts: usertests.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <pagoda/pagoda.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/procfs.h>
#include "usertests.h"

int ut_report_fd = -1;
const char *ut_bindir = "/bin";

void ut_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	int n = snprintf(msg, sizeof msg, "%s:%d: ", file, line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	va_end(ap);
	if (ut_report_fd >= 0)
		(void)!write(ut_report_fd, msg, strlen(msg));
	else
		fprintf(stderr, "%s\n", msg);
	_exit(1);
}

void ut_check_err(long r, int want, const char *expr, const char *wname,
		  const char *file, int line)
{
	int e = errno;

	if (r != -1)
		ut_fail(file, line, "%s returned %ld, want -1 with %s", expr, r, wname);
	if (e != want)
		ut_fail(file, line, "%s: errno %d (%s), want %s", expr, e, strerror(e), wname);
}

long ut_check_ok(long r, const char *expr, const char *file, int line)
{
	if (r == -1)
		ut_fail(file, line, "%s failed: errno %d (%s)", expr, errno, strerror(errno));
	return r;
}

pid_t ut_fork_try(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0 && ut_report_fd >= 0) {
		close(ut_report_fd);
		ut_report_fd = -1;
	}
	return pid;
}

pid_t ut_fork(void)
{
	pid_t pid = ut_fork_try();

	if (pid < 0)
		ut_fail(__FILE__, __LINE__, "fork: errno %d (%s)", errno, strerror(errno));
	return pid;
}

int ut_wait(pid_t pid)
{
	int status = 0;
	pid_t got = waitpid(pid, &status, 0);

	if (got != pid)
		ut_fail(__FILE__, __LINE__, "waitpid(%d) returned %d, errno %d", (int)pid,
			(int)got, errno);
	return status;
}

int ut_run(void (*fn)(void *), void *arg)
{
	pid_t pid = ut_fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	return ut_wait(pid);
}

void ut_expect_signal_at(int sig, const char *sname, void (*fn)(void *), void *arg,
			 const char *fname, const char *file, int line)
{
	int status = ut_run(fn, arg);

	if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
		ut_fail(file, line, "%s: child ended with %s, want killed by %s", fname,
			ut_status_str(status), sname);
}

void ut_poke(void *p)
{
	*(volatile char *)p = 1;
}

void ut_peek(void *p)
{
	(void)*(volatile char *)p;
}

void *ut_map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		ut_fail(__FILE__, __LINE__, "mmap(%zu) failed: errno %d", len, errno);
	return p;
}

const char *ut_status_str(int status)
{
	static char buf[48];

	if (WIFEXITED(status))
		snprintf(buf, sizeof buf, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, sizeof buf, "wait status %#x", status);
	return buf;
}

int ut_on_linux(void)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.sysname, "Linux") == 0;
}

long long ut_vmstat(const char *name)
{
	long long v = procfs_vmstat(name);
	if (v < 0)
		ut_fail(__FILE__, __LINE__, "/proc/vmstat: no %s", name);
	return v;
}

int ut_state_becomes(pid_t pid, char c)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		char *end = strrchr(buf, ')');
		if (end && end[1] == ' ' && end[2] == c)
			return 1;
		usleep(1000);
	}
	return 0;
}

int ut_procinfo(pid_t pid, struct pagoda_procinfo *pi)
{
	for (long i = 0; pagoda_procinfo(i, pi) == 0; i++)
		if (pi->pid == pid)
			return 0;
	return -1;
}

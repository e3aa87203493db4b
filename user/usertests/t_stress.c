/* user/usertests/t_stress.c -- running out: a fork bomb ends in EAGAIN or
 * ENOMEM, a memory hog gets ENOMEM or is killed, and afterwards the system
 * still forks and allocates. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

#define PAGE 4096
#define RLIMIT_AS_NR       9
#define RLIMIT_NPROC_NR    6
#define NOBODY_UID         65534

/* linux_limit: on Linux, cap resource res at value so the host is not
 * exhausted (Pagoda's own limits are what the test is about there). */
static void linux_limit(int res, unsigned long value)
{
	unsigned long lim[2] = { value, value };

	if (ut_on_linux())
		CHECK_OK(syscall(SYS_setrlimit, res, lim));
}

/* still_works: after exhaustion, a new child can fork, allocate, exit 0. */
static void still_works(void)
{
	pid_t pid = ut_fork();

	if (pid == 0) {
		char *p = malloc(1 << 20);
		if (p == NULL)
			_exit(1);
		memset(p, 1, 1 << 20);
		_exit(0);
	}
	int st = ut_wait(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "system unusable afterwards: %s", ut_status_str(st));
}

/* forkbomb: fork until the kernel says no. The children block on a pipe
 * until the bomb is over, then all exit and are reaped. On Linux the run
 * drops root (RLIMIT_NPROC binds only unprivileged users) and caps the
 * process count first. */
void test_forkbomb(void)
{
	enum { CAP = 100000 };
	int hold[2], n = 0, err = 0;
	char c;

	CHECK_OK(pipe(hold));
	pid_t bomb = ut_fork();
	if (bomb == 0) {
		if (ut_on_linux()) {
			linux_limit(RLIMIT_NPROC_NR, 300);
			(void)syscall(SYS_setuid, NOBODY_UID);
		}
		while (n < CAP) {
			pid_t pid = ut_fork_try();
			if (pid < 0) {
				err = errno;
				break;
			}
			if (pid == 0) {
				close(hold[1]);
				(void)!read(hold[0], &c, 1);	/* until EOF */
				_exit(0);
			}
			n++;
		}
		close(hold[1]);
		for (int i = 0; i < n; i++)
			if (wait(NULL) < 0)
				ut_fail(__FILE__, __LINE__, "reaped only %d of %d", i, n);
		if (n == CAP)
			ut_fail(__FILE__, __LINE__, "%d forks and no limit", n);
		if (err != EAGAIN && err != ENOMEM)
			ut_fail(__FILE__, __LINE__, "fork failed with errno %d (%s)", err,
				strerror(err));
		if (n < 8)
			ut_fail(__FILE__, __LINE__, "only %d forks before errno %d", n, err);
		_exit(0);
	}
	close(hold[0]);
	close(hold[1]);
	int st = ut_wait(bomb);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "bomb: %s", ut_status_str(st));
	still_works();
}

/* oom: map and touch 16 MiB at a time, up to 64 GiB. The hog must either
 * see ENOMEM (exit 0) or be killed by the kernel; the caller survives. */
void test_oom(void)
{
	const size_t chunk = 16u << 20;
	pid_t hog = ut_fork();

	if (hog == 0) {
		linux_limit(RLIMIT_AS_NR, 512ul << 20);
		for (int i = 0; i < 64 * 64; i++) {
			char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(errno == ENOMEM ? 0 : 3);
			for (size_t k = 0; k < chunk; k += PAGE)
				p[k] = 1;
		}
		_exit(2);
	}
	int st = ut_wait(hog);
	int enomem = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	int killed = WIFSIGNALED(st) && (WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGSEGV ||
					 WTERMSIG(st) == SIGBUS);
	if (!enomem && !killed)
		ut_fail(__FILE__, __LINE__, "memory hog ended with %s", ut_status_str(st));
	still_works();
}

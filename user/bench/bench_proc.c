/*
 * user/bench/bench_proc.c -- fork, exec and wait, checked (see bench_proc.h).
 * Children leave with _exit so that they never flush the parent's stdio
 * buffers a second time.
 */
#include "bench_proc.h"
#include "bench_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define EXIT_EXEC_FAILED 127

/* Wait for `pid` and die unless it exited normally with status 0. */
static void wait_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		bench_die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "child %d failed (status 0x%x)\n", (int)pid, status);
		bench_die("child");
	}
}

void bench_fork_exit_wait(void *unused)
{
	pid_t pid = fork();

	(void)unused;
	if (pid < 0)
		bench_die("fork");
	if (pid == 0)
		_exit(0);
	wait_ok(pid);
}

/* The /dev/null descriptor children get as standard output (opened once). */
static int null_fd(void)
{
	static int fd = -1;

	if (fd < 0 && (fd = open("/dev/null", O_WRONLY)) < 0)
		bench_die("open /dev/null");
	return fd;
}

void bench_spawn_wait(const char *path, char *const argv[])
{
	int fd = null_fd();
	pid_t pid = fork();

	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		if (dup2(fd, STDOUT_FILENO) < 0)
			_exit(EXIT_EXEC_FAILED);
		execve(path, argv, environ);
		_exit(EXIT_EXEC_FAILED);
	}
	wait_ok(pid);
}

void bench_path_beside(char *buf, size_t len, const char *prog, const char *name)
{
	const char *slash = strrchr(prog, '/');

	if (slash)
		snprintf(buf, len, "%.*s/%s", (int)(slash - prog), prog, name);
	else
		snprintf(buf, len, "./%s", name);
}

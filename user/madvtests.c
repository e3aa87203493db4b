/* user/madvtests.c -- run the lazy-free and malloc subset of usertests:
 * `madvtests` execs <dir>/usertests with those test names, so that a kernel
 * started with init=/bin/madvtests (the kernel passes init no arguments) in
 * a small-memory QEMU run (tests/suites.txt, -m 96M) makes reclaim really
 * happen. Exits with usertests' status, or 127 if it cannot be started. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	static char *const tests[] = {
		"usertests", "madv_free_rewrite", "madv_free_dontneed", "madv_free_errors",
		"madv_free_fork", "madv_free_exit", "madv_free_pressure", "madvise_dontneed",
		"malloc_many", "malloc_patterns", "malloc_purge", NULL,
	};
	char path[256];
	const char *slash = strrchr(argv[0], '/');
	int dirlen = slash ? (int)(slash - argv[0]) : 0;

	(void)argc;
	snprintf(path, sizeof path, "%.*s/usertests", dirlen, argv[0]);
	if (!slash)
		snprintf(path, sizeof path, "/bin/usertests");
	execve(path, tests, environ);
	perror(path);
	return 127;
}

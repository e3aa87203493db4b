/* libc/exec.c -- the exec family on top of execve: execv, execvp, execl,
 * execlp. (newlib's own versions live in its posix/ part, which a bare
 * target does not build.) */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXECL_ARGS_MAX 64
#define DEFAULT_PATH "/bin"

extern char **environ;

/* execv: execve with this process's environment. */
int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

/* execvp: execv, but a file name without '/' is looked up in each
 * directory of $PATH (default /bin; an empty entry means "."). Returns -1
 * with ENOENT if found nowhere, or the error of a file that was found but
 * could not be run (EACCES, ENOEXEC, ...). */
int execvp(const char *file, char *const argv[])
{
	const char *dir = getenv("PATH");
	char full[PATH_MAX];
	int err = ENOENT;

	if (strchr(file, '/'))
		return execv(file, argv);
	for (dir = dir ? dir : DEFAULT_PATH;; dir++) {
		size_t len = strcspn(dir, ":");
		snprintf(full, sizeof full, "%.*s/%s", (int)len, len ? dir : ".", file);
		execv(full, argv);
		if (errno != ENOENT && errno != ENOTDIR)
			err = errno;
		dir += len;
		if (*dir == '\0')
			break;
	}
	errno = err;
	return -1;
}

/* collect: the NULL-terminated argument list of an execl call into argv
 * (arg0 first); 0, or -1 with E2BIG if there are too many. */
static int collect(char **argv, const char *arg0, va_list ap)
{
	int n = 0;

	for (const char *a = arg0; a; a = va_arg(ap, const char *)) {
		if (n == EXECL_ARGS_MAX) {
			errno = E2BIG;
			return -1;
		}
		argv[n++] = (char *)a;
	}
	argv[n] = NULL;
	return 0;
}

/* execl: execv with the arguments listed in the call (NULL-ended). */
int execl(const char *path, const char *arg0, ...)
{
	char *argv[EXECL_ARGS_MAX + 1];
	va_list ap;
	int r;

	va_start(ap, arg0);
	r = collect(argv, arg0, ap);
	va_end(ap);
	return r < 0 ? -1 : execv(path, argv);
}

/* execlp: execvp with the arguments listed in the call (NULL-ended). */
int execlp(const char *file, const char *arg0, ...)
{
	char *argv[EXECL_ARGS_MAX + 1];
	va_list ap;
	int r;

	va_start(ap, arg0);
	r = collect(argv, arg0, ap);
	va_end(ap);
	return r < 0 ? -1 : execvp(file, argv);
}

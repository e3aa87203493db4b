/* libc/misc.c -- the remaining calls newlib expects: fcntl, mkdir,
 * getentropy, the generic syscall(), the aux vector and sysconf. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "linux_abi.h"
#include "raw_syscall.h"
#include "start.h"

#define SYS_fcntl      72
#define SYS_mkdir      83
#define SYS_getrandom  318

/* LINUX_F_DUPFD..LINUX_F_SETFL agree with newlib's F_*. */

/* fcntl: descriptor duplication, the close-on-exec flag (FD_CLOEXEC is 1 in
 * both ABIs) and the status flags (F_GETFL/F_SETFL: O_NONBLOCK, ...,
 * translated both ways); other commands are EINVAL. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (cmd == F_DUPFD_CLOEXEC)
		cmd = LINUX_F_DUPFD_CLOEXEC;
	else if (cmd == F_SETFL)
		arg = open_flags_to_linux((int)arg & ~O_ACCMODE);
	else if (cmd < LINUX_F_DUPFD || cmd > LINUX_F_GETFL) {
		errno = EINVAL;
		return -1;
	}
	if (cmd == F_SETFL && arg < 0) {   /* a flag Linux has no bit for */
		errno = EINVAL;
		return -1;
	}
	long r = sys_result(raw_syscall3(SYS_fcntl, fd, cmd, arg));
	return cmd == F_GETFL && r >= 0 ? open_flags_from_linux(r) : (int)r;
}

/* mkdir(2): create a directory (Pagoda's initrd is read-only). */
int mkdir(const char *path, mode_t mode)
{
	return (int)sys_result(raw_syscall2(SYS_mkdir, path, mode));
}

/* getentropy: up to 256 random bytes from getrandom(2). */
int getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	return sys_result(raw_syscall3(SYS_getrandom, buf, len, 0)) < 0 ? -1 : 0;
}

/* syscall: see <unistd.h>. */
long syscall(long number, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return sys_result(raw_syscall6(number, a[0], a[1], a[2], a[3], a[4], a[5]));
}

/* getauxval: see <sys/auxv.h>. */
unsigned long getauxval(unsigned long type)
{
	for (const unsigned long *a = __pagoda_auxv; a && a[0] != AT_NULL; a += 2)
		if (a[0] == type)
			return a[1];
	errno = ENOENT;
	return 0;
}

/* getpagesize: the page size from the aux vector (4096 if absent). */
int getpagesize(void)
{
	unsigned long sz = getauxval(AT_PAGESZ);
	return sz ? (int)sz : 4096;
}

/* CPUs this thread may run on (sched_getaffinity's mask), at least 1. */
static long online_cpus(void)
{
	unsigned long mask[16] = { 0 };
	long n = raw_syscall3(SYS_sched_getaffinity, 0, sizeof(mask), mask), cpus = 0;
	for (long i = 0; !raw_is_error(n) && i < n / (long)sizeof(mask[0]); i++)
		cpus += __builtin_popcountl(mask[i]);
	return cpus ? cpus : 1;
}

/* sysconf: the few limits portable programs ask for. */
long sysconf(int name)
{
	switch (name) {
	case _SC_PAGESIZE:          return getpagesize();
	case _SC_CLK_TCK:           return CLOCKS_PER_SEC;
	case _SC_NPROCESSORS_CONF:
	case _SC_NPROCESSORS_ONLN:  return online_cpus();
	default:                    errno = EINVAL; return -1;
	}
}

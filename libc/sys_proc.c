/* libc/sys_proc.c -- process system calls: exit, fork, exec, wait, kill,
 * ids, yield, uname, reboot. Wait statuses and signal numbers are
 * translated between Linux's numbering and newlib's (abi_map.c). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "linux_abi.h"
#include "raw_syscall.h"
#include "pthread_impl.h"

/* _exit: end the whole process (exit_group) without flushing stdio. */
void _exit(int status)
{
	for (;;)
		raw_syscall1(SYS_exit_group, status);
}

/* fork(2): 0 in the child, the child's pid in the parent. */
pid_t fork(void)
{
	/* malloc's lock is held across the fork, so the child (which has only
	 * this thread) never inherits it held by a thread it does not have */
	__pagoda_lock(&__pagoda_malloc_lock);
	long r = raw_syscall0(SYS_fork);
	if (r == 0)
		__pagoda_malloc_lock = 0;
	else
		__pagoda_unlock(&__pagoda_malloc_lock);
	return (pid_t)sys_result(r);
}

/* vfork(2) is libc/vfork.asm; its error path: set errno from the raw
 * result r (-errno) and return -1. */
long __vfork_result(long r);
long __vfork_result(long r)
{
	return sys_result(r);
}

/* execve(2): replace this program; returns only on failure. */
int execve(const char *path, char *const argv[], char *const envp[])
{
	return (int)sys_result(raw_syscall3(SYS_execve, path, argv, envp));
}

/* wait4: Linux's general wait; status (if given) in newlib's numbering.
 * Resource usage is not reported: ru must be NULL (else EINVAL). */
pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int lstatus = 0;
	long r;

	if (ru != NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sys_result(raw_syscall4(SYS_wait4, pid, status ? &lstatus : NULL, options, NULL));
	if (r > 0 && status)
		*status = wait_status_from_linux(lstatus);
	return (pid_t)r;
}

/* waitpid: wait4 without resource usage. */
pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

/* wait: wait for any child. */
pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

/* kill(2): send sig (newlib's number, translated) to pid. */
int kill(pid_t pid, int sig)
{
	int lsig = signal_to_linux(sig);

	if (lsig < 0) {
		errno = EINVAL;
		return -1;
	}
	return (int)sys_result(raw_syscall2(SYS_kill, pid, lsig));
}

/* getpid(2): this process's id (cannot fail). */
pid_t getpid(void)
{
	return (pid_t)raw_syscall0(SYS_getpid);
}

/* getppid(2): the parent's id (cannot fail). */
pid_t getppid(void)
{
	return (pid_t)raw_syscall0(SYS_getppid);
}

/* getuid(2) and the three below: Pagoda runs everything as root (0). */
uid_t getuid(void)
{
	return (uid_t)raw_syscall0(SYS_getuid);
}

uid_t geteuid(void)
{
	return (uid_t)raw_syscall0(SYS_geteuid);
}

gid_t getgid(void)
{
	return (gid_t)raw_syscall0(SYS_getgid);
}

gid_t getegid(void)
{
	return (gid_t)raw_syscall0(SYS_getegid);
}

/* sched_yield(2): let other runnable processes run first. */
int sched_yield(void)
{
	return (int)sys_result(raw_syscall0(SYS_sched_yield));
}

/* uname(2): system name, release, machine into *u. */
int uname(struct utsname *u)
{
	return (int)sys_result(raw_syscall1(SYS_uname, u));
}

/* reboot: see <sys/reboot.h>. */
int reboot(int cmd)
{
	return (int)sys_result(raw_syscall4(SYS_reboot, LINUX_REBOOT_MAGIC1,
					    LINUX_REBOOT_MAGIC2, cmd, NULL));
}

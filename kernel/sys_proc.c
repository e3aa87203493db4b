/* kernel/sys_proc.c -- process system calls: fork, execve, exit, wait4,
 * getpid and friends. */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/exec.h"
#include "kernel/file.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/kmalloc.h"
#include "mm/uaccess.h"

static long sys_fork(const uint64_t a[6])
{
	(void)a;
	return proc_fork();
}

/* vfork(2): a fork whose parent sleeps until the child execs or exits. */
static long sys_vfork(const uint64_t a[6])
{
	(void)a;
	struct fork_req req = { .flags = FORK_VFORK };
	return proc_fork_req(&req);
}

/* clone(2) flags (Linux's values). */
#define CSIGNAL 0x000000ffUL
#define CLONE_VM 0x00000100UL
#define CLONE_VFORK 0x00004000UL
#define CLONE_PARENT_SETTID 0x00100000UL
#define CLONE_CHILD_CLEARTID 0x00200000UL
#define CLONE_CHILD_SETTID 0x01000000UL
#define CLONE_FORKLIKE (CSIGNAL | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)

/* clone(flags, stack, parent_tid, child_tid, tls) in its fork-like forms:
 * glibc's fork (SIGCHLD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID) and
 * vfork-like spawns (CLONE_VFORK, with or without CLONE_VM: the parent
 * sleeps until the child execs or exits, as on Linux; the child runs on a
 * copy of memory, correct for a child that only execs or exits; one
 * difference: with CLONE_VM its writes do not reach the parent). The exit signal must be
 * SIGCHLD or none. Threads (CLONE_VM without CLONE_VFORK, CLONE_THREAD,
 * CLONE_SETTLS, ...) are not there yet: ENOSYS. */
static long sys_clone(const uint64_t a[6])
{
	uint64_t flags = a[0], sig = flags & CSIGNAL;
	if (flags & ~(CLONE_FORKLIKE | CLONE_VM | CLONE_VFORK))
		return -ENOSYS;
	if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
		return -ENOSYS;                       /* a thread */
	if (sig != 0 && sig != SIGCHLD)
		return sig > NSIG ? -EINVAL : -ENOSYS;
	struct fork_req req = {
		.stack = a[1],
		.parent_tid = flags & CLONE_PARENT_SETTID ? a[2] : 0,
		.child_tid = flags & CLONE_CHILD_SETTID ? a[3] : 0,
		.clear_tid = flags & CLONE_CHILD_CLEARTID ? a[3] : 0,
		.flags = flags & CLONE_VFORK ? FORK_VFORK : 0,
	};
	return proc_fork_req(&req);
}

static long sys_exit(const uint64_t a[6])
{
	proc_exit(W_EXITCODE((int)a[0]));
}

/* Copy a user string vector into buf (strings) and vec (pointers into it). */
static long copy_strings(vaddr_t uvec, const char **vec, int maxn, char *buf,
			 uint64_t *used)
{
	int n = 0;
	if (!uvec) {
		vec[0] = NULL;
		return 0;
	}
	for (;; n++) {
		uint64_t ptr;
		if (copyin(&ptr, uvec + n * sizeof(uint64_t), sizeof(ptr)) < 0)
			return -EFAULT;
		if (!ptr)
			break;
		if (n == maxn)
			return -E2BIG;
		long len = copyinstr(buf + *used, ptr, ARG_MAX - *used);
		if (len < 0)
			return len == -ENAMETOOLONG ? -E2BIG : len;
		vec[n] = buf + *used;
		*used += (uint64_t)len + 1;
	}
	vec[n] = NULL;
	return n;
}

static long sys_execve(const uint64_t a[6])
{
	char path[256];
	long r = copyinstr(path, a[0], sizeof(path));
	if (r < 0)
		return r;
	char *buf = kmalloc(ARG_MAX);
	const char **argv = kmalloc(2 * (MAX_ARGS + 1) * sizeof(char *));
	if (!buf || !argv) {
		kfree(buf);
		kfree(argv);
		return -ENOMEM;
	}
	const char **envp = argv + MAX_ARGS + 1;
	uint64_t used = 0;
	r = copy_strings(a[1], argv, MAX_ARGS, buf, &used);
	if (r >= 0)
		r = copy_strings(a[2], envp, MAX_ARGS, buf, &used);
	if (r >= 0)
		r = exec_load(current_proc(), path, argv, envp);
	if (r >= 0) {
		fd_close_on_exec(current_proc());
		proc_vfork_release(current_proc());
	}
	kfree(buf);
	kfree(argv);
	return r;
}

static long sys_wait4(const uint64_t a[6])
{
	int status = 0;
	int pid = proc_wait((int)a[0], &status, (int)a[2]);
	if (pid > 0 && a[1] && copyout(a[1], &status, sizeof(status)) < 0)
		return -EFAULT;
	return pid;
}

static long sys_getpid(const uint64_t a[6])
{
	(void)a;
	return current_proc()->pid;
}

static long sys_getppid(const uint64_t a[6])
{
	(void)a;
	struct proc *parent = current_proc()->parent;
	return parent ? parent->pid : 0;
}

static long sys_sched_yield(const uint64_t a[6])
{
	(void)a;
	sched_yield();
	return 0;
}

const struct syscall_entry sys_proc_table[] = {
	{ SYS_fork, "fork", sys_fork },
	{ SYS_vfork, "vfork", sys_vfork },
	{ SYS_clone, "clone", sys_clone },
	{ SYS_execve, "execve", sys_execve },
	{ SYS_exit, "exit", sys_exit },
	{ SYS_exit_group, "exit_group", sys_exit },
	{ SYS_wait4, "wait4", sys_wait4 },
	{ SYS_getpid, "getpid", sys_getpid },
	{ SYS_gettid, "gettid", sys_getpid },
	{ SYS_getppid, "getppid", sys_getppid },
	{ SYS_sched_yield, "sched_yield", sys_sched_yield },
	{ 0, NULL, NULL },
};

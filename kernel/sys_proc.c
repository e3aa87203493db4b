/* kernel/sys_proc.c -- process system calls: fork, execve, exit, wait4,
 * getpid and friends. */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/exec.h"
#include "kernel/file.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"

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

/* What clone(2) can do: Linux's flags, less namespaces, ptrace, pidfds and
 * CLONE_PARENT. CLONE_SYSVSEM (no System V semaphores here), CLONE_DETACHED
 * and CLONE_UNTRACED change nothing, as on Linux today. */
#define CLONE_UNTRACED 0x00800000UL
#define CLONE_KNOWN (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
		     CLONE_VFORK | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS | \
		     CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED | \
		     CLONE_UNTRACED | CLONE_CHILD_SETTID)

/* Linux's rules between the flags: -EINVAL, or 0. */
static long clone_check(uint64_t flags)
{
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	return 0;
}

/* clone(flags, stack, parent_tid, child_tid, tls) with Linux's semantics
 * (kernel/thread.h: what each flag shares). The exit signal of a new
 * process must be SIGCHLD or none (a thread has none). A CLONE_VFORK
 * parent sleeps until the child execs or exits. */
static long sys_clone(const uint64_t a[6])
{
	uint64_t flags = a[0], sig = flags & CSIGNAL;
	if (flags & ~CLONE_KNOWN)
		return -ENOSYS;
	long r = clone_check(flags);
	if (r < 0)
		return r;
	if (sig > NSIG)
		return -EINVAL;
	if (sig != 0 && sig != SIGCHLD && !(flags & CLONE_THREAD))
		return -ENOSYS;
	if ((flags & CLONE_SETTLS) && a[4] >= USER_TOP)
		return -EPERM;   /* arch_prctl's rule for an FS base */
	struct fork_req req = {
		.stack = a[1],
		.parent_tid = flags & CLONE_PARENT_SETTID ? a[2] : 0,
		.child_tid = flags & CLONE_CHILD_SETTID ? a[3] : 0,
		.clear_tid = flags & CLONE_CHILD_CLEARTID ? a[3] : 0,
		.flags = flags & CLONE_VFORK ? FORK_VFORK : 0,
		.clone_flags = flags,
		.tls = a[4],
	};
	return proc_fork_req(&req);
}

/* exit(2): this thread only. */
static long sys_exit(const uint64_t a[6])
{
	proc_exit(W_EXITCODE((int)a[0]));
}

/* exit_group(2): every thread of the process. */
static long sys_exit_group(const uint64_t a[6])
{
	thread_exit_group(W_EXITCODE((int)a[0]));
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
	return current_proc()->tgid;
}

static long sys_gettid(const uint64_t a[6])
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
	{ SYS_exit_group, "exit_group", sys_exit_group },
	{ SYS_wait4, "wait4", sys_wait4 },
	{ SYS_getpid, "getpid", sys_getpid },
	{ SYS_gettid, "gettid", sys_gettid },
	{ SYS_getppid, "getppid", sys_getppid },
	{ SYS_sched_yield, "sched_yield", sys_sched_yield },
	{ 0, NULL, NULL },
};

/* kernel/sys_signal.c -- signal system calls: kill, tkill, tgkill,
 * rt_sigaction, rt_sigprocmask, rt_sigpending, rt_sigreturn, pause.
 * kill names a process (any of its threads takes the signal); tkill and
 * tgkill name one thread. */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/proc.h"
#include "kernel/signal.h"
#include "mm/uaccess.h"

static bool valid_signal(uint64_t sig)
{
	return sig >= 1 && sig <= NSIG;
}

static long sys_kill(const uint64_t a[6])
{
	if (a[1] != 0 && !valid_signal(a[1]))
		return -EINVAL;
	return proc_kill((int)a[0], (int)a[1]);
}

/* Send sig to thread tid, of process tgid if tgid > 0: 0 or -ESRCH. */
static long thread_kill(int tgid, int tid, uint64_t sig)
{
	if (tid <= 0 || (sig != 0 && !valid_signal(sig)))
		return -EINVAL;
	spin_lock(&proc_lock);
	struct proc *t = thread_find(tgid, tid);
	if (t && sig)
		signal_send_thread_locked(t, (int)sig, current_proc()->tgid);
	spin_unlock(&proc_lock);
	return t ? 0 : -ESRCH;
}

static long sys_tkill(const uint64_t a[6])
{
	return thread_kill(0, (int)a[0], a[1]);
}

static long sys_tgkill(const uint64_t a[6])
{
	if ((int)a[0] <= 0)
		return -EINVAL;
	return thread_kill((int)a[0], (int)a[1], a[2]);
}

/* rt_sigaction(sig, act, oldact, sigsetsize) */
static long sys_rt_sigaction(const uint64_t a[6])
{
	struct proc *p = current_proc();
	struct k_sigaction act, old;
	if (!valid_signal(a[0]) || a[3] != SIGSET_SIZE)
		return -EINVAL;
	if (a[1] && (a[0] == SIGKILL || a[0] == SIGSTOP))
		return -EINVAL;
	if (a[1] && copyin(&act, a[1], sizeof(act)) < 0)
		return -EFAULT;
	old = p->sighand->action[a[0] - 1];
	if (a[2] && copyout(a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	if (a[1])
		signal_set_action(p, (int)a[0], &act);
	return 0;
}

/* rt_sigprocmask(how, set, oldset, sigsetsize) */
static long sys_rt_sigprocmask(const uint64_t a[6])
{
	struct proc *p = current_proc();
	uint64_t set, old = p->sig.blocked;
	if (a[3] != SIGSET_SIZE)
		return -EINVAL;
	if (a[1]) {
		if (a[0] > SIG_SETMASK)
			return -EINVAL;
		if (copyin(&set, a[1], sizeof(set)) < 0)
			return -EFAULT;
		uint64_t blocked = a[0] == SIG_BLOCK ? old | set
				 : a[0] == SIG_UNBLOCK ? old & ~set : set;
		p->sig.blocked = blocked & ~SIG_UNBLOCKABLE;
	}
	if (a[2] && copyout(a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

/* rt_sigpending(set, sigsetsize): blocked signals waiting. */
static long sys_rt_sigpending(const uint64_t a[6])
{
	struct proc *p = current_proc();
	uint64_t set = (p->sig.pending | p->tg->pending) & p->sig.blocked;
	if (a[1] != SIGSET_SIZE)
		return -EINVAL;
	return copyout(a[0], &set, sizeof(set)) < 0 ? -EFAULT : 0;
}

/* rt_sigreturn: back from a handler to the interrupted code. A bad frame
 * kills the process. The result is the restored rax. */
static long sys_rt_sigreturn(const uint64_t a[6])
{
	(void)a;
	struct proc *p = current_proc();
	uint64_t blocked;
	if (signal_frame_pop(p->tf, &blocked) < 0)
		proc_die(SIGSEGV, "bad signal frame in rt_sigreturn", p->tf->rsp, p->tf->rip);
	p->sig.blocked = blocked & ~SIG_UNBLOCKABLE;
	return (long)p->tf->rax;
}

/* pause: sleep until a signal arrives; always -EINTR. */
static long sys_pause(const uint64_t a[6])
{
	(void)a;
	struct proc *p = current_proc();
	spin_lock(&proc_lock);
	while (!signal_interrupted(p))
		sleep_on(&p->sig, &proc_lock);
	spin_unlock(&proc_lock);
	return -EINTR;
}

/* rt_sigsuspend(mask, sigsetsize) */
static long sys_rt_sigsuspend(const uint64_t a[6])
{
	uint64_t mask;
	if (a[1] != SIGSET_SIZE)
		return -EINVAL;
	if (copyin(&mask, a[0], sizeof(mask)) < 0)
		return -EFAULT;
	return signal_suspend(mask);
}

const struct syscall_entry sys_signal_table[] = {
	{ SYS_rt_sigsuspend, "rt_sigsuspend", sys_rt_sigsuspend },
	{ SYS_kill, "kill", sys_kill },
	{ SYS_tkill, "tkill", sys_tkill },
	{ SYS_tgkill, "tgkill", sys_tgkill },
	{ SYS_rt_sigaction, "rt_sigaction", sys_rt_sigaction },
	{ SYS_rt_sigprocmask, "rt_sigprocmask", sys_rt_sigprocmask },
	{ SYS_rt_sigpending, "rt_sigpending", sys_rt_sigpending },
	{ SYS_rt_sigreturn, "rt_sigreturn", sys_rt_sigreturn },
	{ SYS_pause, "pause", sys_pause },
	{ 0, NULL, NULL },
};

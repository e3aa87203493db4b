/* kernel/signal.c -- sending, blocking and delivering signals. */
#include "kernel/signal.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/memlayout.h"
#include "mm/uaccess.h"

enum sig_default { DFL_TERM, DFL_IGNORE };

/* What SIG_DFL does for sig. Stop signals do nothing: no job control. */
static enum sig_default default_action(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return DFL_IGNORE;
	default:
		return DFL_TERM;
	}
}

static const struct k_sigaction *action_of(const struct proc *p, int sig)
{
	return &p->sighand->action[sig - 1];
}

/* Is sig thrown away on arrival (SIG_IGN, or SIG_DFL that ignores)? */
static bool discarded(const struct proc *p, int sig)
{
	uint64_t h = action_of(p, sig)->handler;
	return h == SIG_IGN || (h == SIG_DFL && default_action(sig) == DFL_IGNORE);
}

/* Linux's SIGNAL_UNKILLABLE: init gets only the signals it handles; one
 * whose action is the default (SIGKILL and SIGSTOP always are) is dropped,
 * whoever sends it. (A fault in init kills it through proc_die, not here.) */
static bool init_drops(const struct proc *p, int sig)
{
	return proc_is_init(p) && action_of(p, sig)->handler == SIG_DFL;
}

/* Wake q if it sleeps in a call that sig now interrupts. */
static void wake_interrupted(struct proc *q)
{
	if (q->state == P_SLEEPING && signal_interrupted(q))
		sched_make_runnable_locked(q);
	else
		sched_notify_locked(q);   /* running elsewhere: look now */
}

/* Is q a live thread of p's group? */
static bool same_group_live(const struct proc *q, const struct proc *p)
{
	return q->tg == p->tg && q->state != P_UNUSED && q->state != P_EMBRYO &&
	       q->state != P_ZOMBIE;
}

/* Does every live thread of p's group block sig? */
static bool blocked_by_all(const struct proc *p, int sig)
{
	for (int i = 0; i < NPROC; i++)
		if (same_group_live(&proc_table[i], p) && !(proc_table[i].sig.blocked & SIGBIT(sig)))
			return false;
	return true;
}

/* Does sig, sent to p (to_group: to its process), end the process now?
 * SIGKILL always; a default-terminating signal unless its target blocks
 * it (for a process: every thread does). */
static bool kills_now(const struct proc *p, int sig, bool to_group)
{
	if (sig == SIGKILL)
		return true;
	if (action_of(p, sig)->handler != SIG_DFL || default_action(sig) != DFL_TERM)
		return false;
	return to_group ? !blocked_by_all(p, sig) : !(p->sig.blocked & SIGBIT(sig));
}

/* A thread of p's process that still has its dispositions (p first; an
 * exiting thread lets go of them before it is a zombie), or NULL. */
static struct proc *thread_with_actions(struct proc *p)
{
	if (p->sighand)
		return p;
	for (int i = 0; i < NPROC; i++)
		if (same_group_live(&proc_table[i], p) && proc_table[i].sighand)
			return &proc_table[i];
	return NULL;
}

/* Sending sig from `from` to thread p, or to p's whole process. A thread
 * that is exiting gets nothing; a process gets it while one thread lives. */
static void send(struct proc *p, int sig, int from, bool to_group)
{
	p = to_group ? thread_with_actions(p) : p->sighand ? p : NULL;
	if (!p)
		return;
	if (init_drops(p, sig))
		return;
	if (kills_now(p, sig, to_group)) {
		if (!p->kill_signal)
			p->kill_signal = sig;
		thread_group_kill_locked(p, W_TERMSIG(sig), NULL);
		return;
	}
	if (discarded(p, sig))
		return;
	if (!to_group) {
		p->sig.pending |= SIGBIT(sig);
		p->sig.sender[sig - 1] = from;
		wake_interrupted(p);
		return;
	}
	p->tg->pending |= SIGBIT(sig);
	p->tg->sender[sig - 1] = from;
	for (int i = 0; i < NPROC; i++)
		if (same_group_live(&proc_table[i], p))
			wake_interrupted(&proc_table[i]);
}

void signal_send_locked(struct proc *p, int sig, int from)
{
	send(p, sig, from, true);
}

void signal_send_thread_locked(struct proc *p, int sig, int from)
{
	send(p, sig, from, false);
}

void signal_set_action(struct proc *p, int sig, const struct k_sigaction *act)
{
	spin_lock(&proc_lock);
	p->sighand->action[sig - 1] = *act;
	p->sighand->action[sig - 1].mask &= ~SIG_UNBLOCKABLE;
	if (discarded(p, sig)) {   /* POSIX: a pending signal now ignored goes */
		p->tg->pending &= ~SIGBIT(sig);
		for (int i = 0; i < NPROC; i++)
			if (proc_table[i].sighand == p->sighand)
				proc_table[i].sig.pending &= ~SIGBIT(sig);
	}
	spin_unlock(&proc_lock);
}

void signal_self(int sig)
{
	struct proc *p = current_proc();
	spin_lock(&proc_lock);
	signal_send_thread_locked(p, sig, p->tgid);
	spin_unlock(&proc_lock);
}

/* Signals waiting for p: its own and its process's. */
static uint64_t pending_of(const struct proc *p)
{
	return p->sig.pending | (p->tg ? p->tg->pending : 0);
}

bool signal_interrupted(const struct proc *p)
{
	return p->killed || (pending_of(p) & ~p->sig.blocked);
}

/* Push the frame for handler(info) with the saved mask blocked onto tf's
 * user stack and enter it: 0, or -EFAULT (the stack cannot hold it). arch
 * builds the frame; the copy goes through mm's uaccess (the fault path). */
static int frame_push(struct trapframe *tf, uint64_t handler, uint64_t restorer,
		      const struct ksiginfo *info, uint64_t blocked)
{
	struct sigframe_image img;
	sigframe_build(&img, tf, restorer, info, blocked);
	if (!is_user_addr(img.at) || copyout(img.fpu_at, &img.fpu, sizeof(img.fpu)) < 0 ||
	    copyout(img.at, &img.frame, sizeof(img.frame)) < 0)
		return -EFAULT;
	sigframe_enter(tf, &img, handler);
	return 0;
}

int signal_frame_pop(struct trapframe *tf, uint64_t *blocked)
{
	struct sigframe_image img;
	img.at = sigframe_return_addr(tf);
	if (copyin(&img.frame, img.at, sizeof(img.frame)) < 0)
		return -EFAULT;
	img.fpu_at = img.frame.uc.mc.fpstate;
	if (img.fpu_at && copyin(&img.fpu, img.fpu_at, sizeof(img.fpu)) < 0)
		return -EFAULT;
	return sigframe_load(tf, &img, blocked);
}

/* Enter the handler of sig with info; the mask grows by the action's mask
 * (and sig itself unless SA_NODEFER). Dies if no frame fits on the stack. */
static void enter_handler(struct trapframe *tf, int sig, const struct ksiginfo *info)
{
	struct proc *p = current_proc();
	struct k_sigaction *a = &p->sighand->action[sig - 1];
	if (!(a->flags & SA_RESTORER))
		proc_die(SIGSEGV, "signal handler without SA_RESTORER", a->handler, tf->rip);
	uint64_t old = p->sig.suspended ? p->sig.suspend_saved : p->sig.blocked;
	p->sig.suspended = false;
	if (frame_push(tf, a->handler, a->restorer, info, old) < 0)
		proc_die(SIGSEGV, "no room for a signal frame on the stack", tf->rsp, tf->rip);
	p->sig.blocked |= a->mask | (a->flags & SA_NODEFER ? 0 : SIGBIT(sig));
	p->sig.blocked &= ~SIG_UNBLOCKABLE;
	if (a->flags & SA_RESETHAND)
		a->handler = SIG_DFL;
}

/* After rt_sigsuspend, when no handler took the saved mask: restore it. */
static void end_suspend(struct proc *p)
{
	if (p->sig.suspended) {
		p->sig.blocked = p->sig.suspend_saved;
		p->sig.suspended = false;
	}
}

long signal_suspend(uint64_t mask)
{
	struct proc *p = current_proc();
	spin_lock(&proc_lock);
	p->sig.suspend_saved = p->sig.blocked;
	p->sig.suspended = true;
	p->sig.blocked = mask & ~SIG_UNBLOCKABLE;
	while (!signal_interrupted(p))
		sleep_on(&p->sig, &proc_lock);
	spin_unlock(&proc_lock);
	return -EINTR;
}

/* Take sig off p's pending set, its own first, else its process's
 * (proc_lock held); the sender's pid. */
static int take_pending(struct proc *p, int sig)
{
	if (p->sig.pending & SIGBIT(sig)) {
		p->sig.pending &= ~SIGBIT(sig);
		return p->sig.sender[sig - 1];
	}
	p->tg->pending &= ~SIGBIT(sig);
	return p->tg->sender[sig - 1];
}

/* Deliver the lowest deliverable pending signal, if any. */
static void deliver_one(struct trapframe *tf, struct proc *p)
{
	if (!(pending_of(p) & ~p->sig.blocked))
		return;   /* the common case, on every return to user mode: no lock */
	spin_lock(&proc_lock);
	uint64_t ready = pending_of(p) & ~p->sig.blocked;
	if (!ready) {
		spin_unlock(&proc_lock);
		return;
	}
	int sig = __builtin_ctzll(ready) + 1;
	int from = take_pending(p, sig);
	struct ksiginfo info = { .signo = sig, .code = from ? SI_USER : SI_KERNEL, .pid = from };
	uint64_t h = action_of(p, sig)->handler;
	bool drop = discarded(p, sig);   /* sigaction changed it since it was sent */
	spin_unlock(&proc_lock);
	if (drop)
		return;
	if (h == SIG_DFL)
		thread_exit_group(W_TERMSIG(sig));   /* the whole process */
	enter_handler(tf, sig, &info);
}

void signal_deliver(struct trapframe *tf)
{
	struct proc *p = current_proc();
	deliver_one(tf, p);
	end_suspend(p);
}

void signal_fault(struct trapframe *tf, int sig, int code, const char *why, uint64_t addr)
{
	struct proc *p = current_proc();
	uint64_t h = action_of(p, sig)->handler;
	if (h == SIG_DFL || h == SIG_IGN || (p->sig.blocked & SIGBIT(sig)))
		proc_die(sig, why, addr, tf->rip);   /* like Linux: faults are not ignored */
	struct ksiginfo info = { .signo = sig, .code = code, .addr = addr };
	enter_handler(tf, sig, &info);
}

void signal_fork(struct sigstate *child, const struct sigstate *parent)
{
	child->blocked = parent->blocked;
	child->pending = 0;
}

void signal_exec(struct sighand *h)
{
	spin_lock(&proc_lock);
	for (int i = 0; i < NSIG; i++)
		if (h->action[i].handler != SIG_IGN)
			memset(&h->action[i], 0, sizeof(h->action[i]));
	spin_unlock(&proc_lock);
}

const char *signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
		[SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
		[SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
		[SIGSEGV] = "SIGSEGV", [SIGPIPE] = "SIGPIPE", [SIGTERM] = "SIGTERM",
	};
	if (sig > 0 && sig < (int)(sizeof(names) / sizeof(names[0])) && names[sig])
		return names[sig];
	return "signal";
}

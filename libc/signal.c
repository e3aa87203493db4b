/* libc/signal.c -- signals through the kernel: sigaction, signal, raise,
 * sigprocmask, sigpending, pause (replacing newlib's user-space emulation).
 *
 * newlib numbers signals and sigsets its own way, Linux another; the kernel
 * calls one dispatcher with Linux's number, which calls the program's
 * handler with newlib's. newlib's struct sigaction (bare targets) has only
 * sa_handler, sa_mask and sa_flags: no SA_SIGINFO here (musl programs get
 * the kernel's siginfo and ucontext).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "linux_abi.h"
#include "raw_syscall.h"

#define LINUX_NSIG 64
#define LINUX_SA_RESTORER 0x04000000UL
#define LINUX_SIGBIT(sig) (1UL << ((sig) - 1))
#define NEWLIB_NSIG 32

struct linux_sigaction {
	uint64_t handler, flags, restorer, mask;
};

/* The program's actions, by Linux signal number. */
static struct sigaction actions[LINUX_NSIG + 1];

void __restore_rt(void);
__asm__(".text\n"
	".globl __restore_rt\n"
	"__restore_rt:\n"           /* a handler returns here: rt_sigreturn */
	"\tmov $15, %eax\n"
	"\tsyscall\n"
	"\thlt\n");

/* Linux's signal set for a newlib one, and back. */
static uint64_t set_to_linux(const sigset_t *set)
{
	uint64_t m = 0;
	for (int sig = 1; sig < NEWLIB_NSIG; sig++) {
		int l = signal_to_linux(sig);
		if (sigismember(set, sig) && l > 0 && l <= LINUX_NSIG)
			m |= LINUX_SIGBIT(l);
	}
	return m;
}

static void set_from_linux(uint64_t m, sigset_t *set)
{
	sigemptyset(set);
	for (int sig = 1; sig < NEWLIB_NSIG; sig++) {
		int l = signal_to_linux(sig);
		if (l > 0 && l <= LINUX_NSIG && (m & LINUX_SIGBIT(l)))
			sigaddset(set, sig);
	}
}

/* What the kernel calls for every caught signal. */
static void dispatch(int lsig)
{
	actions[lsig].sa_handler(signal_from_linux(lsig));
}

/* sigaction(2) in newlib's numbering. */
int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int lsig = signal_to_linux(sig);
	struct linux_sigaction k, *kp = NULL;
	struct sigaction saved;

	if (lsig <= 0 || lsig > LINUX_NSIG) {
		errno = EINVAL;
		return -1;
	}
	saved = actions[lsig];
	if (act) {
		memset(&k, 0, sizeof k);
		k.handler = (act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN)
			? (uint64_t)act->sa_handler : (uint64_t)dispatch;
		k.flags = LINUX_SA_RESTORER;
		k.restorer = (uint64_t)__restore_rt;
		k.mask = set_to_linux(&act->sa_mask);
		kp = &k;
		actions[lsig] = *act;
	}
	if (sys_result(raw_syscall4(SYS_rt_sigaction, lsig, kp, NULL, LINUX_SIGSET_SIZE)) < 0) {
		actions[lsig] = saved;
		return -1;
	}
	if (old)
		*old = saved;
	return 0;
}

/* signal(3): install handler; the previous one, or SIG_ERR. */
_sig_func_ptr signal(int sig, _sig_func_ptr handler)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	if (sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* raise(3): send sig to this process; a handler runs before it returns. */
int raise(int sig)
{
	return kill(getpid(), sig);
}

/* sigprocmask(2) in newlib's numbering of `how` and of the sets. */
int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	uint64_t lset, lold;
	int lhow = how == SIG_BLOCK ? LINUX_SIG_BLOCK : how == SIG_UNBLOCK ? LINUX_SIG_UNBLOCK
		 : how == SIG_SETMASK ? LINUX_SIG_SETMASK : -1;

	if (set && lhow < 0) {
		errno = EINVAL;
		return -1;
	}
	if (set)
		lset = set_to_linux(set);
	if (sys_result(raw_syscall4(SYS_rt_sigprocmask, lhow, set ? &lset : NULL, &lold,
				    LINUX_SIGSET_SIZE)) < 0)
		return -1;
	if (old)
		set_from_linux(lold, old);
	return 0;
}

/* sigpending(2): blocked signals that arrived. */
int sigpending(sigset_t *set)
{
	uint64_t l;
	if (sys_result(raw_syscall2(SYS_rt_sigpending, &l, LINUX_SIGSET_SIZE)) < 0)
		return -1;
	set_from_linux(l, set);
	return 0;
}

/* sigsuspend(2): wait for a signal with mask as the blocked set; the old
 * mask is back when it returns (always -1 with EINTR). */
int sigsuspend(const sigset_t *mask)
{
	uint64_t l = set_to_linux(mask);
	return (int)sys_result(raw_syscall2(SYS_rt_sigsuspend, &l, LINUX_SIGSET_SIZE));
}

/* pause(2): wait for a signal; always -1 with EINTR. */
int pause(void)
{
	return (int)sys_result(raw_syscall0(SYS_pause));
}

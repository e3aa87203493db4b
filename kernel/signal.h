/* kernel/signal.h -- POSIX signals, Linux x86-64 numbers and frame layout.
 *
 * A signal sent to a process (kill, ^C on the console, a fault) is either
 * dropped (ignored), marks the process killed (default action: terminate),
 * or is left pending until the process returns to user mode unblocked:
 * then signal_deliver pushes a frame (saved registers, FPU state, siginfo)
 * on the user stack and enters the handler, whose return goes through the
 * sa_restorer trampoline to rt_sigreturn, which reloads the saved state.
 *
 * Not supported: stopping and continuing (SIGSTOP/SIGTSTP/... do nothing by
 * default), sigaltstack, SA_RESTART (an interrupted call returns -EINTR),
 * queued real-time signals (a pending signal is one bit).
 */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include "lib/types.h"

#define NSIG 64
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGSEGV 11
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28

#define SIG_DFL 0UL
#define SIG_IGN 1UL

#define SA_SIGINFO 0x00000004UL
#define SA_RESTORER 0x04000000UL
#define SA_NODEFER 0x40000000UL
#define SA_RESETHAND 0x80000000UL

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SIGSET_SIZE 8                 /* rt_sig*'s sigsetsize argument */
#define SIGBIT(sig) (1UL << ((sig) - 1))
#define SIG_UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* rt_sigaction's struct (Linux's kernel layout, not libc's). */
struct k_sigaction {
	uint64_t handler;   /* SIG_DFL, SIG_IGN or a user address */
	uint64_t flags;     /* SA_* */
	uint64_t restorer;  /* user code that calls rt_sigreturn */
	uint64_t mask;      /* blocked while the handler runs */
};

/* Per-thread signal state (inside struct proc); the dispositions are the
 * thread's struct sighand, process-directed signals its thread group's
 * (kernel/thread.h). */
struct sigstate {
	uint64_t pending, blocked;
	int sender[NSIG];                  /* pid that sent a pending signal */
	uint64_t suspend_saved;            /* rt_sigsuspend: the mask to restore */
	bool suspended;                    /* ... once a signal was handled */
};

struct proc;
struct trapframe;

/* Send sig (1..NSIG) from pid `from` (0: the kernel) to the process of
 * thread p (proc_lock held): drop it, end the process (every thread), or
 * leave it pending for whichever thread does not block it, and wake the
 * threads it interrupts. */
void signal_send_locked(struct proc *p, int sig, int from);

/* The same for thread p alone (tgkill, SIGPIPE): pending on p only, though
 * a fatal one still ends the whole process, as on Linux. */
void signal_send_thread_locked(struct proc *p, int sig, int from);

/* rt_sigaction: install act for sig in p (SIGKILL/SIGSTOP never blocked by
 * its mask); a pending sig the new action ignores is dropped. */
void signal_set_action(struct proc *p, int sig, const struct k_sigaction *act);

/* Send sig to the calling process (SIGPIPE from a write). */
void signal_self(int sig);

/* Would a sleeping call of p return -EINTR now (killed, or an unblocked
 * signal pending)? */
bool signal_interrupted(const struct proc *p);

/* On return to user mode: act on one deliverable signal (die, or enter its
 * handler by rewriting tf). */
void signal_deliver(struct trapframe *tf);

/* A user-mode fault (trap frame tf) raised sig with siginfo code at addr:
 * enter the handler if the program has one and does not block sig;
 * otherwise die with the one-line report naming why. */
void signal_fault(struct trapframe *tf, int sig, int code, const char *why, uint64_t addr);

/* rt_sigreturn: reload tf, the FPU state and *blocked from the frame the
 * handler returned from (arch/x86_64/sigframe.h's layout, read from the user
 * stack). 0, or -EFAULT for an unreadable or invalid frame (nothing changed
 * but maybe the FPU state). */
int signal_frame_pop(struct trapframe *tf, uint64_t *blocked);

/* rt_sigsuspend: block exactly mask until a signal arrives; the old mask
 * comes back when the handler returns (or at once if none runs). -EINTR. */
long signal_suspend(uint64_t mask);

/* A new thread or process gets its creator's mask, nothing pending (the
 * dispositions are copied or shared by kernel/thread.c); exec resets
 * handlers to SIG_DFL and keeps ignored signals ignored. */
struct sighand;
void signal_fork(struct sigstate *child, const struct sigstate *parent);
void signal_exec(struct sighand *h);

/* A name for reports ("SIGSEGV"). */
const char *signal_name(int sig);

#endif

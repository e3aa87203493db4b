/* user/usertests/t_signal.c -- signals: handlers, masks, default actions,
 * fault handlers, register state across a handler, SIGPIPE. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdint.h>
#ifdef SA_SIGINFO
#include <ucontext.h>
#endif
#include <unistd.h>
#include "usertests.h"

static volatile sig_atomic_t caught, caught_sig;

static void count_handler(int sig)
{
	caught++;
	caught_sig = sig;
}

/* Install fn for sig with an empty mask and no flags. */
static void on_signal(int sig, void (*fn)(int))
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	a.sa_handler = fn;
	sigemptyset(&a.sa_mask);
	CHECK_OK(sigaction(sig, &a, NULL));
}

/* sig_handler: a handler runs once, with its signal's number, before the
 * kill() that sends it to ourselves returns; sigaction reports it back. */
void test_sig_handler(void)
{
	struct sigaction old;

	caught = 0;
	on_signal(SIGUSR1, count_handler);
	CHECK_OK(kill(getpid(), SIGUSR1));
	CHECK(caught == 1 && caught_sig == SIGUSR1);
	CHECK_OK(raise(SIGUSR1));
	CHECK(caught == 2);
	CHECK_OK(sigaction(SIGUSR1, NULL, &old));
	CHECK(old.sa_handler == count_handler);
	CHECK(signal(SIGUSR1, SIG_DFL) == count_handler);
}

static void die_by_usr1(void *arg)
{
	(void)arg;
	kill(getpid(), SIGUSR1);
	_exit(0);	/* not reached: SIGUSR1's default action terminates */
}

static void survive_ignored(void *arg)
{
	(void)arg;
	if (signal(SIGTERM, SIG_IGN) == SIG_ERR || kill(getpid(), SIGTERM) < 0)
		_exit(2);
	if (kill(getpid(), SIGCHLD) < 0)	/* SIGCHLD's default: ignore */
		_exit(3);
}

/* sig_default: default actions terminate (the wait status names the signal)
 * or ignore; SIG_IGN keeps a process alive; ignoring is inherited by fork. */
void test_sig_default(void)
{
	int st;
	pid_t pid;

	ut_expect_signal(SIGUSR1, die_by_usr1, NULL);
	st = ut_run(survive_ignored, NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(signal(SIGTERM, SIG_IGN) == SIG_DFL);
	pid = ut_fork();
	if (pid == 0) {
		kill(getpid(), SIGTERM);
		_exit(0);
	}
	st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(signal(SIGTERM, SIG_DFL) == SIG_IGN);
}

/* sig_mask: a blocked signal stays pending (sigpending shows it) and runs
 * its handler as soon as it is unblocked; SIGKILL cannot be caught. */
void test_sig_mask(void)
{
	sigset_t set, old, pend;

	caught = 0;
	on_signal(SIGUSR2, count_handler);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK_OK(sigprocmask(SIG_BLOCK, &set, &old));
	CHECK(!sigismember(&old, SIGUSR2));
	CHECK_OK(kill(getpid(), SIGUSR2));
	CHECK(caught == 0);
	CHECK_OK(sigpending(&pend));
	CHECK(sigismember(&pend, SIGUSR2));
	CHECK_OK(sigprocmask(SIG_SETMASK, &old, &set));
	CHECK(sigismember(&set, SIGUSR2));
	CHECK(caught == 1 && caught_sig == SIGUSR2);
	CHECK_OK(sigpending(&pend));
	CHECK(!sigismember(&pend, SIGUSR2));
	signal(SIGUSR2, SIG_DFL);
}

/* sig_errors: bad arguments get Linux's errnos. */
void test_sig_errors(void)
{
	struct sigaction a;
	sigset_t set;

	memset(&a, 0, sizeof a);
	a.sa_handler = count_handler;
	CHECK_ERR(sigaction(SIGKILL, &a, NULL), EINVAL);
	CHECK_ERR(sigaction(SIGSTOP, &a, NULL), EINVAL);
	CHECK_ERR(sigaction(0, &a, NULL), EINVAL);
	CHECK_ERR(kill(getpid(), 1000), EINVAL);
	CHECK_ERR(kill(999999, SIGUSR1), ESRCH);
	sigemptyset(&set);
	CHECK_ERR(sigprocmask(12345, &set, NULL), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, NULL, 4), EINVAL);
	CHECK_ERR(syscall(SYS_rt_sigprocmask, 0, (void *)16, NULL, 8), EFAULT);
}

static char *segv_page;

static void unprotect(int sig)
{
	(void)sig;
	caught++;
	mprotect(segv_page, 4096, PROT_READ | PROT_WRITE);
}

/* sig_segv_handler: a SIGSEGV handler that makes the page writable and
 * returns; the faulting store is restarted and succeeds. */
void test_sig_segv_handler(void)
{
	segv_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(segv_page != MAP_FAILED);
	caught = 0;
	on_signal(SIGSEGV, unprotect);
	*(volatile char *)segv_page = 42;
	CHECK(caught == 1 && segv_page[0] == 42);
	signal(SIGSEGV, SIG_DFL);
	CHECK_OK(munmap(segv_page, 4096));
}

#ifdef SA_SIGINFO
static volatile int seen_code;
static void *volatile seen_addr;

/* Record si_code and si_addr, then make the page segv_page accessible
 * (mapping it again if it was unmapped), so that the access restarts. */
static void record_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	caught++;
	seen_code = si->si_code;
	seen_addr = si->si_addr;
	if (mprotect(segv_page, 4096, PROT_READ | PROT_WRITE) != 0)
		mmap(segv_page, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/* One store into segv_page + 8 that must fault with si_code code. */
static void expect_segv_code(int code)
{
	caught = 0;
	seen_code = -1;
	*(volatile char *)(segv_page + 8) = 1;
	CHECK(caught == 1 && seen_code == code && seen_addr == segv_page + 8);
}

/* sig_segv_codes: si_code tells a missing mapping (SEGV_MAPERR) from one
 * that forbids the access (SEGV_ACCERR, even for a page never touched, so
 * not present: Linux decides by the VMA, not by the PTE), and si_addr is
 * the faulting address. */
void test_sig_segv_codes(void)
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	a.sa_sigaction = record_fault;
	a.sa_flags = SA_SIGINFO;
	sigemptyset(&a.sa_mask);
	CHECK_OK(sigaction(SIGSEGV, &a, NULL));
	segv_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(segv_page != MAP_FAILED);
	expect_segv_code(SEGV_ACCERR);   /* read-only, never touched */
	CHECK_OK(mprotect(segv_page, 4096, PROT_NONE));
	expect_segv_code(SEGV_ACCERR);   /* PROT_NONE */
	CHECK_OK(munmap(segv_page, 4096));
	expect_segv_code(SEGV_MAPERR);   /* nothing mapped there */
	signal(SIGSEGV, SIG_DFL);
	CHECK_OK(munmap(segv_page, 4096));
}
#endif

#ifdef SA_SIGINFO
static volatile int kernel_words;

/* Count the words of the frame's FXSAVE image past byte 416 (which FXSAVE
 * never writes) that look like kernel addresses (the upper half). */
static void inspect_fpu_tail(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	const uint64_t *w = (const uint64_t *)((const char *)uc->uc_mcontext.fpregs + 416);
	(void)sig, (void)si;
	for (int i = 0; i < 12; i++)
		kernel_words += w[i] >= 0xffff800000000000ull;
	caught++;
}

/* Zero 16 KiB of stack below the caller, where its next signal frame goes,
 * so that what the frame holds is what the kernel wrote. */
static __attribute__((noinline)) void zero_stack_below(void)
{
	volatile char pad[16384];
	memset((char *)pad, 0, sizeof pad);
	__asm__ volatile("" : : "r"(pad) : "memory");
}

/* sig_frame_fpu_tail: the FPU state in a signal frame discloses nothing
 * of the kernel: bytes 416-511 of the FXSAVE image are zero on Pagoda and
 * Linux's fpx_sw_bytes on Linux (before: the kernel stack's bytes there,
 * about 18 kernel addresses a frame). */
void test_sig_frame_fpu_tail(void)
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	a.sa_sigaction = inspect_fpu_tail;
	a.sa_flags = SA_SIGINFO;
	sigemptyset(&a.sa_mask);
	CHECK_OK(sigaction(SIGUSR1, &a, NULL));
	caught = 0;
	for (int i = 0; i < 8; i++) {
		zero_stack_below();
		CHECK_OK(kill(getpid(), SIGUSR1));
	}
	CHECK(caught == 8);
	if (kernel_words)
		ut_fail(__FILE__, __LINE__, "%d kernel addresses in 8 frames", kernel_words);
}
#endif

#define SIGNALS_SENT 40

static void fp_handler(int sig)
{
	volatile double x = 1.0;	/* clobber the FPU/SSE registers */
	for (int i = 0; i < 100; i++)
		x = x * 1.0001 + 0.5;
	(void)sig;
	caught++;
}

/* A long computation in integer and SSE registers that checks itself. */
static void compute_while_signalled(void *arg)
{
	(void)arg;
	for (long round = 0; caught < SIGNALS_SENT; round++) {
		double d = 0;
		long s = 0;
		for (long i = 1; i <= 20000; i++) {
			d += (double)i * 0.5;
			s += i ^ round;
		}
		long want = 0;
		for (long i = 1; i <= 20000; i++)
			want += i ^ round;
		if (d != 0.5 * 20000.0 * 20001.0 / 2.0 || s != want)
			_exit(5);
		if (round > 20000000)
			_exit(6);	/* the signals never came */
	}
}

/* Send SIGUSR1 to pid every 2 ms until it exits (at most `tries` times, then
 * SIGKILL); its wait status. */
static int signal_until_exit(pid_t pid, int tries)
{
	int st;

	for (int i = 0; i < tries; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		kill(pid, SIGUSR1);
		usleep(2000);
	}
	kill(pid, SIGKILL);
	return ut_wait(pid);
}

/* sig_regs_preserved: a child computing in integer and SSE registers takes
 * many signals whose handler clobbers them; every result stays right. */
void test_sig_regs_preserved(void)
{
	pid_t pid;
	int st;

	caught = 0;
	on_signal(SIGUSR1, fp_handler);	/* before fork: no early default kill */
	pid = ut_fork();
	if (pid == 0) {
		compute_while_signalled(NULL);
		_exit(0);
	}
	signal(SIGUSR1, SIG_DFL);
	st = signal_until_exit(pid, 2000);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "computing child ended with %s", ut_status_str(st));
}

/* sig_pause: pause() returns -1/EINTR once a caught signal arrives. */
void test_sig_pause(void)
{
	pid_t pid;
	int st;

	caught = 0;
	on_signal(SIGUSR1, count_handler);
	pid = ut_fork();
	if (pid == 0) {
		int r = pause();
		_exit(r == -1 && errno == EINTR && caught >= 1 ? 0 : 7);
	}
	signal(SIGUSR1, SIG_DFL);
	st = signal_until_exit(pid, 1000);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "pausing child ended with %s", ut_status_str(st));
}

static void bad_sigreturn(void *arg)
{
	static unsigned long frame[128];

	(void)arg;
	memset(frame, 0xff, sizeof frame);	/* rip, rsp, fpstate: all invalid */
	__asm__ volatile("mov %0, %%rsp\n\tmov %1, %%eax\n\tsyscall"
			 : : "r"(frame + 64), "i"(SYS_rt_sigreturn) : "memory");
	__builtin_unreachable();
}

/* sig_bad_sigreturn: rt_sigreturn without a handler frame kills only the
 * caller (SIGSEGV); the kernel goes on. */
void test_sig_bad_sigreturn(void)
{
	ut_expect_signal(SIGSEGV, bad_sigreturn, NULL);
}

static volatile int chld_seen;
static void on_chld(int sig)
{
	chld_seen += sig == SIGCHLD;
}

/* sig_chld_suspend: a child's exit sends its parent SIGCHLD; sigsuspend
 * with SIGCHLD unblocked sleeps until it, runs the handler, returns EINTR
 * and gives the old mask (SIGCHLD blocked) back: how shells wait (busybox
 * sh's `wait` hung without them). */
void test_sig_chld_suspend(void)
{
	struct sigaction sa;
	sigset_t block, empty, now;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	CHECK(sigaction(SIGCHLD, &sa, NULL) == 0);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigemptyset(&empty);
	CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
	pid_t pid = ut_fork();
	if (pid == 0)
		_exit(0);
	CHECK_ERR(sigsuspend(&empty), EINTR);
	CHECK(chld_seen == 1);
	CHECK(sigprocmask(SIG_BLOCK, NULL, &now) == 0 && sigismember(&now, SIGCHLD));
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st));
}

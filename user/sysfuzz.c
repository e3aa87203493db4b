/* user/sysfuzz.c -- a seeded system-call fuzzer.
 *
 *   sysfuzz [-s SEED] [-n CALLS] [-b PER_CHILD] [-T SECONDS] [-H] [-v]
 *
 * Makes CALLS (default 3000) random system calls with hostile arguments:
 * NULL, kernel, non-canonical and unmapped addresses, pointers into a
 * scratch buffer of random bytes and just before its unmapped end, huge and
 * negative lengths, bad descriptors and flags, bad signal numbers, and
 * unknown call numbers; weighted toward the calls Pagoda implements
 * (kernel/sys_*.c). The calls run PER_CHILD (default 40) at a time in forked
 * children, each watched by a hang guard (the parent kills a child that has
 * not finished after a few seconds). Afterwards it checks that the kernel
 * still forks, execs (/bin/true) and maps memory and, on Pagoda, that the
 * VM invariant checker (pagoda_vmcheck, after every child) is clean and the
 * free-frame count (pagoda_meminfo) is back where it started.
 *
 * A child may die only of what its calls explain: a signal it sent itself,
 * SIGSEGV/SIGBUS after it changed its own mappings, installed a handler at a
 * bad address or changed its FS base, anything after a forged rt_sigreturn,
 * SIGPIPE on a write, a hang guard's SIGKILL while a call that may block
 * (read, pause, ...) was in flight. Anything else, a kernel panic (the run
 * dies) or a failed check prints the seed and the step (call index) and
 * exits 1: `sysfuzz -s SEED -n STEP` replays it; -v prints every call.
 * The child writes each call into a page it shares with its parent before
 * making it, so the parent can name the call that killed or hung the child.
 *
 * Things that would kill the harness itself are never called: reboot gets a
 * wrong magic number, kill/tkill/tgkill only reach the child itself or pids
 * that do not exist (never -1, 0 or 1, never the parent), exit only ends the
 * child, fork's new process exits at once.
 *
 * -H (default on Linux) is the host mode: a strict allowlist of calls that
 * cannot touch anything outside the child: descriptors only of pipes it made
 * or bad numbers, paths only bad pointers or names under a directory that
 * does not exist, mapping calls only inside its scratch area or at kernel /
 * non-canonical addresses (an mmap without MAP_FIXED only inside: it takes
 * the address as a hint), safe madvise advice only, signals only to itself,
 * unknown numbers only from 1000 up (no real Linux call), no reboot, no
 * rt_sigreturn, no vfork, no execve of a real file.
 *
 * Ends with "sysfuzz: PASS seeds S..E calls N errors E children C
 * explained-deaths D hangs H" and a "TEST sysfuzz.seed_S PASS" line per seed.
 * Portable C: builds against newlib (Pagoda) and musl, runs on Linux too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "fuzz_rand.h"

#define PAGE 4096
#define SCRATCH_PAGES 16
#define SCRATCH_BASE 0x300000000000UL   /* the child's scratch area; a hole follows */
#define GUARD_SECONDS 10       /* a child that has not finished by then hangs */
#define BLOCKED_SECONDS 0.3     /* a child in a call that may block is ended sooner */

/* Linux x86-64 numbers of the calls the code below names. */
enum { NR_brk = 12, NR_execve = 59, NR_fcntl = 72, NR_ioctl = 16, NR_mmap = 9, NR_nanosleep = 35, NR_reboot = 169, NR_tgkill = 234, NR_wait4 = 61 };

/* Linux signal numbers (the calls are raw; newlib numbers signals its own
 * way, so the parent waits with the raw wait4 too). */
enum { LSIG_BUS = 7, LSIG_KILL = 9, LSIG_SEGV = 11, LSIG_PIPE = 13, LSIG_ALRM = 14,
       LSIG_VTALRM = 26, LSIG_PROF = 27 };

/* Argument kinds: what a call's argument means. */
enum akind { A_INT, A_FD, A_PTR, A_PATH, A_LEN, A_ADDR, A_PROT, A_MFLAGS, A_SIG, A_PID, A_ADV };

/* Call classes: what a call may explain about its child's fate. */
enum cls {
	C_BLOCKS = 1,    /* may block: a hang guard's SIGKILL is explained */
	C_MEM = 2,       /* changes mappings: later SIGSEGV/SIGBUS explained */
	C_SIG = 4,       /* sends a signal (arg 1 or 2) to the child itself */
	C_PIPE = 8,      /* writes: SIGPIPE explained */
	C_ANY = 16,      /* rt_sigreturn: any fate explained */
	C_HANDLER = 32,  /* may install a handler at a bad address */
	C_EXIT = 64,     /* ends the child */
	C_FORK = 128,    /* the new process must exit at once */
	C_HOST = 256,    /* allowed in host mode */
	C_PAGODA = 512,  /* Pagoda's own call: not on Linux */
	C_TIMER = 1024,  /* may arm a timer: SIGALRM/SIGVTALRM/SIGPROF explained */
};

struct call {
	long nr;
	const char *name;
	unsigned cls;
	uint8_t args[6];
	uint8_t nargs;
	uint8_t weight;
};

#define H C_HOST
static const struct call calls[] = {
	{ 0, "read", C_BLOCKS | H, { A_FD, A_PTR, A_LEN }, 3, 8 },
	{ 1, "write", C_BLOCKS | C_PIPE | H, { A_FD, A_PTR, A_LEN }, 3, 8 },
	{ 19, "readv", C_BLOCKS | H, { A_FD, A_PTR, A_INT }, 3, 4 },
	{ 20, "writev", C_BLOCKS | C_PIPE | H, { A_FD, A_PTR, A_INT }, 3, 4 },
	{ 2, "open", H, { A_PATH, A_INT, A_INT }, 3, 6 },
	{ 257, "openat", H, { A_FD, A_PATH, A_INT, A_INT }, 4, 4 },
	{ 3, "close", H, { A_FD }, 1, 5 },
	{ 4, "stat", H, { A_PATH, A_PTR }, 2, 4 },
	{ 6, "lstat", H, { A_PATH, A_PTR }, 2, 2 },
	{ 5, "fstat", H, { A_FD, A_PTR }, 2, 4 },
	{ 262, "newfstatat", H, { A_FD, A_PATH, A_PTR, A_INT }, 4, 3 },
	{ 21, "access", H, { A_PATH, A_INT }, 2, 3 },
	{ 8, "lseek", H, { A_FD, A_INT, A_INT }, 3, 3 },
	{ 16, "ioctl", H, { A_FD, A_INT, A_PTR }, 3, 5 },
	{ 22, "pipe", H, { A_PTR }, 1, 3 },
	{ 293, "pipe2", H, { A_PTR, A_INT }, 2, 3 },
	{ 32, "dup", H, { A_FD }, 1, 3 },
	{ 33, "dup2", H, { A_FD, A_FD }, 2, 3 },
	{ 292, "dup3", H, { A_FD, A_FD, A_INT }, 3, 3 },
	{ 72, "fcntl", H, { A_FD, A_INT, A_INT }, 3, 4 },
	{ 217, "getdents64", H, { A_FD, A_PTR, A_LEN }, 3, 4 },
	{ 79, "getcwd", H, { A_PTR, A_LEN }, 2, 3 },
	{ 80, "chdir", H, { A_PATH }, 1, 2 },
	{ 9, "mmap", C_MEM | H, { A_ADDR, A_LEN, A_PROT, A_MFLAGS, A_FD, A_INT }, 6, 10 },
	{ 11, "munmap", C_MEM | H, { A_ADDR, A_LEN }, 2, 6 },
	{ 10, "mprotect", C_MEM | H, { A_ADDR, A_LEN, A_PROT }, 3, 6 },
	{ 12, "brk", C_MEM | H, { A_ADDR }, 1, 4 },
	{ 28, "madvise", C_MEM | H, { A_ADDR, A_LEN, A_ADV }, 3, 6 },
	{ 57, "fork", C_FORK | H, { 0 }, 0, 2 },
	{ 58, "vfork", C_FORK, { 0 }, 0, 1 },
	{ 59, "execve", C_EXIT | H, { A_PATH, A_PTR, A_PTR }, 3, 3 },
	{ 60, "exit", C_EXIT | H, { A_INT }, 1, 1 },
	{ 231, "exit_group", C_EXIT | H, { A_INT }, 1, 1 },
	{ 61, "wait4", C_BLOCKS | H, { A_PID, A_PTR, A_INT, A_PTR }, 4, 4 },
	{ 39, "getpid", H, { 0 }, 0, 1 },
	{ 186, "gettid", H, { 0 }, 0, 1 },
	{ 110, "getppid", H, { 0 }, 0, 1 },
	{ 24, "sched_yield", H, { 0 }, 0, 1 },
	{ 62, "kill", C_SIG | H, { A_PID, A_SIG }, 2, 4 },
	{ 200, "tkill", C_SIG | H, { A_PID, A_SIG }, 2, 2 },
	{ 234, "tgkill", C_SIG | H, { A_PID, A_PID, A_SIG }, 3, 2 },
	{ 13, "rt_sigaction", C_HANDLER | H, { A_SIG, A_PTR, A_PTR, A_LEN }, 4, 6 },
	{ 14, "rt_sigprocmask", H, { A_INT, A_PTR, A_PTR, A_LEN }, 4, 5 },
	{ 127, "rt_sigpending", H, { A_PTR, A_LEN }, 2, 3 },
	{ 15, "rt_sigreturn", C_ANY, { 0 }, 0, 1 },
	{ 34, "pause", C_BLOCKS, { 0 }, 0, 1 },
	{ 63, "uname", H, { A_PTR }, 1, 2 },
	{ 228, "clock_gettime", H, { A_INT, A_PTR }, 2, 3 },
	{ 96, "gettimeofday", H, { A_PTR, A_PTR }, 2, 2 },
	{ 201, "time", H, { A_PTR }, 1, 2 },
	{ 100, "times", H, { A_PTR }, 1, 2 },
	{ 35, "nanosleep", C_BLOCKS | H, { A_PTR, A_PTR }, 2, 2 },
	{ 36, "getitimer", H, { A_INT, A_PTR }, 2, 2 },
	{ 37, "alarm", C_TIMER | H, { A_INT }, 1, 2 },
	{ 38, "setitimer", C_TIMER | H, { A_INT, A_PTR, A_PTR }, 3, 2 },
	{ 158, "arch_prctl", C_HANDLER, { A_INT, A_ADDR }, 2, 2 },
	{ 218, "set_tid_address", H, { A_PTR }, 1, 2 },
	{ 102, "getuid", H, { 0 }, 0, 1 },
	{ 107, "geteuid", H, { 0 }, 0, 1 },
	{ 104, "getgid", H, { 0 }, 0, 1 },
	{ 108, "getegid", H, { 0 }, 0, 1 },
	{ 169, "reboot", 0, { A_INT, A_INT, A_INT, A_PTR }, 4, 2 },
	{ SYS_pagoda_vmquery, "pagoda_vmquery", C_PAGODA, { A_ADDR, A_PTR }, 2, 5 },
	{ SYS_pagoda_meminfo, "pagoda_meminfo", C_PAGODA, { A_PTR }, 1, 3 },
	{ SYS_pagoda_procinfo, "pagoda_procinfo", C_PAGODA, { A_INT, A_PTR }, 2, 4 },
	{ SYS_pagoda_vmcheck, "pagoda_vmcheck", C_PAGODA, { 0 }, 0, 1 },
	{ SYS_pagoda_forkbench, "pagoda_forkbench", C_PAGODA, { A_PTR, A_PTR }, 2, 2 },
};
#undef H
#define NCALLS (sizeof calls / sizeof calls[0])
#define UNKNOWN_WEIGHT 12

/* What the child is doing, in a page shared with its parent. */
struct record {
	long step;          /* global call index */
	long nr;
	uint64_t arg[6];
	int in_flight;      /* the call was made and has not returned */
	long ret;           /* what it returned */
	unsigned sticky;    /* classes of the calls made so far (enum cls) */
	uint64_t sent;      /* signals it sent itself (bit sig) */
	long errors, done;  /* calls that returned an error / returned */
};

static struct {
	uint64_t seed, rng;
	long calls, per_child;
	int host, verbose;
	struct record *rec;
	unsigned char *scratch;
	int own_fds[4];      /* a pipe (both ends) and two more descriptors */
	const char *argv0;
} F;

static struct {
	unsigned long calls, errors, children, deaths, hangs;
} stats;

/* ---- random numbers (splitmix64) ---- */

static uint64_t rnd64(void)
{
	return fuzz_rand64(&F.rng);
}

static uint64_t rnd(uint64_t n)
{
	return rnd64() % n;
}

/* ---- reporting ---- */

static const char *call_name(long nr)
{
	for (size_t k = 0; k < NCALLS; k++)
		if (calls[k].nr == nr)
			return calls[k].name;
	return "unknown";
}

/* format_record: the call r describes, as text. */
static const char *format_record(const struct record *r)
{
	static char buf[200];
	int n = snprintf(buf, sizeof buf, "syscall %ld (%s)(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx)",
			 r->nr, call_name(r->nr), (unsigned long long)r->arg[0],
			 (unsigned long long)r->arg[1], (unsigned long long)r->arg[2],
			 (unsigned long long)r->arg[3], (unsigned long long)r->arg[4],
			 (unsigned long long)r->arg[5]);

	if (r->in_flight)
		snprintf(buf + n, sizeof buf - n, " in flight");
	else
		snprintf(buf + n, sizeof buf - n, " returned %ld", r->ret);
	return buf;
}

/* fail: the seed and step that replay the failure, the call, and exit 1. */
__attribute__((noreturn, format(printf, 2, 3)))
static void fail(long step, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("TEST sysfuzz.seed_%llu FAIL step %ld\n", (unsigned long long)F.seed, step);
	printf("sysfuzz: FAIL seed %llu step %ld: %s\n", (unsigned long long)F.seed, step, msg);
	if (F.rec && F.rec->step == step) {
		printf("sysfuzz: last call: %s\n", format_record(F.rec));
	}
	printf("sysfuzz: replay: sysfuzz -s %llu -n %ld -b %ld%s\n", (unsigned long long)F.seed,
	       step + 1, F.per_child, F.host ? " -H" : "");
	fflush(stdout);
	exit(1);
}

/* ---- arguments ---- */

static uint64_t hostile_addr(void)
{
	static const uint64_t bad[] = {
		0, 1, 0xfff, 0x1000, 0x400000,               /* null page, text */
		0xffff800000000000ULL, 0xffffffff80000000ULL,   /* direct map, kernel image */
		0xffffffffffffffffULL, 0xfffffffffffff000ULL,
		0x0000800000000000ULL, 0x8000000000000000ULL,   /* non-canonical */
		0x00007ffffffff000ULL, 0x00007fffffffffffULL,   /* the user top */
	};
	return bad[rnd(sizeof bad / sizeof bad[0])];
}

/* scratch_ptr: somewhere in the scratch buffer (random bytes), sometimes
 * right before its end, where the unmapped hole begins. */
static uint64_t scratch_ptr(void)
{
	uint64_t end = (uint64_t)F.scratch + SCRATCH_PAGES * PAGE;

	if (rnd(4) == 0)
		return end - rnd(64);
	return (uint64_t)F.scratch + rnd(SCRATCH_PAGES * PAGE) / 8 * 8;
}

static uint64_t any_ptr(void)
{
	return rnd(3) ? scratch_ptr() : hostile_addr();
}

static uint64_t gen_len(void)
{
	static const uint64_t big[] = {
		0, 1, 7, 4096, 4097, 65536, 0x7fffffff, 0x80000000ULL, 0xffffffffULL,
		1ULL << 47, 1ULL << 63, (uint64_t)-1, (uint64_t)-4096, (uint64_t)-2,
	};
	return rnd(3) ? rnd(2 * PAGE) : big[rnd(sizeof big / sizeof big[0])];
}

static uint64_t gen_int(void)
{
	static const uint64_t odd[] = {
		0, 1, 2, 3, (uint64_t)-1, 0x7fffffff, 0x80000000ULL, 0xffffffffULL,
		(uint64_t)-100 /* AT_FDCWD */, 0x8000000000000000ULL,
	};
	switch (rnd(4)) {
	case 0: return rnd(16);
	case 1: return odd[rnd(sizeof odd / sizeof odd[0])];
	case 2: return 1ULL << rnd(64);
	default: return rnd64();
	}
}

static uint64_t gen_fd(void)
{
	static const uint64_t bad[] = { (uint64_t)-1, 1000, 0x7fffffff, 0x80000000ULL,
					(uint64_t)-100, 63, 64, 1024 };

	if (rnd(3) == 0)
		return bad[rnd(sizeof bad / sizeof bad[0])];
	if (F.host || rnd(2))
		return (uint64_t)F.own_fds[rnd(4)];
	return rnd(12);
}

/* The path strings live at the start of the scratch buffer. */
static const char *const host_paths[] = { "/nonexistent-sysfuzz/a", "/nonexistent-sysfuzz/", "" };
static const char *const paths[] = { "/bin/true", "/bin", "/", "/dev/console", "/bin/sh/x",
				     "/nonexistent", "", "//bin///./true", ".", ".." };
#define PATH_SLOT 256
#define TRACE_FD 50     /* -v: where the child traces (no fuzzed call reaches it) */

static uint64_t gen_path(void)
{
	size_t n = F.host ? 3 : sizeof paths / sizeof paths[0];

	if (rnd(4) == 0)   /* random bytes as a name only off the host: O_CREAT could make it */
		return rnd(2) || F.host ? hostile_addr() : scratch_ptr();
	return (uint64_t)F.scratch + rnd(n) * PATH_SLOT;
}

static uint64_t gen_addr(void)
{
	uint64_t s = (uint64_t)F.scratch;

	switch (rnd(5)) {
	case 0: return hostile_addr();
	case 1: return s + rnd(SCRATCH_PAGES * PAGE);     /* unaligned, mostly */
	case 2: return s + SCRATCH_PAGES * PAGE;          /* the hole after it */
	default: return s + rnd(SCRATCH_PAGES) * PAGE;
	}
}

static uint64_t gen_mflags(void)
{
	uint64_t f = rnd(4) == 0 ? gen_int() : (rnd(2) ? MAP_PRIVATE : MAP_SHARED);

	if (rnd(2))
		f |= MAP_ANONYMOUS;
	if (rnd(3) == 0)
		f |= MAP_FIXED;
	if (rnd(6) == 0)
		f |= MAP_POPULATE;
	return f;
}

/* gen_sig: a signal number; never SIGALRM, SIGKILL or a stop signal as a
 * valid one (they would defeat the hang guard or stop the child). */
static uint64_t gen_sig(void)
{
	static const uint64_t ok[] = { 0, 10 /* USR1 */, 12 /* USR2 */, LSIG_SEGV, 15 /* TERM */,
				       2 /* INT */, LSIG_PIPE, 17 /* CHLD */, 1 /* HUP */, 65, 64,
				       (uint64_t)-1, 1000 };
	return ok[rnd(sizeof ok / sizeof ok[0])];
}

static uint64_t gen_pid(void)
{
	static const uint64_t nobody[] = { 0x7fffffff, 99999, (uint64_t)-99999, 0x80000000ULL,
					   (uint64_t)INT32_MIN };
	return rnd(2) ? (uint64_t)getpid() : nobody[rnd(sizeof nobody / sizeof nobody[0])];
}

static uint64_t gen_adv(void)
{
	static const uint64_t safe[] = { 0, 1, 2, 3, 4, 8, 9, 10, 999, (uint64_t)-1 };

	if (!F.host && rnd(3) == 0)
		return rnd(128);
	return safe[rnd(sizeof safe / sizeof safe[0])];
}

static uint64_t gen_arg(int kind)
{
	switch (kind) {
	case A_FD: return gen_fd();
	case A_PTR: return any_ptr();
	case A_PATH: return gen_path();
	case A_LEN: return gen_len();
	case A_ADDR: return gen_addr();
	case A_PROT: return rnd(4) ? rnd(8) : gen_int();
	case A_MFLAGS: return gen_mflags();
	case A_SIG: return gen_sig();
	case A_PID: return gen_pid();
	case A_ADV: return gen_adv();
	default: return gen_int();
	}
}

/* ---- the host allowlist and the harness guards ---- */

static int host_fd_ok(uint64_t fd)
{
	for (int k = 0; k < 4; k++)
		if (fd == (uint64_t)F.own_fds[k])
			return 1;
	return (int64_t)fd < 0 || fd >= 1000;
}

/* in_scratch: [a, a+len) inside the scratch area and its hole, or at an
 * address no user mapping can have, which the kernel refuses -- unless
 * `hint` (an mmap without MAP_FIXED): then the kernel takes the address as
 * a hint, ignores a bad one and maps len bytes elsewhere, so only a range
 * inside the scratch area is safe. */
static int in_scratch(uint64_t a, uint64_t len, int hint)
{
	uint64_t s = (uint64_t)F.scratch, e = s + 2 * SCRATCH_PAGES * PAGE;

	if (a >= 0x0000800000000000ULL && !hint)
		return 1;
	return a >= s && a < e && len <= e - a;
}

/* mmap_hint: is the mmap with arguments a one whose address is a hint? */
static int mmap_hint(const uint64_t *a)
{
	return !(a[3] & (uint64_t)(MAP_FIXED | MAP_FIXED_NOREPLACE));
}

/* tame: make call c's arguments safe for the harness (and, in host mode,
 * for the machine). */
static void tame(const struct call *c, uint64_t *a)
{
	if (c->nr == NR_reboot)
		a[0] = 0xfee1deadULL ^ 1;          /* never the magic number */
	if (c->nr == NR_nanosleep && a[0] >= (uint64_t)F.scratch &&
	    a[0] < (uint64_t)F.scratch + SCRATCH_PAGES * PAGE - 16) {
		uint64_t ts[2] = { 0, rnd(20000000) };   /* at most 20 ms */
		memcpy((void *)a[0], ts, sizeof ts);
	}
	if (c->nr == SYS_pagoda_forkbench)
		a[0] = hostile_addr();             /* a real request would run for minutes */
	if (c->nr == NR_execve && F.host)
		a[0] = rnd(2) ? hostile_addr() : (uint64_t)F.scratch;
	if (!F.host)
		return;
	if (c->cls & C_SIG)                    /* signals only to itself */
		a[0] = a[1] = (uint64_t)getpid(), a[c->nr == NR_tgkill ? 2 : 1] = gen_sig();
	for (int k = 0; k < c->nargs; k++)
		if (c->args[k] == A_FD && !host_fd_ok(a[k]))
			a[k] = (uint64_t)F.own_fds[rnd(4)];
	if ((c->nr == NR_ioctl || c->nr == NR_fcntl) && (int64_t)a[0] >= 0 && a[0] < 1000)
		a[0] = (uint64_t)F.own_fds[rnd(2)];     /* only the pipe: no ioctl of a real file */
	if (c->nr == NR_mmap)
		a[3] &= (uint64_t)(MAP_SHARED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
				   MAP_FIXED_NOREPLACE | MAP_POPULATE | 0x0f);
	if ((c->cls & C_MEM) && !in_scratch(a[0], c->nr == NR_brk ? 0 : a[1],
					    c->nr == NR_mmap && mmap_hint(a)))
		a[1] = rnd(SCRATCH_PAGES * PAGE), a[0] = (uint64_t)F.scratch + PAGE * rnd(SCRATCH_PAGES);
}

/* ---- the child: PER_CHILD calls ---- */

static long raw_syscall(long nr, const uint64_t *a)
{
	long r;
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];
	register uint64_t r9 __asm__("r9") = a[5];

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* usable: may call c be made in this mode? */
static int usable(const struct call *c)
{
	if (F.host)
		return (c->cls & C_HOST) != 0;
	return 1;
}

/* Linux numbers never made as "unknown" ones on Pagoda, in case Pagoda
 * implements them one day: they block, signal, exit, or replace the process. */
static const long never[] = { 7, 23, 34, 35, 37, 38, 56, 58, 59, 60, 61, 62, 101, 128, 129,
			      130, 169, 200, 202, 230, 231, 232, 234, 246, 247, 270, 271, 281,
			      297, 320, 322, 424, 435 };

static int known_nr(long nr)
{
	for (size_t k = 0; k < NCALLS; k++)
		if (calls[k].nr == nr)
			return 1;
	for (size_t k = 0; k < sizeof never / sizeof never[0]; k++)
		if (never[k] == nr)
			return 1;
	return 0;
}

/* unknown_nr: a number no call of the table has. */
static long unknown_nr(void)
{
	static const uint64_t huge[] = { 0xffffffffULL, 0x7fffffffULL, 0x80000000ULL,
					 0x1000dead0ULL, (uint64_t)-1, 0x8000000000000000ULL };
	long nr;

	if (F.host)
		return 1005 + (long)rnd(3000);
	if (rnd(4) == 0)
		return (long)huge[rnd(sizeof huge / sizeof huge[0])];
	do
		nr = (long)rnd(1100);
	while (known_nr(nr));
	return nr;
}

/* pick_call: a call of the table by weight (host mode: its allowlist), or
 * an unknown number (host mode: from 1000 up, where Linux has none). */
static const struct call *pick_call(long *nr)
{
	static struct call unknown = { 0, "unknown", 0, { A_INT, A_INT, A_INT, A_INT, A_INT, A_INT }, 6, 0 };
	unsigned total = UNKNOWN_WEIGHT;
	size_t k;

	for (k = 0; k < NCALLS; k++)
		total += usable(&calls[k]) ? calls[k].weight : 0;
	unsigned r = (unsigned)rnd(total);
	for (k = 0; k < NCALLS; k++) {
		unsigned w = usable(&calls[k]) ? calls[k].weight : 0;
		if (r < w) {
			*nr = calls[k].nr;
			return &calls[k];
		}
		r -= w;
	}
	*nr = unknown_nr();
	return &unknown;
}

static const struct call *find_call(long nr)
{
	for (size_t k = 0; k < NCALLS; k++)
		if (calls[k].nr == nr)
			return &calls[k];
	return NULL;
}

/* child_setup: the scratch buffer full of random bytes with the path
 * strings at its start, and descriptors of its own (fd 0 becomes a
 * non-blocking empty pipe: a read of the console would wait forever). */
static void child_setup(void)
{
	uint64_t *w = (uint64_t *)F.scratch;
	size_t n = F.host ? 3 : sizeof paths / sizeof paths[0];
	int fds[2];

	for (size_t k = 0; k < SCRATCH_PAGES * PAGE / 8; k++)
		w[k] = rnd64();
	for (size_t k = 0; k < n; k++)
		strcpy((char *)F.scratch + k * PATH_SLOT, F.host ? host_paths[k] : paths[k]);
	if (pipe2(fds, O_NONBLOCK) < 0)
		_exit(90);
	F.own_fds[0] = fds[0];
	F.own_fds[1] = fds[1];
	F.own_fds[2] = open("/", O_RDONLY);
	F.own_fds[3] = open(F.host ? "/proc/self/exe" : "/bin/true", O_RDONLY);
	if (F.verbose)
		dup2(1, TRACE_FD);
	if (!F.host) {      /* the console only through open("/dev/console") */
		dup2(fds[0], 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
	}
}

/* one_call: make call number `step`, recording it first. */
static void one_call(long step)
{
	long nr;
	const struct call *c = pick_call(&nr);
	struct record *r = F.rec;
	uint64_t a[6];

	for (int k = 0; k < 6; k++)
		a[k] = k < c->nargs ? gen_arg(c->args[k]) : gen_int();
	tame(c, a);
	r->step = step;
	r->nr = nr;
	memcpy(r->arg, a, sizeof a);
	r->sticky |= c->cls;
	if (c->cls & C_SIG)
		r->sent |= 1ULL << (a[c->nr == NR_tgkill ? 2 : 1] & 63);
	if (c->cls & C_TIMER)
		r->sent |= 1ULL << LSIG_ALRM | 1ULL << LSIG_VTALRM | 1ULL << LSIG_PROF;
	if (F.verbose)   /* on the parent's stdout, kept at TRACE_FD */
		dprintf(TRACE_FD, "[%ld] %s\n", step, format_record(r));
	r->in_flight = 1;
	long ret = raw_syscall(nr, a);
	if ((c->cls & C_FORK) && ret == 0)
		_exit(0);       /* first: the new process must not touch the record */
	r->ret = ret;
	r->in_flight = 0;
	r->errors += ret < 0 && ret > -4096;
	r->done++;
}

static __attribute__((noreturn)) void child_main(long first)
{
	child_setup();
	for (long step = first; step < first + F.per_child && step < F.calls; step++)
		one_call(step);
	while (waitpid(-1, NULL, 0) > 0)
		;
	_exit(0);
}

/* ---- the parent: hang guard, explanations, checks ---- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* dump_procs: on Pagoda, every process and its state (for a hang). */
static void dump_procs(void)
{
	struct pagoda_procinfo pi;

	for (long k = 0; pagoda_procinfo(k, &pi) == 0; k++)
		printf("sysfuzz: process %d (parent %d) %s: state %c\n", pi.pid, pi.ppid, pi.name,
		       (char)pi.state);
}

/* blocked: is the child inside a call that may block? */
static int blocked(void)
{
	const struct call *c = find_call(F.rec->nr);

	return F.rec->in_flight && c && (c->cls & C_BLOCKS);
}

/* wait_guarded: wait for pid (a raw Linux status); kill it when it has sat
 * in a call that may block for BLOCKED_SECONDS (*hung = 1), or has not
 * finished after GUARD_SECONDS (*hung = 2). A SIGKILL that does not end it
 * within GUARD_SECONDS more is a failure. */
static int wait_guarded(pid_t pid, int *hung)
{
	double start = now(), killed = 0;
	struct timespec nap = { 0, 2000000 };
	int st;

	*hung = 0;
	for (;;) {
		uint64_t a[6] = { (uint64_t)pid, (uint64_t)&st, 1 /* WNOHANG */, 0, 0, 0 };
		long r = raw_syscall(NR_wait4, a);
		double t = now() - start;
		if (r == pid)
			return st;
		if (r < 0)
			fail(F.rec->step, "wait4: error %ld", -r);
		if (!*hung && ((t > BLOCKED_SECONDS && blocked()) || t > GUARD_SECONDS)) {
			if (t > GUARD_SECONDS)
				dump_procs();
			kill(pid, LSIG_KILL);
			*hung = t > GUARD_SECONDS ? 2 : 1;
			killed = t;
		}
		if (*hung && t > killed + GUARD_SECONDS)
			fail(F.rec->step, "SIGKILL did not end the child in %d s", GUARD_SECONDS);
		nanosleep(&nap, NULL);
	}
}

/* unexplained: NULL if the calls the child made explain how it ended,
 * else what is wrong. */
static const char *unexplained(int st, int hung)
{
	static char why[80];
	const struct record *r = F.rec;
	const struct call *c = find_call(r->nr);
	unsigned cur = r->in_flight && c ? c->cls : 0;
	int sig = st & 0x7f;    /* a raw Linux wait status */

	if (r->sticky & C_ANY)
		return NULL;
	if (hung)
		return hung == 1 ? NULL : "hang: the child did not finish (hang guard)";
	if (!sig || (r->sent & (1ULL << (sig & 63))))
		return NULL;
	if ((sig == LSIG_SEGV || sig == LSIG_BUS) && (r->sticky & (C_MEM | C_HANDLER)))
		return NULL;
	if (sig == LSIG_PIPE && (cur & C_PIPE))
		return NULL;
	snprintf(why, sizeof why, "the child was killed by signal %d, which no call explains", sig);
	return why;
}

static int on_pagoda(void)
{
	struct pagoda_meminfo m;

	return pagoda_meminfo(&m) == 0;
}

static void run_child(long first)
{
	int hung;

	memset(F.rec, 0, sizeof *F.rec);
	F.rec->step = first;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		fail(first, "fork failed: %s", strerror(errno));
	if (pid == 0)
		child_main(first);
	int st = wait_guarded(pid, &hung);
	const char *why = unexplained(st, hung);
	if (hung && !why) {
		printf("sysfuzz: step %ld: the hang guard ended a child blocked in %s\n",
		       F.rec->step, format_record(F.rec));
	}
	if (why)
		fail(F.rec->step, "%s", why);
	stats.children++;
	stats.calls += (unsigned long)(F.rec->done + F.rec->in_flight);
	stats.errors += (unsigned long)F.rec->errors;
	stats.deaths += (st & 0x7f) != 0 && !hung;
	stats.hangs += hung;
	if (on_pagoda() && pagoda_vmcheck() != 0)
		fail(F.rec->step, "pagoda_vmcheck: %s", strerror(errno));
}

/* reap_orphans: as pid 1, the fuzzed children's children are ours. */
static void reap_orphans(int block)
{
	if (getpid() == 1)
		while (waitpid(-1, NULL, block ? 0 : WNOHANG) > 0)
			;
}

/* check_kernel: the kernel still forks, execs and maps memory. */
static void check_kernel(void)
{
	static char *const argv[] = { "true", NULL };
	int st;
	pid_t pid = fork();

	if (pid < 0)
		fail(F.calls, "after fuzzing, fork fails: %s", strerror(errno));
	if (pid == 0) {
		execve("/bin/true", argv, NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail(F.calls, "after fuzzing, fork + exec /bin/true ends with status %#x", st);
	size_t len = 1 << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail(F.calls, "after fuzzing, mmap fails: %s", strerror(errno));
	for (size_t k = 0; k < len; k += PAGE)
		p[k] = (unsigned char)(k >> 12);
	for (size_t k = 0; k < len; k += PAGE)
		if (p[k] != (unsigned char)(k >> 12))
			fail(F.calls, "after fuzzing, fresh memory does not keep what was written");
	if (munmap(p, len) != 0)
		fail(F.calls, "after fuzzing, munmap fails: %s", strerror(errno));
}

/* warm_up: before the free-frame baseline, what the kernel keeps for good
 * once used (objects and cached pages of the files a child opens, /bin/true
 * that check_kernel runs) is made to exist: one child that sets up and
 * makes no call, the checks once. */
static void warm_up(void)
{
	long calls = F.calls;

	F.calls = 0;
	run_child(0);
	F.calls = calls;
	check_kernel();
}

static void run_seed(uint64_t seed)
{
	F.seed = seed;
	for (long first = 0, batch = 0; first < F.calls; first += F.per_child, batch++) {
		F.rng = seed * 0x2545f4914f6cdd1dULL + (uint64_t)batch;
		run_child(first);
		reap_orphans(0);
	}
	reap_orphans(1);
	check_kernel();
	printf("TEST sysfuzz.seed_%llu PASS\n", (unsigned long long)seed);
	fflush(stdout);
}

/* setup: the shared record page and the scratch area (the children inherit
 * both), with an unmapped hole after the scratch buffer. */
static void setup(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	void *s = mmap((void *)SCRATCH_BASE, 2 * SCRATCH_PAGES * PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED || s != (void *)SCRATCH_BASE)
		fail(0, "setup: mmap: %s", strerror(errno));
	if (munmap((char *)s + SCRATCH_PAGES * PAGE, SCRATCH_PAGES * PAGE) != 0 ||
	    mprotect(s, SCRATCH_PAGES * PAGE, PROT_READ | PROT_WRITE) != 0)
		fail(0, "setup: scratch: %s", strerror(errno));
	F.rec = p;
	F.scratch = s;
}

static void usage(void)
{
	fprintf(stderr, "usage: sysfuzz [-s SEED] [-n CALLS] [-b PER_CHILD] [-T SECONDS] [-H] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, s;
	long seconds = 0;
	int c;
	struct pagoda_meminfo m0, m1;

	F.calls = 3000;
	F.per_child = 40;
	while ((c = getopt(argc, argv, "s:n:b:T:Hv")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': F.calls = strtol(optarg, NULL, 0); break;
		case 'b': F.per_child = strtol(optarg, NULL, 0); break;
		case 'T': seconds = strtol(optarg, NULL, 0); break;
		case 'H': F.host = 1; break;
		case 'v': F.verbose = 1; break;
		default: usage();
		}
	}
	if (F.calls < 0 || F.per_child < 1)
		usage();
	int pagoda = on_pagoda();
	F.host |= !pagoda;
	printf("sysfuzz: seed %llu, %ld calls, %ld per child, %s mode%s\n",
	       (unsigned long long)seed, F.calls, F.per_child, F.host ? "host (allowlist)" : "full",
	       seconds ? ", repeating with the next seeds" : "");
	fflush(stdout);
	setup();
	warm_up();
	if (pagoda)
		pagoda_meminfo(&m0);
	double end = now() + (double)seconds;
	s = seed;
	do
		run_seed(s++);
	while (seconds && now() < end);
	if (pagoda) {
		if (pagoda_vmcheck() != 0)
			fail(F.calls, "pagoda_vmcheck: %s", strerror(errno));
		if (pagoda_meminfo(&m1) != 0 || m1.free_pages != m0.free_pages)
			fail(F.calls, "free frames before %llu, after %llu (leak of %lld; "
			     "kernel %+lld, anon %+lld, file %+lld, page tables %+lld)",
			     (unsigned long long)m0.free_pages, (unsigned long long)m1.free_pages,
			     (long long)(m0.free_pages - m1.free_pages),
			     (long long)(m1.kernel_pages - m0.kernel_pages),
			     (long long)(m1.anon_pages - m0.anon_pages),
			     (long long)(m1.file_pages - m0.file_pages),
			     (long long)(m1.pagetable_pages - m0.pagetable_pages));
		printf("TEST sysfuzz.leakcheck PASS\n");
	}
	printf("sysfuzz: PASS seeds %llu..%llu calls %lu errors %lu children %lu "
	       "explained-deaths %lu hangs %lu\n", (unsigned long long)seed,
	       (unsigned long long)(s - 1), stats.calls, stats.errors, stats.children,
	       stats.deaths, stats.hangs);
	return 0;
}

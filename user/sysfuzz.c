/* user/sysfuzz.c -- a seeded system-call fuzzer.
 *
 *   sysfuzz [-s SEED] [-n CALLS] [-b PER_CHILD] [-t THREADS] [-P PROCS] [-m]
 *           [-T SECONDS] [-H] [-v]
 *
 * Makes CALLS (default 3000) random system calls with hostile arguments:
 * NULL, kernel, non-canonical and unmapped addresses, pointers into a
 * scratch buffer of random bytes and just before its unmapped end, huge and
 * negative lengths, bad descriptors and flags, bad signal numbers, and
 * unknown call numbers; weighted toward the calls Pagoda implements
 * (kernel/sys_*.c). The calls run in batches: PROCS (default 1) forked
 * children at once, each with THREADS threads (default 1: the child alone),
 * each thread making PER_CHILD (default 40) calls, every child watched by a
 * hang guard (the parent kills a child that has not finished after a few
 * seconds). The children of a batch share open files (a non-blocking pipe,
 * /, /bin/true, /proc/self/status and /proc/meminfo, opened by the parent
 * for each batch: one file position, one pipe buffer) and a shared anonymous
 * mapping whose words the futex calls and pointers aim at; the threads of a
 * child share its scratch memory, descriptors and signal handlers (half the
 * children install a handler that returns for the signals the calls send,
 * so that signals interrupt calls instead of ending the child). With -m
 * a memory hog holds free memory near the reclaim watermark and keeps
 * MADV_FREEing and rewriting its pages, so reclaim runs all along.
 * Afterwards it checks that the kernel still forks, execs (/bin/true) and
 * maps memory and, on Pagoda, that the VM invariant checker
 * (pagoda_vmcheck, after every batch) is clean and the free-frame count
 * and the kernel's kmalloc object count (pagoda_meminfo) are back where
 * they started.
 *
 * A child may die only of what its calls explain: a signal it sent itself,
 * SIGSEGV/SIGBUS (or SIGILL/SIGFPE/SIGTRAP: running bytes that are not its
 * code) after it changed its own mappings, installed a handler at a bad
 * address or changed its FS base, anything after a forged rt_sigreturn,
 * SIGPIPE on a write, a hang guard's SIGKILL while a call that may block
 * (read, pause, ...) was in flight in every thread still running, SIGKILL
 * after it changed its mappings when the OOM killer ran meanwhile (Linux's
 * oom_kill count in /proc/vmstat rose: a MAP_POPULATE of 2 GiB of shared
 * memory fills RAM on Linux too, and its owner is the largest). Anything
 * else, a kernel panic (the run dies) or a failed check prints the seed and
 * the step (call index) and exits 1: `sysfuzz -s SEED -n STEP ...` (the
 * printed replay line) makes the same calls again; with several threads or
 * processes their interleaving differs from run to run, so a race may take
 * a few replays. -v prints every call. Each thread writes each call into a
 * record it shares with the parent before making it, so the parent can name
 * the call that killed or hung the child.
 *
 * Things that would kill the harness itself are never called: reboot gets a
 * wrong magic number, kill/tkill/tgkill only reach the child itself or pids
 * that do not exist (never -1, 0 or 1, never the parent), exit only ends the
 * child (or the thread), fork's and clone's new process or thread exits at
 * once, clone never gets CLONE_PARENT (its child would be the parent's).
 * Calls that change files (mkdir, unlink, rename, link, truncate, chmod,
 * ...) get names in a tmpfs of the fuzzer's own (/tmp/fz: a copy of
 * /bin/true, a directory, a symlink, device nodes) and run there; what
 * they make elsewhere is removed before the leak check (fuzz_fs_setup).
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
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "fuzz_rand.h"

#define PAGE 4096
#define SCRATCH_PAGES 16
#define SCRATCH_BASE 0x300000000000UL   /* the child's scratch area; a hole follows */
#define SHARED_PAGES 4
#define SHARED_BASE (SCRATCH_BASE + (2 * SCRATCH_PAGES - SHARED_PAGES) * PAGE)
				/* shared by the batch: the end of the hole */
#define MAX_THREADS 8
#define MAX_PROCS 4
#define STACK_BYTES (64 * 1024)
#define STACKS_BASE 0x310000000000UL    /* a child's thread stacks (not fuzzed) */
#define GUARD_SECONDS 10       /* a child that has not finished by then hangs */
#define BLOCKED_SECONDS 0.3     /* a child in a call that may block is ended sooner */

/* Linux x86-64 numbers of the calls the code below names. */
enum { NR_brk = 12, NR_clone = 56, NR_execve = 59, NR_exit = 60, NR_fcntl = 72, NR_futex = 202,
       NR_ioctl = 16, NR_mmap = 9, NR_mremap = 25, NR_nanosleep = 35, NR_reboot = 169,
       NR_tgkill = 234, NR_wait4 = 61 };

/* Linux's clone flags the harness uses or keeps away. */
#define LCLONE_THREADS 0x00050f00UL   /* VM|FS|FILES|SIGHAND|THREAD|SYSVSEM */
#define LCLONE_PARENT 0x00008000UL
#define LCLONE_PARENT_SETTID 0x00100000UL

/* Linux signal numbers (the calls are raw; newlib numbers signals its own
 * way, so the parent waits with the raw wait4 too). */
enum { LSIG_ILL = 4, LSIG_TRAP = 5, LSIG_BUS = 7, LSIG_FPE = 8, LSIG_KILL = 9, LSIG_SEGV = 11, LSIG_PIPE = 13, LSIG_ALRM = 14,
       LSIG_VTALRM = 26, LSIG_PROF = 27 };

/* Argument kinds: what a call's argument means. */
enum akind { A_INT, A_FD, A_PTR, A_PATH, A_LEN, A_ADDR, A_PROT, A_MFLAGS, A_SIG, A_PID, A_ADV,
	     A_FUTEX, A_FUTEXOP, A_CLONE };

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
	{ 17, "pread64", C_BLOCKS | H, { A_FD, A_PTR, A_LEN, A_INT }, 4, 4 },
	{ 18, "pwrite64", C_BLOCKS | C_PIPE | H, { A_FD, A_PTR, A_LEN, A_INT }, 4, 4 },
	{ 74, "fsync", H, { A_FD }, 1, 2 },
	{ 73, "flock", C_BLOCKS | H, { A_FD, A_INT }, 2, 2 },
	{ 75, "fdatasync", H, { A_FD }, 1, 2 },
	{ 162, "sync", 0, { 0 }, 0, 1 },
	{ 306, "syncfs", 0, { A_FD }, 1, 1 },
	{ 16, "ioctl", H, { A_FD, A_INT, A_PTR }, 3, 5 },
	{ 22, "pipe", H, { A_PTR }, 1, 3 },
	{ 293, "pipe2", H, { A_PTR, A_INT }, 2, 3 },
	{ 32, "dup", H, { A_FD }, 1, 3 },
	{ 33, "dup2", H, { A_FD, A_FD }, 2, 3 },
	{ 292, "dup3", H, { A_FD, A_FD, A_INT }, 3, 3 },
	{ 72, "fcntl", C_BLOCKS | H, { A_FD, A_INT, A_INT }, 3, 4 },   /* (F_SETLKW waits) */
	{ 217, "getdents64", H, { A_FD, A_PTR, A_LEN }, 3, 4 },
	{ 79, "getcwd", H, { A_PTR, A_LEN }, 2, 3 },
	{ 80, "chdir", H, { A_PATH }, 1, 2 },
	{ 81, "fchdir", H, { A_FD }, 1, 1 },
	{ 83, "mkdir", H, { A_PATH, A_INT }, 2, 2 },
	{ 258, "mkdirat", H, { A_FD, A_PATH, A_INT }, 3, 1 },
	{ 84, "rmdir", 0, { A_PATH }, 1, 2 },
	{ 87, "unlink", 0, { A_PATH }, 1, 2 },
	{ 263, "unlinkat", 0, { A_FD, A_PATH, A_INT }, 3, 1 },
	{ 82, "rename", 0, { A_PATH, A_PATH }, 2, 2 },
	{ 316, "renameat2", 0, { A_FD, A_PATH, A_FD, A_PATH, A_INT }, 5, 1 },
	{ 86, "link", 0, { A_PATH, A_PATH }, 2, 1 },
	{ 265, "linkat", 0, { A_FD, A_PATH, A_FD, A_PATH, A_INT }, 5, 1 },
	{ 88, "symlink", 0, { A_PATH, A_PATH }, 2, 1 },
	{ 266, "symlinkat", 0, { A_PATH, A_FD, A_PATH }, 3, 1 },
	{ 89, "readlink", H, { A_PATH, A_PTR, A_LEN }, 3, 2 },
	{ 76, "truncate", 0, { A_PATH, A_INT }, 2, 1 },
	{ 77, "ftruncate", 0, { A_FD, A_INT }, 2, 2 },
	{ 90, "chmod", 0, { A_PATH, A_INT }, 2, 1 },
	{ 91, "fchmod", 0, { A_FD, A_INT }, 2, 1 },
	{ 95, "umask", H, { A_INT }, 1, 1 },
	{ 133, "mknod", 0, { A_PATH, A_INT, A_INT }, 3, 1 },
	{ 137, "statfs", H, { A_PATH, A_PTR }, 2, 1 },
	{ 138, "fstatfs", H, { A_FD, A_PTR }, 2, 1 },
	{ 85, "creat", 0, { A_PATH, A_INT }, 2, 1 },
	{ 269, "faccessat", H, { A_FD, A_PATH, A_INT }, 3, 1 },
	{ 318, "getrandom", H, { A_PTR, A_LEN, A_INT }, 3, 1 },
	{ 280, "utimensat", 0, { A_FD, A_PATH, A_PTR, A_INT }, 4, 1 },
	{ 332, "statx", H, { A_FD, A_PATH, A_INT, A_INT, A_PTR }, 5, 1 },
	{ 285, "fallocate", 0, { A_FD, A_INT, A_INT, A_LEN }, 4, 1 },
	{ 221, "fadvise64", 0, { A_FD, A_INT, A_LEN, A_INT }, 4, 1 },
	{ 9, "mmap", C_MEM | H, { A_ADDR, A_LEN, A_PROT, A_MFLAGS, A_FD, A_INT }, 6, 10 },
	{ 11, "munmap", C_MEM | H, { A_ADDR, A_LEN }, 2, 6 },
	{ 10, "mprotect", C_MEM | H, { A_ADDR, A_LEN, A_PROT }, 3, 6 },
	{ 12, "brk", C_MEM | H, { A_ADDR }, 1, 4 },
	{ 25, "mremap", C_MEM | H, { A_ADDR, A_LEN, A_LEN, A_INT, A_ADDR }, 5, 4 },
	{ 28, "madvise", C_MEM | H, { A_ADDR, A_LEN, A_ADV }, 3, 6 },
	{ 26, "msync", C_MEM | H, { A_ADDR, A_LEN, A_INT }, 3, 3 },
	{ 57, "fork", C_FORK | H, { 0 }, 0, 2 },
	{ 58, "vfork", C_FORK, { 0 }, 0, 1 },
	{ 56, "clone", C_FORK | C_SIG, { A_CLONE, A_PTR, A_PTR, A_PTR, A_INT }, 5, 2 },
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
	{ 273, "set_robust_list", H, { A_PTR, A_LEN }, 2, 2 },
	{ 202, "futex", C_BLOCKS | H, { A_FUTEX, A_FUTEXOP, A_INT, A_PTR, A_FUTEX, A_INT }, 6, 6 },
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
	{ SYS_pagoda_filecache, "pagoda_filecache", C_PAGODA, { A_FD, A_PTR, A_INT }, 3, 3 },
};
#undef H
#define NCALLS (sizeof calls / sizeof calls[0])
#define UNKNOWN_WEIGHT 12

/* What one thread of a child is doing, in a page shared with the parent. */
struct record {
	long step;          /* global call index */
	long nr;
	uint64_t arg[6];
	int in_flight;      /* the call was made and has not returned */
	long ret;           /* what it returned */
	unsigned sticky;    /* classes of the calls made so far (enum cls) */
	uint64_t sent;      /* signals it sent itself (bit sig) */
	long errors, done;  /* calls that returned an error / returned */
	int finished;       /* the thread made all its calls */
	int tid;            /* its thread id (set by clone) */
};

/* The threads of a child: thread 0 is the child itself, thread t > 0 runs
 * on the t-th stack at STACKS_BASE. They share the child's memory, so each
 * finds its own state by where its stack is (no thread-local storage: the
 * threads are raw clones and may change their FS base). */
struct thread_state {
	uint64_t rng;
	struct record *rec;
};

static struct {
	uint64_t seed, rng;
	long calls, per_child;
	int threads, procs, pressure;
	int host, verbose;
	struct record *recs;    /* procs x threads records, shared with the children */
	struct record *rec;     /* the record a failure names */
	unsigned char *scratch;
	int own_fds[6];      /* a pipe (both ends), /, a program, two /proc files */
	struct thread_state thr[MAX_THREADS];   /* in a child: its threads */
} F;

/* The calling thread's state (in a child; thread 0 elsewhere). */
static struct thread_state *me(void)
{
	char here;
	uintptr_t sp = (uintptr_t)&here;

	if (sp > STACKS_BASE && sp <= STACKS_BASE + (MAX_THREADS - 1) * STACK_BYTES)
		return &F.thr[1 + (sp - STACKS_BASE - 1) / STACK_BYTES];
	return &F.thr[0];
}

static struct {
	unsigned long calls, errors, children, deaths, hangs;
} stats;

/* ---- random numbers (splitmix64) ---- */

static uint64_t rnd64(void)
{
	return fuzz_rand64(&me()->rng);
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

/* format_record_in: the call r describes, as text, into buf (200 bytes:
 * the threads of a child trace at once, each into its own). */
static const char *format_record_in(const struct record *r, char *buf)
{
	int n = snprintf(buf, 200, "syscall %ld (%s)(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx)",
			 r->nr, call_name(r->nr), (unsigned long long)r->arg[0],
			 (unsigned long long)r->arg[1], (unsigned long long)r->arg[2],
			 (unsigned long long)r->arg[3], (unsigned long long)r->arg[4],
			 (unsigned long long)r->arg[5]);

	if (r->in_flight)
		snprintf(buf + n, 200 - n, " in flight");
	else
		snprintf(buf + n, 200 - n, " returned %ld", r->ret);
	return buf;
}

/* format_record: the same into a buffer of the parent's (one thread). */
static const char *format_record(const struct record *r)
{
	static char buf[200];
	return format_record_in(r, buf);
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
	printf("sysfuzz: replay: sysfuzz -s %llu -n %ld -b %ld -t %d -P %d%s%s\n",
	       (unsigned long long)F.seed, step + 1, F.per_child, F.threads, F.procs,
	       F.pressure ? " -m" : "", F.host ? " -H" : "");
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

/* shared_word: one of the first 8 words of the batch's shared mapping
 * (where futex waiters and wakers of every thread and child meet). */
static uint64_t shared_word(void)
{
	return SHARED_BASE + 4 * rnd(8);
}

static uint64_t any_ptr(void)
{
	switch (rnd(6)) {
	case 0: case 1: return hostile_addr();
	case 2: return SHARED_BASE + rnd(SHARED_PAGES * PAGE) / 8 * 8;
	default: return scratch_ptr();
	}
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
		return (uint64_t)F.own_fds[rnd(6)];
	return rnd(12);
}

/* The path strings live at the start of the scratch buffer. */
static const char *const host_paths[] = { "/nonexistent-sysfuzz/a", "/nonexistent-sysfuzz/", "" };
/* Pagoda's full mode: the files the calls may change live in a tmpfs of
 * the fuzzer's own (FZ_DIR, its current directory; fuzz_fs_setup), so
 * that what they create, truncate or remove goes with its umount. */
#define FZ_DIR "/tmp/fz"
static const char *const paths[] = { FZ_DIR "/true", FZ_DIR, "/", FZ_DIR "/console",
				     FZ_DIR "/true/x", "/nonexistent", "", "//tmp//fz/./true", ".", "..",
				     FZ_DIR "/vda", "d", "d/f", FZ_DIR "/link" };
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

	switch (rnd(6)) {
	case 0: return hostile_addr();
	case 1: return s + rnd(SCRATCH_PAGES * PAGE);     /* unaligned, mostly */
	case 2: return s + SCRATCH_PAGES * PAGE;          /* the hole after it */
	case 3: return SHARED_BASE + rnd(SHARED_PAGES) * PAGE;
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

/* gen_futex: a futex word: mostly a shared one, else any pointer. */
static uint64_t gen_futex(void)
{
	return rnd(4) ? shared_word() : any_ptr();
}

/* gen_futexop: Linux's futex operations, private or not, or anything. */
static uint64_t gen_futexop(void)
{
	static const uint64_t ops[] = { 0 /* WAIT */, 1 /* WAKE */, 3 /* REQUEUE */,
					4 /* CMP_REQUEUE */, 5 /* WAKE_OP */, 9 /* WAIT_BITSET */,
					10 /* WAKE_BITSET */, 6, 7, 8 /* the PI calls */ };
	if (rnd(8) == 0)
		return gen_int();
	return ops[rnd(sizeof ops / sizeof ops[0])] | (rnd(2) ? 128 /* PRIVATE */ : 0) |
	       (rnd(8) == 0 ? 256 /* CLOCK_REALTIME */ : 0);
}

/* gen_clone: clone flags: a thread, a process, a vfork, or random bits,
 * with a random exit signal now and then (never CLONE_PARENT: tame). */
static uint64_t gen_clone(void)
{
	static const uint64_t kinds[] = {
		LCLONE_THREADS, LCLONE_THREADS | 0x00200000 /* CHILD_CLEARTID */,
		17 /* SIGCHLD: a fork */, 0x00004100 | 17 /* VM|VFORK */, 0x100 /* VM */,
		0x00000900 /* VM|SIGHAND */, 0x00010000 /* THREAD alone: EINVAL */,
	};
	uint64_t f = rnd(4) ? kinds[rnd(sizeof kinds / sizeof kinds[0])] : gen_int();
	if (rnd(4) == 0)
		f = (f & ~0xffULL) | rnd(70);
	return f;
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
	case A_FUTEX: return gen_futex();
	case A_FUTEXOP: return gen_futexop();
	case A_CLONE: return gen_clone();
	default: return gen_int();
	}
}

/* ---- the host allowlist and the harness guards ---- */

static int host_fd_ok(uint64_t fd)
{
	for (int k = 0; k < 6; k++)
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

/* readable_word: is [a, a+16) in the scratch buffer or the shared
 * mapping (memory the harness itself may read and write)? A fuzzed munmap
 * or mprotect may have taken either away: then only a fault of the child's
 * own making follows, which its C_MEM calls explain. */
static int readable_word(uint64_t a)
{
	uint64_t s = (uint64_t)F.scratch;
	return (a >= s && a <= s + SCRATCH_PAGES * PAGE - 16) ||   /* no a + 16: */
	       (a >= SHARED_BASE && a <= SHARED_BASE + SHARED_PAGES * PAGE - 16);   /* it wraps */
}

/* short_timeout: a timespec of at most 20 ms at a (when the harness may
 * write there), so that a sleeping call ends soon. */
static void short_timeout(uint64_t a)
{
	if (readable_word(a)) {
		uint64_t ts[2] = { 0, rnd(20000000) };
		memcpy((void *)a, ts, sizeof ts);
	}
}

/* tame_futex: half the waits find the value they expect (and sleep until
 * another thread wakes them or the timeout ends); the timeout is short. */
static void tame_futex(uint64_t *a)
{
	if (rnd(2) && readable_word(a[0]))
		a[2] = *(volatile uint32_t *)a[0];
	if (rnd(4))
		short_timeout(a[3]);
}

/* tame: make call c's arguments safe for the harness (and, in host mode,
 * for the machine). */
static void tame(const struct call *c, uint64_t *a)
{
	if (c->nr == NR_reboot)
		a[0] = 0xfee1deadULL ^ 1;          /* never the magic number */
	if (c->nr == NR_nanosleep)
		short_timeout(a[0]);
	if (c->nr == NR_futex)
		tame_futex(a);
	if (c->nr == NR_fcntl && rnd(3) == 0) {   /* a record-lock command, a struct flock */
		static const int lock_cmds[] = { 5, 6, 7, 36, 37, 38 };
		a[1] = (uint64_t)lock_cmds[rnd(6)];
		a[2] = any_ptr();
	}
	if (c->nr == NR_clone)
		a[0] &= ~LCLONE_PARENT;            /* its child would be the harness's */
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
			a[k] = (uint64_t)F.own_fds[rnd(6)];
	if ((c->nr == NR_ioctl || c->nr == NR_fcntl) && (int64_t)a[0] >= 0 && a[0] < 1000)
		a[0] = (uint64_t)F.own_fds[rnd(2)];     /* only the pipe: no ioctl of a real file */
	if (c->nr == NR_mmap)
		a[3] &= (uint64_t)(MAP_SHARED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
				   MAP_FIXED_NOREPLACE | MAP_POPULATE | 0x0f);
	if ((c->cls & C_MEM) && !in_scratch(a[0], c->nr == NR_brk ? 0 : a[1],
					    c->nr == NR_mmap && mmap_hint(a)))
		a[1] = rnd(SCRATCH_PAGES * PAGE), a[0] = (uint64_t)F.scratch + PAGE * rnd(SCRATCH_PAGES);
	if (c->nr == NR_mremap) {             /* a moved mapping lands in scratch too */
		a[4] = (uint64_t)F.scratch + PAGE * rnd(SCRATCH_PAGES);
		a[3] &= ~4ULL;                     /* no MREMAP_DONTUNMAP */
		a[2] = rnd(2 * SCRATCH_PAGES * PAGE);
		if (!(a[3] & 2))                   /* not MREMAP_FIXED: may move anywhere */
			a[3] &= ~1ULL;
	}
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
		return 1007 + (long)rnd(3000);
	if (rnd(4) == 0)
		return (long)huge[rnd(sizeof huge / sizeof huge[0])];
	do
		nr = (long)rnd(1100);
	while (known_nr(nr));
	return nr;
}

/* pick_by_weight: a call of the table by weight (host mode: its
 * allowlist), or an unknown number (host mode: from 1000 up, where Linux
 * has none). */
static const struct call *pick_by_weight(long *nr)
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

/* pick_call: pick_by_weight, with the calls that end the whole process
 * (execve, exit_group) THREADS times rarer, so that a child's threads get
 * to make calls side by side before one of them ends it. */
static const struct call *pick_call(long *nr)
{
	for (;;) {
		const struct call *c = pick_by_weight(nr);
		if (!(c->cls & C_EXIT) || c->nr == NR_exit || rnd((uint64_t)F.threads) == 0)
			return c;
	}
}

static const struct call *find_call(long nr)
{
	for (size_t k = 0; k < NCALLS; k++)
		if (calls[k].nr == nr)
			return &calls[k];
	return NULL;
}

/* The signal handler half the children install: a signal then interrupts
 * a call (EINTR, a restart) instead of ending the child. Raw
 * rt_sigaction with a restorer of its own: newlib numbers signals its own
 * way, and a thread may have changed its FS base. */
__asm__(".text\n"
	"sysfuzz_restorer:\n\t"
	"mov $15, %eax\n\t"      /* rt_sigreturn */
	"syscall\n");
void sysfuzz_restorer(void);

static void on_signal(int sig)
{
	(void)sig;
}

static void install_handlers(void)
{
	static const int sigs[] = { 1, 2, 10, 12, 13, 15, 17, LSIG_ALRM, LSIG_VTALRM, LSIG_PROF, 64 };
	struct { void (*handler)(int); unsigned long flags; void (*restorer)(void); uint64_t mask; }
		act = { on_signal, 0x04000000 /* SA_RESTORER */, sysfuzz_restorer, 0 };

	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
		act.flags = 0x04000000 | (rnd(2) ? 0x10000000 /* SA_RESTART */ : 0);
		uint64_t a[6] = { (uint64_t)sigs[k], (uint64_t)&act, 0, 8, 0, 0 };
		raw_syscall(13, a);
	}
}

/* child_setup: the scratch buffer full of random bytes with the path
 * strings at its start; on Pagoda fd 0-2 become the batch's non-blocking
 * pipe (a read of the console would wait forever). The other descriptors
 * are the parent's (open_files), shared by the whole batch. */
static void child_setup(void)
{
	uint64_t *w = (uint64_t *)F.scratch;
	size_t n = F.host ? 3 : sizeof paths / sizeof paths[0];

	for (size_t k = 0; k < SCRATCH_PAGES * PAGE / 8; k++)
		w[k] = rnd64();
	if (!F.host)        /* random names never hold a '/': they stay in the directory they are made in */
		for (size_t k = 0; k < SCRATCH_PAGES * PAGE; k++)
			F.scratch[k] = F.scratch[k] == '/' ? '.' : F.scratch[k];
	for (size_t k = 0; k < n; k++)
		strcpy((char *)F.scratch + k * PATH_SLOT, F.host ? host_paths[k] : paths[k]);
	if (F.verbose)
		dup2(1, TRACE_FD);
	if (rnd(2))
		install_handlers();
	if (!F.host) {      /* the console only through open("/dev/console") */
		dup2(F.own_fds[0], 0);
		dup2(F.own_fds[1], 1);
		dup2(F.own_fds[1], 2);
	}
}

static __attribute__((noreturn)) void raw_exit(long nr, int code)
{
	uint64_t a[6] = { (uint64_t)code, 0, 0, 0, 0, 0 };

	raw_syscall(nr, a);
	__builtin_unreachable();
}

/* fuzzed_clone: clone with the fuzzed arguments; the new process or thread
 * exits at once, touching no memory (it may share the caller's stack: the
 * stack argument is fuzzed too). */
static long fuzzed_clone(const uint64_t *a)
{
	long r;
	register uint64_t r10 __asm__("r10") = a[3];
	register uint64_t r8 __asm__("r8") = a[4];

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"    /* exit(0): this thread only */
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(r)
			 : "0"((long)NR_clone), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

/* spawn_thread: a thread of this child (Linux's clone flags of a
 * pthread) running fn on the stack ending at top, 16-byte aligned; its tid
 * goes to *tid. It exits when fn returns. The tid or a negative errno. */
static long spawn_thread(void *top, int *tid, void (*fn)(void))
{
	long r;
	register uint64_t r10 __asm__("r10") = 0;
	register uint64_t r8 __asm__("r8") = 0;
	register void (*r12)(void) __asm__("r12") = fn;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%%r12\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(r)
			 : "0"((long)NR_clone), "D"(LCLONE_THREADS | LCLONE_PARENT_SETTID), "S"(top),
			   "d"(tid), "r"(r10), "r"(r8), "r"(r12)
			 : "rcx", "r11", "memory");
	return r;
}

/* signals_sent: the signals call c with arguments a sends the child itself
 * (a bit per signal): kill's and tgkill's, a timer's, or the exit signal
 * of a clone's child. */
static uint64_t signals_sent(const struct call *c, const uint64_t *a)
{
	uint64_t sent = 0;

	if (c->nr == NR_clone)
		sent |= 1ULL << (a[0] & 63);
	else if (c->cls & C_SIG)
		sent |= 1ULL << (a[c->nr == NR_tgkill ? 2 : 1] & 63);
	if (c->cls & C_TIMER)
		sent |= 1ULL << LSIG_ALRM | 1ULL << LSIG_VTALRM | 1ULL << LSIG_PROF;
	return sent;
}

/* trace_call (-v): the call on the parent's stdout (kept at TRACE_FD) in
 * one write, so that the lines of threads tracing at once do not mix. */
static void trace_call(long step, const struct record *r)
{
	char rec[200], line[240];
	int n = snprintf(line, sizeof line, "[%ld] %s\n", step, format_record_in(r, rec));
	uint64_t a[6] = { TRACE_FD, (uint64_t)line, (uint64_t)(n < (int)sizeof line ? n : (int)sizeof line - 1), 0, 0, 0 };
	raw_syscall(1 /* write */, a);
}

/* one_call: make call number `step`, recording it first in the calling
 * thread's record. */
static void one_call(long step)
{
	long nr;
	const struct call *c = pick_call(&nr);
	struct record *r = me()->rec;
	uint64_t a[6];

	for (int k = 0; k < 6; k++)
		a[k] = k < c->nargs ? gen_arg(c->args[k]) : gen_int();
	tame(c, a);
	r->step = step;
	r->nr = nr;
	memcpy(r->arg, a, sizeof a);
	r->sticky |= c->cls;
	r->sent |= signals_sent(c, a);
	if (F.verbose)   /* on the parent's stdout, kept at TRACE_FD */
		trace_call(step, r);
	r->in_flight = 1;
	long ret = nr == NR_clone ? fuzzed_clone(a) : raw_syscall(nr, a);
	if ((c->cls & C_FORK) && ret == 0)
		raw_exit(231, 0);   /* first: the new process must not touch the record */
	r->ret = ret;
	r->in_flight = 0;
	r->errors += ret < 0 && ret > -4096;
	r->done++;
}

/* run_calls: the calling thread's PER_CHILD calls, from step first on. */
static void run_calls(long first)
{
	for (long step = first; step < first + F.per_child && step < F.calls; step++)
		one_call(step);
	me()->rec->finished = 1;
}

/* The first step of thread t of child k in the batch that starts at first. */
static long thread_first(long first, int k, int t)
{
	return first + ((long)k * F.threads + t) * F.per_child;
}

static long batch_first;   /* a child's batch, for its threads */
static int child_index;

static void thread_main(void)
{
	long t = me() - F.thr;

	run_calls(thread_first(batch_first, child_index, (int)t));
}

/* start_threads: threads 1.. of this child, each on its own stack. */
static void start_threads(void)
{
	if (F.threads < 2)
		return;
	void *stacks = mmap((void *)STACKS_BASE, (size_t)(F.threads - 1) * STACK_BYTES,
			    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (stacks != (void *)STACKS_BASE)
		raw_exit(231, 91);
	for (int t = 1; t < F.threads; t++) {
		char *top = (char *)STACKS_BASE + (size_t)t * STACK_BYTES;
		if (spawn_thread(top, &F.thr[t].rec->tid, thread_main) < 0)
			F.thr[t].rec->finished = 1;   /* the calls it would have made are not made */
	}
}

/* thread_alive: does thread tid of this child still run? */
static int thread_alive(int tid)
{
	uint64_t none[6] = { 0 };
	uint64_t a[6] = { (uint64_t)raw_syscall(39 /* getpid */, none), (uint64_t)tid, 0, 0, 0, 0 };

	return tid > 0 && raw_syscall(NR_tgkill, a) == 0;
}

/* wait_threads: until every other thread made its calls or ended. */
static void wait_threads(void)
{
	uint64_t nap[2] = { 0, 1000000 };
	uint64_t a[6] = { (uint64_t)nap, 0, 0, 0, 0, 0 };

	for (int t = 1; t < F.threads; t++)
		while (!F.thr[t].rec->finished && thread_alive(F.thr[t].rec->tid))
			raw_syscall(NR_nanosleep, a);
}

/* child_main: child k of the batch that starts at step first; rng is the
 * batch's seed of random numbers. */
static __attribute__((noreturn)) void child_main(int k, long first, uint64_t rng)
{
	batch_first = first;
	child_index = k;
	for (int t = 0; t < F.threads; t++) {
		F.thr[t].rng = rng + ((uint64_t)(k * F.threads + t) << 32);
		F.thr[t].rec = &F.recs[k * F.threads + t];
	}
	child_setup();
	start_threads();
	run_calls(thread_first(first, k, 0));
	wait_threads();
	while (waitpid(-1, NULL, 0) > 0)
		;
	raw_exit(231, 0);
}

/* ---- the parent: hang guard, explanations, checks ---- */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* dump_procs: every thread but this one, its state and where it sleeps
 * (for a hang). */
static void dump_procs(void)
{
	procfs_print_tasks("sysfuzz:");
}

/* A child of the batch, as the parent watches it. */
struct child {
	pid_t pid;
	struct record *recs;   /* its threads' records */
	int status;            /* a raw Linux wait status, once reaped */
	int reaped;
	int hung;              /* 1: killed blocked, 2: killed by the guard */
	double killed;         /* when it was killed */
};

/* stopped_or_blocking: is the thread of r inside a call that may block
 * (or done: made its calls, or ended by exit)? */
static int stopped_or_blocking(const struct record *r)
{
	const struct call *c = find_call(r->nr);

	if (r->finished || (r->in_flight && r->nr == NR_exit))
		return 1;
	return r->in_flight && c && (c->cls & C_BLOCKS);
}

/* blocked: does every thread of ch sit in a call that may block (or has
 * it ended)? */
static int blocked(const struct child *ch)
{
	for (int t = 0; t < F.threads; t++)
		if (!stopped_or_blocking(&ch->recs[t]))
			return 0;
	return 1;
}

/* guard: kill ch when all its threads have sat in calls that may block
 * for BLOCKED_SECONDS (hung = 1), or it has not finished after
 * GUARD_SECONDS (hung = 2). A SIGKILL that does not end it within
 * GUARD_SECONDS more is a failure. t: seconds since the batch started. */
static void guard(struct child *ch, double t)
{
	if (!ch->hung && ((t > BLOCKED_SECONDS && blocked(ch)) || t > GUARD_SECONDS)) {
		if (t > GUARD_SECONDS)
			dump_procs();
		kill(ch->pid, LSIG_KILL);
		ch->hung = t > GUARD_SECONDS ? 2 : 1;
		ch->killed = t;
	}
	if (ch->hung && t > ch->killed + GUARD_SECONDS) {
		F.rec = ch->recs;
		fail(ch->recs[0].step, "SIGKILL did not end the child in %d s", GUARD_SECONDS);
	}
}

/* wait_children: reap the batch's n children, guarding each. */
static void wait_children(struct child *ch, int n)
{
	double start = now();
	struct timespec nap = { 0, 2000000 };

	for (int left = n; left > 0;) {
		for (int k = 0; k < n; k++) {
			if (ch[k].reaped)
				continue;
			uint64_t a[6] = { (uint64_t)ch[k].pid, (uint64_t)&ch[k].status, 1 /* WNOHANG */,
					  0, 0, 0 };
			long r = raw_syscall(NR_wait4, a);
			if (r == ch[k].pid) {
				ch[k].reaped = 1;
				left--;
				continue;
			}
			if (r < 0)
				fail(ch[k].recs[0].step, "wait4: error %ld", -r);
			guard(&ch[k], now() - start);
		}
		nanosleep(&nap, NULL);
	}
}

/* wild_code_signal: can sig come from running what is not the program's
 * code (its text unmapped or mapped over, a handler at a random address),
 * or from a bad access? */
static int wild_code_signal(int sig)
{
	return sig == LSIG_SEGV || sig == LSIG_BUS || sig == LSIG_ILL || sig == LSIG_FPE ||
	       sig == LSIG_TRAP;
}

/* oom_kills: the OOM killer's victims so far (Linux's oom_kill line of
 * /proc/vmstat; 0 where there is none). Read with read() into the stack:
 * no stdio buffer from the heap, which the leak check would count. */
static unsigned long oom_kills(void)
{
	static const char key[] = "\noom_kill ";
	char buf[256];
	unsigned long n = 0;
	size_t matched = 1;   /* the file's start counts as a line start */
	int fd = open("/proc/vmstat", O_RDONLY), in_number = 0;
	ssize_t got;

	while (fd >= 0 && (got = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < got; i++) {
			char c = buf[i];
			if (in_number && c >= '0' && c <= '9') {
				n = n * 10 + (unsigned long)(c - '0');
				continue;
			}
			in_number = 0;
			matched = c == key[matched] ? matched + 1 : c == '\n' ? 1 : 0;
			if (matched == sizeof key - 1) {
				in_number = 1;
				matched = 0;
			}
		}
	if (fd >= 0)
		close(fd);
	return n;
}

/* unexplained: NULL if the calls ch's threads made explain how it ended
 * (oom: the OOM killer ran while it lived), else what is wrong. */
static const char *unexplained(const struct child *ch, int oom)
{
	static char why[80];
	unsigned sticky = 0, cur = 0;
	uint64_t sent = 0;
	int sig = ch->status & 0x7f;    /* a raw Linux wait status */

	for (int t = 0; t < F.threads; t++) {
		const struct record *r = &ch->recs[t];
		const struct call *c = find_call(r->nr);
		sticky |= r->sticky;
		sent |= r->sent;
		cur |= r->in_flight && c ? c->cls : 0;
	}
	if (sticky & C_ANY)
		return NULL;
	if (ch->hung)
		return ch->hung == 1 ? NULL : "hang: the child did not finish (hang guard)";
	if (!sig || (sent & (1ULL << (sig & 63))))
		return NULL;
	if (wild_code_signal(sig) && (sticky & (C_MEM | C_HANDLER)))
		return NULL;
	if (sig == LSIG_PIPE && (cur & C_PIPE))
		return NULL;
	if (sig == LSIG_KILL && oom && (sticky & C_MEM))
		return NULL;
	snprintf(why, sizeof why, "the child was killed by signal %d, which no call explains", sig);
	return why;
}

static int on_pagoda(void)
{
	struct pagoda_meminfo m;

	return pagoda_meminfo(&m) == 0;
}

/* in_flight_record: the record of ch a failure names: a thread's call in
 * flight, else thread 0's last. */
static struct record *in_flight_record(const struct child *ch)
{
	for (int t = 0; t < F.threads; t++)
		if (ch->recs[t].in_flight)
			return &ch->recs[t];
	return ch->recs;
}

/* judge: fail unless how ch ended is explained (oom: the OOM killer ran
 * meanwhile); count it. */
static void judge(const struct child *ch, int oom)
{
	const char *why = unexplained(ch, oom);

	F.rec = in_flight_record(ch);
	if (ch->hung == 1 && !why)
		printf("sysfuzz: step %ld: the hang guard ended a child blocked in %s\n",
		       F.rec->step, format_record(F.rec));
	if (why)
		fail(F.rec->step, "%s", why);
	stats.children++;
	for (int t = 0; t < F.threads; t++) {
		stats.calls += (unsigned long)(ch->recs[t].done + ch->recs[t].in_flight);
		stats.errors += (unsigned long)ch->recs[t].errors;
	}
	stats.deaths += (ch->status & 0x7f) != 0 && !ch->hung;
	stats.hangs += ch->hung != 0;
}

static void open_files(void);
static void close_files(void);

/* run_batch: the batch whose first step is first: PROCS children, each
 * with THREADS threads. */
static void run_batch(long first, uint64_t rng)
{
	struct child ch[MAX_PROCS];

	memset(F.recs, 0, (size_t)F.procs * F.threads * sizeof *F.recs);
	memset(ch, 0, sizeof ch);
	memset((void *)SHARED_BASE, 0, SHARED_PAGES * PAGE);   /* present again after a
								  child's MADV_REMOVE */
	open_files();
	fflush(stdout);
	unsigned long oom_before = oom_kills();
	for (int k = 0; k < F.procs && (k == 0 || thread_first(first, k, 0) < F.calls); k++) {
		ch[k].recs = &F.recs[k * F.threads];
		ch[k].recs[0].step = thread_first(first, k, 0);
		ch[k].pid = fork();
		if (ch[k].pid < 0)
			fail(first, "fork failed: %s", strerror(errno));
		if (ch[k].pid == 0)
			child_main(k, first, rng);
	}
	int n = 0;
	while (n < F.procs && ch[n].pid > 0)
		n++;
	wait_children(ch, n);
	close_files();
	int oom = oom_kills() != oom_before;
	for (int k = 0; k < n; k++)
		judge(&ch[k], oom);
	if (on_pagoda() && pagoda_vmcheck() != 0)
		fail(first, "pagoda_vmcheck: %s", strerror(errno));
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

/* ---- memory pressure (-m, Pagoda) ---- */

#define PRESSURE_ROOM 2048   /* pages left free above the reclaim mark for the fuzzers */

static pid_t pressure_pid;

/* pressure_main: hold all free memory but PRESSURE_ROOM pages above the
 * reclaim low watermark (total/64: mm/reclaim.c), and forever write it all
 * and give it back with MADV_FREE: the fuzzers' allocations push free
 * memory below the mark, reclaim discards these pages, the next round's
 * writes fault them in again. */
static __attribute__((noreturn)) void pressure_main(uint64_t pages)
{
	size_t len = pages * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec nap = { 0, 10000000 };

	if (p == MAP_FAILED)
		_exit(3);
	for (unsigned round = 1;; round++) {
		for (size_t off = 0; off < len; off += PAGE)
			p[off] = (char)round;
		madvise(p, len, 8 /* MADV_FREE */);
		nanosleep(&nap, NULL);
	}
}

/* start_pressure: the hog, if -m and on Pagoda (again if the OOM killer
 * took it: it is the largest process). */
static void start_pressure(void)
{
	struct pagoda_meminfo m;

	if (pressure_pid > 0 && waitpid(pressure_pid, NULL, WNOHANG) == 0)
		return;
	pressure_pid = 0;
	if (!F.pressure || pagoda_meminfo(&m) != 0)
		return;
	uint64_t room = m.total_pages / 64 + PRESSURE_ROOM;
	if (m.free_pages <= room)
		return;
	fflush(stdout);
	pressure_pid = fork();
	if (pressure_pid == 0)
		pressure_main(m.free_pages - room);
}

static void stop_pressure(void)
{
	if (pressure_pid > 0) {
		kill(pressure_pid, SIGKILL);
		waitpid(pressure_pid, NULL, 0);
	}
	pressure_pid = 0;
}

/* warm_up: before the free-frame baseline, what the kernel keeps for good
 * once used (objects and cached pages of the files a child opens, /bin/true
 * that check_kernel runs) is made to exist: one batch that sets up and
 * makes no call, the checks once. */
static void warm_up(void)
{
	long calls = F.calls;

	F.calls = 0;
	run_batch(0, 0);
	F.calls = calls;
	check_kernel();
}

static void run_seed(uint64_t seed)
{
	long per_batch = F.per_child * F.procs * F.threads;

	F.seed = seed;
	for (long first = 0, batch = 0; first < F.calls; first += per_batch, batch++) {
		start_pressure();
		run_batch(first, seed * 0x2545f4914f6cdd1dULL + (uint64_t)batch);
		reap_orphans(0);
	}
	stop_pressure();   /* first: reap_orphans(1) would wait for it forever */
	reap_orphans(1);
	check_kernel();
	printf("TEST sysfuzz.seed_%llu PASS\n", (unsigned long long)seed);
	fflush(stdout);
}

/* open_files: the descriptors every child of a batch shares (the open
 * files themselves: one offset, one pipe buffer, one /proc text buffer),
 * opened anew for each batch: what a child left in them (a full pipe, a
 * cleared O_NONBLOCK, a generated /proc text) goes with them. */
static void open_files(void)
{
	int fds[2];

	if (pipe2(fds, O_NONBLOCK) < 0)
		fail(0, "setup: pipe2: %s", strerror(errno));
	F.own_fds[0] = fds[0];
	F.own_fds[1] = fds[1];
	F.own_fds[2] = open(F.host ? "/" : FZ_DIR, O_RDONLY);
	F.own_fds[3] = open(F.host ? "/proc/self/exe" : FZ_DIR "/true", O_RDONLY);
	F.own_fds[4] = open("/proc/self/status", O_RDONLY);
	F.own_fds[5] = open("/proc/meminfo", O_RDONLY);
}

static void close_files(void)
{
	for (int k = 0; k < 6; k++)
		if (F.own_fds[k] >= 0)
			close(F.own_fds[k]);
}

/* ---- Pagoda's full mode: a file system of the fuzzer's own ----
 *
 * The calls get names in FZ_DIR, a tmpfs mounted for the run (a copy of
 * /bin/true, a directory, a file, a symlink), and run there. A call may
 * still make names elsewhere: chdir("/") or chdir("..") followed by a
 * create, an open(O_CREAT) of /dev/vda where there is no disk. Before
 * the leak check every name that was not in /, /tmp, /dev or /dev/shm at
 * the start is removed and FZ_DIR is unmounted, so that the memory its
 * files held is free again. */
#define MAX_SNAPSHOT 256
#define NWATCHED 4
static char *snapshot[NWATCHED][MAX_SNAPSHOT];
static const char *const watched[NWATCHED] = { "/", "/tmp", "/dev", "/dev/shm" };

static void take_snapshot(void)
{
	for (int i = 0; i < NWATCHED; i++) {
		DIR *d = opendir(watched[i]);
		struct dirent *e;
		int n = 0;
		while (d && (e = readdir(d)) && n < MAX_SNAPSHOT - 1)
			snapshot[i][n++] = strdup(e->d_name);
		if (d)
			closedir(d);
	}
}

static int in_snapshot(int i, const char *name)
{
	for (int k = 0; snapshot[i][k]; k++)
		if (!strcmp(snapshot[i][k], name))
			return 1;
	return 0;
}

/* printable: s with bytes outside printable ASCII as \xHH (a fuzzed name
 * is random bytes), in a static buffer. */
static const char *printable(const char *s)
{
	static char out[4 * 300 + 1];
	size_t n = 0;
	for (; *s && n + 5 < sizeof out; s++)
		n += (size_t)snprintf(out + n, sizeof out - n, *s > 32 && *s < 127 ? "%c" : "\\x%02x",
				      (unsigned char)*s);
	out[n] = 0;
	return out;
}

/* rm -r path (not following links): 0, or the errno of path's lstat
 * (gone meanwhile: nothing to remove). */
static int remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char *sub = malloc(4096);
		while (d && sub && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(sub, 4096, "%s/%s", path, e->d_name);
				int err = remove_tree(sub);
				if (err)
					fail(F.calls, "cleanup: lstat: %s (%zu bytes): %.120s",
					     strerror(err), strlen(sub), printable(sub));
			}
		free(sub);
		if (d)
			closedir(d);
		if (rmdir(path) < 0)
			fail(F.calls, "cleanup: rmdir %s: %s", path, strerror(errno));
	} else if (unlink(path) < 0) {
		fail(F.calls, "cleanup: unlink %s: %s", path, strerror(errno));
	}
	return 0;
}


static void fuzz_fs_setup(void)
{
	static const char link_target[] = "true";
	take_snapshot();
	if (mkdir(FZ_DIR, 0755) < 0 || syscall(165, "tmpfs", FZ_DIR, "tmpfs", 0L, "mode=755") < 0)
		fail(0, "setup: mount tmpfs on " FZ_DIR ": %s", strerror(errno));
	int in = open("/bin/true", O_RDONLY), out = open(FZ_DIR "/true", O_WRONLY | O_CREAT, 0755);
	char buf[4096];
	ssize_t n;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			fail(0, "setup: copying /bin/true: %s", strerror(errno));
	close(in);
	close(out);
	if (mkdir(FZ_DIR "/d", 0755) < 0 || (out = open(FZ_DIR "/d/f", O_WRONLY | O_CREAT, 0644)) < 0 ||
	    write(out, "f\n", 2) != 2 || close(out) < 0 || symlink(link_target, FZ_DIR "/link") < 0 ||
	    syscall(133, FZ_DIR "/console", 0020600L, 0x501L) < 0 ||      /* mknod: /dev/console's twin */
	    syscall(133, FZ_DIR "/vda", 0060600L, (253L << 8)) < 0 ||     /* and /dev/vda's */
	    chdir(FZ_DIR) < 0)
		fail(0, "setup: files in " FZ_DIR ": %s", strerror(errno));
}

static void fuzz_fs_cleanup(void)
{
	char path[300];
	if (chdir("/") < 0 || syscall(166, FZ_DIR, 0L) < 0 || rmdir(FZ_DIR) < 0)
		fail(F.calls, "cleanup: umount " FZ_DIR ": %s", strerror(errno));
	for (int i = 0; i < NWATCHED; i++) {
		DIR *d = opendir(watched[i]);
		struct dirent *e;
		char last[300] = "";
		int err = 0;
		while (d && (e = readdir(d)))
			if (!in_snapshot(i, e->d_name)) {
				snprintf(path, sizeof path, "%s/%s", i ? watched[i] : "", e->d_name);
				if (!strcmp(path, last))   /* rewinddir would find it for ever */
					fail(F.calls, "cleanup: lstat: %s; listed again after its removal "
					     "(%zu bytes): %.120s", err ? strerror(err) : "found",
					     strlen(path), printable(path));
				strcpy(last, path);
				err = remove_tree(path);
				rewinddir(d);
			}
		if (d)
			closedir(d);
		for (int k = 0; snapshot[i][k]; k++) {
			free(snapshot[i][k]);
			snapshot[i][k] = NULL;
		}
	}
}

/* setup: the shared records and the scratch area (the children inherit
 * both), with an unmapped hole after the scratch buffer whose last pages
 * are the batch's shared mapping. */
static void setup(void)
{
	size_t rec_bytes = (size_t)F.procs * F.threads * sizeof *F.recs;
	void *p = mmap(NULL, rec_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	void *s = mmap((void *)SCRATCH_BASE, 2 * SCRATCH_PAGES * PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED || s != (void *)SCRATCH_BASE)
		fail(0, "setup: mmap: %s", strerror(errno));
	if (munmap((char *)s + SCRATCH_PAGES * PAGE, SCRATCH_PAGES * PAGE) != 0 ||
	    mprotect(s, SCRATCH_PAGES * PAGE, PROT_READ | PROT_WRITE) != 0)
		fail(0, "setup: scratch: %s", strerror(errno));
	if (mmap((void *)SHARED_BASE, SHARED_PAGES * PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != (void *)SHARED_BASE)
		fail(0, "setup: shared mapping: %s", strerror(errno));
	F.recs = p;
	F.rec = p;
	F.scratch = s;
}

static void usage(void)
{
	fprintf(stderr, "usage: sysfuzz [-s SEED] [-n CALLS] [-b PER_CHILD] [-t THREADS] "
		"[-P PROCS] [-m] [-T SECONDS] [-H] [-v]\n");
	exit(2);
}

/* drop_clean_cache: the page cache's clean pages nobody uses go, as
 * Linux's `echo 1 > /proc/sys/vm/drop_caches`. Before the baseline and
 * before each look at the end: reclaim may take such pages any time (a
 * child's big mapping makes it run), and a file that held one before the
 * baseline then counted as "file -1" (make fuzz, sysfuzz-all seed
 * 488425024: "leak of -2; ... file -2"). */
static void drop_clean_cache(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		fail(F.calls, "drop_caches: %s", strerror(errno));
	close(fd);
}

/* settled: are free frames and kmalloc objects where they were (m0)? */
static int settled(const struct pagoda_meminfo *m0, struct pagoda_meminfo *m1)
{
	drop_clean_cache();
	return pagoda_meminfo(m1) == 0 && m1->free_pages == m0->free_pages &&
	       m1->kmalloc_objects == m0->kmalloc_objects;
}

/* leak_check: on Pagoda, free frames and kmalloc objects are back where
 * they were (m0) once every child is gone. Given 2 s to settle: a reaped
 * process's last thread may still be on its way out on another CPU (its
 * thread group goes when that thread is switched out: kernel/thread.c's
 * thread_switched_out); a leak stays. */
static void leak_check(const struct pagoda_meminfo *m0)
{
	struct pagoda_meminfo m1;
	struct timespec nap = { 0, 20000000 };

	if (pagoda_vmcheck() != 0)
		fail(F.calls, "pagoda_vmcheck: %s", strerror(errno));
	for (int i = 0; i < 100 && !settled(m0, &m1); i++)
		nanosleep(&nap, NULL);
	if (!settled(m0, &m1))
		fail(F.calls, "free frames before %llu, after %llu (leak of %lld; "
		     "kernel %+lld, anon %+lld, file %+lld, page tables %+lld); "
		     "kmalloc objects %+lld",
		     (unsigned long long)m0->free_pages, (unsigned long long)m1.free_pages,
		     (long long)(m0->free_pages - m1.free_pages),
		     (long long)(m1.kernel_pages - m0->kernel_pages),
		     (long long)(m1.anon_pages - m0->anon_pages),
		     (long long)(m1.file_pages - m0->file_pages),
		     (long long)(m1.pagetable_pages - m0->pagetable_pages),
		     (long long)(m1.kmalloc_objects - m0->kmalloc_objects));
	printf("TEST sysfuzz.leakcheck PASS\n");
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, s;
	long seconds = 0;
	int c;
	struct pagoda_meminfo m0;

	F.calls = 3000;
	F.per_child = 40;
	F.threads = F.procs = 1;
	while ((c = getopt(argc, argv, "s:n:b:t:P:mT:Hv")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': F.calls = strtol(optarg, NULL, 0); break;
		case 'b': F.per_child = strtol(optarg, NULL, 0); break;
		case 't': F.threads = atoi(optarg); break;
		case 'P': F.procs = atoi(optarg); break;
		case 'm': F.pressure = 1; break;
		case 'T': seconds = strtol(optarg, NULL, 0); break;
		case 'H': F.host = 1; break;
		case 'v': F.verbose = 1; break;
		default: usage();
		}
	}
	if (F.calls < 0 || F.per_child < 1 || F.threads < 1 || F.threads > MAX_THREADS ||
	    F.procs < 1 || F.procs > MAX_PROCS)
		usage();
	int pagoda = on_pagoda();
	F.host |= !pagoda;
	printf("sysfuzz: seed %llu, %ld calls, %ld per thread, %d process%s of %d thread%s, "
	       "%s mode%s%s\n", (unsigned long long)seed, F.calls, F.per_child, F.procs,
	       F.procs > 1 ? "es" : "", F.threads, F.threads > 1 ? "s" : "",
	       F.host ? "host (allowlist)" : "full", F.pressure && pagoda ? ", memory pressure" : "",
	       seconds ? ", repeating with the next seeds" : "");
	fflush(stdout);
	setup();
	if (!F.host) {      /* once before the baseline: what the first time keeps (heap) */
		fuzz_fs_setup();
		if (mkdir("/tmp/sysfuzz-warm", 0755) < 0 || mkdir("/tmp/sysfuzz-warm/d", 0755) < 0 ||
		    close(open("/tmp/sysfuzz-warm/d/f", O_WRONLY | O_CREAT, 0644)) < 0)
			fail(0, "setup: /tmp/sysfuzz-warm: %s", strerror(errno));
		fuzz_fs_cleanup();   /* removes them too: remove_tree's memory is there from now on */
	}
	warm_up();
	if (pagoda) {
		drop_clean_cache();
		pagoda_meminfo(&m0);
	}
	if (!F.host)
		fuzz_fs_setup();   /* after the baseline: its umount gives all of it back */
	double end = now() + (double)seconds;
	s = seed;
	do
		run_seed(s++);
	while (seconds && now() < end);
	stop_pressure();
	if (!F.host)
		fuzz_fs_cleanup();
	if (pagoda)
		leak_check(&m0);
	printf("sysfuzz: PASS seeds %llu..%llu calls %lu errors %lu children %lu "
	       "explained-deaths %lu hangs %lu\n", (unsigned long long)seed,
	       (unsigned long long)(s - 1), stats.calls, stats.errors, stats.children,
	       stats.deaths, stats.hangs);
	return 0;
}

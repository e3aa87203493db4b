/* user/usertests/t_smp.c -- processes on several CPUs: they really spread
 * over every CPU, and fork/COW/exit running on all of them at once keeps
 * every process's memory its own. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "usertests.h"
#include <pagoda/pagoda.h>

#ifndef SYS_getcpu
#define SYS_getcpu 309
#endif

/* The CPUs online: the "cpuN" lines of /proc/stat (Linux's format). */
static int cpus_online(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	int n = 0;
	CHECK(f != NULL);
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9';
	fclose(f);
	CHECK(n >= 1);
	return n;
}

static int current_cpu(void)
{
	unsigned cpu = ~0u, node = ~0u;
	CHECK_OK(syscall(SYS_getcpu, &cpu, &node, NULL));
	CHECK(node == 0);
	return (int)cpu;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Do processes run on every CPU: Linux, or Pagoda unless booted with
 * smp_sched=0 (which keeps them on the boot CPU)? */
static int spreads(void)
{
	char line[512] = "";
	FILE *f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		fclose(f);
	}
	return ut_on_linux() || strstr(line, "smp_sched=0") == NULL;
}

/* smp_spread: n busy children, n the CPUs online; together they must run
 * on every CPU (each records the CPUs it saw in a shared word), within a
 * generous deadline. On one CPU, or on Pagoda with smp_sched=0: exactly
 * CPU 0. */
void test_smp_spread(void)
{
	int n = cpus_online();
	unsigned long *seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(seen != MAP_FAILED);
	unsigned long all = !spreads() ? 1UL : n >= 64 ? ~0UL : (1UL << n) - 1;
	pid_t kids[64];
	for (int i = 0; i < n && i < 64; i++) {
		kids[i] = ut_fork();
		if (kids[i] == 0) {
			double end = now_s() + 20;
			while (__atomic_load_n(seen, __ATOMIC_RELAXED) != all && now_s() < end) {
				int c = current_cpu();
				if (c < 0 || c >= n)
					_exit(2);
				__atomic_fetch_or(seen, 1UL << c, __ATOMIC_RELAXED);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < n && i < 64; i++) {
		int st = ut_wait(kids[i]);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	if (*seen != all)
		ut_fail(__FILE__, __LINE__, "%d CPUs online, children ran on mask %#lx", n, *seen);
	CHECK_OK(munmap(seen, 4096));
}

enum { STRESS_BYTES = 64 << 10, STRESS_ROUNDS = 12 };

static void fill(unsigned char *b, unsigned tag)
{
	for (size_t i = 0; i < STRESS_BYTES; i += 64)
		b[i] = (unsigned char)(tag + i / 64);
}

static int holds(const unsigned char *b, unsigned tag)
{
	for (size_t i = 0; i < STRESS_BYTES; i += 64)
		if (b[i] != (unsigned char)(tag + i / 64))
			return 0;
	return 1;
}

/* One worker: rounds of fork; the child checks the inherited copy, writes
 * its own and checks that; the parent checks that its copy did not move. */
static void stress_worker(unsigned id)
{
	unsigned char *b = ut_map_anon(STRESS_BYTES);
	for (unsigned r = 0; r < STRESS_ROUNDS; r++) {
		unsigned tag = id * 131 + r * 7;
		fill(b, tag);
		pid_t c = fork();
		if (c < 0)
			_exit(3);
		if (c == 0) {
			if (!holds(b, tag))
				_exit(4);
			fill(b, tag + 1);
			_exit(holds(b, tag + 1) ? 0 : 5);
		}
		int st;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(6);
		if (!holds(b, tag))
			_exit(7);
	}
	_exit(0);
}

/* smp_fork_stress: 2 workers per CPU fork, write and exit at the same time
 * (copy-on-write breaks and shared page tables on every CPU); every copy
 * holds what its own process wrote, and on Pagoda the VM invariant checker
 * passes afterwards (the user-fork suite also runs it at every exit). */
void test_smp_fork_stress(void)
{
	int n = 2 * cpus_online();
	pid_t w[128];
	for (int i = 0; i < n && i < 128; i++) {
		w[i] = ut_fork();
		if (w[i] == 0)
			stress_worker((unsigned)i);
	}
	for (int i = 0; i < n && i < 128; i++) {
		int st = ut_wait(w[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ut_fail(__FILE__, __LINE__, "worker %d: %s", i, ut_status_str(st));
	}
	if (!ut_on_linux())
		CHECK_OK(pagoda_vmcheck());
}

enum { RACE_PAGES = 8, RACE_ROUNDS = 40 };

/* One racer: say ready, wait for go, then set bit id in the first word of
 * every page of the untouched shared mapping m (their first touch). */
static void shm_racer(unsigned long *ctl, unsigned char *m, unsigned id)
{
	__atomic_fetch_add(&ctl[0], 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&ctl[1], __ATOMIC_ACQUIRE))
		sched_yield();
	for (int p = 0; p < RACE_PAGES; p++)
		__atomic_fetch_or((unsigned long *)(m + p * 4096), 1UL << id, __ATOMIC_SEQ_CST);
	_exit(0);
}

/* One round: n racers fault every page of a fresh MAP_SHARED anonymous
 * mapping at once; each page must hold every racer's bit (they all got
 * the object's one frame). Returns the first page missing a bit, or -1. */
static int shm_race_round(unsigned long *ctl, int n)
{
	unsigned char *m = mmap(NULL, RACE_PAGES * 4096, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	pid_t kids[64];
	ctl[0] = ctl[1] = 0;
	for (int i = 0; i < n; i++)
		if ((kids[i] = ut_fork()) == 0)
			shm_racer(ctl, m, (unsigned)i);
	while (__atomic_load_n(&ctl[0], __ATOMIC_ACQUIRE) != (unsigned long)n)
		sched_yield();
	__atomic_store_n(&ctl[1], 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++)
		CHECK(WIFEXITED(ut_wait(kids[i])));
	int bad = -1;
	for (int p = RACE_PAGES - 1; p >= 0; p--)
		if (*(unsigned long *)(m + p * 4096) != (1UL << n) - 1)
			bad = p;
	CHECK_OK(munmap(m, RACE_PAGES * 4096));
	return bad;
}

/* shm_fault_race: processes on every CPU touch a new shared anonymous page
 * at the same moment, 40 rounds of 8 pages; every write must land in the
 * one frame of the object. Before mm/shm.c had its lock, two faults could
 * both fill the empty slot: one process wrote to a frame nobody else saw
 * (and it leaked: usertests' "free pages -1 after smp_spread"). */
void test_shm_fault_race(void)
{
	int n = 2 * cpus_online();
	if (n > 32)
		n = 32;
	unsigned long *ctl = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(ctl != MAP_FAILED);
	ctl[0] = 0;
	for (int r = 0; r < RACE_ROUNDS; r++) {
		int bad = shm_race_round(ctl, n);
		if (bad >= 0)
			ut_fail(__FILE__, __LINE__, "round %d: page %d lost a writer's bit "
				"(%d processes)", r, bad, n);
	}
	CHECK_OK(munmap(ctl, 4096));
}

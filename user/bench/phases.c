/*
 * user/bench/phases.c -- where the kernel's time goes in fork, exit, wait and
 * page faults, from Pagoda's per-phase TSC counters (/proc/phasetime, on with
 * the kernel option `phasetime`; mm/frame/phasetime.h lists the phases). For each
 * workload it reads the counters before and after a batch of operations and
 * reports, per phase that ran, the cycles one occurrence took and how many
 * occurrences one operation had:
 *   fault      write one byte to each page of a fresh anonymous 1 MiB mapping
 *   fault_read read one byte of each page of one (each maps the zero page)
 *   fork       fork + _exit + wait of this small process (lat_proc's fork)
 *   fork_big   the same with MIB MiB (default 64) written by the parent first
 *   madv_free  memset a 1 MiB chunk, then madvise(MADV_FREE) it (madvbench's
 *              cycle_free: the rewrite after each call included)
 * Metrics: phases_<workload> <phase> cycles, and <phase>_n (occurrences per
 * operation); and `op`: the TSC cycles of one whole operation as user space
 * sees it (rdtsc around the batch), so that what the phases leave out
 * (system call entry, scheduling, wake-ups, user code) shows. Without /proc/phasetime (Linux, or a Pagoda kernel built
 * without PHASETIME=1 or booted without the option) every workload is skipped
 * (BENCHSKIP) and the exit status is 0.
 * Usage: phases [--quick] [--runs N] [MIB]
 */
#include "bench_mem.h"
#include "bench_proc.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 32
#define NAME_LEN 32
#define FAULT_KIB 1024

/* One reading of /proc/phasetime. */
struct snapshot {
	int n;
	char name[MAX_PHASES][NAME_LEN];
	unsigned long long count[MAX_PHASES], cycles[MAX_PHASES];
};

/* Read /proc/phasetime into *s; 0, or -1 when it is missing or disabled. */
static int snap(struct snapshot *s)
{
	FILE *f = fopen("/proc/phasetime", "r");
	char line[128];
	int enabled = 0;

	s->n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f) && s->n < MAX_PHASES) {
		if (sscanf(line, "enabled %d", &enabled) == 1 || !strncmp(line, "tsc_khz", 7))
			continue;
		if (sscanf(line, "%31s %llu %llu", s->name[s->n], &s->count[s->n],
			   &s->cycles[s->n]) == 3)
			s->n++;
	}
	fclose(f);
	return enabled && s->n ? 0 : -1;
}

/* A workload: `op` once is one operation. */
struct workload {
	const char *name;
	void (*op)(void *ctx);
	void *ctx;
	int iters;
};

/* Samples per phase across runs, and of the whole operation. */
struct samples {
	double cyc[MAX_PHASES][BENCH_MAX_RUNS], per_op[MAX_PHASES][BENCH_MAX_RUNS];
	int n[MAX_PHASES];
	double op[BENCH_MAX_RUNS];
	int nop;
};

/* The time-stamp counter (the kernel's phases count the same clock). */
static unsigned long long tsc_now(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

/* One run: the phase deltas of w->iters operations into *out. */
static void run_once(const struct workload *w, struct samples *out)
{
	struct snapshot a, b;

	if (snap(&a) < 0)
		bench_die("/proc/phasetime vanished");
	unsigned long long t0 = tsc_now();
	for (int i = 0; i < w->iters; i++)
		w->op(w->ctx);
	unsigned long long t1 = tsc_now();
	if (out->nop < BENCH_MAX_RUNS)
		out->op[out->nop++] = (double)(t1 - t0) / w->iters;
	if (snap(&b) < 0 || b.n != a.n)
		bench_die("/proc/phasetime changed shape");
	for (int p = 0; p < a.n; p++) {
		unsigned long long dc = b.count[p] - a.count[p];
		if (!dc || out->n[p] >= BENCH_MAX_RUNS)
			continue;
		out->cyc[p][out->n[p]] = (double)(b.cycles[p] - a.cycles[p]) / (double)dc;
		out->per_op[p][out->n[p]++] = (double)dc / w->iters;
	}
}

/* Run w bench_runs() times and report every phase that ran. */
static void measure(const struct workload *w, const struct snapshot *names)
{
	static struct samples s;
	char bench[64], metric[NAME_LEN + 8];

	memset(&s, 0, sizeof s);
	for (int r = 0; r < bench_runs(); r++)
		run_once(w, &s);
	snprintf(bench, sizeof bench, "phases_%s", w->name);
	bench_report(bench, "op", "cycles", s.op, s.nop);
	for (int p = 0; p < names->n; p++) {
		if (!s.n[p])
			continue;
		bench_report(bench, names->name[p], "cycles", s.cyc[p], s.n[p]);
		snprintf(metric, sizeof metric, "%s_n", names->name[p]);
		bench_report(bench, metric, "count", s.per_op[p], s.n[p]);
	}
}

/* Map, touch every page of (as *kind says), and unmap a fresh FAULT_KIB
 * mapping. */
static void op_fault(void *kind)
{
	size_t len = FAULT_KIB * 1024;
	void *p = bench_map(len);

	bench_touch(p, len, *(const enum bench_touch_kind *)kind);
	bench_unmap(p, len);
}

/* memset the chunk at ctx (FAULT_KIB), then give it back with MADV_FREE. */
static void op_madv_free(void *chunk)
{
	size_t len = FAULT_KIB * 1024;

	memset(chunk, 0x5a, len);
	bench_advise(chunk, len, MADV_FREE, "madvise(MADV_FREE)");
}

int main(int argc, char **argv)
{
	struct snapshot names;
	size_t big;
	void *mem;

	bench_init(&argc, argv, "phases");
	big = (size_t)(argc > 1 ? strtoul(argv[1], NULL, 10) : 64) << 20;
	if (bench_quick())
		big = 1 << 20;
	if (snap(&names) < 0) {
		const char *why = "no /proc/phasetime (Pagoda built with PHASETIME=1, make bench-phases, booted with phasetime)";
		bench_skip("phases_fault", "fault", why);
		bench_skip("phases_fault_read", "fault", why);
		bench_skip("phases_fork", "fork", why);
		bench_skip("phases_fork_big", "fork", why);
		bench_skip("phases_madv_free", "madv_free", why);
		return bench_finish();
	}
	enum bench_touch_kind write = BENCH_TOUCH_WRITE, read = BENCH_TOUCH_READ;
	struct workload fault = { "fault", op_fault, &write, bench_quick() ? 1 : 16 };
	struct workload fault_read = { "fault_read", op_fault, &read, bench_quick() ? 1 : 16 };
	struct workload fork = { "fork", bench_fork_exit_wait, NULL, bench_quick() ? 1 : 50 };
	struct workload fork_big = { "fork_big", bench_fork_exit_wait, NULL, bench_quick() ? 1 : 20 };
	measure(&fault, &names);
	measure(&fault_read, &names);
	measure(&fork, &names);
	mem = bench_map(big);
	bench_touch(mem, big, BENCH_TOUCH_WRITE);
	measure(&fork_big, &names);
	bench_unmap(mem, big);
	mem = bench_map(FAULT_KIB * 1024);
	struct workload madv = { "madv_free", op_madv_free, mem, bench_quick() ? 1 : 50 };
	op_madv_free(mem);   /* faults and records out of the way */
	measure(&madv, &names);
	bench_unmap(mem, FAULT_KIB * 1024);
	return bench_finish();
}

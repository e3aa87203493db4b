/*
 * user/bench/replace.c -- page replacement as a program meets it (issue 39):
 * anonymous memory of P pages, larger than RAM, referenced in the order of
 * a seeded trace (user/bench/bench_trace.h: loop, uniform, zipf, hotcold,
 * phases, scan), on whatever swap the kernel has.
 *
 *   replace [--quick] [--pages P] [--refs-per-page K] [--seed S]
 *           [--swapon DEV] [--traces NAME,...]
 *
 * Each trace gets a fresh mapping of P pages (default 4096) and K * P
 * references (default 5: most misses are then not first touches). The
 * first reference to a page writes its stamp; every later one reads the
 * page and checks the stamp, and every fourth writes a new one (so pages
 * are dirtied again, as a program's are). Per trace it prints, as BENCH
 * lines of bench "replace" with metrics NAME_WHAT (e.g. zipf_majflt):
 *
 *   majflt   major faults of this process (/proc/self/stat)
 *   pswpin   pages read from swap, pswpout pages written (/proc/vmstat)
 *   swap_ra  of the pages read, those read ahead (/proc/vmstat)
 *   activate, deactivate  pages the policy moved to the active (hot) list
 *            and back (pgactivate, pgdeactivate)
 *   refault, refault_active  pages back from swap whose eviction the
 *            kernel noted, and of those the ones it judged part of the
 *            working set (workingset_refault_anon, workingset_activate_anon)
 *   rss      mean resident pages of the mapping over the second half of
 *            the references (VmRSS sampled 64 times, less what it was
 *            before the mapping): the frames the kernel let the trace keep
 *            once it is warm, where
 *            tools/bench/swap_bench.py computes OPT, LRU and CLOCK
 *   wall     milliseconds
 *   bad      pages whose stamp was wrong (always 0; the exit status is 1
 *            otherwise)
 *
 * --swapon DEV turns swap on at DEV first (swapon(2); EBUSY is fine): the
 * same static binary does it on Linux and on Pagoda. With --quick: 64 pages,
 * 2 references per page (checks that it works, measures nothing).
 *
 * --filemix DEV:SKIP:DATA:ANON (MiB) then runs the mix of the two sides of
 * reclaim: ANON MiB of anonymous memory written once and left idle, then
 * DATA MiB of block device DEV from SKIP MiB on read with read(2) in
 * FILEMIX_ROUNDS rounds (page-cache pages with a store: Linux's file
 * LRU), then the idle memory checked. When the two do not fit in memory
 * together but the data alone does, the best a kernel can do is to swap
 * part of the idle memory out once and keep the data cached: the data read
 * from the disk once. Metrics of trace "filemix": dataread (pages of DEV
 * read from the disk: pgpgin less pswpin, in pages), pswpin, pswpout, wall,
 * bad (idle pages read back wrong).
 */
#define _GNU_SOURCE
#include "bench_mem.h"
#include "bench_trace.h"
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pagoda/procfs.h>

#define SAMPLES 64

struct counters {
	long long majflt, pswpin, pswpout, swap_ra, activate, deactivate, refault, refault_active;
};

/* This process's major faults: field 12 of /proc/self/stat. */
static long long own_majflt(void)
{
	char *t = procfs_read("/proc/self/stat", NULL), *p = t ? strrchr(t, ')') : NULL;
	long long v = -1;
	for (int field = 2; p && *p; p++)
		if (*p == ' ' && ++field == 12) {
			v = atoll(p + 1);
			break;
		}
	free(t);
	return v;
}

static struct counters now(void)
{
	struct counters c = { own_majflt(), procfs_vmstat("pswpin"), procfs_vmstat("pswpout"),
			      procfs_vmstat("swap_ra"), procfs_vmstat("pgactivate"),
			      procfs_vmstat("pgdeactivate"), procfs_vmstat("workingset_refault_anon"),
			      procfs_vmstat("workingset_activate_anon") };
	return c;
}

/* Resident pages of this process now (VmRSS). */
static long long rss_pages(void)
{
	char *t = procfs_read("/proc/self/status", NULL);
	long long kb = t ? procfs_field(t, "VmRSS") : -1;
	free(t);
	return kb < 0 ? -1 : kb * 1024 / bench_page_size();
}

/* The stamp of page p after its v-th write. */
static uint64_t stamp(uint64_t p, uint32_t v)
{
	return (p << 32 | v) ^ 0x5eed5eed00000000ull;
}

struct replay {
	uint64_t refs, bad;
	long long rss_sum;
	int rss_n;
};

/* Replay trace t over m: writes, checks, samples the RSS. */
static void replay(struct trace *t, volatile uint64_t *m, uint32_t *version, struct replay *r,
		   long long rss0)
{
	uint64_t words = (uint64_t)bench_page_size() / 8, every = r->refs / 2 / SAMPLES + 1;
	for (uint64_t i = 0; i < r->refs; i++) {
		uint64_t p = trace_next(t);
		volatile uint64_t *w = m + p * words;
		if (version[p] && *w != stamp(p, version[p]))
			r->bad++;
		if (!version[p] || i % 4 == 0)
			*w = stamp(p, ++version[p]);
		if (i >= r->refs / 2 && i % every == 0) {
			r->rss_sum += rss_pages() - rss0;
			r->rss_n++;
		}
	}
}

/* One value of trace `trace`: metric TRACE_WHAT of bench "replace". */
static void report1(const char *trace, const char *what, const char *unit, double v)
{
	char metric[64];
	snprintf(metric, sizeof(metric), "%s_%s", trace, what);
	bench_report("replace", metric, unit, &v, 1);
}

/* One trace: fresh mapping, replay, BENCH lines; the pages read wrong. */
static uint64_t run_trace(enum trace_kind kind, uint64_t pages, uint64_t per_page, uint64_t seed)
{
	struct trace t;
	struct replay r = { .refs = pages * per_page };
	size_t len = pages * (size_t)bench_page_size();
	uint32_t *version = calloc(pages, sizeof(*version));
	if (!version || trace_init(&t, kind, pages, seed) != 0)
		bench_die("out of memory for the trace");
	long long rss0 = rss_pages();
	volatile uint64_t *m = bench_map(len);
	struct counters c0 = now();
	uint64_t t0 = bench_now_ns();
	replay(&t, m, version, &r, rss0);
	double ms = (double)(bench_now_ns() - t0) / 1e6;
	struct counters c1 = now();
	const char *name = trace_name(kind);
	report1(name, "majflt", "count", (double)(c1.majflt - c0.majflt));
	report1(name, "pswpin", "pages", (double)(c1.pswpin - c0.pswpin));
	report1(name, "pswpout", "pages", (double)(c1.pswpout - c0.pswpout));
	report1(name, "swap_ra", "pages", (double)(c1.swap_ra - c0.swap_ra));
	report1(name, "activate", "pages", (double)(c1.activate - c0.activate));
	report1(name, "deactivate", "pages", (double)(c1.deactivate - c0.deactivate));
	report1(name, "refault", "pages", (double)(c1.refault - c0.refault));
	report1(name, "refault_active", "pages", (double)(c1.refault_active - c0.refault_active));
	report1(name, "rss", "pages", r.rss_n ? (double)r.rss_sum / r.rss_n : (double)pages);
	report1(name, "wall", "ms", ms);
	report1(name, "bad", "count", (double)r.bad);
	bench_unmap((void *)m, len);
	trace_free(&t);
	free(version);
	return r.bad;
}

#define FILEMIX_ROUNDS 6
#define FILEMIX_CHUNK (64 * 1024)

/* Read [skip, skip + bytes) of fd once, a chunk at a time (false: a read failed). */
static int read_once(int fd, uint64_t skip, uint64_t bytes, char *buf)
{
	for (uint64_t off = 0; off < bytes; off += FILEMIX_CHUNK)
		if (pread(fd, buf, FILEMIX_CHUNK, (off_t)(skip + off)) != FILEMIX_CHUNK)
			return 0;
	return 1;
}

/* --filemix: the idle region, the data read in rounds, the region checked;
 * its BENCH lines. The pages read wrong. */
static uint64_t run_filemix(const char *dev, uint64_t skip_mib, uint64_t data_mib,
			    uint64_t anon_mib)
{
	uint64_t page = (uint64_t)bench_page_size(), words = page / 8;
	uint64_t pages = anon_mib * (1 << 20) / page, bad = 0;
	int fd = open(dev, O_RDONLY);
	char *buf = malloc(FILEMIX_CHUNK);
	volatile uint64_t *m = bench_map(pages * page);
	if (fd < 0 || !buf)
		bench_die(dev);
	for (uint64_t p = 0; p < pages; p++)
		m[p * words] = stamp(p, 1);
	long long in0 = procfs_vmstat("pgpgin"), sin0 = procfs_vmstat("pswpin");
	long long sout0 = procfs_vmstat("pswpout");
	uint64_t t0 = bench_now_ns();
	for (int r = 0; r < FILEMIX_ROUNDS; r++)
		if (!read_once(fd, skip_mib << 20, data_mib << 20, buf))
			bench_die("filemix: read");
	double ms = (double)(bench_now_ns() - t0) / 1e6;
	long long sin = procfs_vmstat("pswpin") - sin0;
	long long data = (procfs_vmstat("pgpgin") - in0) * 1024 / (long long)page - sin;
	long long sout = procfs_vmstat("pswpout") - sout0;
	for (uint64_t p = 0; p < pages; p++)
		bad += m[p * words] != stamp(p, 1);
	report1("filemix", "dataread", "pages", (double)data);
	report1("filemix", "pswpin", "pages", (double)sin);
	report1("filemix", "pswpout", "pages", (double)sout);
	report1("filemix", "wall", "ms", ms);
	report1("filemix", "bad", "count", (double)bad);
	bench_unmap((void *)m, pages * page);
	free(buf);
	close(fd);
	return bad;
}

/* --traces NAME,...: *mask gets their bits; false for an unknown name. */
static int parse_traces(char *list, unsigned *mask)
{
	*mask = 0;
	for (char *w = strtok(list, ","); w; w = strtok(NULL, ",")) {
		int k = trace_kind_of(w);
		if (k < 0)
			return 0;
		*mask |= 1u << k;
	}
	return 1;
}

int main(int argc, char **argv)
{
	bench_init(&argc, argv, "replace");
	uint64_t pages = 4096, per_page = 5, seed = 1, bad = 0;
	unsigned mask = (1u << TRACE_KINDS) - 1;
	const char *swapdev = NULL;
	char mixdev[64] = "";
	unsigned long long mix[3] = { 0 };   /* skip, data, anon (MiB) */
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--pages") && v)
			pages = strtoull(v, NULL, 0), i++;
		else if (!strcmp(argv[i], "--refs-per-page") && v)
			per_page = strtoull(v, NULL, 0), i++;
		else if (!strcmp(argv[i], "--seed") && v)
			seed = strtoull(v, NULL, 0), i++;
		else if (!strcmp(argv[i], "--swapon") && v)
			swapdev = v, i++;
		else if (!strcmp(argv[i], "--filemix") && v &&
			 sscanf(v, "%63[^:]:%llu:%llu:%llu", mixdev, &mix[0], &mix[1], &mix[2]) == 4)
			i++;
		else if (!(!strcmp(argv[i], "--traces") && v && parse_traces(argv[++i], &mask))) {
			fprintf(stderr, "usage: replace [--quick] [--pages P] [--refs-per-page K] "
				"[--seed S] [--swapon DEV] [--traces NAME,...] "
				"[--filemix DEV:SKIP:DATA:ANON]\n");
			return 2;
		}
	}
	if (bench_quick())
		pages = 64, per_page = 2;
	if (pages < 8 || !per_page) {
		fprintf(stderr, "replace: --pages at least 8, --refs-per-page at least 1\n");
		return 2;
	}
	if (swapdev && syscall(SYS_swapon, swapdev, 0) != 0 && errno != EBUSY)
		bench_die(swapdev);
	for (int k = 0; k < TRACE_KINDS; k++)
		if (mask & (1u << k))
			bad += run_trace((enum trace_kind)k, pages, per_page, seed);
	if (*mixdev)
		bad += run_filemix(mixdev, mix[0], bench_quick() ? 1 : mix[1], bench_quick() ? 1 : mix[2]);
	bench_finish();
	return bad ? 1 : 0;
}

/* user/usertests/t_madv.c -- MADV_FREE and MADV_DONTNEED as Linux has them
 * (since 4.5): a rewritten page keeps its data, a clean one may read back as
 * zeros once reclaim ran, the errno cases, fork, exit with lazy-free pages
 * pending, and the kernel's counters. On Pagoda the tests also create memory
 * pressure (a child that allocates until the lazy-free list is empty) and
 * check the kernel's lazy-free counters; on Linux (no pagoda_meminfo) they
 * only check what must hold without pressure. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include <stdlib.h>
#include <time.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define PRESSURE_CHUNK (1u << 20)
#define BIG_REGION (64u << 20)   /* the checksummed region of madv_free_pressure */

/* map: an anonymous private RW mapping of len bytes (fails the test). */
static unsigned char *map(size_t len)
{
	void *p = mmap(NULL, len, RW, ANON, -1, 0);

	if (p == MAP_FAILED)
		ut_fail(__FILE__, __LINE__, "mmap(%zu) failed: errno %d", len, errno);
	return p;
}

/* fill_page / page_sum: a pattern per (page, generation) and its checksum. */
static void fill_page(unsigned char *pg, size_t i, unsigned gen)
{
	uint32_t x = (uint32_t)(i * 2654435761u) ^ (gen * 40503u) ^ 1u;

	for (size_t k = 0; k < PAGE; k += 4) {
		x = x * 1103515245u + 12345u;
		memcpy(pg + k, &x, 4);
	}
}

static uint64_t page_sum(const unsigned char *pg)
{
	uint64_t s = 0;

	for (size_t k = 0; k < PAGE; k += 8) {
		uint64_t w;
		memcpy(&w, pg + k, 8);
		s = (s ^ w) * 0x100000001b3ull;
	}
	return s;
}

static uint64_t expected_sum(size_t i, unsigned gen)
{
	static unsigned char buf[PAGE];

	fill_page(buf, i, gen);
	return page_sum(buf);
}

static int page_is_zero(const unsigned char *pg)
{
	for (size_t k = 0; k < PAGE; k++)
		if (pg[k])
			return 0;
	return 1;
}

/* meminfo: the kernel's counters; 0 on Linux (no pagoda_meminfo). */
static int meminfo(struct pagoda_meminfo *m)
{
	return pagoda_meminfo(m) == 0;
}

/* A memory hog for Pagoda: forked BEFORE the tested pages exist (so it
 * does not map them too), it waits on a pipe; hog_run lets it allocate and
 * touch memory 1 MiB at a time until the kernel's lazy-free list is empty
 * (every lazy-free page was scanned by reclaim), then reaps it. It may also
 * be killed for lack of memory; the caller checks the data either way. */
struct hog {
	pid_t pid;    /* 0: no hog (Linux: no pagoda_meminfo) */
	int go;       /* write end of the start pipe */
};

static void hog_main(int go)
{
	struct pagoda_meminfo m;
	char c;

	if (read(go, &c, 1) != 1 || !meminfo(&m))
		_exit(1);
	for (uint64_t got = 0; got < m.total_pages * PAGE; got += PRESSURE_CHUNK) {
		if (meminfo(&m) && m.lazyfree_pages == 0)
			_exit(0);
		unsigned char *p = mmap(NULL, PRESSURE_CHUNK, RW, ANON, -1, 0);
		if (p == MAP_FAILED)
			_exit(0);
		for (size_t k = 0; k < PRESSURE_CHUNK; k += PAGE)
			p[k] = 1;
	}
	_exit(0);
}

static struct hog hog_start(void)
{
	struct pagoda_meminfo m;
	struct hog h = { 0, -1 };
	int fds[2];

	if (!meminfo(&m))
		return h;
	CHECK_OK(pipe(fds));
	h.pid = ut_fork();
	if (h.pid == 0) {
		close(fds[1]);
		hog_main(fds[0]);
	}
	close(fds[0]);
	h.go = fds[1];
	return h;
}

/* hog_run: let the hog loose and wait for it; 1 if there was pressure. */
static int hog_run(struct hog *h)
{
	if (!h->pid)
		return 0;
	CHECK(write(h->go, "g", 1) == 1);
	close(h->go);
	ut_wait(h->pid);
	return 1;
}

/* madv_free_rewrite: after MADV_FREE the pages stay mapped; rewritten ones
 * keep the new data, the others read back as the old data or as zeros. On
 * Pagoda: the entries are LAZYFREE and clean, a write makes them dirty,
 * and LazyFree / pglazyfree count the pages. */
void test_madv_free_rewrite(void)
{
	enum { N = 64 };
	unsigned char *p = map(N * PAGE);
	struct pagoda_meminfo m0, m1;
	struct pagoda_vmquery q;
	int pagoda = meminfo(&m0);

	for (size_t i = 0; i < N; i++)
		fill_page(p + i * PAGE, i, 0);
	CHECK_OK(madvise(p, N * PAGE, MADV_FREE));
	if (pagoda) {
		CHECK(meminfo(&m1));
		CHECK(m1.pglazyfree - m0.pglazyfree == N);
		CHECK(m1.lazyfree_pages - m0.lazyfree_pages == N);
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK(q.mapped && (q.soft & VMQ_LAZYFREE) && !(q.soft & VMQ_DIRTY));
	}
	for (size_t i = 0; i < N; i += 2)
		fill_page(p + i * PAGE, i, 1);
	if (pagoda) {
		CHECK_OK(pagoda_vmquery(p, &q));
		CHECK((q.soft & VMQ_LAZYFREE) && (q.soft & VMQ_DIRTY));
	}
	for (size_t i = 0; i < N; i++) {
		uint64_t s = page_sum(p + i * PAGE);
		if (i % 2 == 0)
			CHECK(s == expected_sum(i, 1));
		else
			CHECK(s == expected_sum(i, 0) || page_is_zero(p + i * PAGE));
	}
	CHECK_OK(munmap(p, N * PAGE));
	if (pagoda) {
		CHECK(meminfo(&m1));
		CHECK(m1.lazyfree_pages == m0.lazyfree_pages);   /* munmap forgot them */
	}
}

/* madv_free_pressure: 64 MiB MADV_FREE'd, every other page rewritten, the
 * last PROT_NONE_PAGES made PROT_NONE, then memory pressure: every
 * rewritten page keeps its checksum; on Pagoda every clean page reads back
 * as zeros but the PROT_NONE ones (no present entry to clear: they keep
 * their data), the counters show the reclaim, and no page is left on the
 * lazy list (a PROT_NONE one went back to the normal lists instead of
 * keeping the reclaimer coming back for it). */
void test_madv_free_pressure(void)
{
	enum { PROT_NONE_PAGES = 8 };
	const size_t n = BIG_REGION / PAGE;
	unsigned char *none_at;
	struct hog h = hog_start();
	unsigned char *p = map(BIG_REGION);
	struct pagoda_meminfo m0, m1;

	for (size_t i = 0; i < n; i++)
		fill_page(p + i * PAGE, i, 0);
	int pagoda = meminfo(&m0);
	CHECK_OK(madvise(p, BIG_REGION, MADV_FREE));
	for (size_t i = 0; i < n; i += 2)
		fill_page(p + i * PAGE, i, 1);
	none_at = p + (n - PROT_NONE_PAGES) * PAGE;
	CHECK_OK(mprotect(none_at, PROT_NONE_PAGES * PAGE, PROT_NONE));
	int pressed = hog_run(&h);
	CHECK_OK(mprotect(none_at, PROT_NONE_PAGES * PAGE, PROT_READ | PROT_WRITE));
	size_t zeros = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = page_sum(p + i * PAGE);
		if (i % 2 == 0) {
			if (s != expected_sum(i, 1))
				ut_fail(__FILE__, __LINE__, "rewritten page %zu lost its data", i);
		} else if (page_is_zero(p + i * PAGE)) {
			zeros++;
		} else if (s != expected_sum(i, 0)) {
			ut_fail(__FILE__, __LINE__, "clean page %zu is neither old nor zero", i);
		}
	}
	if (pressed && pagoda) {
		CHECK(meminfo(&m1));
		if (zeros != n / 2 - PROT_NONE_PAGES / 2)
			ut_fail(__FILE__, __LINE__, "%zu of %zu clean pages were reclaimed",
				zeros, n / 2 - PROT_NONE_PAGES / 2);
		CHECK(m1.pglazyfreed - m0.pglazyfreed >= n / 2 - PROT_NONE_PAGES / 2);
		CHECK(m1.reclaim_scans - m0.reclaim_scans >= n);
		CHECK(m1.lazyfree_pages == 0);
	}
	p[PAGE] = 7;   /* a reclaimed page is ordinary memory again */
	CHECK(p[PAGE] == 7);
	CHECK_OK(munmap(p, BIG_REGION));
}

/* madv_free_dontneed: MADV_DONTNEED after MADV_FREE drops the pages now
 * (zeros, the lazy-free records go away). */
void test_madv_free_dontneed(void)
{
	enum { N = 16 };
	unsigned char *p = map(N * PAGE);
	struct pagoda_meminfo m0, m1;
	int pagoda = meminfo(&m0);

	memset(p, 'x', N * PAGE);
	CHECK_OK(madvise(p, N * PAGE, MADV_FREE));
	CHECK_OK(madvise(p, N * PAGE, MADV_DONTNEED));
	for (size_t i = 0; i < N; i++)
		CHECK(page_is_zero(p + i * PAGE));
	if (pagoda) {
		CHECK(meminfo(&m1));
		CHECK(m1.lazyfree_pages == m0.lazyfree_pages);
	}
	CHECK_OK(munmap(p, N * PAGE));
}

/* madv_free_errors: Linux's errno for each bad call. */
void test_madv_free_errors(void)
{
	unsigned char *p = map(3 * PAGE);
	void *sh = mmap(NULL, PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char path[300];

	snprintf(path, sizeof path, "%s/usertests", ut_bindir);
	int fd = open(path, O_RDONLY);

	CHECK(sh != MAP_FAILED);
	CHECK_ERR(madvise(p + 1, PAGE, MADV_FREE), EINVAL);        /* unaligned */
	CHECK_ERR(madvise(p, PAGE, 77), EINVAL);                   /* unknown advice */
	CHECK_ERR(madvise(sh, PAGE, MADV_FREE), EINVAL);           /* shared */
	CHECK_OK(fd);
	void *f = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(f != MAP_FAILED);
	CHECK_ERR(madvise(f, PAGE, MADV_FREE), EINVAL);            /* file */
	CHECK_OK(madvise(f, PAGE, MADV_DONTNEED));                 /* fine on files */
	CHECK_OK(madvise(p, 0, MADV_FREE));                        /* empty */
	CHECK_OK(munmap(p + PAGE, PAGE));
	CHECK_ERR(madvise(p, 3 * PAGE, MADV_FREE), ENOMEM);        /* hole */
	CHECK_OK(munmap(p, 3 * PAGE));
	CHECK_ERR(madvise(p, PAGE, MADV_FREE), ENOMEM);            /* unmapped */
	CHECK_OK(munmap(f, PAGE));
	CHECK_OK(munmap(sh, PAGE));
	close(fd);
}

/* madv_free_fork: MADV_FREE'd pages shared with a child after fork are
 * mapped twice: reclaim must not discard them (both keep the data). */
void test_madv_free_fork(void)
{
	enum { N = 256 };
	unsigned char *p = map(N * PAGE);

	for (size_t i = 0; i < N; i++)
		fill_page(p + i * PAGE, i, 0);
	CHECK_OK(madvise(p, N * PAGE, MADV_FREE));
	pid_t pid = ut_fork();
	if (pid == 0) {
		struct hog h = hog_start();   /* maps the pages a third time */
		hog_run(&h);
		for (size_t i = 0; i < N; i++)
			if (page_sum(p + i * PAGE) != expected_sum(i, 0))
				ut_fail(__FILE__, __LINE__, "child: shared page %zu changed", i);
		fill_page(p, 0, 2);   /* copy-on-write: the parent must not see it */
		_exit(0);
	}
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (size_t i = 0; i < N; i++)
		if (page_sum(p + i * PAGE) != expected_sum(i, 0))
			ut_fail(__FILE__, __LINE__, "parent: page %zu changed", i);
	CHECK_OK(munmap(p, N * PAGE));
}

/* madv_free_exit: a process that exits with lazy-free pages pending leaves
 * no record behind (LazyFree back where it was; the runner's leak check
 * sees the frames). */
void test_madv_free_exit(void)
{
	enum { N = 128 };
	struct pagoda_meminfo m0, m1;
	int pagoda = meminfo(&m0);
	pid_t pid = ut_fork();

	if (pid == 0) {
		unsigned char *p = map(N * PAGE);
		memset(p, 'e', N * PAGE);
		CHECK_OK(madvise(p, N * PAGE, MADV_FREE));
		p[0] = 'w';
		_exit(0);   /* no munmap */
	}
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (pagoda) {
		CHECK(meminfo(&m1));
		CHECK(m1.lazyfree_pages == m0.lazyfree_pages);
		CHECK(m1.pglazyfree - m0.pglazyfree == N);
	}
}

/* ---- the background reclaimer ---- */

/* Pagoda's one zone (/proc/zoneinfo): free pages and the watermarks. */
struct zone {
	long long free, min, low, high;
};

/* The number after word (a line's first word) in /proc/zoneinfo, or -1. */
static long long zone_field(const char *t, const char *word)
{
	size_t n = strlen(word);
	for (const char *l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *w = l + strspn(l, " ");
		if (!strncmp(w, word, n) && w[n] == ' ')
			return atoll(w + n);
	}
	return -1;
}

static struct zone read_zone(void)
{
	char *t = procfs_read("/proc/zoneinfo", NULL);
	if (!t)
		ut_fail(__FILE__, __LINE__, "/proc/zoneinfo: errno %d", errno);
	struct zone z = { zone_field(t, "pages free"), zone_field(t, "min"),
			  zone_field(t, "low"), zone_field(t, "high") };
	free(t);
	if (z.free < 0 || z.min < 0 || z.low <= z.min || z.high <= z.low)
		ut_fail(__FILE__, __LINE__, "/proc/zoneinfo: free %lld min %lld low %lld high %lld",
			z.free, z.min, z.low, z.high);
	return z;
}

/* madv_free_background: free memory taken below the low watermark but kept
 * above min by page faults alone (no allocation reclaims, and no system
 * call does above min): the reclaimer thread, woken by the tick, takes
 * MADV_FREE'd pages back by itself within a few ticks (pgsteal_kswapd,
 * pageoutrun), up to the high watermark. Pagoda only (Linux's zones and
 * watermarks differ): on Linux it checks that the pages read back intact
 * or as zeros. */
void test_madv_free_background(void)
{
	const size_t lazy_len = 32u << 20, n = lazy_len / PAGE;
	unsigned char *lazy = map(lazy_len);
	for (size_t i = 0; i < n; i++)
		fill_page(lazy + i * PAGE, i, 0);
	CHECK_OK(madvise(lazy, lazy_len, MADV_FREE));
	if (!ut_on_linux()) {
		struct zone z = read_zone();
		long long target = z.low - (z.low - z.min) / 4;   /* below low, far above min */
		CHECK(z.free > z.low && z.high - target <= (long long)n);
		long long runs0 = ut_vmstat("pageoutrun");
		long long steal0 = ut_vmstat("pgsteal_kswapd");
		size_t touch = (size_t)(z.free - target) * PAGE;
		unsigned char *hog = map(touch);
		for (size_t off = 0; off < touch; off += PAGE)
			hog[off] = 1;   /* page faults only: no system call */
		struct timespec ts = { 0, 200 * 1000 * 1000 };   /* 20 ticks */
		nanosleep(&ts, NULL);
		CHECK(ut_vmstat("pageoutrun") > runs0);
		CHECK(ut_vmstat("pgsteal_kswapd") > steal0);
		CHECK(read_zone().free >= z.low);
		CHECK_OK(munmap(hog, touch));
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t s = page_sum(lazy + i * PAGE);
		if (s != expected_sum(i, 0) && !page_is_zero(lazy + i * PAGE))
			ut_fail(__FILE__, __LINE__, "lazy page %zu neither intact nor zero", i);
	}
	CHECK_OK(munmap(lazy, lazy_len));
}

/* user/swaptests.c -- swap as programs see it: swapon(2), swapoff(2),
 * /proc/swaps and /proc/meminfo, and anonymous memory larger than RAM that
 * comes back byte for byte.
 *
 * Runs as pid 1 on Pagoda with the disks the test runner makes for the
 * suite (tests/suites.txt): vda a plain disk (not a swap area), vdb made by
 * mkswap (tests/qemu/disks.py's "swap" disks). It turns vdb on itself
 * (`swaptests -d DEV TEST...`: DEV instead, for a run with one disk). On
 * Linux the same calls need root and a spare disk, so it refuses to run
 * unless it is pid 1 (the init of a test VM). Every page a test writes
 * holds a stamp of (page, round) in every 8-byte word it checks, so a page
 * read back from the wrong slot, or a stale one, is found.
 *
 *   area      swapon's and swapoff's errnos: a missing path ENOENT, a disk
 *             that is not a swap area EINVAL, a character device EINVAL,
 *             unknown flags EINVAL, the area on twice EBUSY, mounting it
 *             while on EBUSY (EINVAL once off), swapoff of
 *             something not on EINVAL; /proc/swaps and SwapTotal/SwapFree
 *             show the area (with its priority), and drop it after swapoff
 *   big       (MIB, default 2 x RAM) anonymous memory stamped page by page,
 *             then read back in another order: every stamp right; vmstat's
 *             pswpout and pswpin and pgmajfault grew; SwapFree fell;
 *             VmSwap + VmRSS cover the mapping
 *   fork      a child forked over 1.25 x RAM (COW, shared page
 *             tables) reads the parent's stamps, rewrites half; the parent
 *             still reads its own: a page swapped out once is right for
 *             every sharer
 *   threads   4 threads, each its own part of a mapping of 1.25 x RAM,
 *             stamped and checked
 *   swapoff   pages swapped out, then swapoff: SwapTotal 0, every stamp
 *             right (the pages came back, none read again), then swapon
 *             again; and swapoff with more on the area than memory can
 *             hold: ENOMEM, the area stays on, nothing lost
 *   policy    the replacement policy's victims: a hog writing 1.5 x RAM
 *             once (a scan) loses its own pages, not a region written
 *             before it (its hot quarter, read after every MiB of the scan,
 *             all but whole; the rest mostly: mincore); each page of the
 *             scan not resident is a swap entry (pagoda_vmquery's
 *             VMQ_SWAPPED); stamps right; swapoff right after the
 *             munmap succeeds (it waits for writes in flight)
 *   madvise   MADV_PAGEOUT of 4 MiB swaps it out at once (pswpout, VmSwap),
 *             read back in order it takes at most a major fault for two
 *             pages (read-ahead), MADV_COLD leaves it mapped, every stamp
 *             right after both;
 *             with swap off MADV_PAGEOUT does nothing but drop the clean
 *             lazy-free pages (MADV_FREE'd, one written again: kept)
 *   tmpfs     tmpfs pages to swap and back: shared anonymous memory of 1.5 x
 *             RAM stamped and read back; a tmpfs file of 1.5 x RAM written
 *             and read (read(2), a shared mapping); cut in a page that is
 *             out, its tail zeros; swapoff brings the rest back; the file's
 *             removal frees its slots (SwapFree as before)
 *   file      (only when named: the root an ext2 disk, no vdb) swap files:
 *             one on tmpfs, one with holes, one too small, one with no
 *             header: EINVAL; then a file written whole with mkswap's
 *             header turned on ("file" in /proc/swaps, scattered pages of
 *             1 KiB blocks left out), twice EBUSY; while on, write,
 *             ftruncate, fallocate ETXTBSY, unlink and rename EPERM, a
 *             store through a shared mapping SIGBUS; 2 x RAM stamped and
 *             read back through it; swapoff, then the file is a file again
 *             (written, removed); the test runner's e2fsck finds the disk
 *             clean (swap wrote only the file's blocks); a swap file on
 *             vdb (ext2) mounted: umount EBUSY until swapoff; swapon of
 *             the mounted vdb itself EBUSY (EINVAL once unmounted)
 *   eio       (only when named: vdb a swap area behind QEMU's blkdebug,
 *             tests/qemu/disks.py's "eio" disks, which fails every read of
 *             slot 16384 and every write of slot 16385) a child stamps 2 x
 *             RAM and reads it back: it alone dies of SIGBUS (the page of
 *             slot 16384); the slot whose write failed left the area
 *             (SwapTotal 4 kB less: its page stayed in memory) and every
 *             other slot of the child's is free again (what is in use is
 *             this process's VmSwap and tmpfs's ShmemSwapped)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>

#define PAGE 4096UL
#define PLAIN_DISK "/dev/vda"
#define SWAP_FLAG_PREFER 0x8000

static int failures;
static const char *test_arg;
static const char *swap_disk = "/dev/vdb";   /* -d DEV: another */

static void fail(int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("swaptests:%d: ", line);
	vprintf(fmt, ap);
	printf(" (errno %d)\n", errno);
	va_end(ap);
	__atomic_add_fetch(&failures, 1, __ATOMIC_SEQ_CST);
}

#define CHECK(c) do { if (!(c)) fail(__LINE__, "%s", #c); } while (0)
#define CHECK_ERR(e, want) do { errno = 0; long r_ = (long)(e); \
	if (r_ != -1 || errno != (want)) fail(__LINE__, "%s: %ld, want -1 with %s", #e, r_, #want); } while (0)

static long swapon(const char *path, int flags)
{
	return syscall(SYS_swapon, path, flags);
}

static long swapoff(const char *path)
{
	return syscall(SYS_swapoff, path);
}

/* A /proc/meminfo field in KiB, or -1. */
static long long meminfo(const char *name)
{
	char *t = procfs_read("/proc/meminfo", NULL);
	long long v = t ? procfs_field(t, name) : -1;
	free(t);
	return v;
}

/* The stamp of page i in round r: differs for every page and round. */
static uint64_t stamp(uint64_t i, uint64_t r)
{
	return (i * 0x9e3779b97f4a7c15ull) ^ (r << 48) ^ 0x5357415054455354ull;
}

/* Stamp page i of m: its first, middle and last words. */
static void put(volatile uint64_t *m, uint64_t i, uint64_t r)
{
	volatile uint64_t *p = m + i * (PAGE / 8);
	p[0] = p[PAGE / 16] = p[PAGE / 8 - 1] = stamp(i, r);
}

static int good(volatile uint64_t *m, uint64_t i, uint64_t r)
{
	volatile uint64_t *p = m + i * (PAGE / 8);
	uint64_t s = stamp(i, r);
	return p[0] == s && p[PAGE / 16] == s && p[PAGE / 8 - 1] == s && p[1] == 0;
}

/* Pages of m [0, n) not holding round r's stamps, checked in a stride
 * that is not the order they were written in. */
static uint64_t count_bad(volatile uint64_t *m, uint64_t n, uint64_t r)
{
	uint64_t bad = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = (k * 7919) % n;
		if (!good(m, i, r) && bad++ < 4)
			printf("  page %llu: %#llx, want %#llx\n", (unsigned long long)i,
			       (unsigned long long)m[i * (PAGE / 8)], (unsigned long long)stamp(i, r));
	}
	return bad;
}

static uint64_t mem_pages(void)
{
	return (uint64_t)meminfo("MemTotal") * 1024 / PAGE;
}

static volatile uint64_t *map_pages(uint64_t n)
{
	void *m = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	return m == MAP_FAILED ? NULL : m;
}

/* ---- area ---- */

/* An active swap disk cannot be mounted (EBUSY: swap holds it, as Linux's
 * exclusive open), and once swap is off only its contents say no (EINVAL:
 * no ext2 super block). Called with swap_disk on; leaves it on. */
static void area_claims_disk(void)
{
	CHECK(mkdir("/swapclaim", 0700) == 0);
	CHECK_ERR(syscall(SYS_mount, swap_disk, "/swapclaim", "ext2", 0L, NULL), EBUSY);
	CHECK(swapoff(swap_disk) == 0);
	CHECK_ERR(syscall(SYS_mount, swap_disk, "/swapclaim", "ext2", 0L, NULL), EINVAL);
	CHECK(rmdir("/swapclaim") == 0);
	CHECK(swapon(swap_disk, SWAP_FLAG_PREFER | 7) == 0);
}

static void test_area(void)
{
	long long total0 = meminfo("SwapTotal");
	CHECK_ERR(swapon("/no/such/disk", 0), ENOENT);
	CHECK_ERR(swapon(PLAIN_DISK, 0), EINVAL);       /* no SWAPSPACE2 */
	CHECK_ERR(swapon("/dev/null", 0), EINVAL);
	CHECK_ERR(swapon(swap_disk, 0x100000), EINVAL);  /* a flag Linux does not have */
	CHECK_ERR(swapoff(swap_disk), EINVAL);           /* not on */
	CHECK_ERR(swapoff(PLAIN_DISK), EINVAL);
	CHECK(swapon(swap_disk, SWAP_FLAG_PREFER | 7) == 0);
	CHECK_ERR(swapon(swap_disk, 0), EBUSY);
	area_claims_disk();
	char *t = procfs_read("/proc/swaps", NULL);
	CHECK(t && strstr(t, "Filename") == t && strstr(t, swap_disk) && strstr(t, "partition"));
	CHECK(t && strstr(t, "\t7\n"));
	free(t);
	long long total = meminfo("SwapTotal"), free_kb = meminfo("SwapFree");
	printf("  SwapTotal %lld kB, SwapFree %lld kB\n", total, free_kb);
	CHECK(total0 == 0 && total > 0 && free_kb > 0 && free_kb <= total);
	CHECK(swapoff(swap_disk) == 0);
	CHECK(meminfo("SwapTotal") == 0);
	t = procfs_read("/proc/swaps", NULL);
	CHECK(t && !strstr(t, swap_disk));
	free(t);
	CHECK(swapon(swap_disk, 0) == 0);   /* on for the tests that follow */
}

/* ---- big ---- */

static void test_big(void)
{
	uint64_t n = test_arg ? strtoull(test_arg, NULL, 0) * (1 << 20) / PAGE : 2 * mem_pages();
	long long out0 = procfs_vmstat("pswpout"), in0 = procfs_vmstat("pswpin");
	long long maj0 = procfs_vmstat("pgmajfault");
	volatile uint64_t *m = map_pages(n);
	if (!m)
		return;
	for (uint64_t i = 0; i < n; i++)
		put(m, i, 1);
	long long free_kb = meminfo("SwapFree");
	char *st = procfs_read("/proc/self/status", NULL);
	long long vmswap = st ? procfs_field(st, "VmSwap") : -1, rss = st ? procfs_field(st, "VmRSS") : -1;
	free(st);
	printf("  big: VmSwap %lld kB, VmRSS %lld kB after stamping\n", vmswap, rss);
	CHECK(vmswap > 0 && (uint64_t)(vmswap + rss) * 1024 >= n * PAGE);   /* every page somewhere */
	uint64_t bad = count_bad(m, n, 1);
	long long out = procfs_vmstat("pswpout") - out0, in = procfs_vmstat("pswpin") - in0;
	printf("  big: %llu MiB stamped and read back, %llu pages wrong; pswpout %lld, pswpin %lld, "
	       "major faults %lld\n", (unsigned long long)(n * PAGE >> 20), (unsigned long long)bad,
	       out, in, procfs_vmstat("pgmajfault") - maj0);
	CHECK(bad == 0);
	CHECK(out > 0 && in > 0);
	CHECK(procfs_vmstat("pgmajfault") > maj0);
	CHECK(free_kb >= 0 && free_kb < meminfo("SwapTotal"));
	CHECK(munmap((void *)m, n * PAGE) == 0);
}

/* ---- fork ---- */

static void test_fork(void)
{
	uint64_t n = mem_pages() * 5 / 4;
	volatile uint64_t *m = map_pages(n);
	if (!m)
		return;
	for (uint64_t i = 0; i < n; i++)
		put(m, i, 2);
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t bad = count_bad(m, n, 2);
		for (uint64_t i = 0; i < n; i += 2)
			put(m, i, 3);
		for (uint64_t i = 0; i < n; i++)
			bad += !good(m, i, i % 2 ? 2 : 3);
		_exit(bad ? 1 : 0);
	}
	CHECK(pid > 0);
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	uint64_t bad = count_bad(m, n, 2);
	printf("  fork: %llu MiB shared with a child that rewrote half; parent's pages wrong: %llu\n",
	       (unsigned long long)(n * PAGE >> 20), (unsigned long long)bad);
	CHECK(bad == 0);
	CHECK(munmap((void *)m, n * PAGE) == 0);
}

/* ---- threads ---- */

struct part {
	volatile uint64_t *m;
	uint64_t first, n;
	uint64_t bad;
};

static void *thread_main(void *arg)
{
	struct part *p = arg;
	for (uint64_t r = 10; r < 11; r++) {
		for (uint64_t i = p->first; i < p->first + p->n; i++)
			put(p->m, i, r);
		for (uint64_t i = p->first; i < p->first + p->n; i++)
			p->bad += !good(p->m, i, r);
	}
	return NULL;
}

static void test_threads(void)
{
	enum { T = 4 };
	uint64_t n = mem_pages() * 5 / 4;
	volatile uint64_t *m = map_pages(n);
	if (!m)
		return;
	pthread_t th[T];
	struct part parts[T];
	for (int t = 0; t < T; t++) {
		parts[t] = (struct part){ .m = m, .first = n / T * t, .n = n / T };
		CHECK(pthread_create(&th[t], NULL, thread_main, &parts[t]) == 0);
	}
	uint64_t bad = 0;
	for (int t = 0; t < T; t++) {
		pthread_join(th[t], NULL);
		bad += parts[t].bad;
	}
	printf("  threads: %d threads over %llu MiB; pages wrong: %llu\n", T,
	       (unsigned long long)(n * PAGE >> 20), (unsigned long long)bad);
	CHECK(bad == 0);
	CHECK(munmap((void *)m, n * PAGE) == 0);
}

/* ---- swapoff ---- */

static void test_swapoff(void)
{
	uint64_t n = mem_pages() * 3 / 2;
	volatile uint64_t *m = map_pages(n);
	if (!m)
		return;
	for (uint64_t i = 0; i < n; i++)
		put(m, i, 4);
	CHECK_ERR(swapoff(swap_disk), ENOMEM);   /* 1.5 x RAM cannot come back */
	CHECK(meminfo("SwapTotal") > 0);
	CHECK(count_bad(m, n, 4) == 0);
	/* three quarters of it freed: what is left (3/8 of the RAM) fits in memory
	 * once back */
	CHECK(munmap((void *)(m + n / 4 * (PAGE / 8)), (n - n / 4) * PAGE) == 0);
	n /= 4;
	long long used = meminfo("SwapTotal") - meminfo("SwapFree");
	CHECK(swapoff(swap_disk) == 0);
	CHECK(meminfo("SwapTotal") == 0 && meminfo("SwapCached") == 0);
	long long in0 = procfs_vmstat("pswpin");
	uint64_t bad = count_bad(m, n, 4);
	printf("  swapoff: %lld kB of swap in use came back; pages wrong %llu, read from swap after: %lld\n",
	       used, (unsigned long long)bad, procfs_vmstat("pswpin") - in0);
	CHECK(used > 0 && bad == 0 && procfs_vmstat("pswpin") == in0);
	CHECK(munmap((void *)m, n * PAGE) == 0);
	CHECK(swapon(swap_disk, 0) == 0);
}

/* ---- policy ---- */

/* Resident pages of [m + first, m + first + n) pages (mincore). */
static uint64_t resident(volatile uint64_t *m, uint64_t first, uint64_t n)
{
	unsigned char v[1024];
	uint64_t in = 0;
	for (uint64_t i = 0; i < n; i += sizeof v) {
		uint64_t k = n - i < sizeof v ? n - i : sizeof v;
		if (mincore((void *)(m + (first + i) * (PAGE / 8)), k * PAGE, v) != 0)
			return 0;
		for (uint64_t j = 0; j < k; j++)
			in += v[j] & 1;
	}
	return in;
}

/* Pages of [m, m + n pages) that pagoda_vmquery finds out on swap
 * (VMQ_SWAPPED: a swap entry where the page was); *either: those mapped
 * or out (every page written is one or the other). */
static uint64_t swapped(volatile uint64_t *m, uint64_t n, uint64_t *either)
{
	uint64_t out = 0;
	struct pagoda_vmquery q;
	*either = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (pagoda_vmquery((const void *)(m + i * (PAGE / 8)), &q) != 0)
			continue;
		bool is_out = !q.mapped && (q.soft & VMQ_SWAPPED);
		out += is_out;
		*either += is_out || q.mapped;
	}
	return out;
}

/* The replacement policy chooses its victims (mm/swap.c, CLOCK-Pro's
 * outline): a region is written, then a hog writes 1.5 x RAM once (a scan),
 * reading the region's first quarter (the hot set) again after every MiB.
 * The scan's own pages go out -- used once, they never leave the cold
 * list -- and the region stays: the hot set all but whole, the rest
 * mostly (mincore). LRU, which evicts the oldest pages first, would take
 * the unread three quarters before any of the scan's (docs/swap-and-
 * replacement.md: the scan trace). Every stamp reads back right. */
static void test_policy(void)
{
	enum { N = 1024, HOT = N / 4, STEP = 256 };
	uint64_t hog_n = mem_pages() * 3 / 2;
	volatile uint64_t *m = map_pages(N), *hog = map_pages(hog_n);
	if (!m || !hog)
		return;
	for (uint64_t i = 0; i < N; i++)
		put(m, i, 7);
	uint64_t sum = 0;
	for (uint64_t i = 0; i < hog_n; i++) {
		put(hog, i, 7);
		for (uint64_t h = 0; i % STEP == 0 && h < HOT; h++)
			sum += m[h * (PAGE / 8)];   /* the hot set, read */
	}
	uint64_t hot_in = resident(m, 0, HOT), cold_in = resident(m, HOT, N - HOT);
	uint64_t hog_in = resident(hog, 0, hog_n);
	printf("  policy: hot set %llu of %d resident, the rest %llu of %d, the scan %llu of %llu "
	       "(sum %llx)\n", (unsigned long long)hot_in, HOT, (unsigned long long)cold_in, N - HOT,
	       (unsigned long long)hog_in, (unsigned long long)hog_n, (unsigned long long)sum);
	CHECK(hot_in >= HOT * 9 / 10);
	CHECK(cold_in >= (N - HOT) / 2);
	CHECK(hog_in < hog_n / 2);
	uint64_t either, out = swapped(hog, hog_n, &either);
	CHECK(either == hog_n && out >= hog_n / 2);   /* each page not mapped is a swap entry */
	CHECK(count_bad(m, N, 7) == 0);
	CHECK(munmap((void *)hog, hog_n * PAGE) == 0 && munmap((void *)m, N * PAGE) == 0);
	/* at once, while the reclaimer may still be writing pages it took: */
	CHECK(swapoff(swap_disk) == 0);   /* (ENOMEM now and then before it waited) */
	CHECK(swapon(swap_disk, 0) == 0);
}

/* ---- madvise ---- */

static long long vmswap_kb(void)
{
	char *t = procfs_read("/proc/self/status", NULL);
	long long kb = t ? procfs_field(t, "VmSwap") : -1;
	free(t);
	return kb;
}

/* Swap off: MADV_PAGEOUT still drops lazy-free pages that are clean (no
 * swap needed, as Linux's reclaim_pages), keeps the one written again and
 * leaves every other page as it was. */
static void madvise_pageout_lazy(volatile uint64_t *m, uint64_t n)
{
	enum { FREED = 64 };
	CHECK(madvise((void *)m, FREED * PAGE, MADV_FREE) == 0);
	put(m, 1, 8);                                  /* written again: kept */
	long long freed0 = procfs_vmstat("pglazyfreed");
	CHECK(madvise((void *)m, n * PAGE, MADV_PAGEOUT) == 0);
	long long freed = procfs_vmstat("pglazyfreed") - freed0;
	printf("  madvise: MADV_PAGEOUT without swap dropped %lld of %d lazy-free pages\n",
	       freed, FREED);
	CHECK(freed == FREED - 1 && m[0] == 0 && m[2 * (PAGE / 8)] == 0 && good(m, 1, 8));
	CHECK(meminfo("LazyFree") == 0);
	uint64_t bad = 0;
	for (uint64_t i = FREED; i < n; i++)
		bad += !good(m, i, 6);
	CHECK(bad == 0);
}

/* MADV_PAGEOUT swaps a range out now (VmSwap, pswpout), MADV_COLD leaves
 * it mapped; every stamp stays right; without swap PAGEOUT does nothing
 * but drop lazy-free pages. */
static void test_madvise(void)
{
	enum { N = 1024 };   /* 4 MiB: well inside RAM, nothing else swaps it */
	volatile uint64_t *m = map_pages(N);
	if (!m)
		return;
	for (uint64_t i = 0; i < N; i++)
		put(m, i, 6);
	long long out0 = procfs_vmstat("pswpout"), swap0 = vmswap_kb();
	CHECK(madvise((void *)m, N * PAGE, MADV_PAGEOUT) == 0);
	long long out = procfs_vmstat("pswpout") - out0, swapped = vmswap_kb() - swap0;
	printf("  madvise: MADV_PAGEOUT of %d pages: pswpout %lld, VmSwap +%lld kB\n", N, out, swapped);
	CHECK(out >= N * 9 / 10 && swapped >= (long long)(N * 9 / 10 * PAGE / 1024));
	CHECK(count_bad(m, N, 6) == 0);   /* read back */
	CHECK(madvise((void *)m, N * PAGE, MADV_PAGEOUT) == 0);
	long long maj0 = procfs_vmstat("pgmajfault");
	uint64_t bad = 0;
	for (uint64_t i = 0; i < N; i++)   /* in order: read ahead */
		bad += !good(m, i, 6);
	long long maj = procfs_vmstat("pgmajfault") - maj0;
	printf("  madvise: read back in order after MADV_PAGEOUT: %lld major faults for %d pages\n",
	       maj, N);
	CHECK(bad == 0 && maj > 0 && maj <= N / 2);
	CHECK(madvise((void *)m, N * PAGE, MADV_COLD) == 0);
	CHECK(count_bad(m, N, 6) == 0);
	CHECK(swapoff(swap_disk) == 0);
	CHECK(madvise((void *)m, N * PAGE, MADV_PAGEOUT) == 0);   /* no swap: nothing */
	CHECK(vmswap_kb() == 0 && count_bad(m, N, 6) == 0);
	madvise_pageout_lazy(m, N);
	CHECK(swapon(swap_disk, 0) == 0);
	CHECK(munmap((void *)m, N * PAGE) == 0);
}

/* ---- tmpfs ---- */

#define TMPFS_FILE "/swaptests-tmpfs"

/* Write file fd's pages [0, n) stamped for round r, 16 at a time. */
static int write_stamped(int fd, uint64_t n, uint64_t r)
{
	static uint64_t buf[16 * PAGE / 8];
	for (uint64_t at = 0; at < n; at += 16) {
		uint64_t k = n - at < 16 ? n - at : 16;
		memset(buf, 0, sizeof(buf));
		for (uint64_t i = 0; i < k; i++) {
			uint64_t *p = buf + i * (PAGE / 8);
			p[0] = p[PAGE / 16] = p[PAGE / 8 - 1] = stamp(at + i, r);
		}
		if (pwrite(fd, buf, k * PAGE, (off_t)(at * PAGE)) != (ssize_t)(k * PAGE))
			return -1;
	}
	return 0;
}

/* Pages of file fd [0, n) (read with read(2)) not holding round r's stamps. */
static uint64_t file_bad(int fd, uint64_t n, uint64_t r)
{
	static uint64_t page[PAGE / 8];
	uint64_t bad = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = (k * 7919) % n, s = stamp(i, r);
		bool ok = pread(fd, page, PAGE, (off_t)(i * PAGE)) == (ssize_t)PAGE && page[0] == s &&
			  page[PAGE / 16] == s && page[PAGE / 8 - 1] == s && page[1] == 0;
		if (!ok && bad++ < 4)
			printf("  page %llu of the file: %#llx, want %#llx\n", (unsigned long long)i,
			       (unsigned long long)page[0], (unsigned long long)s);
	}
	return bad;
}

/* Did dropping `pages` pages of tmpfs data (a shared object unmapped, a
 * file cut), of which at most shmem_kb were in memory (Shmem counts every
 * tmpfs page), free their slots: SwapFree up from free0 by all the rest
 * (less 1 MiB: other tmpfs pages, the root's programs, come and go
 * meanwhile)? Polled for a few seconds: the last reference to a shared
 * object may be the reclaimer's, dropped when done with its page. */
static bool slots_freed(long long free0, uint64_t pages, long long shmem_kb)
{
	long long want = (long long)(pages * PAGE / 1024) - shmem_kb - 1024, got = 0;
	for (int i = 0; i < 500; i++) {
		if ((got = meminfo("SwapFree") - free0) >= want)
			return true;
		usleep(10000);
	}
	printf("  tmpfs: %lld kB of swap freed, want %lld kB at least\n", got, want);
	return false;
}

/* tmpfs pages go to swap too (mm/pagecache.h): shared anonymous memory of
 * 1.5 x RAM stamped and read back (its pages are a tmpfs file's), its
 * slots freed by its munmap; a tmpfs file of 1.5 x RAM written and read
 * with write(2) and read(2), and through a shared mapping; cut in the
 * middle of a page that is out on swap: the slots past the cut freed, the
 * tail reads as zeros; swapoff brings the rest back (no read after). */
static void test_tmpfs(void)
{
	uint64_t n = mem_pages() * 3 / 2;
	long long out0 = procfs_vmstat("pswpout");
	volatile uint64_t *m = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	for (uint64_t i = 0; i < n; i++)
		put(m, i, 7);
	long long shmem_kb = meminfo("Shmem");
	long long maj0 = procfs_self_stat(12), pgmaj0 = procfs_vmstat("pgmajfault");
	uint64_t bad = count_bad(m, n, 7);
	long long maj = procfs_self_stat(12) - maj0, pgmaj = procfs_vmstat("pgmajfault") - pgmaj0;
	printf("  tmpfs: shared anonymous %llu MiB stamped and read back, %llu pages wrong; Shmem "
	       "%lld kB after stamping, pswpout %lld; major faults reading back %lld "
	       "(pgmajfault %lld)\n", (unsigned long long)(n * PAGE >> 20), (unsigned long long)bad,
	       shmem_kb, procfs_vmstat("pswpout") - out0, maj, pgmaj);
	CHECK(bad == 0 && shmem_kb * 1024 < (long long)(n * PAGE));
	CHECK(procfs_vmstat("pswpout") > out0);
	/* a page read back from swap: a major fault; each read once (a fault
	 * retried after its read, pgmajfault but not majflt, was most of them
	 * when the reclaimer's unmap of other pages failed the fault's guard) */
	CHECK(maj > 0 && pgmaj >= maj && maj * 10 >= pgmaj * 9);
	long long free0 = meminfo("SwapFree");
	shmem_kb = meminfo("Shmem");
	CHECK(munmap((void *)m, n * PAGE) == 0);
	CHECK(slots_freed(free0, n, shmem_kb));
	int fd = open(TMPFS_FILE, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(fd >= 0 && write_stamped(fd, n, 8) == 0);
	bad = file_bad(fd, n, 8);
	m = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	uint64_t mapped_bad = m == MAP_FAILED ? n : count_bad(m, n, 8);
	printf("  tmpfs: a file of %llu MiB written and read, %llu pages wrong; through a "
	       "mapping %llu; swap in use %lld kB\n", (unsigned long long)(n * PAGE >> 20),
	       (unsigned long long)bad, (unsigned long long)mapped_bad,
	       meminfo("SwapTotal") - meminfo("SwapFree"));
	CHECK(bad == 0 && mapped_bad == 0);
	if (m != MAP_FAILED)
		CHECK(munmap((void *)m, n * PAGE) == 0);
	uint64_t keep = mem_pages() / 4;   /* what is left fits in memory */
	free0 = meminfo("SwapFree");
	shmem_kb = meminfo("Shmem");
	CHECK(ftruncate(fd, (off_t)(keep * PAGE - 100)) == 0);
	CHECK(slots_freed(free0, n - keep, shmem_kb));
	CHECK(ftruncate(fd, (off_t)(keep * PAGE)) == 0);
	uint64_t tail[100 / 8 + 1] = { 1 };
	CHECK(pread(fd, tail, 100, (off_t)(keep * PAGE - 100)) == 100);
	bool zeros = true;
	for (int i = 0; i < 100 / 8; i++)
		zeros &= tail[i] == 0;
	CHECK(zeros);
	CHECK(swapoff(swap_disk) == 0);
	long long in0 = procfs_vmstat("pswpin");
	bad = file_bad(fd, keep - 1, 8);
	printf("  tmpfs: swapoff brought back the file's %llu pages: %llu wrong, read from swap "
	       "after: %lld\n", (unsigned long long)keep, (unsigned long long)bad,
	       procfs_vmstat("pswpin") - in0);
	CHECK(bad == 0 && procfs_vmstat("pswpin") == in0);
	CHECK(swapon(swap_disk, 0) == 0);
	close(fd);
	CHECK(unlink(TMPFS_FILE) == 0);
}

/* ---- file ---- */

#define SWAP_FILE "/swapfile"

/* What mkswap writes in page 0 of an area of `pages` pages: version 1, the
 * last page, no bad pages, a UUID, SWAPSPACE2 at the end. */
static void swap_header(unsigned char *buf, uint32_t pages)
{
	memset(buf, 0, PAGE);
	uint32_t w[3] = { 1, pages - 1, 0 };
	memcpy(buf + 1024, w, sizeof(w));
	memcpy(buf + 1024 + sizeof(w), "swaptests uuid..", 16);
	memcpy(buf + PAGE - 10, "SWAPSPACE2", 10);
}

enum file_shape { SHAPE_WHOLE, SHAPE_HOLES, SHAPE_NO_HEADER };

/* A file of `pages` pages at path: written whole (zeros after the header),
 * or with holes (only the header written, the size set by ftruncate), or
 * whole with no header. 0, or -1 (reported). */
static int make_swap_file(const char *path, uint64_t pages, enum file_shape shape)
{
	static unsigned char buf[64 * PAGE];
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600), ok = fd >= 0;
	memset(buf, 0, sizeof(buf));
	if (shape != SHAPE_NO_HEADER)
		swap_header(buf, (uint32_t)pages);
	if (ok && shape == SHAPE_HOLES)
		ok = write(fd, buf, PAGE) == PAGE && ftruncate(fd, (off_t)(pages * PAGE)) == 0;
	for (uint64_t at = 0; ok && shape != SHAPE_HOLES && at < pages; at += 64) {
		size_t n = (size_t)(pages - at < 64 ? pages - at : 64) * PAGE;
		ok = write(fd, buf, n) == (ssize_t)n;
		memset(buf, 0, PAGE);   /* the header in page 0 only */
	}
	ok = ok && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	if (!ok)
		fail(__LINE__, "making %s (%llu pages)", path, (unsigned long long)pages);
	return ok ? 0 : -1;
}

/* Files that are not swap areas: each EINVAL, and a file again after. */
static void file_refused(void)
{
	CHECK(mkdir("/swaptmp", 0700) == 0);
	CHECK(syscall(SYS_mount, "tmpfs", "/swaptmp", "tmpfs", 0L, NULL) == 0);
	if (make_swap_file("/swaptmp/swap", 256, SHAPE_WHOLE) == 0)
		CHECK_ERR(swapon("/swaptmp/swap", 0), EINVAL);   /* tmpfs: no blocks */
	CHECK(syscall(SYS_umount2, "/swaptmp", 0L) == 0 && rmdir("/swaptmp") == 0);
	const struct { const char *path; uint64_t pages; enum file_shape shape; } bad[] = {
		{ "/swap-holes", 256, SHAPE_HOLES }, { "/swap-small", 4, SHAPE_WHOLE },
		{ "/swap-noheader", 256, SHAPE_NO_HEADER },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (make_swap_file(bad[i].path, bad[i].pages, bad[i].shape) < 0)
			continue;
		CHECK_ERR(swapon(bad[i].path, 0), EINVAL);
		int fd = open(bad[i].path, O_WRONLY);
		CHECK(fd >= 0 && write(fd, "x", 1) == 1 && close(fd) == 0);   /* not left marked */
		CHECK(unlink(bad[i].path) == 0);
	}
	CHECK(meminfo("SwapTotal") == 0);
}

/* A store through a shared mapping of the swap file: the child's SIGBUS. */
static void file_store_refused(void)
{
	int fd = open(SWAP_FILE, O_RDWR);
	CHECK(fd >= 0);
	char *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	pid_t pid = fork();
	if (pid == 0) {
		m[100] = 'x';
		_exit(0);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
	CHECK(memcmp(m + PAGE - 10, "SWAPSPACE2", 10) == 0 && m[100] == 0);
	munmap(m, PAGE);
	close(fd);
}

/* While the file is on, nothing changes it. */
static void file_guarded(void)
{
	int fd = open(SWAP_FILE, O_WRONLY);
	CHECK(fd >= 0);
	CHECK_ERR(write(fd, "x", 1), ETXTBSY);
	CHECK_ERR(ftruncate(fd, PAGE), ETXTBSY);
	CHECK_ERR(syscall(285 /* fallocate */, fd, 0, 0L, (long)PAGE), ETXTBSY);
	close(fd);
	CHECK_ERR(truncate(SWAP_FILE, 0), ETXTBSY);
	CHECK_ERR(unlink(SWAP_FILE), EPERM);
	CHECK_ERR(rename(SWAP_FILE, "/swapfile2"), EPERM);
	file_store_refused();
}

/* A swap file on a mounted file system (vdb, ext2) keeps it mounted. */
static void file_keeps_mount(void)
{
	CHECK(mkdir("/swapmnt", 0700) == 0);
	CHECK(syscall(SYS_mount, "/dev/vdb", "/swapmnt", "ext2", 0L, NULL) == 0);
	CHECK_ERR(swapon("/dev/vdb", 0), EBUSY);   /* the disk itself: mounted */
	if (make_swap_file("/swapmnt/swap", 1024, SHAPE_WHOLE) == 0) {
		CHECK(swapon("/swapmnt/swap", 0) == 0);
		CHECK_ERR(syscall(SYS_umount2, "/swapmnt", 0L), EBUSY);
		CHECK(swapoff("/swapmnt/swap") == 0);
		CHECK(unlink("/swapmnt/swap") == 0);
	}
	CHECK(syscall(SYS_umount2, "/swapmnt", 0L) == 0 && rmdir("/swapmnt") == 0);
	CHECK_ERR(swapon("/dev/vdb", 0), EINVAL);  /* unmounted: no swap header */
}

static void test_file(void)
{
	file_refused();
	file_keeps_mount();
	uint64_t pages = mem_pages() * 9 / 4;   /* 2 x RAM stamped, and room to spare */
	if (make_swap_file(SWAP_FILE, pages, SHAPE_WHOLE) < 0)
		return;
	CHECK(swapon(SWAP_FILE, SWAP_FLAG_PREFER | 3) == 0);
	CHECK_ERR(swapon(SWAP_FILE, 0), EBUSY);
	char *t = procfs_read("/proc/swaps", NULL);
	CHECK(t && strstr(t, SWAP_FILE) && strstr(t, "file") && strstr(t, "\t3\n"));
	free(t);
	long long total = meminfo("SwapTotal");
	printf("  file: %llu pages, SwapTotal %lld kB (%lld pages left out: not whole on the disk)\n",
	       (unsigned long long)pages, total, (long long)pages - 1 - total * 1024 / (long long)PAGE);
	CHECK(total > 0 && total * 1024 <= (long long)((pages - 1) * PAGE) &&
	      total * 1024 >= (long long)(pages * PAGE * 3 / 4));
	file_guarded();
	test_big();   /* 2 x RAM through the file */
	CHECK(swapoff(SWAP_FILE) == 0);
	CHECK(meminfo("SwapTotal") == 0);
	int fd = open(SWAP_FILE, O_WRONLY);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1 && ftruncate(fd, PAGE) == 0 && close(fd) == 0);
	CHECK(unlink(SWAP_FILE) == 0);
}

/* ---- eio ---- */

#define EIO_READ_SLOT 16384    /* disks.py's SWAP_EIO_READ_SECTOR / 8: past the
				* slots the root's tmpfs pages take first */
#define EIO_WRITE_SLOT 16385   /* and SWAP_EIO_WRITE_SECTOR / 8 */

/* The child: 2 x RAM stamped, then read back in order; exits 0 only if no
 * read failed (which the test does not want), 1 on a wrong stamp. */
static void eio_child(void)
{
	uint64_t n = 2 * mem_pages();
	volatile uint64_t *m = map_pages(n);
	if (!m)
		_exit(3);
	for (uint64_t i = 0; i < n; i++)
		put(m, i, 5);
	for (uint64_t i = 0; i < n; i++)
		if (!good(m, i, 5))
			_exit(1);
	_exit(0);
}

static void test_eio(void)
{
	long long total = meminfo("SwapTotal");
	long long out0 = procfs_vmstat("pswpout");
	pid_t pid = fork();
	if (pid == 0)
		eio_child();
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	printf("  eio: child %s %d; SwapTotal %lld kB -> %lld kB, SwapFree %lld kB; pswpout %lld\n",
	       WIFSIGNALED(st) ? "killed by signal" : "exited", WIFSIGNALED(st) ? WTERMSIG(st) :
	       WEXITSTATUS(st), total, meminfo("SwapTotal"), meminfo("SwapFree"),
	       procfs_vmstat("pswpout") - out0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
	/* the child's slots are free once the reclaimer's writes in flight
	 * end (the bad one then leaves the area): what is used is this
	 * process's own pages (it is pid 1, alone), swapped out or read back
	 * keeping their slots (SwapCached), and the tmpfs pages out on swap
	 * (the root's programs: ShmemSwapped) */
	long long used = -1, ours = -2, want_total = total - (long long)(PAGE / 1024);
	for (int i = 0; i < 100 && (used > ours || meminfo("SwapTotal") != want_total); i++) {
		usleep(20000);
		char *t = procfs_read("/proc/self/status", NULL);
		ours = t ? procfs_field(t, "VmSwap") + meminfo("SwapCached") + meminfo("ShmemSwapped")
			 : -3;
		free(t);
		used = meminfo("SwapTotal") - meminfo("SwapFree");
	}
	printf("  eio: swap in use %lld kB, this process's VmSwap + SwapCached + ShmemSwapped %lld kB; "
	       "SwapTotal %lld kB\n", used, ours, meminfo("SwapTotal"));
	CHECK(used <= ours);
	CHECK(meminfo("SwapTotal") == want_total);
	CHECK(EIO_WRITE_SLOT == EIO_READ_SLOT + 1);
}

static const struct {
	const char *name;
	void (*fn)(void);
	int only_when_named;
} tests[] = {
	{ "area", test_area, 0 }, { "big", test_big, 0 }, { "fork", test_fork, 0 },
	{ "threads", test_threads, 0 }, { "swapoff", test_swapoff, 0 }, { "madvise", test_madvise, 0 },
	{ "policy", test_policy, 0 }, { "tmpfs", test_tmpfs, 0 },
	{ "eio", test_eio, 1 }, { "file", test_file, 1 },
};

/* Run tests[i]? Named on the command line (NAME or NAME=ARG), or no names. */
static int selected(size_t i, int argc, char **argv)
{
	size_t n = strlen(tests[i].name);
	for (int a = 1; a < argc; a++) {
		if (strncmp(argv[a], tests[i].name, n) == 0 && (!argv[a][n] || argv[a][n] == '=')) {
			test_arg = argv[a][n] ? argv[a] + n + 1 : NULL;
			return 1;
		}
	}
	test_arg = NULL;
	return argc < 2 && !tests[i].only_when_named;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	if (getpid() != 1) {   /* never the swap of the machine it was started on */
		fprintf(stderr, "swaptests: turns /dev/vdb on as swap: runs only as init of a test VM\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		swap_disk = argv[2];
		argv[2] = argv[0];
		argc -= 2;
		argv += 2;
	}
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!selected(i, argc, argv))
			continue;
		failures = 0;
		if (tests[i].fn != test_area && tests[i].fn != test_file)   /* (area: begins with
			swap off, ends with it on; file: no swap disk) */
			CHECK(swapon(swap_disk, 0) == 0 || errno == EBUSY);
		long long scan0 = procfs_vmstat("pgscan_anon"), steal0 = procfs_vmstat("pgsteal_anon");
		long long out0 = procfs_vmstat("pswpout"), in0 = procfs_vmstat("pswpin");
		long long ra0 = procfs_vmstat("swap_ra"), hit0 = procfs_vmstat("swap_ra_hit");
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		tests[i].fn();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("  (%s: %.1f s; pages scanned %lld, swapped out %lld, written %lld, read %lld, "
		       "of those read ahead %lld, used %lld)\n",
		       tests[i].name, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       procfs_vmstat("pgscan_anon") - scan0, procfs_vmstat("pgsteal_anon") - steal0,
		       procfs_vmstat("pswpout") - out0, procfs_vmstat("pswpin") - in0,
		       procfs_vmstat("swap_ra") - ra0, procfs_vmstat("swap_ra_hit") - hit0);
		printf("TEST user.swap_%s %s\n", tests[i].name, failures ? "FAIL see above" : "PASS");
		passed += !failures;
		failed += failures != 0;
	}
	printf("SWAPTESTS END %d passed, %d failed\n", passed, failed);
	return failed != 0;
}

/* drivers/tests/blk_test.c -- test=blk: the virtio disks through the block
 * layer, against images the test runner made (tests/qemu/disks.py):
 *
 *   vda  read-write, every 512-byte sector starting "PAGODA SECTOR <n>\n"
 *   vdb  read-only (QEMU's readonly=on), the same contents
 *
 * Reads see those bytes; writes read back after a flush, and the runner
 * checks them in the image file after QEMU exits (the "KTEST DISK-WROTE"
 * lines); many requests in flight at once; requests from kernel threads on
 * other CPUs (which sleep while they wait, where the boot CPU spins); bad
 * requests get Linux's errnos. */
#include "kernel/ktest.h"
#include "kernel/kthread.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/memlayout.h"

#define DISK_SECTORS 32768   /* 16 MiB images */
#define WRITE_AT 2048        /* where test writes go (the runner checks them) */

/* The runner's contents of sector s (512 bytes). */
static void source_sector(char *out, uint64_t s)
{
	memset(out, 0, SECTOR_SIZE);
	ksnprintf(out, SECTOR_SIZE, "PAGODA SECTOR %08lu\n", s);
}

/* What this test writes to sector s (the runner checks the same text). */
static void written_sector(char *out, uint64_t s)
{
	memset(out, 0, SECTOR_SIZE);
	ksnprintf(out, SECTOR_SIZE, "PAGODA WROTE %08lu\n", s);
}

/* Do buf's n sectors, from sector first, hold what make() gives? */
static bool sectors_are(const char *buf, uint64_t first, int n, void (*make)(char *, uint64_t))
{
	char want[SECTOR_SIZE];   /* not static: workers on other CPUs check at once */
	for (int i = 0; i < n; i++) {
		make(want, first + i);
		if (memcmp(buf + i * SECTOR_SIZE, want, SECTOR_SIZE) != 0) {
			printk("blk: sector %lu differs: \"%.20s\"\n", first + i, buf + i * SECTOR_SIZE);
			return false;
		}
	}
	return true;
}

KTEST(blk, disks_found)
{
	struct blkdev *a = blkdev_find("vda"), *b = blkdev_find("vdb");
	KEXPECT(a && b);
	if (!a || !b)
		return;
	KEXPECT_EQ(a->sectors, DISK_SECTORS);
	KEXPECT(!a->readonly);
	KEXPECT(b->readonly);
	KEXPECT(blkdev_get(0) == a && blkdev_get(1) == b && !blkdev_get(2));
	KEXPECT(!blkdev_find("vdc"));
}

KTEST(blk, read_sectors)
{
	struct blkdev *d = blkdev_find("vda"), *ro = blkdev_find("vdb");
	char *buf = kmalloc(64 * SECTOR_SIZE);
	KEXPECT(d && ro && buf);
	if (!d || !ro || !buf)
		return;
	KEXPECT_EQ(blk_rw(d, BLK_READ, 0, buf, 64 * SECTOR_SIZE), 0);
	KEXPECT(sectors_are(buf, 0, 64, source_sector));
	KEXPECT_EQ(blk_rw(d, BLK_READ, DISK_SECTORS - 1, buf, SECTOR_SIZE), 0);
	KEXPECT(sectors_are(buf, DISK_SECTORS - 1, 1, source_sector));
	KEXPECT_EQ(blk_rw(ro, BLK_READ, 777, buf, 3 * SECTOR_SIZE), 0);
	KEXPECT(sectors_are(buf, 777, 3, source_sector));
	kfree(buf);
}

KTEST(blk, write_flush_read_back)
{
	struct blkdev *d = blkdev_find("vda");
	char *out = kmalloc(64 * SECTOR_SIZE), *in = kzalloc(64 * SECTOR_SIZE);
	KEXPECT(d && out && in);
	if (!d || !out || !in)
		return;
	for (int i = 0; i < 64; i++)
		written_sector(out + i * SECTOR_SIZE, WRITE_AT + i);
	uint64_t writes = d->writes, flushes = d->flushes;
	KEXPECT_EQ(blk_rw(d, BLK_WRITE, WRITE_AT, out, 64 * SECTOR_SIZE), 0);
	KEXPECT_EQ(blk_rw(d, BLK_FLUSH, 0, NULL, 0), 0);
	KEXPECT_EQ(blk_rw(d, BLK_READ, WRITE_AT, in, 64 * SECTOR_SIZE), 0);
	KEXPECT(sectors_are(in, WRITE_AT, 64, written_sector));
	KEXPECT_EQ(d->writes, writes + 1);
	KEXPECT_EQ(d->flushes, flushes + (d->write_cache ? 1 : 0));
	printk("KTEST DISK-WROTE vda %d %d\n", WRITE_AT, 64);
	kfree(out);
	kfree(in);
}

#define INFLIGHT 48   /* more than the queue holds at once (3 descriptors each) */

KTEST(blk, many_in_flight)
{
	struct blkdev *d = blkdev_find("vda");
	static struct blk_request reqs[INFLIGHT];
	char *buf = kmalloc(INFLIGHT * 2 * SECTOR_SIZE);
	KEXPECT(d && buf);
	if (!d || !buf)
		return;
	for (int i = 0; i < INFLIGHT; i++) {
		reqs[i] = (struct blk_request){ .op = BLK_READ, .sector = 5000 + 97 * i,
						.seg = { { buf + i * 2 * SECTOR_SIZE, 2 * SECTOR_SIZE } },
						.nseg = 1, .len = 2 * SECTOR_SIZE, .dev = d };
		KEXPECT_EQ(blk_submit(&reqs[i]), 0);
	}
	for (int i = 0; i < INFLIGHT; i++) {
		KEXPECT_EQ(blk_wait(&reqs[i]), 0);
		KEXPECT(sectors_are(reqs[i].seg[0].buf, reqs[i].sector, 2, source_sector));
	}
	kfree(buf);
}

/* A plug merges pieces that continue each other on the disk into one
 * request (pieces anywhere in memory: one segment each), starts a new
 * one at a gap, and caps a request at the disk's segments. */
KTEST(blk, plug_merges_neighbours)
{
	struct blkdev *d = blkdev_find("vda");
	char *buf = kmalloc(40 * SECTOR_SIZE);
	KEXPECT(d && buf);
	if (!d || !buf)
		return;
	KEXPECT(d->max_segs >= 8);   /* QEMU's seg_max is far larger */
	struct blk_plug p;
	blk_plug_init(&p, d);
	uint64_t reads = d->reads;
	for (int i = 0; i < 8; i++)   /* sectors 6000..6007, memory in reverse order */
		blk_plug_add(&p, BLK_READ, 6000 + i, buf + (7 - i) * SECTOR_SIZE, SECTOR_SIZE);
	blk_plug_add(&p, BLK_READ, 6100, buf + 8 * SECTOR_SIZE, 2 * SECTOR_SIZE);   /* a gap */
	KEXPECT_EQ(blk_plug_finish(&p), 0);
	KEXPECT_EQ(d->reads - reads, 2);
	for (int i = 0; i < 8; i++)
		KEXPECT(sectors_are(buf + (7 - i) * SECTOR_SIZE, 6000 + i, 1, source_sector));
	KEXPECT(sectors_are(buf + 8 * SECTOR_SIZE, 6100, 2, source_sector));
	/* more pieces than one request may have: split at max_segs (pieces
	 * next to each other in memory too are one segment) */
	unsigned n = d->max_segs + 1u > 40 ? 40 : d->max_segs + 1u;
	reads = d->reads;
	for (unsigned i = 0; i < n; i++)
		blk_plug_add(&p, BLK_READ, 7000 + i, buf + (n - 1 - i) * SECTOR_SIZE, SECTOR_SIZE);
	KEXPECT_EQ(blk_plug_finish(&p), 0);
	KEXPECT_EQ(d->reads - reads, n > d->max_segs ? 2 : 1);
	for (unsigned i = 0; i < n; i++)
		KEXPECT(sectors_are(buf + (n - 1 - i) * SECTOR_SIZE, 7000 + i, 1, source_sector));
	reads = d->reads;
	for (unsigned i = 0; i < n; i++)
		blk_plug_add(&p, BLK_READ, 7100 + i, buf + i * SECTOR_SIZE, SECTOR_SIZE);
	KEXPECT_EQ(blk_plug_finish(&p), 0);
	KEXPECT_EQ(d->reads - reads, 1);
	KEXPECT(sectors_are(buf, 7100, (int)n, source_sector));
	/* an error reaches finish: a piece past the end */
	blk_plug_add(&p, BLK_READ, DISK_SECTORS, buf, SECTOR_SIZE);
	KEXPECT_EQ(blk_plug_finish(&p), -EIO);
	kfree(buf);
}

KTEST(blk, bad_requests)
{
	struct blkdev *d = blkdev_find("vda"), *ro = blkdev_find("vdb");
	char *buf = kzalloc(2 * SECTOR_SIZE);
	KEXPECT(d && ro && buf);
	if (!d || !ro || !buf)
		return;
	uint64_t errors = d->errors;
	KEXPECT_EQ(blk_rw(d, BLK_READ, DISK_SECTORS, buf, SECTOR_SIZE), -EIO);
	KEXPECT_EQ(blk_rw(d, BLK_READ, DISK_SECTORS - 1, buf, 2 * SECTOR_SIZE), -EIO);
	KEXPECT_EQ(blk_rw(d, BLK_READ, ~0ull, buf, SECTOR_SIZE), -EIO);
	KEXPECT_EQ(blk_rw(d, BLK_READ, 0, buf, 100), -EINVAL);
	KEXPECT_EQ(blk_rw(d, BLK_WRITE, 0, buf, 0), -EINVAL);
	KEXPECT_EQ(blk_rw(ro, BLK_WRITE, 0, buf, SECTOR_SIZE), -EROFS);
	KEXPECT_EQ(blk_rw(ro, BLK_FLUSH, 0, NULL, 0), -EROFS);
	KEXPECT_EQ(d->errors, errors);   /* refused before the device saw them */
	kfree(buf);
}

/* ---- through the disk's page cache ---- */

#define CACHE_AT 4096        /* sectors the cache test writes (the runner checks) */

KTEST(blk, page_cache_read_write_sync)
{
	struct blkdev *d = blkdev_find("vda"), *ro = blkdev_find("vdb");
	char *buf = kmalloc(3 * PAGE_SIZE), *raw = kmalloc(16 * SECTOR_SIZE);
	KEXPECT(d && ro && buf && raw);
	if (!d || !ro || !buf || !raw)
		return;
	/* a read across pages, not aligned: the image's bytes; again from the cache */
	uint64_t reads = d->reads;
	KEXPECT_EQ(blkdev_read(d, 700 * SECTOR_SIZE + 13, buf, 2 * PAGE_SIZE), 2 * PAGE_SIZE);
	KEXPECT(memcmp(buf, " 00000700\n", 10) == 0);   /* from byte 13 of sector 700 */
	KEXPECT(memcmp(buf + SECTOR_SIZE - 13, "PAGODA SECTOR 00000701\n", 23) == 0);
	KEXPECT_EQ(d->reads - reads, 1);   /* its three pages in one request */
	KEXPECT_EQ(blkdev_read(d, 700 * SECTOR_SIZE + 13, buf, 2 * PAGE_SIZE), 2 * PAGE_SIZE);
	KEXPECT_EQ(d->reads - reads, 1);   /* all cached */
	/* writes: sector by sector, the cache's pages dirty until the sync */
	uint64_t writes = d->writes;
	for (int i = 0; i < 16; i++) {
		written_sector(buf, CACHE_AT + i);
		KEXPECT_EQ(blkdev_write(d, (CACHE_AT + i) * (uint64_t)SECTOR_SIZE, buf, SECTOR_SIZE),
			   SECTOR_SIZE);
	}
	KEXPECT_EQ(d->writes, writes);                 /* nothing on the disk yet */
	KEXPECT_EQ(d->cache.ndirty, 2);
	KEXPECT_EQ(blkdev_sync(d), 0);
	KEXPECT_EQ(d->cache.ndirty, 0);
	KEXPECT_EQ(d->writes, writes + 1);             /* the two pages in one request */
	KEXPECT_EQ(blk_rw(d, BLK_READ, CACHE_AT, raw, 16 * SECTOR_SIZE), 0);
	KEXPECT(sectors_are(raw, CACHE_AT, 16, written_sector));
	printk("KTEST DISK-WROTE vda %d %d\n", CACHE_AT, 16);
	/* the ends of the disk, and the read-only one */
	uint64_t size = DISK_SECTORS * (uint64_t)SECTOR_SIZE;
	KEXPECT_EQ(blkdev_read(d, size - 10, buf, 100), 10);
	KEXPECT_EQ(blkdev_read(d, size, buf, 100), 0);
	KEXPECT_EQ(blkdev_write(d, size, buf, 100), -ENOSPC);
	KEXPECT_EQ(blkdev_write(d, 0, buf, 0), 0);
	KEXPECT_EQ(blkdev_write(ro, 0, buf, 100), -EROFS);
	KEXPECT_EQ(blkdev_read(ro, 0, buf, 100), 100);
	KEXPECT(memcmp(buf, "PAGODA SECTOR 00000000\n", 23) == 0);
	KEXPECT_EQ(blkdev_sync(ro), 0);
	kfree(buf);
	kfree(raw);
}

#define META_AT 6144         /* a page's first sector (META_AT % 8 == 0) */

/* Metadata written in part (blkdev_write_meta) writes back only its own
 * sectors: the page's other sectors in the cache are stale copies (here:
 * sector META_AT + 1 rewritten on the disk behind the cache's back, as a
 * file's data block is) and must not overwrite the disk. */
KTEST(blk, write_meta_only_its_sectors)
{
	struct blkdev *d = blkdev_find("vda");
	char *buf = kmalloc(SECTOR_SIZE), *raw = kmalloc(3 * SECTOR_SIZE);
	KEXPECT(d && buf && raw);
	if (!d || !buf || !raw)
		return;
	KEXPECT_EQ(blkdev_read(d, META_AT * SECTOR_SIZE, buf, 16), 16);   /* the page cached */
	written_sector(buf, META_AT + 1);
	KEXPECT_EQ(blk_rw(d, BLK_WRITE, META_AT + 1, buf, SECTOR_SIZE), 0);   /* behind its back */
	written_sector(buf, META_AT);
	uint64_t writes = d->writes;
	KEXPECT_EQ(blkdev_write_meta(d, META_AT * SECTOR_SIZE, buf, SECTOR_SIZE), 0);
	KEXPECT_EQ(d->writes, writes);   /* in the cache only, until the sync */
	KEXPECT_EQ(blkdev_write_meta(d, META_AT * SECTOR_SIZE + PAGE_SIZE - 8, buf, 16), -EINVAL);
	KEXPECT_EQ(blkdev_sync(d), 0);
	KEXPECT_EQ(d->writes, writes + 1);
	KEXPECT_EQ(blk_rw(d, BLK_READ, META_AT, raw, 3 * SECTOR_SIZE), 0);
	KEXPECT(sectors_are(raw, META_AT, 2, written_sector));
	KEXPECT(sectors_are(raw + 2 * SECTOR_SIZE, META_AT + 2, 1, source_sector));
	printk("KTEST DISK-WROTE vda %d %d\n", META_AT, 2);
	kfree(buf);
	kfree(raw);
}

/* ---- several CPUs: kernel threads that sleep while they wait ---- */

#define WORKERS 2
#define ROUNDS 40

struct worker {
	int id;
	volatile int done;   /* 1 passed, -1 failed */
};

static struct worker workers[WORKERS];

/* Write, read back and check this worker's own 8 sectors, ROUNDS times,
 * then 8 more through the disk's cache; then sleep for good (kernel
 * threads never return). */
static void worker_main(void *arg)
{
	struct worker *w = arg;
	struct blkdev *d = blkdev_find("vda");
	char *out = kmalloc(8 * SECTOR_SIZE), *in = kmalloc(8 * SECTOR_SIZE);
	int ok = d && out && in;
	uint64_t first = WRITE_AT + 64 + 8 * (uint64_t)w->id;
	for (int r = 0; ok && r < ROUNDS; r++) {
		for (int i = 0; i < 8; i++)
			written_sector(out + i * SECTOR_SIZE, first + i);
		ok = blk_rw(d, BLK_WRITE, first, out, 8 * SECTOR_SIZE) == 0 &&
		     blk_rw(d, BLK_READ, first, in, 8 * SECTOR_SIZE) == 0 &&
		     sectors_are(in, first, 8, written_sector);
	}
	/* then through the cache: the two workers' sectors alternate inside the
	 * same pages (one reads a page in while the other waits for it) */
	for (int k = 0; ok && k < 8; k++) {
		uint64_t s = CACHE_AT + 16 + 2 * (uint64_t)k + (uint64_t)w->id;
		written_sector(out, s);
		ok = blkdev_write(d, s * SECTOR_SIZE, out, SECTOR_SIZE) == SECTOR_SIZE;
	}
	ok = ok && blkdev_sync(d) == 0;
	for (int k = 0; ok && k < 8; k++) {
		uint64_t s = CACHE_AT + 16 + 2 * (uint64_t)k + (uint64_t)w->id;
		ok = blkdev_read(d, s * SECTOR_SIZE, in, SECTOR_SIZE) == SECTOR_SIZE &&
		     sectors_are(in, s, 1, written_sector);
	}
	w->done = ok ? 1 : -1;
	static struct spinlock never = SPINLOCK_INIT("blk-test-idle", LOCK_RANK_BLK_QUEUE);
	spin_lock(&never);
	for (;;)
		wait_on(w, &never);   /* nobody wakes it */
}

KTEST(blk, threads_on_other_cpus)
{
	for (int i = 0; i < WORKERS; i++) {
		workers[i] = (struct worker){ .id = i };
		KEXPECT_EQ(kthread_start("blk-test", worker_main, &workers[i]), 0);
	}
	char *buf = kmalloc(SECTOR_SIZE);
	struct blkdev *d = blkdev_find("vda");
	for (int n = 0; d && buf && (!workers[0].done || !workers[1].done); n++) {
		KEXPECT_EQ(blk_rw(d, BLK_READ, n % 1000, buf, SECTOR_SIZE), 0);   /* meanwhile */
		cpu_relax();
	}
	for (int i = 0; i < WORKERS; i++)
		KEXPECT_EQ(workers[i].done, 1);
	printk("KTEST DISK-WROTE vda %d %d\n", WRITE_AT + 64, 8 * WORKERS);
	printk("KTEST DISK-WROTE vda %d %d\n", CACHE_AT + 16, 8 * WORKERS);
	kfree(buf);
}

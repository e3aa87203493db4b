/* drivers/block/blkdev.c -- the block layer (see blkdev.h). */
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "mm/frame/kmalloc.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "arch/x86_64/timer.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define SECTORS_PER_PAGE (PAGE_SIZE / SECTOR_SIZE)

static struct blkdev *disks[BLKDEV_MAX];
static int ndisks;
static struct spinlock blk_done_lock = SPINLOCK_INIT("blk-done", LOCK_RANK_BLK_DONE);
static struct spinlock blk_claim_lock = SPINLOCK_INIT("blk-claim", LOCK_RANK_BLK_CLAIM);

static const struct pagecache_ops blkdev_cache_ops;

int blkdev_register(struct blkdev *d)
{
	if (ndisks == BLKDEV_MAX)
		return -ENOSPC;
	if (d->max_segs == 0 || d->max_segs > BLK_MAX_SEGS)
		d->max_segs = d->max_segs ? BLK_MAX_SEGS : 1;
	pagecache_init(&d->cache, &blkdev_cache_ops, d, PC_KIND_BLOCKDEV);
	disks[ndisks++] = d;
	return 0;
}

int blkdev_claim(struct blkdev *d, const void *holder)
{
	spin_lock(&blk_claim_lock);
	bool ok = !d->claims || d->holder == holder;
	if (ok) {
		d->holder = holder;
		d->claims++;
	}
	spin_unlock(&blk_claim_lock);
	return ok ? 0 : -EBUSY;
}

void blkdev_unclaim(struct blkdev *d, const void *holder)
{
	spin_lock(&blk_claim_lock);
	if (!d->claims || d->holder != holder)
		panic("blkdev_unclaim: %s is not claimed by %p (holder %p, %u claims)", d->name,
		      holder, d->holder, d->claims);
	if (--d->claims == 0)
		d->holder = NULL;
	spin_unlock(&blk_claim_lock);
}

struct blkdev *blkdev_find(const char *name)
{
	for (int i = 0; i < ndisks; i++)
		if (strcmp(disks[i]->name, name) == 0)
			return disks[i];
	return NULL;
}

struct blkdev *blkdev_get(int index)
{
	return index >= 0 && index < ndisks ? disks[index] : NULL;
}

/* Is r a request d can take? 0 or its error. */
static int check(const struct blkdev *d, const struct blk_request *r)
{
	if (r->op != BLK_READ && d->readonly)
		return -EROFS;
	if (r->op == BLK_FLUSH)
		return d->write_cache ? 0 : -EOPNOTSUPP;
	uint32_t len = 0;
	for (unsigned i = 0; i < r->nseg; i++) {
		if (r->seg[i].len == 0 || r->seg[i].len % SECTOR_SIZE)
			return -EINVAL;
		len += r->seg[i].len;
	}
	if (len == 0 || len != r->len || r->nseg > d->max_segs)
		return -EINVAL;
	uint64_t n = r->len / SECTOR_SIZE;
	return r->sector > d->sectors || n > d->sectors - r->sector ? -EIO : 0;
}

int blk_submit(struct blk_request *r)
{
	int e = check(r->dev, r);
	if (e)
		return e;
	r->done = false;
	r->error = 0;
	r->start_ns = clock_ns();
	return r->dev->ops->submit(r->dev, r);
}

int blk_wait(struct blk_request *r)
{
	spin_lock(&blk_done_lock);
	while (!r->done)
		wait_on(r, &blk_done_lock);
	spin_unlock(&blk_done_lock);
	return r->error;
}

#define ERRORS_SHOWN 10   /* a failing disk's first errors go to the log, then no more */

/* Say that r failed, as Linux's "I/O error, dev vda, sector ..." (blk_done_lock held). */
static void report_error(struct blkdev *d, const struct blk_request *r, int error)
{
	static const char *const ops[] = { "read", "write", "flush" };
	if (d->errors < ERRORS_SHOWN)
		printk("blk: %s: I/O error %d, sector %lu, %s of %u bytes%s\n", d->name, error,
		       r->sector, ops[r->op], r->len,
		       d->errors + 1 == ERRORS_SHOWN ? " (no more are shown)" : "");
}

void blk_complete(struct blk_request *r, int error)
{
	struct blkdev *d = r->dev;
	spin_lock(&blk_done_lock);
	if (error) {
		report_error(d, r, error);
		d->errors++;
	} else if (r->op == BLK_READ) {
		d->reads++;
	} else if (r->op == BLK_WRITE) {
		d->writes++;
	} else {
		d->flushes++;
	}
	if (!error && r->op != BLK_FLUSH)
		d->sectors_moved[r->op] += r->len / SECTOR_SIZE;
	d->busy_ns[r->op] += clock_ns() - r->start_ns;
	r->error = error;
	r->done = true;
	wait_wake(r);
	spin_unlock(&blk_done_lock);
}

int blk_rw(struct blkdev *d, enum blk_op op, uint64_t sector, void *buf, uint32_t len)
{
	struct blk_request r = { .op = op, .sector = sector, .len = len, .dev = d,
				 .seg = { { buf, len } }, .nseg = op == BLK_FLUSH ? 0 : 1 };
	int e = blk_submit(&r);
	if (e == -EOPNOTSUPP && op == BLK_FLUSH)
		return 0;   /* no write cache: every write is durable already */
	return e ? e : blk_wait(&r);
}

/* ---- plugs ---- */

void blk_plug_init(struct blk_plug *p, struct blkdev *d)
{
	*p = (struct blk_plug){ .dev = d };
	list_init(&p->inflight);
}

/* Submit the request being built (if any) and put it in flight. */
static void plug_submit(struct blk_plug *p)
{
	struct blk_request *r = p->cur;
	if (!r)
		return;
	p->cur = NULL;
	int e = blk_submit(r);
	if (e) {
		p->error = p->error ? p->error : e;
		kfree(r);
		return;
	}
	list_add_tail(&p->inflight, &r->link);
}

/* Does a piece at sector continue p's current request? */
static bool continues(const struct blk_plug *p, enum blk_op op, uint64_t sector)
{
	const struct blk_request *r = p->cur;
	return r && r->op == op && r->sector + r->len / SECTOR_SIZE == sector &&
	       r->nseg < p->dev->max_segs;
}

void blk_plug_add(struct blk_plug *p, enum blk_op op, uint64_t sector, void *buf, uint32_t len)
{
	if (continues(p, op, sector)) {
		__atomic_fetch_add(&p->dev->merged[op], 1, __ATOMIC_RELAXED);
	} else {
		plug_submit(p);
		if (!(p->cur = kmalloc(sizeof(*p->cur)))) {   /* no memory: this piece alone */
			int e = blk_rw(p->dev, op, sector, buf, len);
			p->error = p->error ? p->error : e;
			return;
		}
		*p->cur = (struct blk_request){ .op = op, .sector = sector, .dev = p->dev };
	}
	struct blk_request *r = p->cur;
	struct blk_seg *last = r->nseg ? &r->seg[r->nseg - 1] : NULL;
	if (last && (char *)last->buf + last->len == buf)
		last->len += len;   /* right after the last piece in memory too: one segment */
	else
		r->seg[r->nseg++] = (struct blk_seg){ buf, len };
	r->len += len;
}

int blk_plug_finish(struct blk_plug *p)
{
	plug_submit(p);
	list_for_each_safe(l, next, &p->inflight) {
		struct blk_request *r = list_entry(l, struct blk_request, link);
		int e = blk_wait(r);
		p->error = p->error ? p->error : e;
		list_del(&r->link);
		kfree(r);
	}
	int e = p->error;
	p->error = 0;
	return e;
}

/* ---- the disk's page cache ---- */

/* Sectors of page index that lie on d (0..8). */
static uint32_t sectors_in_page(const struct blkdev *d, uint64_t index)
{
	uint64_t first = index * SECTORS_PER_PAGE;
	return first >= d->sectors ? 0 : (uint32_t)MIN(SECTORS_PER_PAGE, d->sectors - first);
}

/* read_pages: consecutive pages, so one request per BLK_MAX_SEGS pages
 * (what lies past the disk's end stays zeros). */
static int cache_read_pages(struct pagecache *pc, struct page **pages, unsigned n)
{
	struct blkdev *d = pc->owner;
	struct blk_plug p;
	blk_plug_init(&p, d);
	for (unsigned i = 0; i < n; i++) {
		uint64_t index = pages[i]->cache.index;
		uint32_t k = sectors_in_page(d, index);
		if (k)
			blk_plug_add(&p, BLK_READ, index * SECTORS_PER_PAGE, page_va(pages[i]),
				     k * SECTOR_SIZE);
	}
	return blk_plug_finish(&p);
}

/* write_pages: the dirty sectors of each page, in runs (a page dirty in
 * part holds a file system's metadata beside stale copies of data). */
static int cache_write_pages(struct pagecache *pc, struct page **pages, const uint8_t *dirty,
			     unsigned n)
{
	struct blkdev *d = pc->owner;
	struct blk_plug p;
	blk_plug_init(&p, d);
	for (unsigned i = 0; i < n; i++) {
		uint64_t first = pages[i]->cache.index * SECTORS_PER_PAGE;
		uint32_t k = sectors_in_page(d, pages[i]->cache.index), s = 0;
		char *va = page_va(pages[i]);
		while (s < k) {
			uint32_t run = 0;
			while (s + run < k && (dirty[i] >> (s + run) & 1))
				run++;
			if (run)
				blk_plug_add(&p, BLK_WRITE, first + s, va + s * SECTOR_SIZE,
					     run * SECTOR_SIZE);
			s += run ? run : 1;
		}
	}
	return blk_plug_finish(&p);
}

static const struct pagecache_ops blkdev_cache_ops = {
	.read_pages = cache_read_pages, .write_pages = cache_write_pages,
};

/* Bytes of d from off on, at most n (0 past the end). */
static uint64_t clip(const struct blkdev *d, uint64_t off, uint64_t n)
{
	uint64_t size = d->sectors * SECTOR_SIZE;
	return off >= size ? 0 : MIN(n, size - off);
}

long blkdev_read(struct blkdev *d, uint64_t off, void *buf, uint64_t n)
{
	uint64_t c = clip(d, off, n);
	if (c)
		pagecache_readahead(&d->cache, off / PAGE_SIZE,
				    (off + c - 1) / PAGE_SIZE - off / PAGE_SIZE + 1,
				    (d->sectors + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE);
	return pagecache_copy(&d->cache, off, buf, c, PC_COPY_OUT);
}

long blkdev_write(struct blkdev *d, uint64_t off, const void *buf, uint64_t n)
{
	if (d->readonly)
		return -EROFS;
	uint64_t c = clip(d, off, n);
	long r = c ? pagecache_copy(&d->cache, off, (void *)buf, c, PC_COPY_IN) : n ? -ENOSPC : 0;
	if (r > 0 && pagecache_dirty_over_limit())
		(void)pagecache_write_back(&d->cache, 0, PC_MAX_INDEX);   /* errors: at fsync */
	return r;
}

int blkdev_write_meta(struct blkdev *d, uint64_t off, const void *buf, uint32_t n)
{
	if (d->readonly)
		return -EROFS;
	if (clip(d, off, n) != n)
		return -EINVAL;   /* inside the disk */
	return pagecache_write_part(&d->cache, off, buf, n);
}

int blkdev_sync(struct blkdev *d)
{
	int e = pagecache_write_back(&d->cache, 0, PC_MAX_INDEX);
	int wb = pagecache_error_since(&d->cache, &d->sync_mark);
	int f = d->readonly ? 0 : blk_rw(d, BLK_FLUSH, 0, NULL, 0);
	return e ? e : wb ? wb : f;
}

/* drivers/block/blkdev.c -- the block layer (see blkdev.h). */
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "lib/wait.h"
#include "mm/frame/page.h"
#include "arch/x86_64/memlayout.h"

#define SECTORS_PER_PAGE (PAGE_SIZE / SECTOR_SIZE)

static struct blkdev *disks[BLKDEV_MAX];
static int ndisks;
static struct spinlock blk_done_lock = SPINLOCK_INIT("blk-done", LOCK_RANK_BLK_DONE);

static const struct pagecache_ops blkdev_cache_ops;

int blkdev_register(struct blkdev *d)
{
	if (ndisks == BLKDEV_MAX)
		return -ENOSPC;
	pagecache_init(&d->cache, &blkdev_cache_ops, d, PC_KIND_BLOCKDEV);
	disks[ndisks++] = d;
	return 0;
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
	if (r->len == 0 || r->len % SECTOR_SIZE)
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

void blk_complete(struct blk_request *r, int error)
{
	struct blkdev *d = r->dev;
	spin_lock(&blk_done_lock);
	if (error)
		d->errors++;
	else if (r->op == BLK_READ)
		d->reads++;
	else if (r->op == BLK_WRITE)
		d->writes++;
	else
		d->flushes++;
	r->error = error;
	r->done = true;
	wait_wake(r);
	spin_unlock(&blk_done_lock);
}

int blk_rw(struct blkdev *d, enum blk_op op, uint64_t sector, void *buf, uint32_t len)
{
	struct blk_request r = { .op = op, .sector = sector, .buf = buf, .len = len, .dev = d };
	int e = blk_submit(&r);
	if (e == -EOPNOTSUPP && op == BLK_FLUSH)
		return 0;   /* no write cache: every write is durable already */
	return e ? e : blk_wait(&r);
}

/* ---- the disk's page cache ---- */

/* Sectors of page index that lie on d (0..8). */
static uint32_t sectors_in_page(const struct blkdev *d, uint64_t index)
{
	uint64_t first = index * SECTORS_PER_PAGE;
	return first >= d->sectors ? 0 : (uint32_t)MIN(SECTORS_PER_PAGE, d->sectors - first);
}

static int cache_read_page(struct pagecache *pc, uint64_t index, struct page *pg)
{
	struct blkdev *d = pc->owner;
	uint32_t n = sectors_in_page(d, index);   /* the rest stays zeros */
	return n ? blk_rw(d, BLK_READ, index * SECTORS_PER_PAGE, page_va(pg), n * SECTOR_SIZE) : 0;
}

static int cache_write_page(struct pagecache *pc, uint64_t index, struct page *pg)
{
	struct blkdev *d = pc->owner;
	uint32_t n = sectors_in_page(d, index);
	return n ? blk_rw(d, BLK_WRITE, index * SECTORS_PER_PAGE, page_va(pg), n * SECTOR_SIZE) : 0;
}

static const struct pagecache_ops blkdev_cache_ops = {
	.read_page = cache_read_page, .write_page = cache_write_page,
};

/* Bytes of d from off on, at most n (0 past the end). */
static uint64_t clip(const struct blkdev *d, uint64_t off, uint64_t n)
{
	uint64_t size = d->sectors * SECTOR_SIZE;
	return off >= size ? 0 : MIN(n, size - off);
}

long blkdev_read(struct blkdev *d, uint64_t off, void *buf, uint64_t n)
{
	return pagecache_copy(&d->cache, off, buf, clip(d, off, n), PC_COPY_OUT);
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

int blkdev_write_through(struct blkdev *d, uint64_t off, const void *buf, uint32_t n)
{
	if (d->readonly)
		return -EROFS;
	if (off % PAGE_SIZE + n > PAGE_SIZE || clip(d, off, n) != n)
		return -EINVAL;   /* one page, inside the disk */
	struct page *pg;
	int e = pagecache_get(&d->cache, off / PAGE_SIZE, PC_READ, &pg);
	if (e)
		return e;
	char *va = (char *)P2V(page_to_pa(pg));
	memcpy(va + off % PAGE_SIZE, buf, n);
	uint64_t first = ALIGN_DOWN(off, SECTOR_SIZE), end = ALIGN_UP(off + n, SECTOR_SIZE);
	e = blk_rw(d, BLK_WRITE, first / SECTOR_SIZE, va + first % PAGE_SIZE, (uint32_t)(end - first));
	page_put(pg);
	return e;
}

int blkdev_sync(struct blkdev *d)
{
	int e = pagecache_write_back(&d->cache, 0, PC_MAX_INDEX);
	int wb = pagecache_take_error(&d->cache);
	int f = d->readonly ? 0 : blk_rw(d, BLK_FLUSH, 0, NULL, 0);
	return e ? e : wb ? wb : f;
}

/* drivers/block/blkdev.c -- the block layer (see blkdev.h). */
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "lib/wait.h"

static struct blkdev *disks[BLKDEV_MAX];
static int ndisks;
static struct spinlock blk_done_lock = SPINLOCK_INIT("blk-done", LOCK_RANK_BLK_DONE);

int blkdev_register(struct blkdev *d)
{
	if (ndisks == BLKDEV_MAX)
		return -ENOSPC;
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

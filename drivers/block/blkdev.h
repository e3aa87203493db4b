/* drivers/block/blkdev.h -- the block layer: disks by name, and requests
 * to read, write or flush them, completed by an interrupt.
 *
 *   caller                    block layer               driver (virtio_blk)
 *   blk_submit(req) --------> checks range, RO -------> ops->submit: queue it
 *   ... does other work                                  device works
 *   blk_wait(req) <---------- blk_complete(req, err) <-- interrupt: finished
 *
 * blk_rw does the three for one request and returns its result.
 *
 * Who changes what: a driver registers each disk once at boot
 * (blkdev_register); disks are never removed. A request belongs to its
 * submitter until submitted, then to the driver until blk_complete, then
 * to the submitter again (done set, under blk_done_lock, which blk_wait
 * waits under). Sectors are 512 bytes whatever the device's block size.
 *
 * Errors (Linux's): -EINVAL (length not a multiple of 512, or 0 for a
 * read or write), -EIO (past the end of the disk, or the device failed),
 * -EROFS (a write or flush to a read-only disk), -EOPNOTSUPP (a flush to
 * a disk without a write cache, which needs none: blk_rw treats it as
 * done). Never panics on what a device returns.
 */
#ifndef DRIVERS_BLOCK_BLKDEV_H
#define DRIVERS_BLOCK_BLKDEV_H

#include "lib/types.h"
#include "mm/pagecache.h"

#define SECTOR_SIZE 512
#define BLKDEV_MAX 8

enum blk_op { BLK_READ, BLK_WRITE, BLK_FLUSH };

struct blkdev;

struct blk_request {
	enum blk_op op;
	uint64_t sector;
	void *buf;                      /* direct-mapped kernel memory (kmalloc, a frame) */
	uint32_t len;                   /* bytes */
	struct blkdev *dev;
	int error;                      /* 0 or -errno, valid once done */
	bool done;
};

struct blkdev_ops {
	/* Start r (checked already); finish it later with blk_complete. 0, or
	 * an error and r is not started. May wait for room in the queue. */
	int (*submit)(struct blkdev *d, struct blk_request *r);
};

struct blkdev {
	char name[8];                   /* "vda", "vdb", ... as Linux names them */
	uint64_t sectors;
	bool readonly, write_cache;     /* write_cache: FLUSH needed for durability */
	const struct blkdev_ops *ops;
	void *driver;                   /* the driver's own device */
	uint64_t reads, writes, flushes, errors;   /* completed requests */
	struct pagecache cache;         /* its bytes by 4 KiB page (blkdev_read/write) */
};

/* Add d to the disks (its name, size and ops set by the caller; its page
 * cache is set up here). 0, or -ENOSPC. */
int blkdev_register(struct blkdev *d);

/* The disk called name, or NULL. */
struct blkdev *blkdev_find(const char *name);

/* The index-th registered disk, or NULL. */
struct blkdev *blkdev_get(int index);

/* Start r on r->dev: 0, or an error (r never started, not done). */
int blk_submit(struct blk_request *r);

/* Wait until r (submitted) is done: its error. */
int blk_wait(struct blk_request *r);

/* The driver's side: r finished with error (0 or -errno). Any context. */
void blk_complete(struct blk_request *r, int error);

/* One request, start to end: 0 or an error (see the top). */
int blk_rw(struct blkdev *d, enum blk_op op, uint64_t sector, void *buf, uint32_t len);

/* ---- through the disk's page cache (Linux's block-device mapping) ----
 *
 * What file systems read their metadata with and what a program reading
 * /dev/vda sees: the disk's bytes by 4 KiB page in d->cache (a last page
 * past the disk's end reads as zeros and is never written there). A read
 * of a page not cached goes to the disk; a write only changes the cache
 * and marks the page dirty, until blkdev_sync. */

/* Copy n bytes at byte offset off of d into buf: bytes copied (short at
 * the disk's end, 0 past it), or -EIO / -ENOMEM. */
long blkdev_read(struct blkdev *d, uint64_t off, void *buf, uint64_t n);

/* Copy n bytes from buf to byte offset off of d (in its cache): bytes
 * copied (short at the disk's end), or -ENOSPC (past the end), -EROFS,
 * -EIO / -ENOMEM. When too much of memory is dirty (mm/pagecache.h's
 * limit) it writes d's dirty pages back before returning, so a writer
 * cannot fill memory with pages nothing may free. */
long blkdev_write(struct blkdev *d, uint64_t off, const void *buf, uint64_t n);

/* Metadata of a file system (fs/ext2): n bytes at off (inside one page)
 * into d's cache page and, at once, the sectors they touch to the disk,
 * the page left clean. A file system whose data blocks go to the disk
 * from the files' own caches writes its metadata this way, so that a
 * page of the disk's cache never writes back stale copies of data blocks
 * that share it (1 KiB blocks: four to a page). 0, -EROFS, -EINVAL (not
 * in one page, or past the end), -EIO, -ENOMEM. */
int blkdev_write_through(struct blkdev *d, uint64_t off, const void *buf, uint32_t n);

/* Write every dirty page of d's cache to the disk, then flush the disk's
 * write cache: 0, or the first error (a write-back error since the last
 * sync included). */
int blkdev_sync(struct blkdev *d);

#endif

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
 * A request is a run of sectors and the pieces of memory they go to or
 * come from (segments: pages of a cache, seldom contiguous in memory).
 * Callers with many pieces use a plug (Linux's blk_plug): pieces added
 * one by one are merged into one request while they continue it on the
 * disk (same op, the next sector, room for a segment); when one does
 * not, the request is submitted and a new one begun, so several are in
 * flight at once; blk_plug_finish submits the last and waits for all:
 *
 *   blk_plug_add(p, READ, 800, page A)  -> request R1: 800..807 [A]
 *   blk_plug_add(p, READ, 808, page B)  -> R1: 800..815 [A, B]   (merged)
 *   blk_plug_add(p, READ, 960, page C)  -> R1 submitted; R2: 960..967 [C]
 *   blk_plug_finish(p)                  -> R2 submitted; wait R1, R2
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

#include "lib/list.h"
#include "lib/types.h"
#include "mm/pagecache.h"

#define SECTOR_SIZE 512
#define BLKDEV_MAX 8

enum blk_op { BLK_READ, BLK_WRITE, BLK_FLUSH };

#define BLK_MAX_SEGS 32                 /* segments of one request: 32 pages, 128 KiB */

struct blkdev;

/* A piece of a request: direct-mapped kernel memory (kmalloc, a frame),
 * a multiple of 512 bytes. */
struct blk_seg {
	void *buf;
	uint32_t len;
};

struct blk_request {
	enum blk_op op;
	uint64_t sector;
	struct blk_seg seg[BLK_MAX_SEGS];   /* in disk order */
	uint16_t nseg;                  /* 0 for a flush */
	uint32_t len;                   /* bytes, all segments */
	struct blkdev *dev;
	int error;                      /* 0 or -errno, valid once done */
	bool done;
	uint64_t start_ns;              /* clock_ns() at blk_submit */
	struct list link;               /* its plug's list of requests in flight */
};

/* Requests under construction and in flight (see the top). Owned by one
 * task, on its stack. */
struct blk_plug {
	struct blkdev *dev;
	struct blk_request *cur;        /* being built: not yet submitted */
	struct list inflight;           /* submitted, not yet waited for */
	int error;                      /* the first error of any */
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
	uint16_t max_segs;              /* segments a request may have, 1..BLK_MAX_SEGS */
	const struct blkdev_ops *ops;
	void *driver;                   /* the driver's own device */
	/* completed requests and what they moved (under blk_done_lock), the
	 * pieces plugs merged (atomic): /proc/diskstats */
	uint64_t reads, writes, flushes, errors;
	uint64_t sectors_moved[2], busy_ns[3];   /* by enum blk_op: read, written; time */
	uint64_t merged[2];
	struct pagecache cache;         /* its bytes by 4 KiB page (blkdev_read/write) */
	uint32_t sync_mark;             /* cache's write-back errors blkdev_sync reported */
	/* its exclusive user (blkdev_claim), and how many claims it holds */
	const void *holder;
	uint32_t claims;
};

/* Add d to the disks (its name, size and ops set by the caller; its page
 * cache is set up here). 0, or -ENOSPC. */
int blkdev_register(struct blkdev *d);

/* Exclusive use of disk d (Linux's blkdev_get_by_dev with a holder):
 * a file system mounted on it (holder: its fs_type), a swap area (the swap
 * code's token). The disk has one holder at a time; the same holder may
 * claim it again (each claim counted, each let go by blkdev_unclaim).
 * 0, or -EBUSY: another holder has it. Takes a spinlock of its own. */
int blkdev_claim(struct blkdev *d, const void *holder);

/* Let one claim of holder's on d go (the last one frees the disk for
 * another holder). Panics naming the disk if holder holds none. */
void blkdev_unclaim(struct blkdev *d, const void *holder);

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

/* One request of one segment, start to end: 0 or an error (see the top). */
int blk_rw(struct blkdev *d, enum blk_op op, uint64_t sector, void *buf, uint32_t len);

/* An empty plug for requests to d. */
void blk_plug_init(struct blk_plug *p, struct blkdev *d);

/* Read or write (op: BLK_READ or BLK_WRITE) len bytes (a multiple of
 * 512, at most a page) at sector from or to buf: merged into the request being built, or the start of a
 * new one (the old one submitted). Errors surface at blk_plug_finish (no
 * memory for a request: this piece is done alone, at once). */
void blk_plug_add(struct blk_plug *p, enum blk_op op, uint64_t sector, void *buf, uint32_t len);

/* Submit the request being built and wait for every one of p: 0 or the
 * first error. p is empty again. */
int blk_plug_finish(struct blk_plug *p);

/* ---- through the disk's page cache (Linux's block-device mapping) ----
 *
 * What file systems read their metadata with and what a program reading
 * /dev/vda sees: the disk's bytes by 4 KiB page in d->cache (a last page
 * past the disk's end reads as zeros and is never written there). A read
 * of a page not cached goes to the disk; a write only changes the cache
 * and marks the page dirty, until blkdev_sync. */

/* Copy n bytes at byte offset off of d into buf (their absent pages read
 * in together first, and a window past them for a stream): bytes copied
 * (short at the disk's end, 0 past it), or -EIO / -ENOMEM. */
long blkdev_read(struct blkdev *d, uint64_t off, void *buf, uint64_t n);

/* Copy n bytes from buf to byte offset off of d (in its cache): bytes
 * copied (short at the disk's end), or -ENOSPC (past the end), -EROFS,
 * -EIO / -ENOMEM. When too much of memory is dirty (mm/pagecache.h's
 * limit) it writes d's dirty pages back before returning, so a writer
 * cannot fill memory with pages nothing may free. */
long blkdev_write(struct blkdev *d, uint64_t off, const void *buf, uint64_t n);

/* Metadata of a file system (fs/ext2): n bytes at off (inside one page)
 * into d's cache page, only the sectors they touch marked dirty (written
 * back by blkdev_sync or the flusher). A file system whose data blocks go
 * to the disk from the files' own caches writes its metadata this way, so
 * that a page of the disk's cache never writes back stale copies of data
 * blocks that share it (1 KiB blocks: four to a page). 0, -EROFS, -EINVAL
 * (not in one page, or past the end), -EIO, -ENOMEM. */
int blkdev_write_meta(struct blkdev *d, uint64_t off, const void *buf, uint32_t n);

/* Write every dirty page of d's cache to the disk, then flush the disk's
 * write cache: 0, or the first error (a write-back error of d's cache
 * since the last blkdev_sync included: a file system's commit hears of
 * its metadata's failures). */
int blkdev_sync(struct blkdev *d);

#endif

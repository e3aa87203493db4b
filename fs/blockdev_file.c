/* fs/blockdev_file.c -- a disk's device file (/dev/vda): its bytes through
 * the disk's own page cache (drivers/block/blkdev.h), and its numbers. */
#include "fs/file.h"
#include "drivers/block/blkdev.h"
#include "lib/errno.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"

#define VIRTBLK_MAJOR 253
#define MINORS_PER_DISK 16

uint32_t blkdev_devt(int index)
{
	return MKDEV(VIRTBLK_MAJOR, MINORS_PER_DISK * index);
}

uint32_t blkdev_devt_of(struct blkdev *d)
{
	for (int i = 0; blkdev_get(i); i++)
		if (blkdev_get(i) == d)
			return blkdev_devt(i);
	return 0;
}

struct blkdev *blkdev_by_devt(uint32_t rdev)
{
	if (MAJOR(rdev) != VIRTBLK_MAJOR || MINOR(rdev) % MINORS_PER_DISK)
		return NULL;
	return blkdev_get((int)(MINOR(rdev) / MINORS_PER_DISK));
}

static struct blkdev *file_disk(struct file *f)
{
	return blkdev_by_devt(f->inode->rdev);
}

static long disk_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct blkdev *d = file_disk(f);
	uint64_t size = d->sectors * SECTOR_SIZE;
	return cache_read(&d->cache, &size, NULL, &f->off, ubuf, n);
}

/* Write up to n bytes at f->off from user memory, a page of kernel memory
 * at a time: bytes written (short at the disk's end or at a bad user
 * address after some), or -errno: a read-only disk -EPERM (Linux's
 * blkdev_write_iter), past the end -ENOSPC. */
static long disk_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	struct blkdev *d = file_disk(f);
	char *buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	uint64_t done = 0;
	long r = 0;
	while (done < n) {
		uint64_t len = MIN(n - done, PAGE_SIZE);
		if (copyin(buf, ubuf + done, len) < 0) {
			r = -EFAULT;
			break;
		}
		if ((r = blkdev_write(d, f->off, buf, len)) <= 0)
			break;
		f->off += (uint64_t)r;
		done += (uint64_t)r;
		if ((uint64_t)r < len)
			break;   /* the disk's end */
	}
	kfree(buf);
	return done ? (long)done : r == -EROFS ? -EPERM : r;
}

/* fsync: the disk's dirty pages and its write cache; -EIO when that
 * failed, or when a write-back of the disk's cache failed since this file
 * last heard (Linux's errseq rule: pagecache_error_since). */
static int disk_fsync(struct file *f)
{
	struct blkdev *d = file_disk(f);
	int r = blkdev_sync(d);
	int e = pagecache_error_since(&d->cache, &f->wb_mark);
	return r < 0 || e ? -EIO : 0;
}

const struct file_ops blockdev_file_ops = {
	.read = disk_read, .write = disk_write, .fsync = disk_fsync, .seekable = true,
};

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

/* Move up to n bytes between the disk at f->off and user memory, a page
 * of kernel memory at a time: bytes moved (short at the disk's end or at
 * a bad user address after some), or -errno. */
static long disk_rw(struct file *f, vaddr_t ubuf, uint64_t n, bool write)
{
	struct blkdev *d = file_disk(f);
	char *buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	uint64_t done = 0;
	long r = 0;
	if (!write)
		blkdev_readahead(d, f->off, n);   /* the whole read's pages together */
	while (done < n) {
		uint64_t len = MIN(n - done, PAGE_SIZE);
		if (write && copyin(buf, ubuf + done, len) < 0) {
			r = -EFAULT;
			break;
		}
		r = write ? blkdev_write(d, f->off, buf, len) : blkdev_read(d, f->off, buf, len);
		if (r > 0 && !write && copyout(ubuf + done, buf, (uint64_t)r) < 0)
			r = -EFAULT;
		if (r <= 0)
			break;
		f->off += (uint64_t)r;
		done += (uint64_t)r;
		if ((uint64_t)r < len)
			break;   /* the disk's end */
	}
	kfree(buf);
	return done ? (long)done : r;
}

static long disk_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	return disk_rw(f, ubuf, n, false);
}

/* A read-only disk: -EPERM (Linux's blkdev_write_iter); past the end: -ENOSPC. */
static long disk_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	long r = disk_rw(f, ubuf, n, true);
	return r == -EROFS ? -EPERM : r;
}

static int disk_fsync(struct file *f)
{
	return blkdev_sync(file_disk(f)) < 0 ? -EIO : 0;
}

const struct file_ops blockdev_file_ops = {
	.read = disk_read, .write = disk_write, .fsync = disk_fsync, .seekable = true,
};

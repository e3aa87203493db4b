/* kernel/fs_ops.c -- what read/write/stat/getdents do on initrd inodes. */
#include "kernel/fs.h"
#include "kernel/tty.h"
#include "lib/errno.h"
#include "kernel/file.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "kernel/textbuf.h"
#include "drivers/block/blkdev.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"
#include "libc/include/pagoda/abi-stat.h"
#include "libc/include/pagoda/dirent64.h"
#include "arch/x86_64/memlayout.h"

#define S_IFCHR 0020000
#define S_IFBLK 0060000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define BOUNCE 512            /* bytes copied through the kernel at a time */

static long reg_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	char buf[BOUNCE];
	uint64_t done = 0;
	while (done < n) {
		uint64_t got = inode_read(f->inode, f->off, buf, MIN(n - done, BOUNCE));
		if (got == 0)
			break;
		int r = copyout(ubuf + done, buf, got);
		if (r < 0)
			return done ? (long)done : r;
		f->off += got;
		done += got;
	}
	return (long)done;
}

/* ---- a disk (/dev/vda): its bytes through its page cache ---- */

/* Move up to n bytes between the disk at f->off and user memory, a page
 * of kernel memory at a time: bytes moved (short at the disk's end or at
 * a bad user address after some), or -errno. */
static long disk_rw(struct file *f, vaddr_t ubuf, uint64_t n, bool write)
{
	struct blkdev *d = inode_disk(f->inode);
	char *buf = kmalloc(PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	uint64_t done = 0;
	long r = 0;
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

int file_fsync(struct file *f)
{
	struct blkdev *d = f->inode ? inode_disk(f->inode) : NULL;
	if (d)
		return blkdev_sync(d) < 0 ? -EIO : 0;
	if (f->inode && (f->inode->type == INODE_FILE || f->inode->type == INODE_DIR))
		return 0;   /* the initrd: nothing to write */
	return -EINVAL;     /* pipes, terminals, null, zero: as Linux */
}

static long dir_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return -EISDIR;
}

static long null_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return 0;
}

static long null_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf;
	return (long)n;
}

static long zero_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	int r = clear_user(ubuf, n);
	return r < 0 ? r : (long)n;
}

static long console_file_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	return tty_read(ubuf, n);
}

static long console_file_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f;
	char buf[BOUNCE];
	uint64_t done = 0;
	while (done < n) {
		uint64_t chunk = MIN(n - done, BOUNCE);
		if (copyin(buf, ubuf + done, chunk) < 0)
			return done ? (long)done : -EFAULT;
		printk_write(buf, chunk);
		done += chunk;
	}
	return (long)done;
}

/* Synthesized files (/proc): the text is made by the inode's show at the
 * first read, and again at every read from offset 0 (a reader that seeks
 * back sees fresh figures); the open file keeps it until close. */
static void synth_close(struct file *f)
{
	struct textbuf *tb = f->priv;
	if (tb) {
		tb_free(tb);
		kfree(tb);
	}
	f->priv = NULL;
}

static long synth_fill(struct file *f)
{
	struct textbuf *tb = kzalloc(sizeof(*tb));
	if (!tb)
		return -ENOMEM;
	int r = f->inode->ops->show(f->inode, f->inode_priv, tb);
	r = r ? r : tb->error;
	if (r < 0) {
		tb_free(tb);
		kfree(tb);
		return r;
	}
	synth_close(f);
	f->priv = tb;
	return 0;
}

static long synth_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	if (!f->priv || f->off == 0) {
		long r = synth_fill(f);
		if (r < 0)
			return r;
	}
	struct textbuf *tb = f->priv;
	if (f->off >= tb->len)
		return 0;
	n = MIN(n, tb->len - f->off);
	if (copyout(ubuf, tb->buf + f->off, n) < 0)
		return -EFAULT;
	f->off += n;
	return (long)n;
}

static const struct file_ops reg_ops = { reg_read, file_no_write, NULL, true };
static const struct file_ops dir_ops = { dir_read, file_no_write, NULL, true };
static const struct file_ops null_ops = { null_read, null_write, NULL, false };
static const struct file_ops zero_ops = { zero_read, null_write, NULL, false };
static const struct file_ops console_ops = { console_file_read, console_file_write, NULL, false };
static const struct file_ops synth_ops = { synth_read, file_no_write, synth_close, true };
static const struct file_ops disk_ops = { disk_read, disk_write, NULL, true };

const struct file_ops *inode_file_ops(struct inode *ip)
{
	if (ip->type == INODE_DIR)
		return &dir_ops;
	if (ip->type == INODE_FILE)
		return ip->ops ? &synth_ops : &reg_ops;
	switch (ip->dev) {
	case DEV_NULL: return &null_ops;
	case DEV_ZERO: return &zero_ops;
	case DEV_DISK: return &disk_ops;
	default: return &console_ops;
	}
}

long inode_stat(struct inode *ip, vaddr_t ust)
{
	struct linux_stat st;
	memset(&st, 0, sizeof(st));
	st.st_dev = 1;
	st.st_ino = ip->ino;
	st.st_nlink = 1;
	bool disk = inode_disk(ip) != NULL;
	st.st_mode = ip->mode | (ip->type == INODE_DIR ? S_IFDIR : disk ? S_IFBLK :
				 ip->type == INODE_DEV ? S_IFCHR : S_IFREG);
	/* a disk: Linux's virtio-blk numbers (major 253, 16 minors a disk) and no size */
	st.st_rdev = disk ? (253u << 8) | (uint32_t)(16 * ip->priv) :
		     ip->type == INODE_DEV ? ip->dev : 0;
	st.st_size = disk ? 0 : (int64_t)ip->size;
	st.st_blksize = PAGE_SIZE;
	st.st_blocks = (int64_t)(ALIGN_UP((uint64_t)st.st_size, 512) / 512);
	return copyout(ust, &st, sizeof(st));
}

static uint8_t dirent_type(struct inode *ip)
{
	return ip->type == INODE_DIR ? DT_DIR : inode_disk(ip) ? DT_BLK :
	       ip->type == INODE_DEV ? DT_CHR : DT_REG;
}

/* The entry of dir at position >= *pos: 0 is ".", 1 is "..", children
 * follow (an initrd directory's in list order, a synthesized one's where
 * its ops put them). *pos becomes the entry's position; NULL at the end. */
static struct inode *dir_entry(struct inode *dir, uint64_t *pos, char *name)
{
	if (*pos <= 1) {
		strlcpy(name, *pos == 0 ? "." : "..", NAME_MAX);
		return *pos == 0 || !dir->parent ? dir : dir->parent;
	}
	if (dir->ops) {
		uint64_t cpos = *pos - 2;
		struct inode *ip = dir->ops->child(dir, &cpos, name);
		*pos = cpos + 2;
		return ip;
	}
	struct inode *c = dir->children;
	for (uint64_t i = 2; c && i < *pos; i++)
		c = c->next_sibling;
	if (c)
		strlcpy(name, c->name, NAME_MAX);
	return c;
}

/* Copy one linux_dirent64 for ip named name (next entry at next) to ubuf:
 * its length, 0 if it does not fit in room, or -EFAULT. */
static long put_dirent(vaddr_t ubuf, uint64_t room, struct inode *ip,
		       const char *name, uint64_t next)
{
	char buf[sizeof(struct linux_dirent64) + NAME_MAX + 8];
	struct linux_dirent64 *d = (void *)buf;
	uint16_t len = (uint16_t)ALIGN_UP(offsetof(struct linux_dirent64, d_name) + strlen(name) + 1, 8);
	if (len > room)
		return 0;
	memset(buf, 0, len);
	d->d_ino = ip->ino;
	d->d_off = (int64_t)next;
	d->d_reclen = len;
	d->d_type = dirent_type(ip);
	memcpy(d->d_name, name, strlen(name));
	return copyout(ubuf, buf, len) < 0 ? -EFAULT : len;
}

long dir_getdents(struct inode *dir, uint64_t *pos, vaddr_t ubuf, uint64_t n)
{
	if (dir->type != INODE_DIR)
		return -ENOTDIR;
	uint64_t done = 0, at = *pos;
	char name[NAME_MAX];
	struct inode *ip;
	while ((ip = dir_entry(dir, &at, name))) {
		long len = put_dirent(ubuf + done, n - done, ip, name, at + 1);
		if (len < 0)
			return len;
		if (len == 0)
			return done ? (long)done : -EINVAL;
		done += (uint64_t)len;
		*pos = ++at;
	}
	return (long)done;
}

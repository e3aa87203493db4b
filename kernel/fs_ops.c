/* kernel/fs_ops.c -- what read/write/stat/getdents do on initrd inodes. */
#include "kernel/fs.h"
#include "kernel/console.h"
#include "kernel/errno.h"
#include "kernel/file.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/uaccess.h"
#include "libc/include/pagoda/abi-stat.h"
#include "libc/include/pagoda/dirent64.h"
#include "arch/x86_64/memlayout.h"

#define S_IFCHR 0020000
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
	return console_read(ubuf, n);
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
		console_write(buf, chunk);
		done += chunk;
	}
	return (long)done;
}

static const struct file_ops reg_ops = { reg_read, file_no_write, NULL, true };
static const struct file_ops dir_ops = { dir_read, file_no_write, NULL, true };
static const struct file_ops null_ops = { null_read, null_write, NULL, false };
static const struct file_ops zero_ops = { zero_read, null_write, NULL, false };
static const struct file_ops console_ops = { console_file_read, console_file_write, NULL, false };

const struct file_ops *inode_file_ops(struct inode *ip)
{
	if (ip->type == INODE_DIR)
		return &dir_ops;
	if (ip->type == INODE_FILE)
		return &reg_ops;
	switch (ip->dev) {
	case DEV_NULL: return &null_ops;
	case DEV_ZERO: return &zero_ops;
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
	st.st_mode = ip->mode | (ip->type == INODE_DIR ? S_IFDIR :
				 ip->type == INODE_DEV ? S_IFCHR : S_IFREG);
	st.st_rdev = ip->type == INODE_DEV ? ip->dev : 0;
	st.st_size = (int64_t)ip->size;
	st.st_blksize = PAGE_SIZE;
	st.st_blocks = (int64_t)(ALIGN_UP(ip->size, 512) / 512);
	return copyout(ust, &st, sizeof(st));
}

static uint8_t dirent_type(struct inode *ip)
{
	return ip->type == INODE_DIR ? DT_DIR : ip->type == INODE_DEV ? DT_CHR : DT_REG;
}

long dir_getdents(struct inode *dir, uint64_t *pos, vaddr_t ubuf, uint64_t n)
{
	if (dir->type != INODE_DIR)
		return -ENOTDIR;
	/* entry 0 is ".", 1 is "..", then the children in list order */
	uint64_t idx = 0, done = 0;
	struct inode *c = dir->children;
	for (;; idx++) {
		const char *name;
		struct inode *ip;
		if (idx == 0) {
			name = ".", ip = dir;
		} else if (idx == 1) {
			name = "..", ip = dir->parent ? dir->parent : dir;
		} else {
			if (!c)
				break;
			name = c->name, ip = c;
			c = c->next_sibling;
		}
		if (idx < *pos)
			continue;
		char buf[sizeof(struct linux_dirent64) + NAME_MAX + 8];
		struct linux_dirent64 *d = (void *)buf;
		uint16_t len = (uint16_t)ALIGN_UP(offsetof(struct linux_dirent64, d_name) + strlen(name) + 1, 8);
		if (done + len > n)
			return done ? (long)done : -EINVAL;
		memset(buf, 0, len);
		d->d_ino = ip->ino;
		d->d_off = (int64_t)idx + 1;
		d->d_reclen = len;
		d->d_type = dirent_type(ip);
		memcpy(d->d_name, name, strlen(name));
		if (copyout(ubuf + done, buf, len) < 0)
			return -EFAULT;
		done += len;
		*pos = idx + 1;
	}
	return (long)done;
}

/* fs/file.c -- open files: their references and their opening (fs/file.h). */
#include "fs/file.h"
#include "fs/locks.h"
#include "drivers/block/blkdev.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "mm/frame/kmalloc.h"

struct file *file_alloc(const struct file_ops *ops, int flags)
{
	struct file *f = kzalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->ops = ops;
	f->refs = 1;
	f->flags = flags;
	mutex_init(&f->pos_lock, "f_pos", SLEEP_RANK_FILE);
	return f;
}

long file_no_read(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return -EBADF;
}

long file_no_write(struct file *f, vaddr_t ubuf, uint64_t n)
{
	(void)f, (void)ubuf, (void)n;
	return -EBADF;
}

struct file *file_dup(struct file *f)
{
	atomic_inc(&f->refs);
	return f;
}

void file_close(struct file *f)
{
	if (!atomic_dec_and_test(&f->refs))
		return;
	locks_release_file(f);   /* its OFD and flock locks */
	if (f->ops->close)
		f->ops->close(f);
	path_put(&f->path);
	kfree(f);
}

struct pagecache *file_cache(struct file *f)
{
	struct inode *ip = f->inode;
	struct blkdev *d = ip && S_ISBLK(ip->mode) ? blkdev_by_devt(ip->rdev) : NULL;
	return d ? &d->cache : ip ? ip->mapping : NULL;
}

int file_fsync(struct file *f)
{
	return f->ops->fsync ? f->ops->fsync(f) : -EINVAL;
}

/* The ops an open of ip gets: its file system's, or its device's. */
static int open_ops(struct inode *ip, const struct file_ops **ops)
{
	if (S_ISCHR(ip->mode))
		*ops = chrdev_ops(ip->rdev);
	else if (S_ISBLK(ip->mode))
		*ops = blkdev_by_devt(ip->rdev) ? &blockdev_file_ops : NULL;
	else
		*ops = ip->fop;
	return *ops ? 0 : S_ISREG(ip->mode) || S_ISDIR(ip->mode) ? -EIO : -ENXIO;
}

/* A file for the path open found (flags checked against what it is). */
static int file_open_path(const struct path *p, int flags, struct file **out)
{
	struct inode *ip = p->dentry->inode;
	int acc = flags & O_ACCMODE;
	if (S_ISDIR(ip->mode) && (acc != O_RDONLY || (flags & O_CREAT)))
		return -EISDIR;
	if ((flags & O_DIRECTORY) && !S_ISDIR(ip->mode))
		return -ENOTDIR;
	if (S_ISLNK(ip->mode))
		return -ELOOP;
	if (acc != O_RDONLY && (S_ISREG(ip->mode) || S_ISDIR(ip->mode)) && path_readonly(p))
		return -EROFS;
	const struct file_ops *ops;
	int r = open_ops(ip, &ops);
	if (r < 0)
		return r;
	struct file *f = file_alloc(ops, flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY | O_CLOEXEC));
	if (!f)
		return -ENOMEM;
	f->path = *p;
	path_get(&f->path);
	f->inode = ip;
	f->inode_priv = ip->priv;
	struct pagecache *pc = file_cache(f);
	f->wb_mark = pc ? pagecache_error_mark(pc) : 0;
	*out = f;
	return 0;
}

/* O_CREAT: name's file, made when missing (mode); *p with references. */
static int open_create(const struct fs_root *fs, const struct path *start, const char *name,
		       int flags, uint32_t mode, struct path *p)
{
	for (int tries = 0; tries < 8; tries++) {
		int r = path_walk(fs, start, name, (flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, p);
		if (r == 0)
			return (flags & O_EXCL) ? (path_put(p), -EEXIST) : 0;
		if (r != -ENOENT)
			return r;
		r = vfs_create(fs, start, name, S_IFREG | (mode & 07777), 0, p);
		if (r != -EEXIST || (flags & O_EXCL))
			return r;
		/* another task made it first: open that one */
	}
	return -EEXIST;
}

int vfs_open(const struct fs_root *fs, const struct path *start, const char *name, int flags,
	     uint32_t mode, struct file **out)
{
	if ((flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY))
		return -EINVAL;   /* Linux since 6.4 (before, it made a file and said ENOTDIR) */
	struct path p;
	int r = (flags & O_CREAT) ? open_create(fs, start, name, flags, mode, &p) :
		path_walk(fs, start, name, (flags & O_NOFOLLOW) ? 0 : LOOKUP_FOLLOW, &p);
	if (r < 0)
		return r;
	if ((flags & O_TRUNC) && S_ISREG(p.dentry->inode->mode) && (flags & O_ACCMODE) != O_RDONLY)
		r = path_readonly(&p) ? -EROFS : vfs_truncate(p.dentry->inode, 0);
	if (r == 0)
		r = file_open_path(&p, flags, out);
	path_put(&p);
	return r;
}

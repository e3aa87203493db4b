/* kernel/file.c -- file objects and per-process descriptor tables. */
#include "kernel/file.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "mm/kmalloc.h"

struct file *file_alloc(const struct file_ops *ops, int flags)
{
	struct file *f = kzalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->ops = ops;
	f->refs = 1;
	f->flags = flags;
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
	if (f->ops->close)
		f->ops->close(f);
	kfree(f);
}

_Static_assert(NOFILE <= 64, "close-on-exec flags are one 64-bit mask");

void fd_set_cloexec(struct proc *p, int fd, bool cloexec)
{
	if (cloexec)
		p->cloexec |= 1UL << fd;
	else
		p->cloexec &= ~(1UL << fd);
}

int fd_alloc(struct proc *p, struct file *f, int from, bool cloexec)
{
	for (int fd = from < 0 ? 0 : from; fd < NOFILE; fd++) {
		if (!p->files[fd]) {
			p->files[fd] = f;
			fd_set_cloexec(p, fd, cloexec);
			return fd;
		}
	}
	return -EMFILE;
}

int fd_install(struct proc *p, struct file *f)
{
	return fd_alloc(p, f, 0, false);
}

void fd_put(struct proc *p, int newfd, struct file *f, bool cloexec)
{
	struct file *old = p->files[newfd];
	p->files[newfd] = f;
	fd_set_cloexec(p, newfd, cloexec);
	if (old)
		file_close(old);
}

void fd_clear(struct proc *p, int fd)
{
	p->files[fd] = NULL;
	fd_set_cloexec(p, fd, false);
}

void fd_close_on_exec(struct proc *p)
{
	for (int fd = 0; fd < NOFILE; fd++) {
		if (p->files[fd] && (p->cloexec & (1UL << fd))) {
			file_close(p->files[fd]);
			fd_clear(p, fd);
		}
	}
}

struct file *fd_get(int fd)
{
	if (fd < 0 || fd >= NOFILE)
		return NULL;
	return current_proc()->files[fd];
}

int file_open(const char *path, int flags, struct file **out)
{
	struct inode *ip = fs_lookup(path);
	if (!ip)
		return (flags & O_CREAT) ? -EROFS : -ENOENT;
	if ((flags & O_ACCMODE) != O_RDONLY && ip->type == INODE_FILE)
		return -EROFS;
	if ((flags & O_ACCMODE) != O_RDONLY && ip->type == INODE_DIR)
		return -EISDIR;
	if ((flags & O_DIRECTORY) && ip->type != INODE_DIR)
		return -ENOTDIR;
	struct file *f = file_alloc(inode_file_ops(ip), flags);
	if (!f)
		return -ENOMEM;
	f->inode = ip;
	f->inode_priv = ip->priv;
	*out = f;
	return 0;
}

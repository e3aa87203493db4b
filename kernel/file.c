/* kernel/file.c -- per-process descriptor tables (kernel/file.h). */
#include "kernel/file.h"
#include "fs/locks.h"
#include "lib/printk.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "mm/frame/kmalloc.h"

struct file *fd_get_pos(int fd)
{
	struct file *f = fd_get(fd);
	if (f && f->ops->seekable)
		mutex_lock(&f->pos_lock);
	return f;
}

void file_pos_unlock(struct file *f)
{
	if (f->ops->seekable)
		mutex_unlock(&f->pos_lock);
}

_Static_assert(NOFILE <= 64, "close-on-exec flags are one 64-bit mask");

/* fd's close-on-exec bit in t (t->lock held). */
static void set_cloexec_locked(struct fdtable *t, int fd, bool cloexec)
{
	if (cloexec)
		t->cloexec |= 1UL << fd;
	else
		t->cloexec &= ~(1UL << fd);
}

void fd_set_cloexec(struct proc *p, int fd, bool cloexec)
{
	spin_lock(&p->fdt->lock);
	set_cloexec_locked(p->fdt, fd, cloexec);
	spin_unlock(&p->fdt->lock);
}

bool fd_is_cloexec(struct proc *p, int fd)
{
	return p->fdt->cloexec & (1UL << fd);
}

int fd_alloc(struct proc *p, struct file *f, int from, bool cloexec)
{
	struct fdtable *t = p->fdt;
	int r = -EMFILE;
	spin_lock(&t->lock);
	for (int fd = from < 0 ? 0 : from; fd < NOFILE && r < 0; fd++) {
		if (!t->files[fd]) {
			t->files[fd] = f;
			set_cloexec_locked(t, fd, cloexec);
			r = fd;
		}
	}
	spin_unlock(&t->lock);
	return r;
}

int fd_install(struct proc *p, struct file *f)
{
	return fd_alloc(p, f, 0, false);
}

void fd_put(struct proc *p, int newfd, struct file *f, bool cloexec)
{
	struct fdtable *t = p->fdt;
	spin_lock(&t->lock);
	struct file *old = t->files[newfd];
	t->files[newfd] = f;
	set_cloexec_locked(t, newfd, cloexec);
	spin_unlock(&t->lock);
	if (old)
		fd_file_close(t, old);
}

void fd_file_close(struct fdtable *t, struct file *f)
{
	locks_release_posix(f, t);   /* POSIX: any close drops the table's locks */
	file_close(f);
}

void fd_clear(struct proc *p, int fd)
{
	spin_lock(&p->fdt->lock);
	p->fdt->files[fd] = NULL;
	set_cloexec_locked(p->fdt, fd, false);
	spin_unlock(&p->fdt->lock);
}

/* Take the file out of slot fd (t->lock held): it, or NULL. */
static struct file *take_locked(struct fdtable *t, int fd)
{
	struct file *f = t->files[fd];
	t->files[fd] = NULL;
	set_cloexec_locked(t, fd, false);
	return f;
}

struct file *fd_take(struct proc *p, int fd)
{
	spin_lock(&p->fdt->lock);
	struct file *f = fd >= 0 && fd < NOFILE ? take_locked(p->fdt, fd) : NULL;
	spin_unlock(&p->fdt->lock);
	return f;
}

void fd_close_on_exec(struct proc *p)
{
	for (int fd = 0; fd < NOFILE; fd++) {
		spin_lock(&p->fdt->lock);
		struct file *f = p->fdt->cloexec & (1UL << fd) ? take_locked(p->fdt, fd) : NULL;
		spin_unlock(&p->fdt->lock);
		if (f)
			fd_file_close(p->fdt, f);
	}
}

struct file *fd_get(int fd)
{
	struct proc *p = current_proc();
	if (fd < 0 || fd >= NOFILE)
		return NULL;
	if (p->nheld == FD_HELD_MAX)
		panic("fd_get: more than %d files in one system call", FD_HELD_MAX);
	spin_lock(&p->fdt->lock);
	struct file *f = p->fdt->files[fd];
	if (f)
		p->held[p->nheld++] = file_dup(f);
	spin_unlock(&p->fdt->lock);
	return f;
}

bool fd_valid(int fd)
{
	return fd >= 0 && fd < NOFILE && current_proc()->fdt->files[fd];
}

void fd_release_held(struct proc *p)
{
	while (p->nheld > 0) {
		struct file *f = p->held[--p->nheld];
		p->held[p->nheld] = NULL;
		file_close(f);
	}
}

/* kernel/sys_file.c -- file system calls over struct file. */
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "drivers/block/blkdev.h"
#include "kernel/proc.h"
#include "lib/string.h"
#include "mm/uaccess.h"

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define SEEK_DATA 3
#define SEEK_HOLE 4
#define IOV_MAX 1024
#define CONSOLE_ROWS 25
#define CONSOLE_COLS 80

static bool can_read(struct file *f)
{
	return (f->flags & O_ACCMODE) != O_WRONLY;
}

static bool can_write(struct file *f)
{
	return (f->flags & O_ACCMODE) != O_RDONLY;
}

enum io_dir { IO_READ, IO_WRITE };

/* read or write of n bytes at ubuf on f (its offset locked by the caller). */
static long file_io(struct file *f, enum io_dir dir, vaddr_t ubuf, uint64_t n)
{
	return dir == IO_WRITE ? f->ops->write(f, ubuf, n) : f->ops->read(f, ubuf, n);
}

/* The iovecs of readv/writev: one read/write per iovec until a short
 * transfer (f's offset locked by the caller). */
static long vector_io(struct file *f, enum io_dir dir, vaddr_t uiov, uint64_t count)
{
	if (count > IOV_MAX)
		return -EINVAL;
	long total = 0;
	for (uint64_t i = 0; i < count; i++) {
		struct { uint64_t base, len; } iov;
		if (copyin(&iov, uiov + i * sizeof(iov), sizeof(iov)) < 0)
			return total ? total : -EFAULT;
		if (!iov.len)
			continue;
		long r = file_io(f, dir, iov.base, iov.len);
		if (r < 0)
			return total ? total : r;
		total += r;
		if ((uint64_t)r < iov.len)
			break;
	}
	return total;
}

/* read, write, readv, writev: a[0] the fd; one call at a time moves a
 * seekable file's offset (fd_get_pos). */
static long fd_io(const uint64_t a[6], enum io_dir dir, bool vector)
{
	struct file *f = fd_get_pos((int)a[0]);
	if (!f)
		return -EBADF;
	long r = -EBADF;
	if (dir == IO_WRITE ? can_write(f) : can_read(f))
		r = vector ? vector_io(f, dir, a[1], a[2]) : file_io(f, dir, a[1], a[2]);
	file_pos_unlock(f);
	return r;
}

/* pread64, pwrite64: at offset a[3], f's own offset untouched (held
 * meanwhile, as its other users wait for it); -ESPIPE on pipes and
 * devices without an offset, -EINVAL for a negative one. */
static long fd_io_at(const uint64_t a[6], enum io_dir dir)
{
	struct file *f = fd_get_pos((int)a[0]);
	if (!f)
		return -EBADF;
	long r = -EBADF;
	if (!f->ops->seekable)
		r = -ESPIPE;
	else if ((int64_t)a[3] < 0)
		r = -EINVAL;
	else if (dir == IO_WRITE ? can_write(f) : can_read(f)) {
		uint64_t saved = f->off;
		f->off = a[3];
		r = file_io(f, dir, a[1], a[2]);
		f->off = saved;
	}
	file_pos_unlock(f);
	return r;
}

static long sys_pread64(const uint64_t a[6])
{
	return fd_io_at(a, IO_READ);
}

static long sys_pwrite64(const uint64_t a[6])
{
	return fd_io_at(a, IO_WRITE);
}

static long sys_read(const uint64_t a[6])
{
	return fd_io(a, IO_READ, false);
}

static long sys_write(const uint64_t a[6])
{
	return fd_io(a, IO_WRITE, false);
}

static long sys_readv(const uint64_t a[6])
{
	return fd_io(a, IO_READ, true);
}

static long sys_writev(const uint64_t a[6])
{
	return fd_io(a, IO_WRITE, true);
}

static long sys_close(const uint64_t a[6])
{
	int fd = (int)a[0];
	struct proc *p = current_proc();
	struct file *f = fd_take(p, fd);   /* one winner if two threads close */
	if (!f)
		return -EBADF;
	fd_file_close(p->fdt, f);
	return 0;
}

/* The size lseek's SEEK_END counts from: a disk's, or the file's. */
static uint64_t file_size(struct file *f)
{
	struct blkdev *d = f->inode && S_ISBLK(f->inode->mode) ? blkdev_by_devt(f->inode->rdev) : NULL;
	return d ? d->sectors * SECTOR_SIZE : f->inode ? f->inode->size : 0;
}

/* SEEK_DATA / SEEK_HOLE as Linux's generic version (no hole map: all of a
 * file is data, its end the only hole): the new offset, or -ENXIO past
 * the end. */
static int64_t seek_data_hole(struct file *f, int64_t off, uint64_t whence)
{
	uint64_t size = file_size(f);
	if (off < 0 || (uint64_t)off >= size)
		return -ENXIO;
	f->off = whence == SEEK_DATA ? (uint64_t)off : size;
	return (int64_t)f->off;
}

/* lseek's new offset of f (pos_lock held): it, or -EINVAL. */
static int64_t seek_to(struct file *f, int64_t delta, uint64_t whence)
{
	int64_t base;
	switch (whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = (int64_t)f->off; break;
	case SEEK_END: base = (int64_t)file_size(f); break;
	case SEEK_DATA:
	case SEEK_HOLE:
		return seek_data_hole(f, delta, whence);
	default: return -EINVAL;
	}
	int64_t off;
	if (__builtin_add_overflow(base, delta, &off) || off < 0)
		return -EINVAL;
	f->off = (uint64_t)off;
	return off;
}

static long sys_lseek(const uint64_t a[6])
{
	struct file *f = fd_get_pos((int)a[0]);
	if (!f)
		return -EBADF;
	if (!f->ops->seekable)
		return -ESPIPE;
	long r = seek_to(f, (int64_t)a[1], a[2]);
	file_pos_unlock(f);
	return r;
}

#define BLKGETSIZE 0x1260             /* Linux's <linux/fs.h>: sectors, unsigned long */
#define BLKSSZGET 0x1268              /* logical sector size, int */
#define BLKGETSIZE64 0x80081272       /* bytes, u64 */

/* ioctl on a disk's device file: its size and sector size. */
static long disk_ioctl(struct blkdev *d, uint64_t cmd, vaddr_t arg)
{
	uint64_t bytes = d->sectors * SECTOR_SIZE, sectors = d->sectors;
	int ssz = SECTOR_SIZE;
	switch (cmd) {
	case BLKGETSIZE64: return copyout(arg, &bytes, sizeof(bytes));
	case BLKGETSIZE: return copyout(arg, &sectors, sizeof(sectors));
	case BLKSSZGET: return copyout(arg, &ssz, sizeof(ssz));
	default: return -ENOTTY;
	}
}

static long sys_ioctl(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	struct blkdev *d = f->inode && S_ISBLK(f->inode->mode) ? blkdev_by_devt(f->inode->rdev) : NULL;
	if (d)
		return disk_ioctl(d, a[1], a[2]);
	bool tty = f->inode && S_ISCHR(f->inode->mode) && MAJOR(f->inode->rdev) == 5;
	if (!tty)
		return -ENOTTY;   /* files, pipes: no terminal, no size */
	if (a[1] == LINUX_TCGETS) {
		/* a struct termios that says: canonical mode with echo */
		uint8_t termios[LINUX_TERMIOS_SIZE] = { 0 };
		termios[12] = 0x0a;  /* c_lflag low byte: ICANON | ECHO (0x2 | 0x8) */
		return copyout(a[2], termios, sizeof(termios));
	}
	if (a[1] == LINUX_TIOCGWINSZ) {
		/* the console's size: a VGA text screen (what isatty() asks) */
		uint16_t winsize[4] = { CONSOLE_ROWS, CONSOLE_COLS, 0, 0 };
		return copyout(a[2], winsize, sizeof(winsize));
	}
	return -ENOTTY;
}

/* fsync(2) and fdatasync(2) (Pagoda keeps no file times on disk yet:
 * the two are one). */
static long sys_fsync(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	return f ? file_fsync(f) : -EBADF;
}

/* sync(2): every file system and disk; errors are not reported (as
 * Linux's sync). */
static long sys_sync(const uint64_t a[6])
{
	(void)a;
	(void)vfs_sync_all(false);
	return 0;
}

/* syncfs(2): the file system of fd, and its error. */
static long sys_syncfs(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	if (!f->inode)
		return 0;   /* a pipe: nothing to write */
	struct blkdev *d = S_ISBLK(f->inode->mode) ? blkdev_by_devt(f->inode->rdev) : NULL;
	if (d)
		return blkdev_sync(d) < 0 ? -EIO : 0;
	return vfs_sync_sb(f->inode->sb) < 0 ? -EIO : 0;
}

/* poll(2). Pagoda's files keep no readiness state yet, so every open
 * descriptor is reported ready for what it was asked (a read or write may
 * then block, as on a file that is always "ready"); a closed one gets
 * POLLNVAL, a negative fd is skipped. Enough for programs that poll their
 * terminal before reading it (busybox's line editing). */
#define POLLIN 0x001
#define POLLOUT 0x004
#define POLLNVAL 0x020
#define POLLRDNORM 0x040
#define POLLWRNORM 0x100
struct linux_pollfd {
	int32_t fd;
	int16_t events, revents;
};

static long sys_poll(const uint64_t a[6])
{
	if (a[1] > NOFILE * 16)
		return -EINVAL;
	long ready = 0;
	for (uint64_t i = 0; i < a[1]; i++) {
		struct linux_pollfd p;
		vaddr_t u = a[0] + i * sizeof(p);
		if (copyin(&p, u, sizeof(p)) < 0)
			return -EFAULT;
		p.revents = p.fd < 0 ? 0 : !fd_valid(p.fd) ? POLLNVAL :
			    (int16_t)(p.events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM));
		ready += p.revents != 0;
		if (copyout(u, &p, sizeof(p)) < 0)
			return -EFAULT;
	}
	return ready;
}

static long do_pipe(vaddr_t ufds, int flags)
{
	struct file *ends[2];
	int r = pipe_create(ends);
	if (r < 0)
		return r;
	ends[0]->flags |= flags & O_NONBLOCK;
	ends[1]->flags |= flags & O_NONBLOCK;
	struct proc *p = current_proc();
	bool cloexec = flags & O_CLOEXEC;
	int fds[2] = { fd_alloc(p, ends[0], 0, cloexec), -1 };
	if (fds[0] >= 0)
		fds[1] = fd_alloc(p, ends[1], 0, cloexec);
	if (fds[1] < 0 || copyout(ufds, fds, sizeof(fds)) < 0) {
		if (fds[0] >= 0)
			fd_clear(p, fds[0]);
		if (fds[1] >= 0)
			fd_clear(p, fds[1]);
		file_close(ends[0]);
		file_close(ends[1]);
		return fds[1] < 0 ? -EMFILE : -EFAULT;
	}
	return 0;
}

static long sys_pipe(const uint64_t a[6])
{
	return do_pipe(a[0], 0);
}

static long sys_pipe2(const uint64_t a[6])
{
	if (a[1] & ~(uint64_t)(O_NONBLOCK | O_CLOEXEC))
		return -EINVAL;
	return do_pipe(a[0], (int)a[1]);
}

static long sys_dup(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	int fd = fd_install(current_proc(), file_dup(f));
	if (fd < 0)
		file_close(f);
	return fd;
}

/* dup2 and dup3: oldfd's file also at newfd, closing what newfd held. */
static long dup_to(int oldfd, int newfd, bool cloexec)
{
	struct file *f = fd_get(oldfd);
	if (!f || newfd < 0 || newfd >= NOFILE)
		return -EBADF;
	if (oldfd != newfd)
		fd_put(current_proc(), newfd, file_dup(f), cloexec);
	return newfd;
}

static long sys_dup2(const uint64_t a[6])
{
	return dup_to((int)a[0], (int)a[1], false);
}

static long sys_dup3(const uint64_t a[6])
{
	if ((a[2] & ~(uint64_t)O_CLOEXEC) || a[0] == a[1])
		return -EINVAL;
	return dup_to((int)a[0], (int)a[1], a[2] & O_CLOEXEC);
}

static long sys_fcntl(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	struct proc *p = current_proc();
	int fd = (int)a[0], r;
	switch (a[1]) {
	case LINUX_F_DUPFD:
	case LINUX_F_DUPFD_CLOEXEC:
		if ((int)a[2] < 0 || (int)a[2] >= NOFILE)
			return -EINVAL;
		r = fd_alloc(p, file_dup(f), (int)a[2], a[1] == LINUX_F_DUPFD_CLOEXEC);
		if (r < 0)
			file_close(f);
		return r;
	case LINUX_F_GETFD:
		return fd_is_cloexec(p, fd) ? LINUX_FD_CLOEXEC : 0;
	case LINUX_F_SETFD:
		fd_set_cloexec(p, fd, a[2] & LINUX_FD_CLOEXEC);
		return 0;
	case LINUX_F_GETFL:
		return f->flags;
	case LINUX_F_SETFL:
		f->flags = (f->flags & ~(O_NONBLOCK | O_APPEND)) | ((int)a[2] & (O_NONBLOCK | O_APPEND));
		return 0;
	default:
		return fcntl_is_lock((int)a[1]) ? fcntl_lock(f, (int)a[1], a[2]) : -EINVAL;
	}
}

static long sys_getdents64(const uint64_t a[6])
{
	struct file *f = fd_get_pos((int)a[0]);
	if (!f)
		return -EBADF;
	long r = dir_getdents(f, a[1], a[2]);
	file_pos_unlock(f);
	return r;
}

/* fallocate(fd, mode, off, len): mode 0 (the range's blocks made, the size
 * grown to cover it), FALLOC_FL_KEEP_SIZE, or FALLOC_FL_PUNCH_HOLE with
 * it (a hole: zeros, the blocks freed, vfs_punch_hole; -EOPNOTSUPP where
 * the file system has none, as Linux's ext2); others: -EOPNOTSUPP, as a
 * Linux file system without them. */
#define FALLOC_FL_KEEP_SIZE 1
#define FALLOC_FL_PUNCH_HOLE 2
static long sys_fallocate(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	int64_t off = (int64_t)a[2], len = (int64_t)a[3];
	if (!f)
		return -EBADF;
	if (off < 0 || len <= 0)
		return -EINVAL;
	if ((f->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	if (!f->inode || S_ISDIR(f->inode->mode))
		return f->inode ? -EISDIR : -ESPIPE;
	if (!S_ISREG(f->inode->mode))
		return -ENODEV;
	if ((a[1] & ~(uint64_t)(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE)) ||
	    a[1] == FALLOC_FL_PUNCH_HOLE)   /* a hole keeps the size, or nothing */
		return -EOPNOTSUPP;
	if ((uint64_t)off + (uint64_t)len < (uint64_t)off)
		return -EFBIG;
	if (a[1] & FALLOC_FL_PUNCH_HOLE)
		return vfs_punch_hole(f->inode, (uint64_t)off, (uint64_t)len);
	return vfs_fallocate(f->inode, (uint64_t)off, (uint64_t)len, a[1] & FALLOC_FL_KEEP_SIZE);
}

/* fadvise64(fd, offset, len, advice): Linux's checks (a pipe: ESPIPE; a
 * negative length or an unknown advice: EINVAL), then vfs_fadvise. */
static long sys_fadvise64(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	if (!f->inode || S_ISFIFO(f->inode->mode))
		return -ESPIPE;
	if ((int64_t)a[2] < 0)
		return -EINVAL;
	return vfs_fadvise(f->inode, a[1], a[2], (int)a[3]);
}

const struct syscall_entry sys_file_table[] = {
	{ SYS_fallocate, "fallocate", sys_fallocate },
	{ SYS_fadvise64, "fadvise64", sys_fadvise64 },
	{ SYS_read, "read", sys_read },
	{ SYS_write, "write", sys_write },
	{ SYS_readv, "readv", sys_readv },
	{ SYS_writev, "writev", sys_writev },
	{ SYS_close, "close", sys_close },
	{ SYS_lseek, "lseek", sys_lseek },
	{ SYS_ioctl, "ioctl", sys_ioctl },
	{ SYS_pread64, "pread64", sys_pread64 },
	{ SYS_pwrite64, "pwrite64", sys_pwrite64 },
	{ SYS_fsync, "fsync", sys_fsync },
	{ SYS_fdatasync, "fdatasync", sys_fsync },
	{ SYS_sync, "sync", sys_sync },
	{ SYS_syncfs, "syncfs", sys_syncfs },
	{ SYS_poll, "poll", sys_poll },
	{ SYS_pipe, "pipe", sys_pipe },
	{ SYS_pipe2, "pipe2", sys_pipe2 },
	{ SYS_dup, "dup", sys_dup },
	{ SYS_dup2, "dup2", sys_dup2 },
	{ SYS_dup3, "dup3", sys_dup3 },
	{ SYS_fcntl, "fcntl", sys_fcntl },
	{ SYS_getdents64, "getdents64", sys_getdents64 },
	{ 0, NULL, NULL },
};

/* kernel/sys_path.c -- the system calls that name files by path: open,
 * stat, mkdir, unlink, rename, link, symlink, readlink, truncate, chdir,
 * getcwd, chmod, mount, statfs and their *at forms (fs/vfs.h does the work).
 *
 * Every path call copies the name in, takes the caller's root and
 * current directory (fs_enter) and, for an *at call with a directory
 * descriptor, that directory as the start of a relative name.
 */
#include "kernel/syscall.h"
#include "kernel/file.h"
#include "kernel/fs.h"
#include "kernel/proc.h"
#include "kernel/thread.h"
#include "kernel/time.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/frame/kmalloc.h"
#include "mm/uaccess.h"
#include "arch/x86_64/memlayout.h"

#define AT_FDCWD LINUX_AT_FDCWD
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400
#define AT_EMPTY_PATH LINUX_AT_EMPTY_PATH

/* What a path call works with: the name (kmalloc'd), the caller's root
 * and cwd, and the start directory of an *at call. */
struct pathcall {
	char *name;
	struct fs_root fs;
	struct path start;          /* dentry NULL: the cwd */
};

/* Copy the name at uname in and find the start for dirfd: 0, -EFAULT,
 * -ENAMETOOLONG, -EBADF (dirfd not open), -ENOTDIR (not a directory). */
static int pc_begin(struct pathcall *c, int dirfd, vaddr_t uname)
{
	c->start = (struct path){ NULL, NULL };
	c->name = kmalloc(PATH_MAX);
	if (!c->name)
		return -ENOMEM;
	long r = copyinstr(c->name, uname, PATH_MAX);
	if (r < 0) {
		kfree(c->name);
		return r == -ENAMETOOLONG || r == -ERANGE ? -ENAMETOOLONG : (int)r;
	}
	if (dirfd != AT_FDCWD && c->name[0] != '/') {
		struct file *f = fd_get(dirfd);
		r = !f ? -EBADF : !f->inode ? -ENOTDIR : 0;
		if (r == 0 && !S_ISDIR(f->inode->mode) && c->name[0])
			r = -ENOTDIR;
		if (r < 0) {
			kfree(c->name);
			return (int)r;
		}
		c->start = f->path;
		path_get(&c->start);
	}
	fs_enter(&c->fs);
	return 0;
}

static const struct path *pc_start(struct pathcall *c)
{
	return c->start.dentry ? &c->start : NULL;
}

static long pc_end(struct pathcall *c, long r)
{
	fs_leave(&c->fs);
	path_put(&c->start);
	kfree(c->name);
	return r;
}

static uint32_t umask_of_caller(void)
{
	return current_proc()->fs->umask;
}

/* ---- open ---- */

static long do_open(int dirfd, vaddr_t uname, int flags, uint32_t mode)
{
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	struct file *f;
	r = vfs_open(&c.fs, pc_start(&c), c.name, flags, mode & ~umask_of_caller() & 07777, &f);
	if (r == 0) {
		r = fd_alloc(current_proc(), f, 0, flags & O_CLOEXEC);
		if (r < 0)
			file_close(f);
	}
	return pc_end(&c, r);
}

static long sys_open(const uint64_t a[6])
{
	return do_open(AT_FDCWD, a[0], (int)a[1], (uint32_t)a[2]);
}

static long sys_openat(const uint64_t a[6])
{
	return do_open((int)a[0], a[1], (int)a[2], (uint32_t)a[3]);
}

static long sys_creat(const uint64_t a[6])
{
	return do_open(AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (uint32_t)a[1]);
}

/* ---- stat ---- */

static long stat_at(int dirfd, vaddr_t uname, vaddr_t ust, int flags)
{
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	if (!c.name[0] && (flags & AT_EMPTY_PATH) && dirfd != AT_FDCWD) {
		struct file *f = fd_get(dirfd);
		r = f && f->inode ? (int)inode_stat(f->inode, ust) : -EBADF;
		return pc_end(&c, r);
	}
	struct path p;
	enum lookup_flags lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			       (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	r = path_walk(&c.fs, pc_start(&c), c.name, lf, &p);
	if (r == 0) {
		r = (int)inode_stat(p.dentry->inode, ust);
		path_put(&p);
	}
	return pc_end(&c, r);
}

static long sys_stat(const uint64_t a[6])
{
	return stat_at(AT_FDCWD, a[0], a[1], 0);
}

static long sys_lstat(const uint64_t a[6])
{
	return stat_at(AT_FDCWD, a[0], a[1], AT_SYMLINK_NOFOLLOW);
}

static long sys_newfstatat(const uint64_t a[6])
{
	return stat_at((int)a[0], a[1], a[2], (int)a[3]);
}

/* A pipe: a FIFO of size 0 (Linux's pipefs numbers aside). */
static long stat_pipe(vaddr_t ust)
{
	static struct super_block pipe_sb = { .dev = MKDEV(0, 12) };
	struct inode fifo = { .sb = &pipe_sb, .mode = S_IFIFO | 0600, .nlink = 1, .ino = 1 };
	return inode_stat(&fifo, ust);
}

static long sys_fstat(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	return f->inode ? inode_stat(f->inode, a[1]) : stat_pipe(a[1]);
}

static long access_at(int dirfd, vaddr_t uname, int mode)
{
	if (mode & ~7)
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	struct path p;
	r = path_walk(&c.fs, pc_start(&c), c.name, LOOKUP_FOLLOW, &p);
	if (r == 0) {
		if ((mode & 2) && path_readonly(&p) && !S_ISCHR(p.dentry->inode->mode) &&
		    !S_ISBLK(p.dentry->inode->mode))
			r = -EROFS;
		else if ((mode & 1) && !(p.dentry->inode->mode & 0111) && !S_ISDIR(p.dentry->inode->mode))
			r = -EACCES;   /* root may run only what some x bit allows */
		path_put(&p);
	}
	return pc_end(&c, r);
}

static long sys_access(const uint64_t a[6])
{
	return access_at(AT_FDCWD, a[0], (int)a[1]);
}

static long sys_faccessat(const uint64_t a[6])
{
	return access_at((int)a[0], a[1], (int)a[2]);
}

/* ---- names ---- */

static long mkdir_at(int dirfd, vaddr_t uname, uint32_t mode)
{
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	r = vfs_mkdir(&c.fs, pc_start(&c), c.name, mode & ~umask_of_caller() & 07777);
	return pc_end(&c, r);
}

static long sys_mkdir(const uint64_t a[6])
{
	return mkdir_at(AT_FDCWD, a[0], (uint32_t)a[1]);
}

static long sys_mkdirat(const uint64_t a[6])
{
	return mkdir_at((int)a[0], a[1], (uint32_t)a[2]);
}

/* mknod of a fifo, device or regular file. */
static long mknod_at(int dirfd, vaddr_t uname, uint32_t mode, uint32_t dev)
{
	uint32_t type = mode & S_IFMT;
	if (type == S_IFDIR || type == S_IFLNK || type == S_IFSOCK)
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	struct path p;
	r = vfs_create(&c.fs, pc_start(&c), c.name, (type ? type : S_IFREG) |
		       (mode & ~umask_of_caller() & 07777), dev, &p);
	if (r == 0)
		path_put(&p);
	return pc_end(&c, r);
}

static long sys_mknod(const uint64_t a[6])
{
	return mknod_at(AT_FDCWD, a[0], (uint32_t)a[1], (uint32_t)a[2]);
}

static long sys_mknodat(const uint64_t a[6])
{
	return mknod_at((int)a[0], a[1], (uint32_t)a[2], (uint32_t)a[3]);
}

static long unlink_at(int dirfd, vaddr_t uname, int flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	r = vfs_unlink(&c.fs, pc_start(&c), c.name, flags & AT_REMOVEDIR ? UNLINK_DIR : UNLINK_FILE);
	return pc_end(&c, r);
}

static long sys_unlink(const uint64_t a[6])
{
	return unlink_at(AT_FDCWD, a[0], 0);
}

static long sys_rmdir(const uint64_t a[6])
{
	return unlink_at(AT_FDCWD, a[0], AT_REMOVEDIR);
}

static long sys_unlinkat(const uint64_t a[6])
{
	return unlink_at((int)a[0], a[1], (int)a[2]);
}

/* Calls with two names: rename and link. */
static long two_names(int odirfd, vaddr_t oname, int ndirfd, vaddr_t nname, unsigned flags,
		      bool link)
{
	struct pathcall o, n;
	int r = pc_begin(&o, odirfd, oname);
	if (r < 0)
		return r;
	if ((r = pc_begin(&n, ndirfd, nname)) < 0)
		return pc_end(&o, r);
	r = link ? vfs_link(&o.fs, pc_start(&o), o.name, pc_start(&n), n.name,
			    flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0) :
		   vfs_rename(&o.fs, pc_start(&o), o.name, pc_start(&n), n.name, flags);
	pc_end(&n, 0);
	return pc_end(&o, r);
}

static long sys_rename(const uint64_t a[6])
{
	return two_names(AT_FDCWD, a[0], AT_FDCWD, a[1], 0, false);
}

static long sys_renameat(const uint64_t a[6])
{
	return two_names((int)a[0], a[1], (int)a[2], a[3], 0, false);
}

static long sys_renameat2(const uint64_t a[6])
{
	return two_names((int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4], false);
}

static long sys_link(const uint64_t a[6])
{
	return two_names(AT_FDCWD, a[0], AT_FDCWD, a[1], 0, true);
}

static long sys_linkat(const uint64_t a[6])
{
	if (a[4] & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	return two_names((int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4], true);
}

static long symlink_at(vaddr_t utarget, int dirfd, vaddr_t uname)
{
	char *target = kmalloc(PATH_MAX);
	if (!target)
		return -ENOMEM;
	long r = copyinstr(target, utarget, PATH_MAX);
	struct pathcall c;
	if (r >= 0 && (r = pc_begin(&c, dirfd, uname)) == 0)
		r = pc_end(&c, vfs_symlink(&c.fs, pc_start(&c), c.name, target));
	kfree(target);
	return r == -ERANGE ? -ENAMETOOLONG : r;
}

static long sys_symlink(const uint64_t a[6])
{
	return symlink_at(a[0], AT_FDCWD, a[1]);
}

static long sys_symlinkat(const uint64_t a[6])
{
	return symlink_at(a[0], (int)a[1], a[2]);
}

static long readlink_at(int dirfd, vaddr_t uname, vaddr_t ubuf, uint64_t n)
{
	if ((int64_t)n <= 0)
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	char *buf = kmalloc(PATH_MAX);
	long len = buf ? vfs_readlink(&c.fs, pc_start(&c), c.name, buf, MIN(n, PATH_MAX)) : -ENOMEM;
	if (len > 0 && copyout(ubuf, buf, (uint64_t)len) < 0)
		len = -EFAULT;
	kfree(buf);
	return pc_end(&c, len);
}

static long sys_readlink(const uint64_t a[6])
{
	return readlink_at(AT_FDCWD, a[0], a[1], a[2]);
}

static long sys_readlinkat(const uint64_t a[6])
{
	return readlink_at((int)a[0], a[1], a[2], a[3]);
}

/* ---- sizes, modes ---- */

static long sys_truncate(const uint64_t a[6])
{
	if ((int64_t)a[1] < 0)
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, AT_FDCWD, a[0]);
	if (r < 0)
		return r;
	struct path p;
	if ((r = path_walk(&c.fs, NULL, c.name, LOOKUP_FOLLOW, &p)) == 0) {
		r = path_readonly(&p) ? -EROFS : vfs_truncate(p.dentry->inode, a[1]);
		path_put(&p);
	}
	return pc_end(&c, r);
}

static long sys_ftruncate(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	if ((int64_t)a[1] < 0 || !f->inode || !S_ISREG(f->inode->mode))
		return -EINVAL;
	if ((f->flags & O_ACCMODE) == O_RDONLY)
		return -EINVAL;   /* Linux: not open for writing */
	return vfs_truncate(f->inode, a[1]);
}

static long chmod_inode(const struct path *p, uint32_t mode)
{
	if (path_readonly(p))
		return -EROFS;
	struct inode *ip = p->dentry->inode;
	ip->mode = (ip->mode & S_IFMT) | (mode & 07777);
	return inode_changed(ip);
}

static long chmod_at(int dirfd, vaddr_t uname, uint32_t mode)
{
	struct pathcall c;
	int r = pc_begin(&c, dirfd, uname);
	if (r < 0)
		return r;
	struct path p;
	if ((r = path_walk(&c.fs, pc_start(&c), c.name, LOOKUP_FOLLOW, &p)) == 0) {
		r = (int)chmod_inode(&p, mode);
		path_put(&p);
	}
	return pc_end(&c, r);
}

static long sys_chmod(const uint64_t a[6])
{
	return chmod_at(AT_FDCWD, a[0], (uint32_t)a[1]);
}

static long sys_fchmodat(const uint64_t a[6])
{
	return chmod_at((int)a[0], a[1], (uint32_t)a[2]);
}

static long sys_fchmod(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	return f->inode ? chmod_inode(&f->path, (uint32_t)a[1]) : -EINVAL;
}

static long sys_umask(const uint64_t a[6])
{
	struct fs_context *fs = current_proc()->fs;
	return (long)__atomic_exchange_n(&fs->umask, (uint32_t)a[0] & 0777, __ATOMIC_RELAXED);
}

/* ---- times ---- */

#define UTIME_NOW ((1l << 30) - 1)
#define UTIME_OMIT ((1l << 30) - 2)

/* One of utimensat's two times: now, left alone (omit), or the given one;
 * 0 or -EINVAL (a bad nanosecond field). */
static int pick_time(const struct k_timespec *t, struct vfs_time *out, bool *set)
{
	*set = t->tv_nsec != UTIME_OMIT;
	if (t->tv_nsec == UTIME_NOW) {
		*out = vfs_now();
		return 0;
	}
	if (!*set)
		return 0;
	if (t->tv_nsec < 0 || t->tv_nsec >= 1000000000)
		return -EINVAL;
	*out = (struct vfs_time){ t->tv_sec, (uint32_t)t->tv_nsec };
	return 0;
}

/* Set p's times from ts[2] (NULL: both now). */
static long set_times(const struct path *p, const struct k_timespec *ts)
{
	struct vfs_time at = vfs_now(), mt = at;
	bool set_a = true, set_m = true;
	int r = ts ? pick_time(&ts[0], &at, &set_a) ?: pick_time(&ts[1], &mt, &set_m) : 0;
	if (r < 0)
		return r;
	if (path_readonly(p))
		return -EROFS;
	struct inode *ip = p->dentry->inode;
	mutex_lock(&ip->lock);
	if (set_a)
		ip->atime = at;
	if (set_m)
		ip->mtime = mt;
	inode_mark_dirty(ip);
	r = set_a || set_m ? inode_changed(ip) : 0;
	mutex_unlock(&ip->lock);
	return r;
}

/* utimensat(dirfd, path, times, flags); a NULL path: the file dirfd is
 * (futimens). */
static long sys_utimensat(const uint64_t a[6])
{
	struct k_timespec ts[2];
	if (a[3] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (a[2] && copyin(ts, a[2], sizeof(ts)) < 0)
		return -EFAULT;
	if (!a[1]) {
		struct file *f = fd_get((int)a[0]);
		return !f ? -EBADF : !f->inode ? -EINVAL : set_times(&f->path, a[2] ? ts : NULL);
	}
	struct pathcall c;
	int r = pc_begin(&c, (int)a[0], a[1]);
	if (r < 0)
		return r;
	struct path p;
	r = path_walk(&c.fs, pc_start(&c), c.name, a[3] & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW, &p);
	if (r == 0) {
		r = (int)set_times(&p, a[2] ? ts : NULL);
		path_put(&p);
	}
	return pc_end(&c, r);
}

/* statx(dirfd, path, flags, mask, buf): Linux's struct statx, every basic
 * field filled (STATX_BASIC_STATS), whatever the mask asks. */
struct linux_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t pad;
};
struct linux_statx {
	uint32_t stx_mask, stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink, stx_uid, stx_gid;
	uint16_t stx_mode, pad0;
	uint64_t stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct linux_statx_ts stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	uint64_t spare[14];
};
_Static_assert(sizeof(struct linux_statx) == 256, "Linux's struct statx");
#define STATX_BASIC_STATS 0x7ff

static long statx_inode(struct inode *ip, vaddr_t ubuf)
{
	struct linux_statx x;
	memset(&x, 0, sizeof(x));
	x.stx_mask = STATX_BASIC_STATS;
	x.stx_blksize = PAGE_SIZE;
	x.stx_nlink = ip->nlink, x.stx_uid = ip->uid, x.stx_gid = ip->gid;
	x.stx_mode = (uint16_t)ip->mode;
	x.stx_ino = ip->ino;
	x.stx_size = S_ISBLK(ip->mode) || S_ISCHR(ip->mode) ? 0 : ip->size;
	x.stx_blocks = ip->blocks ? ip->blocks : ip->mapping ? ip->mapping->nrpages * (PAGE_SIZE / 512) : 0;
	x.stx_atime = (struct linux_statx_ts){ ip->atime.sec, ip->atime.nsec, 0 };
	x.stx_mtime = (struct linux_statx_ts){ ip->mtime.sec, ip->mtime.nsec, 0 };
	x.stx_ctime = (struct linux_statx_ts){ ip->ctime.sec, ip->ctime.nsec, 0 };
	x.stx_rdev_major = MAJOR(ip->rdev), x.stx_rdev_minor = MINOR(ip->rdev);
	x.stx_dev_major = MAJOR(ip->sb->dev), x.stx_dev_minor = MINOR(ip->sb->dev);
	return copyout(ubuf, &x, sizeof(x));
}

static long sys_statx(const uint64_t a[6])
{
	int flags = (int)a[2];
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 | 0x6000 /* AT_STATX_SYNC_TYPE */))
		return -EINVAL;
	if (a[3] & 0x80000000u)   /* STATX__RESERVED */
		return -EINVAL;
	struct pathcall c;
	int r = pc_begin(&c, (int)a[0], a[1]);
	if (r < 0)
		return r;
	if (!c.name[0] && (flags & AT_EMPTY_PATH) && (int)a[0] != AT_FDCWD) {
		struct file *f = fd_get((int)a[0]);
		r = f && f->inode ? (int)statx_inode(f->inode, a[4]) : -EBADF;
		return pc_end(&c, r);
	}
	struct path p;
	enum lookup_flags lf = (flags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			       (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY : 0);
	if ((r = path_walk(&c.fs, pc_start(&c), c.name, lf, &p)) == 0) {
		r = (int)statx_inode(p.dentry->inode, a[4]);
		path_put(&p);
	}
	return pc_end(&c, r);
}

/* ---- directories ---- */

static long sys_getcwd(const uint64_t a[6])
{
	struct fs_root r;
	char *buf = kmalloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	fs_enter(&r);
	long len = path_name(&r, &r.cwd, buf, PATH_MAX);
	fs_leave(&r);
	if (len >= 0 && (uint64_t)len > a[1])
		len = -ERANGE;
	if (len >= 0 && copyout(a[0], buf, (uint64_t)len) < 0)
		len = -EFAULT;
	kfree(buf);
	return len;
}

/* The caller's current directory becomes p (its reference passes). */
static void set_cwd(struct path *p)
{
	struct fs_context *fs = current_proc()->fs;
	spin_lock(&fs->lock);
	struct path old = fs->where.cwd;
	fs->where.cwd = *p;
	spin_unlock(&fs->lock);
	path_put(&old);
}

static long sys_chdir(const uint64_t a[6])
{
	struct pathcall c;
	int r = pc_begin(&c, AT_FDCWD, a[0]);
	if (r < 0)
		return r;
	struct path p;
	if ((r = path_walk(&c.fs, NULL, c.name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &p)) == 0)
		set_cwd(&p);
	return pc_end(&c, r);
}

static long sys_fchdir(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	if (!f->inode || !S_ISDIR(f->inode->mode))
		return -ENOTDIR;
	struct path p = f->path;
	path_get(&p);
	set_cwd(&p);
	return 0;
}

/* ---- mounts ---- */

/* A user string of at most n bytes into a new buffer (NULL address: NULL). */
static long copy_opt(vaddr_t u, uint64_t n, char **out)
{
	*out = NULL;
	if (!u)
		return 0;
	if (!(*out = kmalloc(n)))
		return -ENOMEM;
	long r = copyinstr(*out, u, n);
	return r < 0 ? r : 0;
}

static long sys_mount(const uint64_t a[6])
{
	char *source = NULL, *target = NULL, *type = NULL, *data = NULL;
	long r = copy_opt(a[0], PATH_MAX, &source);
	if (r == 0)
		r = copy_opt(a[1], PATH_MAX, &target);
	if (r == 0)
		r = copy_opt(a[2], 64, &type);
	if (r == 0)
		r = copy_opt(a[4], PAGE_SIZE, &data);
	if (r == 0 && !target)
		r = -EFAULT;
	if (r == 0) {
		struct fs_root fs;
		fs_enter(&fs);
		r = vfs_mount(&fs, source, target, type, (unsigned)a[3], data);
		fs_leave(&fs);
	}
	kfree(source), kfree(target), kfree(type), kfree(data);
	return r;
}

static long sys_umount2(const uint64_t a[6])
{
	struct pathcall c;
	int r = pc_begin(&c, AT_FDCWD, a[0]);
	if (r < 0)
		return r;
	return pc_end(&c, vfs_umount(&c.fs, c.name, (int)a[1]));
}

/* Linux's struct statfs on x86-64 (120 bytes). */
struct linux_statfs {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags, f_spare[4];
};

static long statfs_sb(struct super_block *sb, bool ro, vaddr_t ubuf)
{
	uint64_t v[6] = { PAGE_SIZE, 0, 0, 0, 0, 0 };
	int r = sb->ops->statfs ? sb->ops->statfs(sb, v) : 0;
	if (r < 0)
		return r;
	struct linux_statfs st = {
		.f_type = sb->magic, .f_bsize = (int64_t)v[0], .f_blocks = v[1], .f_bfree = v[2],
		.f_bavail = v[3], .f_files = v[4], .f_ffree = v[5],
		.f_fsid = { (int32_t)sb->dev, 0 }, .f_namelen = NAME_MAX, .f_frsize = (int64_t)v[0],
		.f_flags = 0x400 /* ST_RELATIME */ | (ro ? 1 : 0),
	};
	return copyout(ubuf, &st, sizeof(st));
}

static long sys_statfs(const uint64_t a[6])
{
	struct pathcall c;
	int r = pc_begin(&c, AT_FDCWD, a[0]);
	if (r < 0)
		return r;
	struct path p;
	if ((r = path_walk(&c.fs, NULL, c.name, LOOKUP_FOLLOW, &p)) == 0) {
		r = (int)statfs_sb(p.dentry->sb, path_readonly(&p), a[1]);
		path_put(&p);
	}
	return pc_end(&c, r);
}

static long sys_fstatfs(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	if (!f->inode)
		return -EINVAL;
	return statfs_sb(f->path.dentry->sb, path_readonly(&f->path), a[1]);
}

const struct syscall_entry sys_path_table[] = {
	{ SYS_open, "open", sys_open },
	{ SYS_openat, "openat", sys_openat },
	{ SYS_creat, "creat", sys_creat },
	{ SYS_stat, "stat", sys_stat },
	{ SYS_lstat, "lstat", sys_lstat },
	{ SYS_fstat, "fstat", sys_fstat },
	{ SYS_newfstatat, "newfstatat", sys_newfstatat },
	{ SYS_access, "access", sys_access },
	{ SYS_faccessat, "faccessat", sys_faccessat },
	{ SYS_mkdir, "mkdir", sys_mkdir },
	{ SYS_mkdirat, "mkdirat", sys_mkdirat },
	{ SYS_mknod, "mknod", sys_mknod },
	{ SYS_mknodat, "mknodat", sys_mknodat },
	{ SYS_unlink, "unlink", sys_unlink },
	{ SYS_unlinkat, "unlinkat", sys_unlinkat },
	{ SYS_rmdir, "rmdir", sys_rmdir },
	{ SYS_rename, "rename", sys_rename },
	{ SYS_renameat, "renameat", sys_renameat },
	{ SYS_renameat2, "renameat2", sys_renameat2 },
	{ SYS_link, "link", sys_link },
	{ SYS_linkat, "linkat", sys_linkat },
	{ SYS_symlink, "symlink", sys_symlink },
	{ SYS_symlinkat, "symlinkat", sys_symlinkat },
	{ SYS_readlink, "readlink", sys_readlink },
	{ SYS_readlinkat, "readlinkat", sys_readlinkat },
	{ SYS_truncate, "truncate", sys_truncate },
	{ SYS_ftruncate, "ftruncate", sys_ftruncate },
	{ SYS_chmod, "chmod", sys_chmod },
	{ SYS_fchmod, "fchmod", sys_fchmod },
	{ SYS_fchmodat, "fchmodat", sys_fchmodat },
	{ SYS_umask, "umask", sys_umask },
	{ SYS_getcwd, "getcwd", sys_getcwd },
	{ SYS_chdir, "chdir", sys_chdir },
	{ SYS_fchdir, "fchdir", sys_fchdir },
	{ SYS_mount, "mount", sys_mount },
	{ SYS_umount2, "umount2", sys_umount2 },
	{ SYS_statfs, "statfs", sys_statfs },
	{ SYS_utimensat, "utimensat", sys_utimensat },
	{ SYS_statx, "statx", sys_statx },
	{ SYS_fstatfs, "fstatfs", sys_fstatfs },
	{ 0, NULL, NULL },
};

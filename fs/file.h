/* fs/file.h -- open files (Linux's struct file) and what they do.
 *
 * A struct file is one open of something: a file or directory of a file
 * system, a device node, a pipe end. It is shared by dup() and fork()
 * (refcount) and carries the offset. What it does is in its ops: a
 * regular file's are page_file_ops (fs/read_write.c), a directory's
 * dir_file_ops, a device's its driver's (fs/chrdev.c, fs/blockdev_file.c).
 */
#ifndef FS_FILE_H
#define FS_FILE_H

#include "fs/vfs.h"
#include "lib/mutex.h"
#include "lib/types.h"

struct file;

struct file_ops {
	/* Read/write n bytes between the file at f->off and user address
	 * ubuf, moving f->off: bytes moved, or -errno. */
	long (*read)(struct file *f, vaddr_t ubuf, uint64_t n);
	long (*write)(struct file *f, vaddr_t ubuf, uint64_t n);
	void (*close)(struct file *f);      /* last reference dropped */
	/* fsync: 0, -EIO; NULL: -EINVAL (nothing to sync, as Linux's pipes). */
	int (*fsync)(struct file *f);
	bool seekable;
	int mmap_errno;                     /* mmap of a file with no pages: this (0: -ENODEV) */
};

/* A struct file may be used by several threads (and, after dup or fork,
 * processes) at once. Its offset, and what a seekable file's ops keep with
 * it (priv of a /proc file: the text being read), change only under
 * pos_lock (Linux's f_pos_lock): read, write, readv, writev, lseek and
 * getdents of a seekable file hold it for the whole call (fd_get_pos), so
 * two of them on one open file see and move the offset one after the
 * other. Pipes and devices are not seekable and lock their own state. */
struct file {
	const struct file_ops *ops;
	int refs;
	int flags;                          /* O_ACCMODE bits, O_APPEND, O_NONBLOCK */
	struct mutex pos_lock;              /* off, and priv of a seekable file */
	uint64_t off;
	struct path path;                   /* files of a file system (none: pipes) */
	struct inode *inode;                /* path's inode, or NULL */
	uint64_t inode_priv;                /* inode->priv when opened (/proc's files) */
	uint32_t wb_mark;                   /* its cache's write-back errors it has
					     * heard of (pagecache_error_since) */
	void *priv;                         /* pipes, /proc's text */
};

/* open(2) flags: the Linux values of libc/include/pagoda/abi-linux.h (shared
 * with libc, which must spell them LINUX_*), under their usual names. */
#include "libc/include/pagoda/abi-linux.h"
#define O_RDONLY LINUX_O_RDONLY
#define O_WRONLY LINUX_O_WRONLY
#define O_RDWR LINUX_O_RDWR
#define O_ACCMODE LINUX_O_ACCMODE
#define O_CREAT LINUX_O_CREAT
#define O_EXCL LINUX_O_EXCL
#define O_NOCTTY LINUX_O_NOCTTY
#define O_TRUNC LINUX_O_TRUNC
#define O_APPEND LINUX_O_APPEND
#define O_NONBLOCK LINUX_O_NONBLOCK
#define O_DIRECTORY LINUX_O_DIRECTORY
#define O_NOFOLLOW 0400000
#define O_CLOEXEC LINUX_O_CLOEXEC
#define O_PATH 010000000

/* A new file with ops and flags (one reference, no path), or NULL. */
struct file *file_alloc(const struct file_ops *ops, int flags);
struct file *file_dup(struct file *f);
/* Drop a reference; the last one calls ops->close and lets go of the path. */
void file_close(struct file *f);

/* Shared default ops: reading a write-only file or writing a read-only one
 * (a pipe's other end): -EBADF, as Linux does. */
long file_no_read(struct file *f, vaddr_t ubuf, uint64_t n);
long file_no_write(struct file *f, vaddr_t ubuf, uint64_t n);

/* fsync of f: 0, -EIO (a write-back failed since the last fsync: Linux's
 * errseq rule, reported once), -EINVAL (pipes, terminals: nothing to sync). */
int file_fsync(struct file *f);

/* The page cache whose bytes f reads and writes (a file's, a disk's for
 * /dev/vda), or NULL (pipes, character devices, /proc). */
struct pagecache *file_cache(struct file *f);

/* open(2) of name from start (NULL: the cwd) with flags and, for a new
 * file, mode (already masked by the umask): *out a new file. 0 or -errno:
 * -ENOENT, -EEXIST (O_CREAT|O_EXCL), -EISDIR (writing a directory),
 * -ENOTDIR (O_DIRECTORY), -EINVAL (O_DIRECTORY with O_CREAT), -ELOOP
 * (O_NOFOLLOW on a link), -EROFS, -ENXIO (a device without a driver), ... */
int vfs_open(const struct fs_root *fs, const struct path *start, const char *name, int flags,
	     uint32_t mode, struct file **out);

/* Regular files through their page cache; directories (read: -EISDIR). */
extern const struct file_ops page_file_ops, dir_file_ops;

/* read(2) of an object of *size bytes through its page cache pc: up to n
 * bytes at *off into user ubuf (pages read ahead together, then copied
 * page by page), *off advanced: bytes read (0 at the end), or -EFAULT /
 * the cache's error when none were. A file's read (page_file_ops) and a
 * disk's (/dev/vda: the disk's own cache) are this one path. inval (a
 * file's invalidate lock, NULL for a disk) is held shared while pages
 * arrive in the cache, *size read again under it: no page past the end a
 * truncation just dropped comes back (fs/vfs.h). The copies to user
 * memory run without it (a fault there takes the address-space lock,
 * which ranks before it). */
struct rwsem;
long cache_read(struct pagecache *pc, const uint64_t *size, struct rwsem *inval, uint64_t *off,
		vaddr_t ubuf, uint64_t n);

/* getdents64 over an open directory into ubuf (n bytes): bytes filled,
 * 0 at the end, -ENOTDIR, -EINVAL (not even one entry fits). */
long dir_getdents(struct file *f, vaddr_t ubuf, uint64_t n);

/* Copy up to n bytes of ip at off into kernel buffer dst (exec's loader):
 * bytes copied, or -errno when none could be. */
long inode_read(struct inode *ip, uint64_t off, void *dst, uint64_t n);

/* Character devices by number: a driver registers its ops for (major,
 * minor); open of a node finds them there (-ENXIO when none). */
void chrdev_register(uint32_t rdev, const struct file_ops *ops);
const struct file_ops *chrdev_ops(uint32_t rdev);
/* The memory devices Linux has (major 1): null, zero, full, random, urandom. */
void memdev_init(void);
/* n bytes of /dev/urandom's generator to user ubuf (getrandom(2)): n, or
 * -EFAULT when none could be copied. */
long random_to_user(vaddr_t ubuf, uint64_t n);
/* A disk's device file (fs/blockdev_file.c). */
extern const struct file_ops blockdev_file_ops;

/* Fill a Linux struct stat for ip at user address ust: 0 or -EFAULT. */
long inode_stat(struct inode *ip, vaddr_t ust);

#endif

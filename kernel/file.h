/* kernel/file.h -- open files and file descriptors.
 *
 * A struct file is one open of something: an initrd file or directory, a
 * device (console, null, zero) or a pipe end. It is shared by dup() and
 * fork() (refcount) and carries the offset. What it does is in its ops.
 */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "lib/types.h"
#include "lib/mutex.h"

struct file;
struct inode;

struct file_ops {
	/* Read/write n bytes between the file and user address ubuf. */
	long (*read)(struct file *f, vaddr_t ubuf, uint64_t n);
	long (*write)(struct file *f, vaddr_t ubuf, uint64_t n);
	void (*close)(struct file *f);      /* last reference dropped */
	bool seekable;
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
	int flags;                          /* O_ACCMODE bits, O_NONBLOCK */
	struct mutex pos_lock;              /* off, and priv of a seekable file */
	uint64_t off;
	struct inode *inode;                /* initrd files, dirs, devices */
	uint64_t inode_priv;                /* inode->priv when opened (fs.h's show) */
	void *priv;                         /* pipes */
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
#define O_CLOEXEC LINUX_O_CLOEXEC

/* fsync of f: 0 (a disk's device file: its written pages and its write
 * cache on the disk; the initrd's files: nothing to write), -EIO (the disk
 * failed a write since the last fsync), -EINVAL (pipes, terminals, null,
 * zero: nothing to sync, as Linux). */
int file_fsync(struct file *f);

/* Shared default ops: reading a write-only file or writing a read-only one
 * (a pipe's other end, an initrd file): -EBADF, as Linux does. */
long file_no_read(struct file *f, vaddr_t ubuf, uint64_t n);
long file_no_write(struct file *f, vaddr_t ubuf, uint64_t n);

struct file *file_alloc(const struct file_ops *ops, int flags);
struct file *file_dup(struct file *f);
void file_close(struct file *f);

/* Descriptor tables (p->fdt, kernel/thread.h; slot changes under its
 * lock). fd_alloc installs f in p's lowest free descriptor
 * >= from, with close-on-exec or not (the fd, or -EMFILE); fd_install is
 * fd_alloc from 0 without it. fd_put closes what newfd held and installs f
 * there; fd_clear empties fd without closing its file. fd_get returns the
 * current thread's file of fd, or NULL, with a reference that lasts until
 * the system call ends (fd_release_held, called by the dispatcher), so a
 * close of fd on another CPU cannot free the file under the call (panics
 * past FD_HELD_MAX files in one call). fd_valid only says whether fd is
 * open. fd_set_cloexec marks fd
 * close-on-exec or not; fd_close_on_exec closes every descriptor so marked
 * (a successful execve). */
struct proc;
int fd_alloc(struct proc *p, struct file *f, int from, bool cloexec);
int fd_install(struct proc *p, struct file *f);
void fd_put(struct proc *p, int newfd, struct file *f, bool cloexec);
void fd_clear(struct proc *p, int fd);
/* close(2)'s half: empty slot fd and return what it held (NULL: nothing). */
struct file *fd_take(struct proc *p, int fd);
/* Is fd close-on-exec? */
bool fd_is_cloexec(struct proc *p, int fd);
struct file *fd_get(int fd);
/* fd_get for a call that reads or moves the offset: a seekable file comes
 * with its pos_lock held, which file_pos_unlock drops (NULL: fd not open). */
struct file *fd_get_pos(int fd);
void file_pos_unlock(struct file *f);
bool fd_valid(int fd);
void fd_release_held(struct proc *p);
void fd_set_cloexec(struct proc *p, int fd, bool cloexec);
void fd_close_on_exec(struct proc *p);

/* Open path (absolute, or relative to the current directory): *out gets a
 * new file. 0 or -errno. */
int file_open(const char *path, int flags, struct file **out);

/* Pipes (kernel/pipe.c): two files, [0] read end, [1] write end. */
int pipe_create(struct file *ends[2]);

#endif

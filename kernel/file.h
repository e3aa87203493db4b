/* kernel/file.h -- file descriptors: each process's table of open files
 * (struct file itself: fs/file.h).
 */
#ifndef KERNEL_FILE_H
#define KERNEL_FILE_H

#include "lib/types.h"
#include "lib/mutex.h"

#include "fs/file.h"

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
struct fdtable;
int fd_alloc(struct proc *p, struct file *f, int from, bool cloexec);
int fd_install(struct proc *p, struct file *f);
void fd_put(struct proc *p, int newfd, struct file *f, bool cloexec);
void fd_clear(struct proc *p, int fd);
/* Close f, taken out of table t: t's POSIX record locks on f's file go
 * first (fs/locks.h), then t's reference. */
void fd_file_close(struct fdtable *t, struct file *f);

/* kernel/sys_lock.c: is cmd one of fcntl's lock commands (F_GETLK,
 * F_SETLK, F_SETLKW, F_OFD_*)? fcntl_lock does it with the struct flock
 * at uarg: 0 or -errno (fs/locks.h). */
bool fcntl_is_lock(int cmd);
long fcntl_lock(struct file *f, int cmd, vaddr_t uarg);
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

/* Pipes (kernel/pipe.c): two files, [0] read end, [1] write end. */
int pipe_create(struct file *ends[2]);

#endif

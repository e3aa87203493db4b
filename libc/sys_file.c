/* libc/sys_file.c -- file-descriptor system calls for newlib.
 *
 * newlib (configured without its own system calls, MISSING_SYSCALL_NAMES)
 * calls the plain POSIX names -- read, write, open, ... -- from its stdio.
 * Each wrapper here issues the Linux x86-64 system call and returns the C
 * convention: the result, or -1 with errno set (sys_result).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "linux_abi.h"
#include "raw_syscall.h"

/* read(2): up to n bytes from fd into buf; the count, 0 at end of file. */
ssize_t read(int fd, void *buf, size_t n)
{
	return sys_result(raw_syscall3(SYS_read, fd, buf, n));
}

/* write(2): up to n bytes of buf to fd; the count written. */
ssize_t write(int fd, const void *buf, size_t n)
{
	return sys_result(raw_syscall3(SYS_write, fd, buf, n));
}

/* open: the mode argument is read only with O_CREAT, as POSIX says. */
int open(const char *path, int flags, ...)
{
	long lflags = open_flags_to_linux(flags);
	int mode = 0;

	if (lflags < 0) {
		errno = EINVAL;
		return -1;
	}
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	return (int)sys_result(raw_syscall3(SYS_open, path, lflags, mode));
}

/* close(2): release descriptor fd. */
int close(int fd)
{
	return (int)sys_result(raw_syscall1(SYS_close, fd));
}

/* lseek(2): move fd's file offset; the new offset. */
off_t lseek(int fd, off_t off, int whence)
{
	return sys_result(raw_syscall3(SYS_lseek, fd, off, whence));
}

/* stat_from_linux: fill newlib's struct stat from the kernel's. */
static void stat_from_linux(struct stat *st, const struct linux_stat *ls)
{
	memset(st, 0, sizeof *st);
	st->st_dev = (dev_t)ls->st_dev;
	st->st_ino = (ino_t)ls->st_ino;
	st->st_mode = (mode_t)ls->st_mode;	/* S_IF* and permission bits agree */
	st->st_nlink = (nlink_t)ls->st_nlink;
	st->st_uid = (uid_t)ls->st_uid;
	st->st_gid = (gid_t)ls->st_gid;
	st->st_rdev = (dev_t)ls->st_rdev;
	st->st_size = ls->st_size;
	st->st_blksize = ls->st_blksize;
	st->st_blocks = ls->st_blocks;
	st->st_atim.tv_sec = (time_t)ls->st_atime_sec;
	st->st_atim.tv_nsec = (long)ls->st_atime_nsec;
	st->st_mtim.tv_sec = (time_t)ls->st_mtime_sec;
	st->st_mtim.tv_nsec = (long)ls->st_mtime_nsec;
	st->st_ctim.tv_sec = (time_t)ls->st_ctime_sec;
	st->st_ctim.tv_nsec = (long)ls->st_ctime_nsec;
}

/* stat_call: run a stat-family system call into a kernel-format buffer and
 * convert. The kernel checks the path; we only need a valid result pointer
 * (an unwritable st gives EFAULT here, like Linux). */
static int stat_call(long r, struct stat *st, const struct linux_stat *ls)
{
	if (sys_result(r) < 0)
		return -1;
	if (st == NULL) {
		errno = EFAULT;
		return -1;
	}
	stat_from_linux(st, ls);
	return 0;
}

/* fstat(2): describe open file fd in *st (newlib's layout). */
int fstat(int fd, struct stat *st)
{
	struct linux_stat ls;
	return stat_call(raw_syscall2(SYS_fstat, fd, &ls), st, &ls);
}

/* stat(2): describe the file at path in *st (newfstatat underneath). */
int stat(const char *path, struct stat *st)
{
	struct linux_stat ls;
	return stat_call(raw_syscall4(SYS_newfstatat, LINUX_AT_FDCWD, path, &ls, 0), st, &ls);
}

/* isatty: like glibc, a terminal is a file that answers TCGETS (Pagoda's
 * console does; it has no window size, so TIOCGWINSZ would not do). Others
 * fail with ENOTTY (or EBADF), which is left in errno. */
int isatty(int fd)
{
	unsigned char termios[LINUX_TERMIOS_SIZE];

	return sys_result(raw_syscall3(SYS_ioctl, fd, LINUX_TCGETS, termios)) == 0;
}

/* pread(2), pwrite(2): n bytes at offset off, fd's offset unmoved. */
ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return sys_result(raw_syscall4(SYS_pread64, fd, buf, n, off));
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return sys_result(raw_syscall4(SYS_pwrite64, fd, buf, n, off));
}

/* fsync(2), fdatasync(2): what fd changed is on its disk (a disk's own
 * device file: its written pages and the disk's write cache). */
int fsync(int fd)
{
	return (int)sys_result(raw_syscall1(SYS_fsync, fd));
}

int fdatasync(int fd)
{
	return (int)sys_result(raw_syscall1(SYS_fdatasync, fd));
}

/* sync(2): everything written, on every disk. */
void sync(void)
{
	(void)raw_syscall0(SYS_sync);
}

/* link(2): a new name for a file (Pagoda's initrd is read-only). */
int link(const char *old, const char *new)
{
	return (int)sys_result(raw_syscall2(SYS_link, old, new));
}

/* readlink(2): the target of link path in buf (n bytes, no NUL added);
 * its length, or -1 with errno (EINVAL: path is not a link). */
ssize_t readlink(const char *restrict path, char *restrict buf, size_t n)
{
	return (ssize_t)sys_result(raw_syscall3(SYS_readlink, path, buf, n));
}

/* unlink(2): remove a name. */
int unlink(const char *path)
{
	return (int)sys_result(raw_syscall1(SYS_unlink, path));
}

/* rmdir(2), rename(2), symlink(2): names of directories and links. */
int rmdir(const char *path)
{
	return (int)sys_result(raw_syscall1(SYS_rmdir, path));
}

int rename(const char *old, const char *new)
{
	return (int)sys_result(raw_syscall2(SYS_rename, old, new));
}

int symlink(const char *target, const char *path)
{
	return (int)sys_result(raw_syscall2(SYS_symlink, target, path));
}

/* truncate(2), ftruncate(2): a file's new size. */
int truncate(const char *path, off_t size)
{
	return (int)sys_result(raw_syscall2(SYS_truncate, path, size));
}

int ftruncate(int fd, off_t size)
{
	return (int)sys_result(raw_syscall2(SYS_ftruncate, fd, size));
}

/* chmod(2), fchmod(2), umask(2): permission bits. */
int chmod(const char *path, mode_t mode)
{
	return (int)sys_result(raw_syscall2(SYS_chmod, path, mode));
}

int fchmod(int fd, mode_t mode)
{
	return (int)sys_result(raw_syscall2(SYS_fchmod, fd, mode));
}

mode_t umask(mode_t mask)
{
	return (mode_t)raw_syscall1(SYS_umask, mask);
}

/* lstat(2): stat of a link itself. */
int lstat(const char *path, struct stat *st)
{
	struct linux_stat ls;
	return stat_call(raw_syscall4(SYS_newfstatat, LINUX_AT_FDCWD, path, &ls, 0x100), st, &ls);
}

/* fchdir(2): the current directory becomes the directory open at fd. */
int fchdir(int fd)
{
	return (int)sys_result(raw_syscall1(SYS_fchdir, fd));
}

/* chdir(2): change the current directory. */
int chdir(const char *path)
{
	return (int)sys_result(raw_syscall1(SYS_chdir, path));
}

/* dup(2): a copy of fd on the lowest free descriptor. */
int dup(int fd)
{
	return (int)sys_result(raw_syscall1(SYS_dup, fd));
}

/* dup2(2): make descriptor to a copy of fd (closing to first). */
int dup2(int fd, int to)
{
	return (int)sys_result(raw_syscall2(SYS_dup2, fd, to));
}

/* dup3: dup2 that fails on fd == to and takes O_CLOEXEC (newlib's, translated). */
int dup3(int fd, int to, int flags)
{
	long lflags = open_flags_to_linux(flags);

	if (lflags < 0 || (flags & ~O_CLOEXEC)) {
		errno = EINVAL;
		return -1;
	}
	return (int)sys_result(raw_syscall3(SYS_dup3, fd, to, lflags));
}

/* pipe(2): fds[0] reads what fds[1] writes. */
int pipe(int fds[2])
{
	return (int)sys_result(raw_syscall1(SYS_pipe, fds));
}

/* pipe2: pipe with O_CLOEXEC and/or O_NONBLOCK on both ends; other flags
 * are EINVAL (the kernel checks after translation). */
int pipe2(int fds[2], int flags)
{
	long lflags = open_flags_to_linux(flags);

	if (lflags < 0 || (flags & ~(O_CLOEXEC | O_NONBLOCK))) {
		errno = EINVAL;
		return -1;
	}
	return (int)sys_result(raw_syscall2(SYS_pipe2, fds, lflags));
}

/* access(2): does path exist / allow mode (F_OK, R_OK, ... agree). */
int access(const char *path, int mode)
{
	return (int)sys_result(raw_syscall2(SYS_access, path, mode));	/* F_OK.. agree */
}

/* getcwd: the current directory into buf (size bytes); buf, or NULL with
 * errno (ERANGE if it does not fit). buf must not be NULL. */
char *getcwd(char *buf, size_t size)
{
	if (buf == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return sys_result(raw_syscall2(SYS_getcwd, buf, size)) < 0 ? NULL : buf;
}

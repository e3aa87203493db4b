/* lib/errno.h -- error numbers, with Linux x86-64 values (they reach user
 * space unchanged through the syscall ABI). Functions return -Exxx. */
#ifndef LIB_ERRNO_H
#define LIB_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define ENOTBLK 15
#define EBUSY 16
#define EEXIST 17
#define EXDEV 18
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ENOTTY 25
#define ETXTBSY 26
#define EFBIG 27
#define ENOSPC 28
#define ESPIPE 29
#define EROFS 30
#define EMLINK 31
#define EPIPE 32
#define EDOM 33
#define ERANGE 34
#define EDEADLK 35
#define ENAMETOOLONG 36
#define ENOLCK 37
#define ENOSYS 38
#define ENOTEMPTY 39
#define ELOOP 40
#define ENODATA 61       /* no data available: a tmpfs page out on swap (mm/pagecache.h PC_FIND) */
#define EOVERFLOW 75
#define ENOTSUP 95
#define EOPNOTSUPP 95
#define ETIMEDOUT 110
#define EUCLEAN 117      /* structure needs cleaning: a corrupted file system */

#endif

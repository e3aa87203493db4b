/* fs/locks.h -- advisory file locks: POSIX record locks (fcntl F_SETLK,
 * F_SETLKW, F_GETLK), open-file-description locks (F_OFD_*) and flock(2),
 * as Linux's fs/locks.c keeps them.
 *
 *   inode->locks:  [owner A: WR 0..99] [owner B: RD 200..EOF] [file F: flock SH]
 *
 *   kind    owner                         released by
 *   POSIX   a descriptor table (a        any close of any descriptor of the
 *           process and its threads)     file by that table; the table's end
 *   OFD     the open file (struct file)  the file's last close
 *   FLOCK   the open file                LOCK_UN, the file's last close
 *
 * POSIX and OFD locks are byte ranges and conflict with each other; flock
 * locks cover the whole file and conflict only with flock locks. Two
 * locks conflict when their owners differ, their ranges overlap, and one
 * is a write (exclusive) lock. An owner's own locks never conflict: a new
 * one replaces what it held in its range (splitting, merging neighbours
 * of the same type). A waiter sleeps on the inode's list; every change
 * wakes them all to try again. A POSIX waiter that would wait for an
 * owner already waiting (through a chain) for it gets EDEADLK.
 *
 * Locking: one spinlock (file_locks_lock, rank LOCK_RANK_FILE_LOCKS)
 * guards every inode's list and the waiters; calls here take it. Nothing
 * here sleeps except a wait for a conflicting lock (signals interrupt it:
 * -EINTR). Errors are Linux's: EAGAIN (F_SETLK conflict), EWOULDBLOCK
 * (flock LOCK_NB), EDEADLK, EINTR, ENOLCK (no memory), EINVAL, EBADF (a
 * read lock on a file not open for reading, a write lock on one not open
 * for writing). Advisory: read and write ignore them.
 */
#ifndef FS_LOCKS_H
#define FS_LOCKS_H

#include "lib/types.h"

struct file;

enum lock_kind { LOCK_POSIX, LOCK_OFD, LOCK_FLOCK };
enum lock_type { LOCK_READ, LOCK_WRITE, LOCK_NONE };   /* F_RDLCK, F_WRLCK, F_UNLCK */

/* A request or an answer: [start, end] inclusive, end UINT64_MAX = to
 * the end of the file, however long it grows. */
struct lock_range {
	enum lock_type type;
	uint64_t start, end;
	int pid;                    /* an answer: the holder's (-1: an OFD or flock lock) */
};

/* Set or remove (LOCK_NONE) a lock of kind on f for owner (POSIX: the
 * caller's descriptor table; else ignored: the file owns it), pid the
 * caller's; wait for conflicting locks to go, or fail with -EAGAIN. */
int locks_set(struct file *f, enum lock_kind kind, const void *owner, int pid,
	      const struct lock_range *want, bool wait);

/* F_GETLK: the first lock that would conflict with want into *out, or
 * out->type LOCK_NONE. 0 or -EINVAL. */
int locks_test(struct file *f, enum lock_kind kind, const void *owner,
	       const struct lock_range *want, struct lock_range *out);

/* A close of f through owner's descriptor table: its POSIX locks on the file go. */
void locks_release_posix(struct file *f, const void *owner);

/* f's last close: its OFD and flock locks go (fs/file.c). */
void locks_release_file(struct file *f);

#endif

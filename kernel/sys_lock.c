/* kernel/sys_lock.c -- the lock calls: fcntl's record locks (F_GETLK,
 * F_SETLK, F_SETLKW and the open-file-description forms F_OFD_*) and
 * flock(2), over fs/locks.c. A POSIX lock's owner is the caller's
 * descriptor table (its threads share it; a fork gets a new one, and no
 * locks); l_pid says the thread group. */
#include "fs/file.h"
#include "fs/locks.h"
#include "fs/vfs.h"
#include "kernel/file.h"
#include "kernel/proc.h"
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "mm/uaccess.h"

enum { F_GETLK = 5, F_SETLK = 6, F_SETLKW = 7, F_OFD_GETLK = 36, F_OFD_SETLK = 37,
       F_OFD_SETLKW = 38 };
enum { FLOCK_SH = 1, FLOCK_EX = 2, FLOCK_NB = 4, FLOCK_UN = 8 };   /* flock(2)'s LOCK_* */

/* struct flock as x86-64 Linux lays it out (32 bytes). */
struct linux_flock {
	int16_t l_type, l_whence;   /* F_RDLCK 0, F_WRLCK 1, F_UNLCK 2; SEEK_* */
	int64_t l_start, l_len;
	int32_t l_pid;
};

/* The byte range a struct flock names, as Linux reads it: 0, -EINVAL, -EOVERFLOW. */
static int flock_range(struct file *f, const struct linux_flock *fl, struct lock_range *r)
{
	int64_t base;
	switch (fl->l_whence) {
	case 0: base = 0; break;
	case 1: base = (int64_t)f->off; break;
	case 2: base = (int64_t)f->inode->size; break;
	default: return -EINVAL;
	}
	if (fl->l_type < 0 || fl->l_type > LOCK_NONE)
		return -EINVAL;
	int64_t start, end;
	if (__builtin_add_overflow(base, fl->l_start, &start))
		return -EOVERFLOW;
	if (fl->l_len > 0 && __builtin_add_overflow(start, fl->l_len - 1, &end))
		return -EOVERFLOW;
	if (fl->l_len < 0) {
		end = start - 1;
		if (__builtin_add_overflow(start, fl->l_len, &start))
			return -EINVAL;
	}
	if (start < 0)
		return -EINVAL;
	*r = (struct lock_range){ (enum lock_type)fl->l_type, (uint64_t)start,
				  fl->l_len == 0 ? UINT64_MAX : (uint64_t)end, 0 };
	return 0;
}

static long lock_get(struct file *f, enum lock_kind kind, vaddr_t uarg, struct linux_flock *fl,
		     const struct lock_range *want)
{
	struct lock_range got;
	int e = locks_test(f, kind, current_proc()->fdt, want, &got);
	if (e)
		return e;
	fl->l_type = (int16_t)got.type;
	if (got.type != LOCK_NONE) {
		fl->l_whence = 0;
		fl->l_start = (int64_t)got.start;
		fl->l_len = got.end == UINT64_MAX ? 0 : (int64_t)(got.end - got.start + 1);
		fl->l_pid = got.pid;
	}
	return copyout(uarg, fl, sizeof(*fl)) ? -EFAULT : 0;
}

long fcntl_lock(struct file *f, int cmd, vaddr_t uarg)
{
	struct linux_flock fl;
	struct lock_range want;
	bool ofd = cmd >= F_OFD_GETLK;
	if (copyin(&fl, uarg, sizeof(fl)))
		return -EFAULT;
	if (!f->inode)
		return -EINVAL;
	if (ofd && fl.l_pid != 0)
		return -EINVAL;   /* Linux's rule for OFD locks */
	int e = flock_range(f, &fl, &want);
	if (e)
		return e;
	enum lock_kind kind = ofd ? LOCK_OFD : LOCK_POSIX;
	struct proc *p = current_proc();
	if (cmd == F_GETLK || cmd == F_OFD_GETLK)
		return lock_get(f, kind, uarg, &fl, &want);
	return locks_set(f, kind, p->fdt, p->tgid, &want, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

bool fcntl_is_lock(int cmd)
{
	return (cmd >= F_GETLK && cmd <= F_SETLKW) || (cmd >= F_OFD_GETLK && cmd <= F_OFD_SETLKW);
}

/* flock(fd, op): LOCK_SH, LOCK_EX or LOCK_UN on the whole file, LOCK_NB
 * not to wait. */
static long sys_flock(const uint64_t a[6])
{
	struct file *f = fd_get((int)a[0]);
	if (!f)
		return -EBADF;
	int op = (int)a[1] & ~FLOCK_NB;
	enum lock_type type = op == FLOCK_SH ? LOCK_READ : op == FLOCK_EX ? LOCK_WRITE : LOCK_NONE;
	if ((op != FLOCK_UN && type == LOCK_NONE) || !f->inode)
		return -EINVAL;
	struct lock_range all = { type, 0, UINT64_MAX, 0 };
	return locks_set(f, LOCK_FLOCK, NULL, current_proc()->tgid, &all, !(a[1] & FLOCK_NB));
}

const struct syscall_entry sys_lock_table[] = {
	{ SYS_flock, "flock", sys_flock },
	{ 0, NULL, NULL },
};

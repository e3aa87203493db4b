/* fs/locks.c -- advisory file locks (see fs/locks.h). */
#include "fs/locks.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/errno.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/wait.h"
#include "mm/frame/kmalloc.h"

struct file_lock {
	struct list link;           /* on inode->locks */
	enum lock_kind kind;
	enum lock_type type;        /* LOCK_READ or LOCK_WRITE */
	uint64_t start, end;
	const void *owner;          /* POSIX: a descriptor table; else the struct file */
	int pid;
};

/* A POSIX owner waiting, and for whom (deadlock detection). */
struct lock_waiter {
	struct list link;
	const void *owner, *blocker;
};

static struct spinlock file_locks_lock = SPINLOCK_INIT("file_locks", LOCK_RANK_FILE_LOCKS);
static struct list waiters = { &waiters, &waiters };   /* POSIX waiters (file_locks_lock) */

/* The owner of f's locks of kind. */
static const void *owner_of(struct file *f, enum lock_kind kind, const void *owner)
{
	return kind == LOCK_POSIX ? owner : f;
}

/* flock locks and range locks live apart. */
static bool same_family(enum lock_kind a, enum lock_kind b)
{
	return (a == LOCK_FLOCK) == (b == LOCK_FLOCK);
}

static bool overlaps(const struct file_lock *l, uint64_t start, uint64_t end)
{
	return l->start <= end && start <= l->end;
}

/* The first lock of ip that conflicts with (kind, owner, type, range), or NULL. */
static struct file_lock *conflict(struct inode *ip, enum lock_kind kind, const void *owner,
				  enum lock_type type, uint64_t start, uint64_t end)
{
	list_for_each(l, &ip->locks) {
		struct file_lock *fl = list_entry(l, struct file_lock, link);
		if (same_family(fl->kind, kind) && fl->owner != owner && overlaps(fl, start, end) &&
		    (fl->type == LOCK_WRITE || type == LOCK_WRITE))
			return fl;
	}
	return NULL;
}

/* Is owner (through the chain of waiters) waiting for `for_whom`? */
static bool waits_for(const void *owner, const void *for_whom)
{
	for (int depth = 0; owner && depth < 16; depth++) {
		const void *next = NULL;
		list_for_each(l, &waiters) {
			struct lock_waiter *w = list_entry(l, struct lock_waiter, link);
			if (w->owner == owner)
				next = w->blocker;
		}
		if (next == for_whom)
			return true;
		owner = next;
	}
	return false;
}

/* Remove owner's locks of the family in [start, end], splitting what
 * sticks out; `spare` gives the one lock a split in the middle needs
 * (taken: set to NULL). A lock of the same type that overlaps or
 * touches the range widens *start, *end instead: merged into the new one. */
static void carve(struct inode *ip, enum lock_kind kind, const void *owner, enum lock_type type,
		  uint64_t *start, uint64_t *end, struct file_lock **spare)
{
	list_for_each_safe(l, n, &ip->locks) {
		struct file_lock *fl = list_entry(l, struct file_lock, link);
		if (fl->owner != owner || !same_family(fl->kind, kind))
			continue;
		bool touches = fl->start <= (*end == UINT64_MAX ? *end : *end + 1) &&
			       (*start == 0 ? true : fl->end >= *start - 1);
		if (fl->type == type && touches) {          /* merge into the new one */
			*start = MIN(*start, fl->start), *end = MAX(*end, fl->end);
		} else if (!overlaps(fl, *start, *end)) {
			continue;
		} else if (fl->start < *start && fl->end > *end) {   /* split: two pieces */
			struct file_lock *tail = *spare;
			*spare = NULL;
			*tail = *fl;
			tail->start = *end + 1;
			list_add(&ip->locks, &tail->link);
			fl->end = *start - 1;
			continue;
		} else if (fl->start < *start) {
			fl->end = *start - 1;
			continue;
		} else if (fl->end > *end) {
			fl->start = *end + 1;
			continue;
		}
		list_del(&fl->link);
		kfree(fl);
	}
}

/* Apply want for owner (no conflict: checked), lock held. */
static void apply(struct inode *ip, enum lock_kind kind, const void *owner, int pid,
		  const struct lock_range *want, struct file_lock **fresh, struct file_lock **spare)
{
	uint64_t start = want->start, end = want->end;
	carve(ip, kind, owner, want->type, &start, &end, spare);
	if (want->type != LOCK_NONE) {
		struct file_lock *fl = *fresh;
		*fresh = NULL;
		*fl = (struct file_lock){ .kind = kind, .type = want->type, .start = start,
					  .end = end, .owner = owner, .pid = pid };
		list_add(&ip->locks, &fl->link);
	}
	wait_wake(&ip->locks);   /* a lock gone or weakened may let a waiter in */
}

/* Wait once for the conflict with `holder` to change (lock held): 0, -EINTR, -EDEADLK. */
static int wait_for(struct inode *ip, enum lock_kind kind, const void *owner,
		    const struct file_lock *holder)
{
	if (kind == LOCK_POSIX && holder->kind == LOCK_POSIX && waits_for(holder->owner, owner))
		return -EDEADLK;
	struct lock_waiter w = { .owner = owner, .blocker = holder->owner };
	list_add(&waiters, &w.link);
	int e = wait_on_signal(&ip->locks, &file_locks_lock);
	list_del(&w.link);
	return e;
}

/* May f take a lock of type? (its open mode: Linux's EBADF rule; flock: any) */
static bool mode_allows(struct file *f, enum lock_kind kind, enum lock_type type)
{
	int acc = f->flags & O_ACCMODE;
	if (kind == LOCK_FLOCK || type == LOCK_NONE)
		return true;
	return type == LOCK_READ ? acc != O_WRONLY : acc != O_RDONLY;
}

int locks_set(struct file *f, enum lock_kind kind, const void *owner, int pid,
	      const struct lock_range *want, bool wait)
{
	struct inode *ip = f->inode;
	if (!ip || want->start > want->end)
		return -EINVAL;
	if (!mode_allows(f, kind, want->type))
		return -EBADF;
	owner = owner_of(f, kind, owner);
	struct file_lock *fresh = kmalloc(sizeof(*fresh)), *spare = kmalloc(sizeof(*spare));
	int e = fresh && spare ? 0 : -ENOLCK;
	spin_lock(&file_locks_lock);
	if (!e && kind == LOCK_FLOCK && want->type != LOCK_NONE) {
		/* a conversion lets go first, as Linux's: two holders of a shared
		 * lock that both ask for it exclusive must not wait for each other */
		struct lock_range none = { LOCK_NONE, 0, UINT64_MAX, 0 };
		apply(ip, kind, owner, pid, &none, &fresh, &spare);
	}
	while (!e) {
		struct file_lock *c = want->type == LOCK_NONE ? NULL :
			conflict(ip, kind, owner, want->type, want->start, want->end);
		if (!c) {
			apply(ip, kind, owner, pid, want, &fresh, &spare);
			break;
		}
		e = !wait ? -EAGAIN : wait_for(ip, kind, owner, c);   /* (EWOULDBLOCK is EAGAIN) */
	}
	spin_unlock(&file_locks_lock);
	kfree(fresh);
	kfree(spare);
	return e;
}

int locks_test(struct file *f, enum lock_kind kind, const void *owner,
	       const struct lock_range *want, struct lock_range *out)
{
	struct inode *ip = f->inode;
	if (!ip || want->start > want->end || want->type == LOCK_NONE)
		return -EINVAL;
	owner = owner_of(f, kind, owner);
	spin_lock(&file_locks_lock);
	struct file_lock *c = conflict(ip, kind, owner, want->type, want->start, want->end);
	*out = c ? (struct lock_range){ c->type, c->start, c->end, c->kind == LOCK_POSIX ? c->pid : -1 }
		 : (struct lock_range){ .type = LOCK_NONE, .start = want->start, .end = want->end };
	spin_unlock(&file_locks_lock);
	return 0;
}

/* Drop every lock of ip that `which` picks. */
static void release(struct inode *ip, bool (*which)(const struct file_lock *, const void *),
		    const void *arg)
{
	if (!ip)
		return;
	spin_lock(&file_locks_lock);
	bool any = false;
	list_for_each_safe(l, n, &ip->locks) {
		struct file_lock *fl = list_entry(l, struct file_lock, link);
		if (which(fl, arg)) {
			list_del(&fl->link);
			kfree(fl);
			any = true;
		}
	}
	if (any)
		wait_wake(&ip->locks);
	spin_unlock(&file_locks_lock);
}

static bool posix_of(const struct file_lock *fl, const void *owner)
{
	return fl->kind == LOCK_POSIX && fl->owner == owner;
}

static bool file_owned(const struct file_lock *fl, const void *f)
{
	return fl->kind != LOCK_POSIX && fl->owner == f;
}

void locks_release_posix(struct file *f, const void *owner)
{
	release(f->inode, posix_of, owner);
}

void locks_release_file(struct file *f)
{
	release(f->inode, file_owned, f);
}

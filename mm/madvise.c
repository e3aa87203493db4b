/* mm/madvise.c -- madvise(2) with Linux's checks and semantics.
 *
 *   MADV_DONTNEED  drop this mapping's pages now; the next touch sees zeros
 *                  (private anonymous) or the object's data (file, shared
 *                  anonymous: the data stays in the object)
 *   MADV_FREE      private anonymous memory only: the pages stay mapped but
 *                  become lazy-free (mm/lazyfree.h); reclaim may drop the
 *                  ones nobody writes again, a write keeps the page
 *   MADV_REMOVE    a shared mapping of a file or of shared anonymous memory
 *                  (a tmpfs file too): a hole punched, later reads see
 *                  zeros in every process that maps it (after the lock is
 *                  let go: as_madvise_unlocked); EINVAL without an object,
 *                  EACCES for a private mapping or a file that cannot,
 *                  EOPNOTSUPP from a file system without holes (ext2)
 *   MADV_DONTFORK, MADV_DOFORK     a child gets no copy of the range / does
 *   MADV_WIPEONFORK, MADV_KEEPONFORK  a child gets the range zero-filled /
 *                  copied (private anonymous only, else EINVAL)
 *   MADV_POPULATE_READ, MADV_POPULATE_WRITE  fault every page in now, as a
 *                  read / write would (EFAULT where that access would fault)
 *   MADV_WILLNEED  a file's pages of the range read into its cache now
 *                  (after the lock is let go: as_madvise_unlocked), not
 *                  mapped; nothing for anonymous memory (as Linux without
 *                  swap)
 *   MADV_SEQUENTIAL, MADV_RANDOM, MADV_NORMAL  how a fault reads a file
 *                  ahead (VM_SEQ_READ: a whole window after the page;
 *                  VM_RAND_READ: the page alone; neither: the stream's
 *                  read-ahead)
 *   MADV_COLD      the range's anonymous pages are aged (Accessed bits
 *                  cleared wherever mapped) and go next under the
 *                  reclaimer's clock hand (mm/swap.h: swap_advise)
 *   MADV_PAGEOUT   the range's anonymous pages are swapped out now, used
 *                  or not (nothing without swap); file pages stay. Both
 *                  after the lock is let go (as_madvise_unlocked: the
 *                  reverse map's walk ranks before the address space's
 *                  lock), taking it for reading per batch of pages
 *   MADV_HUGEPAGE, MADV_NOHUGEPAGE, MADV_DONTDUMP, MADV_DODUMP: accepted,
 *                  no effect: huge pages and core dumps do not exist here.
 * Locking: the advices that change VMA flags (*FORK, the read-ahead ones) hold the
 * address-space lock for writing; every other one for reading, as Linux
 * (madvise_need_mmap_write), so the threads' page faults go on meanwhile.
 * DONTNEED therefore changes leaves only (PGT_KEEP_TABLES): a fault may be
 * walking the tables, so emptied ones stay until munmap or exit, and
 * shared PT pages in the range are made private first. (REMOVE's hole,
 * and WILLNEED's reads, come after the lock: as_madvise_unlocked.)
 * Errors: start not page aligned, the rounded length overflowing or an
 * unknown advice: -EINVAL; a hole in the range (also past the user top):
 * -ENOMEM after advising the mapped parts. All as Linux's madvise_walk_vmas.
 */
#include "mm/madvise.h"
#include "mm/as.h"
#include "mm/lazyfree.h"
#include "mm/pt/pgtable.h"
#include "mm/swap.h"
#include "mm/pt/tlb.h"
#include "mm/vma.h"
#include "mm/vmobject.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"

/* Advices that change VMA flags: the VMA flags they set and clear. */
static bool flag_advice(int advice, unsigned *set, unsigned *clear)
{
	*set = *clear = 0;
	switch (advice) {
	case MADV_DONTFORK: *set = VM_DONTCOPY; return true;
	case MADV_DOFORK: *clear = VM_DONTCOPY; return true;
	case MADV_WIPEONFORK: *set = VM_WIPEONFORK; return true;
	case MADV_KEEPONFORK: *clear = VM_WIPEONFORK; return true;
	case MADV_NORMAL: *clear = VM_SEQ_READ | VM_RAND_READ; return true;
	case MADV_SEQUENTIAL: *set = VM_SEQ_READ, *clear = VM_RAND_READ; return true;
	case MADV_RANDOM: *set = VM_RAND_READ, *clear = VM_SEQ_READ; return true;
	default: return false;
	}
}

static bool known_advice(int advice)
{
	unsigned set, clear;
	switch (advice) {
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE: case MADV_REMOVE: case MADV_COLD:
	case MADV_PAGEOUT: case MADV_POPULATE_READ: case MADV_POPULATE_WRITE:
	case MADV_HUGEPAGE: case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
		return true;
	default:
		return flag_advice(advice, &set, &clear);
	}
}

static bool private_anon(const struct vma *v)
{
	return !v->obj && !(v->flags & VM_SHARED);
}

/* MADV_REMOVE of v: checked only, the hole is punched by as_madvise_unlocked. */
static int remove_check(const struct vma *v)
{
	if (!v->obj)
		return -EINVAL;
	return !v->obj->ops->remove || !(v->flags & VM_SHARED) ? -EACCES : 0;
}

/* Apply advice to the part [start, end) of VMA v: 0 or -errno. */
static int advise_vma(struct addrspace *as, struct vma *v, vaddr_t start, vaddr_t end,
		      int advice)
{
	unsigned set, clear;
	switch (advice) {
	case MADV_DONTNEED:
		return as_unmap_pages(as, start, end, PGT_KEEP_TABLES);   /* 0: as_madvise unshared */
	case MADV_FREE:
		if (!private_anon(v))
			return -EINVAL;
		lazyfree_range(as->pgt, start, end);
		return 0;
	case MADV_REMOVE:
		return remove_check(v);
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE:
		return as_populate(as, start, end, advice == MADV_POPULATE_WRITE ? FAULT_WRITE : 0);
	default:
		if (!flag_advice(advice, &set, &clear))
			return 0;
		if (set == VM_WIPEONFORK && !private_anon(v))
			return -EINVAL;
		v->flags = (v->flags | set) & ~clear;   /* v lies inside the range */
		return 0;
	}
}

enum as_lock_mode madvise_lock_mode(int advice)
{
	unsigned set, clear;
	return flag_advice(advice, &set, &clear) ? AS_LOCK_WRITE : AS_LOCK_READ;
}

int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice)
{
	unsigned set, clear;
	if (start % PAGE_SIZE || !known_advice(advice))
		return -EINVAL;
	uint64_t alen = ALIGN_UP(len, PAGE_SIZE);
	if (len && !alen)
		return -EINVAL;          /* rounding up overflowed */
	vaddr_t end = start + alen;
	if (end < start)
		return -EINVAL;
	if (!alen)
		return 0;
	vaddr_t top = MIN(end, USER_TOP);   /* no VMA above it */
	if (advice == MADV_DONTNEED && start < top) {   /* all or nothing: unshare first */
		int r = pgt_unshare(as->pgt, start, top, 0);
		if (r < 0)
			return r;
	}
	bool flags = flag_advice(advice, &set, &clear);
	if (flags && vma_isolate(as, start, end) < 0)
		return -ENOMEM;
	bool hole = false;
	vaddr_t at = start;
	int r = 0;
	for (struct vma *v = as->vmas; v && v->start < end && r == 0; v = v->next) {
		if (v->end <= at)
			continue;
		if (v->start > at)
			hole = true;
		vaddr_t s = MAX(v->start, at), e = MIN(v->end, end);
		r = advise_vma(as, v, s, e, advice);
		at = e;
	}
	if (flags)
		vma_merge(as);
	if (r < 0)
		return r;
	return hole || at < end ? -ENOMEM : 0;
}

/* Does the part of advice after the lock (as_madvise_unlocked) apply to v:
 * MADV_REMOVE to a file mapped shared, MADV_WILLNEED to an object with a
 * store to read from. */
static bool file_advice_applies(const struct vma *v, int advice)
{
	if (!v->obj)
		return false;
	if (advice == MADV_REMOVE)
		return (v->flags & VM_SHARED) && v->obj->ops->remove;
	return advice == MADV_WILLNEED && v->obj->ops->willneed;
}

/* The first VMA piece of [*at, end) in as (locked) that advice applies to,
 * with a reference on its object and its page range in *idx, *n; *at moves
 * past it. NULL when there is none. */
static struct vmobject *next_file_piece(struct addrspace *as, int advice, vaddr_t *at,
					vaddr_t end, uint64_t *idx, uint64_t *n)
{
	for (struct vma *v = as->vmas; v && v->start < end && *at < end; v = v->next) {
		if (v->end <= *at || !file_advice_applies(v, advice))
			continue;
		vaddr_t s = MAX(v->start, *at), e = MIN(v->end, end);
		*idx = (v->obj_off + (s - v->start)) / PAGE_SIZE;
		*n = (e - s) / PAGE_SIZE;
		*at = e;
		vmobject_get(v->obj);
		return v->obj;
	}
	return NULL;
}

int as_madvise_unlocked(struct addrspace *as, vaddr_t start, uint64_t len, int advice)
{
	vaddr_t at = start, end = start + ALIGN_UP(len, PAGE_SIZE);
	uint64_t idx, n;
	int r = 0;
	if (advice == MADV_COLD || advice == MADV_PAGEOUT) {
		swap_advise(as, start, MIN(end, USER_TOP),
			    advice == MADV_COLD ? SWAP_ADVISE_COLD : SWAP_ADVISE_PAGEOUT);
		return 0;
	}
	for (;;) {
		as_lock_read(as);
		struct vmobject *obj = next_file_piece(as, advice, &at, end, &idx, &n);
		as_unlock_read(as);
		if (!obj)
			return r;
		if (advice == MADV_REMOVE) {
			int e = obj->ops->remove(obj, idx, n);
			r = r ? r : e;
		} else {
			obj->ops->willneed(obj, idx, n);
		}
		vmobject_put(obj);
	}
}

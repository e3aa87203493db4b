/* mm/madvise.c -- madvise(2) with Linux's checks and semantics.
 *
 *   MADV_DONTNEED  drop the pages now; the next touch sees zeros (anonymous)
 *                  or the file's data again
 *   MADV_FREE      private anonymous memory only: the pages stay mapped but
 *                  become lazy-free (mm/lazyfree.h); reclaim may drop the
 *                  ones nobody writes again, a write keeps the page
 *   MADV_WILLNEED  fault the pages in now
 *   MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL: accepted, no effect
 * Errors: start not page aligned or unknown advice: -EINVAL; MADV_FREE on a
 * VMA that is not private anonymous: -EINVAL (the VMAs before it were
 * advised); a hole in the range: -ENOMEM after advising the mapped parts.
 * All as Linux's madvise_walk_vmas.
 */
#include "mm/madvise.h"
#include "mm/as.h"
#include "mm/lazyfree.h"
#include "mm/pgrange.h"
#include "mm/vma.h"
#include "kernel/errno.h"
#include "arch/x86_64/memlayout.h"

/* Fault in every page of [start, end) of v. */
static void prefault(struct addrspace *as, struct vma *v, vaddr_t start, vaddr_t end)
{
	if (!(v->prot & PROT_READ))
		return;
	for (vaddr_t va = start; va < end; va += PAGE_SIZE)
		as_fault(as, va, false, false);
}

static bool known_advice(int advice)
{
	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE:
		return true;
	default:
		return false;
	}
}

/* Apply advice to the part [start, end) of VMA v: 0 or -EINVAL. */
static int advise_vma(struct addrspace *as, struct vma *v, vaddr_t start, vaddr_t end,
		      int advice)
{
	switch (advice) {
	case MADV_DONTNEED:
		return pgr_unmap(as->pgt, start, end);   /* 0: as_madvise unshared */
	case MADV_FREE:
		if (!(v->flags & VMA_ANON) || (v->flags & VMA_SHARED))
			return -EINVAL;
		lazyfree_range(as->pgt, start, end);
		return 0;
	case MADV_WILLNEED:
		prefault(as, v, start, end);
		return 0;
	default:
		return 0;
	}
}

int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice)
{
	if (start % PAGE_SIZE || !known_advice(advice))
		return -EINVAL;
	uint64_t alen = ALIGN_UP(len, PAGE_SIZE);
	if (len && !alen)
		return -EINVAL;          /* rounding up overflowed */
	vaddr_t end = start + alen;
	if (end < start || end > USER_TOP)
		return -EINVAL;
	if (!alen)
		return 0;
	if (advice == MADV_DONTNEED) {   /* all or nothing: unshare before any change */
		int r = pgr_unshare(as->pgt, start, end, PGR_KEEP_WHOLE);
		if (r < 0)
			return r;
	}
	bool hole = false;
	vaddr_t at = start;
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next) {
		if (v->end <= at)
			continue;
		if (v->start > at)
			hole = true;
		vaddr_t s = MAX(v->start, at), e = MIN(v->end, end);
		int r = advise_vma(as, v, s, e, advice);
		if (r < 0)
			return r;
		at = e;
	}
	return hole || at < end ? -ENOMEM : 0;
}

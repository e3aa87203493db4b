/* mm/madvise.c -- madvise(2) with Linux's checks.
 *
 *   MADV_DONTNEED  drop the pages now; the next touch sees zeros (anonymous)
 *                  or the file's data again
 *   MADV_WILLNEED  fault the pages in now
 *   MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL: accepted, no effect
 * Errors: start not page aligned or unknown advice: -EINVAL; a hole in the
 * range: -ENOMEM (after advising the mapped parts, as Linux does).
 */
#include "mm/madvise.h"
#include "mm/as.h"
#include "mm/pgrange.h"
#include "mm/vma.h"
#include "kernel/errno.h"
#include "arch/x86_64/memlayout.h"

/* Fault in every page of [start, end) that a VMA covers. */
static void prefault(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	for (vaddr_t va = start; va < end; va += PAGE_SIZE) {
		struct vma *v = as_find_vma(as, va);
		if (v && (v->prot & PROT_READ))
			as_fault(as, va, false, false);
	}
}

int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice)
{
	if (start % PAGE_SIZE)
		return -EINVAL;
	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED:
		break;
	default:
		return -EINVAL;
	}
	len = ALIGN_UP(len, PAGE_SIZE);
	vaddr_t end = start + len;
	if (end < start || end > USER_TOP)
		return -EINVAL;
	if (!len)
		return 0;
	if (advice == MADV_DONTNEED)
		pgr_unmap(as->pgt, start, end);
	else if (advice == MADV_WILLNEED)
		prefault(as, start, end);
	return vma_covers(as, start, end) ? 0 : -ENOMEM;
}

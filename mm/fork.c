/* mm/fork.c -- duplicating an address space for fork().
 *
 * Three strategies (enum fork_strategy in mm/as.h), one VMA at a time:
 *
 * Eager copy (FORK_COPY, only for measuring, kernel/forkbench_measure.c): the
 * child gets a new frame with a copy of every private page; no COW on either
 * side. Its cost grows with the memory touched, and frames are copied.
 *
 * Classic copy-on-write (FORK_COW, ptshare=off): the child gets its own page
 * tables, a copy of every present entry, and a reference on every frame;
 * private pages become read-only + COW in both (whatever their protection:
 * mprotect gives W back only to a frame mapped once), so the first write
 * by either side copies. Its cost grows with the number of mapped pages.
 *
 * Shared page tables (FORK_SHARE, ptshare=fork or all, mm/ptshare.c): the
 * child's PD entries point at the parent's PT pages, write-protected; no
 * per-page work at all, so the cost grows with the number of PT pages (one
 * per 2 MiB).
 *
 * madvise flags: a VMA marked MADV_DONTFORK (VM_DONTCOPY) is not given to
 * the child at all; one marked MADV_WIPEONFORK is given empty (the child
 * reads zeros). A shared PT page may span such a VMA and its neighbours, so
 * an address space with either flag anywhere forks entry by entry
 * (FORK_COW instead of FORK_SHARE).
 */
#include "mm/as.h"
#include "mm/pgtable.h"
#include "mm/phasetime.h"
#include "mm/tlb.h"
#include "mm/ptshare.h"
#include "mm/vma.h"
#include "lib/printk.h"

/* Allocate what forking parent VMA v into child pgt with strategy s
 * needs (FORK_COPY: all of it, contents included). 0 or -ENOMEM. */
static int fork_prepare(struct pagetable *child, struct pagetable *parent,
			const struct vma *v, enum fork_strategy s)
{
	switch (s) {
	case FORK_COPY:
		return pgt_dup(child, parent, v->start, v->end, v->prot, v->flags & VM_SHARED);
	case FORK_COW:
		return pgt_copy_prepare(child, parent, v->start, v->end);
	case FORK_SHARE:
		return ptshare_fork_prepare(child, parent, v);
	default:
		panic("as_fork_with: bad fork strategy %d", (int)s);
	}
}

/* Duplicate the pages of parent VMA v into child pgt with strategy s:
 * allocate, then change the parent's entries in one TLB batch. */
static int fork_vma(struct pagetable *child, struct pagetable *parent, const struct vma *v,
		    enum fork_strategy s)
{
	int r = fork_prepare(child, parent, v, s);
	if (r < 0 || s == FORK_COPY)   /* an eager copy leaves the parent alone */
		return r;
	struct tlb_batch b;
	tlb_begin(&b, parent);
	if (s == FORK_COW)
		pgt_copy(&b, child, v->start, v->end, v->flags & VM_SHARED);
	else
		ptshare_fork_vma(&b, child, v);
	tlb_end(&b);
	return 0;
}

/* Does any VMA of as carry a flag that keeps whole PT pages from being
 * shared with the child? */
static bool has_fork_flags(const struct addrspace *as)
{
	for (const struct vma *v = as->vmas; v; v = v->next)
		if (v->flags & (VM_DONTCOPY | VM_WIPEONFORK))
			return true;
	return false;
}

struct addrspace *as_fork_with(struct addrspace *parent, enum fork_strategy s)
{
	uint64_t t0 = phase_begin();
	struct addrspace *child = as_create();
	phase_end(PH_FORK_AS_CREATE, t0);
	if (!child)
		return NULL;
	child->heap_start = parent->heap_start;
	child->brk = parent->brk;
	if (s == FORK_SHARE && has_fork_flags(parent))
		s = FORK_COW;
	for (struct vma *v = parent->vmas; v; v = v->next) {
		if (v->flags & VM_DONTCOPY)
			continue;
		struct vma *c = vma_new(v->start, v->end, v->prot, v->flags, v->obj,
					v->obj_off);
		if (!c)
			goto fail;
		vma_insert(child, c);
		t0 = phase_begin();
		int r = v->flags & VM_WIPEONFORK ? 0 : fork_vma(child->pgt, parent->pgt, v, s);
		phase_end(PH_FORK_VMA, t0);
		if (r < 0)
			goto fail;
	}
	return child;
fail:
	as_destroy(child);
	return NULL;
}

struct addrspace *as_fork(struct addrspace *parent)
{
	uint64_t t0 = phase_begin();
	struct addrspace *child = as_fork_with(parent,
					       ptshare_mode == PTSHARE_OFF ? FORK_COW : FORK_SHARE);
	phase_end(PH_FORK_AS, t0);
	if (phasetime_on && child)
		phasetime_forked(parent, child);
	return child;
}

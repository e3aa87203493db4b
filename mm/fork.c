/* mm/fork.c -- duplicating an address space for fork().
 *
 * Three strategies (enum fork_strategy in mm/as.h), one VMA at a time:
 *
 * Eager copy (FORK_COPY, only for measuring, kernel/forkbench/measure.c): the
 * child gets a new frame with a copy of every private page; no COW on either
 * side. Its cost grows with the memory touched, and frames are copied.
 *
 * Classic copy-on-write (FORK_COW, ptshare=off): the child gets its own page
 * tables, a copy of every present entry, and a reference on every frame;
 * private pages become read-only + COW in both (whatever their protection:
 * mprotect gives W back only to a frame mapped once), so the first write
 * by either side copies. Its cost grows with the number of mapped pages.
 *
 * Shared page tables (FORK_SHARE, ptshare=fork or all, mm/pt/share.c): the
 * child's PD entries point at the parent's PT pages, write-protected; no
 * per-page work at all, so the cost grows with the number of PT pages (one
 * per 2 MiB).
 *
 * Shared PD pages (FORK_SHARE_PD, ptshare=pd): where every VMA of a 1 GiB
 * is private memory inside it, the child's PDPT entry points at the
 * parent's PD page, write-protected: one entry per 1 GiB, whatever it maps.
 * Elsewhere (a MAP_SHARED mapping, a VMA crossing a 1 GiB line) PT pages
 * are shared as with FORK_SHARE.
 *
 * madvise flags: a VMA marked MADV_DONTFORK (VM_DONTCOPY) is not given to
 * the child at all; one marked MADV_WIPEONFORK is given empty (the child
 * reads zeros). A shared PT page may span such a VMA and its neighbours, so
 * an address space with either flag anywhere forks entry by entry
 * (FORK_COW instead of FORK_SHARE).
 */
#include "mm/as.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/tlb.h"
#include "mm/ptshare.h"
#include "mm/pt/share.h"
#include "mm/vma.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"
#include "lib/printk.h"

/* PGT_SHARE_MAPSHARED for a MAP_SHARED VMA, else 0. */
static unsigned mapshared(const struct vma *v)
{
	return v->flags & VM_SHARED ? PGT_SHARE_MAPSHARED : 0;
}

/* Give the child its part of parent VMA v with strategy s, in the fork's
 * one TLB batch b (the parent's): an eager copy (FORK_COPY: the parent
 * does not change), copy-on-write entries (FORK_COW), or shared table
 * pages (FORK_SHARE, _PD; flags: PGT_SHARE_PD or 0). 0 or -ENOMEM. */
static int fork_vma(struct tlb_batch *b, struct pagetable *child, const struct vma *v,
		    enum fork_strategy s, unsigned flags)
{
	switch (s) {
	case FORK_COPY:
		return pgt_dup(child, b->pgt, v->start, v->end, v->prot, v->flags & VM_SHARED);
	case FORK_COW:
		return pgt_copy(b, child, v->start, v->end, v->flags & VM_SHARED);
	case FORK_SHARE:
	case FORK_SHARE_PD:
		return pgt_share(b, child, v->start, v->end, flags | mapshared(v));
	default:
		panic("as_fork_with: bad fork strategy %d", (int)s);
	}
}

/* The 1 GiB that address va lies in. */
static vaddr_t gib_of(vaddr_t va)
{
	return ALIGN_DOWN(va, HUGE_PAGE_SIZE);
}

/* May the PD page of the 1 GiB at g be shared whole: is every VMA that
 * overlaps it private memory inside it? v is the first VMA starting in it,
 * prev the one before (NULL if none). */
static bool gib_private(const struct vma *prev, const struct vma *v, vaddr_t g)
{
	if (prev && prev->end > g)
		return false;
	for (; v && v->start - g < HUGE_PAGE_SIZE; v = v->next)
		if ((v->flags & VM_SHARED) || v->end - g > HUGE_PAGE_SIZE)
			return false;
	return true;
}

/* The fork walk's verdict on PD sharing, one per 1 GiB (VMAs are sorted). */
struct pd_verdict {
	vaddr_t gib;          /* the 1 GiB judged, or 1 (none yet) */
	unsigned flags;       /* PGT_SHARE_PD or 0 */
	bool done;            /* the child has that PD page already */
	const struct vma *prev;
};

/* PGT_SHARE_PD if v's 1 GiB is shared whole under strategy s, else 0.
 * Called for each VMA in order. */
static unsigned pd_flags(struct pd_verdict *d, const struct vma *v, enum fork_strategy s)
{
	if (s == FORK_SHARE_PD && gib_of(v->start) != d->gib) {
		d->gib = gib_of(v->start);
		d->flags = gib_private(d->prev, v, d->gib) ? PGT_SHARE_PD : 0;
		d->done = false;
	}
	d->prev = v;
	return s == FORK_SHARE_PD ? d->flags : 0;
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

/* Does the fork give VMA v nothing to do (after pd_flags decided on it):
 * wiped or not copied, or in a 1 GiB whose PD page is shared whole already? */
static bool fork_skips(const struct vma *v, unsigned pd, const struct pd_verdict *d)
{
	return (v->flags & (VM_WIPEONFORK | VM_DONTCOPY)) || (pd && d->done);
}

/* FORK_COW writes the parent's entries, so its tables must be private
 * first: shared ones are met when an address space forked with shared
 * tables later got MADV_DONTFORK or MADV_WIPEONFORK (it then forks entry by
 * entry). The VMAs the child gets no part of stay shared. 0 or -ENOMEM. */
static int unshare_parent(struct addrspace *parent, enum fork_strategy s)
{
	if (s != FORK_COW)
		return 0;
	for (struct vma *v = parent->vmas; v; v = v->next) {
		int r = v->flags & (VM_DONTCOPY | VM_WIPEONFORK) ? 0 :
			pgt_unshare(parent->pgt, v->start, v->end, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The child's copy of parent VMA v (d: the PD verdict of its 1 GiB,
 * pd: its PGT_SHARE_PD flag), in the fork's batch b. 0 or -ENOMEM. */
static int fork_one(struct tlb_batch *b, struct addrspace *child, const struct vma *v,
		    enum fork_strategy s, unsigned pd, struct pd_verdict *d)
{
	struct vma *c = vma_new(v->start, v->end, v->prot, v->flags, v->obj, v->obj_off);
	if (!c)
		return -ENOMEM;
	c->anon = v->anon;   /* the pages fork shares are found from either side */
	vma_insert(child, c);
	uint64_t t0 = phase_begin();
	int r = fork_skips(v, pd, d) ? 0 : fork_vma(b, child->pgt, v, s, pd);
	d->done |= pd != 0;
	phase_end(PH_FORK_VMA, t0);
	return r;
}

/* Every VMA's part in one TLB batch, so the parent's TLB is flushed once
 * per fork (Linux's dup_mmap does the same), not once per VMA: under TCG
 * each flush also costs refilling every translation the kernel and the
 * parent use next. The allocator never reclaims, so the child's tables
 * are allocated as the walks go (mm/frame/page.h). 0 or -ENOMEM. */
static int fork_all(struct addrspace *child, struct addrspace *parent, enum fork_strategy s)
{
	uint64_t t0 = phase_begin();
	struct pd_verdict d = { .gib = 1 };
	struct tlb_batch b;
	int r = 0;
	tlb_begin(&b, parent->pgt);
	for (struct vma *v = parent->vmas; v && r == 0; v = v->next) {
		unsigned pd = pd_flags(&d, v, s);
		if (!(v->flags & VM_DONTCOPY))
			r = fork_one(&b, child, v, s, pd, &d);
	}
	tlb_end(&b);
	phase_end(PH_FORK_ENTRIES, t0);
	return r;
}

struct addrspace *as_fork_with(struct addrspace *parent, enum fork_strategy s)
{
	uint64_t t0 = phase_begin();
	struct addrspace *child = as_create();
	phase_end(PH_FORK_AS_CREATE, t0);
	if (!child)
		return NULL;
	/* The reverse map finds the child through its first VMA: it waits
	 * until the child is whole (mm/rmap.h). */
	as_lock_write(child);
	child->heap_start = parent->heap_start;
	child->brk = parent->brk;
	if ((s == FORK_SHARE || s == FORK_SHARE_PD) && has_fork_flags(parent))
		s = FORK_COW;
	int r = unshare_parent(parent, s) ?: fork_all(child, parent, s);
	as_unlock_write(child);
	if (r < 0) {
		as_put(child);   /* a reverse-map walk may hold it a moment longer */
		return NULL;
	}
	return child;
}

struct addrspace *as_fork(struct addrspace *parent)
{
	uint64_t t0 = phase_begin();
	enum fork_strategy s = ptshare_mode == PTSHARE_OFF ? FORK_COW :
			       ptshare_mode == PTSHARE_PD ? FORK_SHARE_PD : FORK_SHARE;
	struct addrspace *child = as_fork_with(parent, s);
	phase_end(PH_FORK_AS, t0);
	if (phasetime_on && child)
		phasetime_forked(parent, child);
	return child;
}

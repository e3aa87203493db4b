/* mm/pt/walk.c -- the generic page-range walker (see mm/pt/walk.h). */
#include "mm/pt/walk.h"
#include "mm/pt/share.h"
#include "mm/pt/ptpage.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"
#include "lib/printk.h"

static int walk_table(struct walk *w, pte_t *table, int level, vaddr_t va, vaddr_t end);

#define WALK_AGAIN 2   /* walk_pt_locked: the PD entry changed, visit it again */

/* Walk the PT page that PD entry *ep (read as e) points at, holding its
 * lock; WALK_AGAIN if the PD entry changed before the lock was taken (the
 * PT page was replaced meanwhile: a thread publishing text switched to the
 * published page, mm/ptshare_text.c). */
static int walk_pt_locked(struct walk *w, pte_t *ep, pte_t e, vaddr_t va, vaddr_t end)
{
	struct page *pt = pa_to_page(pte_addr(e));
	spin_lock(pt_lock(pt));
	pte_t now = pte_read(ep);
	if (!pte_present(now) || pte_addr(now) != pte_addr(e)) {
		spin_unlock(pt_lock(pt));
		return WALK_AGAIN;
	}
	int r = walk_table(w, P2V(pte_addr(e)), PGL_PT, va, end);
	spin_unlock(pt_lock(pt));
	return r;
}

/* Call fn (if any) on entry ep covering [va, end) at level: the walk's
 * cursor is set first (a callback may walk again with the same w). */
static int call(walk_fn fn, struct walk *w, pte_t *ep, int level, vaddr_t va, vaddr_t end)
{
	if (!fn)
		return 0;
	w->ep = ep, w->va = va, w->end = end, w->level = level;
	return fn(w);
}

static walk_fn level_fn(const struct walk_ops *o, int level)
{
	switch (level) {
	case PGL_PML4: return o->pml4e;
	case PGL_PDPT: return o->pdpte;
	case PGL_PD: return o->pde;
	default: return o->pte;
	}
}

/* Visit one entry covering [va, end) at level. */
static int walk_entry(struct walk *w, pte_t *ep, int level, vaddr_t va, vaddr_t end)
{
	const struct walk_ops *o = w->ops;
	int leaf_level = w->leaf_level ? w->leaf_level : PGL_PT;
	pte_t e = pte_read(ep);

	if (!pte_mapped(e)) {   /* a PROT_NONE leaf is visited like a present one */
		if (!w->alloc || level <= leaf_level)
			return call(o->hole, w, ep, level, va, end);
		if (!pt_table_alloc(w->pgt, ep, level, va))
			return -ENOMEM;
		e = pte_read(ep);   /* ours, or the one another CPU linked first */
	}
	walk_fn fn = level_fn(o, level);
	if (pte_is_leaf(e, level) || level <= leaf_level)
		return call(fn, w, ep, level, va, end);
	int r = call(fn, w, ep, level, va, end);
	if (r)
		return r == WALK_SKIP ? 0 : r;
	e = pte_read(ep);   /* the callback may have changed it */
	if (o->shared && (level == PGL_PD || level == PGL_PDPT) && pt_needs_unshare(e, va)) {
		r = call(o->shared, w, ep, level, va, end);   /* the caller's decision */
		if (r)
			return r == WALK_SKIP ? 0 : r;
		e = pte_read(ep);
	}
	if (level == PGL_PD && o->lock_leaves)
		r = walk_pt_locked(w, ep, e, va, end);
	else
		r = walk_table(w, P2V(pte_addr(e)), level - 1, va, end);
	if (r == WALK_AGAIN)
		return walk_entry(w, ep, level, va, end);
	if (r < 0)
		return r;
	return call(o->table_done, w, ep, level, va, end);
}

/* Visit the entries of a PT page that cover [va, end): each mapped one
 * with ops->pte, each swap entry with ops->swap (or ops->hole), each absent
 * one with ops->hole. The innermost loop of
 * every walk, so it does only that: a leaf has no table below it to
 * allocate, unshare or lock, and walk_entry's checks for those cost every
 * entry of every walk. */
static int walk_leaves(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end)
{
	walk_fn pte = w->ops->pte, hole = w->ops->hole;
	walk_fn swap = w->ops->swap ? w->ops->swap : hole;
	for (; va != end; ep++, va += PAGE_SIZE) {
		pte_t e = pte_read(ep);
		walk_fn fn = pte_mapped(e) ? pte : pte_is_swap(e) ? swap : hole;
		if (!fn)
			continue;
		w->ep = ep, w->va = va, w->end = va + PAGE_SIZE, w->level = PGL_PT;
		int r = fn(w);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Visit the entries of a level-`level` table that cover [va, end). A walk
 * with no hole callback that allocates nothing passes over absent entries
 * in a tight loop: a teardown of a small process visits a few dozen entries
 * among thousands of empty ones (pgt_destroy took 300 000 cycles per exit
 * calling walk_entry on each). */
static int walk_table(struct walk *w, pte_t *table, int level, vaddr_t va, vaddr_t end)
{
	if (level == PGL_PT)
		return walk_leaves(w, &table[pgl_index(va, PGL_PT)], va, end);
	uint64_t size = pgl_entry_size(level);
	bool holes = w->ops->hole || w->alloc;
	do {
		vaddr_t next = (va | (size - 1)) + 1;   /* 0 past the top */
		if (next - 1 >= end - 1)
			next = end;
		pte_t *ep = &table[pgl_index(va, level)];
		int r = holes || pte_mapped(pte_read(ep)) ? walk_entry(w, ep, level, va, next) : 0;
		if (r < 0)
			return r;
		va = next;
	} while (va != end);
	return 0;
}

int walk_range(struct walk *w, vaddr_t start, vaddr_t end)
{
	if (start == end)
		return 0;
	if (!IS_ALIGNED(start | end, PAGE_SIZE) || end - 1 < start ||
	    va_canonical(start) != start || va_canonical(end - 1) != end - 1 ||
	    (start >> 63) != ((end - 1) >> 63))
		panic("walk_range: bad range [%#lx, %#lx)", start, end);
	return walk_table(w, pt_root(w->pgt), PGL_PML4, start, end);
}

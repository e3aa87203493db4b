/* mm/pt/walk.h -- the one generic page-range walker.
 *
 * Every piece of code that visits page-table entries over a range (map,
 * unmap, protect, lookup, teardown, RSS, later fork, madvise, reclaim and the
 * checkers) describes WHAT to do per entry in a walk_ops and lets
 * walk_range() do the 4-level descent:
 *
 *   walk_range(w, start, end)
 *     PML4 entry --present--> pml4e(pre) --> PDPT table
 *        |                                     PDPT entry --> pdpte --> PD table
 *        +--absent--> hole (or, with w->alloc,    PD entry --> pde --> PT table
 *                     allocate the next table)        PT entry --> pte
 *     after a table's entries: table_done(entry pointing at it)
 *
 * Each callback gets the walk, whose cursor names the entry (w->ep), the
 * part [w->va, w->end) of the walked range that the entry covers, and the
 * entry's level (w->level, PGL_PML4..PGL_PT). It returns 0
 * to go on, WALK_SKIP (pre-callbacks of table entries) to not descend into
 * that table, or a negative errno to stop the walk, which walk_range returns.
 * "Present" here includes PROT_NONE leaves (pte_mapped): they map a frame.
 * A PT entry holding a swap entry (a page out on swap, arch/x86_64/pte.h)
 * gets ops->swap; a walk without one sees it as a hole -- which is right
 * only for walks that look at frames, so every walk that copies, moves or
 * drops entries has one.
 * A present entry that is a leaf (a PT entry, or PS at PD/PDPT level) gets
 * its level's callback and no descent; so does any present entry at
 * w->leaf_level. A PDPT or PD entry leading to a table shared with other
 * address spaces (write-protected for sharing: pt_needs_unshare) gets,
 * after its level's callback and before the descent, ops->shared: the
 * caller decides -- a walk that changes leaves makes the table private
 * (walk_unshare, mm/pt/share.h: PD page first, then PT page, on the way
 * down), a read-only walk has none and descends as it is. It may return
 * WALK_SKIP. The walker itself never changes table structure but to
 * allocate missing tables (w->alloc).
 */
#ifndef MM_WALK_H
#define MM_WALK_H

#include "arch/x86_64/pte.h"

struct walk;
struct pagetable;
typedef int (*walk_fn)(struct walk *w);

#define WALK_SKIP 1

struct walk_ops {
	walk_fn pml4e, pdpte, pde, pte;  /* present entries, per level */
	walk_fn hole;                    /* absent entries, any level */
	walk_fn swap;                    /* PT entries holding a swap entry
					    (pte_is_swap); NULL: visited as holes */
	walk_fn table_done;              /* after descending through ep */
	walk_fn shared;                  /* before descending into a shared table */
	bool lock_leaves;                /* hold each PT page's lock (mm/pt/ptpage.h)
					    while its entries are visited; its
					    callbacks must not allocate */
};

struct walk {
	const struct walk_ops *ops;
	struct pagetable *pgt;
	void *arg;         /* the caller's state */
	bool alloc;        /* allocate missing tables above leaf_level */
	int leaf_level;    /* lowest level visited; 0 means PGL_PT */
	/* the cursor, set by walk_range before each callback */
	pte_t *ep;         /* the entry visited */
	vaddr_t va, end;   /* the part of the range it covers */
	int level;         /* its level */
};

/* Walk [start, end) of w->pgt (page aligned, canonical, within one half of
 * the address space -- else a panic; end 0 means the top of the address
 * space). Returns 0, a negative
 * callback result, or -ENOMEM if a table could not be allocated. */
int walk_range(struct walk *w, vaddr_t start, vaddr_t end);

#endif

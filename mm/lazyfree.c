/* mm/lazyfree.c -- MADV_FREE marking and the lazy-free list (see
 * mm/lazyfree.h; reclaim, which consumes the list, is mm/reclaim.c). */
#include "mm/lazyfree.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/pt/share.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"

/* ---- marking: one walk over the range ---- */

/* Where the marking stands in the PT page it visits. */
enum mark_state {
	MARK_LOOK,      /* no markable entry seen yet: record not looked up */
	MARK_REC,       /* lazyfree_lock held, a->rec is the PT page's record */
	MARK_SKIP,      /* nothing to do in this PT page */
};

struct mark_arg {
	struct tlb_batch b;
	struct list spare;        /* records allocated before the walk */
	uint32_t call;            /* this call's stamp on the records it marks */
	bool second;              /* the second pass: PT pages the first skipped */
	uint64_t missing;         /* PT pages left alone for want of a record */
	enum mark_state state;
	struct lazyfree_rec *rec;
};

/* A PD entry (or PDPT entry): a PT page (PD page) shared by several
 * address spaces is skipped. Its frames are mapped more than once, so
 * after unsharing (the general rule for leaf writes: mark_ops.shared is
 * walk_unshare) none of them could be marked anyway -- skipping
 * gives the same result without copying the PT page. */
static int mark_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return 0;                       /* a 2 MiB page: never user anon */
	((struct mark_arg *)w->arg)->state = MARK_LOOK;
	return ptpage_shared(pa_to_page(pte_addr(e))) ? WALK_SKIP : 0;
}

/* After a PT page's entries: let the list go. */
static int mark_table_done(struct walk *w)
{
	struct mark_arg *a = w->arg;
	if (w->level == PGL_PD && a->state == MARK_REC)
		spin_unlock(&lazyfree_lock);
	a->state = MARK_LOOK;
	return 0;
}

/* The anonymous frame entry e maps if MADV_FREE may mark it (mapped
 * once), else NULL. */
static struct page *markable(pte_t e)
{
	struct page *pg = pa_to_page(pte_addr(e));
	if (!pg || pg->type != PG_ANON || pte_file(e) || pg->refcount != 1)
		return NULL;
	return pg;
}

/* The first markable entry of a PT page: take the list lock (held until
 * mark_table_done) and find the PT page's record, moved to the young end,
 * or give it a spare. MARK_SKIP if there is none, and in the second pass
 * if this call marked the PT page in its first. (A record this call did
 * not mark may have come meanwhile from another thread's MADV_FREE:
 * madvise runs under the address-space lock for reading.) */
static void mark_look(struct mark_arg *a, struct walk *w)
{
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = lazyfree_rec_find(w->pgt, w->va);
	if (r && !(a->second && r->call == a->call)) {
		list_del(&r->link);
		list_add_tail(&lazyfree_list, &r->link);
	} else if (!r && !list_empty(&a->spare)) {
		r = list_entry(a->spare.next, struct lazyfree_rec, link);
		list_del(&r->link);
		lazyfree_rec_add(r, w->pgt, w->va);
	} else {
		a->missing += !r;       /* no record: leave the PT page alone */
		spin_unlock(&lazyfree_lock);
		a->state = MARK_SKIP;
		return;
	}
	r->call = a->call;
	a->rec = r;
	a->state = MARK_REC;
}

/* A present PTE: mark it lazy-free and clean if its frame is anonymous and
 * mapped once. */
static int mark_pte(struct walk *w)
{
	struct mark_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (a->state == MARK_SKIP || !markable(e))
		return 0;
	if (a->state == MARK_LOOK)
		mark_look(a, w);
	if (a->state != MARK_REC)
		return 0;
	bool counted = !lazyfree_rec_set(a->rec, lazyfree_rec_index(w->va));
	lazyfree_stats.marked++;
	/* Counted, LAZYFREE and still clean: not written since the MADV_FREE
	 * that cleaned it and flushed, so no TLB caches it dirty (only a walk
	 * that sets D in the entry makes such a TLB entry): nothing to do. */
	if (counted && pte_lazyfree(e) && !pte_dirty(e))
		return 0;
	/* Cleared atomically: a D the MMU of another CPU sets meanwhile is
	 * either in the old value (and then flushed) or set again later. A
	 * TLB may cache D=1 only if the entry had it: then flush, else a write
	 * through that cached D=1 would not set D again, and reclaim would
	 * drop a written page. */
	if (pte_dirty(pt_leaf_mklazyfree(w->pgt, w->va, w->ep)))
		tlb_changed(&a->b, w->va);
	return 0;
}

static const struct walk_ops mark_ops = {
	.pdpte = mark_pde, .pde = mark_pde, .pte = mark_pte,
	.table_done = mark_table_done, .lock_leaves = true,
	.shared = walk_unshare,
};

/* Allocate up to n records onto *spare (fewer if kmalloc fails), before
 * the second pass: the first found their PT pages without one, and the
 * lazyfree_lock it holds across a PT page is no place to allocate. */
static void alloc_spares(struct list *spare, uint64_t n)
{
	for (; n; n--) {
		struct lazyfree_rec *r = kmalloc(sizeof(*r));
		if (!r)
			return;
		list_add(spare, &r->link);
	}
}

/* One marking pass over [start, end) in a TLB batch of its own. */
static void mark_pass(struct mark_arg *a, struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	struct walk w = { .ops = &mark_ops, .pgt = pgt, .arg = a };
	a->missing = 0;
	a->state = MARK_LOOK;
	tlb_begin(&a->b, pgt);
	walk_range(&w, start, end);
	uint64_t t0 = phase_begin();
	tlb_end(&a->b);
	phase_end(PH_LAZYFREE_FLUSH, t0);
}

/* The first pass marks the pages of PT pages that have a record already
 * (memory given back again and again: one walk, nothing allocated); if
 * some PT pages had none, their records are allocated outside any batch
 * and a second pass marks those. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	uint64_t t0 = phase_begin();
	static uint32_t calls;
	struct mark_arg a = { .call = atomic_add_return(&calls, 1) };
	list_init(&a.spare);
	mark_pass(&a, pgt, start, end);
	if (a.missing) {
		alloc_spares(&a.spare, a.missing);
		a.second = true;
		mark_pass(&a, pgt, start, end);
	}
	while (!list_empty(&a.spare)) {
		struct list *it = a.spare.next;
		list_del(it);
		kfree(list_entry(it, struct lazyfree_rec, link));
	}
	phase_end(PH_LAZYFREE, t0);
}


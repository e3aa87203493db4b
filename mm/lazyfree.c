/* mm/lazyfree.c -- MADV_FREE marking and the lazy-free list (see
 * mm/lazyfree.h; reclaim, which consumes the list, is mm/reclaim.c). */
#include "mm/lazyfree.h"
#include "mm/kmalloc.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/tlb.h"
#include "mm/walk.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"

struct lazyfree_stats lazyfree_stats;
struct list lazyfree_list = { &lazyfree_list, &lazyfree_list };
struct spinlock lazyfree_lock = SPINLOCK_INIT("lazyfree", LOCK_RANK_LAZYFREE);

/* Is r the record of the mapping (pgt, va)? */
static bool rec_is(const struct lazyfree_rec *r, const struct pagetable *pgt, vaddr_t va)
{
	return r && r->pgt == pgt && r->va == va;
}

void lazyfree_drop(struct lazyfree_rec *r)
{
	list_del(&r->link);
	r->pg->lazy = NULL;
	lazyfree_stats.pages--;
	kfree(r);
}

void lazyfree_forget_entry(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	struct page *pg = pa_to_page(pte_addr(e));
	/* Without the list lock first: the caller holds the lock of the PT
	 * page mapping pg (mapped there once), so nobody else sets pg->lazy
	 * meanwhile (reclaim, which clears it, needs that lock too). */
	if (!pg || pg->type != PG_ANON || !__atomic_load_n(&pg->lazy, __ATOMIC_RELAXED))
		return;
	spin_lock(&lazyfree_lock);
	if (rec_is(pg->lazy, pgt, va)) {
		lazyfree_drop(pg->lazy);
		lazyfree_stats.forgotten++;
	}
	spin_unlock(&lazyfree_lock);
}

void lazyfree_forget_table(struct pagetable *pgt, struct page *pt, vaddr_t va)
{
	if (!lazyfree_stats.pages)
		return;
	pte_t *entries = ptpage_entries(pt);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		if (pte_mapped(entries[i]))
			lazyfree_forget(pgt, va + (vaddr_t)i * PAGE_SIZE, pte_read(&entries[i]));
}

void lazyfree_forget_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	if (!__atomic_load_n(&lazyfree_stats.pages, __ATOMIC_RELAXED))
		return;
	spin_lock(&lazyfree_lock);
	struct list *it = lazyfree_list.next;
	while (it != &lazyfree_list) {
		struct lazyfree_rec *r = list_entry(it, struct lazyfree_rec, link);
		it = it->next;
		if (r->pgt == pgt && r->va >= start && r->va - start < end - start) {
			lazyfree_drop(r);
			lazyfree_stats.forgotten++;
		}
	}
	spin_unlock(&lazyfree_lock);
}

/* ---- marking: one walk over the range ---- */

struct mark_arg {
	struct tlb_batch b;
	struct list spare;        /* records allocated before the walk */
	bool only_new;            /* the second pass: pages without a record */
	uint64_t missing;         /* pages left alone for want of a record */
};

/* A PD entry (or PDPT entry): a PT page (PD page) shared by several
 * address spaces is skipped. Its
 * frames are mapped more than once, so after unsharing (the general rule
 * for leaf writes, which the walker applies with w->write) none of them
 * could be marked anyway -- skipping gives the same result without copying
 * the PT page. */
static int mark_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return 0;                       /* a 2 MiB page: never user anon */
	return pa_to_page(pte_addr(e))->pt.share > 1 ? WALK_SKIP : 0;
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

/* Give pg (mapped once, by w's entry) its record at the young end of the
 * list: the one it has, or a spare. False if it is left alone (no spare,
 * or the second pass and it has one). Called with lazyfree_lock held. */
static bool note_record(struct mark_arg *a, struct walk *w, struct page *pg)
{
	struct lazyfree_rec *r = pg->lazy;
	if (r && !rec_is(r, w->pgt, w->va))
		panic("lazyfree: frame %#lx mapped once at %#lx has the record of %#lx",
		      page_to_pa(pg), w->va, r->va);
	if (r && a->only_new)
		return false;                       /* marked by the first pass */
	if (r) {
		list_del(&r->link);
	} else {
		if (list_empty(&a->spare)) {
			a->missing++;           /* no record: leave the page alone */
			return false;
		}
		r = list_entry(a->spare.next, struct lazyfree_rec, link);
		list_del(&r->link);
		*r = (struct lazyfree_rec){ .pgt = w->pgt, .va = w->va, .pg = pg };
		pg->lazy = r;
		lazyfree_stats.pages++;
	}
	list_add_tail(&lazyfree_list, &r->link);
	lazyfree_stats.marked++;
	return true;
}

/* A present PTE: mark it lazy-free and clean if its frame is anonymous and
 * mapped once; a page already lazy-free moves to the young end. */
static int mark_pte(struct walk *w)
{
	struct mark_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = markable(e);
	if (!pg)
		return 0;
	spin_lock(&lazyfree_lock);
	bool marked = note_record(a, w, pg);
	spin_unlock(&lazyfree_lock);
	if (!marked)
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

static const struct walk_ops mark_ops = { .pdpte = mark_pde, .pde = mark_pde, .pte = mark_pte,
					   .lock_leaves = true };

/* Allocate up to n records onto *spare (fewer if kmalloc fails). Done
 * before the walk so that allocation (and the reclaim it may run) never
 * happens in the middle of a TLB batch. */
static void alloc_spares(struct list *spare, uint64_t n)
{
	list_init(spare);
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
	struct walk w = { .ops = &mark_ops, .pgt = pgt, .arg = a, .write = true };
	a->missing = 0;
	tlb_begin(&a->b, pgt);
	walk_range(&w, start, end);
	tlb_end(&a->b);
}

/* The first pass marks the pages that have a record already (a page given
 * back again and again: one walk, nothing allocated); if some had none,
 * records for them are allocated outside any batch and a second pass marks
 * those. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	struct mark_arg a = { .only_new = false };
	list_init(&a.spare);
	mark_pass(&a, pgt, start, end);
	if (a.missing) {
		alloc_spares(&a.spare, a.missing);
		a.only_new = true;
		mark_pass(&a, pgt, start, end);
	}
	while (!list_empty(&a.spare)) {
		struct list *it = a.spare.next;
		list_del(it);
		kfree(list_entry(it, struct lazyfree_rec, link));
	}
}

uint64_t lazyfree_count(const struct pagetable *pgt)
{
	uint64_t n = 0;
	spin_lock(&lazyfree_lock);
	list_for_each(it, &lazyfree_list)
		n += list_entry(it, struct lazyfree_rec, link)->pgt == pgt;
	spin_unlock(&lazyfree_lock);
	return n;
}

/* ---- the invariant ---- */

static int check_pte(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	pte_t e = pte_read(w->ep);
	if (pte_addr(e) != page_to_pa(r->pg) || !pte_lazyfree(e))
		page_bug(r->pg, "lazyfree_check: record's entry maps another frame or "
			 "is not LAZYFREE", NULL);
	return 0;
}

static int check_hole(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	page_bug(r->pg, "lazyfree_check: record of an unmapped address", NULL);
}

static const struct walk_ops check_ops = { .pte = check_pte, .hole = check_hole };

uint64_t lazyfree_check(void)
{
	uint64_t n = 0;
	spin_lock(&lazyfree_lock);
	list_for_each(it, &lazyfree_list) {
		struct lazyfree_rec *r = list_entry(it, struct lazyfree_rec, link);
		if (r->pg->type != PG_ANON || r->pg->lazy != r)
			page_bug(r->pg, "lazyfree_check: record and frame disagree", NULL);
		struct walk w = { .ops = &check_ops, .pgt = r->pgt, .arg = r };
		walk_range(&w, r->va, r->va + PAGE_SIZE);
		n++;
	}
	if (n != lazyfree_stats.pages)
		panic("lazyfree_check: %lu records on the list, counter says %lu",
		      n, lazyfree_stats.pages);
	spin_unlock(&lazyfree_lock);
	return n;
}

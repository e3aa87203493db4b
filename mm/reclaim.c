/* mm/reclaim.c -- the reclaimer of lazy-free pages (see mm/reclaim.h). */
#include "mm/reclaim.h"
#include "mm/lazyfree.h"
#include "mm/page.h"
#include "mm/ptpage.h"
#include "mm/tlb.h"
#include "mm/walk.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/shootdown.h"

#define WATERMARK_LOW_DIV 64    /* low watermark: 1/64 of RAM */
#define WATERMARK_HIGH_MUL 2    /* high watermark: twice the low one */

struct reclaim_stats reclaim_stats;
uint64_t reclaim_low, reclaim_high;

/* Each CPU's reclaimer state: the TLB batch is static, since reclaim runs
 * deep inside the allocator (a page fault's walk) where kernel stack is
 * scarce; one per CPU, because several CPUs may reclaim at once. */
struct reclaimer {
	struct tlb_batch batch;
	bool busy;                /* no re-entry through the allocator */
	struct lazyfree_rec *rec; /* the record being looked at */
	struct page *locked;      /* the PT page whose lock it holds, or NULL */
};
static struct reclaimer reclaimers[MAX_CPUS];

/* A lazy-free page written since MADV_FREE (or mapped again): normal
 * memory again. Only the software bit changes: no flush. */
static void keep(struct walk *w)
{
	pt_leaf_clear_lazyfree(w->pgt, w->va, w->ep);
	lazyfree_stats.reused++;
}

/* One entry of the record's PT page: if the record names it, discard its
 * page or give it back to normal memory. The bit goes first (so the entry
 * writers' lazyfree_forget has nothing to do). The entry is cleared
 * atomically, so a write on another CPU either set D before (it is in the
 * old value: the page goes back, a write cancels the free) or comes after
 * and faults (a clean TLB entry cannot be written without the MMU setting
 * D in the entry, which is gone). The frame is freed only after the batch
 * flushed every CPU that may still read it. */
static int reclaim_pte(struct walk *w)
{
	struct reclaimer *me = w->arg;
	if (!lazyfree_rec_clear(me->rec, pgl_index(w->va, PGL_PT)))
		return 0;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e)), *pt = ptpage_of(w->ep);
	if (!pg || pg->type != PG_ANON || !pte_lazyfree(e))
		page_bug(pg, "reclaim: lazy-free record does not match its entry", NULL);
	if (pt->pt.share != 1)
		page_bug(pt, "reclaim: leaf write into a shared PT page", NULL);
	reclaim_stats.scans++;
	if (pte_dirty(e) || pg->refcount != 1) {
		keep(w);
		return 0;
	}
	pte_t old = pt_get_and_clear(w->pgt, w->va, w->ep, w->level);
	if (pte_dirty(old)) {   /* written between the look and the clear */
		pt_set_leaf(w->pgt, w->va, w->ep, w->level, pte_clear_lazyfree(old));
		lazyfree_stats.reused++;
		return 0;
	}
	tlb_defer_put(&me->batch, w->va, pg);
	lazyfree_stats.discarded++;
	return 0;
}

/* An absent entry: the record must not name a page in it. */
static int reclaim_hole(struct walk *w)
{
	struct reclaimer *me = w->arg;
	for (vaddr_t va = w->va; va < w->end; va += PAGE_SIZE)
		if (lazyfree_rec_clear(me->rec, pgl_index(va, PGL_PT)))
			panic("reclaim: lazy-free record of the unmapped %#lx", va);
	return 0;
}

/* The record's PT page (or the PD page above it) is shared by several
 * address spaces: its frames are mapped more than once, so they are kept;
 * the shared table cannot be written, so only the record goes (its
 * LAZYFREE bits then mean nothing). */
static int reclaim_pdpte(struct walk *w)
{
	struct reclaimer *me = w->arg;
	struct page *t = pa_to_page(pte_addr(pte_read(w->ep)));
	if (ptpage_shared(t)) {
		lazyfree_stats.reused += me->rec->npages;
		lazyfree_drop(me->rec);
		me->rec = NULL;
		return WALK_SKIP;
	}
	return 0;
}

/* A PD entry: as a PDPT entry, and a private PT page is locked for its
 * leaves (reclaim_table_done unlocks it). */
static int reclaim_pde(struct walk *w)
{
	struct reclaimer *me = w->arg;
	struct page *pt = pa_to_page(pte_addr(pte_read(w->ep)));
	if (reclaim_pdpte(w))
		return WALK_SKIP;
	/* The PT lock ranks below the list lock held here: only a try. A PT
	 * page busy on another CPU (a fault, an unmap) is left for later. */
	if (!spin_trylock(pt_lock(pt)))
		return WALK_SKIP;
	me->locked = pt;
	return 0;
}

/* After the record's PT page: unlock it. A PT page reclaim emptied stays
 * linked (freed at munmap or exit): reclaim never changes table structure,
 * so no walk of the owner's (a fault's look-up, /proc) finds a table freed
 * under it (mm/ptpage.h, "Table structure"). */
static int reclaim_table_done(struct walk *w)
{
	struct reclaimer *me = w->arg;
	if (w->level != PGL_PD || !me->locked)
		return 0;
	spin_unlock(pt_lock(me->locked));
	me->locked = NULL;
	return 0;
}

static const struct walk_ops reclaim_ops = {
	.pdpte = reclaim_pdpte, .pde = reclaim_pde, .pte = reclaim_pte, .hole = reclaim_hole,
	.table_done = reclaim_table_done,
};

/* Look at the oldest record (lazyfree_lock held): discard or keep every
 * page it names; if its PT page is busy, move it to the young end. */
static void reclaim_oldest(struct reclaimer *me)
{
	struct lazyfree_rec *r = list_entry(lazyfree_list.next, struct lazyfree_rec, link);
	struct tlb_batch *batch = &me->batch;
	if (batch->pgt != r->pgt) {      /* one batch per address space */
		if (batch->pgt)
			tlb_end(batch);
		tlb_begin(batch, r->pgt);
	}
	/* no write flag: reclaim never unshares, and never gives a
	 * write-protected PD entry its W bit back (fork may be between
	 * write-protecting it and sharing the PT page) */
	me->rec = r;
	me->locked = NULL;
	struct walk w = { .ops = &reclaim_ops, .pgt = r->pgt, .arg = me };
	walk_range(&w, r->va, r->va + LARGE_PAGE_SIZE);
	if (!me->rec)                    /* dropped: its tables are shared */
		return;
	if (!r->npages) {
		lazyfree_drop(r);
	} else {                         /* its PT page was busy: later */
		list_del(&r->link);
		list_add_tail(&lazyfree_list, &r->link);
	}
}

uint64_t reclaim_lazyfree(uint64_t want)
{
	struct reclaimer *me = &reclaimers[smp_cpu_id()];
	if (me->busy || list_empty(&lazyfree_list))
		return 0;
	me->busy = true;
	spin_lock(&lazyfree_lock);
	reclaim_stats.runs++;
	uint64_t free0 = mm_stats.free, discarded0 = lazyfree_stats.discarded;
	uint64_t budget = lazyfree_stats.records;   /* each record looked at once */
	me->batch.pgt = NULL;
	for (; budget && !list_empty(&lazyfree_list) &&
	       lazyfree_stats.discarded - discarded0 < want; budget--)
		reclaim_oldest(me);
	if (me->batch.pgt)
		tlb_end(&me->batch);
	spin_unlock(&lazyfree_lock);
	me->busy = false;
	return mm_stats.free - free0;
}

/* page_reclaim_hook: below the low watermark refill to the high one; on a
 * failed allocation, at least the block asked for. */
static uint64_t reclaim_for_alloc(unsigned order, bool failed)
{
	uint64_t need = 1UL << order;
	if (!failed && mm_stats.free >= reclaim_low + need)
		return 0;
	uint64_t target = reclaim_high + need;
	return reclaim_lazyfree(target > mm_stats.free ? target - mm_stats.free : need);
}

void reclaim_init(void)
{
	reclaim_low = mm_stats.managed / WATERMARK_LOW_DIV;
	reclaim_high = reclaim_low * WATERMARK_HIGH_MUL;
	page_reclaim_hook = reclaim_for_alloc;
}

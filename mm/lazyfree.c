/* mm/lazyfree.c -- MADV_FREE's marking and the discard of lazy-free pages
 * (see mm/lazyfree.h). */
#include "mm/lazyfree.h"
#include "mm/anon_rmap.h"
#include "mm/as.h"
#include "mm/reclaim.h"
#include "mm/swap.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
#include "mm/frame/phasetime.h"
#include "mm/frame/swap.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/pt/share.h"
#include "lib/atomic.h"
#include "arch/x86_64/memlayout.h"

struct lazyfree_stats lazyfree_stats;

/* ---- marking: one walk over the range ---- */

/* A PD entry (or PDPT entry): a PT page (PD page) shared by several
 * address spaces is skipped. Its frames are mapped more than once, so
 * after unsharing (the general rule for leaf writes: mark_ops.shared is
 * walk_unshare) none of them could be marked anyway -- skipping gives the
 * same result without copying the PT page. */
static int mark_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return 0;                       /* a 2 MiB page: never user anon */
	return ptpage_shared(pa_to_page(pte_addr(e))) ? WALK_SKIP : 0;
}

/* The anonymous frame entry e maps if MADV_FREE may make it lazy-free:
 * on a list, mapped once, not held by the reclaimer, and out of the swap
 * cache (its slot's copy would be stale once the page is written again,
 * and a lazy-free page is never written out); else NULL. */
static struct page *markable(pte_t e)
{
	struct page *pg = pa_to_page(pte_addr(e));
	if (!pte_present(e) || !pg || pg->type != PG_ANON || pte_file(e))
		return NULL;
	uint32_t refs = atomic_load(&pg->refcount);
	uint16_t f = atomic_load(&pg->aflags);
	if (!(f & AF_LRU) || (f & AF_RECLAIM) || refs != 1 + anon_unmapped_refs(pg))
		return NULL;
	if (page_in_swap_cache(pg) && !swap_cache_drop_unnamed(pg))
		return NULL;
	return pg;
}

#define MARK_BATCH 64   /* pages moved to the lazy list under one lock */

struct mark_arg {
	struct tlb_batch b;
	unsigned n, marked;
	struct page *pages[MARK_BATCH];   /* to move, each with a reference */
};

/* The pages noted: to the young end of the lazy list under one lock
 * (lru_move_all), then their references dropped (a page unmapped
 * meanwhile is freed here, and leaves the list). */
static void mark_flush(struct mark_arg *a)
{
	lru_move_all(a->pages, a->n, LRU_LAZY, AT_TAIL);
	for (unsigned i = 0; i < a->n; i++)
		page_put(a->pages[i]);
	a->n = 0;
}

/* A present PTE of a page MADV_FREE may take: clean, and noted for the
 * young end of the lazy list unless it is on it already (given up again
 * before reclaim came: only its entry is cleaned, as Linux leaves a
 * lazy-free folio where it is). The reference taken keeps the page until
 * the move, which may come after the PT lock is let go. */
static int mark_pte(struct walk *w)
{
	struct mark_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = markable(e);
	if (!pg)
		return 0;
	a->marked++;
	bool listed = atomic_load(&pg->aflags) & AF_LAZYFREE;
	if (listed && !pte_dirty(e))
		return 0;   /* clean since it was given up: no TLB caches it dirty */
	/* Cleared atomically: a D the MMU of another CPU sets meanwhile is
	 * either in the old value (and then flushed) or set again later. A
	 * TLB may cache D=1 only if the entry had it: then flush, else a write
	 * through that cached D=1 would not set D again, and reclaim would
	 * drop a written page. */
	if (pte_dirty(pt_leaf_mkclean(w->pgt, w->va, w->ep)))
		tlb_changed(&a->b, w->va);
	if (listed)
		return 0;
	page_get(pg);
	a->pages[a->n++] = pg;
	if (a->n == MARK_BATCH)
		mark_flush(a);   /* (under the PT lock: each page still mapped, no put is the last) */
	return 0;
}

/* After a PT page (its lock let go): move what is noted. */
static int mark_table_done(struct walk *w)
{
	if (w->level == PGL_PD)
		mark_flush(w->arg);
	return 0;
}

static const struct walk_ops mark_ops = {
	.pdpte = mark_pde, .pde = mark_pde, .pte = mark_pte, .table_done = mark_table_done,
	.lock_leaves = true, .shared = walk_unshare,
};

void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	uint64_t t0 = phase_begin();
	struct mark_arg a = { .n = 0, .marked = 0 };
	struct walk w = { .ops = &mark_ops, .pgt = pgt, .arg = &a };
	tlb_begin(&a.b, pgt);
	walk_range(&w, start, end);
	mark_flush(&a);   /* (a walk stopped early) */
	stat_add(&lazyfree_stats.marked, a.marked);
	uint64_t t1 = phase_begin();
	tlb_end(&a.b);
	phase_end(PH_LAZYFREE_FLUSH, t1);
	phase_end(PH_LAZYFREE, t0);
}

/* ---- reclaim: the lazy list, oldest first ---- */

/* What the walk of a page's mappings found. */
struct discard_walk {
	unsigned done;      /* entries cleared */
	unsigned kept;      /* entries written since MADV_FREE, or reaching a page
			       another address space or the kernel reaches too */
};

static void discard_step(struct addrspace *as, vaddr_t va, struct page *pg, void *arg)
{
	struct discard_walk *dw = arg;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	enum page_out_result r = pgt_page_out(&b, va, pg, PAGE_OUT_DISCARD, 0);
	tlb_end(&b);     /* the cleared entry's reference goes after the flush */
	dw->done += r == PAGE_OUT_DONE;
	dw->kept += r == PAGE_OUT_DIRTY || r == PAGE_OUT_SHARED;
}

bool lazyfree_discard(struct page *pg)
{
	struct discard_walk dw = { 0, 0 };
	stat_inc(&lazyfree_stats.scanned);
	unsigned busy = anon_rmap_walk(pg, discard_step, &dw);
	if (dw.kept || (!dw.done && !busy)) {
		lru_move(pg, swap_new_page_list(), AT_TAIL);   /* as a new page */
		stat_inc(&lazyfree_stats.reused);
	} else if (dw.done) {
		stat_inc(&lazyfree_stats.discarded);
	}
	page_let_go(pg);
	return dw.done && !dw.kept;
}

uint64_t lazyfree_reclaim(uint64_t want)
{
	uint64_t freed = 0;
	for (uint64_t budget = lru_pages(LRU_LAZY); budget && freed < want; budget--) {
		struct page *pg = lru_take(LRU_LAZY);
		if (!pg)
			break;
		freed += lazyfree_discard(pg);
	}
	return freed;
}

static uint64_t lazyfree_count(void)
{
	return lru_pages(LRU_LAZY);
}

static struct shrinker lazyfree_shrinker = {
	.name = "lazyfree", .count = lazyfree_count, .scan = lazyfree_reclaim,
	.flags = SHRINKER_FIRST | SHRINKER_UNLOCKED,
};

void lazyfree_init(void)
{
	reclaim_add_shrinker(&lazyfree_shrinker);
}

/* mm/reclaim.c -- the reclaimer of lazy-free pages (see mm/reclaim.h). */
#include "mm/reclaim.h"
#include "mm/pagecache.h"
#include "mm/pt/lazyfree_rec.h"
#include "mm/frame/page.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/shootdown.h"

#define WATERMARK_LOW_DIV 64    /* low watermark: 1/64 of RAM */
#define WATERMARK_HIGH_MUL 2    /* high watermark: twice the low one */

struct reclaim_stats reclaim_stats;
uint64_t reclaim_min, reclaim_low, reclaim_high;

/* Each CPU's reclaimer state, one per CPU because several CPUs may
 * reclaim at once (the reclaimer thread, and direct reclaim on others). */
struct reclaimer {
	struct tlb_batch batch;
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
 * under it (mm/pt/ptpage.h, "Table structure"). */
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
	/* no .shared: reclaim never unshares, and never gives a
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
	if (list_empty(&lazyfree_list))
		return 0;
	spin_lock(&lazyfree_lock);   /* interrupts off: this CPU's state is ours */
	struct reclaimer *me = &reclaimers[smp_cpu_id()];
	reclaim_stats.runs++;
	uint64_t discarded0 = lazyfree_stats.discarded;
	uint64_t budget = lazyfree_stats.records;   /* each record looked at once */
	me->batch.pgt = NULL;
	for (; budget && !list_empty(&lazyfree_list) &&
	       lazyfree_stats.discarded - discarded0 < want; budget--)
		reclaim_oldest(me);
	if (me->batch.pgt)
		tlb_end(&me->batch);
	uint64_t freed = lazyfree_stats.discarded - discarded0;
	spin_unlock(&lazyfree_lock);
	return freed;
}

/* Frames to reclaim to bring free memory up to `target`. */
static uint64_t short_of(uint64_t target)
{
	uint64_t free = atomic_load(&mm_stats.free);
	return target > free ? target - free : 0;
}

static struct shrinker *shrinkers;   /* written at boot only */

void reclaim_add_shrinker(struct shrinker *s)
{
	for (struct shrinker *t = shrinkers; t; t = t->next)
		if (t == s)
			return;   /* registered already (host tests set the VFS up again) */
	s->next = shrinkers;
	atomic_store(&shrinkers, s);
}

/* Objects the shrinkers could free. */
static uint64_t shrinkable(void)
{
	uint64_t n = 0;
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next)
		n += s->count();
	return n;
}

/* Pages reclaim could take: lazy-free records, clean cached pages,
 * objects of the shrinkers, anonymous pages when swap has room. */
static bool reclaimable(void)
{
	return atomic_load(&lazyfree_stats.records) ||
	       atomic_load(&pagecache_stats.pages) > atomic_load(&pagecache_stats.dirty) ||
	       shrinkable();
}

/* Who reclaims: the reclaimer thread, or a task that needs memory now
 * (which may hold its address space's lock: SHRINKER_BACKGROUND ones are
 * not its to run). */
enum reclaimer_kind { RECLAIM_BY_TASK, RECLAIM_BY_THREAD };

uint64_t reclaim_background_pending(void)
{
	uint64_t n = 0;
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next)
		if (s->flags & SHRINKER_BACKGROUND)
			n += s->count();
	return n;
}

/* Each shrinker's share of a round that wants `want` frames (see
 * reclaim.h): frames it freed (what free memory grew by meanwhile). */
static uint64_t shrink_caches(uint64_t want, enum reclaimer_kind who)
{
	uint64_t before = atomic_load(&mm_stats.free);
	uint64_t cached = atomic_load(&pagecache_stats.pages);
	for (struct shrinker *s = atomic_load(&shrinkers); s; s = s->next) {
		if (((s->flags & SHRINKER_BACKGROUND) && who != RECLAIM_BY_THREAD) ||
		    (s->flags & SHRINKER_LAST))
			continue;
		uint64_t n = s->count();
		n = n * want / (cached + want) + (n != 0);
		stat_add(&reclaim_stats.shrink_scanned, n);
		(void)s->scan(n);
	}
	uint64_t after = atomic_load(&mm_stats.free);
	return after > before ? after - before : 0;
}

/* Up to want frames back: lazy-free pages first (dropping them costs no
 * I/O ever), then clean page-cache pages, and the shrinkers' share; then,
 * by the reclaimer thread only, what is still wanted from the
 * SHRINKER_LAST ones (anonymous pages out to swap, mm/swap.h). How many. */
static uint64_t reclaim_some(uint64_t want, enum reclaimer_kind who)
{
	uint64_t freed = reclaim_lazyfree(want);
	if (freed < want)
		freed += pagecache_reclaim(want - freed);
	freed += shrink_caches(want, who);
	for (struct shrinker *s = atomic_load(&shrinkers); s && freed < want; s = s->next)
		if ((s->flags & SHRINKER_LAST) && who == RECLAIM_BY_THREAD && s->count())
			freed += s->scan(want - freed);
	return freed;
}

bool reclaim_wanted(void)
{
	return atomic_load(&mm_stats.free) < reclaim_low && reclaimable();
}

uint64_t reclaim_background(void)
{
	uint64_t want = short_of(reclaim_high), freed = 0;
	stat_inc(&reclaim_stats.background_runs);
	if (want)
		freed = reclaim_some(want, RECLAIM_BY_THREAD);
	stat_add(&reclaim_stats.background_discarded, freed);
	return freed;
}

void reclaim_if_low(void)
{
	if (atomic_load(&mm_stats.free) < reclaim_min && reclaimable())
		reclaim_some(short_of(reclaim_low), RECLAIM_BY_TASK);
}

bool reclaim_free_above(uint64_t mark)
{
	return atomic_load(&mm_stats.free) > mark;
}

bool reclaim_direct(void)
{
	uint64_t want = short_of(reclaim_high);
	return reclaim_some(want ? want : 1, RECLAIM_BY_TASK) > 0;
}

void reclaim_init(void)
{
	reclaim_low = mm_stats.managed / WATERMARK_LOW_DIV;
	reclaim_min = reclaim_low / 2;
	reclaim_high = reclaim_low * WATERMARK_HIGH_MUL;
	atomic_store(&mm_stats.reserve, reclaim_min);   /* read-ahead leaves it (PA_NORESERVE) */
}

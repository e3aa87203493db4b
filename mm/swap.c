/* mm/swap.c -- anonymous pages out to swap and back (see mm/swap.h). */
#include "mm/swap.h"
#include "mm/anon_rmap.h"
#include "mm/lazyfree.h"
#include "mm/pagecache.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
#include "mm/frame/swap.h"
#include "mm/reclaim.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"

struct swap_out_stats swap_out_stats;

bool swap_reclaimable(void)
{
	return lru_pages_all() && swap_space_left();
}

/* ---- page-out ---- */

struct out_walk {
	pte_t swp;          /* 0: only look (age); else the swap entry to put in */
	unsigned mapped;    /* entries found mapping the page */
	unsigned young;     /* of those, accessed since the last look */
};

static void out_step(struct addrspace *as, vaddr_t va, struct page *pg, void *arg)
{
	struct out_walk *ow = arg;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	enum page_out_result r = pgt_page_out(&b, va, pg, ow->swp ? PAGE_OUT_SWAP : PAGE_OUT_AGE,
					       ow->swp);
	tlb_end(&b);
	ow->mapped += r != PAGE_OUT_NOT_MAPPED;
	ow->young += r == PAGE_OUT_YOUNG;
}

/* One walk of pg's mappings with swap entry swp (0: aging only). */
static struct out_walk out_walk(struct page *pg, pte_t swp)
{
	struct out_walk ow = { .swp = swp };
	stat_add(&swap_out_stats.busy, anon_rmap_walk(pg, out_step, &ow));
	return ow;
}

/* ---- the replacement policy: CLOCK-Pro's outline on two lists ----
 *
 * m is the frames anonymous pages have or could take, m_c (cold_target)
 * the share of them for cold pages; the hot hand turns hot pages cold
 * while more than m - m_c are hot. An evicted page's slot notes the count
 * of evictions so far; a page that comes back before as many pages were
 * evicted after it as there are cold pages came back within a cold page's
 * stay in memory -- more cold room would have kept it (CLOCK-Pro: back in
 * its test period) -- so m_c grows by one, and shrinks by one for a page
 * that came back later. (Measured in the hot hand's steps against the hot
 * pages, as first written, the test said "in" for every page back between
 * two runs of the reclaimer, whose hand moves only in runs: m_c grew by a
 * run's worth each time and the hot set wore away -- the loop trace read
 * back 124 942 pages where the simulation reads 68 006. The simulation
 * with a run's worth of evictions at a time, tools/bench/policies.c's
 * twolist, showed it.) The state is shared by every CPU and kept without
 * a lock: a lost update changes a guess, never a list. */
static struct {
	uint32_t evictions;     /* pages evicted so far (wraps) */
	uint64_t cold_target;   /* m_c */
} policy = { 0, 0 };   /* m_c starts at its floor (cold_floor) */

#define NOTE_EVICTED 0x80000000u   /* a slot's note: this bit and the eviction count (31 bits) */

/* m: the frames on the lists and those free above the min watermark.
 * Evicting a page or faulting one in moves a frame between the two, so m
 * stays put while the reclaimer works, as CLOCK-Pro's m is the memory's
 * size (counted with the free frames above the high watermark, m shrank
 * with every eviction of a reclaimer's run, and the hot share with it). */
static uint64_t frames_for_anon(void)
{
	uint64_t free = atomic_load(&mm_stats.free);
	return lru_pages_all() + (free > reclaim_min ? free - reclaim_min : 0);
}

/* The least m_c: two runs' worth of the reclaimer (each frees from below
 * the min watermark to the high one). CLOCK-Pro evicts one page per miss,
 * and each miss brings a cold page; the reclaimer evicts a run's worth at
 * once, and a new cold page needs two looks to go (the first finds its
 * fault's Accessed bit). With fewer cold pages than that, a run emptied
 * the cold list and the hot hand turned hot pages cold to feed it (scan
 * trace: with one run's worth, 5 789 turned cold and 52 444 pages read
 * back; with two, 30 411; the simulation 17 123). */
static uint64_t cold_floor(void)
{
	return 2 * (reclaim_high - reclaim_min);
}

static uint64_t cold_target(void)
{
	uint64_t mc = atomic_load(&policy.cold_target), floor = cold_floor();
	return mc > floor ? mc : floor;
}

/* How the hot pages stand against their share m - m_c: <0 below, 0 at,
 * >0 above. */
static int hot_vs_share(void)
{
	uint64_t m = frames_for_anon(), hot = lru_pages(LRU_HOT) + cold_target();
	return hot < m ? -1 : hot > m;
}

enum lru_list swap_new_page_list(void)
{
	return hot_vs_share() < 0 ? LRU_HOT : LRU_COLD;   /* filling up: hot (LIRS's start) */
}

/* The hot hand, one step: a hot page used since the last step stays (its
 * Accessed bits cleared), one not used turns cold. false if the hot list
 * had none to take. */
static bool hot_hand_step(void)
{
	struct page *pg = lru_take(LRU_HOT);
	if (!pg)
		return false;
	stat_inc(&swap_out_stats.hot_scanned);
	if (!out_walk(pg, 0).young) {
		__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_TEST, __ATOMIC_RELAXED);
		lru_move(pg, LRU_COLD, AT_TAIL);
		stat_inc(&swap_out_stats.deactivated);
	}
	page_let_go(pg);
	return true;
}

/* Before the cold hand: the hot pages back to their share, and a cold
 * page at least while any is hot. Two rounds of the hot list at most. */
static void balance_lists(void)
{
	for (uint64_t n = 2 * lru_pages(LRU_HOT); n; n--) {
		if (hot_vs_share() <= 0 && lru_pages(LRU_COLD))
			return;
		if (!hot_hand_step())
			return;
	}
}

/* A cold page used since the cold hand's last look: hot if it was in its
 * test period, else one starts. A page's first look always finds it used
 * (its own fault's access set the Accessed bit) and so starts its test
 * period: CLOCK-Pro's new cold page, in a test period, not referenced. */
static void cold_page_used(struct page *pg)
{
	if (!(__atomic_fetch_or(&pg->aflags, AF_TEST, __ATOMIC_RELAXED) & AF_TEST))
		return;
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_TEST, __ATOMIC_RELAXED);
	lru_move(pg, LRU_HOT, AT_TAIL);
	stat_inc(&swap_out_stats.activated);
}

/* Page pg leaves memory for its slot: the slot notes the count of
 * evictions. Not for a page read ahead and never used: the note of its
 * own eviction, still in the slot (a swap-in takes it), stays -- noted
 * anew, its use soon after (the read-ahead was for it) counted as a page
 * back within its test period, m_c grew, and the hot set wore away (the
 * scan trace: 3 469 such, where the simulation has none). */
static void note_eviction(const struct page *pg, pte_t slot)
{
	if (pg->aflags & AF_READAHEAD)
		return;
	uint32_t n = __atomic_add_fetch(&policy.evictions, 1, __ATOMIC_RELAXED);
	swap_slot_set_shadow(slot, NOTE_EVICTED | (n & ~NOTE_EVICTED));
}

/* A page came back from slot e (its note taken): back in its test period
 * (fewer evictions since its own than there are cold pages), m_c grows;
 * after it, m_c shrinks. Either way the page starts cold, its test period
 * begun by its first look (cold_page_used). */
static void note_refault(uint32_t note)
{
	if (!(note & NOTE_EVICTED))
		return;
	uint32_t since = (atomic_load(&policy.evictions) - note) & ~NOTE_EVICTED;
	uint64_t mc = cold_target(), m = frames_for_anon();
	stat_inc(&swap_out_stats.refaults);
	if (since < lru_pages(LRU_COLD)) {
		stat_inc(&swap_out_stats.refaults_in_test);
		reclaim_note_cost(SIDE_SWAP, 1);   /* back within the working set */
		atomic_store(&policy.cold_target, mc + 1 < m ? mc + 1 : mc);
	} else {
		atomic_store(&policy.cold_target, mc > cold_floor() ? mc - 1 : mc);
	}
}

/* What page_out did with a page. */
enum out_result {
	OUT_KEEP,     /* stays in memory (used, not mapped yet, no slot, busy) */
	OUT_FREED,    /* out of the cache: free once the caller's reference goes */
	OUT_WRITE,    /* unmapped everywhere, in the cache: to be written */
};

/* Which pages page_out takes. */
enum out_mode {
	OUT_IF_OLD,   /* the reclaimer's: only one no mapping used since the last look */
	OUT_NOW,      /* MADV_PAGEOUT's: used or not */
};

/* Page pg (held: page_hold): unmap it everywhere if no mapping used it
 * since the last look (or anyway: OUT_NOW). */
static enum out_result page_out(struct page *pg, enum out_mode mode)
{
	stat_inc(&swap_out_stats.scanned);
	struct out_walk ow = out_walk(pg, 0);   /* Accessed bits read and cleared */
	if (ow.young && mode == OUT_IF_OLD) {   /* used since the last look: a second chance */
		stat_inc(&swap_out_stats.referenced);
		cold_page_used(pg);
		if (page_in_swap_cache(pg) && swap_mostly_used())
			(void)swap_cache_give_up_slot(pg);
		return OUT_KEEP;
	}
	if (!ow.mapped && !page_in_swap_cache(pg))
		return OUT_KEEP;   /* a new page not mapped yet, or mapped only where we could not look */
	if (page_in_swap_cache(pg) && !(pg->aflags & AF_UPTODATE) && swap_slot_bad(pg->swap)) {
		(void)swap_cache_give_up_slot(pg);   /* its last entry went while we held it */
		return OUT_KEEP;   /* its write failed: it stays, its only copy */
	}
	if (!page_in_swap_cache(pg) && !swap_slot_alloc(pg))
		return OUT_KEEP;   /* no room on any area */
	if (ow.mapped)
		(void)out_walk(pg, pg->swap);
	if (atomic_load(&pg->refcount) != 2 || (pg->aflags & AF_LOCKED))
		return OUT_KEEP;   /* still mapped (used meanwhile, or a busy address space) */
	pte_t slot = pg->swap;
	if (!(pg->aflags & AF_UPTODATE)) {
		note_eviction(pg, slot);
		return OUT_WRITE;
	}
	if (!swap_cache_try_remove(pg))
		return OUT_KEEP;
	note_eviction(pg, slot);
	return OUT_FREED;
}

#define OUT_BATCH 32   /* pages written together: one request when their slots follow */

/* Pages unmapped everywhere, waiting to be written together, and the
 * frames freed so far. */
struct out_batch {
	struct page *pages[OUT_BATCH];
	unsigned n;
	uint64_t freed;
	uint64_t written;   /* pages written (tried), the batches' sum */
};

/* Write the batch (references held), then free what nobody took back
 * meanwhile. */
static void write_batch(struct out_batch *ob)
{
	(void)swap_writepages(ob->pages, ob->n);   /* a failed one stays, its slot bad */
	ob->written += ob->n;
	for (unsigned i = 0; i < ob->n; i++) {
		struct page *pg = ob->pages[i];
		ob->freed += swap_cache_try_remove(pg);
		if (page_in_swap_cache(pg) && !(pg->aflags & AF_UPTODATE))
			(void)swap_cache_give_up_slot(pg);   /* failed, and its mapper went meanwhile */
		page_let_go(pg);
	}
	ob->n = 0;
}

/* Page pg (held) through page_out: into the batch (written when full),
 * freed, or kept. */
static void out_one(struct out_batch *ob, struct page *pg, enum out_mode mode)
{
	enum out_result r = page_out(pg, mode);
	if (r == OUT_WRITE) {
		ob->pages[ob->n++] = pg;   /* our reference goes with it */
		if (ob->n == OUT_BATCH)
			write_batch(ob);
		return;
	}
	ob->freed += r == OUT_FREED;
	page_let_go(pg);
}

uint64_t swap_out(uint64_t want)
{
	struct out_batch ob = { .n = 0 };
	for (uint64_t budget = 2 * lru_pages_all(); ob.freed + ob.n < want && budget; budget--) {
		balance_lists();
		struct page *pg = lru_take(LRU_COLD);   /* held: pages in the batch are passed */
		if (!pg)
			break;
		out_one(&ob, pg, OUT_IF_OLD);
	}
	write_batch(&ob);
	stat_add(&swap_out_stats.stolen, ob.freed);
	reclaim_note_cost(SIDE_SWAP, ob.written);
	return ob.freed;
}

/* The reclaimer's view of swap_out: a shrinker asked last, by the thread. */
static uint64_t swap_out_count(void)
{
	return swap_reclaimable() ? lru_pages_all() : 0;
}

static struct shrinker swap_shrinker = {
	.name = "swap", .count = swap_out_count, .scan = swap_out,
	.flags = SHRINKER_BACKGROUND | SHRINKER_LAST,
};

void swap_init(void)
{
	reclaim_add_shrinker(&swap_shrinker);
}

/* ---- MADV_COLD and MADV_PAGEOUT ---- */

#define ADVISE_BATCH 64   /* pages taken from the tables per walk */

struct advise_scan {
	enum swap_advice how;
	unsigned n;
	struct page *pages[ADVISE_BATCH];
	vaddr_t resume;     /* where the next walk starts when the batch filled */
};

/* A present entry of an anonymous page (a lazy-free one only for PAGEOUT,
 * which discards it; COLD leaves it on the lazy list, taken first anyway):
 * held (page_hold: under the entry's PT lock; one the reclaimer holds
 * already is on its way out), noted; the walk stops when the batch is
 * full. */
static int advise_note(struct walk *w)
{
	struct advise_scan *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (!pte_present(e))
		return 0;
	struct page *pg = pa_to_page(pte_addr(e));
	bool lazy_kept = (pg && (pg->aflags & AF_LAZYFREE)) && a->how == SWAP_ADVISE_COLD;
	if (!pg || pg->type != PG_ANON || lazy_kept || !page_hold(pg))
		return 0;
	a->pages[a->n++] = pg;
	a->resume = w->va + PAGE_SIZE;
	return a->n == ADVISE_BATCH ? -EAGAIN : 0;
}

static const struct walk_ops advise_ops = { .pte = advise_note, .lock_leaves = true };

/* One page (held) of the range: COLD ages it and puts it next under the
 * cold hand; PAGEOUT discards a lazy-free one still clean (as reclaim
 * would: no swap needed, Linux's reclaim_pages) and swaps any other out
 * now if there is room on swap. */
static void advise_one(struct out_batch *ob, struct page *pg, enum swap_advice how)
{
	if (pg->aflags & AF_LAZYFREE) {
		ob->freed += lazyfree_discard(pg);
		return;
	}
	if (how == SWAP_ADVISE_PAGEOUT && swap_space_left()) {
		out_one(ob, pg, OUT_NOW);
		return;
	}
	(void)out_walk(pg, 0);
	__atomic_fetch_and(&pg->aflags, (uint16_t)~AF_TEST, __ATOMIC_RELAXED);
	lru_move(pg, LRU_COLD, AT_HEAD);
	page_let_go(pg);
}

void swap_advise(struct addrspace *as, vaddr_t start, vaddr_t end, enum swap_advice how)
{
	struct out_batch ob = { .n = 0 };
	for (vaddr_t at = start; at < end;) {
		struct advise_scan a = { .how = how, .n = 0 };
		struct walk w = { .ops = &advise_ops, .pgt = as->pgt, .arg = &a };
		as_lock_read(as);
		at = walk_range(&w, at, end) == -EAGAIN ? a.resume : end;
		as_unlock_read(as);
		for (unsigned i = 0; i < a.n; i++)
			advise_one(&ob, a.pages[i], how);
	}
	write_batch(&ob);
	stat_add(&swap_out_stats.stolen, ob.freed);
}

/* ---- swap-in ---- */

/* How many pages the next swap-in reads (Linux's __swapin_nr_pages, in
 * outline): read-ahead pages that swap-ins found since the last read grow
 * the window (to the power of two at or above hits + 2); with none to judge
 * by, two pages when this fault is next to the last one that read (a
 * sequential pass), else one; it shrinks by at most half per read. Its
 * frames stop at the allocator's reserve (PA_NORESERVE), and faults wait
 * for the reclaimer while free memory is in it (reclaimd_throttle): the
 * threaded VM tester's pipe() got ENOMEM when faults on 4 CPUs could take
 * every frame. The state is shared by every CPU and kept without a lock
 * (a heuristic: a lost update only changes a guess). */
static struct { uint64_t hits; vaddr_t va; unsigned window; } ra = { .window = 1 };

static unsigned readahead_window(vaddr_t va)
{
	uint64_t hits = atomic_load(&swap_stats.ra_hits), new_hits = hits - atomic_load(&ra.hits);
	vaddr_t last = atomic_load(&ra.va);
	unsigned w = 1, half = atomic_load(&ra.window) / 2;
	while (new_hits && w < new_hits + 2 && w < SWAP_READAHEAD_MAX)
		w <<= 1;
	if (!new_hits && (va == last + PAGE_SIZE || va + PAGE_SIZE == last))
		w = 2;
	w = w < half ? half : w;
	atomic_store(&ra.hits, hits);
	atomic_store(&ra.va, va);
	atomic_store(&ra.window, w);
	return w;
}

/* The swap entries to read ahead with va's page (Linux's VMA-based
 * read-ahead, swap_vma_readahead): the others of va's aligned window of
 * `window` pages, inside v, that are swap entries -- the pages a program
 * that walks its memory reads next, in whichever slots they went out to.
 * The window lies inside va's PT page (at most 8 pages, aligned). Into
 * ahead[] (room for window - 1): how many. */
static unsigned readahead_entries(struct addrspace *as, struct vma *v, vaddr_t va,
				  unsigned window, pte_t *ahead)
{
	vaddr_t first = ALIGN_DOWN(va, (vaddr_t)window * PAGE_SIZE);
	vaddr_t end = MIN(first + (vaddr_t)window * PAGE_SIZE, v->end);
	unsigned n = 0;
	for (vaddr_t a = MAX(first, v->start); a < end; a += PAGE_SIZE) {
		pte_t e;
		if (a != va && pgt_lookup_at(as->pgt, a, 0, NULL, &e) == PGT_SWAPPED)
			ahead[n++] = e;
	}
	return n;
}

/* The prot of a page brought back into v: v's access, copy-on-write. */
static unsigned swapped_prot(const struct vma *v)
{
	return (v->prot & VM_ACCESS) | VM_COW;
}

int swap_in(struct addrspace *as, struct vma *v, vaddr_t va, pte_t e)
{
	pte_t now;
	int m = pgt_lookup_write(as->pgt, va, NULL, &now);   /* a shared PT page: ours first */
	if (m < 0)
		return m;
	if (m != PGT_SWAPPED || now != e)
		return 0;   /* changed meanwhile: retry the access */
	if (anon_vma_prepare(v) < 0)
		return -ENOMEM;
	struct page *pg;
	pte_t ahead[SWAP_READAHEAD_MAX];
	unsigned n = readahead_entries(as, v, va, readahead_window(va), ahead);
	enum swapin_result r = swap_cache_read(e, ahead, n, &pg);
	if (r == SWAPIN_STALE)
		return 0;
	if (r == SWAPIN_NOMEM || r == SWAPIN_IOERR)
		return r == SWAPIN_NOMEM ? -ENOMEM : -EIO;
	note_refault(swap_slot_take_shadow(e));
	anon_page_add(pg, v, va, LRU_COLD);
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	int put = pgt_replace(&b, va, e, page_to_pa(pg), swapped_prot(v), NULL);   /* the slot's count down */
	tlb_end(&b);
	if (put < 0) {
		page_put(pg);
		return 0;
	}
	return r == SWAPIN_READ;
}

/* ---- swapoff ---- */

#define UNUSE_BATCH 64

struct unuse_scan {
	int area;
	unsigned n;
	vaddr_t va[UNUSE_BATCH];
	pte_t e[UNUSE_BATCH];
};

/* A swap entry of the area: note it (the batch ends the walk when full). */
static int unuse_note(struct walk *w)
{
	struct unuse_scan *u = w->arg;
	pte_t e = pte_read(w->ep);
	if ((int)pte_swap_area(e) != u->area)
		return 0;
	u->va[u->n] = w->va;
	u->e[u->n] = e;
	return ++u->n == UNUSE_BATCH ? -EAGAIN : 0;
}

static const struct walk_ops unuse_ops = { .swap = unuse_note };

/* Bring back the pages of area in v (as locked for reading). 0 or -errno. */
static int unuse_vma(struct addrspace *as, struct vma *v, int area)
{
	struct unuse_scan u = { .area = area };
	for (vaddr_t at = v->start; at < v->end;) {
		u.n = 0;
		struct walk w = { .ops = &unuse_ops, .pgt = as->pgt, .arg = &u };
		if (walk_range(&w, at, v->end) == 0)
			at = v->end;
		else
			at = u.va[u.n - 1] + PAGE_SIZE;
		for (unsigned i = 0; i < u.n; i++) {
			int r = swap_in(as, v, u.va[i], u.e[i]);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

struct space_list {
	unsigned n, cap;
	struct addrspace **as;
};

static void collect(struct addrspace *as, void *arg)
{
	struct space_list *l = arg;
	if (l->n < l->cap && (l->as[l->n] = as_tryget(as)))
		l->n++;
}

static void count_space(struct addrspace *as, void *arg)
{
	(void)as;
	(*(unsigned *)arg)++;
}

/* One pass over every address space: 0 or the first error. */
static int unuse_pass(int area)
{
	struct space_list l = { 0 };
	as_for_each(count_space, &l.cap);
	l.as = kmalloc((l.cap + 1) * sizeof(*l.as));
	if (!l.as)
		return -ENOMEM;
	as_for_each(collect, &l);
	int r = 0;
	for (unsigned i = 0; i < l.n; i++) {
		as_lock_read(l.as[i]);
		for (struct vma *v = l.as[i]->vmas; v && r == 0; v = v->next)
			r = unuse_vma(l.as[i], v, area);
		as_unlock_read(l.as[i]);
		as_put(l.as[i]);
	}
	kfree(l.as);
	return r;
}

int swap_unuse(int area)
{
	for (uint64_t before = UINT64_MAX; swap_area_used(area) && swap_area_used(area) < before;) {
		before = swap_area_used(area);
		int r = unuse_pass(area);
		if (r == 0)
			r = pagecache_swap_unuse(area);   /* tmpfs pages */
		if (r < 0)
			return r;
		swap_cache_drop_area(area);   /* pages back in memory that kept their slots */
	}
	return swap_area_used(area) ? -EBUSY : 0;
}

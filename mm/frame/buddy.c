/* mm/frame/buddy.c -- the binary buddy allocator over the frame database.
 *
 * free_lists[k] holds free blocks of 2^k frames, each aligned to its size.
 * A block's buddy is the block it was split from / merges with:
 *
 *   order 2:  [ 0  1  2  3 ][ 4  5  6  7 ]   buddy(pfn, k) = pfn ^ (1 << k)
 *   order 1:  [ 0  1 ][ 2  3 ]
 *
 * Allocation takes the smallest block that fits and splits it, putting the
 * upper halves back; freeing merges with the buddy while it is free and of
 * the same order. A free block's head has type PG_FREE and order
 * PAGE_ORDER_FREE | k (an allocated one's: k); every other frame of a block
 * (free or allocated) has order PAGE_ORDER_TAIL.
 *
 * Several CPUs: frames_lock guards the lists. In front of them each CPU has
 * a cache of free order-0 frames (struct cpu.pcp, its own lock), so most
 * order-0 allocations and frees touch only this CPU's cache:
 *
 *   page_alloc(0) --> this CPU's cache --(empty: PCP_BATCH frames)--> lists
 *   page_free(0)  --> this CPU's cache --(full: PCP_BATCH frames back)--> lists
 *
 * A cached frame stays free (PG_FREE, order PAGE_ORDER_TAIL so no buddy
 * merges with it, counted in mm_stats.free and mm_stats.cached). When an
 * allocation finds nothing, every cache goes back to the lists and it tries
 * again, before reclaim: "free" means what can be had. Lock order: pcp
 * (68), then frames (70); the counters of mm_stats are atomic.
 */
#include "mm/frame/buddy.h"
#include "mm/frame/anon_page.h"
#include "mm/frame/phasetime.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/spinlock.h"

const struct anon_page_hooks *anon_page_hooks;

bool frame_cache_on = true;

/* frames_lock guards the free lists and nfree_blocks. */
static struct spinlock frames_lock = SPINLOCK_INIT("frames", LOCK_RANK_FRAMES);
static struct list free_lists[MAX_ORDER];
static uint64_t nfree_blocks[MAX_ORDER];

void buddy_reset(void)
{
	for (unsigned k = 0; k < MAX_ORDER; k++) {
		list_init(&free_lists[k]);
		nfree_blocks[k] = 0;
	}
	for (int i = 0; i < MAX_CPUS; i++) {
		spin_init(&cpus[i].pcp.lock, "pcp", LOCK_RANK_PCP);
		cpus[i].pcp.n = 0;
	}
}

static void push_block(struct page *pg, unsigned order)
{
	atomic_store(&pg->order, (uint8_t)(PAGE_ORDER_FREE | order));
	list_add(&free_lists[order], &pg->link);
	nfree_blocks[order]++;
}

static void pop_block(struct page *pg, unsigned order)
{
	list_del(&pg->link);
	atomic_store(&pg->order, PAGE_ORDER_TAIL);
	nfree_blocks[order]--;
}

/* Put free block pg on the lists, merged with its free buddies (frames_lock
 * held). A buddy is free when its head's order says PAGE_ORDER_FREE | order:
 * only this lock's holder writes that value (push_block), so a block that
 * another CPU is allocating or freeing meanwhile, whatever it has written
 * so far, never looks like one; nor does a cached frame (PAGE_ORDER_TAIL). */
static void merge_block(struct page *pg, unsigned order)
{
	uint64_t pfn = (uint64_t)(pg - frames);
	pg->order = PAGE_ORDER_TAIL;
	while (order < MAX_ORDER - 1) {
		uint64_t bpfn = pfn ^ (1UL << order);
		if (bpfn >= max_pfn)
			break;
		struct page *b = &frames[bpfn];
		if (atomic_load(&b->order) != (PAGE_ORDER_FREE | order))
			break;
		pop_block(b, order);
		pfn &= ~(1UL << order);
		order++;
	}
	push_block(&frames[pfn], order);
}

void buddy_insert(struct page *pg, unsigned order)
{
	spin_lock(&frames_lock);
	merge_block(pg, order);
	spin_unlock(&frames_lock);
	stat_add(&mm_stats.free, 1UL << order);
}

/* Zero whole frames, 64 bytes (eight stores) per loop iteration: under
 * QEMU's TCG each backward branch costs as much as several stores. */
static void zero_frames(struct page *pg, unsigned order)
{
	uint64_t *p = page_va(pg), *end = p + (PAGE_SIZE << order) / sizeof(*p);
	for (; p < end; p += 8) {
		p[0] = 0, p[1] = 0, p[2] = 0, p[3] = 0;
		p[4] = 0, p[5] = 0, p[6] = 0, p[7] = 0;
	}
}

void page_copy(struct page *dst, const struct page *src)
{
	uint64_t *d = page_va(dst), *end = d + PAGE_SIZE / sizeof(*d);
	const uint64_t *s = page_va(src);
	for (; d < end; d += 8, s += 8) {
		d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = s[3];
		d[4] = s[4], d[5] = s[5], d[6] = s[6], d[7] = s[7];
	}
}

/* The smallest order >= order with a free block, or MAX_ORDER. */
static unsigned first_free_order(unsigned order)
{
	unsigned k = order;
	while (k < MAX_ORDER && list_empty(&free_lists[k]))
		k++;
	return k;
}

/* A free block of 2^order frames off the lists (split from the smallest
 * that fits), or NULL (frames_lock held). Its head is still PG_FREE with
 * order PAGE_ORDER_TAIL, so no free neighbour merges with it. */
static struct page *take_block(unsigned order)
{
	unsigned k = first_free_order(order);
	if (k == MAX_ORDER)
		return NULL;
	struct page *pg = list_entry(free_lists[k].next, struct page, link);
	pop_block(pg, k);
	while (k > order) {   /* split: give back the upper half */
		k--;
		push_block(pg + (1UL << k), k);
	}
	return pg;
}

static struct page *take_locked(unsigned order)
{
	spin_lock(&frames_lock);
	struct page *pg = take_block(order);
	spin_unlock(&frames_lock);
	return pg;
}

/* Move up to PCP_BATCH frames from the lists into c (c->lock held). */
static void cache_refill(struct frame_cache *c)
{
	spin_lock(&frames_lock);
	struct page *pg;
	while (c->n < PCP_BATCH && (pg = take_block(0)) != NULL) {
		c->frames[c->n++] = pg;
		stat_inc(&mm_stats.cached);
	}
	spin_unlock(&frames_lock);
}

/* Give c's frames back to the lists until keep are left (c->lock held). */
static void cache_drain(struct frame_cache *c, unsigned keep)
{
	spin_lock(&frames_lock);
	while (c->n > keep) {
		merge_block(c->frames[--c->n], 0);
		stat_sub(&mm_stats.cached, 1);
	}
	spin_unlock(&frames_lock);
}

/* A free frame from this CPU's cache (refilled when empty), or NULL. The
 * lock makes it right even if the caller moved to another CPU meanwhile. */
static struct page *cache_take(void)
{
	struct frame_cache *c = &this_cpu()->pcp;
	spin_lock(&c->lock);
	if (c->n == 0)
		cache_refill(c);
	struct page *pg = c->n ? c->frames[--c->n] : NULL;
	spin_unlock(&c->lock);
	if (pg)
		stat_sub(&mm_stats.cached, 1);
	return pg;
}

/* Cache free frame pg on this CPU (a full cache gives a batch back first). */
static void cache_put(struct page *pg)
{
	struct frame_cache *c = &this_cpu()->pcp;
	spin_lock(&c->lock);
	if (c->n == PCP_FRAMES)
		cache_drain(c, PCP_FRAMES - PCP_BATCH);
	c->frames[c->n++] = pg;
	spin_unlock(&c->lock);
	stat_inc(&mm_stats.cached);
}

uint64_t buddy_drain_caches(void)
{
	uint64_t n = 0;
	for (int i = 0; i < MAX_CPUS; i++) {
		struct frame_cache *c = &cpus[i].pcp;
		spin_lock(&c->lock);
		n += c->n;
		if (c->n)
			cache_drain(c, 0);
		spin_unlock(&c->lock);
	}
	return n;
}

/* A free block of 2^order frames, or NULL: order 0 from this CPU's cache,
 * larger ones from the lists. */
static struct page *take_free(unsigned order)
{
	return order == 0 && frame_cache_on ? cache_take() : take_locked(order);
}

/* take_free, and when it fails, again after every CPU's cache went back to
 * the lists (their frames may be the last ones, or complete a larger block). */
static struct page *take_any(unsigned order)
{
	struct page *pg = take_free(order);
	if (!pg && buddy_drain_caches())
		pg = take_free(order);
	return pg;
}

/* Make free block pg (taken off a cache or the lists: ours alone now) an
 * allocated one of type from flags, refcount 1. */
static void claim_block(struct page *pg, unsigned order, unsigned flags)
{
	for (uint64_t i = 0; i < (1UL << order); i++) {   /* no stale metadata */
		pg[i].count = 0;
		pg[i].meta = 0;   /* the whole union: pt.share, level, text too */
		pg[i].meta2[0] = pg[i].meta2[1] = 0;
	}
	pg->refcount = 1;
	frames_set_type(pg, order, PA_TYPE(flags) == PG_FREE ? PG_KERNEL : PA_TYPE(flags));
	atomic_store(&pg->order, (uint8_t)order);
	stat_sub(&mm_stats.free, 1UL << order);
	stat_inc(&mm_stats.allocs);
}

struct page *page_alloc(unsigned order, unsigned flags)
{
	if (order >= MAX_ORDER) {
		stat_inc(&mm_stats.failed);
		return NULL;
	}
	if ((flags & PA_NORESERVE) &&
	    atomic_load(&mm_stats.free) < atomic_load(&mm_stats.reserve) + (1ull << order)) {
		stat_inc(&mm_stats.reserve_refused);
		stat_inc(&mm_stats.failed);
		return NULL;
	}
	struct page *pg = take_any(order);
	if (!pg) {
		stat_inc(&mm_stats.failed);
		return NULL;
	}
	claim_block(pg, order, flags);
	if (flags & PA_ZERO) {
		uint64_t t0 = phase_begin();
		zero_frames(pg, order);
		phase_end(PH_ZERO, t0);
	}
	return pg;
}

void page_free_from(struct page *pg, unsigned order, const void *caller)
{
	if (pg < frames || pg >= frames + max_pfn)
		page_bug(pg, "page_free of a pointer outside the frame database", caller);
	if (pg->type == PG_FREE)
		page_bug(pg, "double free", caller);
	if (pg->type == PG_RESERVED || pg->refcount == 0)
		page_bug(pg, "page_free of a frame that was never allocated", caller);
	if (pg->order != order)
		page_bug(pg, order == PAGE_ORDER_TAIL || pg->order == PAGE_ORDER_TAIL ?
			 "page_free of a frame inside a block" :
			 "page_free with the wrong order", caller);
	if (pg->type == PG_ANON)
		anon_page_released(pg);   /* off its LRU list and its map */
	pg->refcount = 0;
	atomic_store(&pg->order, PAGE_ORDER_TAIL);
	frames_set_type(pg, order, PG_FREE);
	stat_inc(&mm_stats.frees);
	stat_add(&mm_stats.free, 1UL << order);
	if (order == 0 && frame_cache_on) {
		cache_put(pg);
		return;
	}
	spin_lock(&frames_lock);
	merge_block(pg, order);
	spin_unlock(&frames_lock);
}

void page_free(struct page *pg, unsigned order)
{
	page_free_from(pg, order, __builtin_return_address(0));
}

uint64_t buddy_free_blocks(unsigned order)
{
	return order < MAX_ORDER ? nfree_blocks[order] : 0;
}

/* The frames in every CPU's cache, each checked to be a free frame. */
static uint64_t check_caches(const void *caller)
{
	uint64_t n = 0;
	for (int i = 0; i < MAX_CPUS; i++) {
		struct frame_cache *c = &cpus[i].pcp;
		spin_lock(&c->lock);
		for (unsigned j = 0; j < c->n; j++) {
			struct page *pg = c->frames[j];
			if (pg < frames || pg >= frames + max_pfn || pg->type != PG_FREE ||
			    pg->order != PAGE_ORDER_TAIL || pg->refcount)
				page_bug(pg, "buddy_check: bad frame in a CPU's cache", caller);
		}
		n += c->n;
		spin_unlock(&c->lock);
	}
	return n;
}

/* The frames on the free lists, each block checked. */
static uint64_t check_lists(const void *caller)
{
	uint64_t frames_free = 0;
	for (unsigned k = 0; k < MAX_ORDER; k++) {
		uint64_t n = 0;
		list_for_each(it, &free_lists[k]) {
			struct page *pg = list_entry(it, struct page, link);
			uint64_t pfn = (uint64_t)(pg - frames);
			if (pg->type != PG_FREE || pg->order != (PAGE_ORDER_FREE | k) || pg->refcount ||
			    !IS_ALIGNED(pfn, 1UL << k) || pfn + (1UL << k) > max_pfn)
				page_bug(pg, "buddy_check: bad free block", caller);
			for (uint64_t i = 1; i < (1UL << k); i++)
				if (pg[i].type != PG_FREE || pg[i].order != PAGE_ORDER_TAIL)
					page_bug(pg + i, "buddy_check: bad frame in a free block",
						 caller);
			n++;
		}
		if (n != nfree_blocks[k])
			panic("buddy_check: order %u list has %lu blocks, counter says %lu",
			      k, n, nfree_blocks[k]);
		frames_free += n << k;
	}
	return frames_free;
}

uint64_t buddy_check(void)
{
	const void *caller = __builtin_return_address(0);
	uint64_t cached = check_caches(caller);
	spin_lock(&frames_lock);
	uint64_t listed = check_lists(caller);
	spin_unlock(&frames_lock);
	if (cached != mm_stats.cached)
		panic("buddy_check: %lu frames in the CPUs' caches, counter says %lu",
		      cached, mm_stats.cached);
	uint64_t free = listed + cached;
	if (free != mm_stats.free || free != mm_stats.by_type[PG_FREE])
		panic("buddy_check: %lu free frames (%lu cached), counters say %lu / %lu",
		      free, cached, mm_stats.free, mm_stats.by_type[PG_FREE]);
	return free;
}

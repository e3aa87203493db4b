/* mm/buddy.c -- the binary buddy allocator over the frame database.
 *
 * free_lists[k] holds free blocks of 2^k frames, each aligned to its size.
 * A block's buddy is the block it was split from / merges with:
 *
 *   order 2:  [ 0  1  2  3 ][ 4  5  6  7 ]   buddy(pfn, k) = pfn ^ (1 << k)
 *   order 1:  [ 0  1 ][ 2  3 ]
 *
 * Allocation takes the smallest block that fits and splits it, putting the
 * upper halves back; freeing merges with the buddy while it is free and of
 * the same order. A free block's head has type PG_FREE and order k; every
 * other frame of a block (free or allocated) has order PAGE_ORDER_TAIL.
 */
#include "mm/buddy.h"
#include "mm/phasetime.h"
#include "mm/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"

static struct list free_lists[MAX_ORDER];
static uint64_t nfree_blocks[MAX_ORDER];

void buddy_reset(void)
{
	for (unsigned k = 0; k < MAX_ORDER; k++) {
		list_init(&free_lists[k]);
		nfree_blocks[k] = 0;
	}
}

static void push_block(struct page *pg, unsigned order)
{
	pg->order = (uint8_t)order;
	list_add(&free_lists[order], &pg->link);
	nfree_blocks[order]++;
}

static void pop_block(struct page *pg, unsigned order)
{
	list_del(&pg->link);
	pg->order = PAGE_ORDER_TAIL;
	nfree_blocks[order]--;
}

void buddy_insert(struct page *pg, unsigned order)
{
	uint64_t pfn = (uint64_t)(pg - frames);
	pg->order = PAGE_ORDER_TAIL;
	mm_stats.free += 1UL << order;
	while (order < MAX_ORDER - 1) {
		uint64_t bpfn = pfn ^ (1UL << order);
		if (bpfn >= max_pfn)
			break;
		struct page *b = &frames[bpfn];
		if (b->type != PG_FREE || b->order != order)
			break;
		pop_block(b, order);
		pfn &= ~(1UL << order);
		order++;
	}
	push_block(&frames[pfn], order);
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

uint64_t (*page_reclaim_hook)(unsigned order, bool failed);

/* The smallest order >= order with a free block, or MAX_ORDER. */
static unsigned first_free_order(unsigned order)
{
	unsigned k = order;
	while (k < MAX_ORDER && list_empty(&free_lists[k]))
		k++;
	return k;
}

struct page *page_alloc(unsigned order, unsigned flags)
{
	if (tlb_batch_open())
		panic("page_alloc inside an open TLB batch (caller %p): it may reclaim "
		      "(mm/tlb.h)", __builtin_return_address(0));
	if (order >= MAX_ORDER) {
		mm_stats.failed++;
		return NULL;
	}
	if (page_reclaim_hook)
		page_reclaim_hook(order, false);   /* below the watermark? */
	unsigned k = first_free_order(order);
	if (k == MAX_ORDER && page_reclaim_hook && page_reclaim_hook(order, true))
		k = first_free_order(order);       /* the slow path: reclaim, retry */
	if (k == MAX_ORDER) {
		mm_stats.failed++;
		return NULL;
	}
	struct page *pg = list_entry(free_lists[k].next, struct page, link);
	pop_block(pg, k);
	while (k > order) {   /* split: give back the upper half */
		k--;
		push_block(pg + (1UL << k), k);
	}
	for (uint64_t i = 0; i < (1UL << order); i++) {   /* no stale metadata */
		pg[i].count = 0;
		pg[i].lazy = NULL;   /* the whole union: pt.share, level, text too */
	}
	pg->order = (uint8_t)order;
	pg->refcount = 1;
	frames_set_type(pg, order, PA_TYPE(flags) == PG_FREE ? PG_KERNEL : PA_TYPE(flags));
	mm_stats.free -= 1UL << order;
	mm_stats.allocs++;
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
	if (pg->type == PG_ANON && pg->lazy)
		page_bug(pg, "page_free of a frame still on the lazy-free list", caller);
	if (pg->order != order)
		page_bug(pg, order == PAGE_ORDER_TAIL || pg->order == PAGE_ORDER_TAIL ?
			 "page_free of a frame inside a block" :
			 "page_free with the wrong order", caller);
	pg->refcount = 0;
	pg->order = PAGE_ORDER_TAIL;
	frames_set_type(pg, order, PG_FREE);
	mm_stats.frees++;
	buddy_insert(pg, order);
}

void page_free(struct page *pg, unsigned order)
{
	page_free_from(pg, order, __builtin_return_address(0));
}

uint64_t buddy_free_blocks(unsigned order)
{
	return order < MAX_ORDER ? nfree_blocks[order] : 0;
}

uint64_t buddy_check(void)
{
	const void *caller = __builtin_return_address(0);
	uint64_t frames_free = 0;
	for (unsigned k = 0; k < MAX_ORDER; k++) {
		uint64_t n = 0;
		list_for_each(it, &free_lists[k]) {
			struct page *pg = list_entry(it, struct page, link);
			uint64_t pfn = (uint64_t)(pg - frames);
			if (pg->type != PG_FREE || pg->order != k || pg->refcount ||
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
	if (frames_free != mm_stats.free || frames_free != mm_stats.by_type[PG_FREE])
		panic("buddy_check: %lu free frames on the lists, counters say %lu / %lu",
		      frames_free, mm_stats.free, mm_stats.by_type[PG_FREE]);
	return frames_free;
}

/* mm/pt/tlb.h -- batched TLB flushing (an mmu_gather).
 *
 * Changing many leaf entries (munmap, madvise, exit, reclaim) should not
 * flush the TLB once per page, and a frame must not be reused before every
 * TLB that may still map it was flushed. So the work is bracketed:
 *
 *   tlb_begin(&b, pgt)            pv lazy-MMU mode on
 *   ... pt_set_leaf(..., 0);      entries cleared
 *       tlb_defer_put(&b, va, pg)  reference kept until the flush
 *   tlb_end(&b)                   one flush, then the frames are freed
 *
 * Batches do not nest on one CPU (lazy-MMU mode does not): tlb_begin
 * panics if one is open. Allocating inside a batch is fine: the allocator
 * never reclaims (mm/frame/page.h), so it never opens a batch of its own.
 *
 * With tlb=nobatch on the command line every page is flushed and freed at
 * once, so benchmarks can compare the two.
 */
#ifndef MM_TLB_H
#define MM_TLB_H

#include "lib/types.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pte.h"

struct page;
struct pagetable;

#define TLB_BATCH_PAGES 64

struct tlb_batch {
	struct pagetable *pgt;
	paddr_t root_pa;            /* pgt's PML4: which CPUs run on it */
	bool need_flush;            /* some entry of an active pgt changed */
	bool global;                /* a kernel-half (global) entry changed */
	bool sharers;               /* a table other address spaces use changed
				     * (tlb_reach_sharers): flush every CPU */
	vaddr_t first_va;           /* the only changed page, if npages_changed == 1 */
	uint64_t npages_changed;
	struct page *pages[TLB_BATCH_PAGES];   /* frames to free after the flush */
	struct page *tables[TLB_BATCH_PAGES];  /* page-table pages likewise */
	int npages, ntables;
};

struct tlb_stats {
	uint64_t flush_one;     /* single-page flushes (invlpg) */
	uint64_t flush_full;    /* whole-TLB flushes */
	uint64_t batches;       /* tlb_end calls */
	uint64_t pages_freed;   /* frames freed through batches */
};
extern struct tlb_stats tlb_stats;

/* Open batch b for pgt on this CPU. Panics if this CPU has a batch open
 * already (other CPUs may have theirs). */
void tlb_begin(struct tlb_batch *b, struct pagetable *pgt);

/* Note that the entry for va changed (a flush is due if pgt is active or
 * va is in the kernel half, which every PML4 maps). Inline where a full
 * flush is due already (the common case of a batch over many pages: it
 * only counts); tlb_note_change does the rest. */
void tlb_note_change(struct tlb_batch *b, vaddr_t va);
static inline void tlb_changed(struct tlb_batch *b, vaddr_t va)
{
	if (b->npages_changed > 1 && (b->global || is_user_addr(va)))
		b->npages_changed++;
	else
		tlb_note_change(b, va);
}

/* Entries of a table that other address spaces use too (a shared PT page,
 * pt_clear_shared_leaf) change in b: from now on b's flushes go to every
 * CPU, whatever page table it runs on (which CPUs run a sharer is not
 * known), and to this one. */
void tlb_reach_sharers(struct tlb_batch *b);

/* Note that every entry in [va, end) changed. */
void tlb_changed_range(struct tlb_batch *b, vaddr_t va, vaddr_t end);

/* Drop the mapping's reference on pg after the flush (va was unmapped). */
void tlb_defer_put(struct tlb_batch *b, vaddr_t va, struct page *pg);

/* Drop the reference to page-table page pt, unlinked from an entry
 * covering va, after the flush (pt_table_put: a private table is freed, a
 * shared one loses this sharer): a flush is due (paging-structure caches
 * may hold pt's entries, and TLBs translations through it). */
void tlb_defer_table(struct tlb_batch *b, vaddr_t va, struct page *pt);

/* If the table that entry *ep (level, covering va) of b->pgt points at has
 * no present entries, unlink it and free it after the flush. */
void tlb_unlink_empty_table(struct tlb_batch *b, pte_t *ep, int level, vaddr_t va);

/* Flush what changed, then release the deferred frames and tables. */
void tlb_end(struct tlb_batch *b);

/* Set from the command line: false makes every change flush at once. */
extern bool tlb_batching;

#endif

/* mm/swap.h -- anonymous pages out to swap and back: the replacement
 * policy that chooses them, the reclaimer's page-out, the fault's
 * swap-in, and swapoff's bringing everything back. The slots and the swap
 * cache are mm/frame/swap.h; the hot and cold lists mm/frame/lru.h; the
 * reverse map that finds a page's entries mm/anon_rmap.h.
 *
 * A page's life (the policy: CLOCK-Pro's outline on two lists, mm/swap.c
 * and docs/swap-and-replacement.md):
 *
 *   fault (new, COW copy) --> hot while the hot pages are below their
 *        |                    share m - m_c, else cold (swap_new_page_list)
 *        | hot hand: unused since its last look --> cold
 *        | cold hand (the reclaimer): used since its last look? in a test
 *        |    period --> hot; else a test period starts (a second chance)
 *        v    not used
 *   a slot (swap_slot_alloc): in the swap cache; the slot notes the hot
 *        |  hand's step (its eviction)
 *        |  every entry --> the slot's swap entry (pgt_page_out, all sharers)
 *        |  unmapped everywhere? written to the slot (swap_writepages,
 *        |  32 at a time: one request when their slots follow)
 *        v
 *   out of the cache, frame freed            ...  a fault on a swap entry:
 *                                                 swap_cache_read (cache or
 *                                                 disk), mapped copy-on-write,
 *                                                 cold; the note says whether
 *                                                 m_c grows or shrinks; the
 *                                                 slot's count down, at 0 the
 *                                                 page leaves the cache
 *
 * Who runs what: swap_out only in the reclaimer thread (kernel/reclaimd.c:
 * it sleeps on I/O and takes address-space locks -- tried, never waited
 * for); swap_in in a page fault (the address space locked for reading);
 * swap_unuse in swapoff; swap_advise in madvise.
 */
#ifndef MM_SWAP_H
#define MM_SWAP_H

#include "lib/types.h"
#include "arch/x86_64/pte.h"
#include "mm/frame/lru.h"

struct page;
struct vma;
struct addrspace;

/* Could swap_out free anything: anonymous pages on the lists and a free
 * slot? Reads counters only (the tick asks). */
bool swap_reclaimable(void);

/* The list a new anonymous page (a fault's, a copy-on-write copy) starts
 * on: hot while the hot pages are below their share (memory filling up),
 * else cold, in a test period (the policy above swap_out). */
enum lru_list swap_new_page_list(void);

/* The reclaimer thread's page-out: the hot hand as the policy needs it,
 * the cold hand over the cold pages oldest first (at most two rounds of the
 * lists), swapping out those not used since the last look, until `want`
 * frames were freed. Returns the frames freed. Sleeps; holds nothing on
 * entry. */
uint64_t swap_out(uint64_t want);

/* A fault (as locked for reading, v the VMA of va, allowing the access)
 * found swap entry e at va: bring the page back from the swap cache or the
 * area and map it copy-on-write (a write then reuses it if it is the
 * only user). 1 if it was read from the area (a major fault), 0 if cached
 * or if the entry changed meanwhile (the access is retried), -ENOMEM, or
 * -EIO (the read failed: SIGBUS for the faulting process only). */
int swap_in(struct addrspace *as, struct vma *v, vaddr_t va, pte_t e);

/* swapoff's work: bring back every page of area (its slots named by
 * entries of any address space), until none is in use. 0, -ENOMEM (a page
 * could not be brought back: the pages back so far stay in memory, the rest
 * on the area), or -EIO (a page could not be read: it stays on the area). */
int swap_unuse(int area);

/* madvise's advice about anonymous memory. */
enum swap_advice {
	SWAP_ADVISE_COLD,      /* MADV_COLD: the pages are not needed soon */
	SWAP_ADVISE_PAGEOUT,   /* MADV_PAGEOUT: nor at all: out now */
};

/* MADV_COLD / MADV_PAGEOUT of [start, end) of as (not locked: taken for
 * reading per batch of pages, as the reverse map's walk ranks before it;
 * the range below the user top): each anonymous page mapped there has its
 * Accessed bits cleared (everywhere it is mapped) and goes next under the
 * cold hand (COLD), or is swapped out now, wherever mapped, as the
 * reclaimer would but used or not (PAGEOUT; nothing without swap). A
 * lazy-free page is discarded by PAGEOUT if still clean (swap or not:
 * lazyfree_discard), left on its list by COLD; a page the reclaimer holds
 * is passed over.
 * Linux's madvise_cold_or_pageout_pte_range, which skips pages other
 * processes map; here a page shared copy-on-write goes out for all. Sleeps
 * (the writes). */
void swap_advise(struct addrspace *as, vaddr_t start, vaddr_t end, enum swap_advice how);

/* Register swap_out with the reclaimer (a SHRINKER_LAST shrinker). At boot. */
void swap_init(void);

struct swap_out_stats {
	uint64_t scanned;       /* pages looked at (pgscan_kswapd_anon) */
	uint64_t referenced;    /* of those, used since the last look */
	uint64_t stolen;        /* pages freed by swapping them out (pgsteal_anon) */
	uint64_t busy;          /* address spaces passed over (a writer held them) */
	uint64_t hot_scanned;   /* hot pages the hot hand looked at */
	uint64_t deactivated;   /* of those, turned cold (pgdeactivate) */
	uint64_t activated;     /* cold pages used in their test period, made hot (pgactivate) */
	uint64_t refaults;      /* pages back from swap whose eviction was noted
				   (workingset_refault_anon) */
	uint64_t refaults_in_test; /* of those, back within their test period
				      (workingset_activate_anon) */
};
extern struct swap_out_stats swap_out_stats;

#endif

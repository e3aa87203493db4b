/* pagoda/meminfo.h -- system-wide memory counters.
 *
 * long pagoda_meminfo(struct pagoda_meminfo *m)
 *   System call 1001 (SYS_pagoda_meminfo). Fills *m with a snapshot of the
 *   kernel's memory counters. All sizes are in 4 KiB pages; event counters
 *   count since boot. Returns 0, or -1 with errno EFAULT (bad m) or ENOSYS
 *   (not Pagoda, e.g. Linux).
 *
 *   Invariant the leak check relies on: after every process a test created
 *   has exited and been reaped, free_pages is back to its earlier value
 *   (lazily freed and cached pages are counted separately, never as leaks).
 */
#ifndef PAGODA_MEMINFO_H
#define PAGODA_MEMINFO_H

#include <stdint.h>

#define PAGODA_PSS_SHIFT 32   /* fixed point of pss_total_frac */

struct pagoda_meminfo {
	/* where the frames are, in pages */
	uint64_t total_pages;      /* usable RAM managed by the frame allocator */
	uint64_t free_pages;       /* in the buddy allocator right now          */
	uint64_t kernel_pages;     /* kernel heap, stacks, kernel page tables   */
	uint64_t anon_pages;       /* user anonymous frames (each counted once) */
	uint64_t file_pages;       /* initrd/file frames mapped into processes  */
	uint64_t pagetable_pages;  /* user page-table pages (all levels)        */
	uint64_t shared_pt_pages;  /* PT pages with a share count above 1       */
	uint64_t lazyfree_pages;   /* MADV_FREE'd pages not yet reclaimed       */
	/* events since boot */
	uint64_t page_faults;      /* user page faults handled                  */
	uint64_t cow_faults;       /* of which broke a copy-on-write share      */
	uint64_t pt_unshares;      /* shared PT pages copied on a write         */
	uint64_t pglazyfree;       /* pages marked lazy-free (MADV_FREE)        */
	uint64_t pglazyfreed;      /* lazy-free pages discarded by reclaim      */
	uint64_t reclaim_scans;    /* pages looked at by the reclaimer          */
	uint64_t tlb_flushes;      /* TLB flush operations issued               */
	uint64_t oom_kills;        /* processes killed for lack of memory       */
	/* page-table sharing (pages) */
	uint64_t pt_saved_pages;   /* table pages not allocated thanks to sharing:
	                              sum over PT pages of (share count - 1),
	                              over PD pages of (share count - 1) x (1 +
	                              its PT pages)                            */
	uint64_t ptshare_mode;     /* 0 off, 1 fork, 2 all, 3 pd (ptshare=)     */
	uint64_t fork_shared_pt;   /* PT pages shared by fork since boot        */
	uint64_t text_shared_pt;   /* text PT pages reused across processes    */
	/* proportional set size: the proof that PSS adds up (docs/shared-text-and-rss.md) */
	uint64_t pss_total_frac;   /* sum of every process's PSS, in
	                              2^-PAGODA_PSS_SHIFT pages                */
	uint64_t user_frames;      /* distinct frames mapped by user processes,
	                              the zero page excluded: what pss_total
	                              adds up to (both ~0: unknown, no memory
	                              for the kernel's census)               */
	uint64_t kmalloc_objects;  /* kmalloc objects allocated and not freed    */
	uint64_t shared_pd_pages;  /* PD pages with a share count above 1       */
	uint64_t fork_shared_pd;   /* PD pages shared by fork since boot        */
};

#endif

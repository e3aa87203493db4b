/* mm/memstat.h -- exact memory accounting per address space.
 *
 * Walking an address space's PD entries (not its pages) is enough: every
 * PT page counts its present entries, so
 *
 *   RSS  = sum over PT pages p the PD entries point at of present(p)
 *   PSS  = sum of present(p) / share(p)      (shared PT pages divided)
 *
 * in O(number of PT pages), exact even when PT pages are shared with other
 * processes (the problem the 2006 shared-page-table posts left open).
 */
#ifndef MM_MEMSTAT_H
#define MM_MEMSTAT_H

#include "kernel/types.h"

struct addrspace;
struct vma;

struct as_memstat {
	uint64_t vm_pages;         /* sum of VMA sizes */
	uint64_t rss_pages;        /* present leaf entries reachable */
	uint64_t pss_pages;        /* rss with shared PT pages divided */
	uint64_t lazyfree_pages;   /* present but MADV_FREE'd */
	uint64_t pt_pages;         /* PT (last-level) pages pointed at */
	uint64_t shared_pt_pages;  /* of which have share > 1 */
	uint64_t table_pages;      /* all user table pages (PDPT, PD, PT) */
};

/* Fill st for as (never fails, never allocates). */
void as_memstat(struct addrspace *as, struct as_memstat *st);

/* Page by page over one VMA, what Linux's smaps prints for it. Pages are
 * counted once per present leaf entry; the shared zero page is not resident
 * (as on Linux). A frame's sharers are the address spaces that map it:
 * share count of the PT page holding the entry times the PT pages mapping
 * the frame. PSS gives each sharer 1/sharers of the page, in fixed point
 * (pages << MEMSTAT_PSS_SHIFT) so that nothing is lost to division. */
#define MEMSTAT_PSS_SHIFT 16

struct vma_memstat {
	uint64_t rss_anon;         /* anonymous frames (outside shared memory) */
	uint64_t rss_file;         /* file frames (text, read-only file data) */
	uint64_t rss_shmem;        /* frames of MAP_SHARED|MAP_ANONYMOUS memory */
	uint64_t pss, pss_anon, pss_file, pss_shmem, pss_dirty; /* fixed point */
	uint64_t shared_clean, shared_dirty;     /* sharers > 1 */
	uint64_t private_clean, private_dirty;   /* sharers == 1 */
	uint64_t referenced;       /* hardware accessed bit set */
	uint64_t anonymous;        /* anonymous frames (smaps' Anonymous) */
	uint64_t lazyfree;         /* on the lazy-free list (MADV_FREE) */
};

/* Add v's pages (v belongs to as) to *st; the caller zeroes st first, so a
 * sum over all VMAs is smaps_rollup. Never fails, never allocates. */
void vma_memstat(struct addrspace *as, const struct vma *v, struct vma_memstat *st);

/* Resident pages in st: rss_anon + rss_file + rss_shmem. */
uint64_t vma_memstat_rss(const struct vma_memstat *st);

/* System-wide figures, in frames (what /proc/meminfo prints). */
struct mm_meminfo {
	uint64_t total;            /* free + kernel + anon + file + pagetable:
				    * every frame of RAM in use or free (the
				    * kernel image and boot modules included) */
	uint64_t free;             /* in the buddy allocator */
	uint64_t kernel;           /* kernel image, heap, stacks */
	uint64_t anon;             /* anonymous user frames */
	uint64_t file;             /* file frames: initrd contents, zero page */
	uint64_t file_mapped;      /* file frames some page table maps */
	uint64_t pagetable;        /* page-table pages, every level, once */
	uint64_t shared_pt;        /* PT pages with more than one sharer */
	uint64_t pt_saved;         /* PT pages sharing saved: sum of share - 1 */
	uint64_t lazyfree;         /* MADV_FREE'd pages still mapped */
};

/* Fill m: O(frames) (one pass over the frame database). */
void mm_meminfo(struct mm_meminfo *m);

#endif

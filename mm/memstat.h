/* mm/memstat.h -- memory accounting per address space: RSS, PSS, page
 * tables (what ps, /proc and the introspection calls read).
 *
 * One computation, page by page over each VMA (vma_memstat: smaps), and
 * as_memstat sums it for a whole address space (status, statm, ps,
 * pagoda_procinfo, PssTotal):
 *   RSS  = present leaf entries, the shared zero page excluded (it is not
 *          resident, as on Linux)                        O(pages)
 *   PSS  = over the same entries e, of
 *              1 / (share(PT page of e) x share(PD page above) x mappers(frame of e))
 *          where mappers(f) is the number of PT pages mapping frame f (its
 *          reference count less the one its file or object holds). A frame
 *          that two address spaces map after an unshare counts half to
 *          each; a frame in a PT page shared by 200 counts 1/200 to each.
 *          Kept in fixed point, units of 2^-PSS_SHIFT pages (Linux's
 *          PSS_SHIFT idea), so no sharer rounds to zero: the PSS of all
 *          processes adds up to the distinct frames they map.
 * The OOM killer alone counts RSS per PT page instead (pgt_rss,
 * mm/pt/pgtable.h: present(p) - zero(p) over the PT pages, O(PT pages)),
 * because it measures every process while memory is short; the two agree
 * (usertests rss_* and procfs_* compare them through /proc and ps).
 */
#ifndef MM_MEMSTAT_H
#define MM_MEMSTAT_H

#include "lib/types.h"

struct addrspace;
struct vma;

#define PSS_SHIFT 32   /* as_memstat.pss_frac is in 2^-32 pages */

struct as_memstat {
	uint64_t vm_pages;         /* sum of VMA sizes                  O(VMAs) */
	uint64_t rss_pages;        /* resident pages (vma_memstat's)   O(pages) */
	uint64_t pss_frac;         /* proportional share, 2^-PSS_SHIFT pages
	                              (see above)                      O(pages) */
	uint64_t pss_pages;        /* pss_frac rounded to pages */
	uint64_t lazyfree_pages;   /* present but MADV_FREE'd (smaps' LazyFree) */
	uint64_t pt_pages;         /* PT (last-level) pages pointed at */
	uint64_t shared_pt_pages;  /* of which reached by other address spaces too
				      (PT page or PD page above it share > 1) */
	uint64_t table_pages;      /* all user table pages (PDPT, PD, PT) */
};

/* Fill *st for as (every field; O(pages)). */
void as_memstat(struct addrspace *as, struct as_memstat *st);

/* The distinct frames that a set of address spaces maps (the zero page
 * excluded): what their PSS adds up to. Begin (-ENOMEM if its bitmap cannot
 * be allocated), add each address space, then end (frees the bitmap and
 * returns the count). O(pages). */
struct frame_census {
	uint8_t *seen;       /* one bit per frame */
	uint64_t frames;
};
int frame_census_begin(struct frame_census *c);
void frame_census_add(struct frame_census *c, struct addrspace *as);
uint64_t frame_census_end(struct frame_census *c);

/* Page by page over one VMA, what Linux's smaps prints for it. Pages are
 * counted once per present leaf entry; the shared zero page is not resident
 * (as on Linux). A frame's sharers are the address spaces that map it:
 * share count of the PT page holding the entry times the PT pages mapping
 * the frame. PSS gives each sharer 1/sharers of the page, in the fixed point
 * of as_memstat (2^-PSS_SHIFT pages), so that nothing is lost to division. */

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
	uint64_t swap;             /* swap entries: pages out on swap (smaps' Swap, VmSwap) */
	uint64_t swap_pss;         /* of those, this address space's share (fixed point):
				      an entry of a shared PT page counts for each sharer
				      in part, as Linux's SwapPss divides by the slot's count */
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
	uint64_t shared_pd;        /* PD pages with more than one sharer */
	uint64_t pt_saved;         /* table pages sharing saved: per shared PT page
				      share - 1, per shared PD page (share - 1)
				      times itself and its PT pages */
	uint64_t lazyfree;         /* MADV_FREE'd pages still mapped */
	uint64_t cached;           /* of file: page-cache pages (mm/pagecache.h) */
	uint64_t shmem;            /* of cached: tmpfs pages, which have no store */
	uint64_t buffers;          /* of cached: disks' own caches */
	uint64_t dirty;            /* of cached: not yet written back */
	uint64_t writeback;        /* of cached: being written out */
};

/* Fill m: O(frames) (one pass over the frame database). */
void mm_meminfo(struct mm_meminfo *m);

#endif

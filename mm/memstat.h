/* mm/memstat.h -- memory accounting per address space: RSS, PSS, page
 * tables (what ps, /proc and the OOM killer read).
 *
 *   RSS  = sum over the PT pages p the PD entries point at of
 *          present(p) - zero(p)                         O(PT pages)
 *          (zero(p): entries mapping the shared zero page, which is not
 *          resident, as on Linux)
 *   PSS  = sum over the same PT pages p, over their present entries e
 *          (the zero page excluded), of
 *              1 / (share(p) x mappers(frame of e))     O(pages)
 *          where mappers(f) is the number of PT pages mapping frame f (its
 *          reference count less the one its file or object holds). A frame
 *          that two address spaces map after an unshare counts half to
 *          each; a frame in a PT page shared by 200 counts 1/200 to each.
 *          Kept in fixed point, units of 2^-PSS_SHIFT pages (Linux's
 *          PSS_SHIFT idea), so no sharer rounds to zero: the PSS of all
 *          processes adds up to the distinct frames they map.
 */
#ifndef MM_MEMSTAT_H
#define MM_MEMSTAT_H

#include "kernel/types.h"

struct addrspace;

#define PSS_SHIFT 32   /* as_memstat.pss_frac is in 2^-32 pages */

struct as_memstat {
	uint64_t vm_pages;         /* sum of VMA sizes                  O(VMAs) */
	uint64_t rss_pages;        /* resident pages reachable      O(PT pages) */
	uint64_t pss_frac;         /* proportional share, 2^-PSS_SHIFT pages
	                              (see above)                      O(pages) */
	uint64_t pss_pages;        /* pss_frac rounded to pages */
	uint64_t lazyfree_pages;   /* present but MADV_FREE'd */
	uint64_t pt_pages;         /* PT (last-level) pages pointed at */
	uint64_t shared_pt_pages;  /* of which have share > 1 */
	uint64_t table_pages;      /* all user table pages (PDPT, PD, PT) */
};

/* Fill *st for as (every field; the cost is PSS's, O(pages)). */
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

#endif

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

struct as_memstat {
	uint64_t vm_pages;         /* sum of VMA sizes */
	uint64_t rss_pages;        /* present leaf entries reachable */
	uint64_t pss_pages;        /* rss with shared PT pages divided */
	uint64_t lazyfree_pages;   /* present but MADV_FREE'd */
	uint64_t pt_pages;         /* PT (last-level) pages pointed at */
	uint64_t shared_pt_pages;  /* of which have share > 1 */
	uint64_t table_pages;      /* all user table pages (PDPT, PD, PT) */
};

void as_memstat(struct addrspace *as, struct as_memstat *st);

#endif

/* mm/introspect.h -- what Pagoda's introspection system calls report about
 * memory, computed in mm (kernel/sys_pagoda.c only copies it out). The
 * structures are the user ABI of libc/include/pagoda/. */
#ifndef MM_INTROSPECT_H
#define MM_INTROSPECT_H

#include "lib/types.h"
#include "libc/include/pagoda/meminfo.h"
#include "libc/include/pagoda/procinfo.h"
#include "libc/include/pagoda/vmquery.h"

struct addrspace;

/* How page va (any user address; it is rounded down) is mapped in as: *q
 * zeroed, then its va, and if a leaf maps it: the entry, page size,
 * physical address, protection, software bits, the frame's reference
 * count; if a PT page holds it: that page's address, share and present
 * counts; VMQ_PT_WRPROT when the PD entry is write-protected. One walk;
 * never allocates, never unshares, never fails. */
void as_vmquery(struct addrspace *as, vaddr_t va, struct pagoda_vmquery *q);

/* Every system-wide figure of *m that mm counts: frames by type, page-table
 * sharing, faults, TLB flushes, lazy freeing, reclaim, OOM kills. Leaves
 * pss_total_frac and user_frames (a census over processes: the kernel's)
 * as they are. O(frames). */
void mm_fill_meminfo(struct pagoda_meminfo *m);

/* The memory figures of *pi for address space as (vm, rss, pss, lazy-free
 * and page-table pages; as_memstat, mm/memstat.h); the rest of *pi is left
 * as it is. O(pages). */
void as_fill_procinfo(struct addrspace *as, struct pagoda_procinfo *pi);

#endif

/* mm/pgrange.h -- page-table work over whole ranges (munmap, mprotect,
 * fork, exec/exit teardown), each one walk of mm/walk.c. */
#ifndef MM_PGRANGE_H
#define MM_PGRANGE_H

#include "lib/types.h"

struct pagetable;

/* Make the PT pages that map [start, end) of pgt private (pt_unshare)
 * before their leaf entries change, so that the change allocates nothing
 * and cannot fail. With PGR_KEEP_WHOLE, a shared PT page whose whole 2 MiB
 * lies inside the range stays shared (unmap just drops its share). 0, or
 * -ENOMEM: then no entry changed (some PT pages may be private now, which
 * no one can tell from the mappings). */
#define PGR_KEEP_WHOLE 0x1
int pgr_unshare(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags);

/* Unmap every present page in [start, end): entries cleared, one TLB flush,
 * frame references dropped, emptied page-table pages freed. Holes are fine.
 * All or nothing: 0, or -ENOMEM (unsharing failed) with nothing unmapped. */
int pgr_unmap(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* Give every present page in [start, end) protection prot (PGT_*) by
 * pgt_protect_entry. All or nothing: 0, or -ENOMEM with nothing changed. */
int pgr_protect(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned prot);

/* Classic fork of [start, end): copy the page-table entries of src into dst,
 * taking a reference on every frame; private pages (read-only ones too) become
 * copy-on-write in both (shared != 0 keeps them writable: MAP_SHARED).
 * Every table of dst is allocated before the TLB batch of src opens.
 * -ENOMEM if a table could not be allocated (dst is then partly filled). */
int pgr_copy(struct pagetable *dst, struct pagetable *src, vaddr_t start,
	     vaddr_t end, bool shared);

/* Eager fork of [start, end), no copy-on-write: every present private
 * anonymous page of src gets a new frame in dst holding a copy of its
 * contents, mapped with prot (PGT_R/W/X, the VMA's), so neither side faults
 * on its first write. Frames of MAP_SHARED ranges (shared != 0) and file
 * frames are mapped in dst as they are, with one more reference. src does
 * not change (shared PT pages of src stay shared). -ENOMEM if a frame or a
 * table could not be allocated (dst is then partly filled). */
int pgr_dup(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
	    unsigned prot, bool shared);

/* Replace the frame mapped at va (present) by pa with prot; the old frame's
 * reference is dropped after the flush, the new one is taken over. */
void pgr_replace(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot);

/* Make the PT page mapping va private (unshare it) before a leaf write that
 * no other pgr/pgt call will do, e.g. a write fault on a writable entry
 * under a write-protected PD entry. 0 or -ENOMEM. */
int pgr_prepare_write(struct pagetable *pgt, vaddr_t va);

#endif

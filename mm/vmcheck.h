/* mm/vmcheck.h -- the VM invariant checker over all address spaces.
 *
 *   vmcheck_begin(&c);  for each address space: vmcheck_add(&c, as);
 *   vmcheck_finish(&c);
 *
 * checks, and panics naming the object on the first violation:
 *   - every table page is a live table of its level with an exact present
 *     count (pgt_check);
 *   - a PD page's share count equals the number of PDPT entries, in all
 *     the address spaces, that point at it; a PT page's, the number of PD
 *     entries in distinct PD pages (a shared PD page counts once); a table
 *     an address space unlinked under readers and still holds
 *     (mm/pt/pgtable.h's stale tables) counts as one more such entry, and
 *     so does a published text page's record (mm/ptshare_text.c);
 *   - no writable PDPT entry points at a PD page, and no writable PD entry
 *     at a PT page, whose share count exceeds 1 (a write through it would
 *     bypass unsharing): every entry below a shared table is read-only to
 *     all its sharers;
 *   - a frame's reference count equals the number of PT pages mapping it
 *     (each PT page counts once however many share it, directly or through
 *     a shared PD page), plus one for a
 *     file frame (the file's own reference);
 *   - no private writable entry maps a frame with more than one reference
 *     (it would write into memory another mapping sees: broken COW);
 *   - user mappings map only user frames (anonymous or file), never
 *     kernel or page-table frames.
 */
#ifndef MM_VMCHECK_H
#define MM_VMCHECK_H

#include "lib/types.h"

struct addrspace;

struct vmcheck {
	uint32_t *table_refs; /* per frame: entries pointing at it (PT, PD pages) */
	uint32_t *maps;       /* per frame: entries mapping it (once per PT page) */
	uint64_t spaces, pd_pages, pt_pages, frames;
	bool kept;            /* the arrays are the reserved ones */
};

/* Reserve the counting arrays of one check for good (at boot, when checks
 * will run: the `vmcheck` option), so that a check under memory pressure
 * does not fail for its own memory. */
void vmcheck_reserve(void);

/* 0, or -ENOMEM if the counters cannot be allocated (the reserved ones are
 * in use by another check, or there are none). */
int vmcheck_begin(struct vmcheck *c);

/* Give the counters back (vmcheck_finish does; a caller that stops early). */
void vmcheck_release(struct vmcheck *c);
void vmcheck_add(struct vmcheck *c, struct addrspace *as);

/* Compare the counts with the frame database; then free the counters. */
void vmcheck_finish(struct vmcheck *c);

#endif

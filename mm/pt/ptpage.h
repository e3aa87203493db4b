/* mm/pt/ptpage.h -- page-table pages and the writes of their entries.
 *
 * A page-table page is a frame of type PG_PAGETABLE with, in its struct page,
 * pt.level, pt.share (address spaces pointing at it; 1 when private) and
 * count (its entries that hold something: present, PROT_NONE leaves and
 * swap entries, pte_holds; ptswap counts the last).
 * Those counts stay exact because EVERY entry write goes through one of two
 * functions:
 *   pt_set_leaf()   leaf entries (PTEs, and 2 MiB / 1 GiB pages); it panics
 *                   on a shared PT page: the walker (walk_ops.shared = walk_unshare)
 *                   and pt_unshare make tables private before leaf writes;
 *   pt_set_table()  entries that point at a lower table.
 * The table pages an address space holds (pagetable.nr_tables) change only
 * in the link and unlink functions below.
 */
#ifndef MM_PTPAGE_H
#define MM_PTPAGE_H

#include "mm/frame/page.h"
#include "lib/atomic.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pte.h"
#include "arch/x86_64/pv_ops.h"

struct pagetable;

/* Physical address of the shared zero page (mm/fault.c sets it once; 0: none
 * yet), so that every PT page can count the entries mapping it (pt.zero). */
extern paddr_t zero_frame_pa;

/* Does leaf entry e map the shared zero page? */
static inline bool pte_maps_zero(pte_t e)
{
	return pte_mapped(e) && zero_frame_pa && pte_addr(e) == zero_frame_pa;
}

/* A zeroed level-`level` table page (share 1, count 0), or NULL. */
struct page *ptpage_alloc(int level);

/* Is the caller, one of pt's sharers, its only one (pt.share == 1)? Then
 * it may write or free pt as its own, and the answer stays true: only a
 * sharer adds one (a fork of the caller's own address space). A published
 * text page is never sole: its record holds a share (mm/ptshare_text.c). */
bool ptpage_sole(struct page *pt);

/* Free a table page: it must have no present entries and one sharer. */
void ptpage_free(struct page *pt);

/* Resident pages a PT page maps: its entries that hold something less
 * those mapping the zero page and the swap entries. */
static inline uint64_t pt_resident(const struct page *pt)
{
	return (uint64_t)pt->count - pt->pt.zero - pt->ptswap;
}

/* The split page-table lock (Linux's ptl): each table page has its own
 * spinlock in struct page.ptl, initialised by ptpage_alloc: rank
 * LOCK_RANK_PTL for a PT page, LOCK_RANK_PTL_UPPER for the tables above,
 * so a PD page's lock may be held while one of its PT pages' is taken
 * (never the other way).
 *
 * Table structure (who links, unlinks, shares and frees a table; the rule
 * of docs/smp-and-locking.md, "Table structure"):
 *   - An entry of a table that points at a table below (a PD entry, ...)
 *     changes, and with it that table's present count, only under the
 *     address-space lock held for writing (munmap, mprotect, mremap, brk,
 *     fork, exit), or held for reading plus the lock of the table that
 *     holds the entry: a fault linking a new table (pt_table_alloc), a
 *     text attach or publish (mm/ptshare_text.c), an unshare switching
 *     to its copy (and under pgt->unshare_lock; presence unchanged).
 *   - Tables are unlinked and freed only by the address space's owner on
 *     those paths; reclaim changes leaves only (an emptied PT page stays
 *     until munmap or exit, as after MADV_DONTNEED). A table unlinked under
 *     the lock held for reading (an unshare's switch to its copy, a text
 *     PT page replaced by the published one) keeps that address space's
 *     reference until no reader can be in it (mm/pt/pgtable.h's stale
 *     tables: dropped under the lock held for writing or by the last
 *     reader), so a walker under the address-space lock never finds a
 *     table freed under it, even when the other sharers go meanwhile.
 *   - Under the lock for reading, the sharing state of a range changes in
 *     one way only: a text attach puts a published (file-only) PT page
 *     where there was none. Leaf writers under the read lock either unshare
 *     as they go outside a batch, or skip such a page (pgt_unmap with
 *     PGT_KEEP_TABLES: it maps the file's pages alone). Fork, which shares
 *     tables, holds the lock for writing; reclaim (a page-out, a lazy-free
 *     discard: pgt_page_out) holds it for reading and writes a shared PT
 *     page's leaf for all its sharers at once, under the table's lock.
 *
 * A PT page's lock is held by every path that changes its
 * leaf entries in an address space others may use at the same time --
 * fault install, COW break, unmap, protect, MADV_FREE, reclaim, exit
 * teardown, fork's write-protect: the walker takes it around a PT page's
 * entries for walk_ops with lock_leaves (mm/pt/walk.h).
 * It orders the software writers of the entries, and with them the present
 * counts; the MMUs' A/D writes are handled by the
 * atomic verbs below. Nothing allocates while holding it (an allocation
 * may reclaim, which takes PT locks), and no other PT lock nests in it.
 * The leaves of a PT page shared by several address spaces are written by
 * two paths only (every other writer unshares first): pt_wrprotect_shared,
 * one atomic write per entry made by an unsharer under the PD page's
 * write-protection; and pt_xchg_shared_leaf, a page leaving every sharer
 * at once (an object's truncated page, mm/rmap.h; a page-out,
 * pgt_page_out), under the shared page's lock -- which
 * pt_unshare also holds while it copies the page, so no copy keeps an
 * entry being cleared. */
static inline struct spinlock *pt_lock(struct page *pt)
{
	return &pt->ptl;
}

/* The table page holding entry ep, and a table page's entries. */
struct page *ptpage_of(const pte_t *ep);
pte_t *ptpage_entries(struct page *pt);

/* Is pt (NULL allowed) a table page of that level? */
static inline bool ptpage_is(const struct page *pt, int level)
{
	return pt && pt->type == PG_PAGETABLE && pt->pt.level == level;
}

/* Is table page pt held by more than one (address spaces, or an address
 * space and a published text record): its entries then read-only to all,
 * written only by unsharing? */
static inline bool ptpage_shared(const struct page *pt)
{
	return atomic_load(&pt->pt.share) > 1;
}

/* The address spaces sharing table page pt (at least 1): its share count
 * less a published text page's record's share, which no process's RSS,
 * PSS or picture carries. */
static inline uint32_t ptpage_sharers(const struct page *pt)
{
	uint32_t n = atomic_load(&pt->pt.share) - (pt->pt.text ? 1 : 0);
	return n ? n : 1;
}

/* The PML4 (entries) of an address space. */
pte_t *pt_root(struct pagetable *pgt);

/* Write leaf entry *ep (mapping va at level) of pgt, keeping the present
 * count of its table. Panics if the table is shared (unshare first). An
 */
void pt_set_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep, int level, pte_t e);

/* The read-modify-writes of a live leaf, atomic against the MMUs of all
 * CPUs, which may set Accessed and Dirty in a present entry at any time
 * (docs/smp-and-locking.md): nothing they set before the write is lost,
 * and the entry returned (the one replaced) has every bit they set up to
 * that moment. The bookkeeping is pt_set_leaf's (private table, counts);
 * the caller holds the PT page's lock.
 *
 * pt_xchg_leaf     store e; returns the old entry (Linux's ptep_get_and_clear
 *                  with e == 0: pt_get_and_clear). A large page (kernel
 *                  only, whose A/D nobody reads) is a plain write.
 * pt_modify_leaf   replace the 4 KiB leaf by f(old, arg) with compare-
 *                  exchange, recomputed when the MMU changed it meanwhile;
 *                  returns the old entry. f is pure: it only computes. */
pte_t pt_xchg_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep, int level, pte_t e);
static inline pte_t pt_get_and_clear(struct pagetable *pgt, vaddr_t va, pte_t *ep, int level)
{
	return pt_xchg_leaf(pgt, va, ep, level, 0);
}
typedef pte_t (*pte_modify_fn)(pte_t old, const void *arg);
static inline pte_t pt_modify_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep,
				   pte_modify_fn f, const void *arg);

/* Named pt_modify_leaf verbs; each returns the entry before the change.
 * mkcow: write-protect for copy-on-write (fork); mkclean: clear D
 * (MADV_FREE; the result's D says whether the page was written since the
 * last clean). Inline, as pt_modify_leaf: they run once per page of fork
 * and MADV_FREE. */
static inline pte_t verb_mkcow(pte_t e, const void *arg) { (void)arg; return pte_mkcow(e); }
static inline pte_t verb_mkold(pte_t e, const void *arg) { (void)arg; return pte_mkold(e); }
static inline pte_t verb_mkclean(pte_t e, const void *arg) { (void)arg; return pte_mkclean(e); }
static inline pte_t pt_leaf_mkcow(struct pagetable *pgt, vaddr_t va, pte_t *ep)
{
	return pt_modify_leaf(pgt, va, ep, verb_mkcow, NULL);
}
static inline pte_t pt_leaf_mkclean(struct pagetable *pgt, vaddr_t va, pte_t *ep)
{
	return pt_modify_leaf(pgt, va, ep, verb_mkclean, NULL);
}

/* Write-protect PT entry *ep of a SHARED PT page: e must be the same
 * present entry without W (and with COW), A and D aside (the entry gets
 * pte_mkcow of itself atomically, keeping what the MMUs set meanwhile). The one leaf change allowed in a
 * shared table, made by pt_unshare for all sharers at once (the others'
 * write-protected PD entries already keep them from writing). */
void pt_wrprotect_shared(pte_t *ep, pte_t e);

/* Clear PT entry *ep of a table reached through a write-protected entry
 * (shared, or below a shared PD page) for every address space that uses it
 * at once: the one removal allowed there, made when an object's pages
 * leave every mapping (a truncated file: pgt_unmap with PGT_ALL_SHARERS,
 * under the table's lock, which pt_unshare also holds while it copies the
 * table), or when a page goes out to swap (pt_xchg_shared_leaf with e its
 * swap entry: pgt_page_out). Returns the entry it replaced (0: none); the
 * caller drops its frame's (or slot's) reference, a frame's after a flush
 * of every CPU (tlb_reach_sharers). */
pte_t pt_xchg_shared_leaf(pte_t *ep, pte_t e);
static inline pte_t pt_clear_shared_leaf(pte_t *ep)
{
	return pt_xchg_shared_leaf(ep, 0);
}

/* Clear PT entry *ep of pgt's private PT page if it is present and clean
 * (D clear), atomically against the MMUs: a D that one sets before the
 * clear keeps the entry, a write after it faults (the MMU sets D in the
 * entry, which is gone). The discard of a lazy-free page (pgt_page_out's
 * PAGE_OUT_DISCARD), under the table's lock. Returns the entry it found:
 * cleared if it was present and clean, else left as it is. The frame's
 * reference is the caller's to drop after the flush. */
pte_t pt_clear_clean_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep);

/* Replace PT entry *ep of such a table by f(old, arg) for every address
 * space that uses it, atomically against the MMUs (pt_modify_leaf's rule):
 * f may only take permissions away (write-protect: write-back cleaning a
 * shared file mapping's pages, vmobject_wrprotect); frame and presence
 * stay, else a panic. Under the table's lock, as pt_clear_shared_leaf;
 * the flush is the caller's (tlb_reach_sharers). Returns the old entry. */
pte_t pt_modify_shared_leaf(pte_t *ep, pte_modify_fn f, const void *arg);

/* Write table entry *ep (at level > PGL_PT), keeping the present count.
 * Panics if the table holding ep is shared (a PD page: unshare first). */
void pt_set_table(pte_t *ep, int level, pte_t e);

/* Allocate a table for absent entry *ep (level > PGL_PT) covering va and
 * link it. Returns the new table page, or NULL when out of memory. Panics
 * when that would add a kernel-half PML4 entry after the kernel half was
 * frozen (user address spaces copy those entries once, at creation). */
struct page *pt_table_alloc(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va);

/* Link new private table t (level - 1) into absent entry *ep (level,
 * covering va): writable, user if va is. */
void pt_table_link(struct pagetable *pgt, pte_t *ep, int level, struct page *t, vaddr_t va);

/* Point absent entry *ep (a PD entry, or a PDPT entry) of pgt at table t
 * that other address spaces use (a PT page, or a PD page): write-protected
 * (mm/pt/share.h), one more sharer. pgt then holds t and, for a PD page, the
 * PT pages below it (nr_tables counts every table an address space reaches). */
void pt_table_link_shared(struct pagetable *pgt, pte_t *ep, int level, struct page *t);

/* Unlink the shared table that entry *ep (level PGL_PD or PGL_PDPT) of
 * pgt points at and return it: pgt's share is now the caller's, to drop with pt_table_put
 * AFTER every CPU running pgt flushed (tlb_defer_table): until then the
 * other sharers must not become its sole owner, which may then write it
 * (W back) while stale read-only translations through it remain on
 * pgt's CPUs. O(1) for a PD page. */
struct page *pt_table_unlink_shared(struct pagetable *pgt, pte_t *ep, int level);

/* Take W away from table entry *ep of a SHARED PD page (pd_unshare, for
 * all its sharers at once: their write-protected PDPT entries already keep
 * them from writing). The one table-entry change allowed in a shared table. */
void pt_table_wrprotect_shared(pte_t *ep);

/* Drop one reference to table t, whose entry was unlinked and every TLB
 * that could use t flushed: a private table (share 1) is freed; a shared
 * one loses a sharer, and the last one, if the others went meanwhile (two
 * sharers unsharing at once, each with its own copy), drops what t's
 * entries still hold (a PT page: frame references; a PD page: one share of
 * each PT page) and frees it. A put that leaves a published text table
 * (pt.text) with one share, its record's, counts in pt_text_unused. */
void pt_table_put(struct page *t);

/* Puts that left a published text table with its record's share alone:
 * the address-space layer's cue to give such tables back
 * (ptshare_text_release_unused, mm/ptshare.h), which resets it. A hint
 * only: the release checks each share under its own lock. */
extern uint64_t pt_text_unused;

/* Unlink the table that *ep points at and free it (it must be empty). */
void pt_table_free(struct pagetable *pgt, pte_t *ep, int level);

/* Unlink the (empty) table that *ep points at and return it: the caller
 * frees it with ptpage_free once the TLB was flushed (mm/pt/tlb.c). */
struct page *pt_table_unlink(struct pagetable *pgt, pte_t *ep, int level);

/* ---- pt_modify_leaf, inline: the per-page step of fork's write-protect
 * and of MADV_FREE. Out of line, it and its verb cost four calls and
 * returns per page, which TCG pays dearly: the MADV_FREE call on 1 MiB
 * took 68 us, 35 inline. */

/* The bookkeeping of a leaf write that changes the frame or presence
 * (pt_set_leaf's, out of line); caller names the call site
 * for the panic. */
void pt_leaf_account(struct pagetable *pgt, vaddr_t va, pte_t *ep, pte_t e, const void *caller);

/* Panics naming ep if its page is not a private PT page (an entry write
 * into a frame that is not a table of that level, or into a PT page that
 * is shared). */
void pt_leaf_bug(pte_t *ep, vaddr_t va, const void *caller);

/* Does old -> e change what the counts follow (the frame, presence, a
 * swap entry)? The verbs change permissions and software bits only. */
static inline bool pte_changes_bookkeeping(pte_t old, pte_t e)
{
	return pte_addr(e) != pte_addr(old) || pte_mapped(e) != pte_mapped(old) ||
	       pte_is_swap(e) != pte_is_swap(old);
}

static inline pte_t pt_modify_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep,
				   pte_modify_fn f, const void *arg)
{
	pte_t old = pte_read(ep), e = f(old, arg);
	struct page *pt = pa_to_page(V2P(ep));   /* ptpage_of, without the call */
	if (pte_changes_bookkeeping(old, e))
		pt_leaf_account(pgt, va, ep, e, __builtin_return_address(0));
	else if (!ptpage_is(pt, PGL_PT) || ptpage_shared(pt))
		pt_leaf_bug(ep, va, __builtin_return_address(0));
	for (;;) {   /* retried only when the MMU set A or D meanwhile */
		pte_t seen = pv_cmpxchg_pte(ep, old, f(old, arg));
		if (seen == old)
			return old;
		old = seen;
	}
}

#endif

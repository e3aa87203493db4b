/* mm/pt/pgtable.h -- the page-table API: the page tables of one address space
 * (struct pagetable), each operation written once on the walker (mm/pt/walk.h):
 *
 *   mm/pt/pgtable.c       create, destroy, activate, RSS; the point lookup
 *                      pgt_walk and pgt_lookup (one loop down the levels)
 *                      and a fault's one-page map on it (pgt_map_fault);
 *                      protection -> entry bits
 *   mm/pt/pgtable_edit.c  map, unmap, protect, replace, unshare (ranges)
 *   mm/pt/pgtable_copy.c  fork's copies of a range: copy-on-write, eager
 *
 * (struct addrspace, mm/as.h, is the VMAs plus one of these.)
 *
 * Page-table pages and the two entry writers are mm/pt/ptpage.h.
 *
 *   struct pagetable --root--> PML4  [0..255]  user half, private
 *                                    [256..511] kernel half: the same PDPT
 *                                               pages in every PML4
 *
 * Frame references: a mapping owns one reference on the frame it maps.
 * pgt_map() TAKES OVER the caller's reference (it does not page_get), and
 * pgt_unmap() / pgt_destroy() drop it (page_put). Frames outside the frame
 * database or of type PG_RESERVED (MMIO) are mapped without references.
 */
#ifndef MM_PGTABLE_H
#define MM_PGTABLE_H

#include "mm/frame/page.h"
#include "mm/pt/vmflags.h"
#include "arch/x86_64/pte.h"
#include "lib/spinlock.h"

struct tlb_batch;

struct stale_table;

struct pagetable {
	struct page *root;       /* the PML4 page */
	uint64_t nr_tables;      /* table pages below the PML4 (private) */
	struct spinlock unshare_lock; /* table_unshare: one thread at a time */
	struct stale_table *stale;    /* unlinked under readers: pgt_defer_put */
};

/* ---- tables unlinked while readers may be in them ----
 *
 * Walkers that only read (a fault's look-up, /proc, the OOM killer) hold
 * the address space's lock for reading and take no table lock, so a table
 * unlinked under that lock held for reading (an unshare switching to its
 * private copy, a text PT page replaced by the published one) may still
 * be read by another CPU that passed the old entry just before. Its
 * reference is therefore not dropped there but recorded here, and dropped
 * (pt_table_put) by pgt_release_stale when no reader can be in it: with the
 * address-space lock held for writing, by the last reader leaving, with
 * every other CPU stopped (the invariant checker), or at destruction.
 *
 *     unlink (read lock) --> pgt->stale --> pt_table_put (no readers)
 *
 * The record is allocated before the unlink (the caller's -ENOMEM), so
 * deferring never fails. */
struct stale_table {
	struct stale_table *next;
	struct page *table;
};

/* Record s (the caller's allocation, now pgt's) for table t: pgt's
 * reference to t is dropped at the next pgt_release_stale. Lock-free: any
 * context. */
void pgt_defer_put(struct pagetable *pgt, struct stale_table *s, struct page *t);

/* Are tables waiting for pgt_release_stale? */
bool pgt_has_stale(const struct pagetable *pgt);

/* Drop every recorded reference (pt_table_put) and free the records.
 * Only when no reader can be in those tables (see above). */
void pgt_release_stale(struct pagetable *pgt);

/* Protection for pgt_map/pgt_protect/pgt_replace: VM_ bits (mm/pt/vmflags.h),
 * the access bits plus VM_COW, VM_FILE and VM_SHARED for the entry's
 * software bits. The user bit follows the address (user half: U, kernel
 * half: global). A user mapping with no access bit (VM_NONE) keeps its
 * frame in a PROT_NONE entry that is not present: every access faults, the
 * kernel's too. */

/* The kernel's page table (mm/pt/kvm.c); every user PML4 shares its upper half. */
extern struct pagetable kernel_pgt;

/* A new user address space: empty user half, kernel half shared. NULL when
 * out of memory. */
struct pagetable *pgt_create(void);

/* Free every user table page of pgt and its PML4, dropping the reference of
 * every mapped frame (or just the share of a shared PT page). pgt must not
 * be the active one. */
void pgt_destroy(struct pagetable *pgt);

/* ---- the point lookup (mm/pt/pgtable.c) ---- */

#define PGT_WALK_ALLOC 0x1     /* allocate missing tables down to the level */
#define PGT_WALK_UNSHARE 0x2   /* make a shared PT page under va private */

/* xv6's walk(): the entry of pgt for va at `level` (PGL_PT..PGL_PML4) in
 * *ep, present or not. Returns the level of *ep: `level`, or higher when
 * a large page maps va (then *ep is that leaf); 0 when no table at `level`
 * covers va (without PGT_WALK_ALLOC) or va is not canonical (*ep = NULL);
 * -ENOMEM when a table or an unshared PT page could not be allocated.
 * PGT_WALK_UNSHARE makes a shared PT page mapping va private on the way
 * down (walk_unshare, mm/pt/share.h) before a leaf write; it flushes in a
 * TLB batch of its own, so never inside one (batches do not nest). */
int pgt_walk(struct pagetable *pgt, vaddr_t va, int level, unsigned flags, pte_t **ep);

/* Is va mapped (by a 4 KiB, 2 MiB or 1 GiB page, or a PROT_NONE entry:
 * then *flags lacks PTE_P)? Any va may be asked (non-canonical ones are
 * not mapped). Then *pa = its physical address (with va's offset) and
 * *flags = the leaf entry's flag bits (test them with the pte.h
 * accessors). Either pointer may be NULL. */
bool pgt_lookup(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags);

/* The one point lookup, of which pgt_lookup and pgt_lookup_write are the
 * two common uses: what the 4 KiB (or large) leaf for va holds, with
 * pgt_walk's flags (0 or PGT_WALK_UNSHARE). PGT_MAPPED: *pa and *flags as
 * pgt_lookup's; PGT_SWAPPED: the entry is a swap entry, all of it in
 * *flags (pa untouched); PGT_ABSENT; or -ENOMEM (unsharing failed). */
enum { PGT_ABSENT = 0, PGT_MAPPED = 1, PGT_SWAPPED = 2 };
int pgt_lookup_at(struct pagetable *pgt, vaddr_t va, unsigned flags, paddr_t *pa, pte_t *fl);

/* pgt_lookup before a leaf write at user address va: the same walk first
 * makes a shared PT page mapping va private (PGT_WALK_UNSHARE; a no-op
 * when the PD entry is writable), so *flags is the entry the write will
 * change. pgt_lookup_at's result: PGT_MAPPED (1), PGT_ABSENT (0),
 * PGT_SWAPPED or -ENOMEM if unsharing failed. */
int pgt_lookup_write(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags);

/* ---- changing entries over ranges (mm/pt/pgtable_edit.c) ----
 *
 * Ranges are page aligned. A function that changes present entries takes
 * the open TLB batch of the page table it changes (b->pgt, mm/pt/tlb.h) and
 * notes every change there; the caller closes it (tlb_end: one flush, then
 * the frames and tables are freed). Those functions allocate nothing
 * (page_alloc panics inside a batch): the caller unshares first
 * (pgt_unshare). They work on 4 KiB pages: a large page in the range is a
 * panic. pgt_map only fills absent entries -- no TLB holds them -- and
 * allocates tables, so it takes no batch and must run outside one. */

#define PGT_STRICT 0x1       /* a hole in the range is an error (see each) */
#define PGT_KEEP_WHOLE 0x2   /* pgt_unshare: keep whole shared PT pages */
#define PGT_KEEP_TABLES 0x4  /* pgt_unmap: clear leaves only, every table stays */
#define PGT_ALL_SHARERS 0x8  /* pgt_unmap, pgt_protect: change leaves of shared
			      * tables too, for all their sharers (an object's
			      * pages leaving every mapping, or write-protected
			      * in all: mm/rmap.h) */
#define PGT_KEEP_COPIES 0x10 /* pgt_unmap: private copies (anonymous frames in a
			      * private mapping of an object) stay */
#define PGT_SPARE_YOUNG 0x20 /* pgt_unmap: an entry the MMU marked accessed since
			      * the last look stays, its A bit cleared (a
			      * second chance: reclaim) */

/* What a fault mapping an object's page checks under the PT lock before it
 * writes the entry: *seq (the object's unmap count, mm/rmap.h) still reads
 * `seen`, the value before the fault took the page. An unmap of the
 * object's pages from every mapping raises the count before it walks, and
 * clears entries under the same locks, so a fault that got its page
 * before the unmap either installs before the walk reaches the entry
 * (which then clears it) or sees the new count and installs nothing. */
struct map_guard {
	const uint32_t *seq;
	uint32_t seen;
};

/* Does guard g (NULL: none) still hold? Read under the PT lock, whose
 * taking (a locked instruction on x86) orders it after the walk's table
 * writes: a walk that found no table there raised the count before. */
static inline bool map_guard_holds(const struct map_guard *g)
{
	return !g || __atomic_load_n(g->seq, __ATOMIC_SEQ_CST) == g->seen;
}

/* A page fault's install of one page: pgt_map of [va, va + PAGE_SIZE),
 * except that an entry another CPU mapped meanwhile (a fault racing on the
 * same page: the caller looked before taking the PT lock) is -EEXIST, and
 * an object's page whose guard g (NULL: none) failed is -EAGAIN; then the
 * caller keeps its reference. 0, -ENOMEM, -EEXIST or -EAGAIN. */
int pgt_map_fault(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot,
		  const struct map_guard *g);

/* pgt_map_fault for a run of n pages (at most 32, all in va's PT page:
 * panics else) from va on: page i at pa[i], or none where pa[i] is 0; the
 * entries mapped already are left alone. One descent and one hold of the
 * PT lock (a read fault's neighbours: mm/fault.c fault_around). Bit i of
 * *mapped says page i was mapped (its reference is the entry's now; the
 * caller keeps the others). 0, -ENOMEM, or -EAGAIN when g failed (nothing
 * mapped). */
int pgt_map_run(struct pagetable *pgt, vaddr_t va, unsigned n, const paddr_t *pa, unsigned prot,
		const struct map_guard *g, uint32_t *mapped);

/* Put swap entry e into the absent entry for va (mremap moving a swapped-out
 * page): its slot gains the entry's reference. 0 or -ENOMEM (a table);
 * panics if the entry holds something. */
int pgt_map_swap(struct pagetable *pgt, vaddr_t va, pte_t e);

/* Map [va, va + len) to [pa, pa + len) with prot. All or nothing: 0, or
 * -ENOMEM (nothing changed). Panics if a page is already mapped. */
int pgt_map(struct pagetable *pgt, vaddr_t va, paddr_t pa, uint64_t len, unsigned prot);

/* Make the PT pages that map [start, end) of pgt private (pt_unshare)
 * before their leaf entries change in a batch. With PGT_KEEP_WHOLE, a
 * shared PT page whose whole 2 MiB lies inside the range stays shared
 * (pgt_unmap just drops its share). 0, or -ENOMEM: then no entry changed
 * (some PT pages may be private now, which no one can tell from the
 * mappings). Allocates: outside a batch. */
int pgt_unshare(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags);

/* Unmap every mapped page of b->pgt in [start, end): entries cleared, frame
 * references dropped and emptied tables freed after b's flush. A shared PT
 * page the range covers whole loses b->pgt's share; others must have been
 * unshared. Holes are fine, with PGT_STRICT a panic. Kernel-half PML4
 * entries stay (every PML4 shares them). With PGT_KEEP_TABLES only leaves
 * change: no table is unlinked or freed, so page faults of other threads
 * may walk the range meanwhile (madvise under the lock for reading); every
 * table in the range must be private (pgt_unshare without PGT_KEEP_WHOLE),
 * else a panic naming it -- except with PGT_ALL_SHARERS (and
 * PGT_KEEP_TABLES): nothing is unshared first, and a leaf in a table other
 * address spaces use too is cleared for all of them at once
 * (pt_clear_shared_leaf; the batch then flushes every CPU). That is how
 * an object's pages leave every mapping (a truncated file, mm/rmap.h):
 * the caller visits each address space that maps them under its lock for
 * reading, and this walk holds b->pgt's unshare_lock, so none of its
 * sharers' unsharing copies an entry it is clearing (pt_unshare copies
 * under the table's lock). With PGT_KEEP_COPIES, private copies stay; with
 * PGT_SPARE_YOUNG, so do entries accessed since the last look (no flush for
 * the A bit cleared, as Linux's ptep_clear_flush_young on x86). */
void pgt_unmap(struct tlb_batch *b, vaddr_t start, vaddr_t end, unsigned flags);

/* Give every mapped page of b->pgt in [start, end) protection prot by
 * pgt_protect_entry (the PT pages must be private). 0; with PGT_STRICT,
 * -ENOENT at the first hole (the pages before it changed). With
 * PGT_ALL_SHARERS (prot without VM_WRITE: write-back cleaning a shared
 * file mapping's pages, mm/rmap.h), nothing is unshared and a table that
 * other address spaces use changes for all of them, as pgt_unmap's. */
int pgt_protect(struct tlb_batch *b, vaddr_t start, vaddr_t end, unsigned prot,
		unsigned flags);

/* Replace the frame mapped at va (its PT page private) by pa with prot,
 * if the entry is still `expect` (the MMU's accessed and dirty bits aside):
 * a fault of another thread on the same page may have replaced or unmapped
 * it since the caller looked (a COW break copies before it takes the PT
 * lock). 0: the old frame's reference is dropped after b's flush and the
 * new one is taken over -- unless pa is the frame mapped now (a COW break
 * reusing the last sharer's frame): then only the entry changes and its
 * reference stays; -EAGAIN: nothing changed (also when guard g, NULL for
 * none, failed), the caller keeps its reference (and retries the access). */
int pgt_replace(struct tlb_batch *b, vaddr_t va, pte_t expect, paddr_t pa, unsigned prot,
		const struct map_guard *g);

/* What pgt_page_out is asked to do at a mapping of the frame. */
enum page_out_how {
	PAGE_OUT_AGE,         /* read and clear the Accessed bit only */
	PAGE_OUT_SWAP,        /* as AGE if accessed, else put swap entry swp in its place */
	PAGE_OUT_DISCARD,     /* a lazy-free page (MADV_FREE): clear the entry if it is
				 clean, in a PT page of this address space alone,
				 and nothing but it and the caller's hold
				 references the frame; Accessed does not matter */
};

/* What pgt_page_out found and did. */
enum page_out_result {
	PAGE_OUT_NOT_MAPPED,  /* no present entry at va maps the frame */
	PAGE_OUT_YOUNG,       /* it was accessed since the last look: A cleared */
	PAGE_OUT_OLD,         /* not accessed (AGE: nothing changed) */
	PAGE_OUT_DONE,        /* replaced by swap entry swp, or cleared (DISCARD) */
	PAGE_OUT_DIRTY,       /* DISCARD: written since MADV_FREE cleaned it: kept */
	PAGE_OUT_SHARED,      /* DISCARD: reachable otherwise too (a second entry, a
				 PT page fork shared, a reference of the kernel's):
				 kept */
};

/* Reclaim's step at one mapping of frame pg (the anonymous reverse map
 * found it at va of b->pgt), as `how` says (above). SWAP: the slot gains
 * the entry's reference; SWAP and DISCARD: the frame's reference is dropped
 * after b's flush. DISCARD clears the entry with a compare-exchange that
 * fails once the MMU of another CPU set D (pt_clear_clean_leaf; Linux's
 * try_to_unmap_one for a lazy-free folio): a write is never lost. The
 * caller holds pg (page_hold: AF_RECLAIM, counted by anon_unmapped_refs).
 * Like pgt_unmap with PGT_ALL_SHARERS, nothing is unshared: an entry of a
 * PT page that several address spaces share changes for all of them at
 * once (one entry, one page-out for every sharer; the flush then reaches
 * every CPU). Allocates nothing; the caller holds b->pgt's address-space
 * lock for reading. */
enum page_out_result pgt_page_out(struct tlb_batch *b, vaddr_t va, struct page *pg,
				  enum page_out_how how, pte_t swp);

/* Entry e (a present 4 KiB leaf at va) with protection prot: frame,
 * accessed, dirty and software bits kept. A private user entry gets W only
 * when its frame is anonymous and mapped once (Linux's
 * can_change_pte_writable); otherwise it stays, or becomes, copy-on-write. */
pte_t pgt_protect_entry(pte_t e, vaddr_t va, unsigned prot);

/* ---- fork's copies of a range (mm/pt/pgtable_copy.c; sharing whole PT pages
 * is mm/pt/share.h's pgt_share) ---- */

/* Copy-on-write fork of [start, end) of b->pgt (the parent, whose tables
 * there are private: pgt_unshare first; a shared one is a panic) into dst:
 * dst's tables are allocated as the walk goes, the entries copied, a
 * reference taken on every frame; private pages (read-only ones too)
 * become copy-on-write in both, the parent's write-protections noted in b;
 * with VM_SHARED in flags they stay writable (MAP_SHARED). 0, or -ENOMEM
 * (dst is then partly filled: pgt_destroy frees it; the parent's pages made
 * copy-on-write stay so, which costs a fault each, as in Linux). */
int pgt_copy(struct tlb_batch *b, struct pagetable *dst, vaddr_t start, vaddr_t end,
	     unsigned flags);

/* Eager fork of [start, end), no copy-on-write: every present private
 * anonymous page of src gets a new frame in dst holding a copy of its
 * contents, mapped with prot (the VMA's VM_ access bits), so neither side faults
 * on its first write. Frames of MAP_SHARED ranges (shared != 0) and file
 * frames are mapped in dst as they are, with one more reference. src does
 * not change (so no batch; shared PT pages of src stay shared). -ENOMEM if
 * a frame or a table could not be allocated (dst is then partly filled). */
int pgt_dup(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
	    unsigned prot, bool shared);

/* ---- the address space's page table (mm/pt/pgtable.c) ---- */

/* Make pgt the current address space (load CR3). */
void pgt_activate(struct pagetable *pgt);

/* Physical address of pgt's PML4 (the CR3 value). */
paddr_t pgt_root_pa(const struct pagetable *pgt);

/* Is pgt the address space the CPU is using now? */
bool pgt_active(const struct pagetable *pgt);

/* Present leaf entries (4 KiB pages) in pgt's user half less those mapping
 * the shared zero page (which is not resident, as on Linux): the resident
 * set, from the PT pages' present and zero counts in O(page-table pages). */
uint64_t pgt_rss(struct pagetable *pgt);

/* The leaf entry bits for prot at va (user or kernel half). */
pte_t pgt_prot_bits(vaddr_t va, unsigned prot);

/* Forbid (or, while building it again, allow) new kernel-half PML4 entries
 * (mm/pt/kvm.c). */
void pgt_freeze_kernel_half(bool frozen);

#endif

/* mm/pt/share.h -- sharing page-table pages between address spaces: the
 * mechanics (the policy, which ranges fork shares and the shared program
 * text, is the address-space layer's: mm/fork.c, mm/ptshare.h).
 *
 * A PT page maps 2 MiB. Fork can give the child the parent's PT pages
 * instead of copying 512 entries each (On-demand-fork, McCracken):
 *
 *   parent PD [i] --(no W)--+
 *                           +--> PT page (share 2) --> frames
 *   child  PD [i] --(no W)--+     one reference per frame, whatever the share
 *
 * Both PD entries lose their write bit, so any write through them faults.
 * Before ANY leaf entry of a shared PT changes (write fault, munmap,
 * mprotect, madvise, brk, exec/exit teardown, copyout), table_unshare()
 * runs pt_unshare() -- the one choke point, reached from walk_unshare (the
 * walk_ops.shared of every walk that changes leaves, mm/pt/walk.h) and from
 * the point lookup pgt_walk(PGT_WALK_UNSHARE) (a fault's look-up and install):
 *   share 1: give the PD entry its write bit back;
 *   share > 1: copy the PT page, take a reference on each mapped frame,
 *   write-protect the private entries in both copies (they become
 *   ordinary copy-on-write pages), point the PD entry at the copy, drop one
 *   share, flush the TLB.
 * Teardown drops one share; the sharer that takes it to zero frees the PT
 * page and its frame references (mm/pt/pgtable.c, mm/pt/pgtable_edit.c).
 *
 * One level up (ptshare=pd), fork shares a whole PD page (1 GiB) when every
 * VMA in that 1 GiB is private memory inside it:
 *
 *   parent PDPT [g] --(no W)--+
 *                             +--> PD page (share 2) --> PT pages (share 1)
 *   child  PDPT [g] --(no W)--+
 *
 * A change below unshares level by level on the way down (the walker):
 * pd_unshare first (copy the 512 PD entries, write-protected; each PT page
 * below gets one more sharer), then pt_unshare as above. Teardown of a
 * shared PD page drops one share: O(1), as cheap as its fork. Rule for the
 * checker (mm/vmcheck.c): a table with share > 1 is reached only
 * through write-protected entries, so every entry below it is read-only to
 * all its sharers.
 */
#ifndef MM_PT_SHARE_H
#define MM_PT_SHARE_H

#include "lib/types.h"
#include "arch/x86_64/pte.h"

struct pagetable;
struct tlb_batch;
struct page;
struct walk;

struct ptshare_stats {
	uint64_t fork_shared;     /* PT pages shared by fork */
	uint64_t fork_shared_pd;  /* PD pages shared by fork */
	uint64_t fork_copied;     /* PT-sized chunks fork had to copy */
	uint64_t unshare_copy;    /* unshares that copied a PT page */
	uint64_t unshare_last;    /* unshares of the last sharer (no copy) */
	uint64_t pd_unshare_copy; /* unshares that copied a PD page */
	uint64_t pd_unshare_last; /* PD unshares of the last sharer */
	uint64_t text_created;    /* text PT pages built for sharing */
	uint64_t text_attached;   /* text PT pages reused by another process */
};
extern struct ptshare_stats ptshare_stats;

/* Is table entry e (a PD entry, or a PDPT entry, at user address va) one
 * to a table shared or write-protected for sharing, so writes below it
 * need table_unshare() first? */
bool pt_needs_unshare(pte_t e, vaddr_t va);

/* Make the PT page under PD entry *pde private to pgt and writable. 0, or
 * -ENOMEM (nothing changed). The PD page holding pde must be private. */
int pt_unshare(struct pagetable *pgt, pte_t *pde, vaddr_t va);

/* Make the PD page under PDPT entry *pdpte private to pgt and writable:
 *   share 1: give the PDPT entry its write bit back;
 *   share > 1: copy the PD page (512 entries), every PT page below gets one
 *   more sharer, every PD entry in both copies loses W, point the PDPT
 *   entry at the copy (with W), flush, drop one share.
 * The PT pages below stay shared: pt_unshare makes them private one by one
 * when a leaf below changes. 0, or -ENOMEM (nothing changed). */
int pd_unshare(struct pagetable *pgt, pte_t *pdpte, vaddr_t va);

/* pd_unshare (level PGL_PDPT) or pt_unshare (level PGL_PD) of entry *ep,
 * under pgt->unshare_lock, unless another thread of pgt made it private
 * meanwhile. 0 or -ENOMEM. */
int table_unshare(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va);

/* The walk_ops.shared of every walk that changes leaves (mm/pt/walk.h):
 * table_unshare of the walk's entry, so the table below is private before
 * the walk descends into it. 0 or -ENOMEM. */
int walk_unshare(struct walk *w);

/* The PD entry slot of pgt for the chunk at va, allocating the tables
 * above it and making a shared PD page above it private; NULL when out of
 * memory. Allocates: outside every spinlock, before pt_share_into. */
pte_t *pt_share_slot(struct pagetable *pgt, vaddr_t va);

/* Point PD entry *slot of pgt (from pt_share_slot, under the address-space
 * lock held since) at PT page pt, shared and write-protected, under the
 * PD page's lock. Allocates nothing (callers hold text_lock). 0 (also if
 * it points at pt already), or -EEXIST: another PT page is there (a fault
 * of another thread built one meanwhile). */
int pt_share_into(struct pagetable *pgt, pte_t *slot, struct page *pt);

/* pgt_share flags. */
#define PGT_SHARE_PD 0x1          /* [start, end) lies inside one 1 GiB whose
				     every mapping is private memory inside
				     it: share its PD page whole */
#define PGT_SHARE_MAPSHARED 0x2   /* a MAP_SHARED range: chunks it covers in
				     part are copied as shared mappings */

/* Give dst the tables of b->pgt (src) for [start, end), in src's TLB batch
 * b: the PD page of the 1 GiB whole with PGT_SHARE_PD (or when it is
 * already shared), else every PT page whose 2 MiB lies inside the range
 * (or is already shared) -- src's entry write-protected (noted in b), one
 * more sharer -- and the rest copied entry by entry
 * (pgt_copy: src's PT pages there are private, as only a shared one may be
 * met partly). dst's tables are allocated as it goes. 0, or -ENOMEM (dst
 * partly filled: pgt_destroy frees it). */
int pgt_share(struct tlb_batch *b, struct pagetable *dst, vaddr_t start, vaddr_t end,
	      unsigned flags);

#endif

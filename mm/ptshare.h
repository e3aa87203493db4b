/* mm/ptshare.h -- sharing last-level page-table pages between address spaces.
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
 * mprotect, madvise, brk, exec/exit teardown, copyout), the walker calls
 * pt_unshare() -- the one choke point (mm/walk.c, struct walk.write):
 *   share 1: give the PD entry its write bit back;
 *   share > 1: copy the PT page, take a reference on each mapped frame,
 *   write-protect the private entries in both copies (they become
 *   ordinary copy-on-write pages), point the PD entry at the copy, drop one
 *   share, flush the TLB.
 * Teardown drops one share; the sharer that takes it to zero frees the PT
 * page and its frame references (mm/pgtable.c, mm/pgtable_edit.c).
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
 * checker (mm/ptshare_check.c): a table with share > 1 is reached only
 * through write-protected entries, so every entry below it is read-only to
 * all its sharers.
 */
#ifndef MM_PTSHARE_H
#define MM_PTSHARE_H

#include "lib/types.h"
#include "arch/x86_64/pte.h"

struct pagetable;
struct tlb_batch;
struct addrspace;
struct vma;
struct page;
struct vmobject;

enum ptshare_mode {
	PTSHARE_OFF,    /* classic fork: copy the page tables */
	PTSHARE_FORK,   /* fork shares PT pages */
	PTSHARE_ALL,    /* fork, plus program text shared across processes */
	PTSHARE_PD,     /* all, and fork shares whole PD pages (1 GiB): the
			   default, fork flat in memory size and a small fork
			   no dearer than under ALL (docs/benchmarks.md) */
};
extern enum ptshare_mode ptshare_mode;

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
 * meanwhile: the walker's choke point (mm/walk.c). 0 or -ENOMEM. */
int table_unshare(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va);

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

/* ptshare_fork_* flag: the caller found v to lie inside one 1 GiB whose
 * every VMA is private memory inside it: share its PD page whole. */
#define PTSHARE_FORK_PD 0x1

/* Fork VMA v from src into dst, in two steps: ptshare_fork_prepare
 * allocates what the fork needs (the child's PDPT and PD slots, the tables
 * of the chunks to copy) outside a batch, 0 or -ENOMEM (dst may hold empty
 * tables); then ptshare_fork_vma, in src's TLB batch b, shares the PD page
 * of v's 1 GiB whole with PTSHARE_FORK_PD (or when it is already shared: its
 * PDPT entry write-protected), else every PT page whose 2 MiB lies inside v
 * (or is already shared), write-protecting src's entries (noted in b), and
 * copies the rest entry by entry (pgt_copy). It allocates nothing. A PD
 * page shared whole loses src's lazy-free records (mm/lazyfree.h) while
 * preparing: none ever lives below a shared PD page. */
int ptshare_fork_prepare(struct pagetable *dst, struct pagetable *src, const struct vma *v,
			 unsigned flags);
void ptshare_fork_vma(struct tlb_batch *b, struct pagetable *dst, const struct vma *v,
		      unsigned flags);

/* Shared program text (mm/ptshare_text.c), exec's question to mm once the
 * images are mapped: under ptshare=all, attach the PT pages of read-only
 * file mappings that another process running the same file at the same
 * address already built, or build and publish them; other modes: nothing. */
void ptshare_text_attach(struct addrspace *as);

/* A read fault at va (not mapped) in VMA v of as: under ptshare=all, when
 * the 2 MiB chunk of va has no PT page yet and holds only read-only
 * mappings of v's file (a library the loader mapped with mmap), attach the
 * published PT page of that chunk or build and publish it. true when it did
 * either (va may still be unmapped if memory ran out: fault it normally). */
bool ptshare_text_fault(struct addrspace *as, const struct vma *v, vaddr_t va);

/* The pages of a shared object to place, at its link addresses: [lo, hi)
 * page aligned, its first writable page at wr (hi when it has none). */
struct lib_span {
	vaddr_t lo, wr, hi;
};

/* Where to map the shared object file of span s in as (the address for
 * s->lo): its canonical address, the same in every process, in a slot of
 * the library area (USER_LIB_BASE) that the file gets on first use, placed
 * so that its first writable page starts a 2 MiB chunk and its read-only
 * pages fill the chunks below on their own (shareable PT pages). 0 when the
 * slot is taken in as (a mapping overlaps it), the area is full or the span
 * is larger than the area: the caller places it the ordinary way. Never
 * maps anything; the slot table lives forever, as the initrd's files. */
vaddr_t ptshare_lib_place(struct addrspace *as, struct vmobject *file, const struct lib_span *s);

/* A text PT page is being freed: forget its record (takes the text-share
 * lock: call with no lock of a higher rank held). Panics if it has none. */
void ptshare_text_forget(struct page *pt);

/* ptpage_sole() of a published text PT page: is the caller its only
 * sharer? If so the page is unpublished in the same step (under the
 * text-share lock, which attaching takes too), so no exec attaches to it
 * afterwards and the answer true stays true. */
bool ptshare_text_take(struct page *pt);

/* Set the mode from the command line value ("off", "fork", "all", "pd"). */
void ptshare_set_mode(const char *value);

const char *ptshare_mode_name(void);

#endif

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
};
extern enum ptshare_mode ptshare_mode;

struct ptshare_stats {
	uint64_t fork_shared;     /* PT pages shared by fork */
	uint64_t fork_copied;     /* PT-sized chunks fork had to copy */
	uint64_t unshare_copy;    /* unshares that copied a PT page */
	uint64_t unshare_last;    /* unshares of the last sharer (no copy) */
	uint64_t text_created;    /* text PT pages built for sharing */
	uint64_t text_attached;   /* text PT pages reused by another process */
};
extern struct ptshare_stats ptshare_stats;

/* Is PD entry e (at user address va) a PT page shared or write-protected
 * for sharing, so leaf writes below it need pt_unshare() first? */
bool pt_needs_unshare(pte_t e, vaddr_t va);

/* Make the PT page under PD entry *pde private to pgt and writable. 0, or
 * -ENOMEM (nothing changed). */
int pt_unshare(struct pagetable *pgt, pte_t *pde, vaddr_t va);

/* Point pgt's PD entry for the 2 MiB chunk at va at PT page pt (shared,
 * write-protected), allocating the tables above it. 0 or -ENOMEM. */
int pt_share_into(struct pagetable *pgt, vaddr_t va, struct page *pt);

/* Fork VMA v from src into dst, in two steps: ptshare_fork_prepare
 * allocates what the fork needs (the child's PD slots, the tables of the
 * chunks to copy) outside a batch, 0 or -ENOMEM (dst may hold empty
 * tables); then ptshare_fork_vma, in src's TLB batch b, shares every PT
 * page whose 2 MiB lies inside v (or is already shared: its PD entry
 * write-protected, noted in b) and copies the rest entry by entry
 * (pgt_copy). It allocates nothing. */
int ptshare_fork_prepare(struct pagetable *dst, struct pagetable *src, const struct vma *v);
void ptshare_fork_vma(struct tlb_batch *b, struct pagetable *dst, const struct vma *v);

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

/* Set the mode from the command line value ("off", "fork", "all"). */
void ptshare_set_mode(const char *value);

const char *ptshare_mode_name(void);

#endif

/* mm/anon_rmap.h -- the reverse map of anonymous pages: from a page to every
 * entry that maps it, so that reclaim can age it (Accessed bits) and swap
 * it out of every process at once (mm/swap.h).
 *
 * The design is Linux's first anon_vma (2.6.7 to 2.6.33), object-based: no
 * per-mapping record, a per-page pointer and index.
 *
 *   struct page (anonymous)          struct anon_vma
 *   +-------------------+            +------------------------------+
 *   | anon.av  ---------+----------->| vmas: VMA of the parent  ----+--> as P
 *   | anon.index = 0x7f0|            |       VMA of the child   ----+--> as C
 *   +-------------------+            |       VMA split from one ----+--> as P
 *                                    +------------------------------+
 *   address in VMA v:  v->start + (index - v->obj_off / 4096) * 4096
 *
 * A private anonymous VMA gets its anon_vma with its first page
 * (anon_vma_prepare); the VMAs fork copies from it, splits of it and its
 * mremap moves share it (their obj_off keeps the indices right), so every
 * VMA that may map one of its pages is on the list. A page made in VMA v
 * at va gets v's anon_vma and index (obj_off + va - start) / 4096
 * (anon_page_add); a private copy of a file page in a private file
 * mapping (COW) the same way.
 *
 * With shared page tables the walk finds one entry for several address
 * spaces: fork shares the PT page, so the parent's VMA and the child's both
 * lead to the same entry; the first visit pages it out for both (pgt_page_out
 * writes shared PT pages for all their sharers), the second finds a swap
 * entry and does nothing. A page mapped through a shared PT page is thus
 * unmapped once, and the flush reaches every CPU.
 *
 * Compared with Linux's anon_vma_chain (2.6.34 on): that one gives every
 * VMA its own anon_vma and links VMAs and anon_vmas through chains, so a
 * page made by a child after fork is looked for only in the child and its
 * own descendants, not in the parent; here the whole fork family shares
 * one list and a walk visits every VMA of the family (more visits, no
 * chains). Both compute the address from the index.
 *
 * Lifetime: an anon_vma lives while a VMA is on its list or a page names it
 * (refs: one per each), so a page's pointer never dangles; the last
 * reference frees it.
 *
 * Locking: av->lock (a spinlock, rank LOCK_RANK_ANON_VMA) guards vmas; a
 * VMA joins and leaves under its address space's lock held for writing
 * (vma_insert, vma_free), or for reading in anon_vma_prepare (the first
 * page: the lazy pointer set with compare-exchange). The walk holds no
 * anon_vma lock while it works in an address space: it picks each one
 * under av->lock (as the file reverse map: rmap_walk_spaces) and then holds
 * that address space's lock for reading -- tried only, so reclaim never
 * waits behind a writer that may be waiting for reclaim.
 */
#ifndef MM_ANON_RMAP_H
#define MM_ANON_RMAP_H

#include "lib/types.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/frame/lru.h"

struct page;
struct vma;
struct addrspace;

struct anon_vma {
	struct spinlock lock;   /* vmas */
	struct list vmas;       /* the VMAs that may map its pages (vma.anon_link) */
	uint32_t refs;          /* VMAs on vmas + pages naming it (atomic) */
};

/* Give v (private, in an address space locked at least for reading) an
 * anon_vma if it has none: 0 or -ENOMEM. */
int anon_vma_prepare(struct vma *v);

/* v, entering an address space's list with v->anon set (fork's copy, a
 * split, a move), joins its anon_vma; it leaves on vma_free. */
void anon_vma_link(struct vma *v);
void anon_vma_unlink(struct vma *v);

/* pg, a new anonymous page about to be mapped at va of v (which has its
 * anon_vma: anon_vma_prepare), names v's anon_vma and its index there, and
 * goes onto LRU list l (the replacement policy's choice, mm/swap.h). A
 * page that names one already (read back from swap by another mapper)
 * keeps it, and its list. */
void anon_page_add(struct page *pg, struct vma *v, vaddr_t va, enum lru_list l);

/* The work at one mapping of pg: va is its address in the VMA found, in as
 * (locked for reading). */
typedef void (*anon_rmap_fn)(struct addrspace *as, vaddr_t va, struct page *pg, void *arg);

/* fn at every address of every VMA that may map pg (pg referenced by the
 * caller; a page that names no anon_vma has none). Returns the address
 * spaces skipped because a writer held or waited for their lock. Sleeps.
 * (In mm/rmap.c, with the file reverse map's walk it shares.) */
unsigned anon_rmap_walk(struct page *pg, anon_rmap_fn fn, void *arg);

/* Register the frame layer's hooks (mm/frame/anon_page.h). At boot. */
void anon_rmap_init(void);

struct anon_rmap_stats {
	uint64_t anon_vmas;     /* anon_vmas now */
	uint64_t walks;         /* anon_rmap_walk calls */
};
extern struct anon_rmap_stats anon_rmap_stats;

#endif

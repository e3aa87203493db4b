/* mm/rmap.h -- an object's pages changed in every mapping at once: the
 * reverse map of mm/vmobject.h put to work. Two walks:
 *
 *   vmobject_unmap      out of every mapping (Linux's unmap_mapping_range):
 *                       a file shrinks (ftruncate), and its pages past the
 *                       new end must leave every process that maps them, so
 *                       that a later access raises SIGBUS (Linux's
 *                       semantics), and no process keeps a page the cache
 *                       dropped;
 *   vmobject_wrprotect  W taken away in every shared mapping (Linux's
 *                       page_mkclean): write-back is about to clean pages
 *                       that a mapping dirtied, and the next store must
 *                       fault and dirty them again.
 *
 * Both are one rmap_walk with a different step per VMA (pgt_unmap or
 * pgt_protect); the unmap, step by step:
 *
 *   vmobject_unmap(obj, first, n)
 *     obj->rmap_seq++            faults that took a page before see it
 *     text records of obj go      (both only when pages leave obj, not for
 *                                  reclaim: mm/ptshare_text.c)
 *     for each address space A on obj->mappings, once:
 *       A's lock for reading; for each VMA of A on obj:
 *         pgt_unmap(PGT_KEEP_TABLES | PGT_ALL_SHARERS) of its part of the range
 *
 * With shared page tables one clear serves every sharer: a PT page that
 * fork shared between A and B (or a published text page many processes
 * attached) loses the entry once, for all of them, and the flush goes to
 * every CPU (tlb_reach_sharers). No table is copied, nothing allocated:
 * the unmap cannot fail.
 *
 * Races, and what closes each:
 *   - a fault that got the page from the object before the count rose
 *     installs (or makes writable, fault_mkwrite) only if its guard
 *     (struct map_guard, mm/pt/pgtable.h) still holds under the PT lock;
 *     a fault after that sees the object's new end and gets -EIO, or
 *     marks the page dirty again (page_mkwrite) before its entry is
 *     writable. The reclaimer's unmap (UNMAP_RECLAIM) leaves the count:
 *     a page a fault took holds the fault's reference, which the
 *     reclaimer sees under the page cache's lock before it evicts or
 *     swaps the page (it stays), and a fault after finds the page gone
 *     and reads it again; raising the count there failed every fault
 *     on the object that a walk for some other page of it overtook (on a
 *     tmpfs file under reclaim, two of three faults that read a page back
 *     from swap were retried);
 *   - a sharer copying a shared PT page (pt_unshare) does so under that
 *     page's lock, and the walk holds each visited address space's
 *     unshare lock, so no copy keeps an entry the walk cleared elsewhere;
 *   - an address space being built (fork's child, exec's image) is locked
 *     for writing by its builder until it is complete;
 *   - one walk at a time (rmap_walk_lock, a sleeping lock ranked between
 *     the inode's and the address space's): each address space is visited
 *     once per walk, marked with the walk's ticket.
 * Lock order: the caller may hold the file's inode lock; then
 * rmap_walk_lock, then each address space's lock (reading), its unshare
 * lock, its PT pages' locks. The object's mappings_lock is held only to
 * pick the next address space (taking a reference), never across a wait.
 */
#ifndef MM_RMAP_H
#define MM_RMAP_H

#include "lib/types.h"

struct vmobject;

/* Why pages leave the mappings, which decides what stays. */
enum unmap_how {
	UNMAP_TRUNCATE,  /* they leave the object (past its new end): private
			    copies of them go too (an access there is SIGBUS in
			    every mapping), and so do the object's published
			    text tables */
	UNMAP_PUNCH,     /* they leave the object (a hole): private copies stay;
			    the object's published text tables go (one that no
			    process uses is out of every walk's reach: it kept
			    a page the cache dropped, and the next exec of the
			    file ran it) */
	UNMAP_RECLAIM,   /* they leave memory, not the object (the reclaimer):
			    private copies stay, entries accessed since the last
			    look stay (their A bit cleared: a second chance),
			    published text tables keep theirs */
};

/* Take pages [first, first + n) of obj (page indices; n may run past the
 * end) out of every address space that maps them, shared page tables and
 * published text tables included, as `how` says. Sleeps (address-space
 * locks); allocates nothing; cannot fail. Statistics: rmap_stats. */
void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how);

/* Take W away from every entry of a shared mapping that maps pages
 * [first, first + n) of obj (Linux's page_mkclean, over a range): after
 * it, a store to any of them faults and the object hears of it again
 * (page_mkwrite: the page dirty). Write-back calls it (through the page
 * cache's mkclean) before it writes pages a mapping made dirty, so that
 * they can be clean afterwards. Sleeps; allocates nothing; cannot fail. */
void vmobject_wrprotect(struct vmobject *obj, uint64_t first, uint64_t n);

/* ---- the walk both reverse maps share (files here, anonymous pages in
 * mm/anon_rmap.c) ---- */

struct addrspace;
struct list;
struct spinlock;

/* The next address space to visit (referenced: as_tryget, and marked with
 * the walk's ticket), or NULL when none is left. */
typedef struct addrspace *(*rmap_next_fn)(void *src, uint64_t ticket);
/* The work in one address space, locked for reading. */
typedef void (*rmap_visit_fn)(struct addrspace *as, void *arg);

#define RMAP_TRYLOCK 0x1   /* skip an address space a writer holds or waits for */

/* One reverse-map walk (one at a time: rmap_walk_lock): fn(as, arg) in
 * every address space next yields, each once. Returns the address spaces
 * skipped (RMAP_TRYLOCK). Sleeps. */
unsigned rmap_walk_spaces(rmap_next_fn next, void *src, rmap_visit_fn fn, void *arg,
			  unsigned how);

/* rmap_next_fn's common body: of the VMAs on list vmas (linked through the
 * struct list at link_off in struct vma, the list guarded by lock), the
 * address space of the first one not visited by walk `ticket`, referenced
 * (as_tryget: one being torn down is skipped, its entries go with it) and
 * marked. Rescans from the head: VMAs come and go while the walk sleeps. */
struct addrspace *rmap_next_space(struct list *vmas, size_t link_off, struct spinlock *lock,
				  uint64_t ticket);

struct rmap_stats {
	uint64_t walks;          /* vmobject_unmap and vmobject_wrprotect calls */
	uint64_t spaces;         /* address spaces visited */
	uint64_t vmas;           /* VMAs whose range was unmapped */
};
extern struct rmap_stats rmap_stats;

#endif

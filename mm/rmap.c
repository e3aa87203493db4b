/* mm/rmap.c -- an object's pages out of every mapping (see mm/rmap.h). */
#include "mm/rmap.h"
#include "mm/as.h"
#include "mm/ptshare.h"
#include "mm/vmobject.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/tlb.h"
#include "lib/atomic.h"
#include "arch/x86_64/memlayout.h"
#include "lib/mutex.h"

struct rmap_stats rmap_stats;

static struct mutex rmap_walk_lock = MUTEX_INIT("rmap-walk", SLEEP_RANK_RMAP_WALK);
static uint64_t rmap_tickets;   /* the last walk's ticket (under rmap_walk_lock) */

/* An address space with a VMA on obj that this walk (ticket) has not
 * visited yet, with a reference (as_tryget: one being torn down is
 * skipped, its entries go with it), marked visited; NULL when none is
 * left. Rescans from the head: VMAs come and go while the walk sleeps. */
static struct addrspace *next_mapper(struct vmobject *obj, uint64_t ticket)
{
	struct addrspace *found = NULL;
	spin_lock(&obj->mappings_lock);
	list_for_each(l, &obj->mappings) {
		struct addrspace *as = list_entry(l, struct vma, obj_link)->as;
		if (as->rmap_ticket != ticket && as_tryget(as)) {
			as->rmap_ticket = ticket;
			found = as;
			break;
		}
	}
	spin_unlock(&obj->mappings_lock);
	return found;
}

/* The part of v that maps pages [first, end) of its object, in *s, *e;
 * false when none does. */
static bool vma_part(const struct vma *v, uint64_t first, uint64_t end, vaddr_t *s, vaddr_t *e)
{
	uint64_t lo = v->obj_off / PAGE_SIZE, hi = lo + (v->end - v->start) / PAGE_SIZE;
	if (end <= lo || first >= hi)
		return false;
	*s = v->start + (MAX(first, lo) - lo) * PAGE_SIZE;
	*e = v->start + (MIN(end, hi) - lo) * PAGE_SIZE;
	return true;
}

/* What one walk does to the part [s, e) of VMA v (in as, locked for
 * reading) that maps the walked pages. */
typedef void (*rmap_fn)(struct addrspace *as, struct vma *v, vaddr_t s, vaddr_t e,
			unsigned flags);

/* fn on each VMA of as (referenced) that maps pages [first, end) of obj.
 * The reference is dropped here, unless it is the last one (its owner
 * exited meanwhile): then as goes on *last_refs, put by rmap_walk after it
 * let go of rmap_walk_lock -- destroying as frees its VMAs and may put
 * the last reference of another file, whose eviction takes that file's
 * lock, which ranks before rmap_walk_lock. */
static void visit(struct addrspace *as, struct vmobject *obj, uint64_t first, uint64_t end,
		  rmap_fn fn, unsigned flags, struct addrspace **last_refs)
{
	as_lock_read(as);
	for (struct vma *v = as->vmas; v; v = v->next) {
		vaddr_t s, e;
		if (v->obj == obj && vma_part(v, first, end, &s, &e)) {
			fn(as, v, s, e, flags);
			stat_inc(&rmap_stats.vmas);
		}
	}
	as_unlock_read(as);
	if (!as_put_unless_last(as)) {
		as->rmap_next = *last_refs;
		*last_refs = as;
	}
	stat_inc(&rmap_stats.spaces);
}

/* A walk begins: faults that took a page before see it (their map_guard). */
static void raise_seq(struct vmobject *obj)
{
	__atomic_add_fetch(&obj->rmap_seq, 1, __ATOMIC_SEQ_CST);
}

/* The reverse-map walk (after raise_seq): fn runs on every mapping of
 * pages [first, first + n) of obj, each address space once. */
static void rmap_walk(struct vmobject *obj, uint64_t first, uint64_t n, rmap_fn fn,
		      unsigned flags)
{
	uint64_t end = n > UINT64_MAX - first ? UINT64_MAX : first + n;
	struct addrspace *last_refs = NULL;
	mutex_lock(&rmap_walk_lock);
	uint64_t ticket = ++rmap_tickets;
	for (struct addrspace *as; (as = next_mapper(obj, ticket));)
		visit(as, obj, first, end, fn, flags, &last_refs);
	mutex_unlock(&rmap_walk_lock);
	for (struct addrspace *as = last_refs, *next; as; as = next) {
		next = as->rmap_next;
		as_put(as);   /* the last: as goes now */
	}
	stat_inc(&rmap_stats.walks);
}

static void unmap_part(struct addrspace *as, struct vma *v, vaddr_t s, vaddr_t e,
		       unsigned flags)
{
	(void)v;
	(void)as_unmap_pages(as, s, e, flags);   /* PGT_ALL_SHARERS: allocates nothing, no error */
}

void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	raise_seq(obj);
	if (how == UNMAP_TRUNCATE)   /* after the count: a build under way does not publish */
		ptshare_text_unpublish(obj);
	rmap_walk(obj, first, n, unmap_part, PGT_KEEP_TABLES | PGT_ALL_SHARERS |
		  (how == UNMAP_TRUNCATE ? 0 : PGT_KEEP_COPIES) |
		  (how == UNMAP_RECLAIM ? PGT_SPARE_YOUNG : 0));
}

/* A shared mapping's entries lose W (its private ones are never writable:
 * copy on write). */
static void wrprotect_part(struct addrspace *as, struct vma *v, vaddr_t s, vaddr_t e,
			   unsigned flags)
{
	if (!(v->flags & VM_SHARED))
		return;
	struct tlb_batch b;
	tlb_begin(&b, as->pgt);
	(void)pgt_protect(&b, s, e, vm_prot_nowrite(v->prot & VM_ACCESS) | VM_SHARED |
			  VM_FILE, flags);
	tlb_end(&b);
}

void vmobject_wrprotect(struct vmobject *obj, uint64_t first, uint64_t n)
{
	raise_seq(obj);
	rmap_walk(obj, first, n, wrprotect_part, PGT_ALL_SHARERS);
}

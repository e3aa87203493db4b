/* mm/rmap.c -- an object's pages out of every mapping (see mm/rmap.h). */
#include "mm/rmap.h"
#include "mm/anon_rmap.h"
#include "mm/frame/page.h"
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

struct addrspace *rmap_next_space(struct list *vmas, size_t link_off, struct spinlock *lock,
				  uint64_t ticket)
{
	struct addrspace *found = NULL;
	spin_lock(lock);
	list_for_each(l, vmas) {
		struct addrspace *as = ((struct vma *)((char *)l - link_off))->as;
		if (as->rmap_ticket != ticket && as_tryget(as)) {
			as->rmap_ticket = ticket;
			found = as;
			break;
		}
	}
	spin_unlock(lock);
	return found;
}

/* An address space with a VMA on obj that this walk (ticket) has not
 * visited yet (rmap_next_space). */
static struct addrspace *next_mapper(void *src, uint64_t ticket)
{
	struct vmobject *obj = src;
	return rmap_next_space(&obj->mappings, offsetof(struct vma, obj_link),
			       &obj->mappings_lock, ticket);
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

/* What an object walk does in each address space. */
struct object_walk {
	struct vmobject *obj;
	uint64_t first, end;
	rmap_fn fn;
	unsigned flags;
};

/* fn on each VMA of as (referenced, locked for reading) that maps pages
 * [first, end) of obj. */
static void visit(struct addrspace *as, void *arg)
{
	struct object_walk *ow = arg;
	for (struct vma *v = as->vmas; v; v = v->next) {
		vaddr_t s, e;
		if (v->obj == ow->obj && vma_part(v, ow->first, ow->end, &s, &e)) {
			ow->fn(as, v, s, e, ow->flags);
			stat_inc(&rmap_stats.vmas);
		}
	}
}

/* Visit as (referenced) locked for reading -- or, with RMAP_TRYLOCK, only
 * if no writer holds or waits (else counted in *skipped). */
static void visit_locked(struct addrspace *as, rmap_visit_fn fn, void *arg, unsigned how,
			 unsigned *skipped)
{
	if (!(how & RMAP_TRYLOCK)) {
		as_lock_read(as);
	} else if (!as_trylock_read(as)) {
		(*skipped)++;
		as = NULL;
	}
	if (as) {
		fn(as, arg);
		as_unlock_read(as);
	}
	stat_inc(&rmap_stats.spaces);
}

/* A walk begins: faults that took a page before see it (their map_guard). */
static void raise_seq(struct vmobject *obj)
{
	__atomic_add_fetch(&obj->rmap_seq, 1, __ATOMIC_SEQ_CST);
}

unsigned rmap_walk_spaces(rmap_next_fn next, void *src, rmap_visit_fn fn, void *arg,
			  unsigned how)
{
	struct addrspace *last_refs = NULL;
	unsigned skipped = 0;
	mutex_lock(&rmap_walk_lock);
	uint64_t ticket = ++rmap_tickets;
	for (struct addrspace *as; (as = next(src, ticket));) {
		visit_locked(as, fn, arg, how, &skipped);
		/* the reference is dropped here, unless it is the last one
		 * (its owner exited meanwhile): then as is put after the walk
		 * let go of rmap_walk_lock -- destroying as frees its VMAs and
		 * may put the last reference of another file, whose eviction
		 * takes that file's lock, which ranks before rmap_walk_lock */
		if (!as_put_unless_last(as)) {
			as->rmap_next = last_refs;
			last_refs = as;
		}
	}
	mutex_unlock(&rmap_walk_lock);
	for (struct addrspace *as = last_refs, *next_as; as; as = next_as) {
		next_as = as->rmap_next;
		as_put(as);   /* the last: as goes now */
	}
	stat_inc(&rmap_stats.walks);
	return skipped;
}

/* The reverse-map walk of an object (after raise_seq): fn runs on every
 * mapping of pages [first, first + n) of obj, each address space once. */
static void rmap_walk(struct vmobject *obj, uint64_t first, uint64_t n, rmap_fn fn,
		      unsigned flags)
{
	struct object_walk ow = { .obj = obj, .first = first, .fn = fn, .flags = flags,
				  .end = n > UINT64_MAX - first ? UINT64_MAX : first + n };
	(void)rmap_walk_spaces(next_mapper, obj, visit, &ow, 0);
}

static void unmap_part(struct addrspace *as, struct vma *v, vaddr_t s, vaddr_t e,
		       unsigned flags)
{
	(void)v;
	(void)as_unmap_pages(as, s, e, flags);   /* PGT_ALL_SHARERS: allocates nothing, no error */
}

void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	if (how != UNMAP_RECLAIM) {   /* pages leave obj: faults that took one retry */
		raise_seq(obj);
		ptshare_text_unpublish(obj);   /* after the count: a build under way does not publish */
	}
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

/* ---- the anonymous reverse map's walk (mm/anon_rmap.h) ---- */

struct anon_walk {
	struct page *pg;
	struct anon_vma *av;
	anon_rmap_fn fn;
	void *arg;
};

static struct addrspace *next_anon_space(void *src, uint64_t ticket)
{
	struct anon_vma *av = src;
	return rmap_next_space(&av->vmas, offsetof(struct vma, anon_link), &av->lock, ticket);
}

/* fn at pg's address in each VMA of as on pg's anon_vma that covers it. */
static void visit_anon(struct addrspace *as, void *arg)
{
	struct anon_walk *aw = arg;
	for (struct vma *v = as->vmas; v; v = v->next) {
		uint64_t first = v->obj_off / PAGE_SIZE, index = aw->pg->anon.index;
		if (v->anon != aw->av || index < first || index - first >= (v->end - v->start) / PAGE_SIZE)
			continue;
		aw->fn(as, v->start + (index - first) * PAGE_SIZE, aw->pg, aw->arg);
	}
}

unsigned anon_rmap_walk(struct page *pg, anon_rmap_fn fn, void *arg)
{
	struct anon_walk aw = { .pg = pg, .av = atomic_load(&pg->anon.av), .fn = fn, .arg = arg };
	if (!aw.av)
		return 0;
	stat_inc(&anon_rmap_stats.walks);
	return rmap_walk_spaces(next_anon_space, aw.av, visit_anon, &aw, RMAP_TRYLOCK);
}

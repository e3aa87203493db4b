/* mm/vma.c -- VMA list operations: insert, split, merge, find gaps; lookups
 * through a sorted array (struct vma_index) so that a fault does not walk the
 * list. Every change of the list goes through this file and marks the index
 * stale; changing a VMA's bounds in place (brk, mremap) keeps the order, so
 * the index stays right. The index is freed when the list becomes empty. */
#include "mm/vma.h"
#include "mm/frame/kmalloc.h"
#include "mm/vmobject.h"
#include "mm/anon_rmap.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"

struct vma *vma_new(vaddr_t start, vaddr_t end, unsigned prot, unsigned flags,
		    struct vmobject *obj, uint64_t obj_off)
{
	struct vma *v = kzalloc(sizeof(*v));
	if (!v)
		return NULL;
	v->start = start;
	v->end = end;
	v->prot = prot;
	v->flags = flags;
	v->obj = obj;
	v->obj_off = obj_off;
	vmobject_get(obj);
	return v;
}

void vma_free(struct vma *v)
{
	anon_vma_unlink(v);
	vmobject_remove_mapping(v);
	vmobject_put(v->obj);
	kfree(v);
}

/* The list changed: the next lookup rebuilds the index; an empty list
 * frees it (as_destroy deletes every VMA). */
static void vidx_changed(struct addrspace *as)
{
	as->vidx.stale = true;
	if (!as->vmas) {
		kfree(as->vidx.v);
		as->vidx = (struct vma_index){ .writer = as->vidx.writer };
	}
}

/* Make as->vidx hold the list; false when memory ran out (index unusable). */
static bool vidx_rebuild(struct addrspace *as)
{
	struct vma_index *x = &as->vidx;
	uint32_t n = 0;
	for (struct vma *v = as->vmas; v; v = v->next)
		n++;
	if (n > x->cap) {
		uint32_t cap = n < 16 ? 16 : n * 2;
		struct vma **a = kmalloc(cap * sizeof(*a));
		if (!a)
			return false;
		kfree(x->v);
		x->v = a;
		x->cap = cap;
	}
	n = 0;
	for (struct vma *v = as->vmas; v; v = v->next)
		x->v[n++] = v;
	x->n = n;
	x->stale = false;
	return true;
}

/* The list walk vma_find falls back on. */
static struct vma *vma_find_linear(struct addrspace *as, vaddr_t va)
{
	for (struct vma *v = as->vmas; v && v->start <= va; v = v->next)
		if (va < v->end)
			return v;
	return NULL;
}

/* May this caller rebuild the index? Only with the VMAs to itself: holding
 * as->lock for writing, or nobody holding it (early boot, host tests).
 * Readers run concurrently (page faults), so they never write it. */
static bool vidx_exclusive(const struct addrspace *as)
{
	return !rwsem_is_locked(&as->lock) || as->vidx.writer;
}

void vma_index_refresh(struct addrspace *as)
{
	if (as->vidx.stale)
		(void)vidx_rebuild(as);   /* out of memory: lookups walk the list */
}

struct vma *vma_find(struct addrspace *as, vaddr_t va)
{
	struct vma_index *x = &as->vidx;
	if (x->stale && !(vidx_exclusive(as) && vidx_rebuild(as)))
		return vma_find_linear(as, va);
	uint32_t lo = 0, hi = x->n;        /* the last VMA with start <= va */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->v[mid]->start <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && va < x->v[lo - 1]->end ? x->v[lo - 1] : NULL;
}

/* v entered as's list: it belongs to as, and its object's reverse map
 * lists it. */
static void joined(struct addrspace *as, struct vma *v)
{
	v->as = as;
	if (v->obj)
		vmobject_add_mapping(v);
	if (v->anon)
		anon_vma_link(v);
}

void vma_insert(struct addrspace *as, struct vma *v)
{
	struct vma **pp = &as->vmas;
	while (*pp && (*pp)->start < v->start)
		pp = &(*pp)->next;
	if ((*pp && (*pp)->start < v->end))
		panic("vma_insert: [%#lx, %#lx) overlaps [%#lx, %#lx)",
		      v->start, v->end, (*pp)->start, (*pp)->end);
	v->next = *pp;
	*pp = v;
	vidx_changed(as);
	joined(as, v);
}

void vma_delete(struct addrspace *as, struct vma *v)
{
	struct vma **pp = &as->vmas;
	while (*pp && *pp != v)
		pp = &(*pp)->next;
	if (!*pp)
		panic("vma_delete: [%#lx, %#lx) not in its address space", v->start, v->end);
	*pp = v->next;
	vma_free(v);
	vidx_changed(as);
}

struct vma *vma_split(struct addrspace *as, struct vma *v, vaddr_t addr)
{
	if (addr <= v->start || addr >= v->end || addr % PAGE_SIZE)
		panic("vma_split: %#lx outside [%#lx, %#lx)", addr, v->start, v->end);
	struct vma *hi = vma_new(addr, v->end, v->prot, v->flags, v->obj,
				 v->obj_off + (addr - v->start));
	if (!hi)
		return NULL;
	hi->anon = v->anon;   /* its pages keep their index: same map */
	v->end = addr;
	hi->next = v->next;
	v->next = hi;
	vidx_changed(as);
	joined(as, hi);
	return hi;
}

int vma_isolate(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	for (struct vma *v = as->vmas; v; v = v->next) {
		if (v->start < start && start < v->end && !vma_split(as, v, start))
			return -ENOMEM;
		if (v->start < end && end < v->end && !vma_split(as, v, end))
			return -ENOMEM;
	}
	return 0;
}

bool vma_overlaps(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	for (struct vma *v = as->vmas; v && v->start < end; v = v->next)
		if (v->end > start)
			return true;
	return false;
}

bool vma_covers(struct addrspace *as, vaddr_t start, vaddr_t end)
{
	vaddr_t at = start;
	for (struct vma *v = as->vmas; v && at < end; v = v->next) {
		if (v->end <= at)
			continue;
		if (v->start > at)
			return false;
		at = v->end;
	}
	return at >= end;
}

vaddr_t vma_find_gap(struct addrspace *as, uint64_t len, vaddr_t top, uint64_t align)
{
	/* walk the gaps from the top down: collect VMA bounds below top */
	vaddr_t best = 0;
	vaddr_t lo = USER_NULL_GUARD;
	for (struct vma *v = as->vmas;; v = v->next) {
		vaddr_t hi = v ? MIN(v->start, top) : top;
		if (hi > lo && hi - lo >= len) {
			vaddr_t cand = ALIGN_DOWN(hi - len, align);
			if (cand >= lo)
				best = cand;   /* later gaps are higher: keep the last */
		}
		if (!v || v->end >= top)
			break;
		lo = MAX(lo, v->end);
	}
	return best;
}

/* Can b be appended to a (adjacent, same everything, contiguous object
 * offsets -- anonymous pages are indexed by them too -- and the same
 * anonymous reverse map, or none in b)? */
static bool vma_mergeable(const struct vma *a, const struct vma *b)
{
	return a->end == b->start && a->prot == b->prot && a->flags == b->flags &&
	       a->obj == b->obj && a->obj_off + (a->end - a->start) == b->obj_off &&
	       (a->anon == b->anon || !b->anon);
}

void vma_merge(struct addrspace *as)
{
	for (struct vma *v = as->vmas; v && v->next;) {
		struct vma *n = v->next;
		if (vma_mergeable(v, n)) {
			v->end = n->end;
			v->next = n->next;
			vma_free(n);
			vidx_changed(as);
		} else {
			v = n;
		}
	}
}

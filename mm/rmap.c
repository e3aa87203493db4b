/* mm/rmap.c -- an object's pages out of every mapping (see mm/rmap.h). */
#include "mm/rmap.h"
#include "mm/as.h"
#include "mm/ptshare.h"
#include "mm/vmobject.h"
#include "mm/pt/pgtable.h"
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

/* Pages [first, end) of obj out of as (referenced; released here). */
static void unmap_in(struct addrspace *as, struct vmobject *obj, uint64_t first, uint64_t end,
		     enum unmap_copies c)
{
	unsigned flags = PGT_KEEP_TABLES | PGT_ALL_SHARERS |
			 (c == UNMAP_KEEP_COPIES ? PGT_KEEP_COPIES : 0);
	as_lock_read(as);
	for (struct vma *v = as->vmas; v; v = v->next) {
		vaddr_t s, e;
		if (v->obj == obj && vma_part(v, first, end, &s, &e)) {
			(void)as_unmap_pages(as, s, e, flags);   /* allocates nothing: no error */
			stat_inc(&rmap_stats.vmas);
		}
	}
	as_unlock_read(as);
	as_put(as);
	stat_inc(&rmap_stats.spaces);
}

void vmobject_unmap(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_copies c)
{
	uint64_t end = n > UINT64_MAX - first ? UINT64_MAX : first + n;
	__atomic_add_fetch(&obj->unmap_seq, 1, __ATOMIC_SEQ_CST);
	ptshare_text_unpublish(obj);
	mutex_lock(&rmap_walk_lock);
	uint64_t ticket = ++rmap_tickets;
	for (struct addrspace *as; (as = next_mapper(obj, ticket));)
		unmap_in(as, obj, first, end, c);
	mutex_unlock(&rmap_walk_lock);
	stat_inc(&rmap_stats.walks);
}

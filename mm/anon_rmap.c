/* mm/anon_rmap.c -- the reverse map of anonymous pages (see mm/anon_rmap.h). */
#include "mm/anon_rmap.h"
#include "mm/as.h"
#include "mm/frame/lru.h"
#include "mm/frame/anon_page.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "arch/x86_64/memlayout.h"

struct anon_rmap_stats anon_rmap_stats;

static void anon_vma_get(struct anon_vma *av)
{
	atomic_inc(&av->refs);
}

static void anon_vma_put(struct anon_vma *av)
{
	if (atomic_dec_and_test(&av->refs)) {
		kfree(av);
		stat_sub(&anon_rmap_stats.anon_vmas, 1);
	}
}

int anon_vma_prepare(struct vma *v)
{
	if (atomic_load(&v->anon))
		return 0;
	struct anon_vma *av = kzalloc(sizeof(*av)), *none = NULL;
	if (!av)
		return -ENOMEM;
	spin_init(&av->lock, "anon-vma", LOCK_RANK_ANON_VMA);
	list_init(&av->vmas);
	stat_inc(&anon_rmap_stats.anon_vmas);
	if (!__atomic_compare_exchange_n(&v->anon, &none, av, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		kfree(av);   /* another fault in v gave it one first */
		stat_sub(&anon_rmap_stats.anon_vmas, 1);
		return 0;
	}
	anon_vma_link(v);
	return 0;
}

void anon_vma_link(struct vma *v)
{
	struct anon_vma *av = v->anon;
	anon_vma_get(av);
	spin_lock(&av->lock);
	list_add_tail(&av->vmas, &v->anon_link);
	spin_unlock(&av->lock);
}

void anon_vma_unlink(struct vma *v)
{
	struct anon_vma *av = v->anon;
	if (!av || !v->anon_link.next)
		return;   /* never in a list (a VMA freed before its insertion) */
	spin_lock(&av->lock);
	list_del(&v->anon_link);
	spin_unlock(&av->lock);
	v->anon_link.next = v->anon_link.prev = NULL;
	anon_vma_put(av);
}

/* pg names av at index, if it names none yet (two faults may bring one
 * swapped-out page back at once: the same av and index either way). */
static void name_map(struct page *pg, struct anon_vma *av, uint64_t index)
{
	struct anon_vma *none = NULL;
	if (atomic_load(&pg->anon.av))
		return;
	pg->anon.index = index;
	anon_vma_get(av);
	if (!__atomic_compare_exchange_n(&pg->anon.av, &none, av, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		anon_vma_put(av);
}

void anon_page_add(struct page *pg, struct vma *v, vaddr_t va, enum lru_list l)
{
	name_map(pg, v->anon, (v->obj_off + (va - v->start)) / PAGE_SIZE);
	lru_add(pg, l);
}

/* ---- the frame layer's hooks ---- */

static void released(struct page *pg)
{
	lru_del(pg);
	if (pg->anon.av)
		anon_vma_put(pg->anon.av);
	pg->anon.av = NULL;
}

static void copied(struct page *copy, struct page *src)
{
	if (src->anon.av)
		name_map(copy, src->anon.av, src->anon.index);
	lru_add(copy, src->aflags & AF_HOT ? LRU_HOT : LRU_COLD);   /* as hot as its source */
}

static const struct anon_page_hooks hooks = { .released = released, .copied = copied };

void anon_rmap_init(void)
{
	__atomic_store_n(&anon_page_hooks, &hooks, __ATOMIC_RELEASE);
}

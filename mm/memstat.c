/* mm/memstat.c -- RSS, PSS and page-table usage of an address space
 * (definitions and costs in mm/memstat.h). */
#include "mm/memstat.h"
#include "mm/vmobject.h"
#include "mm/pagecache.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/frame/lru.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"

/* PT pages mapping frame pa: its references less the one a file or object
 * holds (PG_FILE frames); 1 for frames outside the database (MMIO). */
static uint64_t frame_mappers(paddr_t pa)
{
	const struct page *pg = pa_to_page(pa);
	if (!pg || pg->type == PG_RESERVED)
		return 1;
	uint64_t n = pg->refcount - (pg->type == PG_FILE ? 1 : 0);
	return n ? n : 1;
}

/* A PD entry: count the PT page it points at (a 2 MiB leaf is no table). */
static int stat_pde(struct walk *w)
{
	struct as_memstat *st = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pt = pa_to_page(pte_addr(e)), *pd = ptpage_of(w->ep);
	if (pte_huge(e) || !pt)
		return 0;   /* (a table outside the frame database: vmcheck's to report) */
	st->pt_pages++;
	if (ptpage_sharers(pt) > 1 || ptpage_sharers(pd) > 1)
		st->shared_pt_pages++;
	return 0;
}

static const struct walk_ops stat_ops = { .pde = stat_pde };

/* RSS and PSS are smaps' (vma_memstat, summed over the VMAs): one
 * computation for /proc, ps, the introspection calls and PssTotal. */
void as_memstat(struct addrspace *as, struct as_memstat *st)
{
	struct vma_memstat sum = { 0 };
	*st = (struct as_memstat){ 0 };
	for (struct vma *v = as->vmas; v; v = v->next) {
		st->vm_pages += (v->end - v->start) / PAGE_SIZE;
		vma_memstat(as, v, &sum);
	}
	struct walk w = { .ops = &stat_ops, .pgt = as->pgt, .arg = st,
			  .leaf_level = PGL_PD };
	walk_range(&w, 0, USER_TOP);
	st->rss_pages = vma_memstat_rss(&sum);
	st->pss_frac = sum.pss;
	st->pss_pages = (st->pss_frac + (1ULL << (PSS_SHIFT - 1))) >> PSS_SHIFT;
	st->table_pages = as->pgt->nr_tables;
	st->lazyfree_pages = sum.lazyfree;
}

/* ---- the distinct frames of a set of address spaces ---- */

int frame_census_begin(struct frame_census *c)
{
	c->frames = 0;
	c->seen = kzalloc(max_pfn / 8 + 1);
	return c->seen ? 0 : -ENOMEM;
}

static int census_pte(struct walk *w)
{
	struct frame_census *c = w->arg;
	pte_t e = pte_read(w->ep);
	uint64_t pfn = pte_addr(e) >> PAGE_SHIFT;
	if (pte_maps_zero(e) || pfn >= max_pfn || (c->seen[pfn / 8] & (1u << (pfn % 8))))
		return 0;
	c->seen[pfn / 8] |= (uint8_t)(1u << (pfn % 8));
	c->frames++;
	return 0;
}

static const struct walk_ops census_ops = { .pte = census_pte };

void frame_census_add(struct frame_census *c, struct addrspace *as)
{
	struct walk w = { .ops = &census_ops, .pgt = as->pgt, .arg = c };
	walk_range(&w, 0, USER_TOP);
}

uint64_t frame_census_end(struct frame_census *c)
{
	kfree(c->seen);
	c->seen = NULL;
	return c->frames;
}

/* ---- per VMA, page by page (smaps) ---- */

struct vma_walk {
	const struct vma *v;
	struct vma_memstat *st;
	uint64_t pd_sharers;    /* of the PD page being walked */
};

/* Address spaces mapping the frame of entry e in PT page pt, below a PD
 * page of pd_sharers: the sharers of both times the PT pages mapping the
 * frame (as_memstat's PSS rule). */
static uint64_t frame_sharers(const struct page *pt, uint64_t pd_sharers, pte_t e)
{
	return ptpage_sharers(pt) * pd_sharers * frame_mappers(pte_addr(e));
}

/* Add n resident pages mapped by entry e with `sharers` sharers. */
static void account_pages(struct vma_walk *s, const struct page *pg, pte_t e,
			  uint64_t n, uint64_t sharers)
{
	struct vma_memstat *st = s->st;
	bool anon = pg->type == PG_ANON, dirty = pte_dirty(e);
	bool shmem = s->v->obj && s->v->obj->kind == VMOBJ_SHM;   /* shared anonymous memory */
	uint64_t pss = (n << PSS_SHIFT) / sharers;
	if (anon)
		st->rss_anon += n, st->pss_anon += pss;
	else if (shmem)
		st->rss_shmem += n, st->pss_shmem += pss;
	else
		st->rss_file += n, st->pss_file += pss;
	st->pss += pss;
	st->pss_dirty += dirty ? pss : 0;
	if (sharers > 1)
		*(dirty ? &st->shared_dirty : &st->shared_clean) += n;
	else
		*(dirty ? &st->private_dirty : &st->private_clean) += n;
	st->referenced += pte_accessed(e) ? n : 0;
	st->anonymous += anon ? n : 0;
}

static int vma_leaf(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (!pg || pte_maps_zero(e))
		return 0;
	struct vma_walk *s = w->arg;
	uint64_t sharers = w->level == PGL_PT ? frame_sharers(ptpage_of(w->ep), s->pd_sharers, e) : 1;
	uint64_t n = pgl_entry_size(w->level) / PAGE_SIZE;
	account_pages(w->arg, pg, e, n, sharers);
	if (page_lazyfree_mapping(pg, e))
		s->st->lazyfree += n;   /* MADV_FREE'd, not yet reclaimed or written */
	return 0;
}

/* A PD entry: a 2 MiB page is a leaf; a PT page is walked entry by entry,
 * its PD page's sharers noted. */
static int vma_leaf_pde(struct walk *w)
{
	if (pte_huge(pte_read(w->ep)))
		return vma_leaf(w);
	((struct vma_walk *)w->arg)->pd_sharers = ptpage_sharers(ptpage_of(w->ep));
	return 0;
}

/* A swap entry: a page of the VMA out on swap, shared as its PT page is. */
static int vma_swap(struct walk *w)
{
	struct vma_walk *s = w->arg;
	uint64_t sharers = ptpage_sharers(ptpage_of(w->ep)) * s->pd_sharers;
	s->st->swap++;
	s->st->swap_pss += (1ull << PSS_SHIFT) / (sharers ? sharers : 1);
	return 0;
}

static const struct walk_ops vma_stat_ops = {
	.pte = vma_leaf, .pde = vma_leaf_pde, .swap = vma_swap,
};

void vma_memstat(struct addrspace *as, const struct vma *v, struct vma_memstat *st)
{
	struct vma_walk s = { .v = v, .st = st };
	struct walk w = { .ops = &vma_stat_ops, .pgt = as->pgt, .arg = &s };
	walk_range(&w, v->start, v->end);
}

uint64_t vma_memstat_rss(const struct vma_memstat *st)
{
	return st->rss_anon + st->rss_file + st->rss_shmem;
}

/* ---- the whole machine ---- */

/* Count what the frame database says about one block head pg. */
static void meminfo_frame(struct mm_meminfo *m, const struct page *pg)
{
	if (pg->order == PAGE_ORDER_TAIL)
		return;
	if (pg->type == PG_FILE && pg->refcount > 1 && page_to_pa(pg) != zero_frame_pa)
		m->file_mapped++;
	if (pg->type != PG_PAGETABLE || ptpage_sharers(pg) < 2)
		return;
	if (pg->pt.level == PGL_PT) {
		m->shared_pt++;
		m->pt_saved += ptpage_sharers(pg) - 1;
	} else if (pg->pt.level == PGL_PD) {   /* the PD page and its PT pages */
		m->shared_pd++;
		m->pt_saved += (ptpage_sharers(pg) - 1) * (1 + (uint64_t)pg->count);
	}
}

void mm_meminfo(struct mm_meminfo *m)
{
	*m = (struct mm_meminfo){
		.free = mm_stats.free,
		.kernel = mm_stats.by_type[PG_KERNEL], .anon = mm_stats.by_type[PG_ANON],
		.file = mm_stats.by_type[PG_FILE],
		.pagetable = mm_stats.by_type[PG_PAGETABLE],
		.lazyfree = lru_pages(LRU_LAZY),
		.cached = pagecache_stats.pages, .buffers = pagecache_stats.blockdev,
		.shmem = pagecache_stats.shmem,
		.dirty = pagecache_stats.dirty, .writeback = pagecache_stats.writeback,
	};
	m->total = m->free + m->kernel + m->anon + m->file + m->pagetable;
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++)
		meminfo_frame(m, &frames[pfn]);
}

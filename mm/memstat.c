/* mm/memstat.c -- RSS, PSS and page-table usage of an address space
 * (definitions and costs in mm/memstat.h). */
#include "mm/memstat.h"
#include "mm/as.h"
#include "mm/kmalloc.h"
#include "mm/lazyfree.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"
#include "kernel/errno.h"

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

/* PSS of one PT page for one of its sharers, in 2^-PSS_SHIFT pages. */
static uint64_t pt_pss_frac(struct page *pt)
{
	const pte_t *e = ptpage_entries(pt);
	uint64_t sum = 0;
	for (int i = 0; i < PT_ENTRIES; i++) {
		pte_t x = pte_read(&e[i]);
		if (pte_mapped(x) && !pte_maps_zero(x))   /* PROT_NONE ones too */
			sum += (1ULL << PSS_SHIFT) / frame_mappers(pte_addr(x));
	}
	return sum / (pt->pt.share ? pt->pt.share : 1);
}

/* PD entry pointing at a PT page: account the whole PT page. */
static int stat_pde(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end, int level)
{
	(void)va, (void)end, (void)level;
	struct as_memstat *st = w->arg;
	struct page *pt = pa_to_page(pte_addr(pte_read(ep)));
	st->pt_pages++;
	st->rss_pages += pt_resident(pt);
	st->pss_frac += pt_pss_frac(pt);
	if (pt->pt.share > 1)
		st->shared_pt_pages++;
	return 0;
}

static const struct walk_ops stat_ops = { .pde = stat_pde };

void as_memstat(struct addrspace *as, struct as_memstat *st)
{
	*st = (struct as_memstat){ 0 };
	for (struct vma *v = as->vmas; v; v = v->next)
		st->vm_pages += (v->end - v->start) / PAGE_SIZE;
	struct walk w = { .ops = &stat_ops, .pgt = as->pgt, .arg = st,
			  .leaf_level = PGL_PD };
	walk_range(&w, 0, USER_TOP);
	st->pss_pages = (st->pss_frac + (1ULL << (PSS_SHIFT - 1))) >> PSS_SHIFT;
	st->table_pages = as->pgt->nr_tables;
	st->lazyfree_pages = lazyfree_count(as->pgt);
}

/* ---- the distinct frames of a set of address spaces ---- */

int frame_census_begin(struct frame_census *c)
{
	c->frames = 0;
	c->seen = kzalloc(max_pfn / 8 + 1);
	return c->seen ? 0 : -ENOMEM;
}

static int census_pte(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end, int level)
{
	(void)va, (void)end, (void)level;
	struct frame_census *c = w->arg;
	pte_t e = pte_read(ep);
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

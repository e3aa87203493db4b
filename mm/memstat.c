/* mm/memstat.c -- RSS, PSS and page-table usage of an address space. */
#include "mm/memstat.h"
#include "mm/as.h"
#include "mm/lazyfree.h"
#include "mm/pgtable.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"

/* PD entry pointing at a PT page: account the whole PT page. */
static int stat_pde(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end, int level)
{
	(void)va, (void)end, (void)level;
	struct as_memstat *st = w->arg;
	struct page *pt = pa_to_page(pte_addr(pte_read(ep)));
	uint32_t share = pt->pt.share ? pt->pt.share : 1;
	st->pt_pages++;
	st->rss_pages += pt->count;
	st->pss_pages += pt->count / share;
	if (share > 1)
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
	st->table_pages = as->pgt->nr_tables;
	st->lazyfree_pages = lazyfree_count(as->pgt);
}

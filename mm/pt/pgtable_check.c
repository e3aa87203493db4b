/* mm/pt/pgtable_check.c -- page-table invariants, checked by a walk (see pgtable_check.h).
 * The invariant checker of page-table sharing builds on this. */
#include "mm/pt/pgtable_check.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"

/* Entries of table t that hold something (present, PROT_NONE, swap),
 * counted one by one; the swap entries among them in *swap. */
static unsigned count_present(struct page *t, unsigned *swap)
{
	const pte_t *e = ptpage_entries(t);
	unsigned n = 0;
	*swap = 0;
	for (int i = 0; i < PT_ENTRIES; i++) {
		n += pte_holds(pte_read(&e[i]));
		*swap += pte_is_swap(pte_read(&e[i]));
	}
	return n;
}

static void check_table(struct page *t, int level, vaddr_t va)
{
	if (!t || t->type != PG_PAGETABLE || t->pt.level != level || t->pt.share == 0)
		panic("pgt_check: va %#lx: level-%d table %#lx is not a live page "
		      "table of that level", va, level, t ? page_to_pa(t) : 0);
	unsigned swap, n = count_present(t, &swap);
	if (n != t->count)
		panic("pgt_check: table %#lx (level %d, va %#lx) has %u present "
		      "entries, its present count says %u", page_to_pa(t), level, va,
		      n, t->count);
	if (level == PGL_PT && swap != t->ptswap)
		panic("pgt_check: PT page %#lx (va %#lx) has %u swap entries, its count "
		      "says %u", page_to_pa(t), va, swap, t->ptswap);
}

static int check_entry(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level)) {
		struct page *pg = pa_to_page(pte_addr(e));
		/* the direct map maps every frame, free ones too (4 KiB pages
		 * under pv=checked) */
		bool dmap = w->va >= DIRECT_MAP_BASE && w->va - DIRECT_MAP_BASE < DIRECT_MAP_MAX;
		if (w->level == PGL_PT && pg && pg->type == PG_FREE && !dmap)
			panic("pgt_check: va %#lx maps free frame %#lx", w->va, pte_addr(e));
		return 0;
	}
	check_table(pa_to_page(pte_addr(e)), w->level - 1, w->va);
	(*(uint64_t *)w->arg)++;
	return 0;
}

static const struct walk_ops check_ops = {
	.pml4e = check_entry, .pdpte = check_entry, .pde = check_entry,
	.pte = check_entry,
};

uint64_t pgt_check(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	uint64_t tables = 0;
	check_table(pgt->root, PGL_PML4, start);
	struct walk w = { .ops = &check_ops, .pgt = pgt, .arg = &tables };
	walk_range(&w, start, end);
	return tables;
}

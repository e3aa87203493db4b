/* mm/pt/pttree.c -- the page-table pages of an address space, as a list of
 * nodes for pictures (mm/pt/pttree.h). */
#include "mm/pt/pttree.h"
#include "mm/pt/ptpage.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"

struct tree_walk {
	struct pagoda_ptnode *out;
	size_t max, n;
	int lowest;                 /* the lowest level described */
};

/* The node being filled for this table page, or NULL past max. */
static struct pagoda_ptnode *node_add(struct tree_walk *t, struct page *pg, paddr_t parent,
				      vaddr_t va, pte_t via)
{
	struct pagoda_ptnode *n = t->n < t->max ? &t->out[t->n] : NULL;
	t->n++;
	if (!n)
		return NULL;
	*n = (struct pagoda_ptnode){ .pa = page_to_pa(pg), .parent_pa = parent, .va = va,
				     .level = pg->pt.level, .share = ptpage_sharers(pg),
				     .present = pg->count };
	if (parent && !pte_writable(via))
		n->flags |= PTN_WRPROT;
	return n;
}

/* One present leaf of a PT page: count it in that PT's node. */
static int leaf_count(struct walk *w)
{
	struct pagoda_ptnode *n = w->arg;
	pte_t e = pte_read(w->ep);
	n->leaf_present++;
	n->leaf_cow += pte_cow(e);
	n->leaf_lazyfree += page_lazyfree_mapping(pa_to_page(pte_addr(e)), e);
	n->leaf_file += pte_file(e);
	n->leaf_zero += pte_maps_zero(e);
	return 0;
}

/* A swap entry of a PT page: counted apart (not present). */
static int swap_count(struct walk *w)
{
	((struct pagoda_ptnode *)w->arg)->leaf_swap++;
	return 0;
}

static const struct walk_ops leaf_ops = { .pte = leaf_count, .swap = swap_count };

/* Summarise all 512 leaf entries of the PT page mapping the 2 MiB at va
 * (not only those in the walked range: the PT page is drawn whole). */
static void leaf_summary(struct pagetable *pgt, vaddr_t va, struct pagoda_ptnode *n)
{
	vaddr_t base = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	struct walk w = { .ops = &leaf_ops, .pgt = pgt, .arg = n };
	walk_range(&w, base, base + LARGE_PAGE_SIZE);
}

/* A present entry of a PML4, PDPT or PD page: describe the table below it,
 * and descend only while the next level is to be described too. */
static int table_entry(struct walk *w)
{
	struct tree_walk *t = w->arg;
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level) || w->level - 1 < t->lowest)
		return WALK_SKIP;
	vaddr_t first = ALIGN_DOWN(w->va, pgl_entry_size(w->level));
	struct pagoda_ptnode *n = node_add(t, pa_to_page(pte_addr(e)),
					   V2P(ALIGN_DOWN((uintptr_t)w->ep, PAGE_SIZE)), first, e);
	if (w->level - 1 == PGL_PT) {
		if (n)
			leaf_summary(w->pgt, first, n);
		return WALK_SKIP;
	}
	return w->level - 2 < t->lowest ? WALK_SKIP : 0;
}

static const struct walk_ops tree_ops = {
	.pml4e = table_entry, .pdpte = table_entry, .pde = table_entry,
};

size_t pt_tree(struct pagetable *pgt, vaddr_t lo, vaddr_t hi, int depth,
	       struct pagoda_ptnode *out, size_t max)
{
	struct tree_walk t = { .out = out, .max = max, .lowest = PGL_PML4 + 1 - depth };
	node_add(&t, pgt->root, 0, 0, 0);
	if (depth > 1) {
		struct walk w = { .ops = &tree_ops, .pgt = pgt, .arg = &t, .leaf_level = PGL_PD };
		walk_range(&w, lo, hi);
	}
	return t.n;
}

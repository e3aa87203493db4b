/* mm/pt/kvm.c -- the kernel address space (see mm/pt/kvm.h). */
#include "mm/pt/kvm.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/errno.h"
#include "lib/printk.h"

static uint64_t dmap_page;
static paddr_t dmap_end;           /* the direct map covers [0, dmap_end) */

/* An absent direct-map entry at the leaf level: one large page. */
static int dmap_hole(struct walk *w)
{
	pte_t bits = pte_mkhuge(pgt_prot_bits(w->va, VM_READ | VM_WRITE));
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, pte_make(w->va - DIRECT_MAP_BASE, bits));
	return 0;
}

static int dmap_present(struct walk *w)
{
	if (pte_is_leaf(pte_read(w->ep), w->level))
		panic("kvm: direct map at %#lx built twice", w->va);
	return 0;
}

static const struct walk_ops dmap_ops = {
	.pdpte = dmap_present, .pde = dmap_present, .hole = dmap_hole,
};

/* Walk (allocating) over one PML4 entry's range: creates its PDPT. */
static const struct walk_ops reserve_ops = { 0 };

void kvm_build(const struct kvm_layout *l)
{
	pgt_freeze_kernel_half(false);
	kernel_pgt = (struct pagetable){ .root = ptpage_alloc(PGL_PML4) };
	if (!kernel_pgt.root)
		panic("kvm: no memory for the kernel PML4");
	dmap_page = pgl_entry_size(l->page1g ? PGL_PDPT : PGL_PD);
	uint64_t dmap_len = MIN(ALIGN_UP(l->dmap_end, dmap_page), DIRECT_MAP_MAX);
	dmap_end = dmap_len;
	struct walk w = { .ops = &dmap_ops, .pgt = &kernel_pgt, .alloc = true,
			  .leaf_level = l->page1g ? PGL_PDPT : PGL_PD };
	if (walk_range(&w, DIRECT_MAP_BASE, DIRECT_MAP_BASE + dmap_len) < 0)
		panic("kvm: out of memory building the direct map");

	struct walk r = { .ops = &reserve_ops, .pgt = &kernel_pgt, .alloc = true,
			  .leaf_level = PGL_PDPT };
	if (walk_range(&r, KSTACK_BASE, KSTACK_BASE + pgl_entry_size(PGL_PML4)) < 0)
		panic("kvm: out of memory for the kernel stack region");

	for (int i = 0; i < l->nseg; i++) {
		const struct kvm_segment *s = &l->seg[i];
		if (s->end > s->start &&
		    pgt_map(&kernel_pgt, s->start, s->start - KERNEL_VMA,
				  s->end - s->start, s->prot) < 0)
			panic("kvm: out of memory mapping the kernel image");
	}
	pgt_freeze_kernel_half(true);
}

bool kvm_dmap_covers(paddr_t end)
{
	return end <= dmap_end;
}

uint64_t kvm_dmap_page_size(void)
{
	return dmap_page;
}

/* A large direct-map leaf: replace it by a table of the next level's pages
 * with the same attributes, then split those too, down to 4 KiB. */
static int dmap_split_leaf(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (!pte_is_leaf(e, w->level))
		return 0;
	int sub = w->level - 1;
	uint64_t size = pgl_entry_size(sub);
	vaddr_t base = w->va & ~(pgl_entry_size(w->level) - 1);
	struct page *t = ptpage_alloc(sub);
	if (!t)
		return -ENOMEM;
	pte_t bits = sub == PGL_PT ? pte_mksmall(pte_flags(e)) : pte_flags(e);
	pte_t *entries = ptpage_entries(t);
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		pt_set_leaf(w->pgt, base + i * size, &entries[i], sub,
			    pte_make(pte_addr(e) + i * size, bits));
	pt_table_link(w->pgt, w->ep, w->level, t, w->va);
	return sub == PGL_PT ? 0 : walk_range(w, w->va, w->end);
}

static const struct walk_ops dmap_split_ops = {
	.pdpte = dmap_split_leaf, .pde = dmap_split_leaf,
};

void kvm_dmap_split(paddr_t end)
{
	struct walk w = { .ops = &dmap_split_ops, .pgt = &kernel_pgt };
	end = ALIGN_UP(end, PAGE_SIZE);
	if (walk_range(&w, DIRECT_MAP_BASE, DIRECT_MAP_BASE + end) < 0)
		panic("kvm: out of memory splitting the direct map below %#lx", end);
	dmap_page = PAGE_SIZE;
	pv_flush_all();   /* page sizes changed: no TLB may keep the large ones */
}

pte_t *kvm_dmap_pte(paddr_t pa)
{
	pte_t *ep;
	int level = pgt_walk(&kernel_pgt, DIRECT_MAP_BASE + pa, PGL_PT, 0, &ep);
	return level == PGL_PT && pte_present(pte_read(ep)) ? ep : NULL;
}

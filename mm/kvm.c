/* mm/kvm.c -- the kernel address space (see mm/kvm.h). */
#include "mm/kvm.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"
#include "kernel/printk.h"

static uint64_t dmap_page;

/* An absent direct-map entry at the leaf level: one large page. */
static int dmap_hole(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end, int level)
{
	(void)end;
	pte_t bits = pgt_prot_bits(va, PGT_R | PGT_W) | PTE_PS;
	pt_set_leaf(w->pgt, va, ep, level, pte_make(va - DIRECT_MAP_BASE, bits));
	return 0;
}

static int dmap_present(struct walk *w, pte_t *ep, vaddr_t va, vaddr_t end, int level)
{
	(void)w, (void)end;
	if (pte_is_leaf(pte_read(ep), level))
		panic("kvm: direct map at %#lx built twice", va);
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
		    pgt_map_range(&kernel_pgt, s->start, s->start - KERNEL_VMA,
				  s->end - s->start, s->prot) < 0)
			panic("kvm: out of memory mapping the kernel image");
	}
	pgt_freeze_kernel_half(true);
}

uint64_t kvm_dmap_page_size(void)
{
	return dmap_page;
}

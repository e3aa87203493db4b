/* mm/ptshare_check.c -- the VM invariant checker (see mm/ptshare_check.h). */
#include "mm/ptshare_check.h"
#include "mm/as.h"
#include "mm/kmalloc.h"
#include "mm/page.h"
#include "mm/pgtable_check.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"
#include "lib/printk.h"

int ptshare_check_begin(struct ptshare_check *c)
{
	*c = (struct ptshare_check){ 0 };
	c->pde_refs = kzalloc(max_pfn * sizeof(uint32_t));
	c->maps = kzalloc(max_pfn * sizeof(uint32_t));
	if (!c->pde_refs || !c->maps) {
		kfree(c->pde_refs);
		kfree(c->maps);
		return -ENOMEM;
	}
	return 0;
}

/* Count the frames PT page pt (mapping the 2 MiB at base) maps, once per
 * PT page; a private writable entry must map a frame nobody else maps, and
 * the PT page's zero count (RSS leaves those out) must be its entries
 * mapping the zero page. */
static void count_pt_entries(struct ptshare_check *c, struct page *pt, vaddr_t base)
{
	const pte_t *e = ptpage_entries(pt);
	unsigned zero = 0;
	for (int i = 0; i < PT_ENTRIES; i++) {
		pte_t x = pte_read(&e[i]);
		if (!pte_mapped(x))
			continue;
		zero += pte_maps_zero(x);
		uint64_t pfn = pte_addr(x) >> PAGE_SHIFT;
		if (pfn >= max_pfn)
			continue;
		c->maps[pfn]++;
		if (pte_writable(x) && !pte_shared(x) && frames[pfn].refcount > 1)
			panic("vmcheck: va %#lx: writable private entry to frame %#lx with %u "
			      "references (copy-on-write broken)", base + (vaddr_t)i * PAGE_SIZE,
			      pfn << PAGE_SHIFT, frames[pfn].refcount);
	}
	if (zero != pt->pt.zero)
		panic("vmcheck: PT page %#lx at %#lx: zero count %u but %u entries map the zero page",
		      page_to_pa(pt), base, pt->pt.zero, zero);
}

static int check_pde(struct walk *w)
{
	struct ptshare_check *c = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pt = pa_to_page(pte_addr(e));
	if (pt->pt.share > 1 && pte_writable(e))
		panic("vmcheck: va %#lx: writable PD entry to PT page %#lx shared by %u",
		      w->va, page_to_pa(pt), pt->pt.share);
	uint64_t pfn = pte_addr(e) >> PAGE_SHIFT;
	if (c->pde_refs[pfn]++ == 0) {
		c->pt_pages++;
		count_pt_entries(c, pt, ALIGN_DOWN(w->va, LARGE_PAGE_SIZE));
	}
	return 0;
}

static const struct walk_ops check_pde_ops = { .pde = check_pde };

void ptshare_check_add(struct ptshare_check *c, struct addrspace *as)
{
	pgt_check(as->pgt, 0, USER_TOP);
	struct walk w = { .ops = &check_pde_ops, .pgt = as->pgt, .arg = c,
			  .leaf_level = PGL_PD };
	walk_range(&w, 0, USER_TOP);
	c->spaces++;
}

void ptshare_check_finish(struct ptshare_check *c)
{
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++) {
		struct page *pg = &frames[pfn];
		if (c->pde_refs[pfn] && pg->pt.share != c->pde_refs[pfn])
			panic("vmcheck: PT page %#lx: share count %u but %u PD entries point at it",
			      pfn << PAGE_SHIFT, pg->pt.share, c->pde_refs[pfn]);
		if (!c->maps[pfn])
			continue;
		c->frames++;
		if (pg->type != PG_ANON && pg->type != PG_FILE)
			page_bug(pg, "vmcheck: user mapping of a non-user frame", NULL);
		uint32_t want = c->maps[pfn] + (pg->type == PG_FILE ? 1 : 0);
		if (pg->refcount != want)
			panic("vmcheck: frame %#lx (%s): refcount %u, but %u PT pages map it%s",
			      pfn << PAGE_SHIFT, page_type_name(pg->type), pg->refcount,
			      c->maps[pfn], pg->type == PG_FILE ? " (+1 for its file)" : "");
	}
	kfree(c->pde_refs);
	kfree(c->maps);
	c->pde_refs = c->maps = NULL;
}

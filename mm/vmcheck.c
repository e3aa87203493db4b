/* mm/vmcheck.c -- the VM invariant checker (see mm/vmcheck.h). */
#include "mm/vmcheck.h"
#include "mm/as.h"
#include "mm/ptshare.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable_check.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"

/* The counting arrays reserved at boot (vmcheck_reserve), claimed by one
 * check at a time with `kept_busy`: a check late in a run under memory
 * pressure, where free frames come in ones and twos (pages swapped out one
 * by one), found no 16 contiguous frames for them. A second check at once
 * allocates its own. */
static uint32_t *kept_refs, *kept_maps;
static bool kept_busy;

void vmcheck_reserve(void)
{
	kept_refs = kmalloc(max_pfn * sizeof(uint32_t));
	kept_maps = kmalloc(max_pfn * sizeof(uint32_t));
}

int vmcheck_begin(struct vmcheck *c)
{
	*c = (struct vmcheck){ 0 };
	bool kept = !__atomic_exchange_n(&kept_busy, true, __ATOMIC_ACQUIRE);
	c->table_refs = kept && kept_refs ? kept_refs : kmalloc(max_pfn * sizeof(uint32_t));
	c->maps = kept && kept_maps ? kept_maps : kmalloc(max_pfn * sizeof(uint32_t));
	c->kept = kept;
	if (!c->table_refs || !c->maps) {
		vmcheck_release(c);
		return -ENOMEM;
	}
	memset(c->table_refs, 0, max_pfn * sizeof(uint32_t));
	memset(c->maps, 0, max_pfn * sizeof(uint32_t));
	return 0;
}

void vmcheck_release(struct vmcheck *c)
{
	if (c->table_refs != kept_refs)
		kfree(c->table_refs);
	if (c->maps != kept_maps)
		kfree(c->maps);
	if (c->kept)
		__atomic_store_n(&kept_busy, false, __ATOMIC_RELEASE);
	c->table_refs = c->maps = NULL;
	c->kept = false;
}

/* A private writable entry at va maps pg: no other mapping may hold it
 * (the references that are no mapping aside: the reclaimer's, and the swap
 * cache's of a page on its way out, not yet written), and a page whose
 * slot holds its bytes (in the swap cache, up to date) is never writable:
 * a store would make the slot stale. */
static void check_writable(const struct page *pg, vaddr_t va)
{
	bool cached = pg->type == PG_ANON && (pg->aflags & AF_SWAPCACHE);
	if (pg->refcount > 1 + anon_unmapped_refs(pg))
		panic("vmcheck: va %#lx: writable private entry to frame %#lx with %u "
		      "references (copy-on-write broken)", va, page_to_pa(pg), pg->refcount);
	if (cached && (pg->aflags & AF_UPTODATE))
		panic("vmcheck: va %#lx: writable entry to frame %#lx, whose swap slot holds "
		      "its bytes (a store would make the slot stale)", va, page_to_pa(pg));
}

/* Count the frames PT page pt (mapping the 2 MiB at base) maps, once per
 * PT page; a private writable entry must map a frame nobody else maps, and
 * the PT page's zero count (RSS leaves those out) must be its entries
 * mapping the zero page. */
static void count_pt_entries(struct vmcheck *c, struct page *pt, vaddr_t base)
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
		if (pte_writable(x) && !pte_shared(x))
			check_writable(&frames[pfn], base + (vaddr_t)i * PAGE_SIZE);
	}
	if (zero != pt->pt.zero)
		panic("vmcheck: PT page %#lx at %#lx: zero count %u but %u entries map the zero page",
		      page_to_pa(pt), base, pt->pt.zero, zero);
}

/* A table entry (PDPT or PD entry) of w: a shared table must be reached
 * through a write-protected entry only (then every entry below it is
 * read-only to all its sharers). Returns true the first time its table is
 * seen (count its entries then, once however many entries point at it). */
static bool check_table_entry(struct walk *w, const char *what)
{
	struct vmcheck *c = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *t = pa_to_page(pte_addr(e));
	if (ptpage_shared(t) && pte_writable(e))
		panic("vmcheck: va %#lx: writable %s entry to level-%d table %#lx shared by %u",
		      w->va, what, t->pt.level, page_to_pa(t), t->pt.share);
	return c->table_refs[pte_addr(e) >> PAGE_SHIFT]++ == 0;
}

static int check_pde(struct walk *w)
{
	struct vmcheck *c = w->arg;
	if (check_table_entry(w, "PD")) {
		c->pt_pages++;
		count_pt_entries(c, pa_to_page(pte_addr(pte_read(w->ep))),
				 ALIGN_DOWN(w->va, LARGE_PAGE_SIZE));
	}
	return 0;
}

/* A PD page is descended into once: the next sharers' PDPT entries only
 * count towards its share. */
static int check_pdpte(struct walk *w)
{
	struct vmcheck *c = w->arg;
	if (pte_huge(pte_read(w->ep)))
		panic("vmcheck: va %#lx: a 1 GiB user page", w->va);
	if (!check_table_entry(w, "PDPT"))
		return WALK_SKIP;
	c->pd_pages++;
	return 0;
}

static const struct walk_ops check_pde_ops = { .pdpte = check_pdpte, .pde = check_pde };

/* A table held by a reference that is no table entry -- as->pgt's, after
 * unlinking it under readers (mm/pt/pgtable.h's pgt_defer_put), or a
 * published text page's record's: one more pointer to it, and, the first
 * time it is seen, its entries (a PD page's PT pages, a PT page's frames;
 * where it was mapped is not known: base 0 in messages). */
static void check_stale_table(struct vmcheck *c, struct page *t)
{
	if (c->table_refs[page_to_pa(t) >> PAGE_SHIFT]++ != 0)
		return;
	if (t->pt.level == PGL_PT) {
		c->pt_pages++;
		count_pt_entries(c, t, 0);
		return;
	}
	c->pd_pages++;
	const pte_t *e = ptpage_entries(t);
	for (int i = 0; i < PT_ENTRIES; i++)
		if (pte_present(pte_read(&e[i])) &&
		    c->table_refs[pte_addr(pte_read(&e[i])) >> PAGE_SHIFT]++ == 0) {
			c->pt_pages++;
			count_pt_entries(c, pa_to_page(pte_addr(pte_read(&e[i]))), 0);
		}
}

void vmcheck_add(struct vmcheck *c, struct addrspace *as)
{
	pgt_check(as->pgt, 0, USER_TOP);
	struct walk w = { .ops = &check_pde_ops, .pgt = as->pgt, .arg = c,
			  .leaf_level = PGL_PD };
	walk_range(&w, 0, USER_TOP);
	for (struct stale_table *s = as->pgt->stale; s; s = s->next)
		check_stale_table(c, s->table);
	c->spaces++;
}

/* ptshare_text_for_each: a published text page's record holds a share. */
static void check_text_record(struct page *pt, void *c)
{
	check_stale_table(c, pt);
}

void vmcheck_finish(struct vmcheck *c)
{
	ptshare_text_for_each(check_text_record, c);
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++) {
		struct page *pg = &frames[pfn];
		if (c->table_refs[pfn] && pg->pt.share != c->table_refs[pfn])
			panic("vmcheck: level-%d table %#lx: share count %u but %u entries point at it",
			      pg->pt.level, pfn << PAGE_SHIFT, pg->pt.share, c->table_refs[pfn]);
		if (!c->maps[pfn])
			continue;
		c->frames++;
		if (pg->type != PG_ANON && pg->type != PG_FILE)
			page_bug(pg, "vmcheck: user mapping of a non-user frame", NULL);
		/* +1 for a file's page (its cache's), for an anonymous page in
		 * the swap cache, for one the reclaimer is paging out. A file
		 * page may have passing references besides, which the checker
		 * cannot tell from a leak (a read copying out of it, which may
		 * sleep on a fault; a write-back batch, the reclaimer's look at
		 * it, a task waiting for either): fewer than its mappings is
		 * what it catches there. */
		uint32_t extra = (pg->type == PG_FILE) + anon_unmapped_refs(pg);
		bool file = pg->type == PG_FILE;
		if (file ? pg->refcount < c->maps[pfn] + extra : pg->refcount != c->maps[pfn] + extra)
			panic("vmcheck: frame %#lx (%s): refcount %u, but %u PT pages map it "
			      "(+%u: its file's, the swap cache's, the reclaimer's)",
			      pfn << PAGE_SHIFT, page_type_name(pg->type), pg->refcount,
			      c->maps[pfn], extra);
	}
	vmcheck_release(c);
}

/* mm/pt/ptwrite_check.c -- the rules of a page-table entry write, and the hook
 * table through which pv=checked asks them (see mm/pt/ptwrite_check.h). */
#include "mm/pt/ptwrite_check.h"
#include "mm/pt/kvm.h"
#include "mm/frame/page.h"
#include "mm/pt/ptpage.h"
#include "arch/x86_64/memlayout.h"

/* A table entry (level > PT, no PS): what it points at. */
static const char *check_table(int level, pte_t e)
{
	struct page *t = pa_to_page(pte_addr(e));
	if (!t || t->type != PG_PAGETABLE || t->pt.level != level - 1)
		return "table entry points at a frame that is not a table of the next level";
	if (ptpage_shared(t) && pte_writable(e))
		return "writable table entry to a page-table page shared by several address spaces";
	return NULL;
}

/* A user leaf e: the frame must be user memory with an owner, and a
 * private writable one must have no other owner (the references that are
 * no mapping aside: the swap cache's, the reclaimer's while it ages or
 * pages out the frame, mm/frame/page.h's anon_unmapped_refs). */
static const char *check_user_leaf(struct page *f, pte_t e)
{
	if (!f)
		return "user mapping of a frame outside RAM";
	if (f->type != PG_ANON && f->type != PG_FILE)
		return "user mapping of a frame that is not user memory (kernel, page table, free "
		       "or reserved)";
	uint32_t refs = __atomic_load_n(&f->refcount, __ATOMIC_SEQ_CST);
	if (refs == 0)
		return "user mapping of a frame with no reference";
	if (pte_writable(e) && !pte_shared(e) && refs > 1 + anon_unmapped_refs(f))
		return "writable private user mapping of a frame with more than one reference "
		       "(copy-on-write broken)";
	return NULL;
}

const char *ptwrite_check(const pte_t *ep, int level, pte_t e)
{
	struct page *holder = ptpage_of(ep);
	if (!holder || holder->type != PG_PAGETABLE || holder->pt.level != level)
		return "entry written into a frame that is not a page table of that level";
	if (!pte_mapped(e))
		return NULL;
	if (!pte_is_leaf(e, level))
		return check_table(level, e);
	/* A shared PT page keeps the W its leaves had at fork (only the
	 * entries above lose it: docs/fork-shared-page-tables.md), and a
	 * rewrite that takes something else away (Accessed: aging) keeps it
	 * too; what no write may do there is give W to a leaf that lacks it. */
	if (ptpage_shared(holder) && pte_writable(e) && !pte_writable(pte_read(ep)))
		return "writable leaf written into a page-table page shared by several address spaces";
	struct page *f = pa_to_page(pte_addr(e));
	if (pte_user(e) || pte_protnone(e))
		return check_user_leaf(f, e);
	if (level == PGL_PT && f && f->type == PG_PAGETABLE && pte_writable(e))
		return "writable kernel mapping of a page-table page";
	return NULL;
}

/* The level of the page-table page at frame pa, or -1. */
static int table_level(paddr_t pa)
{
	struct page *pg = pa_to_page(pa);
	return pg && pg->type == PG_PAGETABLE ? pg->pt.level : -1;
}

/* pv=checked's install: 4 KiB direct-map pages, then every table protected. */
static unsigned install(void (*protect)(paddr_t pa))
{
	kvm_dmap_split(max_pfn << PAGE_SHIFT);
	unsigned n = 0;
	for (uint64_t pfn = 0; pfn < max_pfn; pfn++) {
		if (frames[pfn].type == PG_PAGETABLE) {
			protect(pfn << PAGE_SHIFT);
			n++;
		}
	}
	return n;
}

const struct pv_check_ops ptwrite_check_ops = {
	.entry_write = ptwrite_check,
	.table_level = table_level,
	.dmap_entry = kvm_dmap_pte,
	.install = install,
};

/* mm/pt/ptpage.c -- page-table pages: allocation, freeing, and the two
 * functions through which every entry write passes (see mm/pt/ptpage.h). */
#include "mm/pt/ptpage.h"
#include "mm/frame/buddy.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/swap.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/atomic.h"

static bool kernel_half_frozen;

void pgt_freeze_kernel_half(bool frozen)
{
	kernel_half_frozen = frozen;
}

paddr_t zero_frame_pa;

struct page *ptpage_alloc(int level)
{
	uint64_t t0 = phase_begin();
	struct page *pt = page_alloc(0, PA_ZERO | PA_PAGETABLE);
	phase_end(PH_PTPAGE_ALLOC, t0);
	if (!pt)
		return NULL;
	pt->pt.level = (uint8_t)level;
	pt->pt.share = 1;
	pt->pt.text = 0;
	pt->pt.zero = 0;
	pt->ptswap = 0;
	pt->count = 0;
	if (level == PGL_PT)
		spin_init(&pt->ptl, "ptl", LOCK_RANK_PTL);
	else
		spin_init(&pt->ptl, "ptl-upper", LOCK_RANK_PTL_UPPER);
	pv_alloc_pt(page_to_pa(pt), level);
	return pt;
}

bool ptpage_sole(struct page *pt)
{
	return atomic_load(&pt->pt.share) == 1;
}

void ptpage_free(struct page *pt)
{
	const void *caller = __builtin_return_address(0);
	if (pt->type != PG_PAGETABLE)
		page_bug(pt, "ptpage_free of a frame that is not a page table", caller);
	if (pt->count)
		page_bug(pt, "ptpage_free of a table with entries that hold something", caller);
	if (pt->pt.share != 1)
		page_bug(pt, "ptpage_free of a shared table", caller);
	if (pt->pt.text)
		page_bug(pt, "ptpage_free of a table still published as text", caller);
	pv_release_pt(page_to_pa(pt), pt->pt.level);
	pt->pt.share = 0;
	page_free_from(pt, 0, caller);
}

struct page *ptpage_of(const pte_t *ep)
{
	return pa_to_page(V2P(ep));
}

pte_t *ptpage_entries(struct page *pt)
{
	return page_va(pt);
}

pte_t *pt_root(struct pagetable *pgt)
{
	return ptpage_entries(pgt->root);
}

/* The table page holding *ep, which must be a table of that level. */
static struct page *table_of(pte_t *ep, int level, const void *caller)
{
	struct page *pt = ptpage_of(ep);
	if (!ptpage_is(pt, level))
		page_bug(pt, "entry write into a frame that is not a table of that level",
			 caller);
	return pt;
}

/* Keep pt's count of entries that hold something (and, in a PT page, the
 * counts of those mapping the zero page and of swap entries) for a write
 * of e over old. Presence and frame are only
 * ever changed by software, under the PT page's lock: what the MMU sets
 * meanwhile (A, D) changes neither count. */
static void account(struct page *pt, int level, pte_t old, pte_t e, const void *caller)
{
	int delta = (int)pte_holds(e) - (int)pte_holds(old);
	if ((delta < 0 && pt->count == 0) || (delta > 0 && pt->count >= PT_ENTRIES))
		page_bug(pt, "page-table present count out of range", caller);
	pt->count = (uint16_t)(pt->count + delta);
	if (level == PGL_PT) {
		pt->pt.zero = (uint16_t)(pt->pt.zero + pte_maps_zero(e) - pte_maps_zero(old));
		pt->ptswap = (uint16_t)(pt->ptswap + pte_is_swap(e) - pte_is_swap(old));
	}
}

/* Write *ep, keeping the counts of the table that holds it. */
static void set_entry(pte_t *ep, int level, pte_t e, const void *caller)
{
	account(table_of(ep, level, caller), level, pte_read(ep), e, caller);
	pv_set_entry(ep, level, e);
}

/* pt, the table of a leaf mapping va about to change: panics if it is
 * shared (a shared table's leaves are written only by
 * pt_wrprotect_shared and pt_clear_shared_leaf). */
static struct page *leaf_private(struct page *pt, vaddr_t va)
{
	if (ptpage_shared(pt))
		panic("pt_set_leaf: va %#lx: write into a PT page shared by %u "
		      "address spaces (pa %#lx)", va, pt->pt.share, page_to_pa(pt));
	return pt;
}

/* Before leaf *ep (mapping va) becomes e: the table must be private.
 * Returns the table page. */
static struct page *leaf_prepare(vaddr_t va, pte_t *ep, int level, pte_t e, const void *caller)
{
	struct page *pt = leaf_private(table_of(ep, level, caller), va);
	account(pt, level, pte_read(ep), e, caller);
	return pt;
}

void pt_set_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep, int level, pte_t e)
{
	(void)pgt;   /* the entry's address space: the callers name it, nothing here needs it */
	leaf_prepare(va, ep, level, e, __builtin_return_address(0));
	pv_set_entry(ep, level, e);
}

pte_t pt_xchg_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep, int level, pte_t e)
{
	(void)pgt;
	leaf_prepare(va, ep, level, e, __builtin_return_address(0));
	if (level == PGL_PT)
		return pv_xchg_pte(ep, e);
	pte_t old = pte_read(ep);   /* a large page: kernel only, A/D unused */
	pv_set_entry(ep, level, e);
	return old;
}

void pt_leaf_account(struct pagetable *pgt, vaddr_t va, pte_t *ep, pte_t e, const void *caller)
{
	(void)pgt;
	leaf_prepare(va, ep, PGL_PT, e, caller);
}

void pt_leaf_bug(pte_t *ep, vaddr_t va, const void *caller)
{
	leaf_private(table_of(ep, PGL_PT, caller), va);
	panic("pt_leaf_bug: called for entry %p (va %#lx) of a private PT page",
	      (void *)ep, va);
}

void pt_set_table(pte_t *ep, int level, pte_t e)
{
	if (level == PGL_PT)
		panic("pt_set_table: a PT entry is a leaf (entry %p)", (void *)ep);
	struct page *holder = ptpage_of(ep);
	if (holder && holder->type == PG_PAGETABLE && ptpage_shared(holder))
		panic("pt_set_table: entry %p: write into a level-%d table shared by %u "
		      "address spaces (pa %#lx)", (void *)ep, level, holder->pt.share,
		      page_to_pa(holder));
	set_entry(ep, level, e, __builtin_return_address(0));
}

void pt_table_wrprotect_shared(pte_t *ep)
{
	pte_t old = pte_read(ep);
	struct page *holder = ptpage_of(ep);
	if (!pte_present(old) || pte_is_leaf(old, holder->pt.level) || holder->pt.level != PGL_PD)
		page_bug(holder, "pt_table_wrprotect_shared of an entry that is not a PD "
			 "entry to a table", __builtin_return_address(0));
	pv_set_entry(ep, PGL_PD, pte_wrprotect(old));   /* present before and after */
}

void pt_wrprotect_shared(pte_t *ep, pte_t e)
{
	pte_t old = pte_read(ep);
	if (!pte_mapped(old) || pte_clear(e, PTE_A | PTE_D) != pte_clear(pte_mkcow(old), PTE_A | PTE_D))
		page_bug(ptpage_of(ep), "pt_wrprotect_shared may only write-protect an entry",
			 __builtin_return_address(0));
	/* present before and after: the count stays; the other sharers' MMUs
	 * may set A/D meanwhile, and those bits are kept */
	for (pte_t seen; (seen = pv_cmpxchg_pte(ep, old, pte_mkcow(old))) != old;)
		old = seen;
}

/* The PT page holding *ep, whose lock the caller must hold (a write into
 * a table that other address spaces use: pt_*_shared_leaf). */
static struct page *shared_leaf_table(pte_t *ep, const char *who, const void *caller)
{
	struct page *pt = table_of(ep, PGL_PT, caller);
	if (!spin_holding(pt_lock(pt)))
		page_bug(pt, who, caller);
	return pt;
}

pte_t pt_xchg_shared_leaf(pte_t *ep, pte_t e)
{
	const void *caller = __builtin_return_address(0);
	struct page *pt = shared_leaf_table(ep, "pt_xchg_shared_leaf without the table's lock",
					    caller);
	if (!pte_none(e) && !pte_is_swap(e))
		page_bug(pt, "pt_xchg_shared_leaf may only clear an entry or swap it out", caller);
	pte_t old = pv_xchg_pte(ep, e);   /* what the MMUs set up to now comes back */
	account(pt, PGL_PT, old, e, caller);
	return old;
}

/* Clear *ep of PT page pt if it is present and clean (see
 * pt_clear_clean_leaf): compare-exchange, again when an MMU set A
 * meanwhile. */
static pte_t clear_if_clean(struct page *pt, pte_t *ep, const void *caller)
{
	pte_t old = pte_read(ep);
	while (pte_present(old) && !pte_dirty(old)) {
		pte_t seen = pv_cmpxchg_pte(ep, old, 0);
		if (seen == old) {
			account(pt, PGL_PT, old, 0, caller);
			return old;
		}
		old = seen;
	}
	return old;
}

pte_t pt_clear_clean_leaf(struct pagetable *pgt, vaddr_t va, pte_t *ep)
{
	const void *caller = __builtin_return_address(0);
	(void)pgt;
	return clear_if_clean(leaf_private(table_of(ep, PGL_PT, caller), va), ep, caller);
}

pte_t pt_modify_shared_leaf(pte_t *ep, pte_modify_fn f, const void *arg)
{
	const void *caller = __builtin_return_address(0);
	struct page *pt = shared_leaf_table(ep, "pt_modify_shared_leaf without the table's lock",
					    caller);
	pte_t old = pte_read(ep);
	if (pte_changes_bookkeeping(old, f(old, arg)) || (pte_writable(f(old, arg)) && !pte_writable(old)))
		page_bug(pt, "pt_modify_shared_leaf may only take permissions away", caller);
	for (pte_t seen; (seen = pv_cmpxchg_pte(ep, old, f(old, arg))) != old;)
		old = seen;   /* the MMU set A or D meanwhile: again */
	return old;
}

struct page *pt_table_alloc(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va)
{
	if (level == PGL_PML4 && !is_user_addr(va) && kernel_half_frozen)
		panic("pt_table_alloc: va %#lx needs a new kernel-half PML4 entry "
		      "after the kernel half was frozen", va);
	struct page *t = ptpage_alloc(level - 1);
	if (!t)
		return NULL;
	struct page *parent = ptpage_of(ep);   /* two CPUs may both find *ep absent */
	spin_lock(pt_lock(parent));
	pte_t now = pte_read(ep);
	if (!pte_present(now))
		pt_table_link(pgt, ep, level, t, va);
	spin_unlock(pt_lock(parent));
	if (!pte_present(now))
		return t;
	ptpage_free(t);                        /* the other CPU linked one first */
	return pa_to_page(pte_addr(now));
}

void pt_table_link(struct pagetable *pgt, pte_t *ep, int level, struct page *t, vaddr_t va)
{
	pte_t e = pte_table(page_to_pa(t));
	pt_set_table(ep, level, is_user_addr(va) ? pte_mkuser(e) : e);
	atomic_inc(&pgt->nr_tables);
}

/* Table pages an address space reaches through an entry pointing at t. */
static uint64_t tables_below(const struct page *t)
{
	return 1 + (t->pt.level == PGL_PD ? t->count : 0);
}

void pt_table_link_shared(struct pagetable *pgt, pte_t *ep, int level, struct page *t)
{
	pt_set_table(ep, level, pte_mkuser(pte_wrprotect(pte_table(page_to_pa(t)))));
	atomic_inc(&t->pt.share);
	atomic_add(&pgt->nr_tables, tables_below(t));
}

struct page *pt_table_unlink(struct pagetable *pgt, pte_t *ep, int level)
{
	struct page *t = pa_to_page(pte_addr(pte_read(ep)));
	pt_set_table(ep, level, 0);
	atomic_add(&pgt->nr_tables, -1);
	return t;
}

struct page *pt_table_unlink_shared(struct pagetable *pgt, pte_t *ep, int level)
{
	struct page *t = pa_to_page(pte_addr(pte_read(ep)));
	pt_set_table(ep, level, 0);
	atomic_add(&pgt->nr_tables, -tables_below(t));
	return t;
}

/* Clear entry *ep of an orphan table of `level`, dropping what it held
 * (a frame's reference, a table's share, a swap slot's reference). */
static void orphan_entry(pte_t *ep, int level)
{
	pte_t e = pte_read(ep);
	struct page *pg = pa_to_page(pte_addr(e));
	set_entry(ep, level, 0, __builtin_return_address(0));
	if (pte_is_swap(e))
		swap_slot_put(e);
	else if (level == PGL_PD)
		pt_table_put(pg);
	else if (pg && pg->type != PG_RESERVED)
		page_put(pg);
}

/* Table t, shared once, lost its last sharer while still mapping things:
 * drop what its entries hold (a PT page: frame references; a PD page: one
 * share of each PT page). */
static void drop_orphan_entries(struct page *t)
{
	pte_t *e = ptpage_entries(t);
	int level = t->pt.level;
	if (level != PGL_PT && level != PGL_PD)
		page_bug(t, "pt_table_put: a level that is never shared still maps entries", NULL);
	for (int i = 0; i < PT_ENTRIES && t->count; i++)
		if (pte_holds(pte_read(&e[i])))
			orphan_entry(&e[i], level);
}

uint64_t pt_text_unused;

void pt_table_put(struct page *t)
{
	if (!atomic_dec_and_test(&t->pt.share)) {   /* other holders remain */
		if (t->pt.text && atomic_load(&t->pt.share) == 1)
			atomic_inc(&pt_text_unused);   /* only its record's is left */
		return;
	}
	t->pt.share = 1;                /* ptpage_free's rule: one owner, us */
	if (t->count)
		drop_orphan_entries(t);
	ptpage_free(t);
}

void pt_table_free(struct pagetable *pgt, pte_t *ep, int level)
{
	ptpage_free(pt_table_unlink(pgt, ep, level));
}

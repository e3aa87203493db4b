/* mm/pt/share.c -- shared page-table pages: unsharing, installing a shared
 * table, and sharing a range's tables with a new address space (fork's
 * mechanics; see mm/pt/share.h). */
#include "mm/frame/swap.h"
#include "mm/pt/share.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/pt/vmflags.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"

struct ptshare_stats ptshare_stats;

bool pt_needs_unshare(pte_t e, vaddr_t va)
{
	return is_user_addr(va) && pte_present(e) && !pte_huge(e) && !pte_writable(e);
}

/* Every TLB that may hold pgt's translations of [va, end) drops them (this
 * CPU's, and those of the other CPUs running pgt): a table was replaced by
 * a private copy. Never inside a batch (the copy allocated just before). */
static void flush_unshared(struct pagetable *pgt, vaddr_t va, vaddr_t end)
{
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	tlb_changed_range(&b, va, end);
	tlb_end(&b);
}

/* Copy shared PT page old into a new private one: every mapped frame gets a
 * reference for the copy, private entries become COW in both (read-only
 * ones too: their frame is now shared, and mprotect must not give W). */
static struct page *pt_copy_shared(struct pagetable *pgt, struct page *old, vaddr_t base)
{
	struct page *new = ptpage_alloc(PGL_PT);
	if (!new)
		return NULL;
	pte_t *from = ptpage_entries(old), *to = ptpage_entries(new);
	spin_lock(pt_lock(old));   /* an object's pages may be leaving every sharer (pgt_unmap) */
	for (int i = 0; i < PT_ENTRIES; i++) {
		pte_t e = pte_read(&from[i]);
		if (pte_is_swap(e)) {   /* the copy names the slot too */
			swap_slot_dup(e);
			pt_set_leaf(pgt, base + (vaddr_t)i * PAGE_SIZE, &to[i], PGL_PT, e);
			continue;
		}
		if (!pte_mapped(e))
			continue;
		struct page *pg = pa_to_page(pte_addr(e));
		if (pg && pg->type != PG_RESERVED)
			page_get(pg);
		if (!pte_shared(e) && !pte_cow(e)) {   /* private: COW whatever its protection */
			e = pte_mkcow(e);
			pt_wrprotect_shared(&from[i], e);
		}
		pt_set_leaf(pgt, base + (vaddr_t)i * PAGE_SIZE, &to[i], PGL_PT, e);
	}
	spin_unlock(pt_lock(old));
	return new;
}

/* Copy shared PD page old into a new private one: each PT page below gets
 * one more sharer (the copy's entry), and every PD entry, in the copy and
 * in old for all its sharers, loses W (a shared PT page is reached only
 * through write-protected entries). */
static struct page *pd_copy_shared(struct page *old)
{
	struct page *new = ptpage_alloc(PGL_PD);
	if (!new)
		return NULL;
	pte_t *from = ptpage_entries(old), *to = ptpage_entries(new);
	for (int i = 0; i < PT_ENTRIES; i++) {
		pte_t e = pte_read(&from[i]);
		if (!pte_present(e))
			continue;
		if (pte_huge(e))
			panic("pd_unshare: huge user page in a shared PD page %#lx", page_to_pa(old));
		if (pte_writable(e))
			pt_table_wrprotect_shared(&from[i]);
		atomic_inc(&pa_to_page(pte_addr(e))->pt.share);
		pt_set_table(&to[i], PGL_PD, pte_wrprotect(e));
	}
	return new;
}

/* Write table entry *ep (level) as an unshare does, under the address-
 * space lock held for reading and pgt->unshare_lock: under the lock of the
 * table holding it too, as every writer of such an entry under the read
 * lock (a text switch, mm/ptshare_text.c; mm/pt/ptpage.h, "Table
 * structure"). */
static void set_unshared(pte_t *ep, int level, pte_t e)
{
	struct spinlock *holder = pt_lock(ptpage_of(ep));
	spin_lock(holder);
	pt_set_table(ep, level, e);
	spin_unlock(holder);
}

/* Point *ep (level) at private copy `copy` of the shared table t, with W,
 * and flush. pgt's share of t is dropped later (record s: pgt_defer_put):
 * this runs under the address-space lock held for reading, and another
 * thread's look-up may still be reading t (if every other sharer went
 * meanwhile, that drop frees t). */
static void switch_to_copy(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va,
			   struct page *t, struct page *copy, struct stale_table *s)
{
	vaddr_t base = ALIGN_DOWN(va, pgl_entry_size(level));
	set_unshared(ep, level, pte_make(page_to_pa(copy), pte_mkwrite(pte_flags(pte_read(ep)))));
	flush_unshared(pgt, base, base + pgl_entry_size(level));
	pgt_defer_put(pgt, s, t);
}

/* The record switch_to_copy needs, allocated first: NULL (-ENOMEM) when
 * there is no memory for it. */
static struct stale_table *stale_record(void)
{
	return kmalloc(sizeof(struct stale_table));
}

/* The last sharer of table t under *ep keeps it: W back. */
static void take_last(pte_t *ep, int level, struct page *t)
{
	if (t->pt.text)   /* its record holds a share: never the last */
		page_bug(t, "table_unshare: took over a published text table", NULL);
	set_unshared(ep, level, pte_mkwrite(pte_read(ep)));
}

int pt_unshare(struct pagetable *pgt, pte_t *pde, vaddr_t va)
{
	struct page *pt = pa_to_page(pte_addr(pte_read(pde)));
	if (ptpage_sole(pt)) {                 /* the last sharer keeps it */
		take_last(pde, PGL_PD, pt);
		stat_inc(&ptshare_stats.unshare_last);
		return 0;
	}
	struct stale_table *s = stale_record();
	struct page *copy = s ? pt_copy_shared(pgt, pt, ALIGN_DOWN(va, LARGE_PAGE_SIZE)) : NULL;
	if (!copy) {
		kfree(s);
		return -ENOMEM;
	}
	switch_to_copy(pgt, pde, PGL_PD, va, pt, copy, s);
	stat_inc(&ptshare_stats.unshare_copy);
	return 0;
}

int pd_unshare(struct pagetable *pgt, pte_t *pdpte, vaddr_t va)
{
	struct page *pd = pa_to_page(pte_addr(pte_read(pdpte)));
	if (ptpage_sole(pd)) {
		take_last(pdpte, PGL_PDPT, pd);
		stat_inc(&ptshare_stats.pd_unshare_last);
		return 0;
	}
	struct stale_table *s = stale_record();
	struct page *copy = s ? pd_copy_shared(pd) : NULL;
	if (!copy) {
		kfree(s);
		return -ENOMEM;
	}
	switch_to_copy(pgt, pdpte, PGL_PDPT, va, pd, copy, s);
	stat_inc(&ptshare_stats.pd_unshare_copy);
	return 0;
}

int table_unshare(struct pagetable *pgt, pte_t *ep, int level, vaddr_t va)
{
	/* Two threads of pgt may fault below the same shared table at once:
	 * the second finds the entry made private (writable) by the first. */
	spin_lock(&pgt->unshare_lock);
	int r = 0;
	if (pt_needs_unshare(pte_read(ep), va))
		r = level == PGL_PDPT ? pd_unshare(pgt, ep, va) : pt_unshare(pgt, ep, va);
	spin_unlock(&pgt->unshare_lock);
	return r;
}

int walk_unshare(struct walk *w)
{
	return table_unshare(w->pgt, w->ep, w->level, w->va);
}

/* ---- installing a shared table in another address space ---- */

pte_t *pt_share_slot(struct pagetable *pgt, vaddr_t va)
{
	pte_t *slot;
	return pgt_walk(pgt, va, PGL_PD, PGT_WALK_ALLOC | PGT_WALK_UNSHARE, &slot) < 0 ? NULL : slot;
}

/* Point entry *slot (level) of pgt at table t, write-protected, one more
 * sharer: 0; an entry already pointing at t stays (a chunk spanning two
 * VMAs is offered once per VMA); -EEXIST if it points at another table. */
static int install_shared(struct pagetable *pgt, pte_t *slot, int level, struct page *t)
{
	pte_t e = pte_read(slot);
	if (pte_present(e))
		return pte_addr(e) == page_to_pa(t) ? 0 : -EEXIST;
	pt_table_link_shared(pgt, slot, level, t);
	return 0;
}

int pt_share_into(struct pagetable *pgt, pte_t *slot, struct page *pt)
{
	struct spinlock *l = pt_lock(ptpage_of(slot));
	spin_lock(l);
	int r = install_shared(pgt, slot, PGL_PD, pt);
	spin_unlock(l);
	return r;
}

/* ---- sharing a range with a new address space (fork) ---- */

struct fork_arg {
	struct pagetable *dst;
	unsigned flags;       /* PGT_SHARE_* */
	struct tlb_batch *b;  /* the parent's */
	pte_t *dst_pd;        /* the child's PD table for the 1 GiB at dst_pd_base */
	vaddr_t dst_pd_base;
};

/* The child's entry slot for va at `level` (PGL_PD or PGL_PDPT), its
 * tables allocated: found once per 1 GiB, not walked per entry. NULL when
 * out of memory. */
static pte_t *child_slot(struct fork_arg *a, vaddr_t va, int level)
{
	pte_t *slot;
	if (level == PGL_PDPT)
		return pgt_walk(a->dst, va, PGL_PDPT, PGT_WALK_ALLOC, &slot) == PGL_PDPT ? slot : NULL;
	vaddr_t gib = ALIGN_DOWN(va, HUGE_PAGE_SIZE);
	if (!a->dst_pd || a->dst_pd_base != gib) {
		if (pgt_walk(a->dst, va, PGL_PD, PGT_WALK_ALLOC, &slot) != PGL_PD)
			return NULL;
		a->dst_pd = slot - pgl_index(va, PGL_PD);
		a->dst_pd_base = gib;
	}
	return &a->dst_pd[pgl_index(va, PGL_PD)];
}

/* Is the parent's PD entry *w->ep copied (not shared) with the child: a
 * chunk the range covers in part (or a MAP_SHARED one) whose PT page is
 * private? */
static bool fork_copies(struct walk *w, unsigned flags)
{
	bool whole = w->end - w->va == LARGE_PAGE_SIZE && !(flags & PGT_SHARE_MAPSHARED);
	if (pte_huge(pte_read(w->ep)))
		panic("pgt_share: huge user page at %#lx", w->va);
	return !whole && !pt_needs_unshare(pte_read(w->ep), w->va);
}

/* Is the parent's PD page under PDPT entry *w->ep shared whole with the
 * child: already shared (its entry write-protected: all its sharers see the
 * same mappings), or the caller found the 1 GiB to be private memory only
 * (PGT_SHARE_PD)? */
static bool fork_shares_pd(struct walk *w, const struct fork_arg *a)
{
	if (pte_huge(pte_read(w->ep)))
		panic("pgt_share: huge user page at %#lx", w->va);
	return (a->flags & PGT_SHARE_PD) || pt_needs_unshare(pte_read(w->ep), w->va);
}

/* Give the child the parent's table under *w->ep (level): the child's
 * slot (allocated), then the parent's entry write-protected (noted in the
 * batch) and the table installed in the child with one more sharer. */
static int fork_share(struct walk *w, struct fork_arg *a, int level)
{
	vaddr_t size = pgl_entry_size(level), base = ALIGN_DOWN(w->va, size);
	pte_t *slot = child_slot(a, w->va, level);
	if (!slot)
		return -ENOMEM;
	pte_t e = pte_read(w->ep);
	if (pte_writable(e)) {
		pt_set_table(w->ep, level, pte_wrprotect(e));
		tlb_changed_range(a->b, base, base + size);
	}
	if (install_shared(a->dst, slot, level, pa_to_page(pte_addr(e))))
		panic("pgt_share: the child's %#lx already has another level-%d table", w->va,
		      level - 1);
	return 0;
}

/* A PD entry of the parent: share its PT page, or copy the part [va, end)
 * of it that the range covers. */
static int share_pde(struct walk *w)
{
	struct fork_arg *a = w->arg;
	if (fork_copies(w, a->flags)) {
		stat_inc(&ptshare_stats.fork_copied);
		return pgt_copy(a->b, a->dst, w->va, w->end,
				a->flags & PGT_SHARE_MAPSHARED ? VM_SHARED : 0);
	}
	int r = fork_share(w, a, PGL_PD);
	if (r == 0)
		stat_inc(&ptshare_stats.fork_shared);
	return r;
}

/* A PDPT entry: a PD page shared whole takes one entry, O(1); else its PD
 * entries are visited. */
static int share_pdpte(struct walk *w)
{
	struct fork_arg *a = w->arg;
	if (!fork_shares_pd(w, a))
		return 0;
	int r = fork_share(w, a, PGL_PDPT);
	if (r)
		return r;
	stat_inc(&ptshare_stats.fork_shared_pd);
	return WALK_SKIP;
}

static const struct walk_ops share_ops = { .pdpte = share_pdpte, .pde = share_pde };

int pgt_share(struct tlb_batch *b, struct pagetable *dst, vaddr_t start, vaddr_t end,
	      unsigned flags)
{
	struct fork_arg a = { .dst = dst, .flags = flags, .b = b };
	struct walk w = { .ops = &share_ops, .pgt = b->pgt, .arg = &a, .leaf_level = PGL_PD };
	return walk_range(&w, start, end);
}

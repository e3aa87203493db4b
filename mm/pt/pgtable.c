/* mm/pt/pgtable.c -- the page table of an address space: create, destroy,
 * activate, RSS, the point lookup (see mm/pt/pgtable.h). */
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
#include "mm/frame/swap.h"
#include "mm/pt/share.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/shootdown.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"

struct pagetable kernel_pgt;

pte_t pgt_prot_bits(vaddr_t va, unsigned prot)
{
	bool user = is_user_addr(va), none = !(prot & VM_ACCESS);
	pte_t e = user && none ? pte_mkprotnone(0) : pte_mkpresent(0);
	if ((prot & VM_WRITE) && !(prot & VM_COW))
		e = pte_mkwrite(e);
	if (!(prot & VM_EXEC))
		e = pte_mknoexec(e);
	if (!user)
		e = pte_mkglobal(e);
	else if (!none)
		e = pte_mkuser(e);
	if (prot & VM_COW)
		e = pte_mkcow(e);
	if (prot & VM_FILE)
		e = pte_mkfile(e);
	if (prot & VM_SHARED)
		e = pte_mkshared(e);
	return e;
}

paddr_t pgt_root_pa(const struct pagetable *pgt)
{
	return page_to_pa(pgt->root);
}

bool pgt_active(const struct pagetable *pgt)
{
	return pte_addr(pv_read_cr3()) == pgt_root_pa(pgt);
}

void pgt_activate(struct pagetable *pgt)
{
	smp_note_cr3(pgt_root_pa(pgt));   /* other CPUs' shootdowns find us from now */
	pv_write_cr3(pgt_root_pa(pgt));
}

/* Drop the mapping's reference on frame pa (none for unmanaged frames). */
static void put_frame(paddr_t pa)
{
	struct page *pg = pa_to_page(pa);
	if (pg && pg->type != PG_RESERVED)
		page_put(pg);
}

/* ---- the point lookup ---------------------------------------------------- */

/* One loop down the levels, as xv6's walk(): no callbacks, so the lookup of
 * every page fault costs four entry reads (the range walker's per-level
 * calls cost more than the rest of a read fault under TCG). The entry of
 * va at `level` (or a large leaf above) in *ep, the entry pointing at its
 * table in *parent (NULL at the top); pgt_walk's results. */
static int descend(struct pagetable *pgt, vaddr_t va, int level, unsigned flags,
		   pte_t **ep, pte_t **parent)
{
	pte_t *table = pt_root(pgt), *up = NULL;
	*ep = NULL;
	if (va_canonical(va) != va)   /* user-supplied addresses end up here */
		return 0;
	for (int l = PGL_PML4;; l--) {
		pte_t *at = &table[pgl_index(va, l)];
		pte_t e = pte_read(at);
		if (!pte_mapped(e) && l > level && (flags & PGT_WALK_ALLOC)) {
			if (!pt_table_alloc(pgt, at, l, va))
				return -ENOMEM;
			e = pte_read(at);   /* ours, or the one another CPU linked first */
		}
		if (l == level || (pte_mapped(e) && pte_is_leaf(e, l))) {
			*ep = at, *parent = up;
			return l;
		}
		if (!pte_mapped(e))
			return 0;   /* a hole above level */
		if ((flags & PGT_WALK_UNSHARE) && (l == PGL_PD || l == PGL_PDPT) &&
		    pt_needs_unshare(e, va)) {
			int r = table_unshare(pgt, at, l, va);
			if (r < 0)
				return r;
			e = pte_read(at);
		}
		up = at;
		table = P2V(pte_addr(e));
	}
}

int pgt_walk(struct pagetable *pgt, vaddr_t va, int level, unsigned flags, pte_t **ep)
{
	pte_t *parent;
	return descend(pgt, va, level, flags, ep, &parent);
}

int pgt_map_run(struct pagetable *pgt, vaddr_t va, unsigned n, const paddr_t *pa, unsigned prot,
		const struct map_guard *g, uint32_t *mapped)
{
	pte_t *ep, *pde;
	*mapped = 0;
	if (n == 0 || n > 32 || pgl_index(va, PGL_PT) + n > PT_ENTRIES)
		panic("pgt_map_run: %u pages at %#lx leave one PT page", n, va);
	int level = descend(pgt, va, PGL_PT, PGT_WALK_ALLOC | PGT_WALK_UNSHARE, &ep, &pde);
	if (level != PGL_PT)
		return level < 0 ? level : 0;   /* a large page maps it */
	struct page *pt = ptpage_of(ep);
	spin_lock(pt_lock(pt));
	/* the PT page may have been replaced (a text table published
	 * meanwhile: the caller's retry finds the new one) */
	int r = pte_addr(pte_read(pde)) != page_to_pa(pt) ? 0 : !map_guard_holds(g) ? -EAGAIN : 1;
	for (unsigned i = 0; r == 1 && i < n; i++) {
		vaddr_t at = va + (vaddr_t)i * PAGE_SIZE;
		if (pa[i] && pte_none(pte_read(ep + i))) {   /* not over a swap entry */
			pt_set_leaf(pgt, at, ep + i, PGL_PT, pte_make(pa[i], pgt_prot_bits(at, prot)));
			*mapped |= 1u << i;
		}
	}
	spin_unlock(pt_lock(pt));
	return r < 0 ? r : 0;
}

int pgt_map_swap(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	pte_t *ep, *pde;
	int level = descend(pgt, va, PGL_PT, PGT_WALK_ALLOC | PGT_WALK_UNSHARE, &ep, &pde);
	if (level < 0)
		return level;
	if (level != PGL_PT)
		panic("pgt_map_swap: %#lx lies in a large page", va);
	struct page *pt = ptpage_of(ep);
	spin_lock(pt_lock(pt));
	if (!pte_none(pte_read(ep)))
		panic("pgt_map_swap: %#lx holds entry %#lx", va, pte_read(ep));
	swap_slot_dup(e);
	pt_set_leaf(pgt, va, ep, PGL_PT, e);
	spin_unlock(pt_lock(pt));
	return 0;
}

int pgt_map_fault(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot,
		  const struct map_guard *g)
{
	uint32_t mapped;
	int r = pgt_map_run(pgt, va, 1, &pa, prot, g, &mapped);
	return r < 0 ? r : mapped ? 0 : -EEXIST;
}

int pgt_lookup_at(struct pagetable *pgt, vaddr_t va, unsigned flags, paddr_t *pa, pte_t *fl)
{
	pte_t *ep;
	int level = pgt_walk(pgt, va, PGL_PT, flags, &ep);
	if (level <= 0)
		return level;
	pte_t e = pte_read(ep);
	if (pte_is_swap(e) && fl)
		*fl = e;
	if (!pte_mapped(e))
		return pte_is_swap(e) ? PGT_SWAPPED : PGT_ABSENT;
	if (pa)
		*pa = pte_addr(e) + (va & (pgl_entry_size(level) - 1));
	if (fl)
		*fl = pte_flags(e);
	return PGT_MAPPED;
}

bool pgt_lookup(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags)
{
	return pgt_lookup_at(pgt, va, 0, pa, flags) == PGT_MAPPED;
}

int pgt_lookup_write(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags)
{
	return pgt_lookup_at(pgt, va, PGT_WALK_UNSHARE, pa, flags);
}

/* ---- RSS ---------------------------------------------------------------- */

static int rss_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		*(uint64_t *)w->arg += pgl_entry_size(w->level) / PAGE_SIZE;
	else
		*(uint64_t *)w->arg += pt_resident(pa_to_page(pte_addr(e)));
	return WALK_SKIP;
}

static const struct walk_ops rss_ops = { .pde = rss_pde };

uint64_t pgt_rss(struct pagetable *pgt)
{
	uint64_t n = 0;
	struct walk w = { .ops = &rss_ops, .pgt = pgt, .arg = &n };
	walk_range(&w, 0, USER_HALF_END);
	return n;
}

/* ---- create, destroy ---------------------------------------------------- */

struct pagetable *pgt_create(void)
{
	struct pagetable *pgt = kzalloc(sizeof(*pgt));
	if (!pgt)
		return NULL;
	spin_init(&pgt->unshare_lock, "unshare", LOCK_RANK_UNSHARE);
	pgt->root = ptpage_alloc(PGL_PML4);
	if (!pgt->root) {
		kfree(pgt);
		return NULL;
	}
	pte_t *root = pt_root(pgt), *kroot = pt_root(&kernel_pgt);
	for (int i = PML4_KERNEL_FIRST; i < PT_ENTRIES; i++)
		if (pte_present(kroot[i]))
			pt_set_table(&root[i], PGL_PML4, kroot[i]);
	return pgt;
}

static int teardown_leaf(struct walk *w)
{
	if (!pte_is_leaf(pte_read(w->ep), w->level))
		return 0;
	put_frame(pte_addr(pt_get_and_clear(w->pgt, w->va, w->ep, w->level)));
	return 0;
}

static int teardown_swap(struct walk *w)
{
	swap_slot_put(pt_get_and_clear(w->pgt, w->va, w->ep, w->level));
	return 0;
}

/* A PT page or PD page other address spaces still use: drop our share
 * (O(1)), skip it. */
static int teardown_table_entry(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return teardown_leaf(w);
	struct page *t = pa_to_page(pte_addr(e));
	if (ptpage_sole(t))   /* ours alone: walk in, free it */
		return 0;
	pt_table_put(pt_table_unlink_shared(w->pgt, w->ep, w->level));   /* not active: no flush */
	return WALK_SKIP;
}

/* Free the (user) table under *ep: teardown emptied it. No flush: the
 * address space is not active, so no TLB holds it. */
static int teardown_table(struct walk *w)
{
	pt_table_free(w->pgt, w->ep, w->level);
	return 0;
}

static const struct walk_ops teardown_ops = {
	.pdpte = teardown_table_entry, .pde = teardown_table_entry, .pte = teardown_leaf,
	.swap = teardown_swap, .table_done = teardown_table,
	.lock_leaves = true,   /* reclaim may be looking at a lazy-free record here */
};

/* pgt_destroy's wait for the CPUs that still run on pgt lazily (back in
 * their scheduler): each switches to the kernel's root. */
static void leave_lazy_cpus(struct pagetable *pgt)
{
	uint64_t t0 = phase_begin();
	cpumask_t lazy = smp_cpus_using(pgt_root_pa(pgt));
	if (lazy)
		smp_leave_cr3(lazy, pgt_root_pa(pgt), pgt_root_pa(&kernel_pgt));
	if (smp_cpus_using(pgt_root_pa(pgt)))   /* an idle CPU runs on the kernel's */
		panic("pgt_destroy: address space (PML4 %#lx) is still in CR3 of CPUs %#lx",
		      pgt_root_pa(pgt), (uint64_t)smp_cpus_using(pgt_root_pa(pgt)));
	phase_end(PH_PGT_LEAVE_CR3, t0);
}

/* ---- tables unlinked under readers ------------------------------------ */

void pgt_defer_put(struct pagetable *pgt, struct stale_table *s, struct page *t)
{
	s->table = t;
	s->next = atomic_load(&pgt->stale);
	while (!atomic_cmpxchg(&pgt->stale, &s->next, s))
		;   /* s->next was reloaded: push again */
}

bool pgt_has_stale(const struct pagetable *pgt)
{
	return atomic_load(&pgt->stale) != NULL;
}

void pgt_release_stale(struct pagetable *pgt)
{
	struct stale_table *s = __atomic_exchange_n(&pgt->stale, NULL, __ATOMIC_ACQ_REL);
	while (s) {
		struct stale_table *next = s->next;
		pt_table_put(s->table);
		kfree(s);
		s = next;
	}
}

void pgt_destroy(struct pagetable *pgt)
{
	if (pgt_active(pgt))
		panic("pgt_destroy: address space (PML4 %#lx) is still active",
		      pgt_root_pa(pgt));
	pgt_release_stale(pgt);
	uint64_t t0 = phase_begin();
	leave_lazy_cpus(pgt);
	struct walk w = { .ops = &teardown_ops, .pgt = pgt };
	pv_lazy_mmu_enter();
	walk_range(&w, 0, USER_HALF_END);
	pte_t *root = pt_root(pgt);
	for (int i = PML4_KERNEL_FIRST; i < PT_ENTRIES; i++)
		if (pte_present(root[i]))
			pt_set_table(&root[i], PGL_PML4, 0);
	pv_lazy_mmu_leave();
	ptpage_free(pgt->root);
	kfree(pgt);
	phase_end(PH_PGT_DESTROY, t0);
}

/* mm/pgtable.c -- address spaces: create/destroy, map/unmap/protect/lookup
 * of 4 KiB pages. Every operation is a walk_ops for the generic walker. */
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/walk.h"
#include "mm/kmalloc.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/errno.h"
#include "lib/printk.h"

struct pagetable kernel_pgt;

pte_t pgt_prot_bits(vaddr_t va, unsigned prot)
{
	bool none = !(prot & (PGT_R | PGT_W | PGT_X));
	pte_t e = is_user_addr(va) && none ? PTE_PROTNONE : PTE_P;
	if ((prot & PGT_W) && !(prot & PGT_COW))
		e |= PTE_W;
	if (!(prot & PGT_X))
		e |= PTE_NX;
	if (!is_user_addr(va))
		e |= PTE_G;
	else if (!none)
		e |= PTE_U;
	if (prot & PGT_COW)
		e |= PTE_COW;
	if (prot & PGT_FILE)
		e |= PTE_FILE;
	if (prot & PGT_SHARED)
		e |= PTE_SHARED;
	return e;
}

paddr_t pgt_root_pa(const struct pagetable *pgt)
{
	return page_to_pa(pgt->root);
}

bool pgt_active(const struct pagetable *pgt)
{
	return (pv_read_cr3() & PTE_ADDR_MASK) == pgt_root_pa(pgt);
}

void pgt_activate(struct pagetable *pgt)
{
	pv_write_cr3(pgt_root_pa(pgt));
}

/* Drop the TLB entry of va if a TLB can hold it. */
static void flush_va(struct pagetable *pgt, vaddr_t va)
{
	if (!is_user_addr(va) || pgt_active(pgt))
		pv_flush_one(va);
}

/* Drop the mapping's reference on frame pa (none for unmanaged frames). */
static void put_frame(paddr_t pa)
{
	struct page *pg = pa_to_page(pa);
	if (pg && pg->type != PG_RESERVED)
		page_put(pg);
}

/* ---- map ---------------------------------------------------------------- */

struct map_arg {
	vaddr_t va;     /* start of the range */
	paddr_t pa;     /* frame of va */
	pte_t bits;
	vaddr_t done;   /* mapped up to here */
};

static int map_hole(struct walk *w)
{
	struct map_arg *a = w->arg;
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, pte_make(a->pa + (w->va - a->va), a->bits));
	a->done = w->va + PAGE_SIZE;
	return 0;
}

static int map_present(struct walk *w)
{
	if (pte_is_leaf(pte_read(w->ep), w->level))
		panic("pgt_map: w->va %#lx is already mapped (entry %#lx)", w->va, pte_read(w->ep));
	return 0;
}

static const struct walk_ops map_ops = {
	.pdpte = map_present, .pde = map_present, .pte = map_present,
	.hole = map_hole,
};

/* ---- unmap -------------------------------------------------------------- */

/* Is e (at level) a 4 KiB leaf that op may change? A table entry is not; a
 * large page is a panic (pgt_* calls work on 4 KiB pages only). */
static bool small_leaf(pte_t e, int level, const char *op, vaddr_t va)
{
	if (!pte_is_leaf(e, level))
		return false;
	if (level != PGL_PT)
		panic("%s: va %#lx is inside a large page", op, va);
	return true;
}

struct unmap_arg {
	bool put;        /* drop frame references (not when undoing a map) */
};

static int unmap_leaf(struct walk *w)
{
	struct unmap_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (!small_leaf(e, w->level, "pgt_unmap", w->va))
		return 0;
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, 0);
	flush_va(w->pgt, w->va);   /* before the frame can be reused */
	if (a->put)
		put_frame(pte_addr(e));
	return 0;
}

static int unmap_hole(struct walk *w)
{
	panic("pgt_unmap: w->va %#lx is not mapped", w->va);
}

/* Free the table under *ep once empty; kernel-half PDPTs stay (shared by
 * every PML4). */
static int free_empty_table(struct walk *w)
{
	struct page *t = pa_to_page(pte_addr(pte_read(w->ep)));
	if (t->count == 0 && !(w->level == PGL_PML4 && !is_user_addr(w->va)))
		pt_table_free(w->pgt, w->ep, w->level);
	return 0;
}

static const struct walk_ops unmap_ops = {
	.pdpte = unmap_leaf, .pde = unmap_leaf, .pte = unmap_leaf,
	.hole = unmap_hole, .table_done = free_empty_table,
};

static const struct walk_ops prune_ops = { .table_done = free_empty_table };

static void unmap_range(struct pagetable *pgt, vaddr_t va, vaddr_t end, bool put)
{
	struct unmap_arg a = { .put = put };
	struct walk w = { .ops = &unmap_ops, .pgt = pgt, .arg = &a, .write = true };
	walk_range(&w, va, end);
}

int pgt_map_range(struct pagetable *pgt, vaddr_t va, paddr_t pa, uint64_t len,
		  unsigned prot)
{
	if (!IS_ALIGNED(va | pa | len, PAGE_SIZE))
		panic("pgt_map: unaligned va %#lx pa %#lx len %#lx", va, pa, len);
	struct map_arg a = { .va = va, .pa = pa, .bits = pgt_prot_bits(va, prot), .done = va };
	struct walk w = { .ops = &map_ops, .pgt = pgt, .arg = &a, .alloc = true,
			  .write = true };
	int r = walk_range(&w, va, va + len);
	if (r < 0) {   /* all or nothing: undo, then free tables left empty */
		if (a.done != va)
			unmap_range(pgt, va, a.done, false);
		struct walk prune = { .ops = &prune_ops, .pgt = pgt };
		walk_range(&prune, va, va + len);
	}
	return r;
}

int pgt_map(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot)
{
	return pgt_map_range(pgt, va, pa, PAGE_SIZE, prot);
}

void pgt_unmap(struct pagetable *pgt, vaddr_t va)
{
	if (!IS_ALIGNED(va, PAGE_SIZE))
		panic("pgt_unmap: unaligned va %#lx", va);
	unmap_range(pgt, va, va + PAGE_SIZE, true);
}

/* ---- protect, lookup ---------------------------------------------------- */

/* May private user entry e become writable in place? Only when its frame
 * is anonymous and this mapping holds the only reference (Linux's
 * can_change_pte_writable); a frame shared with another mapping (after
 * fork, or a file's or the zero page) must be copied on write. */
static bool may_write_in_place(pte_t e)
{
	if (pte_shared(e))
		return true;
	struct page *pg = pa_to_page(pte_addr(e));
	return !pte_file(e) && pg && pg->type == PG_ANON && pg->refcount == 1;
}

pte_t pgt_protect_entry(pte_t e, vaddr_t va, unsigned prot)
{
	pte_t keep = pte_flags(e) & (PTE_A | PTE_D | PTE_SOFT_MASK) & ~PTE_PROTNONE;
	pte_t n = pte_make(pte_addr(e), keep | pgt_prot_bits(va, prot));
	if (!pte_writable(n) || !is_user_addr(va))
		return n;
	return may_write_in_place(e) ? pte_clear_cow(n) : pte_mkcow(n);
}

static int protect_leaf(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (!small_leaf(e, w->level, "pgt_protect", w->va))
		return 0;
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, pgt_protect_entry(e, w->va, *(unsigned *)w->arg));
	flush_va(w->pgt, w->va);
	return 0;
}

static int hole_enoent(struct walk *w)
{
	(void)w;
	return -ENOENT;
}

static const struct walk_ops protect_ops = {
	.pdpte = protect_leaf, .pde = protect_leaf, .pte = protect_leaf,
	.hole = hole_enoent,
};

int pgt_protect(struct pagetable *pgt, vaddr_t va, unsigned prot)
{
	if (va_canonical(va) != va)
		return -ENOENT;
	struct walk w = { .ops = &protect_ops, .pgt = pgt, .arg = &prot, .write = true };
	return walk_range(&w, ALIGN_DOWN(va, PAGE_SIZE), ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE);
}

struct lookup_arg {
	vaddr_t va;
	pte_t e;
	int level;
};

static int lookup_leaf(struct walk *w)
{
	struct lookup_arg *a = w->arg;
	if (pte_is_leaf(pte_read(w->ep), w->level)) {
		a->e = pte_read(w->ep);
		a->level = w->level;
	}
	return 0;
}

static const struct walk_ops lookup_ops = {
	.pdpte = lookup_leaf, .pde = lookup_leaf, .pte = lookup_leaf,
};

/* pgt_lookup, unsharing on the way down if write: 1, 0 or -ENOMEM. */
static int lookup(struct pagetable *pgt, vaddr_t va, bool write, paddr_t *pa, pte_t *flags)
{
	if (va_canonical(va) != va)   /* user-supplied addresses end up here */
		return 0;
	struct lookup_arg a = { .va = va };
	struct walk w = { .ops = &lookup_ops, .pgt = pgt, .arg = &a, .write = write };
	vaddr_t page = ALIGN_DOWN(va, PAGE_SIZE);
	int r = walk_range(&w, page, page + PAGE_SIZE);
	if (r < 0)
		return r;
	if (!pte_mapped(a.e))
		return 0;
	if (pa)
		*pa = pte_addr(a.e) + (va & (pgl_entry_size(a.level) - 1));
	if (flags)
		*flags = pte_flags(a.e);
	return 1;
}

bool pgt_lookup(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags)
{
	return lookup(pgt, va, false, pa, flags) > 0;
}

int pgt_lookup_write(struct pagetable *pgt, vaddr_t va, paddr_t *pa, pte_t *flags)
{
	return lookup(pgt, va, true, pa, flags);
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
	pte_t e = pte_read(w->ep);
	if (!pte_is_leaf(e, w->level))
		return 0;
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, 0);
	put_frame(pte_addr(e));
	return 0;
}

/* A PT page other address spaces still use: drop our share, skip it. */
static int teardown_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return teardown_leaf(w);
	struct page *pt = pa_to_page(pte_addr(e));
	if (pt->pt.share == 1)
		return 0;
	pt_table_drop_share(w->pgt, w->ep, w->va);
	return WALK_SKIP;
}

static const struct walk_ops teardown_ops = {
	.pde = teardown_pde, .pte = teardown_leaf, .table_done = free_empty_table,
};

void pgt_destroy(struct pagetable *pgt)
{
	if (pgt_active(pgt))
		panic("pgt_destroy: address space (PML4 %#lx) is still active",
		      pgt_root_pa(pgt));
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
}

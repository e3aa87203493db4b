/* mm/pgrange.c -- range operations as walker callbacks (see mm/pgrange.h). */
#include "mm/pgrange.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/ptshare.h"
#include "mm/tlb.h"
#include "mm/walk.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"

/* ---- unmap ---- */

static int unmap_pte(struct walk *w)
{
	struct tlb_batch *b = w->arg;
	pte_t e = pte_read(w->ep);
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, 0);
	struct page *pg = pa_to_page(pte_addr(e));
	if (pg && pg->type != PG_RESERVED)
		tlb_defer_put(b, w->va, pg);
	else
		tlb_changed(b, w->va);
	return 0;
}

/* A PD entry: if the unmap covers its whole 2 MiB and the PT page is shared
 * with others, just drop our share (no copy, nothing else changes for the
 * other sharers); otherwise descend (the walker unshares first). */
static int unmap_pde(struct walk *w)
{
	struct page *pt = pa_to_page(pte_addr(pte_read(w->ep)));
	if (w->end - w->va != LARGE_PAGE_SIZE || pt->pt.share <= 1)
		return 0;
	pt_table_drop_share(w->pgt, w->ep, w->va);
	tlb_changed_range(w->arg, w->va, w->end);
	return WALK_SKIP;
}

/* After a table's entries: free it if the unmap left it empty. */
static int unmap_table_done(struct walk *w)
{
	tlb_unlink_empty_table(w->arg, w->ep, w->level, w->va);
	return 0;
}

static const struct walk_ops unmap_ops = {
	.pde = unmap_pde, .pte = unmap_pte, .table_done = unmap_table_done,
};

int pgr_unmap(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	int r = pgr_unshare(pgt, start, end, PGR_KEEP_WHOLE);
	if (r < 0)
		return r;
	struct tlb_batch b;
	struct walk w = { .ops = &unmap_ops, .pgt = pgt, .arg = &b, .write = true };
	tlb_begin(&b, pgt);
	walk_range(&w, start, end);   /* nothing left to allocate: cannot fail */
	tlb_end(&b);
	return 0;
}

/* ---- protect ---- */

struct protect_arg {
	struct tlb_batch b;
	unsigned prot;
};

static int protect_pte(struct walk *w)
{
	struct protect_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	pte_t n = pgt_protect_entry(e, w->va, a->prot);
	if (n != e) {
		pt_set_leaf(w->pgt, w->va, w->ep, w->level, n);
		tlb_changed(&a->b, w->va);
	}
	return 0;
}

static const struct walk_ops protect_ops = { .pte = protect_pte };

int pgr_protect(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned prot)
{
	int r = pgr_unshare(pgt, start, end, 0);
	if (r < 0)
		return r;
	struct protect_arg a = { .prot = prot };
	struct walk w = { .ops = &protect_ops, .pgt = pgt, .arg = &a, .write = true };
	tlb_begin(&a.b, pgt);
	walk_range(&w, start, end);   /* nothing left to allocate: cannot fail */
	tlb_end(&a.b);
	return 0;
}

/* ---- install one entry, allocating the tables above it ---- */

static int install_hole(struct walk *w)
{
	if (w->level != PGL_PT)   /* only without allocation: the caller's promise broken */
		panic("pgr_install: no w->level-%d table for %#lx", w->level - 1, w->va);
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, *(pte_t *)w->arg);
	return 0;
}

static int install_present(struct walk *w)
{
	panic("pgr_install: %#lx is already mapped", w->va);
}

static const struct walk_ops install_ops = { .pte = install_present, .hole = install_hole };

/* Write leaf entry e for va into pgt (absent before), allocating the
 * tables above it if alloc (-ENOMEM or 0), else they must exist (0). */
static int pgr_install(struct pagetable *pgt, vaddr_t va, pte_t e, bool alloc)
{
	struct walk w = { .ops = &install_ops, .pgt = pgt, .arg = &e, .alloc = alloc,
			  .write = true };
	return walk_range(&w, va, va + PAGE_SIZE);
}

static const struct walk_ops no_ops = { 0 };

/* Allocate the tables of pgt that are missing above the PT entry for va
 * (the PT page included). 0 or -ENOMEM. */
static int alloc_tables(struct pagetable *pgt, vaddr_t va)
{
	struct walk w = { .ops = &no_ops, .pgt = pgt, .alloc = true };
	return walk_range(&w, va, va + PAGE_SIZE);
}

/* ---- classic fork copy ---- */

struct copy_arg {
	struct pagetable *dst;
	struct tlb_batch b;
	bool shared;
};

/* Map pg in dst at va by entry e, handing it the caller's reference on pg;
 * if no table could be allocated the reference is dropped. 0 or -ENOMEM. */
static int install_owned(struct pagetable *dst, vaddr_t va, pte_t e, struct page *pg)
{
	int r = pgr_install(dst, va, e, true);
	if (r < 0)
		page_put(pg);
	return r;
}

static int copy_pte(struct walk *w)
{
	struct copy_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (!a->shared && !pte_cow(e)) {
		/* private: both copies become copy-on-write, whatever the
		 * protection now (a later mprotect must not make it writable) */
		pte_t cow = pte_mkcow(e);
		pt_set_leaf(w->pgt, w->va, w->ep, w->level, cow);
		if (pte_writable(e))
			tlb_changed(&a->b, w->va);
		e = cow;
	}
	page_get(pg);
	return pgr_install(a->dst, w->va, e, false);   /* copy_tables made the tables */
}

static const struct walk_ops copy_ops = { .pte = copy_pte };

/* A PT page of src: give dst the tables down to its PT page for [va, end). */
static int copy_tables_pde(struct walk *w)
{
	if (pte_huge(pte_read(w->ep)))
		panic("pgr_copy: huge user page at %#lx", w->va);
	return alloc_tables(w->arg, w->va);
}

static const struct walk_ops copy_tables_ops = { .pde = copy_tables_pde };

int pgr_copy(struct pagetable *dst, struct pagetable *src, vaddr_t start,
	     vaddr_t end, bool shared)
{
	/* everything that allocates (and so may reclaim) before the batch */
	struct walk tables = { .ops = &copy_tables_ops, .pgt = src, .arg = dst,
			       .leaf_level = PGL_PD };
	int r = pgr_unshare(src, start, end, 0);
	if (r == 0)
		r = walk_range(&tables, start, end);
	if (r < 0)
		return r;
	struct copy_arg a = { .dst = dst, .shared = shared };
	struct walk w = { .ops = &copy_ops, .pgt = src, .arg = &a, .write = true };
	tlb_begin(&a.b, src);
	walk_range(&w, start, end);
	tlb_end(&a.b);
	return 0;
}

/* ---- eager fork copy (no copy-on-write) ---- */

struct dup_arg {
	struct pagetable *dst;
	unsigned prot;
	bool shared;
};

/* A private anonymous frame gets a new frame with a copy of its contents,
 * mapped with the VMA's protection; anything else (MAP_SHARED, file and
 * page-cache frames) is mapped as it is, with one more reference. */
static int dup_pte(struct walk *w)
{
	struct dup_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (a->shared || pg->type != PG_ANON) {
		page_get(pg);
		return install_owned(a->dst, w->va, e, pg);
	}
	page_get(pg);   /* the allocation may reclaim: pg must stay mapped */
	struct page *copy = page_alloc(0, PA_ANON);
	if (copy)
		memcpy(page_va(copy), page_va(pg), PAGE_SIZE);
	page_put(pg);
	if (!copy)
		return -ENOMEM;
	return install_owned(a->dst, w->va, pte_make(page_to_pa(copy), pgt_prot_bits(w->va, a->prot)),
			     copy);
}

static const struct walk_ops dup_ops = { .pte = dup_pte };

int pgr_dup(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
	    unsigned prot, bool shared)
{
	struct dup_arg a = { .dst = dst, .prot = prot & (PGT_R | PGT_W | PGT_X),
			     .shared = shared };
	struct walk w = { .ops = &dup_ops, .pgt = src, .arg = &a };
	return walk_range(&w, start, end);
}

/* ---- replace one frame ---- */

struct replace_arg {
	struct tlb_batch b;
	pte_t e;
};

static int replace_pte(struct walk *w)
{
	struct replace_arg *a = w->arg;
	struct page *old = pa_to_page(pte_addr(pte_read(w->ep)));
	pt_set_leaf(w->pgt, w->va, w->ep, w->level, a->e);
	tlb_defer_put(&a->b, w->va, old);
	return 0;
}

static int replace_hole(struct walk *w)
{
	panic("pgr_replace: %#lx is not mapped", w->va);
}

static const struct walk_ops replace_ops = { .pte = replace_pte, .hole = replace_hole };

void pgr_replace(struct pagetable *pgt, vaddr_t va, paddr_t pa, unsigned prot)
{
	struct replace_arg a = { .e = pte_make(pa, pgt_prot_bits(va, prot)) };
	if (prot & PGT_COW)
		a.e = pte_mkcow(a.e);
	struct walk w = { .ops = &replace_ops, .pgt = pgt, .arg = &a, .write = true };
	tlb_begin(&a.b, pgt);
	walk_range(&w, va, va + PAGE_SIZE);
	tlb_end(&a.b);
}

/* ---- prepare leaf writes: unshare ---- */

/* A PD entry in the range: make its PT page private, unless it is shared
 * and the range covers all of it with PGR_KEEP_WHOLE. */
static int unshare_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	bool whole = w->end - w->va == LARGE_PAGE_SIZE;
	if (pte_huge(e) || !pt_needs_unshare(e, w->va) ||
	    (whole && (*(unsigned *)w->arg & PGR_KEEP_WHOLE)))
		return 0;
	return pt_unshare(w->pgt, w->ep, w->va);
}

static const struct walk_ops unshare_ops = { .pde = unshare_pde };

int pgr_unshare(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags)
{
	struct walk w = { .ops = &unshare_ops, .pgt = pgt, .arg = &flags,
			  .leaf_level = PGL_PD };
	return walk_range(&w, start, end);
}

int pgr_prepare_write(struct pagetable *pgt, vaddr_t va)
{
	vaddr_t page = ALIGN_DOWN(va, PAGE_SIZE);
	return pgr_unshare(pgt, page, page + PAGE_SIZE, 0);
}

/* mm/pt/pgtable_copy.c -- fork's copies of a range of page tables:
 * copy-on-write (pgt_copy) and eager (pgt_dup); see mm/pt/pgtable.h. */
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/share.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/frame/swap.h"
#include "mm/frame/anon_page.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "arch/x86_64/memlayout.h"

/* Write leaf entry e for va into pgt (absent before), allocating the
 * tables above it: 0 or -ENOMEM. */
static int install(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	pte_t *ep;
	int r = pgt_walk(pgt, va, PGL_PT, PGT_WALK_UNSHARE | PGT_WALK_ALLOC, &ep);
	if (r < 0)
		return r;
	if (!pte_none(pte_read(ep)))
		panic("pgt_dup: %#lx is already mapped", va);
	pt_set_leaf(pgt, va, ep, PGL_PT, e);
	return 0;
}

/* ---- classic fork copy ---- */

struct copy_arg {
	struct pagetable *dst;
	struct tlb_batch *b;
	unsigned flags;
	pte_t *dst_pt;        /* dst's PT page for the 2 MiB at dst_chunk, or NULL */
	vaddr_t dst_chunk;
};

/* dst's (absent) entry for va: its PT page is found once per 2 MiB, not
 * walked to from the root per entry (that walk was 2 500 cycles of each
 * copied entry under TCG). copy_pde made the tables; dst is a new address
 * space nobody else sees, so they stay put during the copy. */
static pte_t *dst_entry(struct copy_arg *a, vaddr_t va)
{
	vaddr_t chunk = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	if (!a->dst_pt || a->dst_chunk != chunk) {
		pte_t *ep;
		if (pgt_walk(a->dst, va, PGL_PT, 0, &ep) != PGL_PT)
			panic("pgt_copy: no PT page for %#lx", va);
		a->dst_pt = ep - pgl_index(va, PGL_PT);
		a->dst_chunk = chunk;
	}
	pte_t *ep = &a->dst_pt[pgl_index(va, PGL_PT)];
	if (!pte_none(pte_read(ep)))
		panic("pgt_copy: %#lx is already mapped", va);
	return ep;
}

/* Map pg in dst at va by entry e, handing it the caller's reference on pg;
 * if no table could be allocated the reference is dropped. 0 or -ENOMEM. */
static int install_owned(struct pagetable *dst, vaddr_t va, pte_t e, struct page *pg)
{
	int r = install(dst, va, e);
	if (r < 0)
		page_put(pg);
	return r;
}

static int copy_pte(struct walk *w)
{
	struct copy_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (!(a->flags & VM_SHARED) && !pte_cow(e)) {
		/* private: both copies become copy-on-write, whatever the
		 * protection now (a later mprotect must not make it writable) */
		pte_t old = pt_leaf_mkcow(w->pgt, w->va, w->ep);
		if (pte_writable(old))
			tlb_changed(a->b, w->va);
		e = pte_mkcow(old);
	}
	page_get(pg);
	pt_set_leaf(a->dst, w->va, dst_entry(a, w->va), PGL_PT, e);
	return 0;
}

/* A swap entry: the child's names the same slot, one more reference. */
static int copy_swap(struct walk *w)
{
	struct copy_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	swap_slot_dup(e);
	pt_set_leaf(a->dst, w->va, dst_entry(a, w->va), PGL_PT, e);
	return 0;
}

/* A PT page of src (private: its leaves change), before its entries are
 * visited under its lock: give dst the tables down to its PT page. */
static int copy_pde(struct walk *w)
{
	struct copy_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (pte_huge(e))
		panic("pgt_copy: huge user page at %#lx", w->va);
	if (pt_needs_unshare(e, w->va))
		panic("pgt_copy: %#lx lies under a shared table (pgt_unshare first)", w->va);
	pte_t *ep;
	return MIN(pgt_walk(a->dst, w->va, PGL_PT, PGT_WALK_ALLOC, &ep), 0);
}

static const struct walk_ops copy_ops = {
	.pde = copy_pde, .pte = copy_pte, .swap = copy_swap, .lock_leaves = true,
};

int pgt_copy(struct tlb_batch *b, struct pagetable *dst, vaddr_t start, vaddr_t end,
	     unsigned flags)
{
	struct copy_arg a = { .dst = dst, .b = b, .flags = flags };
	struct walk w = { .ops = &copy_ops, .pgt = b->pgt, .arg = &a };
	return walk_range(&w, start, end);
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
	if (copy) {
		memcpy(page_va(copy), page_va(pg), PAGE_SIZE);
		anon_page_copy_rmap(copy, pg);   /* the child's VMA shares pg's map */
	}
	page_put(pg);
	if (!copy)
		return -ENOMEM;
	return install_owned(a->dst, w->va, pte_make(page_to_pa(copy), pgt_prot_bits(w->va, a->prot)),
			     copy);
}

/* A swap entry: the child names the same slot (its page comes back
 * when either touches it: the eager copy is of what is in memory). */
static int dup_swap(struct walk *w)
{
	struct dup_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	swap_slot_dup(e);
	int r = install(a->dst, w->va, e);
	if (r < 0)
		swap_slot_put(e);
	return r;
}

static const struct walk_ops dup_ops = { .pte = dup_pte, .swap = dup_swap };

int pgt_dup(struct pagetable *dst, struct pagetable *src, vaddr_t start, vaddr_t end,
	    unsigned prot, bool shared)
{
	struct dup_arg a = { .dst = dst, .prot = prot & VM_ACCESS,
			     .shared = shared };
	struct walk w = { .ops = &dup_ops, .pgt = src, .arg = &a };
	return walk_range(&w, start, end);
}

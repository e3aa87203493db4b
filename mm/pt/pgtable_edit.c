/* mm/pt/pgtable_edit.c -- changing the entries of a page table over ranges:
 * map, unmap, protect, replace, unshare (see mm/pt/pgtable.h). Each is one
 * walk_ops for the generic walker; the entry-changing ones note every
 * change in the caller's TLB batch. */
#include "mm/pt/pgtable.h"
#include "mm/pt/share.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/frame/swap.h"
#include "lib/atomic.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"

/* Is the entry visited by w a 4 KiB leaf that op may change? A table entry
 * is not; a large page is a panic (the API works on 4 KiB pages). */
static bool small_leaf(struct walk *w, const char *op)
{
	if (!pte_is_leaf(pte_read(w->ep), w->level))
		return false;
	if (w->level != PGL_PT)
		panic("%s: va %#lx is inside a large page", op, w->va);
	return true;
}

/* ---- unmap ---- */

#define UNMAP_KEEP_REFS 0x100   /* undoing pgt_map: the caller keeps them */

/* PGT_ALL_SHARERS: are the leaves being visited other address spaces'
 * too? Reached through a write-protected PDPT or PD entry (mm/pt/share.h),
 * or a PT page with more than one sharer. */
struct sharers {
	bool pd;    /* the PDPT entry above is write-protected */
	bool pt;    /* the PT page visited is used by others too (or may be:
		       reached through a write-protected entry) */
	bool pd_others, others;   /* the PD page above / the PT page visited
				     is used by another address space now */
};

/* Note the sharing of the table that table entry w->ep (a PDPT or PD
 * entry) leads to. */
static void note_sharers(struct walk *w, struct sharers *s)
{
	pte_t e = pte_read(w->ep);
	bool sole = ptpage_sole(pa_to_page(pte_addr(e)));
	if (w->level == PGL_PDPT) {
		s->pd = pt_needs_unshare(e, w->va);
		s->pd_others = !sole;
	} else {
		s->pt = s->pd || pt_needs_unshare(e, w->va) || !sole;
		s->others = s->pd_others || !sole;
	}
}

struct unmap_arg {
	struct tlb_batch *b;
	unsigned flags;
	struct sharers sh;  /* PGT_ALL_SHARERS */
};

/* Does the unmap leave entry e (a 4 KiB leaf) alone? With PGT_KEEP_COPIES,
 * a private copy (an anonymous frame in a private mapping of an object)
 * stays, as Linux's hole punch keeps them. */
static bool unmap_keeps(const struct unmap_arg *a, pte_t e)
{
	return (a->flags & PGT_KEEP_COPIES) && !pte_file(e);
}

/* PGT_SPARE_YOUNG: is the visited entry one accessed since the last look?
 * Then it stays, its A bit cleared (for all sharers of a shared table):
 * it is spared until the next look finds it unused. */
static bool unmap_spares_young(struct walk *w, struct unmap_arg *a)
{
	if (!(a->flags & PGT_SPARE_YOUNG) || !pte_accessed(pte_read(w->ep)))
		return false;
	if (a->sh.pt)
		pt_modify_shared_leaf(w->ep, verb_mkold, NULL);
	else
		pt_modify_leaf(w->pgt, w->va, w->ep, verb_mkold, NULL);
	return true;
}

/* Clear the visited leaf: in a private table as its owner, in a table the
 * other address spaces use too for all of them at once (then every CPU
 * flushes). Returns the entry cleared. */
static pte_t unmap_clear(struct walk *w, struct unmap_arg *a)
{
	if (!a->sh.pt)
		return pt_get_and_clear(w->pgt, w->va, w->ep, w->level);
	tlb_reach_sharers(a->b);
	return pt_clear_shared_leaf(w->ep);
}

static int unmap_leaf(struct walk *w)
{
	struct unmap_arg *a = w->arg;
	if (!small_leaf(w, "pgt_unmap") || unmap_keeps(a, pte_read(w->ep)) ||
	    unmap_spares_young(w, a))
		return 0;
	/* the D bit of e would go into the page's dirty state, but nothing
	 * reads one: a store through a shared mapping of a file dirtied its
	 * page before the entry became writable (mm/fault.c, fault_mkwrite) */
	pte_t e = unmap_clear(w, a);
	struct page *pg = pa_to_page(pte_addr(e));
	if (pg && pg->type != PG_RESERVED && !(a->flags & UNMAP_KEEP_REFS))
		tlb_defer_put(a->b, w->va, pg);
	else
		tlb_changed(a->b, w->va);
	return 0;
}

/* A swap entry in the range: its slot loses the entry's reference (no
 * flush: no TLB holds an entry that is not present). A swapped-out page
 * is an anonymous copy: PGT_KEEP_COPIES keeps it. */
static int unmap_swap(struct walk *w)
{
	struct unmap_arg *a = w->arg;
	if (a->flags & (PGT_KEEP_COPIES | UNMAP_KEEP_REFS))
		return 0;
	pte_t e = a->sh.pt ? pt_clear_shared_leaf(w->ep) :
		  pt_get_and_clear(w->pgt, w->va, w->ep, w->level);
	swap_slot_put(e);
	return 0;
}

/* A shared table met by an unmap that keeps its tables (MADV_DONTNEED
 * under the address-space lock for reading, after pgt_unshare): it can
 * only be a published text PT page another thread of ours attached
 * meanwhile (mm/pt/ptpage.h, "Table structure"). It maps nothing but the
 * file's own pages, read-only, which the advice would let refault
 * unchanged: skip it. */
static int keep_shared(struct walk *w, struct page *t)
{
	if (w->level != PGL_PD)
		page_bug(t, "pgt_unmap: a shared PD page in a range that keeps its tables", NULL);
	return WALK_SKIP;
}

/* PGT_ALL_SHARERS: descend into every table as it is, noting whether the
 * leaves below are other address spaces' too (note_sharers). */
static int unmap_note_shared(struct walk *w)
{
	struct unmap_arg *a = w->arg;
	if (pte_is_leaf(pte_read(w->ep), w->level))
		return unmap_leaf(w);
	note_sharers(w, &a->sh);
	return 0;
}

/* A PD entry (PDPT entry): if the unmap covers its whole 2 MiB (1 GiB) and
 * the PT page (PD page) is shared with others, just drop our share (no copy,
 * nothing else changes for the other sharers); otherwise descend. */
static int unmap_pde(struct walk *w)
{
	struct unmap_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return unmap_leaf(w);
	struct page *t = pa_to_page(pte_addr(e));
	if (ptpage_sole(t))
		return 0;                  /* ours alone: descend */
	if (a->flags & PGT_KEEP_TABLES)
		return keep_shared(w, t);
	if (w->end - w->va != pgl_entry_size(w->level))
		return 0;                  /* part of it: the walker unshares */
	tlb_changed_range(a->b, w->va, w->end);
	tlb_defer_table(a->b, w->va, pt_table_unlink_shared(w->pgt, w->ep, w->level));
	return WALK_SKIP;
}

static int unmap_hole(struct walk *w)
{
	if (((struct unmap_arg *)w->arg)->flags & PGT_STRICT)
		panic("pgt_unmap: va %#lx is not mapped", w->va);
	return 0;
}

/* After a table's entries: free it after the flush if the unmap left it
 * empty. Kernel-half PDPTs stay (every PML4 shares them). */
static int unmap_table_done(struct walk *w)
{
	if (((struct unmap_arg *)w->arg)->flags & PGT_KEEP_TABLES)
		return 0;
	if (!(w->level == PGL_PML4 && !is_user_addr(w->va)))
		tlb_unlink_empty_table(((struct unmap_arg *)w->arg)->b, w->ep, w->level, w->va);
	return 0;
}

static const struct walk_ops unmap_ops = {
	.pdpte = unmap_pde, .pde = unmap_pde, .pte = unmap_leaf, .hole = unmap_hole,
	.swap = unmap_swap, .table_done = unmap_table_done, .lock_leaves = true,
	.shared = walk_unshare,
};

/* PGT_ALL_SHARERS: no unsharing, no table unlinked (PGT_KEEP_TABLES). */
static const struct walk_ops unmap_all_sharers_ops = {
	.pdpte = unmap_note_shared, .pde = unmap_note_shared, .pte = unmap_leaf,
	.hole = unmap_hole, .swap = unmap_swap, .lock_leaves = true,
};

void pgt_unmap(struct tlb_batch *b, vaddr_t start, vaddr_t end, unsigned flags)
{
	struct unmap_arg a = { .b = b, .flags = flags };
	struct walk w = { .ops = &unmap_ops, .pgt = b->pgt, .arg = &a };
	if (flags & PGT_ALL_SHARERS) {
		if (!(flags & PGT_KEEP_TABLES))
			panic("pgt_unmap: PGT_ALL_SHARERS without PGT_KEEP_TABLES");
		w.ops = &unmap_all_sharers_ops;
		spin_lock(&b->pgt->unshare_lock);   /* no sharer of ours copies under us */
	}
	walk_range(&w, start, end);   /* allocates nothing: cannot fail */
	if (flags & PGT_ALL_SHARERS)
		spin_unlock(&b->pgt->unshare_lock);
}

/* ---- map ---- */

struct map_arg {
	vaddr_t va;     /* start of the range */
	paddr_t pa;     /* frame of va */
	pte_t bits;
};

static int map_hole(struct walk *w)
{
	struct map_arg *a = w->arg;
	pt_set_leaf(w->pgt, w->va, w->ep, w->level,
		    pte_make(a->pa + (w->va - a->va), a->bits));
	return 0;
}

static int map_present(struct walk *w)
{
	if (pte_is_leaf(pte_read(w->ep), w->level))
		panic("pgt_map: va %#lx is already mapped (entry %#lx)", w->va,
		      pte_read(w->ep));
	return 0;
}

static const struct walk_ops map_ops = {
	.pdpte = map_present, .pde = map_present, .pte = map_present, .hole = map_hole,
	.swap = map_present, .lock_leaves = true,
	.shared = walk_unshare,
};

int pgt_map(struct pagetable *pgt, vaddr_t va, paddr_t pa, uint64_t len, unsigned prot)
{
	if (!IS_ALIGNED(va | pa | len, PAGE_SIZE))
		panic("pgt_map: unaligned va %#lx pa %#lx len %#lx", va, pa, len);
	struct map_arg a = { .va = va, .pa = pa, .bits = pgt_prot_bits(va, prot) };
	struct walk w = { .ops = &map_ops, .pgt = pgt, .arg = &a, .alloc = true };
	int r = walk_range(&w, va, va + len);
	if (r < 0) {   /* all or nothing: undo, and free the tables left empty */
		struct tlb_batch b;
		tlb_begin(&b, pgt);
		pgt_unmap(&b, va, va + len, UNMAP_KEEP_REFS);
		tlb_end(&b);
	}
	return r;
}

/* ---- protect ---- */

struct protect_arg {
	struct tlb_batch *b;
	unsigned prot, flags;
	struct sharers sh;  /* PGT_ALL_SHARERS */
};

/* pt_modify_leaf's function: the entry under the new protection. */
static pte_t protected(pte_t e, const void *arg)
{
	const struct walk *w = arg;
	return pgt_protect_entry(e, w->va, ((const struct protect_arg *)w->arg)->prot);
}

static int protect_leaf(struct walk *w)
{
	struct protect_arg *a = w->arg;
	if (!small_leaf(w, "pgt_protect"))
		return 0;
	if (w->level != PGL_PT)
		panic("pgt_protect: va %#lx: not a 4 KiB page", w->va);
	pte_t e = pte_read(w->ep);
	if (protected(e, w) == e)
		return 0;
	if (a->sh.pt) {   /* PGT_ALL_SHARERS, in a table others use too */
		tlb_reach_sharers(a->b);
		pt_modify_shared_leaf(w->ep, protected, w);
	} else {
		pt_modify_leaf(w->pgt, w->va, w->ep, protected, w);
	}
	tlb_changed(a->b, w->va);
	return 0;
}

static int protect_hole(struct walk *w)
{
	return ((struct protect_arg *)w->arg)->flags & PGT_STRICT ? -ENOENT : 0;
}

/* PGT_ALL_SHARERS: as unmap_note_shared. */
static int protect_note_shared(struct walk *w)
{
	struct protect_arg *a = w->arg;
	if (pte_is_leaf(pte_read(w->ep), w->level))
		return protect_leaf(w);
	note_sharers(w, &a->sh);
	return 0;
}

/* A swap entry keeps no protection: the fault that brings its page back
 * maps it with the VMA's. */
static int protect_swap(struct walk *w)
{
	(void)w;
	return 0;
}

static const struct walk_ops protect_ops = {
	.pdpte = protect_leaf, .pde = protect_leaf, .pte = protect_leaf,
	.hole = protect_hole, .swap = protect_swap, .lock_leaves = true,
	.shared = walk_unshare,
};

/* PGT_ALL_SHARERS: no unsharing; shared tables change for all sharers. */
static const struct walk_ops protect_all_sharers_ops = {
	.pdpte = protect_note_shared, .pde = protect_note_shared, .pte = protect_leaf,
	.hole = protect_hole, .swap = protect_swap, .lock_leaves = true,
};

int pgt_protect(struct tlb_batch *b, vaddr_t start, vaddr_t end, unsigned prot,
		unsigned flags)
{
	struct protect_arg a = { .b = b, .prot = prot, .flags = flags };
	struct walk w = { .ops = &protect_ops, .pgt = b->pgt, .arg = &a };
	if (!(flags & PGT_ALL_SHARERS))
		return walk_range(&w, start, end);
	w.ops = &protect_all_sharers_ops;
	spin_lock(&b->pgt->unshare_lock);   /* as pgt_unmap's */
	int r = walk_range(&w, start, end);
	spin_unlock(&b->pgt->unshare_lock);
	return r;
}

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
	pte_t n = pte_make(pte_addr(e), pte_keep_on_protect(e) | pgt_prot_bits(va, prot));
	if (!pte_writable(n) || !is_user_addr(va))
		return n;
	return may_write_in_place(e) ? pte_clear_cow(n) : pte_mkcow(n);
}

/* ---- replace one frame ---- */

struct replace_arg {
	struct tlb_batch *b;
	pte_t expect, e;
	const struct map_guard *g;
	int r;          /* -EAGAIN: the entry is no longer expect, or g failed */
};

static int replace_pte(struct walk *w)
{
	struct replace_arg *a = w->arg;
	if (!pte_same_mapping(pte_read(w->ep), a->expect) || !map_guard_holds(a->g)) {
		a->r = -EAGAIN;
		return 0;
	}
	pte_t old = pt_xchg_leaf(w->pgt, w->va, w->ep, w->level, a->e);
	if (pte_is_swap(old))
		swap_slot_put(old);         /* a swap-in: nothing was in a TLB */
	else if (pte_addr(old) == pte_addr(a->e))
		tlb_changed(a->b, w->va);   /* the same frame: its reference stays the entry's */
	else
		tlb_defer_put(a->b, w->va, pa_to_page(pte_addr(old)));
	return 0;
}

/* Unmapped meanwhile (another thread's MADV_DONTNEED, under the address-
 * space lock for reading like the fault): not expect either. */
static int replace_hole(struct walk *w)
{
	((struct replace_arg *)w->arg)->r = -EAGAIN;
	return 0;
}

static const struct walk_ops replace_ops = {
	.pte = replace_pte, .hole = replace_hole, .swap = replace_pte, .lock_leaves = true,
	.shared = walk_unshare,
};

int pgt_replace(struct tlb_batch *b, vaddr_t va, pte_t expect, paddr_t pa, unsigned prot,
		const struct map_guard *g)
{
	struct replace_arg a = { .b = b, .expect = expect, .g = g,
				 .e = pte_make(pa, pgt_prot_bits(va, prot)) };
	if (prot & VM_COW)
		a.e = pte_mkcow(a.e);
	struct walk w = { .ops = &replace_ops, .pgt = b->pgt, .arg = &a };
	walk_range(&w, va, va + PAGE_SIZE);
	return a.r;
}

/* ---- page out: one frame's entry, for all sharers ---- */

struct page_out_arg {
	struct tlb_batch *b;
	struct page *pg;
	enum page_out_how how;
	pte_t swp;
	struct sharers sh;
	enum page_out_result r;
};

/* Accessed since the last look: a second chance, A cleared (no flush for
 * A, as Linux's ptep_clear_flush_young on x86). */
static enum page_out_result page_out_age(struct walk *w, struct page_out_arg *a, pte_t e)
{
	if (!pte_accessed(e))
		return PAGE_OUT_OLD;
	if (a->sh.pt)
		pt_modify_shared_leaf(w->ep, verb_mkold, NULL);
	else
		pt_modify_leaf(w->pgt, w->va, w->ep, verb_mkold, NULL);
	return PAGE_OUT_YOUNG;
}

/* Not accessed: the swap entry in its place, for every sharer. */
static enum page_out_result page_out_swap(struct walk *w, struct page_out_arg *a)
{
	swap_slot_dup(a->swp);
	if (a->sh.pt) {
		tlb_reach_sharers(a->b);
		pt_xchg_shared_leaf(w->ep, a->swp);
	} else {
		pt_xchg_leaf(w->pgt, w->va, w->ep, PGL_PT, a->swp);
	}
	tlb_defer_put(a->b, w->va, a->pg);
	return PAGE_OUT_DONE;
}

/* A lazy-free page: cleared if clean, reachable from this address space
 * alone (no shared table above it) and referenced by this entry and the
 * caller's hold only, not in the swap cache. (A reference comes only
 * through an entry, under this PT page's lock, which is held: none can come
 * before the clear.) A page fork made reachable from two address spaces
 * is kept for both, as MADV_FREE leaves a page mapped twice alone. */
static enum page_out_result page_out_discard(struct walk *w, struct page_out_arg *a, pte_t e)
{
	if (pte_dirty(e))
		return PAGE_OUT_DIRTY;
	if (a->sh.others || atomic_load(&a->pg->refcount) != 1 + anon_unmapped_refs(a->pg) ||
	    page_in_swap_cache(a->pg))      /* MADV_FREE took it out; back since? */
		return PAGE_OUT_SHARED;
	pte_t old = pt_clear_clean_leaf(w->pgt, w->va, w->ep);
	if (pte_dirty(old))                 /* written between the look and the clear */
		return PAGE_OUT_DIRTY;
	tlb_defer_put(a->b, w->va, a->pg);
	return PAGE_OUT_DONE;
}

/* The entry: if it maps the frame, what a->how says. */
static int page_out_pte(struct walk *w)
{
	struct page_out_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (!small_leaf(w, "pgt_page_out") || !pte_present(e) || pa_to_page(pte_addr(e)) != a->pg)
		return 0;
	if (a->how == PAGE_OUT_DISCARD)
		a->r = page_out_discard(w, a, e);
	else if (a->how == PAGE_OUT_AGE || pte_accessed(e))
		a->r = page_out_age(w, a, e);
	else
		a->r = page_out_swap(w, a);
	return 0;
}

/* As pgt_unmap with PGT_ALL_SHARERS: note whether the leaves are shared. */
static int page_out_note_shared(struct walk *w)
{
	struct page_out_arg *a = w->arg;
	if (pte_is_leaf(pte_read(w->ep), w->level))
		return page_out_pte(w);
	note_sharers(w, &a->sh);
	return 0;
}

static const struct walk_ops page_out_ops = {
	.pdpte = page_out_note_shared, .pde = page_out_note_shared, .pte = page_out_pte,
	.lock_leaves = true,
};

enum page_out_result pgt_page_out(struct tlb_batch *b, vaddr_t va, struct page *pg,
				  enum page_out_how how, pte_t swp)
{
	struct page_out_arg a = { .b = b, .pg = pg, .how = how, .swp = swp,
				  .r = PAGE_OUT_NOT_MAPPED };
	struct walk w = { .ops = &page_out_ops, .pgt = b->pgt, .arg = &a };
	spin_lock(&b->pgt->unshare_lock);   /* as pgt_unmap's PGT_ALL_SHARERS */
	walk_range(&w, va, va + PAGE_SIZE);
	spin_unlock(&b->pgt->unshare_lock);
	return a.r;
}

/* ---- unshare before leaf writes ---- */

/* Does the range keep the shared table under the entry visited by w
 * whole (PGT_KEEP_WHOLE, and it covers all of it)? */
static bool keeps_whole(struct walk *w)
{
	return (*(unsigned *)w->arg & PGT_KEEP_WHOLE) &&
	       w->end - w->va == pgl_entry_size(w->level);
}

/* A PD entry in the range: make its PT page private, unless it is shared
 * and the range covers all of it with PGT_KEEP_WHOLE. */
static int unshare_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_huge(e) || !pt_needs_unshare(e, w->va) || keeps_whole(w))
		return 0;
	return table_unshare(w->pgt, w->ep, PGL_PD, w->va);
}

/* A PDPT entry: a shared PD page kept whole is skipped; any other is made
 * private (unshare_ops.shared) before its PD entries are visited. */
static int unshare_pdpte(struct walk *w)
{
	return pt_needs_unshare(pte_read(w->ep), w->va) && keeps_whole(w) ? WALK_SKIP : 0;
}

static const struct walk_ops unshare_ops = {
	.pdpte = unshare_pdpte, .pde = unshare_pde, .shared = walk_unshare,
};

int pgt_unshare(struct pagetable *pgt, vaddr_t start, vaddr_t end, unsigned flags)
{
	struct walk w = { .ops = &unshare_ops, .pgt = pgt, .arg = &flags,
			  .leaf_level = PGL_PD };
	return walk_range(&w, start, end);
}

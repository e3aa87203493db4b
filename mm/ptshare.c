/* mm/ptshare.c -- shared PT pages: unsharing and fork (see mm/ptshare.h). */
#include "mm/ptshare.h"
#include "mm/as.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/tlb.h"
#include "mm/walk.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"

enum ptshare_mode ptshare_mode = PTSHARE_ALL;
struct ptshare_stats ptshare_stats;

static const char *const mode_names[] = { "off", "fork", "all" };

void ptshare_set_mode(const char *value)
{
	for (unsigned i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcmp(value, mode_names[i]) == 0)
			ptshare_mode = (enum ptshare_mode)i;
}

const char *ptshare_mode_name(void)
{
	return mode_names[ptshare_mode];
}

bool pt_needs_unshare(pte_t e, vaddr_t va)
{
	return is_user_addr(va) && pte_present(e) && !pte_huge(e) && !pte_writable(e);
}

/* Drop the TLB entries of the whole address space if it is loaded. */
static void flush_if_active(struct pagetable *pgt)
{
	if (pgt_active(pgt)) {
		pv_flush_user();
		tlb_stats.flush_full++;
	}
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
	for (int i = 0; i < PT_ENTRIES; i++) {
		pte_t e = pte_read(&from[i]);
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
	return new;
}

int pt_unshare(struct pagetable *pgt, pte_t *pde, vaddr_t va)
{
	pte_t e = pte_read(pde);
	struct page *pt = pa_to_page(pte_addr(e));
	if (ptpage_sole(pt)) {                 /* the last sharer keeps it */
		if (pt->pt.text)
			ptshare_text_forget(pt);        /* about to change: unpublish */
		pt_set_table(pde, PGL_PD, pte_mkwrite(e));
		ptshare_stats.unshare_last++;
		return 0;
	}
	vaddr_t base = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	struct page *copy = pt_copy_shared(pgt, pt, base);
	if (!copy)
		return -ENOMEM;
	pt_set_table(pde, PGL_PD, pte_make(page_to_pa(copy), pte_mkwrite(pte_flags(e))));
	pt->pt.share--;
	ptshare_stats.unshare_copy++;
	flush_if_active(pgt);
	return 0;
}

/* ---- installing a shared PT page in another address space ---- */

/* The PD entry slot of pgt for va, allocating the tables above it; NULL
 * when out of memory. */
static pte_t *pd_slot(struct pagetable *pgt, vaddr_t va)
{
	pte_t *slot;
	return pgt_walk(pgt, va, PGL_PD, PGT_WALK_ALLOC, &slot) < 0 ? NULL : slot;
}

/* Point PD entry *slot of pgt at pt, write-protected, one more sharer. An
 * entry already pointing at pt stays (a chunk spanning two VMAs is offered
 * once per VMA). */
static void install_shared(struct pagetable *pgt, pte_t *slot, struct page *pt, vaddr_t va)
{
	pte_t e = pte_read(slot);
	if (pte_present(e)) {
		if (pte_addr(e) != page_to_pa(pt))
			panic("pt_share: %#lx already has another PT page", va);
		return;
	}
	pt_table_link_shared(pgt, slot, pt);
}

int pt_share_into(struct pagetable *pgt, vaddr_t va, struct page *pt)
{
	pte_t *slot = pd_slot(pgt, va);
	if (!slot)
		return -ENOMEM;
	install_shared(pgt, slot, pt, va);
	return 0;
}

/* ---- fork ---- */

struct fork_arg {
	struct pagetable *dst;
	const struct vma *v;
	struct tlb_batch *b;  /* the parent's (phase 2); NULL while preparing */
	pte_t *dst_pd;        /* the child's PD table for the 1 GiB at dst_pd_base */
	vaddr_t dst_pd_base;
};

/* The child's PD entry slot for va: its PD table is found (allocated while
 * preparing) once per 1 GiB, not walked per entry. NULL when out of memory. */
static pte_t *child_pd_slot(struct fork_arg *a, vaddr_t va)
{
	vaddr_t gib = ALIGN_DOWN(va, HUGE_PAGE_SIZE);
	if (!a->dst_pd || a->dst_pd_base != gib) {
		pte_t *slot;
		if (pgt_walk(a->dst, va, PGL_PD, a->b ? 0 : PGT_WALK_ALLOC, &slot) != PGL_PD)
			return NULL;
		a->dst_pd = slot - pgl_index(va, PGL_PD);
		a->dst_pd_base = gib;
	}
	return &a->dst_pd[pgl_index(va, PGL_PD)];
}

/* Is the parent's PD entry *w->ep copied (not shared) with the child: a
 * chunk the VMA covers in part (or a MAP_SHARED one) whose PT page is
 * private? */
static bool fork_copies(struct walk *w, const struct vma *v)
{
	bool whole = w->end - w->va == LARGE_PAGE_SIZE && !(v->flags & VM_SHARED);
	if (pte_huge(pte_read(w->ep)))
		panic("ptshare_fork: huge user page at %#lx", w->va);
	return !whole && !pt_needs_unshare(pte_read(w->ep), w->va);
}

/* Phase 1, no batch: allocate the child's tables for one PD entry of the
 * parent. Everything is allocated BEFORE any parent PD entry is
 * write-protected: an allocation may run reclaim, which writes (and may
 * free, if it empties) the parent's PT pages. */
static int prepare_pde(struct walk *w)
{
	struct fork_arg *a = w->arg;
	if (fork_copies(w, a->v))
		return pgt_copy_prepare(a->dst, w->pgt, w->va, w->end);
	return child_pd_slot(a, w->va) ? 0 : -ENOMEM;
}

/* Phase 2, in the parent's batch: share the PT page, or copy the part
 * [va, end) of it that the VMA covers. A PT page reclaim freed meanwhile
 * is a hole, not visited. */
static int fork_pde(struct walk *w)
{
	struct fork_arg *a = w->arg;
	if (fork_copies(w, a->v)) {
		ptshare_stats.fork_copied++;
		pgt_copy(a->b, a->dst, w->va, w->end, a->v->flags & VM_SHARED);
		return 0;
	}
	pte_t e = pte_read(w->ep);
	if (pte_writable(e)) {
		pt_set_table(w->ep, PGL_PD, pte_wrprotect(e));
		tlb_changed_range(a->b, w->va, w->va + LARGE_PAGE_SIZE);
	}
	install_shared(a->dst, child_pd_slot(a, w->va), pa_to_page(pte_addr(e)), w->va);
	ptshare_stats.fork_shared++;
	return 0;
}

static const struct walk_ops prepare_ops = { .pde = prepare_pde };
static const struct walk_ops fork_ops = { .pde = fork_pde };

int ptshare_fork_prepare(struct pagetable *dst, struct pagetable *src, const struct vma *v)
{
	struct fork_arg a = { .dst = dst, .v = v };
	struct walk w = { .ops = &prepare_ops, .pgt = src, .arg = &a, .leaf_level = PGL_PD };
	return walk_range(&w, v->start, v->end);
}

void ptshare_fork_vma(struct tlb_batch *b, struct pagetable *dst, const struct vma *v)
{
	struct fork_arg a = { .dst = dst, .v = v, .b = b };
	struct walk w = { .ops = &fork_ops, .pgt = b->pgt, .arg = &a, .leaf_level = PGL_PD };
	walk_range(&w, v->start, v->end);   /* allocates nothing: cannot fail */
}

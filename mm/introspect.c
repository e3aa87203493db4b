/* mm/introspect.c -- the memory figures of the pagoda_* introspection calls
 * (see mm/introspect.h). */
#include "mm/introspect.h"
#include "mm/pt/share.h"
#include "mm/as.h"
#include "mm/fault.h"
#include "mm/lazyfree.h"
#include "mm/memstat.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/ptshare.h"
#include "mm/reclaim.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"

/* ---- vmquery: one walk down to va, remembering the PD entry and leaf ---- */

struct vmq_walk {
	struct pagoda_vmquery *q;
	pte_t pdpte, pde;
};

static int vmq_pdpte(struct walk *w)
{
	struct vmq_walk *s = w->arg;
	s->pdpte = pte_read(w->ep);
	if (!pte_huge(s->pdpte))
		s->q->pd_share_count = pa_to_page(pte_addr(s->pdpte))->pt.share;
	return 0;
}

static int vmq_pde(struct walk *w)
{
	struct vmq_walk *s = w->arg;
	s->pde = pte_read(w->ep);
	if (!pte_huge(s->pde)) {
		struct page *pt = pa_to_page(pte_addr(s->pde));
		s->q->pt_pa = pte_addr(s->pde);
		s->q->pt_share_count = pt->pt.share;
		s->q->pt_present_count = pt->count;
	}
	return 0;
}

/* VMQ_* protection of leaf e (0: PROT_NONE). */
static uint32_t vmq_prot(pte_t e)
{
	return !pte_present(e) ? 0 :
	       VMQ_READ | (pte_writable(e) ? VMQ_WRITE : 0) |
	       (pte_exec(e) ? VMQ_EXEC : 0) | (pte_user(e) ? VMQ_USER : 0);
}

/* VMQ_ bits of anonymous page pg's place on the replacement lists. */
static uint32_t vmq_lists(const struct page *pg)
{
	if (!pg || pg->type != PG_ANON)
		return 0;
	uint16_t f = __atomic_load_n(&pg->aflags, __ATOMIC_RELAXED);
	return (f & AF_LAZYFREE ? VMQ_LAZYFREE : 0) | (f & AF_HOT ? VMQ_HOT : 0) |
	       (f & AF_TEST ? VMQ_TEST : 0);
}

/* A swap entry: the page is out. */
static int vmq_swap(struct walk *w)
{
	struct pagoda_vmquery *q = ((struct vmq_walk *)w->arg)->q;
	q->pte = pte_read(w->ep);
	q->soft = VMQ_SWAPPED;
	return 0;
}

static int vmq_pte(struct walk *w)
{
	struct pagoda_vmquery *q = ((struct vmq_walk *)w->arg)->q;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	q->mapped = 1;
	q->pte = e;
	q->page_size = (uint32_t)pgl_entry_size(w->level);
	q->pa = pte_addr(e) + (w->va & (q->page_size - 1));
	q->prot = vmq_prot(e);
	q->soft = (pte_cow(e) ? VMQ_COW : 0) | (pte_file(e) ? VMQ_FILE : 0) |
		  (pte_dirty(e) ? VMQ_DIRTY : 0) | (pte_accessed(e) ? VMQ_ACCESSED : 0) |
		  vmq_lists(pg);
	q->frame_refcount = pg ? pg->refcount : 0;
	return 0;
}

static const struct walk_ops vmq_ops = { .pdpte = vmq_pdpte, .pde = vmq_pde, .pte = vmq_pte,
					  .swap = vmq_swap };

void as_vmquery(struct addrspace *as, vaddr_t va, struct pagoda_vmquery *q)
{
	va = ALIGN_DOWN(va, PAGE_SIZE);
	*q = (struct pagoda_vmquery){ .va = va };
	struct vmq_walk s = { .q = q };
	struct walk w = { .ops = &vmq_ops, .pgt = as->pgt, .arg = &s };
	walk_range(&w, va, va + PAGE_SIZE);
	if (pte_present(s.pde) && !pte_writable(s.pde))
		q->soft |= VMQ_PT_WRPROT;
	if (pte_present(s.pdpte) && !pte_writable(s.pdpte))
		q->soft |= VMQ_PD_WRPROT;
}

/* ---- meminfo ---- */

_Static_assert(PSS_SHIFT == PAGODA_PSS_SHIFT, "one fixed point for PSS");

/* The event counters of *m (faults, flushes, lazy freeing, reclaim). */
static void fill_events(struct pagoda_meminfo *m)
{
	m->page_faults = fault_stats_total();
	struct fault_stats fs = fault_stats_sum();
	m->cow_faults = fs.cow;
	m->tlb_flushes = tlb_stats.flush_one + tlb_stats.flush_full;
	m->pglazyfree = lazyfree_stats.marked;
	m->pglazyfreed = lazyfree_stats.discarded;
	m->reclaim_scans = lazyfree_stats.scanned;
	m->oom_kills = fs.oom_kills;
	m->fork_shared_pt = ptshare_stats.fork_shared;
	m->fork_shared_pd = ptshare_stats.fork_shared_pd;
	m->text_shared_pt = ptshare_stats.text_attached;
	m->pt_unshares = ptshare_stats.unshare_copy;
}

void mm_fill_meminfo(struct pagoda_meminfo *m)
{
	struct mm_meminfo mi;
	mm_meminfo(&mi);
	m->total_pages = mi.total;
	m->free_pages = mi.free;
	m->kernel_pages = mi.kernel;
	m->anon_pages = mi.anon;
	m->file_pages = mi.file;
	m->pagetable_pages = mi.pagetable;
	m->lazyfree_pages = mi.lazyfree;
	m->shared_pt_pages = mi.shared_pt;
	m->shared_pd_pages = mi.shared_pd;
	m->pt_saved_pages = mi.pt_saved;
	m->ptshare_mode = ptshare_mode;
	fill_events(m);
}

/* ---- procinfo ---- */

void as_fill_procinfo(struct addrspace *as, struct pagoda_procinfo *pi)
{
	struct as_memstat st;
	as_memstat(as, &st);
	pi->vm_pages = st.vm_pages;
	pi->rss_pages = st.rss_pages;
	pi->pss_pages = st.pss_pages;
	pi->lazyfree_pages = st.lazyfree_pages;
	pi->pt_pages = st.pt_pages;
	pi->shared_pt_pages = st.shared_pt_pages;
	pi->as_write_locks = as->write_locks;
}

/* mm/lazyfree.c -- MADV_FREE marking and the lazy-free list (see
 * mm/lazyfree.h; reclaim, which consumes the list, is mm/reclaim.c). */
#include "mm/lazyfree.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/pt/share.h"
#include "lib/printk.h"
#include "arch/x86_64/memlayout.h"

#define HASH_BUCKETS 64

struct lazyfree_stats lazyfree_stats;
struct list lazyfree_list = { &lazyfree_list, &lazyfree_list };
struct spinlock lazyfree_lock = SPINLOCK_INIT("lazyfree", LOCK_RANK_LAZYFREE);
static struct lazyfree_rec *buckets[HASH_BUCKETS];

/* ---- records: the hash table and the bits ---- */

static struct lazyfree_rec **bucket(const struct pagetable *pgt, vaddr_t va)
{
	uint64_t key = ((uintptr_t)pgt >> 6) ^ (va / LARGE_PAGE_SIZE);
	return &buckets[(key ^ (key >> 6)) % HASH_BUCKETS];
}

/* The record of the PT page of pgt that maps va, or NULL (lock held). */
static struct lazyfree_rec *rec_find(const struct pagetable *pgt, vaddr_t va)
{
	vaddr_t base = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	for (struct lazyfree_rec *r = *bucket(pgt, va); r; r = r->hnext)
		if (r->pgt == pgt && r->va == base)
			return r;
	return NULL;
}

/* Make r (zeroed) the record of pgt's PT page at va, youngest (lock held). */
static void rec_insert(struct lazyfree_rec *r, struct pagetable *pgt, vaddr_t va)
{
	struct lazyfree_rec **b = bucket(pgt, va);
	*r = (struct lazyfree_rec){ .pgt = pgt, .va = ALIGN_DOWN(va, LARGE_PAGE_SIZE), .hnext = *b };
	*b = r;
	list_add_tail(&lazyfree_list, &r->link);
	lazyfree_stats.records++;
}

static unsigned rec_index(vaddr_t va)
{
	return pgl_index(va, PGL_PT);
}

static bool rec_test(const struct lazyfree_rec *r, unsigned i)
{
	return r->lazy[i / 64] & (1UL << (i % 64));
}

/* Set bit i of r; true if it was clear (the page is newly counted). */
static bool rec_set(struct lazyfree_rec *r, unsigned i)
{
	if (rec_test(r, i))
		return false;
	r->lazy[i / 64] |= 1UL << (i % 64);
	r->npages++;
	lazyfree_stats.pages++;
	return true;
}

bool lazyfree_rec_clear(struct lazyfree_rec *r, unsigned i)
{
	if (!rec_test(r, i))
		return false;
	r->lazy[i / 64] &= ~(1UL << (i % 64));
	r->npages--;
	lazyfree_stats.pages--;
	return true;
}

void lazyfree_drop(struct lazyfree_rec *r)
{
	struct lazyfree_rec **b = bucket(r->pgt, r->va);
	while (*b != r)
		b = &(*b)->hnext;
	*b = r->hnext;
	list_del(&r->link);
	lazyfree_stats.pages -= r->npages;
	lazyfree_stats.records--;
	kfree(r);
}

/* ---- forgetting ---- */

void lazyfree_forget_entry(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	(void)e;
	if (!__atomic_load_n(&lazyfree_stats.pages, __ATOMIC_RELAXED) ||
	    spin_holding(&lazyfree_lock))
		return;
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = rec_find(pgt, va);
	if (r && lazyfree_rec_clear(r, rec_index(va))) {
		lazyfree_stats.forgotten++;
		if (!r->npages)
			lazyfree_drop(r);
	}
	spin_unlock(&lazyfree_lock);
}

/* Drop r, counting its pages as forgotten (lock held). */
static void forget_rec(struct lazyfree_rec *r)
{
	lazyfree_stats.forgotten += r->npages;
	lazyfree_drop(r);
}

void lazyfree_forget_table(struct pagetable *pgt, struct page *pt, vaddr_t va)
{
	(void)pt;
	if (!__atomic_load_n(&lazyfree_stats.records, __ATOMIC_RELAXED))
		return;
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = rec_find(pgt, va);
	if (r)
		forget_rec(r);
	spin_unlock(&lazyfree_lock);
}

void lazyfree_forget_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	if (!__atomic_load_n(&lazyfree_stats.records, __ATOMIC_RELAXED))
		return;
	spin_lock(&lazyfree_lock);
	struct list *it = lazyfree_list.next;
	while (it != &lazyfree_list) {
		struct lazyfree_rec *r = list_entry(it, struct lazyfree_rec, link);
		it = it->next;
		if (r->pgt == pgt && r->va + LARGE_PAGE_SIZE > start && r->va < end)
			forget_rec(r);
	}
	spin_unlock(&lazyfree_lock);
}

/* ---- marking: one walk over the range ---- */

/* Where the marking stands in the PT page it visits. */
enum mark_state {
	MARK_LOOK,      /* no markable entry seen yet: record not looked up */
	MARK_REC,       /* lazyfree_lock held, a->rec is the PT page's record */
	MARK_SKIP,      /* nothing to do in this PT page */
};

struct mark_arg {
	struct tlb_batch b;
	struct list spare;        /* records allocated before the walk */
	uint32_t call;            /* this call's stamp on the records it marks */
	bool second;              /* the second pass: PT pages the first skipped */
	uint64_t missing;         /* PT pages left alone for want of a record */
	enum mark_state state;
	struct lazyfree_rec *rec;
};

/* A PD entry (or PDPT entry): a PT page (PD page) shared by several
 * address spaces is skipped. Its frames are mapped more than once, so
 * after unsharing (the general rule for leaf writes: mark_ops.shared is
 * walk_unshare) none of them could be marked anyway -- skipping
 * gives the same result without copying the PT page. */
static int mark_pde(struct walk *w)
{
	pte_t e = pte_read(w->ep);
	if (pte_is_leaf(e, w->level))
		return 0;                       /* a 2 MiB page: never user anon */
	((struct mark_arg *)w->arg)->state = MARK_LOOK;
	return ptpage_shared(pa_to_page(pte_addr(e))) ? WALK_SKIP : 0;
}

/* After a PT page's entries: let the list go. */
static int mark_table_done(struct walk *w)
{
	struct mark_arg *a = w->arg;
	if (w->level == PGL_PD && a->state == MARK_REC)
		spin_unlock(&lazyfree_lock);
	a->state = MARK_LOOK;
	return 0;
}

/* The anonymous frame entry e maps if MADV_FREE may mark it (mapped
 * once), else NULL. */
static struct page *markable(pte_t e)
{
	struct page *pg = pa_to_page(pte_addr(e));
	if (!pg || pg->type != PG_ANON || pte_file(e) || pg->refcount != 1)
		return NULL;
	return pg;
}

/* The first markable entry of a PT page: take the list lock (held until
 * mark_table_done) and find the PT page's record, moved to the young end,
 * or give it a spare. MARK_SKIP if there is none, and in the second pass
 * if this call marked the PT page in its first. (A record this call did
 * not mark may have come meanwhile from another thread's MADV_FREE:
 * madvise runs under the address-space lock for reading.) */
static void mark_look(struct mark_arg *a, struct walk *w)
{
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = rec_find(w->pgt, w->va);
	if (r && !(a->second && r->call == a->call)) {
		list_del(&r->link);
		list_add_tail(&lazyfree_list, &r->link);
	} else if (!r && !list_empty(&a->spare)) {
		r = list_entry(a->spare.next, struct lazyfree_rec, link);
		list_del(&r->link);
		rec_insert(r, w->pgt, w->va);
	} else {
		a->missing += !r;       /* no record: leave the PT page alone */
		spin_unlock(&lazyfree_lock);
		a->state = MARK_SKIP;
		return;
	}
	r->call = a->call;
	a->rec = r;
	a->state = MARK_REC;
}

/* A present PTE: mark it lazy-free and clean if its frame is anonymous and
 * mapped once. */
static int mark_pte(struct walk *w)
{
	struct mark_arg *a = w->arg;
	pte_t e = pte_read(w->ep);
	if (a->state == MARK_SKIP || !markable(e))
		return 0;
	if (a->state == MARK_LOOK)
		mark_look(a, w);
	if (a->state != MARK_REC)
		return 0;
	bool counted = !rec_set(a->rec, rec_index(w->va));
	lazyfree_stats.marked++;
	/* Counted, LAZYFREE and still clean: not written since the MADV_FREE
	 * that cleaned it and flushed, so no TLB caches it dirty (only a walk
	 * that sets D in the entry makes such a TLB entry): nothing to do. */
	if (counted && pte_lazyfree(e) && !pte_dirty(e))
		return 0;
	/* Cleared atomically: a D the MMU of another CPU sets meanwhile is
	 * either in the old value (and then flushed) or set again later. A
	 * TLB may cache D=1 only if the entry had it: then flush, else a write
	 * through that cached D=1 would not set D again, and reclaim would
	 * drop a written page. */
	if (pte_dirty(pt_leaf_mklazyfree(w->pgt, w->va, w->ep)))
		tlb_changed(&a->b, w->va);
	return 0;
}

static const struct walk_ops mark_ops = {
	.pdpte = mark_pde, .pde = mark_pde, .pte = mark_pte,
	.table_done = mark_table_done, .lock_leaves = true,
	.shared = walk_unshare,
};

/* Allocate up to n zeroed records onto *spare (fewer if kmalloc fails).
 * Done before the walk so that allocation (and the reclaim it may run)
 * never happens in the middle of a TLB batch. */
static void alloc_spares(struct list *spare, uint64_t n)
{
	for (; n; n--) {
		struct lazyfree_rec *r = kmalloc(sizeof(*r));
		if (!r)
			return;
		list_add(spare, &r->link);
	}
}

/* One marking pass over [start, end) in a TLB batch of its own. */
static void mark_pass(struct mark_arg *a, struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	struct walk w = { .ops = &mark_ops, .pgt = pgt, .arg = a };
	a->missing = 0;
	a->state = MARK_LOOK;
	tlb_begin(&a->b, pgt);
	walk_range(&w, start, end);
	uint64_t t0 = phase_begin();
	tlb_end(&a->b);
	phase_end(PH_LAZYFREE_FLUSH, t0);
}

/* The first pass marks the pages of PT pages that have a record already
 * (memory given back again and again: one walk, nothing allocated); if
 * some PT pages had none, their records are allocated outside any batch
 * and a second pass marks those. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end)
{
	uint64_t t0 = phase_begin();
	static uint32_t calls;
	struct mark_arg a = { .call = atomic_add_return(&calls, 1) };
	list_init(&a.spare);
	mark_pass(&a, pgt, start, end);
	if (a.missing) {
		alloc_spares(&a.spare, a.missing);
		a.second = true;
		mark_pass(&a, pgt, start, end);
	}
	while (!list_empty(&a.spare)) {
		struct list *it = a.spare.next;
		list_del(it);
		kfree(list_entry(it, struct lazyfree_rec, link));
	}
	phase_end(PH_LAZYFREE, t0);
}

bool lazyfree_counted(const struct pagetable *pgt, vaddr_t va)
{
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = rec_find(pgt, va);
	bool counted = r && rec_test(r, rec_index(va));
	spin_unlock(&lazyfree_lock);
	return counted;
}

uint64_t lazyfree_count(const struct pagetable *pgt)
{
	uint64_t n = 0;
	spin_lock(&lazyfree_lock);
	list_for_each(it, &lazyfree_list) {
		struct lazyfree_rec *r = list_entry(it, struct lazyfree_rec, link);
		if (r->pgt == pgt)
			n += r->npages;
	}
	spin_unlock(&lazyfree_lock);
	return n;
}

/* ---- the invariant ---- */

static int check_pte(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (rec_test(r, rec_index(w->va)) && (!pg || pg->type != PG_ANON || !pte_lazyfree(e)))
		page_bug(pg, "lazyfree_check: a counted entry is not a LAZYFREE anonymous page",
			 NULL);
	return 0;
}

static int check_hole(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	for (vaddr_t va = w->va; va < w->end; va += PAGE_SIZE)
		if (rec_test(r, rec_index(va)))
			panic("lazyfree_check: record of %#lx counts the unmapped %#lx", r->va, va);
	return 0;
}

static const struct walk_ops check_ops = { .pte = check_pte, .hole = check_hole };

/* Check one record: its bits, its count, its place in the hash table. */
static void check_rec(struct lazyfree_rec *r)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		n += rec_test(r, i);
	if (n != r->npages || rec_find(r->pgt, r->va) != r)
		panic("lazyfree_check: record of %#lx: %u bits, count %u, %s in the hash",
		      r->va, n, r->npages, rec_find(r->pgt, r->va) == r ? "found" : "not found");
	struct walk w = { .ops = &check_ops, .pgt = r->pgt, .arg = r };
	walk_range(&w, r->va, r->va + LARGE_PAGE_SIZE);
}

uint64_t lazyfree_check(void)
{
	uint64_t n = 0, recs = 0;
	spin_lock(&lazyfree_lock);
	list_for_each(it, &lazyfree_list) {
		struct lazyfree_rec *r = list_entry(it, struct lazyfree_rec, link);
		check_rec(r);
		n += r->npages;
		recs++;
	}
	if (n != lazyfree_stats.pages || recs != lazyfree_stats.records)
		panic("lazyfree_check: %lu pages in %lu records, counters say %lu in %lu",
		      n, recs, lazyfree_stats.pages, lazyfree_stats.records);
	spin_unlock(&lazyfree_lock);
	return n;
}

/* mm/pt/lazyfree_rec.c -- the lazy-free records: which entries of which PT
 * page are counted lazy-free (see mm/pt/lazyfree_rec.h). */
#include "mm/pt/lazyfree_rec.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/walk.h"
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

struct lazyfree_rec *lazyfree_rec_find(const struct pagetable *pgt, vaddr_t va)
{
	vaddr_t base = ALIGN_DOWN(va, LARGE_PAGE_SIZE);
	for (struct lazyfree_rec *r = *bucket(pgt, va); r; r = r->hnext)
		if (r->pgt == pgt && r->va == base)
			return r;
	return NULL;
}

void lazyfree_rec_add(struct lazyfree_rec *r, struct pagetable *pgt, vaddr_t va)
{
	struct lazyfree_rec **b = bucket(pgt, va);
	*r = (struct lazyfree_rec){ .pgt = pgt, .va = ALIGN_DOWN(va, LARGE_PAGE_SIZE), .hnext = *b };
	*b = r;
	list_add_tail(&lazyfree_list, &r->link);
	lazyfree_stats.records++;
}

bool lazyfree_rec_clear(struct lazyfree_rec *r, unsigned i)
{
	if (!lazyfree_rec_test(r, i))
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
	struct lazyfree_rec *r = lazyfree_rec_find(pgt, va);
	if (r && lazyfree_rec_clear(r, lazyfree_rec_index(va))) {
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
	struct lazyfree_rec *r = lazyfree_rec_find(pgt, va);
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

bool lazyfree_counted(const struct pagetable *pgt, vaddr_t va)
{
	spin_lock(&lazyfree_lock);
	struct lazyfree_rec *r = lazyfree_rec_find(pgt, va);
	bool counted = r && lazyfree_rec_test(r, lazyfree_rec_index(va));
	spin_unlock(&lazyfree_lock);
	return counted;
}

/* ---- the invariant ---- */

static int check_pte(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	pte_t e = pte_read(w->ep);
	struct page *pg = pa_to_page(pte_addr(e));
	if (lazyfree_rec_test(r, lazyfree_rec_index(w->va)) && (!pg || pg->type != PG_ANON || !pte_lazyfree(e)))
		page_bug(pg, "lazyfree_check: a counted entry is not a LAZYFREE anonymous page",
			 NULL);
	return 0;
}

static int check_hole(struct walk *w)
{
	struct lazyfree_rec *r = w->arg;
	for (vaddr_t va = w->va; va < w->end; va += PAGE_SIZE)
		if (lazyfree_rec_test(r, lazyfree_rec_index(va)))
			panic("lazyfree_check: record of %#lx counts the unmapped %#lx", r->va, va);
	return 0;
}

static const struct walk_ops check_ops = { .pte = check_pte, .hole = check_hole };

/* Check one record: its bits, its count, its place in the hash table. */
static void check_rec(struct lazyfree_rec *r)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		n += lazyfree_rec_test(r, i);
	if (n != r->npages || lazyfree_rec_find(r->pgt, r->va) != r)
		panic("lazyfree_check: record of %#lx: %u bits, count %u, %s in the hash",
		      r->va, n, r->npages, lazyfree_rec_find(r->pgt, r->va) == r ? "found" : "not found");
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

/* mm/pt/tlb.c -- the TLB batch: flush once, then free (see mm/pt/tlb.h). */
#include "mm/pt/tlb.h"
#include "mm/frame/swap.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/shootdown.h"
#include "lib/printk.h"

struct tlb_stats tlb_stats;
bool tlb_batching = true;
/* The batch each CPU has open: batches do not nest on one CPU, and two
 * CPUs may each have one open (a batch never moves: nothing between
 * tlb_begin and tlb_end sleeps or yields). */
static const struct tlb_batch *open_batch[MAX_CPUS];

/* Is b's page table the one this CPU runs on? (By the root's address kept
 * in b: b->pgt may be gone by the flush, mm/reclaim.c.) */
static bool active_here(const struct tlb_batch *b)
{
	return pte_addr(pv_read_cr3()) == b->root_pa;
}

void tlb_begin(struct tlb_batch *b, struct pagetable *pgt)
{
	int cpu = smp_cpu_id();
	if (open_batch[cpu])
		panic("tlb_begin: a TLB batch inside another one on CPU %d", cpu);
	open_batch[cpu] = b;
	b->pgt = pgt;
	b->root_pa = pgt_root_pa(pgt);
	b->need_flush = b->global = b->sharers = false;
	b->npages_changed = 0;
	b->npages = b->ntables = 0;
	pv_lazy_mmu_enter();
}

/* The other CPUs whose TLB may hold what b changed: all of them for a
 * kernel-half (global) entry or a leaf of a shared table (any CPU may run
 * one of its sharers), else those running on b->pgt now. Every other
 * path unshares before it writes a leaf, so for it the CPUs of b->pgt are
 * all the CPUs concerned. */
static cpumask_t remote_cpus(const struct tlb_batch *b)
{
	return b->global || b->sharers ? smp_other_cpus() : smp_cpus_using(b->root_pa);
}

/* One IPI round to the other CPUs that may hold b's changes (none: no IPI),
 * acknowledged before anything is freed. */
static void flush_remote(const struct tlb_batch *b)
{
	struct shootdown s = { .changed = b->npages_changed };
	if (b->npages_changed == 1)
		shootdown_add(&s, b->first_va);
	else
		s.all = true;
	tlb_shootdown(remote_cpus(b), &s);
}

/* May a TLB, this CPU's or another's, hold the entry of va in b->pgt? */
static bool cached_anywhere(const struct tlb_batch *b, vaddr_t va)
{
	return !is_user_addr(va) || b->sharers || pgt_active(b->pgt) ||
	       smp_cpus_using(b->root_pa);
}

/* This CPU's part of the flush, if its TLB can hold b's changes. */
static void flush_local(const struct tlb_batch *b)
{
	if (!b->global && !b->sharers && !active_here(b))
		return;
	if (b->npages_changed == 1) {
		pv_flush_one(b->first_va);
		tlb_stats.flush_one++;
	} else {
		if (b->global)
			pv_flush_all();
		else
			pv_flush_user();
		tlb_stats.flush_full++;
	}
}

/* A mapping's reference on pg goes; an anonymous page in the swap cache
 * whose slot no entry names leaves it (else the cache would keep it, and
 * its slot, until reclaim came by). */
static void put_mapped(struct page *pg)
{
	if (pg->type == PG_ANON && page_in_swap_cache(pg))
		(void)swap_cache_drop_unnamed(pg);
	page_put(pg);
}

/* Flush the changes so far (keeps the batch open). */
static void tlb_flush(struct tlb_batch *b)
{
	pv_lazy_mmu_flush();
	if (b->need_flush) {
		flush_remote(b);
		flush_local(b);
	}
	b->need_flush = b->global = false;
	b->npages_changed = 0;
	for (int i = 0; i < b->npages; i++)
		put_mapped(b->pages[i]);
	for (int i = 0; i < b->ntables; i++)
		pt_table_put(b->tables[i]);
	tlb_stats.pages_freed += (uint64_t)b->npages;
	b->npages = b->ntables = 0;
}

void tlb_note_change(struct tlb_batch *b, vaddr_t va)
{
	if (!cached_anywhere(b, va))
		return;   /* no CPU runs on b->pgt: no TLB holds it (no PCIDs) */
	b->global |= !is_user_addr(va);
	if (!tlb_batching) {   /* this page now, on every CPU concerned */
		b->npages_changed = 1;
		b->first_va = va;
		flush_remote(b);
		flush_local(b);
		b->npages_changed = 0;
		return;
	}
	if (b->npages_changed == 1 && b->first_va == va)
		return;   /* the same page again (its entry, then its table) */
	if (b->npages_changed++ == 0)
		b->first_va = va;
	b->need_flush = true;
}

void tlb_reach_sharers(struct tlb_batch *b)
{
	b->sharers = true;
}

void tlb_changed_range(struct tlb_batch *b, vaddr_t va, vaddr_t end)
{
	if (end - va == PAGE_SIZE) {
		tlb_changed(b, va);
	} else if (cached_anywhere(b, va)) {
		b->global |= !is_user_addr(va);
		b->npages_changed += 2;   /* more than one page: a full flush */
		b->need_flush = true;
		if (!tlb_batching)
			tlb_flush(b);
	}
}

void tlb_defer_put(struct tlb_batch *b, vaddr_t va, struct page *pg)
{
	tlb_changed(b, va);
	b->pages[b->npages++] = pg;
	if (!tlb_batching || b->npages == TLB_BATCH_PAGES)
		tlb_flush(b);
}

void tlb_defer_table(struct tlb_batch *b, vaddr_t va, struct page *pt)
{
	tlb_changed(b, va);   /* invlpg drops the paging-structure caches too */
	b->tables[b->ntables++] = pt;
	if (b->ntables == TLB_BATCH_PAGES)
		tlb_flush(b);
}

void tlb_unlink_empty_table(struct tlb_batch *b, pte_t *ep, int level, vaddr_t va)
{
	if (pa_to_page(pte_addr(pte_read(ep)))->count == 0)
		tlb_defer_table(b, va, pt_table_unlink(b->pgt, ep, level));
}

void tlb_end(struct tlb_batch *b)
{
	tlb_flush(b);
	tlb_stats.batches++;
	pv_lazy_mmu_leave();
	open_batch[smp_cpu_id()] = NULL;
}

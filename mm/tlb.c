/* mm/tlb.c -- the TLB batch: flush once, then free (see mm/tlb.h). */
#include "mm/tlb.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"

struct tlb_stats tlb_stats;
bool tlb_batching = true;
static const struct tlb_batch *open_batch;   /* batches do not nest */

bool tlb_batch_open(void)
{
	return open_batch != NULL;
}

void tlb_begin(struct tlb_batch *b, struct pagetable *pgt)
{
	if (open_batch)
		panic("tlb_begin: a TLB batch inside another one (an allocation in a "
		      "batch ran reclaim?)");
	open_batch = b;
	b->pgt = pgt;
	b->need_flush = b->global = false;
	b->npages_changed = 0;
	b->npages = b->ntables = 0;
	pv_lazy_mmu_enter();
}

/* Flush the changes so far (keeps the batch open). */
static void tlb_flush(struct tlb_batch *b)
{
	pv_lazy_mmu_flush();
	if (b->need_flush) {
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
	b->need_flush = b->global = false;
	b->npages_changed = 0;
	for (int i = 0; i < b->npages; i++)
		page_put(b->pages[i]);
	for (int i = 0; i < b->ntables; i++)
		ptpage_free(b->tables[i]);
	tlb_stats.pages_freed += (uint64_t)b->npages;
	b->npages = b->ntables = 0;
}

void tlb_changed(struct tlb_batch *b, vaddr_t va)
{
	if (is_user_addr(va) && !pgt_active(b->pgt))
		return;   /* no TLB holds an inactive address space (no PCIDs) */
	b->global |= !is_user_addr(va);
	if (!tlb_batching) {
		pv_flush_one(va);
		tlb_stats.flush_one++;
		return;
	}
	if (b->npages_changed == 1 && b->first_va == va)
		return;   /* the same page again (its entry, then its table) */
	if (b->npages_changed++ == 0)
		b->first_va = va;
	b->need_flush = true;
}

void tlb_changed_range(struct tlb_batch *b, vaddr_t va, vaddr_t end)
{
	if (end - va == PAGE_SIZE) {
		tlb_changed(b, va);
	} else if (pgt_active(b->pgt) || !is_user_addr(va)) {
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
	open_batch = NULL;
}

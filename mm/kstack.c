/* mm/kstack.c -- kernel stacks: a slot bitmap over the KSTACK region; the
 * stack pages are mapped in the kernel half, the guard below never is.
 *
 * Several CPUs: kstack_lock (LOCK_RANK_KSTACK) guards the bitmap only. A
 * slot is reserved under it, then mapped without it (page_alloc may
 * reclaim, and unmapping sends a TLB shootdown); a freed slot is unmapped
 * first and released under it last, so no one reuses a slot still mapped.
 * Mapping and unmapping hold map_lock (LOCK_RANK_KSTACK_MAP, low enough to
 * allocate under it) while they change entries: neighbouring slots share
 * page-table pages of the kernel half, whose entries and present counts
 * two CPUs must not change at once. */
#include "mm/kstack.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"
#include "lib/spinlock.h"

static struct spinlock kstack_lock = SPINLOCK_INIT("kstack", LOCK_RANK_KSTACK);
static struct spinlock map_lock = SPINLOCK_INIT("kstack-map", LOCK_RANK_KSTACK_MAP);
static uint64_t used[KSTACK_SLOTS / 64];

static bool slot_used(unsigned i)
{
	return (used[i / 64] >> (i % 64)) & 1;
}

/* Reserve the first free slot; KSTACK_SLOTS when there is none. */
static unsigned slot_reserve(void)
{
	spin_lock(&kstack_lock);
	unsigned i = 0;
	while (i < KSTACK_SLOTS && slot_used(i))
		i++;
	if (i < KSTACK_SLOTS)
		used[i / 64] |= 1UL << (i % 64);
	spin_unlock(&kstack_lock);
	return i;
}

static void slot_release(unsigned i)
{
	spin_lock(&kstack_lock);
	used[i / 64] &= ~(1UL << (i % 64));
	spin_unlock(&kstack_lock);
}

static vaddr_t slot_top(unsigned i)
{
	return KSTACK_BASE + (uint64_t)(i + 1) * KSTACK_SLOT;
}

/* The entries change under map_lock; the shootdown (tlb_end: an IPI
 * round to every other CPU, a kernel-half change) runs after it is
 * released, so other CPUs' stack maps do not wait for it (/proc/lockstat
 * had kstack-map contended in 31% of its acquisitions on 4 CPUs, forking).
 * The slot stays ours until the flush is done. */
static void unmap_stack(vaddr_t top, vaddr_t from)
{
	struct tlb_batch b;
	tlb_begin(&b, &kernel_pgt);
	spin_lock(&map_lock);
	pgt_unmap(&b, from, top, PGT_STRICT);
	spin_unlock(&map_lock);
	tlb_end(&b);
}

static int map_page(vaddr_t va, struct page *pg)
{
	spin_lock(&map_lock);
	int r = pgt_map(&kernel_pgt, va, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE);
	spin_unlock(&map_lock);
	return r;
}

void *kstack_alloc(void)
{
	unsigned i = slot_reserve();
	if (i == KSTACK_SLOTS)
		return NULL;
	vaddr_t top = slot_top(i), va;
	for (va = top - PAGE_SIZE; va >= top - KSTACK_SIZE; va -= PAGE_SIZE) {
		struct page *pg = page_alloc(0, 0);
		if (!pg || map_page(va, pg) < 0) {
			if (pg)
				page_free(pg, 0);
			unmap_stack(top, va + PAGE_SIZE);
			slot_release(i);
			return NULL;
		}
	}
	return (void *)top;
}

void kstack_free(void *top)
{
	vaddr_t t = (vaddr_t)top;
	unsigned i = (unsigned)((t - KSTACK_BASE) / KSTACK_SLOT) - 1;
	spin_lock(&kstack_lock);
	bool ok = t >= KSTACK_BASE && (t - KSTACK_BASE) % KSTACK_SLOT == 0 &&
		  i < KSTACK_SLOTS && slot_used(i);
	spin_unlock(&kstack_lock);
	if (!ok)
		panic("kstack_free: %p is not the top of an allocated kernel stack", top);
	unmap_stack(t, t - KSTACK_SIZE);
	slot_release(i);
}

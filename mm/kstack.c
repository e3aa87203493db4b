/* mm/kstack.c -- kernel stacks: a slot bitmap over the KSTACK region; the
 * stack pages are mapped in the kernel half, the guard below never is. */
#include "mm/kstack.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"

static uint64_t used[KSTACK_SLOTS / 64];

static vaddr_t slot_top(unsigned i)
{
	return KSTACK_BASE + (uint64_t)(i + 1) * KSTACK_SLOT;
}

static void unmap_stack(vaddr_t top, vaddr_t from)
{
	struct tlb_batch b;
	tlb_begin(&b, &kernel_pgt);
	pgt_unmap(&b, from, top, PGT_STRICT);
	tlb_end(&b);
}

void *kstack_alloc(void)
{
	unsigned i = 0;
	while (i < KSTACK_SLOTS && (used[i / 64] >> (i % 64)) & 1)
		i++;
	if (i == KSTACK_SLOTS)
		return NULL;
	vaddr_t top = slot_top(i), va;
	for (va = top - PAGE_SIZE; va >= top - KSTACK_SIZE; va -= PAGE_SIZE) {
		struct page *pg = page_alloc(0, 0);
		if (!pg || pgt_map(&kernel_pgt, va, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE) < 0) {
			if (pg)
				page_free(pg, 0);
			unmap_stack(top, va + PAGE_SIZE);
			return NULL;
		}
	}
	used[i / 64] |= 1UL << (i % 64);
	return (void *)top;
}

void kstack_free(void *top)
{
	vaddr_t t = (vaddr_t)top;
	unsigned i = (unsigned)((t - KSTACK_BASE) / KSTACK_SLOT) - 1;
	if (t < KSTACK_BASE || (t - KSTACK_BASE) % KSTACK_SLOT || i >= KSTACK_SLOTS ||
	    !((used[i / 64] >> (i % 64)) & 1))
		panic("kstack_free: %p is not the top of an allocated kernel stack", top);
	unmap_stack(t, t - KSTACK_SIZE);
	used[i / 64] &= ~(1UL << (i % 64));
}

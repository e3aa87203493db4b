/* mm/pt/kstack.c -- kernel stacks: a slot bitmap over the KSTACK region; the
 * stack pages are mapped in the kernel half, the guard below never is.
 *
 * Several CPUs: kstack_lock (LOCK_RANK_KSTACK) guards the bitmap only. A
 * slot is reserved under it, then mapped without it (page_alloc may
 * reclaim, and unmapping sends a TLB shootdown); a freed slot is unmapped
 * first and released under it last, so no one reuses a slot still mapped.
 * Mapping and unmapping hold map_lock (LOCK_RANK_KSTACK_MAP, low enough to
 * allocate under it) while they change entries: neighbouring slots share
 * page-table pages of the kernel half, whose entries and present counts
 * two CPUs must not change at once. The pool (mm/pt/kstack.h) is under
 * kstack_lock too. */
#include "mm/pt/kstack.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/frame/phasetime.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"
#include "lib/errno.h"
#include "lib/spinlock.h"

static struct spinlock kstack_lock = SPINLOCK_INIT("kstack", LOCK_RANK_KSTACK);
static struct spinlock map_lock = SPINLOCK_INIT("kstack-map", LOCK_RANK_KSTACK_MAP);
static uint64_t used[KSTACK_SLOTS / 64];
static uint64_t pooled[KSTACK_SLOTS / 64];   /* slots of the pool's stacks */
static void *pool_free[KSTACK_POOL];         /* tops of the free ones, mapped */
static unsigned npool_free, npool, pool_want;

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

/* A new stack: reserve a slot, map fresh frames; NULL when out of either. */
static void *kstack_map_new(void)
{
	unsigned i = slot_reserve();
	if (i == KSTACK_SLOTS)
		return NULL;
	vaddr_t top = slot_top(i), va;
	for (va = top - PAGE_SIZE; va >= top - KSTACK_SIZE; va -= PAGE_SIZE) {
		struct page *pg = page_alloc(0, PA_ZERO);   /* whole: see PA_ZERO */
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

static unsigned slot_of(void *top)
{
	return (unsigned)(((vaddr_t)top - KSTACK_BASE) / KSTACK_SLOT) - 1;
}

/* Unmap the (checked) stack at top (one shootdown) and release its slot. */
static void kstack_unmap(void *top)
{
	vaddr_t t = (vaddr_t)top;
	unmap_stack(t, t - KSTACK_SIZE);
	slot_release(slot_of(top));
}

static bool slot_pooled(unsigned i)
{
	return (pooled[i / 64] >> (i % 64)) & 1;
}

static void set_pooled(unsigned i, bool on)
{
	if (on)
		pooled[i / 64] |= 1UL << (i % 64);
	else
		pooled[i / 64] &= ~(1UL << (i % 64));
}

/* A free pool stack, or NULL if none is free. */
static void *pool_take(void)
{
	spin_lock(&kstack_lock);
	void *top = npool_free ? pool_free[--npool_free] : NULL;
	spin_unlock(&kstack_lock);
	return top;
}

/* A pool stack comes back: into the free list (true), or out of the pool
 * if the pool is to shrink or top is not the pool's (false: unmap it). */
static bool pool_put(void *top)
{
	unsigned i = slot_of(top);
	spin_lock(&kstack_lock);
	bool keep = slot_pooled(i) && npool <= pool_want;
	if (keep)
		pool_free[npool_free++] = top;
	else if (slot_pooled(i)) {
		set_pooled(i, false);
		npool--;
	}
	spin_unlock(&kstack_lock);
	return keep;
}

/* Panic unless top is the top of an allocated stack not free in the pool. */
static void check_top(void *top)
{
	vaddr_t t = (vaddr_t)top;
	unsigned i = slot_of(top);
	spin_lock(&kstack_lock);
	bool ok = t >= KSTACK_BASE && (t - KSTACK_BASE) % KSTACK_SLOT == 0 &&
		  i < KSTACK_SLOTS && slot_used(i);
	for (unsigned c = 0; ok && c < npool_free; c++)
		ok = pool_free[c] != top;
	spin_unlock(&kstack_lock);
	if (!ok)
		panic("kstack_free: %p is not the top of an allocated kernel stack", top);
}

void *kstack_alloc(void)
{
	uint64_t t0 = phase_begin();
	void *top = pool_take();
	if (!top)
		top = kstack_map_new();
	phase_end(PH_KSTACK_ALLOC, t0);
	return top;
}

void kstack_free(void *top)
{
	uint64_t t0 = phase_begin();
	check_top(top);
	if (!pool_put(top))
		kstack_unmap(top);
	phase_end(PH_KSTACK_FREE, t0);
}

/* One more stack in the pool: mapped, marked, free. */
static int pool_grow(void)
{
	void *top = kstack_map_new();
	if (!top)
		return -ENOMEM;
	spin_lock(&kstack_lock);
	set_pooled(slot_of(top), true);
	npool++;
	pool_free[npool_free++] = top;
	spin_unlock(&kstack_lock);
	return 0;
}

/* One free pool stack out of the pool, or NULL if none is free. */
static void *pool_shrink(void)
{
	void *top = pool_take();
	if (top) {
		spin_lock(&kstack_lock);
		set_pooled(slot_of(top), false);
		npool--;
		spin_unlock(&kstack_lock);
	}
	return top;
}

int kstack_set_pool(unsigned n)
{
	if (n > KSTACK_POOL)
		panic("kstack_set_pool: %u stacks, the pool holds at most %d", n, KSTACK_POOL);
	spin_lock(&kstack_lock);
	pool_want = n;
	unsigned have = npool;
	spin_unlock(&kstack_lock);
	for (void *top; have > n && (top = pool_shrink()); have--)
		kstack_unmap(top);
	for (; have < n; have++)
		if (pool_grow() < 0)
			return -ENOMEM;
	return 0;
}

unsigned kstack_pool_free(void)
{
	spin_lock(&kstack_lock);
	unsigned n = npool_free;
	spin_unlock(&kstack_lock);
	return n;
}

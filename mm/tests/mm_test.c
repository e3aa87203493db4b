/* mm/tests/mm_test.c -- test=mm: the allocators, the page-table API and the
 * kernel address space on the real MMU. Every test is an MM_TEST: the free
 * frame and page-table page counts must be the same before and after it,
 * and the free lists and the kernel page table pass their self-checks. */
#include "kernel/ktest.h"
#include "lib/string.h"
#include "mm/frame/page.h"
#include "mm/frame/kmalloc.h"
#include "mm/pt/kstack.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/tlb.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/kvm.h"
#include "mm/pt/pgtable_check.h"
#include "lib/cmdline.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/backtrace.h"

#define MM_TEST(name)                                                   \
	static void mm_##name(void);                                    \
	KTEST(mm, name)                                              \
	{                                                               \
		uint64_t free0 = mm_stats.free;                         \
		uint64_t tables0 = mm_stats.by_type[PG_PAGETABLE];      \
		mm_##name();                                            \
		KEXPECT_EQ(mm_stats.free, free0);                       \
		KEXPECT_EQ(buddy_check(), free0);                       \
		pgt_check(&kernel_pgt, DIRECT_MAP_BASE, 0);             \
		KEXPECT_EQ(mm_stats.by_type[PG_PAGETABLE], tables0);    \
	}                                                               \
	static void mm_##name(void)

/* Accesses that tests expect to fault (run under ktest_catch_fault). */
static void write_byte(void *p)
{
	*(volatile uint8_t *)p = 1;
}

static void read_byte(void *p)
{
	(void)*(volatile uint8_t *)p;
}

static void call_code(void *p)
{
	((void (*)(void))p)();
}

static uint8_t data_ret[16] = { 0xc3 };   /* "ret" in .data */

MM_TEST(buddy_split_merge)
{
	uint64_t f0 = mm_stats.free;
	struct page *a = page_alloc(3, 0), *b = page_alloc(0, 0);
	KEXPECT(a && b);
	KEXPECT_EQ(mm_stats.free, f0 - 9);
	KEXPECT(IS_ALIGNED(page_to_pa(a), 8 * PAGE_SIZE));
	KEXPECT_EQ(a->type, PG_KERNEL);
	KEXPECT_EQ(a->refcount, 1);
	page_free(a, 3);
	page_free(b, 0);
	KEXPECT_EQ(mm_stats.free, f0);
}

MM_TEST(zeroed_alloc)
{
	struct page *p = page_alloc(1, 0);
	memset(page_va(p), 0xa5, 2 * PAGE_SIZE);
	page_free(p, 1);
	struct page *z = page_alloc(1, PA_ZERO | PA_ANON);
	const uint8_t *b = page_va(z);
	bool zero = true;
	for (size_t i = 0; i < 2 * PAGE_SIZE; i++)
		zero &= b[i] == 0;
	KEXPECT(zero);
	KEXPECT_EQ(z->type, PG_ANON);
	page_get(z);
	page_put(z);
	page_put(z);   /* the last reference frees it */
	KEXPECT_EQ(z->type, PG_FREE);
}

MM_TEST(kmalloc_sizes)
{
	void *p[64];
	uint64_t live = kmalloc_live();
	for (int i = 0; i < 64; i++) {
		size_t n = (size_t)(i * 97) % 5000 + 1;
		p[i] = kmalloc(n);
		KEXPECT(p[i] != NULL);
		memset(p[i], i, n);
	}
	for (int i = 0; i < 64; i++)
		KEXPECT_EQ(*(uint8_t *)p[i], i);
	for (int i = 0; i < 64; i++)
		kfree(p[i]);
	KEXPECT_EQ(kmalloc_live(), live);
	uint64_t *z = kzalloc(100);
	KEXPECT(z[0] == 0 && z[11] == 0);
	kfree(z);
}

MM_TEST(kstack_guard)
{
	uint8_t *top = kstack_alloc();
	KEXPECT(top != NULL);
	memset(top - KSTACK_SIZE, 0x5a, KSTACK_SIZE);   /* all of it is mapped */
	KEXPECT(pgt_lookup(&kernel_pgt, (vaddr_t)top - KSTACK_SIZE, NULL, NULL));
	KEXPECT(!pgt_lookup(&kernel_pgt, (vaddr_t)top - KSTACK_SIZE - 1, NULL, NULL));
	KEXPECT(kstack_guard_hit((vaddr_t)top - KSTACK_SIZE - 8, (vaddr_t)top - KSTACK_SIZE - 8));
	KEXPECT(!kstack_guard_hit((vaddr_t)top - 64, (vaddr_t)top - 64));
	uint64_t vec, addr;   /* the guard is really unmapped */
	KEXPECT(ktest_catch_fault(write_byte, top - KSTACK_SIZE - 8, &vec, &addr));
	KEXPECT_EQ(addr, (vaddr_t)top - KSTACK_SIZE - 8);
	kstack_free(top);
}

/* A pool stack freed goes back to the pool, still mapped, and is the next
 * one handed out; a stack mapped because the pool was empty is unmapped when
 * freed. However many stacks were taken at once, the free frames and the
 * pool's free stacks end as they began. */
MM_TEST(kstack_pool)
{
	unsigned n0 = kstack_pool_free();
	uint64_t free0 = mm_stats.free;
	KEXPECT(n0 > 0);
	void *top[KSTACK_POOL + 2];
	for (unsigned i = 0; i < n0 + 2; i++)
		KEXPECT((top[i] = kstack_alloc()) != NULL);
	KEXPECT_EQ(kstack_pool_free(), 0);
	for (unsigned i = 0; i < n0 + 2; i++)
		kstack_free(top[i]);
	KEXPECT_EQ(kstack_pool_free(), n0);
	KEXPECT_EQ(mm_stats.free, free0);
	/* the last two were mapped for the occasion: gone; the pool's are mapped */
	KEXPECT(!pgt_lookup(&kernel_pgt, (vaddr_t)top[n0 + 1] - PAGE_SIZE, NULL, NULL));
	KEXPECT(pgt_lookup(&kernel_pgt, (vaddr_t)top[n0 - 1] - PAGE_SIZE, NULL, NULL));
	KEXPECT(kstack_alloc() == top[n0 - 1]);   /* last in, first out */
	kstack_free(top[n0 - 1]);
}

MM_TEST(image_wx)
{
	extern char _text_start[], _rodata_start[], _data_start[];
	uint64_t vec, addr;
	KEXPECT(ktest_catch_fault(write_byte, _text_start, &vec, &addr));
	KEXPECT_EQ(vec, T_PF);
	KEXPECT_EQ(addr, (uint64_t)_text_start);
	KEXPECT(ktest_catch_fault(write_byte, _rodata_start, &vec, &addr));
	KEXPECT_EQ(addr, (uint64_t)_rodata_start);
	pte_t fl;
	KEXPECT(pgt_lookup(&kernel_pgt, (vaddr_t)_data_start, NULL, &fl));
	KEXPECT(pte_writable(fl) && !pte_exec(fl) && pte_global(fl) && !pte_user(fl));
	KEXPECT(pgt_lookup(&kernel_pgt, (vaddr_t)_text_start, NULL, &fl));
	KEXPECT(!pte_writable(fl) && pte_exec(fl));
	KEXPECT(ktest_catch_fault(call_code, data_ret, &vec, &addr));   /* data is NX */
	KEXPECT_EQ(addr, (uint64_t)data_ret);
}

MM_TEST(direct_map_nx)
{
	uint8_t *code = kmalloc(16);
	code[0] = 0xc3;   /* ret */
	uint64_t vec, addr;
	KEXPECT(ktest_catch_fault(call_code, code, &vec, &addr));
	KEXPECT_EQ(vec, T_PF);
	KEXPECT_EQ(addr, (uint64_t)code);
	kfree(code);
	pte_t fl;
	paddr_t pa;
	KEXPECT(pgt_lookup(&kernel_pgt, DIRECT_MAP_BASE + MiB(3) + 5, &pa, &fl));
	KEXPECT_EQ(pa, MiB(3) + 5);
	bool split = !strcmp(cmdline_get_or("pv", ""), "checked");   /* 4 KiB pages */
	KEXPECT((pte_huge(fl) || split) && !pte_exec(fl) && pte_global(fl));
	KEXPECT(kvm_dmap_page_size() ==
		(split ? PAGE_SIZE : cmdline_has("mm_no1g") ? MiB(2) : GiB(1)));
}

MM_TEST(identity_map_dropped)
{
	uint64_t vec, addr;
	KEXPECT(ktest_catch_fault(read_byte, (void *)KERNEL_PHYS_BASE, &vec, &addr));
	KEXPECT_EQ(addr, KERNEL_PHYS_BASE);
}

/* A user page seen from the kernel: write through the user mapping (SMAP
 * window), read through the direct map; read-only after protect (CR0.WP);
 * gone after unmap; everything freed by destroy. */
MM_TEST(user_map_roundtrip)
{
	struct pagetable *pgt = pgt_create();
	struct page *pg = page_alloc(0, PA_ZERO | PA_ANON);
	vaddr_t va = USER_TEXT_BASE + MiB(2);
	KEXPECT_EQ(pgt_map(pgt, va, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	KEXPECT_EQ(pgt->nr_tables, 3);
	KEXPECT_EQ(pgt_rss(pgt), 1);
	pgt_activate(pgt);
	user_access_begin();
	*(volatile uint32_t *)(va + 8) = 0xfeedf00d;
	user_access_end();
	KEXPECT_EQ(*(uint32_t *)((char *)page_va(pg) + 8), 0xfeedf00d);
	uint64_t vec, addr;
	if (mmu_smap_on)   /* SMAP: no user access outside the window */
		KEXPECT(ktest_catch_fault(read_byte, (void *)va, &vec, &addr));
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	KEXPECT_EQ(pgt_protect(&b, va, va + PAGE_SIZE, VM_READ, PGT_STRICT), 0);
	tlb_end(&b);
	user_access_begin();
	KEXPECT(ktest_catch_fault(write_byte, (void *)va, &vec, &addr));
	user_access_end();
	KEXPECT_EQ(addr, va);
	KEXPECT_EQ(pgt_check(pgt, 0, USER_HALF_END), 3);
	tlb_begin(&b, pgt);
	pgt_unmap(&b, va, va + PAGE_SIZE, PGT_STRICT);   /* drops the only reference */
	tlb_end(&b);                                     /* pg is free */
	KEXPECT_EQ(pg->type, PG_FREE);
	KEXPECT_EQ(pgt->nr_tables, 0);
	user_access_begin();
	KEXPECT(ktest_catch_fault(read_byte, (void *)va, &vec, &addr));
	user_access_end();
	pgt_activate(&kernel_pgt);
	pgt_destroy(pgt);
}

/* SMEP: the kernel never executes a user page, even an executable one. */
MM_TEST(smep)
{
	struct pagetable *pgt = pgt_create();
	struct page *pg = page_alloc(0, PA_ZERO | PA_ANON);
	*(uint8_t *)page_va(pg) = 0xc3;   /* ret */
	KEXPECT_EQ(pgt_map(pgt, USER_TEXT_BASE, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_EXEC), 0);
	pgt_activate(pgt);
	uint64_t vec, addr;
	struct mmu_features f;
	mmu_detect(&f);
	if (f.smep) {
		KEXPECT(ktest_catch_fault(call_code, (void *)USER_TEXT_BASE, &vec, &addr));
		KEXPECT_EQ(addr, USER_TEXT_BASE);
	}
	pgt_activate(&kernel_pgt);
	pgt_destroy(pgt);   /* also drops the frame */
}

/* More RAM than the boot page tables map (run with 2G): frames from above
 * 1 GiB are handed out and reachable through the new direct map. */
MM_TEST(high_memory)
{
	struct page *hi[8];
	int n = 0;
	if ((max_pfn << PAGE_SHIFT) <= GiB(1))
		return;
	struct page *pg;
	while (n < 8 && (pg = page_alloc(MAX_ORDER - 1, 0)) != NULL) {
		hi[n++] = pg;
		if (page_to_pa(pg) >= GiB(1))
			break;
	}
	KEXPECT(n > 0 && page_to_pa(hi[n - 1]) >= GiB(1));
	memset(page_va(hi[n - 1]), 0x3c, PAGE_SIZE << (MAX_ORDER - 1));
	KEXPECT_EQ(((uint8_t *)page_va(hi[n - 1]))[12345], 0x3c);
	while (n--)
		page_free(hi[n], MAX_ORDER - 1);
}

/* test=crash_stack: endless recursion on a kstack_alloc'ed stack must be
 * reported as a kernel stack overflow (tests/suites.txt expects that). */
static volatile int depth_limit = 1 << 30;   /* never reached */

static int recurse(volatile char *prev, int depth)
{
	volatile char buf[256];
	buf[0] = prev ? prev[0] + 1 : 0;
	if (depth == depth_limit)
		return 0;
	return recurse(buf, depth + 1) + buf[1];
}

static void overflow(void *arg)
{
	(void)arg;
	recurse(NULL, 0);
}

KTEST(crash_stack, overflow)
{
	arch_call_on_stack(kstack_alloc(), overflow, NULL);
}

/* test=crash_redzone (with mm_debug): a one-byte overrun of a kmalloc object
 * is caught at kfree, naming the object. */
KTEST(crash_redzone, overrun)
{
	char *p = kmalloc(24);
	p[24] = 1;
	kfree(p);
}

/* test=crash_double_free: the panic names the frame and the caller. */
KTEST(crash_double_free, page)
{
	struct page *pg = page_alloc(0, 0);
	page_free(pg, 0);
	page_free(pg, 0);
}

/* mm/tests/ptshare_test.c -- test=ptshare: page-table sharing on the real
 * MMU. Address spaces built in the kernel (as_create/as_mmap/as_write), forked
 * with as_fork_with under each strategy (copy, cow, share), written through the fault path
 * (as_write), checked with the invariant checker, and torn down with the
 * free-frame count back where it started. Writes by the CPU through CR3 are
 * covered from user space (usertests ptshare_*). */
#include "kernel/ktest.h"
#include "lib/errno.h"
#include "mm/as.h"
#include "mm/fault.h"
#include "mm/frame/kmalloc.h"
#include "mm/vma.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/ptshare.h"
#include "mm/vmcheck.h"
#include "arch/x86_64/memlayout.h"

#define BASE 0x10000000UL   /* 2 MiB aligned */
#define LEN (4 * LARGE_PAGE_SIZE)

/* The PT page mapping va in as (NULL if none). */
static struct page *pt_of(struct addrspace *as, vaddr_t va)
{
	pte_t *pde;
	if (pgt_walk(as->pgt, va, PGL_PD, 0, &pde) != PGL_PD || !pte_present(pte_read(pde)))
		return NULL;
	return pa_to_page(pte_addr(pte_read(pde)));
}

/* A parent with LEN bytes of anonymous memory, every page written. */
static struct addrspace *make_parent(void)
{
	struct addrspace *as = as_create();
	vaddr_t got;
	if (!as || as_mmap(as, BASE, LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0, &got) < 0)
		return NULL;
	for (vaddr_t va = BASE; va < BASE + LEN; va += PAGE_SIZE) {
		uint64_t v = va;
		as_write(as, va, &v, sizeof(v));
	}
	return as;
}

static uint64_t read_u64(struct addrspace *as, vaddr_t va)
{
	paddr_t pa;
	if (!pgt_lookup(as->pgt, va, &pa, NULL))
		return ~0UL;
	return *(uint64_t *)P2V(pa);
}

static void check_all(struct addrspace *a, struct addrspace *b)
{
	struct vmcheck c;
	KEXPECT_EQ(vmcheck_begin(&c), 0);
	vmcheck_add(&c, a);
	if (b)
		vmcheck_add(&c, b);
	vmcheck_finish(&c);
}

/* The frame mapping va in as (0 if none). */
static paddr_t frame_at(struct addrspace *as, vaddr_t va)
{
	paddr_t pa;
	return pgt_lookup(as->pgt, va, &pa, NULL) ? pa : 0;
}

/* fork under one strategy, write in the child and the parent, check. */
static void fork_and_write(enum fork_strategy s)
{
	uint64_t free0 = mm_stats.free;
	struct addrspace *p = make_parent();
	KEXPECT(p != NULL);
	struct addrspace *c = as_fork_with(p, s);
	KEXPECT(c != NULL);
	if (s == FORK_SHARE) {
		KEXPECT(pt_of(p, BASE) == pt_of(c, BASE));
		KEXPECT_EQ(pt_of(p, BASE)->pt.share, 2);
	} else {
		KEXPECT(pt_of(p, BASE) != pt_of(c, BASE));
	}
	/* only the eager copy gives the child frames of its own */
	KEXPECT_EQ(frame_at(p, BASE) == frame_at(c, BASE), s != FORK_COPY);
	check_all(p, c);
	uint64_t cow0 = fault_stats_sum().cow;
	uint64_t child_val = 0x1234;
	KEXPECT_EQ(as_write(c, BASE + PAGE_SIZE, &child_val, sizeof(child_val)), 0);
	KEXPECT_EQ(fault_stats_sum().cow == cow0, s == FORK_COPY);   /* copy: no COW fault */
	KEXPECT(pt_of(p, BASE) != pt_of(c, BASE));
	KEXPECT_EQ(read_u64(c, BASE + PAGE_SIZE), 0x1234);
	KEXPECT_EQ(read_u64(p, BASE + PAGE_SIZE), BASE + PAGE_SIZE);
	KEXPECT_EQ(read_u64(c, BASE + 3 * LARGE_PAGE_SIZE), BASE + 3 * LARGE_PAGE_SIZE);
	check_all(p, c);
	as_destroy(c);
	KEXPECT_EQ(read_u64(p, BASE + 2 * LARGE_PAGE_SIZE), BASE + 2 * LARGE_PAGE_SIZE);
	check_all(p, NULL);
	as_destroy(p);
	KEXPECT_EQ(mm_stats.free, free0);
}

KTEST(ptshare, fork_off)
{
	fork_and_write(FORK_COW);
}

KTEST(ptshare, fork_shared)
{
	fork_and_write(FORK_SHARE);
}

KTEST(ptshare, fork_copy)
{
	fork_and_write(FORK_COPY);
}

/* Every free frame, chained through the frames themselves. */
static struct page *take_all_frames(void)
{
	struct page *held = NULL;
	for (struct page *pg; (pg = page_alloc(0, 0)) != NULL;) {
		*(struct page **)page_va(pg) = held;
		held = pg;
	}
	return held;
}

static void give_back_frames(struct page *held)
{
	while (held) {
		struct page *next = *(struct page **)page_va(held);
		page_free(held, 0);
		held = next;
	}
}

/* mremap with no free frame in a fork child (issue 35): the page moved is
 * in a PT page shared with the parent, the target in a PT page of the
 * child's own (nothing to allocate there), the heap has room for the VMAs.
 * Unsharing the old range needs a frame: the move must fail with -ENOMEM
 * and change nothing. Before, move_vma ignored that -ENOMEM: the page was
 * mapped at both places, the old one under no VMA. */
KTEST(ptshare, mremap_out_of_memory_changes_nothing)
{
	uint64_t free0 = mm_stats.free;
	struct addrspace *p = make_parent();
	KEXPECT(p != NULL);
	struct addrspace *c = as_fork_with(p, FORK_SHARE);
	KEXPECT(c != NULL && pt_of(c, BASE) == pt_of(p, BASE));
	vaddr_t x = BASE + 8 * LARGE_PAGE_SIZE, got;
	KEXPECT_EQ(as_mmap(c, x, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0, &got), 0);
	uint64_t seven = 7;
	KEXPECT_EQ(as_write(c, x + PAGE_SIZE, &seven, sizeof(seven)), 0);
	void *room[16];   /* free slots for the VMAs the move makes, in a slab */
	for (int i = 0; i < 16; i++)   /* that stays (half of it in use) */
		room[i] = kmalloc(sizeof(struct vma));
	for (int i = 0; i < 16; i += 2)
		kfree(room[i]);
	struct page *held = take_all_frames();
	vaddr_t out, to = x + 2 * PAGE_SIZE;   /* in the VMA, never touched: */
	uint64_t free_before = mm_stats.free;   /* emptying it frees no frame */
	int r = as_mremap(c, BASE, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to, &out);
	KEXPECT_EQ(free_before, 0);
	give_back_frames(held);
	for (int i = 1; i < 16; i += 2)
		kfree(room[i]);
	KEXPECT_EQ(r, -ENOMEM);
	KEXPECT_EQ(read_u64(c, BASE), BASE);          /* still there, */
	KEXPECT(as_find_vma(c, BASE) != NULL);        /* under its VMA */
	KEXPECT(pt_of(c, BASE) == pt_of(p, BASE));    /* and still shared */
	check_all(p, c);
	KEXPECT_EQ(as_mremap(c, BASE, PAGE_SIZE, PAGE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
			     to, &out), 0);   /* with memory: moved */
	KEXPECT_EQ(read_u64(c, to), BASE);
	KEXPECT_EQ(read_u64(c, x + PAGE_SIZE), 7);
	KEXPECT_EQ(read_u64(c, BASE), ~0UL);
	KEXPECT_EQ(read_u64(p, BASE), BASE);
	check_all(p, c);
	as_destroy(c);
	as_destroy(p);
	KEXPECT_EQ(mm_stats.free, free0);
}

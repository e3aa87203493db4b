/* tests/unit/test_mm_pgtable.c -- the walker and the page-table API on
 * simulated RAM: map/unmap/protect round trips, present counts, table pages
 * freed when empty, sparse and dense walks, the kernel address space, and
 * the panics for mapping twice / unmapping nothing. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "mm/pt/kvm.h"
#include "mm/pt/kstack.h"
#include "mm/pt/pgtable_check.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"

#define RAM MiB(32)
#define UVA (USER_TEXT_BASE + MiB(2))

static void setup(void) { host_mm_setup(RAM, true); }

static paddr_t new_frame(void)
{
	return page_to_pa(page_alloc(0, PA_ZERO | PA_ANON));
}

START_TEST(test_map_lookup_unmap)
{
	struct pagetable *pgt = pgt_create();
	paddr_t pa = new_frame(), got;
	pte_t fl;
	ck_assert_int_eq(pgt_map(pgt, UVA, pa, PAGE_SIZE, VM_READ | VM_WRITE), 0);
	ck_assert(pgt_lookup(pgt, UVA + 0x123, &got, &fl));
	ck_assert_uint_eq(got, pa + 0x123);
	ck_assert(pte_user(fl) && pte_writable(fl) && !pte_exec(fl) && !pte_global(fl));
	ck_assert(!pgt_lookup(pgt, UVA + PAGE_SIZE, NULL, NULL));
	ck_assert_uint_eq(pgt->nr_tables, 3);   /* PDPT, PD, PT */
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->count, 1);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->pt.share, 1);
	ck_assert_uint_eq(pgt_rss(pgt), 1);
	host_unmap(pgt, UVA, UVA + PAGE_SIZE, PGT_STRICT);
	ck_assert(!pgt_lookup(pgt, UVA, NULL, NULL));
	ck_assert_uint_eq(pgt->nr_tables, 0);   /* empty tables freed */
	ck_assert_int_eq(pa_to_page(pa)->type, PG_FREE);   /* reference dropped */
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_protect)
{
	struct pagetable *pgt = pgt_create();
	pte_t fl;
	ck_assert_int_eq(pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ | VM_WRITE | VM_COW), 0);
	ck_assert(pgt_lookup(pgt, UVA, NULL, &fl));
	ck_assert(!pte_writable(fl) && pte_cow(fl));   /* COW maps read-only */
	ck_assert_int_eq(host_protect(pgt, UVA, UVA + PAGE_SIZE, VM_READ | VM_EXEC, PGT_STRICT), 0);
	ck_assert(pgt_lookup(pgt, UVA, NULL, &fl));
	ck_assert(!pte_writable(fl) && pte_exec(fl) && pte_user(fl) && pte_cow(fl));
	ck_assert_int_eq(host_protect(pgt, UVA, UVA + PAGE_SIZE, VM_READ | VM_WRITE, PGT_STRICT), 0);
	ck_assert(pgt_lookup(pgt, UVA, NULL, &fl));
	ck_assert(pte_writable(fl) && !pte_exec(fl));
	ck_assert_int_eq(host_protect(pgt, UVA + PAGE_SIZE, UVA + PAGE_SIZE + PAGE_SIZE, VM_READ, PGT_STRICT), -ENOENT);
	ck_assert_int_eq(host_protect(pgt, UVA + GiB(1), UVA + GiB(1) + PAGE_SIZE, VM_READ, PGT_STRICT), -ENOENT);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->count, 1);
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

/* Dense: 3 full PT pages plus one page; sparse: one page per 1 GiB. */
START_TEST(test_dense_and_sparse)
{
	struct pagetable *pgt = pgt_create();
	uint64_t n = 3 * PT_ENTRIES + 1;
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_eq(pgt_map(pgt, UVA + i * PAGE_SIZE, new_frame(), PAGE_SIZE, VM_READ), 0);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pgt_map(pgt, GiB(64) + (uint64_t)i * GiB(1), new_frame(), PAGE_SIZE, VM_READ), 0);
	ck_assert_uint_eq(pgt_rss(pgt), n + 8);
	ck_assert_uint_eq(pgt_check(pgt, 0, USER_HALF_END), 1 + 5 + 16);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->count, PT_ENTRIES);
	ck_assert_uint_eq(host_pt_of(pgt, UVA + 3 * LARGE_PAGE_SIZE)->count, 1);
	/* 1 PDPT; dense: 1 PD + 4 PT; sparse: 1 PDPT (another 512 GiB? no) ... */
	uint64_t tables = pgt->nr_tables;
	ck_assert_uint_eq(tables, 1 + (1 + 4) + 8 * 2);
	for (uint64_t i = 0; i < n; i += 2)   /* half of the dense range */
		host_unmap(pgt, UVA + i * PAGE_SIZE, UVA + i * PAGE_SIZE + PAGE_SIZE, PGT_STRICT);
	ck_assert_uint_eq(pgt_rss(pgt), n / 2 + 8);
	pgt_check(pgt, 0, USER_HALF_END);
	ck_assert_uint_eq(pgt->nr_tables, tables - 1);   /* the last PT emptied */
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], n / 2 + 8);
	pgt_destroy(pgt);   /* drops the rest */
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], 0);
	host_assert_no_leak();
}
END_TEST

/* A walk that counts callbacks: holes at the top for sparse ranges. */
struct counts { int pml4e, pdpte, pde, pte, hole, done; };
#define COUNTER(f) \
	static int count_##f(struct walk *w) \
	{ ((struct counts *)w->arg)->f++; return 0; }
COUNTER(pml4e) COUNTER(pdpte) COUNTER(pde) COUNTER(pte) COUNTER(hole) COUNTER(done)

static const struct walk_ops count_ops = {
	.pml4e = count_pml4e, .pdpte = count_pdpte, .pde = count_pde, .pte = count_pte,
	.hole = count_hole, .table_done = count_done,
};

START_TEST(test_walker_callbacks)
{
	struct pagetable *pgt = pgt_create();
	struct counts c = { 0 };
	struct walk w = { .ops = &count_ops, .pgt = pgt, .arg = &c };
	ck_assert_int_eq(walk_range(&w, 0, USER_HALF_END), 0);
	ck_assert_int_eq(c.hole, 256);   /* empty user half: one hole per PML4 slot */
	ck_assert_int_eq(c.pte + c.pml4e + c.done, 0);
	ck_assert_int_eq(pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ), 0);
	ck_assert_int_eq(pgt_map(pgt, UVA + 2 * PAGE_SIZE, new_frame(), PAGE_SIZE, VM_READ), 0);
	c = (struct counts){ 0 };
	ck_assert_int_eq(walk_range(&w, UVA, UVA + 4 * PAGE_SIZE), 0);
	ck_assert_int_eq(c.pml4e, 1);
	ck_assert_int_eq(c.pdpte, 1);
	ck_assert_int_eq(c.pde, 1);
	ck_assert_int_eq(c.pte, 2);
	ck_assert_int_eq(c.hole, 2);
	ck_assert_int_eq(c.done, 3);
	/* allocation of missing levels */
	struct walk a = { .ops = &count_ops, .pgt = pgt, .arg = &c, .alloc = true };
	uint64_t t = pgt->nr_tables;
	ck_assert_int_eq(walk_range(&a, GiB(2), GiB(2) + PAGE_SIZE), 0);
	ck_assert_uint_eq(pgt->nr_tables, t + 2);   /* a PD and a PT */
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_cr3_and_flushes)
{
	struct pagetable *pgt = pgt_create();
	int writes = host_pv.cr3_writes;
	pgt_activate(pgt);
	ck_assert_int_eq(host_pv.cr3_writes, writes + 1);
	ck_assert_uint_eq(host_pv.cr3, pgt_root_pa(pgt));
	ck_assert(pgt_active(pgt));
	ck_assert_int_eq(pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ), 0);
	int f = host_pv.flush_one;
	host_unmap(pgt, UVA, UVA + PAGE_SIZE, PGT_STRICT);
	ck_assert_int_eq(host_pv.flush_one, f + 1);
	ck_assert_uint_eq(host_pv.last_flush, UVA);
	pgt_activate(&kernel_pgt);
	ck_assert_int_eq(pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ), 0);
	host_unmap(pgt, UVA, UVA + PAGE_SIZE, PGT_STRICT);   /* not active: nothing to flush */
	ck_assert_int_eq(host_pv.flush_one, f + 1);
	ck_assert_int_eq(host_pv.alloc_pt - host_pv.release_pt,
			 (int)mm_stats.by_type[PG_PAGETABLE]);
	pgt_destroy(pgt);
	ck_assert_int_eq(host_pv.alloc_pt - host_pv.release_pt,
			 (int)mm_stats.by_type[PG_PAGETABLE]);
}
END_TEST

START_TEST(test_kernel_space)
{
	pte_t fl;
	paddr_t pa;
	vaddr_t img = KERNEL_VMA + HOST_IMAGE_PA;
	ck_assert(pgt_lookup(&kernel_pgt, img, &pa, &fl));
	ck_assert_uint_eq(pa, HOST_IMAGE_PA);
	ck_assert(pte_exec(fl) && !pte_writable(fl) && pte_global(fl) && !pte_user(fl));
	ck_assert(pgt_lookup(&kernel_pgt, img + HOST_IMAGE_SEG, NULL, &fl));
	ck_assert(!pte_exec(fl) && !pte_writable(fl));
	ck_assert(pgt_lookup(&kernel_pgt, img + 2 * HOST_IMAGE_SEG, NULL, &fl));
	ck_assert(!pte_exec(fl) && pte_writable(fl));
	ck_assert(!pgt_lookup(&kernel_pgt, img + HOST_IMAGE_LEN, NULL, NULL));
	ck_assert(pgt_lookup(&kernel_pgt, DIRECT_MAP_BASE + MiB(5) + 7, &pa, &fl));
	ck_assert_uint_eq(pa, MiB(5) + 7);
	ck_assert(pte_huge(fl) && !pte_exec(fl) && pte_writable(fl) && pte_global(fl));
	ck_assert_uint_eq(kvm_dmap_page_size(), LARGE_PAGE_SIZE);
	ck_assert_uint_gt(pgt_check(&kernel_pgt, DIRECT_MAP_BASE, 0), 3);
	ck_assert(!pgt_lookup(&kernel_pgt, 0x100000, NULL, NULL));   /* no identity map */
	/* a user space shares the kernel half */
	struct pagetable *pgt = pgt_create();
	ck_assert(pgt_lookup(pgt, img, &pa, NULL));
	ck_assert_uint_eq(pa, HOST_IMAGE_PA);
	pgt_destroy(pgt);
}
END_TEST

START_TEST(test_kstack)
{
	uint8_t *top = kstack_alloc(), *top2 = kstack_alloc();
	ck_assert_ptr_nonnull(top);
	ck_assert_uint_eq((vaddr_t)top2 - (vaddr_t)top, KSTACK_SLOT);
	for (vaddr_t va = (vaddr_t)top - KSTACK_SIZE; va < (vaddr_t)top; va += PAGE_SIZE)
		ck_assert(pgt_lookup(&kernel_pgt, va, NULL, NULL));
	ck_assert(!pgt_lookup(&kernel_pgt, (vaddr_t)top - KSTACK_SIZE - PAGE_SIZE, NULL, NULL));
	kstack_free(top);
	kstack_free(top2);
	ck_assert(!pgt_lookup(&kernel_pgt, (vaddr_t)top - PAGE_SIZE, NULL, NULL));
	host_assert_no_leak();
	host_dirty_free_frames(0xa5);   /* a new stack's frames are written whole */
	ck_assert_ptr_eq(kstack_alloc(), top);   /* slot reused */
	for (vaddr_t va = (vaddr_t)top - KSTACK_SIZE; va < (vaddr_t)top; va += PAGE_SIZE) {
		paddr_t pa;
		ck_assert(pgt_lookup(&kernel_pgt, va, &pa, NULL));
		ck_assert_msg(host_all_zero(P2V(pa), PAGE_SIZE), "stack page %#lx", va);
	}
}
END_TEST

/* The pool: its stacks come back mapped and are handed out again; a stack
 * mapped because the pool was empty is unmapped when freed; the free frames
 * after a burst of more stacks than the pool holds equal those before it;
 * shrinking the pool unmaps its free stacks. */
START_TEST(test_kstack_pool)
{
	ck_assert_int_eq(kstack_set_pool(2), 0);
	uint64_t free_with_pool = mm_stats.free;
	ck_assert_uint_eq(kstack_pool_free(), 2);
	void *a = kstack_alloc(), *b = kstack_alloc(), *c = kstack_alloc();
	ck_assert_uint_eq(kstack_pool_free(), 0);
	ck_assert_uint_eq(free_with_pool - mm_stats.free, KSTACK_SIZE / PAGE_SIZE);   /* c only */
	kstack_free(c);
	ck_assert(!pgt_lookup(&kernel_pgt, (vaddr_t)c - PAGE_SIZE, NULL, NULL));
	kstack_free(a);
	kstack_free(b);
	ck_assert_uint_eq(kstack_pool_free(), 2);
	ck_assert(pgt_lookup(&kernel_pgt, (vaddr_t)a - PAGE_SIZE, NULL, NULL));
	ck_assert_uint_eq(mm_stats.free, free_with_pool);
	ck_assert_ptr_eq(kstack_alloc(), b);   /* last in, first out, no new frames */
	ck_assert_uint_eq(free_with_pool, mm_stats.free);
	ck_assert_int_eq(kstack_set_pool(0), 0);   /* a free one goes at once ... */
	ck_assert_uint_eq(kstack_pool_free(), 0);
	ck_assert(!pgt_lookup(&kernel_pgt, (vaddr_t)a - PAGE_SIZE, NULL, NULL));
	kstack_free(b);                             /* ... one in use when freed */
	ck_assert(!pgt_lookup(&kernel_pgt, (vaddr_t)b - PAGE_SIZE, NULL, NULL));
	ck_assert_uint_eq(kstack_pool_free(), 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_kstack_free_pooled_twice)
{
	ck_assert_int_eq(kstack_set_pool(1), 0);
	void *top = kstack_alloc();
	kstack_free(top);
	kstack_free(top);   /* free in the pool already: panics */
}
END_TEST

START_TEST(test_map_oom_all_or_nothing)
{
	struct pagetable *pgt = pgt_create();
	struct list held;
	host_exhaust(&held);
	/* room for nothing: the map fails cleanly */
	ck_assert_int_eq(pgt_map(pgt, UVA, HOST_IMAGE_PA, PAGE_SIZE, VM_READ), -ENOMEM);
	ck_assert_uint_eq(pgt->nr_tables, 0);
	/* room for a PDPT and PD only: tables are given back */
	struct page *two[2];
	two[0] = list_entry(held.next, struct page, link);
	list_del(&two[0]->link);
	two[1] = list_entry(held.next, struct page, link);
	list_del(&two[1]->link);
	page_free(two[0], 0);
	page_free(two[1], 0);
	ck_assert_int_eq(pgt_map(pgt, UVA, HOST_IMAGE_PA, 2 * PAGE_SIZE, VM_READ), -ENOMEM);
	ck_assert_uint_eq(pgt->nr_tables, 0);
	ck_assert_uint_eq(mm_stats.free, 2);
	host_release_all(&held);
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_map_twice)
{
	struct pagetable *pgt = pgt_create();
	pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ);
	pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ);
}
END_TEST

START_TEST(test_unmap_absent)
{
	struct pagetable *pgt = pgt_create();
	pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ);
	host_unmap(pgt, UVA + PAGE_SIZE, UVA + PAGE_SIZE + PAGE_SIZE, PGT_STRICT);
}
END_TEST

START_TEST(test_check_catches_bad_count)
{
	struct pagetable *pgt = pgt_create();
	pgt_map(pgt, UVA, new_frame(), PAGE_SIZE, VM_READ);
	pgt_check(pgt, 0, USER_HALF_END);
	host_pt_of(pgt, UVA)->count++;
	pgt_check(pgt, 0, USER_HALF_END);
}
END_TEST

START_TEST(test_check_catches_free_frame)
{
	struct pagetable *pgt = pgt_create();
	struct page *pg = page_alloc(0, 0);
	pgt_map(pgt, UVA, page_to_pa(pg), PAGE_SIZE, VM_READ);
	page_free(pg, 0);   /* freed while still mapped */
	pgt_check(pgt, 0, USER_HALF_END);
}
END_TEST

START_TEST(test_destroy_active)
{
	struct pagetable *pgt = pgt_create();
	pgt_activate(pgt);
	pgt_destroy(pgt);
}
END_TEST

START_TEST(test_kstack_free_bad)
{
	void *top = kstack_alloc();
	kstack_free((char *)top - PAGE_SIZE);
}
END_TEST

/* pgt_walk: the entry at every level, holes, allocation, large pages,
 * non-canonical addresses, out of memory. */
START_TEST(test_point_walk)
{
	struct pagetable *pgt = pgt_create();
	pte_t *ep, *pt_ep;
	ck_assert_int_eq(pgt_walk(pgt, UVA, PGL_PT, 0, &ep), 0);   /* no tables yet */
	ck_assert_ptr_null(ep);
	ck_assert_int_eq(pgt_walk(pgt, UVA, PGL_PML4, 0, &ep), PGL_PML4);
	ck_assert_ptr_eq(ep, &pt_root(pgt)[pgl_index(UVA, PGL_PML4)]);
	ck_assert_uint_eq(pte_read(ep), 0);
	ck_assert_int_eq(pgt_walk(pgt, UVA, PGL_PT, PGT_WALK_ALLOC, &pt_ep), PGL_PT);
	ck_assert_uint_eq(pgt->nr_tables, 3);
	ck_assert_uint_eq(pte_read(pt_ep), 0);
	ck_assert_uint_eq(ptpage_of(pt_ep)->pt.level, PGL_PT);
	ck_assert_int_eq(pgt_walk(pgt, UVA + 0x123, PGL_PT, 0, &ep), PGL_PT);
	ck_assert_ptr_eq(ep, pt_ep);
	for (int level = PGL_PD; level <= PGL_PML4; level++) {   /* each entry points below */
		ck_assert_int_eq(pgt_walk(pgt, UVA, level, 0, &ep), level);
		ck_assert_uint_eq(pte_addr(pte_read(ep)), page_to_pa(ptpage_of(pt_ep)));
		pt_ep = ep;
	}
	/* a hole below an existing PDPT: the PD entry exists, no PT */
	ck_assert_int_eq(pgt_walk(pgt, UVA + GiB(1), PGL_PT, 0, &ep), 0);
	ck_assert_int_eq(pgt_walk(pgt, UVA + GiB(1), PGL_PDPT, 0, &ep), PGL_PDPT);
	ck_assert_uint_eq(pte_read(ep), 0);
	ck_assert_uint_eq(pgt->nr_tables, 3);   /* nothing allocated without the flag */
	/* non-canonical: no entry, allocation or not */
	ck_assert_int_eq(pgt_walk(pgt, 0x0000800000000000UL, PGL_PT, PGT_WALK_ALLOC, &ep), 0);
	ck_assert_ptr_null(ep);
	/* a 2 MiB direct-map page: the PD leaf */
	ck_assert_int_eq(pgt_walk(&kernel_pgt, DIRECT_MAP_BASE + MiB(3), PGL_PT, 0, &ep), PGL_PD);
	ck_assert(pte_huge(pte_read(ep)));
	/* out of memory: -ENOMEM */
	struct list held;
	host_exhaust(&held);
	ck_assert_int_eq(pgt_walk(pgt, UVA + GiB(1), PGL_PT, PGT_WALK_ALLOC, &ep), -ENOMEM);
	host_release_all(&held);
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

/* A COW break looks at the entry, copies, then replaces: a replace whose
 * expected entry is no longer there (another thread's fault replaced it,
 * or an MADV_DONTNEED unmapped it) changes nothing and says -EAGAIN; the
 * caller keeps its frame. Before, the second break overwrote the first
 * one's frame and that thread's writes were lost. */
START_TEST(test_replace_stale_entry_is_eagain)
{
	struct pagetable *pgt = pgt_create();
	struct page *orig = page_alloc(0, PA_ZERO | PA_ANON);
	struct page *first = page_alloc(0, PA_ZERO | PA_ANON);
	struct page *second = page_alloc(0, PA_ZERO | PA_ANON);
	ck_assert_int_eq(pgt_map(pgt, UVA, page_to_pa(orig), PAGE_SIZE, VM_READ | VM_COW), 0);
	paddr_t pa;
	pte_t flags;
	ck_assert(pgt_lookup(pgt, UVA, &pa, &flags));
	pte_t seen = pte_make(pa, flags);      /* both "threads" looked now */
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	ck_assert_int_eq(pgt_replace(&b, UVA, seen, page_to_pa(first), VM_READ | VM_WRITE, NULL), 0);
	ck_assert_int_eq(pgt_replace(&b, UVA, seen, page_to_pa(second), VM_READ | VM_WRITE, NULL),
			 -EAGAIN);
	tlb_end(&b);
	ck_assert(pgt_lookup(pgt, UVA, &pa, &flags) && pa == page_to_pa(first));
	ck_assert_uint_eq(second->refcount, 1);  /* still the caller's */
	page_put(second);
	tlb_begin(&b, pgt);
	pgt_unmap(&b, UVA, UVA + PAGE_SIZE, PGT_STRICT);
	ck_assert_int_eq(pgt_replace(&b, UVA, seen, page_to_pa(first), VM_READ, NULL), -EAGAIN);
	tlb_end(&b);
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

/* A COW break that reuses the frame (the last sharer) replaces the entry
 * by one to the same frame: the entry's reference carries over, none is
 * added or dropped. Before, the caller took a second reference for the new
 * entry and pgt_replace dropped the old one after the flush, so for a
 * moment a writable entry mapped a frame with two references (pv=checked
 * panicked: "copy-on-write broken"). */
START_TEST(test_replace_same_frame_keeps_reference)
{
	struct pagetable *pgt = pgt_create();
	struct page *pg = page_alloc(0, PA_ZERO | PA_ANON);
	ck_assert_int_eq(pgt_map(pgt, UVA, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_COW), 0);
	paddr_t pa;
	pte_t flags;
	ck_assert(pgt_lookup(pgt, UVA, &pa, &flags));
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	ck_assert_int_eq(pgt_replace(&b, UVA, pte_make(pa, flags), pa, VM_READ | VM_WRITE, NULL), 0);
	ck_assert_uint_eq(pg->refcount, 1);
	tlb_end(&b);
	ck_assert_uint_eq(pg->refcount, 1);
	ck_assert(pgt_lookup(pgt, UVA, &pa, &flags) && pa == page_to_pa(pg));
	ck_assert(pte_writable(flags) && !pte_cow(flags));
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

/* Every entry-changing call notes its change in the caller's batch: no
 * flush and no frame freed before tlb_end, then the flush, then the free. */
START_TEST(test_changes_flush_in_batch)
{
	struct pagetable *pgt = pgt_create();
	struct page *pg[3];
	for (int i = 0; i < 3; i++) {
		pg[i] = page_alloc(0, PA_ZERO | PA_ANON);
		ck_assert_int_eq(pgt_map(pgt, UVA + i * PAGE_SIZE, page_to_pa(pg[i]), PAGE_SIZE,
					 VM_READ | VM_WRITE), 0);
	}
	pgt_activate(pgt);
	struct page *copy = page_alloc(0, PA_ZERO | PA_ANON);
	int flushes = host_pv.flush_one + host_pv.flush_all + host_pv.flush_user;
	int full = host_pv.flush_user;
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	ck_assert_int_eq(pgt_protect(&b, UVA, UVA + 3 * PAGE_SIZE, VM_READ, PGT_STRICT), 0);
	paddr_t now;
	pte_t flags;
	ck_assert(pgt_lookup(pgt, UVA + PAGE_SIZE, &now, &flags));
	ck_assert_int_eq(pgt_replace(&b, UVA + PAGE_SIZE, pte_make(now, flags), page_to_pa(copy),
				     VM_READ, NULL), 0);
	pgt_unmap(&b, UVA + 2 * PAGE_SIZE, UVA + 3 * PAGE_SIZE, PGT_STRICT);
	ck_assert_int_eq(host_pv.flush_one + host_pv.flush_all + host_pv.flush_user, flushes);
	ck_assert_uint_eq(pg[1]->refcount, 1);   /* replaced, unmapped: kept until the flush */
	ck_assert_uint_eq(pg[2]->refcount, 1);
	tlb_end(&b);
	ck_assert_int_eq(host_pv.flush_user, full + 1);   /* three pages changed: one flush */
	ck_assert_uint_eq(pg[1]->type, PG_FREE);
	ck_assert_uint_eq(pg[2]->type, PG_FREE);
	pte_t fl;
	ck_assert(pgt_lookup(pgt, UVA, NULL, &fl) && !pte_writable(fl));
	pgt_activate(&kernel_pgt);
	pgt_destroy(pgt);
	host_assert_no_leak();
}
END_TEST

static Suite *pgtable_suite(void)
{
	Suite *s = suite_create("mm_pgtable");
	TCase *tc = host_tcase(s, "core", setup, host_mm_teardown);
	tcase_add_test(tc, test_map_lookup_unmap);
	tcase_add_test(tc, test_protect);
	tcase_add_test(tc, test_dense_and_sparse);
	tcase_add_test(tc, test_walker_callbacks);
	tcase_add_test(tc, test_cr3_and_flushes);
	tcase_add_test(tc, test_kernel_space);
	tcase_add_test(tc, test_kstack);
	tcase_add_test(tc, test_kstack_pool);
	tcase_add_test(tc, test_map_oom_all_or_nothing);
	tcase_add_test(tc, test_point_walk);
	tcase_add_test(tc, test_replace_stale_entry_is_eagain);
	tcase_add_test(tc, test_replace_same_frame_keeps_reference);
	tcase_add_test(tc, test_changes_flush_in_batch);

	TCase *bad = host_tcase(s, "panics", setup, host_mm_teardown);
	tcase_add_test_raise_signal(bad, test_map_twice, SIGABRT);
	tcase_add_test_raise_signal(bad, test_unmap_absent, SIGABRT);
	tcase_add_test_raise_signal(bad, test_destroy_active, SIGABRT);
	tcase_add_test_raise_signal(bad, test_check_catches_bad_count, SIGABRT);
	tcase_add_test_raise_signal(bad, test_check_catches_free_frame, SIGABRT);
	tcase_add_test_raise_signal(bad, test_kstack_free_bad, SIGABRT);
	tcase_add_test_raise_signal(bad, test_kstack_free_pooled_twice, SIGABRT);
	return s;
}

int main(void)
{
	return host_run_suite(pgtable_suite());
}

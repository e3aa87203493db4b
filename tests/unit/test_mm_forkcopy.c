/* tests/unit/test_mm_forkcopy.c -- the eager fork copy (pgt_dup, the
 * benchmark's `copy` strategy) on simulated RAM: the child gets its own
 * frames with equal contents, refcounts stay 1, the child's entries are
 * writable and not COW (no fault on its first write), the parent does not
 * change, shared and file frames are shared instead, running out of memory
 * leaves nothing behind, teardown frees everything; and the three fork
 * strategies (pgt_dup, pgt_copy, pgt_share) give the same contents. */
#include <check.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "lib/errno.h"
#include "mm/as.h"
#include "mm/pt/pgtable_check.h"
#include "mm/pt/tlb.h"
#include "mm/pt/pgtable.h"
#include "mm/ptshare.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(64)
#define BASE (USER_TEXT_BASE + MiB(4))   /* 2 MiB aligned */
#define NPAGES 700                       /* two PT pages, the second partly */
#define END (BASE + NPAGES * PAGE_SIZE)

static uint64_t free0;
static void setup(void)
{
	host_mm_setup(RAM, true);
	free0 = mm_stats.free;
}
static void teardown(void) { host_mm_teardown(); }

/* The frame mapping va in pgt and its leaf entry (va must be mapped). */
static struct page *frame_of(struct pagetable *pgt, vaddr_t va, pte_t *e)
{
	paddr_t pa;
	ck_assert(pgt_lookup(pgt, va, &pa, e));
	return pa_to_page(ALIGN_DOWN(pa, PAGE_SIZE));
}

/* Fill page i of a mapping with bytes derived from i and seed. */
static void fill(struct page *pg, unsigned i, unsigned seed)
{
	memset(page_va(pg), (int)(i * 7 + seed), PAGE_SIZE);
	((uint32_t *)page_va(pg))[1] = i;
}

/* Map NPAGES private anonymous pages at BASE with prot, each filled. */
static void map_filled(struct pagetable *pgt, unsigned prot, unsigned seed)
{
	for (unsigned i = 0; i < NPAGES; i++) {
		struct page *pg = page_alloc(0, PA_ANON);
		ck_assert_ptr_nonnull(pg);
		fill(pg, i, seed);
		ck_assert_int_eq(pgt_map(pgt, BASE + i * PAGE_SIZE, page_to_pa(pg), PAGE_SIZE, prot), 0);
	}
}

/* Do a and b map pages with the same contents over [BASE, END)? */
static void same_contents(struct pagetable *a, struct pagetable *b)
{
	for (vaddr_t va = BASE; va < END; va += PAGE_SIZE)
		ck_assert_int_eq(memcmp(page_va(frame_of(a, va, NULL)),
					page_va(frame_of(b, va, NULL)), PAGE_SIZE), 0);
}

START_TEST(test_copy_private_frames)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_filled(p, VM_READ | VM_WRITE, 1);
	uint64_t anon0 = mm_stats.by_type[PG_ANON];
	ck_assert_int_eq(pgt_dup(c, p, BASE, END, PROT_READ | PROT_WRITE, false), 0);
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], 2 * anon0);
	ck_assert_uint_eq(pgt_rss(c), NPAGES);
	same_contents(p, c);
	for (vaddr_t va = BASE; va < END; va += PAGE_SIZE) {
		pte_t pe, ce;
		struct page *pf = frame_of(p, va, &pe), *cf = frame_of(c, va, &ce);
		ck_assert_ptr_ne(pf, cf);
		ck_assert_uint_eq(pf->refcount, 1);
		ck_assert_uint_eq(cf->refcount, 1);
		ck_assert_uint_eq(cf->type, PG_ANON);
		/* both writable, neither COW: no fault on either side's write */
		ck_assert(pte_writable(ce) && !pte_cow(ce) && pte_user(ce));
		ck_assert(pte_writable(pe) && !pte_cow(pe));
	}
	/* the child's write stays in the child */
	memset(page_va(frame_of(c, BASE, NULL)), 0xee, PAGE_SIZE);
	ck_assert_uint_eq(*(uint8_t *)page_va(frame_of(p, BASE, NULL)), 1);
	pgt_destroy(c);
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], anon0);
	pgt_destroy(p);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* A parent whose pages are COW (after a classic fork) still gives the
 * eager child writable private pages; a read-only VMA gives read-only ones. */
START_TEST(test_copy_follows_vma_prot)
{
	struct pagetable *p = pgt_create(), *q = pgt_create(), *c = pgt_create(),
			 *r = pgt_create();
	map_filled(p, VM_READ | VM_WRITE, 2);
	ck_assert_int_eq(host_fork_copy(q, p, BASE, END, 0), 0);   /* p's pages now COW */
	pte_t pe, ce, re;
	frame_of(p, BASE, &pe);
	ck_assert(pte_cow(pe) && !pte_writable(pe));
	ck_assert_int_eq(pgt_dup(c, p, BASE, END, PROT_READ | PROT_WRITE, false), 0);
	ck_assert_int_eq(pgt_dup(r, p, BASE, END, PROT_READ, false), 0);
	struct page *pf = frame_of(p, BASE, NULL);
	ck_assert_uint_eq(pf->refcount, 2);                       /* p and q */
	ck_assert_ptr_ne(frame_of(c, BASE, &ce), pf);
	ck_assert(pte_writable(ce) && !pte_cow(ce));
	frame_of(r, BASE, &re);
	ck_assert(!pte_writable(re) && !pte_cow(re));
	same_contents(p, c);
	same_contents(p, r);
	pgt_destroy(p);
	pgt_destroy(c);
	pgt_destroy(r);
	pgt_destroy(q);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* MAP_SHARED ranges and file frames are mapped as they are, not copied. */
START_TEST(test_copy_shares_shared_and_file_frames)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_filled(p, VM_READ | VM_WRITE | VM_SHARED, 3);
	struct page *file = page_alloc(0, PA_FILE);
	ck_assert_ptr_nonnull(file);
	ck_assert_int_eq(pgt_map(p, END, page_to_pa(file), PAGE_SIZE, VM_READ | VM_FILE), 0);
	ck_assert_int_eq(pgt_dup(c, p, BASE, END, PROT_READ | PROT_WRITE, true), 0);
	ck_assert_int_eq(pgt_dup(c, p, END, END + PAGE_SIZE, PROT_READ, false), 0);
	pte_t pe, ce;
	ck_assert_ptr_eq(frame_of(c, BASE, &ce), frame_of(p, BASE, &pe));
	ck_assert_uint_eq(pe, ce);
	ck_assert_uint_eq(frame_of(p, BASE, NULL)->refcount, 2);
	ck_assert_ptr_eq(frame_of(c, END, NULL), file);
	ck_assert_uint_eq(file->refcount, 2);
	pgt_destroy(c);
	ck_assert_uint_eq(file->refcount, 1);
	pgt_destroy(p);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* Out of frames half way: -ENOMEM, the parent intact, and destroying the
 * partial child frees all it got. */
START_TEST(test_copy_out_of_memory)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_filled(p, VM_READ | VM_WRITE, 4);
	struct list held;
	host_exhaust(&held);
	struct page *pg, *spare[NPAGES / 2];
	for (unsigned i = 0; i < NPAGES / 2; i++) {   /* give back half a child's worth */
		pg = container_of(held.next, struct page, link);
		list_del(&pg->link);
		spare[i] = pg;
	}
	for (unsigned i = 0; i < NPAGES / 2; i++)
		page_put(spare[i]);
	ck_assert_int_eq(pgt_dup(c, p, BASE, END, PROT_READ | PROT_WRITE, false), -ENOMEM);
	ck_assert_uint_lt(pgt_rss(c), NPAGES);
	pgt_destroy(c);
	host_release_all(&held);
	ck_assert_uint_eq(pgt_rss(p), NPAGES);
	ck_assert_uint_eq(frame_of(p, BASE, NULL)->refcount, 1);
	pgt_destroy(p);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* copy, cow and share give the child the same contents as the parent. */
START_TEST(test_three_strategies_same_contents)
{
	struct pagetable *p = pgt_create(), *c[3];
	map_filled(p, VM_READ | VM_WRITE, 5);
	struct vma v = { .start = BASE, .end = END, .prot = PROT_READ | PROT_WRITE,
			 .flags = VM_ANON };
	for (int i = 0; i < 3; i++)
		c[i] = pgt_create();
	ck_assert_int_eq(pgt_dup(c[FORK_COPY], p, BASE, END, v.prot, false), 0);
	ck_assert_int_eq(host_fork_copy(c[FORK_COW], p, BASE, END, 0), 0);
	ck_assert_int_eq(host_fork_share(c[FORK_SHARE], p, &v), 0);
	for (int i = 0; i < 3; i++) {
		same_contents(p, c[i]);
		ck_assert_uint_eq(pgt_rss(c[i]), NPAGES);
	}
	/* one private copy, plus the parent's frame shared by p, cow and share */
	ck_assert_uint_eq(frame_of(p, BASE, NULL)->refcount, 2);
	for (int i = 0; i < 3; i++)
		pgt_destroy(c[i]);
	ck_assert_uint_eq(frame_of(p, BASE, NULL)->refcount, 1);
	pgt_destroy(p);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

/* PROT_NONE (issue 14, defect 5): the entries become not present with
 * PTE_PROTNONE, keeping their frames: counted in RSS and the PT page's
 * count, copied by fork, given back their access by mprotect, and freed by
 * teardown; the tables stay consistent (pgt_check). */
START_TEST(test_prot_none_not_present)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_filled(p, VM_READ | VM_WRITE, 3);
	ck_assert_int_eq(host_protect(p, BASE, END, VM_NONE, 0), 0);
	pte_t e;
	struct page *pg = frame_of(p, BASE, &e);
	ck_assert(!pte_present(e) && pte_protnone(e) && !pte_user(e));
	ck_assert_uint_eq(pgt_rss(p), NPAGES);
	pgt_check(p, 0, USER_TOP);
	ck_assert_int_eq(host_fork_copy(c, p, BASE, END, 0), 0);
	ck_assert_ptr_eq(frame_of(c, BASE, &e), pg);
	ck_assert(pte_protnone(e) && pte_cow(e));
	ck_assert_uint_eq(pg->refcount, 2);
	ck_assert_int_eq(host_protect(c, BASE, END, VM_READ | VM_WRITE, 0), 0);
	ck_assert_ptr_eq(frame_of(c, BASE, &e), pg);
	ck_assert(pte_present(e) && pte_user(e) && !pte_protnone(e) && !pte_writable(e));
	same_contents(p, c);
	pgt_check(c, 0, USER_TOP);
	pgt_destroy(c);
	pgt_destroy(p);
	ck_assert_uint_eq(mm_stats.free, free0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mm_forkcopy");
	TCase *tc = tcase_create("forkcopy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_copy_private_frames);
	tcase_add_test(tc, test_copy_follows_vma_prot);
	tcase_add_test(tc, test_copy_shares_shared_and_file_frames);
	tcase_add_test(tc, test_copy_out_of_memory);
	tcase_add_test(tc, test_three_strategies_same_contents);
	tcase_add_test(tc, test_prot_none_not_present);
	suite_add_tcase(s, tc);
	return host_run_suite(s);
}

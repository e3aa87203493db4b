/* tests/unit/test_pv_ptcheck.c -- what the checking pv backend relies on,
 * on simulated RAM: the entry-write rules of mm/pt/ptwrite_check.c, and splitting
 * the direct map into 4 KiB pages (mm/pt/kvm.c) so that single frames can be
 * protected. */
#include <check.h>
#include "tests/unit/host_mm.h"
#include "mm/frame/lru.h"
#include "mm/pt/kvm.h"
#include "mm/pt/pgtable_check.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptwrite_check.h"
#include "mm/pt/ptpage.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(16)
#define USER_RW (PTE_P | PTE_U | PTE_W)

static struct page *pt, *pd, *anon, *kern;

static void setup(void)
{
	host_mm_setup(RAM, true);
	pt = ptpage_alloc(PGL_PT);
	pd = ptpage_alloc(PGL_PD);
	anon = page_alloc(0, PA_ANON);
	kern = page_alloc(0, 0);
	ck_assert(pt && pd && anon && kern);
}

static const char *check_pte(struct page *f, pte_t flags)
{
	return ptwrite_check(ptpage_entries(pt), PGL_PT, pte_make(page_to_pa(f), flags));
}

static const char *check_pde(struct page *f, pte_t flags)
{
	return ptwrite_check(ptpage_entries(pd), PGL_PD, pte_make(page_to_pa(f), flags));
}

START_TEST(test_user_leaf_rules)
{
	ck_assert_ptr_null(check_pte(anon, USER_RW));
	ck_assert_ptr_nonnull(check_pte(kern, USER_RW));
	ck_assert_ptr_nonnull(check_pte(pd, PTE_P | PTE_U));
	anon->refcount = 0;
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));
	anon->refcount = 1;
	ck_assert_ptr_null(ptwrite_check(ptpage_entries(pt), PGL_PT, 0));
}
END_TEST

/* A private writable mapping of a frame someone else maps too is broken
 * copy-on-write; read-only, COW or MAP_SHARED it is fine. */
START_TEST(test_private_writable_needs_one_reference)
{
	page_get(anon);
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));
	ck_assert_ptr_null(check_pte(anon, PTE_P | PTE_U | PTE_COW));
	ck_assert_ptr_null(check_pte(anon, USER_RW | PTE_SHARED));
	page_put(anon);
	ck_assert_ptr_null(check_pte(anon, USER_RW));
}
END_TEST

/* The reclaimer's hold is no mapping: a writable private entry of a page
 * it holds (written by its own aging, or by a fault meanwhile) is fine,
 * and a hold is no licence for a second mapping. Failed before the hold
 * was marked on the MADV_COLD path (make fuzz, vmtester-pvchecked: "more
 * than one reference ... written by page_out_pte"). */
START_TEST(test_reclaimer_hold_is_no_mapping)
{
	ck_assert(page_hold(anon));
	ck_assert_uint_eq(anon->refcount, 2);
	ck_assert(!page_hold(anon));   /* held already */
	ck_assert_ptr_null(check_pte(anon, USER_RW));
	page_get(anon);   /* a second mapping besides the hold */
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));
	page_put(anon);
	page_let_go(anon);
	ck_assert_uint_eq(anon->refcount, 1);
	ck_assert(!(anon->aflags & AF_RECLAIM));
	page_get(anon);   /* an unmarked reference is a mapping */
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));
	page_put(anon);
}
END_TEST

START_TEST(test_holder_must_be_table_of_level)
{
	pte_t e = pte_make(page_to_pa(anon), USER_RW);
	ck_assert_ptr_nonnull(ptwrite_check(ptpage_entries(pt), PGL_PD, e));
	ck_assert_ptr_nonnull(ptwrite_check(page_va(kern), PGL_PT, e));
}
END_TEST

START_TEST(test_kernel_alias_of_table)
{
	ck_assert_ptr_nonnull(check_pte(pd, PTE_P | PTE_W));
	ck_assert_ptr_null(check_pte(pd, PTE_P));
	ck_assert_ptr_null(check_pte(kern, PTE_P | PTE_W));
}
END_TEST

START_TEST(test_table_entries_and_sharing)
{
	ck_assert_ptr_null(check_pde(pt, USER_RW));
	ck_assert_ptr_nonnull(check_pde(anon, USER_RW));
	ck_assert_ptr_nonnull(check_pde(pd, USER_RW));   /* wrong level */
	pt->pt.share = 2;
	ck_assert_ptr_nonnull(check_pde(pt, USER_RW));
	ck_assert_ptr_null(check_pde(pt, PTE_P | PTE_U));
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));   /* a leaf gains W in a shared PT */
	ck_assert_ptr_null(check_pte(anon, PTE_P | PTE_U));
	pt->pt.share = 1;
}
END_TEST

/* A PT page fork shared keeps its leaves' W (the PD entries above lost
 * it): rewriting such a leaf with Accessed cleared (aging, MADV_COLD) is
 * fine, giving W to one without it is not. Failed before (make fuzz,
 * vmtester-pvchecked seed 560129000: "writable leaf written into a
 * page-table page shared by several address spaces ... written by
 * pt_modify_shared_leaf", MADV_COLD aging a page below a shared table). */
START_TEST(test_shared_leaf_keeps_its_w)
{
	pte_t *ep = ptpage_entries(pt);
	*ep = pte_make(page_to_pa(anon), USER_RW | PTE_A);   /* as fork left it */
	pt->pt.share = 2;
	ck_assert_ptr_null(check_pte(anon, USER_RW));        /* Accessed taken away */
	*ep = pte_make(page_to_pa(anon), PTE_P | PTE_U | PTE_COW);
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));     /* W given */
	*ep = 0;
	ck_assert_ptr_nonnull(check_pte(anon, USER_RW));     /* a new writable leaf */
	pt->pt.share = 1;
}
END_TEST

START_TEST(test_dmap_split)
{
	paddr_t pa = page_to_pa(anon);
	ck_assert_ptr_null(kvm_dmap_pte(pa));   /* 2 MiB pages: no 4 KiB entry */
	int flushes = host_pv.flush_all;
	kvm_dmap_split(RAM);
	ck_assert_int_gt(host_pv.flush_all, flushes);
	ck_assert_uint_eq(kvm_dmap_page_size(), PAGE_SIZE);
	pte_t *ep = kvm_dmap_pte(pa);
	ck_assert_ptr_nonnull(ep);
	pte_t e = pte_read(ep);
	ck_assert_uint_eq(pte_addr(e), pa);
	ck_assert(pte_present(e) && pte_writable(e) && !pte_exec(e) && !pte_huge(e));
	paddr_t got;
	pte_t fl;
	ck_assert(pgt_lookup(&kernel_pgt, DIRECT_MAP_BASE + RAM - PAGE_SIZE + 8, &got, &fl));
	ck_assert_uint_eq(got, RAM - PAGE_SIZE + 8);
	pgt_check(&kernel_pgt, DIRECT_MAP_BASE, DIRECT_MAP_BASE + RAM);
}
END_TEST

static Suite *ptcheck_suite(void)
{
	Suite *s = suite_create("pv_ptcheck");
	TCase *tc = host_tcase(s, "rules", setup, host_mm_teardown);
	tcase_add_test(tc, test_user_leaf_rules);
	tcase_add_test(tc, test_private_writable_needs_one_reference);
	tcase_add_test(tc, test_reclaimer_hold_is_no_mapping);
	tcase_add_test(tc, test_holder_must_be_table_of_level);
	tcase_add_test(tc, test_kernel_alias_of_table);
	tcase_add_test(tc, test_table_entries_and_sharing);
	tcase_add_test(tc, test_shared_leaf_keeps_its_w);
	tcase_add_test(tc, test_dmap_split);
	return s;
}

int main(void)
{
	return host_run_suite(ptcheck_suite());
}

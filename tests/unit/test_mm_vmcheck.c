/* tests/unit/test_mm_vmcheck.c -- the VM invariant checker (mm/vmcheck.c)
 * on simulated RAM: a frame mapped 65,536 times and more (the zero page
 * after 256 MiB of reads) is counted, not wrapped; a private writable entry
 * to a frame with two references (broken copy-on-write) is caught; a
 * mapped file page may have passing references, not fewer than its
 * mappings. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "mm/as.h"
#include "mm/pt/pgtable.h"
#include "mm/vmcheck.h"
#include "mm/frame/lru.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(64)
#define BASE (USER_TEXT_BASE + MiB(4))

static void setup(void) { host_mm_setup(RAM, true); }

/* Run the checker over one address space. */
static void check_one(struct addrspace *as)
{
	struct vmcheck c;
	ck_assert_int_eq(vmcheck_begin(&c), 0);
	vmcheck_add(&c, as);
	vmcheck_finish(&c);
}

/* A zero-page-like frame (PG_FILE, one reference of its own) mapped
 * read-only copy-on-write n times from BASE. */
static struct page *map_zero_like(struct pagetable *pgt, uint64_t n)
{
	struct page *z = page_alloc(0, PA_FILE | PA_ZERO);
	ck_assert_ptr_nonnull(z);
	for (uint64_t i = 0; i < n; i++) {
		page_get(z);
		ck_assert_int_eq(pgt_map(pgt, BASE + i * PAGE_SIZE, page_to_pa(z), PAGE_SIZE, VM_READ | VM_COW | VM_FILE), 0);
	}
	return z;
}

/* Issue 14, defect 7: 16-bit counters wrapped at 65,536 mappings and the
 * checker panicked on a correct address space. */
START_TEST(test_frame_mapped_65536_times)
{
	struct addrspace as = { .pgt = pgt_create() };
	struct page *z = map_zero_like(as.pgt, 65536 + 8);
	ck_assert_uint_eq(z->refcount, 65536 + 8 + 1);
	check_one(&as);
	pgt_destroy(as.pgt);
	page_put(z);
	host_assert_no_leak();
}
END_TEST

/* A mapped file page with passing references besides its mappings and
 * its cache's (the reclaimer looking at it on the inactive file list, a
 * write-back batch writing it) is no error (vmtester-ext2 panicked
 * "refcount 9, but 7 PT pages map it" when the checker wanted them
 * exact); one with fewer references than mappings is (the next test). */
START_TEST(test_file_page_passing_references)
{
	struct addrspace as = { .pgt = pgt_create() };
	struct page *z = map_zero_like(as.pgt, 4);
	ck_assert(page_hold(z));
	page_get(z);   /* a write-back batch's */
	check_one(&as);
	page_put(z);
	page_let_go(z);
	check_one(&as);
	pgt_destroy(as.pgt);
	page_put(z);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_file_page_missing_reference_panics)
{
	struct addrspace as = { .pgt = pgt_create() };
	struct page *z = map_zero_like(as.pgt, 4);
	page_put(z);   /* 4 mappings, no reference of its own */
	check_one(&as);
}
END_TEST

/* Issue 14, defect 1's invariant: a private writable entry whose frame has
 * another reference is a panic of the checker. */
START_TEST(test_writable_private_shared_frame_panics)
{
	struct addrspace as = { .pgt = pgt_create() };
	struct page *pg = page_alloc(0, PA_ANON | PA_ZERO);
	ck_assert_int_eq(pgt_map(as.pgt, BASE, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	page_get(pg);
	ck_assert_int_eq(pgt_map(as.pgt, BASE + PAGE_SIZE, page_to_pa(pg), PAGE_SIZE, VM_READ), 0);
	check_one(&as);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mm_vmcheck");
	TCase *tc = host_tcase(s, "vmcheck", setup, host_mm_teardown);
	tcase_add_test(tc, test_frame_mapped_65536_times);
	tcase_add_test_raise_signal(tc, test_writable_private_shared_frame_panics, SIGABRT);
	tcase_add_test(tc, test_file_page_passing_references);
	tcase_add_test_raise_signal(tc, test_file_page_missing_reference_panics, SIGABRT);
	return host_run_suite(s);
}

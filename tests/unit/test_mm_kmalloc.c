/* tests/unit/test_mm_kmalloc.c -- kmalloc size classes, large objects,
 * slab pages returned when empty, and (debug) redzone, poison and double
 * free detection. */
#include <check.h>
#include <signal.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/memlayout.h"

static void setup(void)
{
	host_mm_setup(MiB(16), false);
}
static void setup_debug(void)
{
	setup();
	kmalloc_set_debug(true);
}
static void teardown(void)
{
	kmalloc_set_debug(false);
	host_mm_teardown();
}

/* Allocate many sizes, fill each, check none overlaps, free all. */
static void churn(void)
{
	enum { N = 300 };
	unsigned char *p[N];
	size_t len[N];
	for (int i = 0; i < N; i++) {
		len[i] = (size_t)(i * 131) % 6000;
		p[i] = kmalloc(len[i]);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert(IS_ALIGNED((uintptr_t)p[i], 16));
		memset(p[i], i & 0xff, len[i]);
	}
	for (int i = 0; i < N; i++) {
		size_t j = 0;
		while (j < len[i] && p[i][j] == (i & 0xff))
			j++;
		ck_assert_uint_eq(j, len[i]);
	}
	uint64_t small = 0;
	for (int i = 0; i < N; i++)
		small += len[i] + (kmalloc_debug ? 32 : 0) <= KMALLOC_MAX_SMALL;
	ck_assert_uint_eq(kmalloc_live(), small);
	for (int i = N - 1; i >= 0; i -= 2)
		kfree(p[i]);
	for (int i = N - 2; i >= 0; i -= 2)
		kfree(p[i]);
	ck_assert_uint_eq(kmalloc_live(), 0);
	host_assert_no_leak();   /* every slab page went back */
}

START_TEST(test_sizes) { churn(); }
END_TEST

START_TEST(test_sizes_debug) { churn(); }
END_TEST

START_TEST(test_large)
{
	void *p = kmalloc(3 * PAGE_SIZE + 1);
	ck_assert(IS_ALIGNED((uintptr_t)p, PAGE_SIZE));
	ck_assert_uint_eq(mm_stats.free, host_free0 - 4);
	kfree(p);
	ck_assert_ptr_null(kmalloc(PAGE_SIZE << MAX_ORDER));
	host_dirty_free_frames(0x5a);   /* kzalloc skips its memset for a large block */
	uint64_t *z = kzalloc(5000);
	ck_assert(host_all_zero(z, 5000));
	kfree(z);
	char *s = kmalloc(KMALLOC_MAX_SMALL);   /* the largest small class, written, freed */
	memset(s, 0x77, KMALLOC_MAX_SMALL);
	kfree(s);
	z = kzalloc(KMALLOC_MAX_SMALL);         /* the same slot: zeroed by kzalloc itself
	                                         * (in debug mode a large block) */
	ck_assert(host_all_zero(z, KMALLOC_MAX_SMALL));
	kfree(z);
	kfree(NULL);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_slab_reuse)
{
	void *a = kmalloc(40);
	kfree(a);
	void *b = kmalloc(33);   /* same 64-byte class, same page */
	ck_assert_ptr_eq(a, b);
	kfree(b);
}
END_TEST

/* A new slab page and a large block are written whole when they are
 * allocated (mm/frame/page.h, PA_ZERO): nothing a frame held before shows
 * through, in the objects or between them. */
START_TEST(test_new_frames_written_whole)
{
	host_dirty_free_frames(0xa5);
	unsigned char *obj = kmalloc(100);   /* the first of a new 128-byte slab */
	unsigned char *slab = (unsigned char *)ALIGN_DOWN((uintptr_t)obj, PAGE_SIZE);
	for (size_t off = 0; off < PAGE_SIZE; off += 128)   /* past each free link */
		ck_assert_msg(host_all_zero(slab + off + 2, 126), "slab byte at %zu", off);
	void *large = kmalloc(2 * PAGE_SIZE);
	ck_assert(host_all_zero(large, 2 * PAGE_SIZE));
	kfree(large);
	kfree(obj);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_double_free)
{
	void *a = kmalloc(40), *b = kmalloc(40);
	(void)b;
	kfree(a);
	kfree(a);
}
END_TEST

/* Debug mode catches a double free of an object that is not the last one
 * freed (the non-debug check looks at the head of the free chain only). */
START_TEST(test_double_free_not_last)
{
	void *a = kmalloc(40), *b = kmalloc(40), *c = kmalloc(40);
	(void)c;
	kfree(a);
	kfree(b);
	kfree(a);
}
END_TEST

START_TEST(test_free_interior)
{
	char *a = kmalloc(100);
	kfree(a + 16);
}
END_TEST

START_TEST(test_free_not_kmalloc)
{
	struct page *pg = page_alloc(0, 0);
	kfree(page_va(pg));
}
END_TEST

START_TEST(test_overrun)
{
	char *a = kmalloc(20);
	a[20] = 'x';   /* one past the end: inside the redzone */
	kfree(a);
}
END_TEST

START_TEST(test_underrun)
{
	char *a = kmalloc(20);
	a[-3] = 'x';
	kfree(a);
}
END_TEST

START_TEST(test_use_after_free)
{
	char *a = kmalloc(20), *keep = kmalloc(20);
	(void)keep;
	kfree(a);
	a[4] = 'x';
	kmalloc(20);   /* reuses the slot: the poison check fires */
}
END_TEST

static Suite *kmalloc_suite(void)
{
	Suite *s = suite_create("mm_kmalloc");
	TCase *tc = host_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_slab_reuse);
	tcase_add_test(tc, test_new_frames_written_whole);
	tcase_add_test_raise_signal(tc, test_double_free, SIGABRT);
	tcase_add_test_raise_signal(tc, test_free_interior, SIGABRT);
	tcase_add_test_raise_signal(tc, test_free_not_kmalloc, SIGABRT);

	TCase *dbg = host_tcase(s, "debug", setup_debug, teardown);
	tcase_add_test(dbg, test_sizes_debug);
	tcase_add_test(dbg, test_large);   /* KMALLOC_MAX_SMALL is large here */
	tcase_add_test_raise_signal(dbg, test_double_free, SIGABRT);
	tcase_add_test_raise_signal(dbg, test_double_free_not_last, SIGABRT);
	tcase_add_test_raise_signal(dbg, test_overrun, SIGABRT);
	tcase_add_test_raise_signal(dbg, test_underrun, SIGABRT);
	tcase_add_test_raise_signal(dbg, test_use_after_free, SIGABRT);
	return s;
}

int main(void)
{
	return host_run_suite(kmalloc_suite());
}

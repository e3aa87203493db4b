/* tests/unit/test_mm_pagecache.c -- the page cache (mm/pagecache.c) on
 * simulated RAM, over a fake object whose store is an array: pages read
 * once and shared, sparse indices across every tree height, dirty pages
 * written back by range and in index order, read and write errors (the
 * page not kept; the write error reported once), truncation, shrinking
 * what nobody uses, and a seeded random sequence against a model of the
 * object's bytes (PAGECACHE_SEED replays one; a failure prints it). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "mm/pagecache.h"
#include "mm/frame/kmalloc.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"

#define RAM MiB(32)
#define NPAGES 64                 /* the store; pages past it read as zeros */

struct obj {
	struct pagecache pc;
	uint8_t store[NPAGES][PAGE_SIZE];
	int reads, writes;
	uint64_t fail_read, fail_write;  /* an index that fails, or ~0 */
	uint64_t written[16];            /* the first indices written, in order */
};

static struct obj *o;

static int fake_read(struct pagecache *pc, uint64_t index, struct page *pg)
{
	struct obj *ob = pc->owner;
	ob->reads++;
	if (index == ob->fail_read)
		return -EIO;
	if (index < NPAGES)
		memcpy(page_va(pg), ob->store[index], PAGE_SIZE);
	return 0;
}

static int fake_write(struct pagecache *pc, uint64_t index, struct page *pg)
{
	struct obj *ob = pc->owner;
	if (ob->writes < 16)
		ob->written[ob->writes] = index;
	ob->writes++;
	if (index == ob->fail_write)
		return -EIO;
	if (index < NPAGES)
		memcpy(ob->store[index], page_va(pg), PAGE_SIZE);
	return 0;
}

static const struct pagecache_ops fake_ops = { .read_page = fake_read, .write_page = fake_write };

static void setup(void)
{
	host_mm_setup(RAM, true);
	o = calloc(1, sizeof(*o));
	for (int i = 0; i < NPAGES; i++)
		memset(o->store[i], 'A' + i % 26, PAGE_SIZE);
	o->fail_read = o->fail_write = ~0ull;
	pagecache_init(&o->pc, &fake_ops, o, PC_KIND_FILE);
}

static void teardown(void)
{
	pagecache_destroy(&o->pc);
	free(o);
	host_mm_teardown();
}

/* Get page index (must succeed). */
static struct page *get(uint64_t index, enum pc_how how)
{
	struct page *pg = NULL;
	ck_assert_int_eq(pagecache_get(&o->pc, index, how, &pg), 0);
	ck_assert_ptr_nonnull(pg);
	return pg;
}

START_TEST(test_read_once_and_share)
{
	struct page *a = get(5, PC_READ), *b = get(5, PC_READ);
	ck_assert_ptr_eq(a, b);
	ck_assert_int_eq(o->reads, 1);
	ck_assert_int_eq(memcmp(page_va(a), o->store[5], PAGE_SIZE), 0);
	ck_assert_uint_eq(o->pc.nrpages, 1);
	ck_assert_uint_eq(a->refcount, 3);   /* the cache's and two users' */
	ck_assert_uint_eq(a->type, PG_FILE);
	page_put(a);
	page_put(b);
	pagecache_truncate(&o->pc, 0);
	ck_assert_ptr_null(o->pc.root);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_find_and_overwrite)
{
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&o->pc, 3, PC_FIND, &pg), -ENOENT);
	ck_assert_ptr_null(pg);
	pg = get(3, PC_OVERWRITE);
	ck_assert_int_eq(o->reads, 0);                      /* not read */
	ck_assert_int_eq(((uint8_t *)page_va(pg))[100], 0);  /* zeros */
	ck_assert_ptr_eq(get(3, PC_FIND), pg);
	page_put(pg);
	page_put(pg);
	ck_assert_int_eq(pagecache_get(&o->pc, PC_MAX_INDEX + 1, PC_READ, &pg), -EFBIG);
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

/* pagecache_copy: out across pages from an odd offset; in, part of a page
 * (read first) and a whole page (not read); a read error mid-way is a
 * short copy, at the start an error. */
START_TEST(test_copy_in_and_out)
{
	static char buf[3 * PAGE_SIZE];
	ck_assert_int_eq(pagecache_copy(&o->pc, PAGE_SIZE - 10, buf, 20, PC_COPY_OUT), 20);
	ck_assert_int_eq(memcmp(buf, o->store[0] + PAGE_SIZE - 10, 10), 0);
	ck_assert_int_eq(memcmp(buf + 10, o->store[1], 10), 0);
	ck_assert_int_eq(o->reads, 2);
	memset(buf, 'z', sizeof(buf));
	ck_assert_int_eq(pagecache_copy(&o->pc, 5 * PAGE_SIZE + 100, buf, 50, PC_COPY_IN), 50);
	ck_assert_int_eq(o->reads, 3);                       /* the rest of page 5 kept */
	ck_assert_int_eq(pagecache_copy(&o->pc, 8 * PAGE_SIZE, buf, PAGE_SIZE, PC_COPY_IN),
			 PAGE_SIZE);
	ck_assert_int_eq(o->reads, 3);                       /* a whole page: not read */
	ck_assert_uint_eq(o->pc.ndirty, 2);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->store[5][100], 'z');
	ck_assert_int_eq(o->store[5][99], 'A' + 5);
	ck_assert_int_eq(o->store[5][150], 'A' + 5);
	ck_assert_int_eq(o->store[8][PAGE_SIZE - 1], 'z');
	o->fail_read = 20;
	ck_assert_int_eq(pagecache_copy(&o->pc, 20 * PAGE_SIZE, buf, 10, PC_COPY_OUT), -EIO);
	ck_assert_int_eq(pagecache_copy(&o->pc, 19 * PAGE_SIZE, buf, 2 * PAGE_SIZE, PC_COPY_OUT),
			 PAGE_SIZE);                         /* short: page 20 fails */
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

/* Indices at the edges of every tree height, written back in index order. */
START_TEST(test_sparse_indices_in_order)
{
	static const uint64_t idx[] = { PC_MAX_INDEX, 1u << 20, 4096, 4095, 64, 63, 0 };
	enum { N = sizeof(idx) / sizeof(idx[0]) };
	for (int i = 0; i < N; i++) {
		struct page *pg = get(idx[i], PC_OVERWRITE);
		ck_assert_uint_eq(pg->cache.index, idx[i]);
		pagecache_set_dirty(&o->pc, pg);
		page_put(pg);
	}
	ck_assert_uint_eq(o->pc.nrpages, N);
	ck_assert_uint_eq(o->pc.ndirty, N);
	for (int i = 0; i < N; i++) {
		struct page *pg = get(idx[i], PC_FIND);
		ck_assert_uint_eq(pg->cache.index, idx[i]);
		page_put(pg);
	}
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->writes, N);
	for (int i = 0; i < N; i++)
		ck_assert_uint_eq(o->written[i], idx[N - 1 - i]);   /* ascending */
	ck_assert_uint_eq(o->pc.ndirty, 0);
	pagecache_truncate(&o->pc, 64);
	ck_assert_uint_eq(o->pc.nrpages, 2);   /* 0 and 63 */
	pagecache_truncate(&o->pc, 0);
	ck_assert_ptr_null(o->pc.root);
	ck_assert_int_eq(o->pc.height, 0);
	host_assert_no_leak();
}
END_TEST

/* The tree grows a level at a time under pages already there. */
START_TEST(test_grow_keeps_pages)
{
	static const uint64_t idx[] = { 0, 64, 4096, 1u << 24, PC_MAX_INDEX };
	for (int i = 0; i < 5; i++) {
		page_put(get(idx[i], PC_OVERWRITE));
		for (int k = 0; k <= i; k++) {
			struct page *pg = get(idx[k], PC_FIND);
			ck_assert_uint_eq(pg->cache.index, idx[k]);
			page_put(pg);
		}
	}
	ck_assert_int_eq(o->pc.height, 6);
	pagecache_truncate(&o->pc, 1);
	ck_assert_uint_eq(o->pc.nrpages, 1);
	page_put(get(0, PC_FIND));
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_write_back_range)
{
	for (int i = 1; i <= 3; i++) {
		struct page *pg = get(i, PC_READ);
		memset(page_va(pg), 'x', 10);
		pagecache_set_dirty(&o->pc, pg);
		pagecache_set_dirty(&o->pc, pg);   /* twice: counted once */
		page_put(pg);
	}
	ck_assert_uint_eq(o->pc.ndirty, 3);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 2, 2), 0);
	ck_assert_int_eq(o->writes, 1);
	ck_assert_uint_eq(o->written[0], 2);
	ck_assert_int_eq(o->store[2][0], 'x');
	ck_assert_int_eq(o->store[1][0], 'B');   /* not yet */
	ck_assert_uint_eq(o->pc.ndirty, 2);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->writes, 3);
	ck_assert_int_eq(o->store[1][0], 'x');
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->writes, 3);          /* clean now: nothing more */
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_read_error_not_kept)
{
	struct page *pg;
	o->fail_read = 7;
	ck_assert_int_eq(pagecache_get(&o->pc, 7, PC_READ, &pg), -EIO);
	ck_assert_ptr_null(pg);
	ck_assert_uint_eq(o->pc.nrpages, 0);
	o->fail_read = ~0ull;
	pg = get(7, PC_READ);                    /* tried again, and read */
	ck_assert_int_eq(o->reads, 2);
	page_put(pg);
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_write_error_reported_once)
{
	struct page *pg = get(4, PC_READ);
	pagecache_set_dirty(&o->pc, pg);
	o->fail_write = 4;
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), -EIO);
	ck_assert_int_eq(pagecache_take_error(&o->pc), -EIO);
	ck_assert_int_eq(pagecache_take_error(&o->pc), 0);
	ck_assert_uint_eq(o->pc.ndirty, 0);      /* as Linux: the page is clean, the error kept */
	page_put(pg);
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_shrink_only_idle_clean)
{
	struct page *held = NULL;
	for (int i = 0; i < 10; i++) {
		struct page *pg = get(i, PC_READ);
		if (i < 2)
			pagecache_set_dirty(&o->pc, pg);
		if (i == 5)
			held = pg;
		else
			page_put(pg);
	}
	ck_assert_uint_eq(pagecache_shrink(&o->pc, 100), 7);
	ck_assert_uint_eq(o->pc.nrpages, 3);
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&o->pc, 9, PC_FIND, &pg), -ENOENT);
	ck_assert_ptr_eq(get(5, PC_FIND), held);
	page_put(held);
	page_put(held);
	ck_assert_uint_eq(pagecache_shrink(&o->pc, 1), 1);   /* at most `want` */
	pagecache_truncate(&o->pc, 0);
	ck_assert_uint_eq(o->pc.ndirty, 0);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_set_dirty_foreign_page_panics)
{
	struct page *pg = page_alloc(0, PA_FILE | PA_ZERO);
	pg->cache.flags = PGC_UPTODATE;
	pagecache_set_dirty(&o->pc, pg);         /* not in this cache */
}
END_TEST

/* Random gets, writes, write-backs, truncations and shrinks against a
 * model: model[i] is what page i must hold (the store, or what was
 * written since), checked on every get. */
START_TEST(test_random_against_model)
{
	unsigned seed = getenv("PAGECACHE_SEED") ? (unsigned)atoi(getenv("PAGECACHE_SEED")) : 4242u;
	srand(seed);
	static uint8_t model[NPAGES];
	static uint64_t size = NPAGES;   /* truncation makes the model's tail zeros */
	for (int i = 0; i < NPAGES; i++)
		model[i] = (uint8_t)('A' + i % 26);
	for (int step = 0; step < 20000; step++) {
		uint64_t i = (uint64_t)(rand() % NPAGES);
		int op = rand() % 10;
		struct page *pg;
		if (op < 5) {                          /* read, maybe write */
			ck_assert_int_eq(pagecache_get(&o->pc, i, PC_READ, &pg), 0);
			uint8_t *b = page_va(pg);
			ck_assert_msg(b[0] == model[i] && b[PAGE_SIZE - 1] == model[i],
				      "page %lu holds %d, want %d (seed %u, step %d)", i, b[0],
				      model[i], seed, step);
			if (op < 2) {
				model[i] = (uint8_t)(rand() % 256);
				memset(b, model[i], PAGE_SIZE);
				pagecache_set_dirty(&o->pc, pg);
			}
			page_put(pg);
		} else if (op < 7) {
			uint64_t j = i + (uint64_t)(rand() % 8);
			ck_assert_int_eq(pagecache_write_back(&o->pc, i, j), 0);
		} else if (op < 9) {
			pagecache_shrink(&o->pc, (uint64_t)(rand() % 4));
		} else if (rand() % 8 == 0) {          /* truncate: the store's tail too */
			ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
			pagecache_truncate(&o->pc, i);
			for (uint64_t k = i; k < size; k++) {
				memset(o->store[k], 0, PAGE_SIZE);
				model[k] = 0;
			}
		}
	}
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	for (int k = 0; k < NPAGES; k++)
		ck_assert_msg(o->store[k][0] == model[k], "store page %d (seed %u)", k, seed);
	pagecache_truncate(&o->pc, 0);
	host_assert_no_leak();
}
END_TEST

static Suite *pagecache_suite(void)
{
	Suite *s = suite_create("mm_pagecache");
	TCase *tc = host_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_read_once_and_share);
	tcase_add_test(tc, test_find_and_overwrite);
	tcase_add_test(tc, test_copy_in_and_out);
	tcase_add_test(tc, test_sparse_indices_in_order);
	tcase_add_test(tc, test_grow_keeps_pages);
	tcase_add_test(tc, test_write_back_range);
	tcase_add_test(tc, test_read_error_not_kept);
	tcase_add_test(tc, test_write_error_reported_once);
	tcase_add_test(tc, test_shrink_only_idle_clean);
	tcase_add_test_raise_signal(tc, test_set_dirty_foreign_page_panics, SIGABRT);
	tcase_add_test(tc, test_random_against_model);
	return s;
}

int main(void)
{
	return host_run_suite(pagecache_suite());
}

/* tests/unit/test_mm_pagecache.c -- the page cache (mm/pagecache.c) on
 * simulated RAM, over a fake object whose store is an array: pages read
 * once and shared, sparse indices across every tree height, dirty pages
 * written back by range and in index order, read and write errors (the
 * page not kept; the write error reported once), truncation, shrinking
 * what nobody uses, the replacement lists (a second use makes a page
 * active; the reclaimer frees inactive pages oldest first, unmaps mapped
 * ones through the object, leaves dirty unmapped ones to the flusher),
 * and a seeded random sequence against a model of the object's bytes (PAGECACHE_SEED replays one; a failure prints it). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "mm/pagecache.h"
#include "mm/pagecache_lru.h"
#include "mm/vmobject.h"
#include "mm/frame/lru.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/swap.h"
#include "arch/x86_64/memlayout.h"
#include "lib/errno.h"

#define RAM MiB(32)
#define NPAGES 64                 /* the store; pages past it read as zeros */

struct obj {
	struct pagecache pc;
	uint8_t store[NPAGES][PAGE_SIZE];
	int reads, writes;               /* pages */
	int read_calls, write_calls;     /* calls of the ops */
	uint64_t fail_read, fail_write;  /* an index that fails, or ~0 */
	bool nomem_write;                /* the next write call finds no memory */
	uint64_t written[16];            /* the first indices written, in order */
	uint8_t masks[16];               /* their dirty sectors */
};

static struct obj *o;

/* read_pages: every page from the store; one failing index fails the
 * whole call (the cache keeps none of them). */
static int fake_read(struct pagecache *pc, struct page **pages, unsigned n)
{
	struct obj *ob = pc->owner;
	ob->read_calls++;
	for (unsigned i = 0; i < n; i++) {
		uint64_t index = pages[i]->cache.index;
		ob->reads++;
		if (index == ob->fail_read)
			return -EIO;
		if (index < NPAGES)
			memcpy(page_va(pages[i]), ob->store[index], PAGE_SIZE);
	}
	return 0;
}

/* write_pages: each page's dirty sectors to the store (an index that
 * fails is skipped, and the call says -EIO). */
static int fake_write(struct pagecache *pc, struct page **pages, const uint8_t *dirty,
		      unsigned n)
{
	struct obj *ob = pc->owner;
	int e = 0;
	ob->write_calls++;
	if (ob->nomem_write) {   /* nothing written: the file system's map needed memory */
		ob->nomem_write = false;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t index = pages[i]->cache.index;
		if (ob->writes < 16)
			ob->written[ob->writes] = index, ob->masks[ob->writes] = dirty[i];
		ob->writes++;
		if (index == ob->fail_write) {
			e = -EIO;
			continue;
		}
		for (unsigned sct = 0; sct < 8 && index < NPAGES; sct++)
			if (dirty[i] >> sct & 1)
				memcpy(ob->store[index] + 512 * sct, (char *)page_va(pages[i]) + 512 * sct,
				       512);
	}
	return e;
}

static const struct pagecache_ops fake_ops = { .read_pages = fake_read, .write_pages = fake_write };

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

/* Truncate everything: no page, no shadow, no node is left, and no frame
 * leaked. */
static void truncate_all_no_leak(void)
{
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	ck_assert_uint_eq(o->pc.nrpages, 0);
	ck_assert_uint_eq(o->pc.nrshadows, 0);
	ck_assert_ptr_null(o->pc.root);
	host_assert_no_leak();
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
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
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
	truncate_all_no_leak();
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
	truncate_all_no_leak();
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
	pagecache_truncate(&o->pc, 64, PC_MAX_INDEX);
	ck_assert_uint_eq(o->pc.nrpages, 2);   /* 0 and 63 */
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
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
	pagecache_truncate(&o->pc, 1, PC_MAX_INDEX);
	ck_assert_uint_eq(o->pc.nrpages, 1);
	page_put(get(0, PC_FIND));
	truncate_all_no_leak();
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
	truncate_all_no_leak();
}
END_TEST

/* The fake reverse map: what write-back asked to write-protect, and a
 * store fault that may come in while it does (mkclean_store: the page a
 * mapping writes again between the write-protect and the write). */
static uint64_t mkclean_first, mkclean_n;
static int mkclean_calls;
static struct page *mkclean_store;

static void fake_mkclean(struct pagecache *pc, uint64_t first, uint64_t n)
{
	mkclean_calls++;
	mkclean_first = first;
	mkclean_n = n;
	if (mkclean_store)   /* a store fault right after the write-protect */
		ck_assert_int_eq(pagecache_mkwrite(pc, mkclean_store), 0);
}

/* A page made writable in a shared mapping (pagecache_mkwrite) is
 * write-protected in every mapping (mkclean) before its write-back and is
 * clean after it, as on Linux; a store after that faults and marks it
 * again; a store fault between the write-protect and the write keeps it
 * dirty through the write-back (its bytes may change after they were
 * written); without such pages write-back asks nothing of the mappings. */
START_TEST(test_mkwrite_cleaned_by_write_back)
{
	o->pc.mkclean = fake_mkclean;
	struct page *pg = get(4, PC_READ);    /* the mapping's reference */
	ck_assert_int_eq(pagecache_mkwrite(&o->pc, pg), 0);
	ck_assert_uint_eq(pg->cache.flags, PGC_UPTODATE | PGC_DIRTY | PGC_MAPWRITE);
	memset(page_va(pg), 'm', 8);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 2, 9), 0);
	ck_assert_int_eq(mkclean_calls, 1);
	ck_assert_uint_eq(mkclean_first, 2);
	ck_assert_uint_eq(mkclean_n, 8);
	ck_assert_int_eq(o->store[4][0], 'm');
	ck_assert_uint_eq(o->pc.ndirty, 0);   /* clean, though still mapped */
	ck_assert_uint_eq(pg->cache.flags, PGC_UPTODATE);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(mkclean_calls, 1);   /* nothing a mapping wrote: no walk */
	ck_assert_int_eq(o->writes, 1);

	ck_assert_int_eq(pagecache_mkwrite(&o->pc, pg), 0);   /* the next store's fault */
	memset(page_va(pg), 'n', 8);
	mkclean_store = pg;                   /* and one more during the write-back */
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	mkclean_store = NULL;
	ck_assert_int_eq(o->store[4][0], 'n');
	ck_assert_uint_eq(o->pc.ndirty, 1);   /* marked after the write-protect: still dirty */
	ck_assert_uint_eq(pg->cache.flags, PGC_UPTODATE | PGC_DIRTY | PGC_MAPWRITE);
	memset(page_va(pg), 'o', 8);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->store[4][0], 'o');   /* not lost */
	ck_assert_uint_eq(pg->cache.flags, PGC_UPTODATE);
	ck_assert_int_eq(mkclean_calls, 3);
	page_put(pg);
	truncate_all_no_leak();
}
END_TEST

/* A write-back that found no memory (reclaim writing under pressure) is
 * no I/O error: the page is dirty again with its sectors, the caller gets
 * -ENOMEM, no fsync hears of it later, and the next write-back writes it.
 * (Before, the page was left clean and unwritten: reclaim then freed it,
 * and its bytes were lost.) */
START_TEST(test_write_without_memory_stays_dirty)
{
	uint32_t mark = pagecache_error_mark(&o->pc);
	ck_assert_int_eq(pagecache_write_part(&o->pc, 5 * PAGE_SIZE + 512, "new", 3), 0);
	o->nomem_write = true;
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), -ENOMEM);
	struct page *pg = get(5, PC_FIND);
	ck_assert_uint_eq(pg->cache.flags, PGC_UPTODATE | PGC_DIRTY);
	ck_assert_uint_eq(pg->cache.dirty, 0x2);
	ck_assert_uint_eq(o->pc.ndirty, 1);
	page_put(pg);
	ck_assert_int_eq(pagecache_error_since(&o->pc, &mark), 0);
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(memcmp(o->store[5] + 512, "new", 3), 0);
	ck_assert_uint_eq(o->pc.ndirty, 0);
	truncate_all_no_leak();
}
END_TEST

/* A store fault on a page that a truncation took out of the cache
 * meanwhile (the mapping still held it): pagecache_mkwrite says so
 * (-EAGAIN: the fault retries and finds the new end), changes nothing,
 * and does not panic as pagecache_set_dirty would. */
START_TEST(test_mkwrite_of_truncated_page)
{
	struct page *pg = get(3, PC_READ);    /* the mapping's reference */
	pagecache_truncate(&o->pc, 2, PC_MAX_INDEX);
	ck_assert_int_eq(pagecache_mkwrite(&o->pc, pg), -EAGAIN);
	ck_assert_uint_eq(o->pc.ndirty, 0);
	ck_assert_uint_eq(pg->cache.flags & (PGC_DIRTY | PGC_MAPWRITE), 0);
	page_put(pg);
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
	truncate_all_no_leak();
}
END_TEST

/* Linux's errseq rule: every file open when a write-back failed hears
 * of it once, and so does the first opened after it; once somebody has
 * heard, a file opened later does not. */
START_TEST(test_write_error_reported_once)
{
	uint32_t before = pagecache_error_mark(&o->pc);   /* a file open before the failure */
	struct page *pg = get(4, PC_READ);
	pagecache_set_dirty(&o->pc, pg);
	o->fail_write = 4;
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), -EIO);
	uint32_t after = pagecache_error_mark(&o->pc);    /* opened after it, before anyone heard */
	ck_assert_int_eq(pagecache_error_since(&o->pc, &before), -EIO);
	ck_assert_int_eq(pagecache_error_since(&o->pc, &before), 0);   /* once */
	ck_assert_int_eq(pagecache_error_since(&o->pc, &after), -EIO);
	uint32_t later = pagecache_error_mark(&o->pc);    /* heard of already */
	ck_assert_int_eq(pagecache_error_since(&o->pc, &later), 0);
	pagecache_set_dirty(&o->pc, pg);                  /* a second failure: heard again */
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), -EIO);
	ck_assert_int_eq(pagecache_error_since(&o->pc, &before), -EIO);
	ck_assert_int_eq(pagecache_error_since(&o->pc, &later), -EIO);
	ck_assert_uint_eq(o->pc.ndirty, 0);      /* as Linux: the page is clean, the error kept */
	page_put(pg);
	truncate_all_no_leak();
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
	ck_assert_uint_eq(pagecache_shrink(&o->pc, 0, PC_MAX_INDEX, 100), 7);
	ck_assert_uint_eq(o->pc.nrpages, 3);
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&o->pc, 9, PC_FIND, &pg), -ENOENT);
	ck_assert_ptr_eq(get(5, PC_FIND), held);
	page_put(held);
	page_put(held);
	ck_assert_uint_eq(pagecache_shrink(&o->pc, 0, PC_MAX_INDEX, 1), 1);   /* at most `want` */
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	ck_assert_uint_eq(o->pc.ndirty, 0);
	host_assert_no_leak();
}
END_TEST

/* ---- the replacement lists (mm/pagecache_lru.h) ---- */

/* Get page index and put it back: one use. */
static void use(uint64_t index)
{
	page_put(get(index, PC_READ));
}

static bool cached(uint64_t index)
{
	struct page *pg;
	if (pagecache_get(&o->pc, index, PC_FIND, &pg) < 0)
		return false;
	page_put(pg);
	return true;
}

/* A page joins the inactive list when it enters; a second use makes it
 * active, a look-up that is no use (PC_FIND: mincore) does not; tmpfs's
 * pages are on lists of their own; truncation takes pages off their
 * lists. */
START_TEST(test_lists_second_use_activates)
{
	use(0), use(1), use(1);
	ck_assert_uint_eq(lru_pages(LRU_FILE_COLD), 1);
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 1);
	ck_assert_uint_eq(pagecache_lru_stats.activated, 1);
	ck_assert(cached(0) && cached(0));                      /* PC_FIND: still inactive */
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 1);
	pagecache_readahead(&o->pc, 4, 1, NPAGES);              /* read ahead: inactive, unused */
	ck_assert_uint_eq(lru_pages(LRU_FILE_COLD), 1 + o->pc.nrpages - 2);
	static const struct pagecache_ops no_store_ops = { .read_pages = fake_read };
	struct pagecache shm;
	pagecache_init(&shm, &no_store_ops, o, PC_KIND_SHMEM);
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, 0, PC_READ, &pg), 0);
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_COLD), 1);         /* tmpfs: lists of its own */
	ck_assert(pg->aflags & AF_SHMEM);
	page_put(pg);
	pagecache_destroy(&shm);
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	ck_assert_uint_eq(lru_pages(LRU_FILE_COLD) + lru_pages(LRU_FILE_HOT), 0);
	host_assert_no_leak();
}
END_TEST

/* The reclaimer frees inactive pages oldest first, and active ones only
 * after turning them inactive, while the active list is the longer: a
 * file read once (pages 10..19) goes before pages read twice (0..3), two
 * of which stay (the inactive list keeps a held and a dirty page); dirty
 * pages and pages someone holds stay (no unmapping by a task: PCR_IDLE),
 * and reclaim writes nothing. */
START_TEST(test_reclaim_inactive_first)
{
	for (int i = 0; i < 4; i++)
		use(i), use(i);
	struct page *held = get(30, PC_READ);
	page_put(get(31, PC_READ));
	struct page *dirty = get(31, PC_FIND);
	pagecache_set_dirty(&o->pc, dirty);
	page_put(dirty);
	for (int i = 10; i < 20; i++)
		use(i);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 5, PCR_IDLE), 5);
	for (int i = 0; i < 4; i++)
		ck_assert(cached(i));
	ck_assert(cached(30) && cached(31));
	ck_assert(!cached(10) && !cached(14) && cached(15));     /* oldest first */
	ck_assert_uint_eq(pagecache_lru_stats.stolen, 5);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 100, PCR_IDLE), 7);   /* 15..19, then 0, 1 */
	ck_assert(cached(30) && cached(31));                     /* held, dirty: kept */
	ck_assert(!cached(0) && !cached(1) && cached(2) && cached(3));
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 2);            /* as many as inactive */
	ck_assert_uint_eq(o->writes, 0);                          /* the flusher's, not reclaim's */
	ck_assert_uint_eq(pagecache_lru_stats.deactivated, 2);
	page_put(held);
	truncate_all_no_leak();
}
END_TEST

/* A "mapping" of the tests' object: one reference per page, dropped when
 * the reclaimer's unmap runs unless the page was used since the last look
 * (young). */
static struct page *mapped[NPAGES];
static bool young[NPAGES];

static void unmap_mapped(struct vmobject *obj, uint64_t first, uint64_t n, enum unmap_how how)
{
	(void)obj;
	ck_assert_int_eq(how, UNMAP_RECLAIM);
	for (uint64_t i = first; i < first + n && i < NPAGES; i++) {
		if (young[i]) {
			young[i] = false;   /* a second chance: the A bit cleared */
		} else if (mapped[i]) {
			page_put(mapped[i]);
			mapped[i] = NULL;
		}
	}
}

static const struct vmobject_ops map_ops = { 0 };

/* The reclaimer thread (PCR_UNMAP) unmaps a mapped inactive page through
 * the cache's object: not used since the last look, it leaves its
 * mappings and is freed; used, it stays, marked, and turns active at its
 * second use (a fault's get and then the entry's Accessed bit, or the bit
 * at two looks). A dirty mapped page is written first. A task's scan
 * (PCR_IDLE) leaves mapped pages alone. */
START_TEST(test_reclaim_unmaps_mapped)
{
	struct vmobject obj;
	vmobject_init(&obj, &map_ops, VMOBJ_FILE);
	vmobject_get(&obj);   /* a VMA maps it */
	o->pc.obj = &obj;
	host_unmap_hook = unmap_mapped;
	for (int i = 0; i < 3; i++)
		mapped[i] = get(i, PC_READ);            /* faults: a use each */
	pagecache_fill(&o->pc, 3, 4);
	ck_assert_uint_eq(pagecache_get_ready(&o->pc, 3, 1, &mapped[3]), 1);   /* mapped around */
	young[1] = young[3] = true;
	pagecache_set_dirty(&o->pc, mapped[2]);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 3, PCR_IDLE), 0);
	ck_assert_uint_eq(obj.rmap_seq, 0);                      /* no unmap by a task */
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 2, PCR_UNMAP), 2);   /* 0, and 2 once written */
	ck_assert(!cached(0) && cached(1) && !cached(2) && cached(3));
	ck_assert_uint_eq(o->writes, 1);
	ck_assert_uint_eq(o->written[0], 2);
	ck_assert_uint_eq(pagecache_lru_stats.written, 1);
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 1);            /* 1: fault, then young */
	ck_assert_uint_eq(pagecache_lru_stats.activated, 1);
	use(5);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 1, PCR_UNMAP), 1);   /* 3: young, marked, kept; 5 */
	ck_assert_ptr_nonnull(mapped[3]);
	ck_assert(cached(3) && !cached(5));
	young[3] = true;
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 1, PCR_UNMAP), 1);   /* 3 used again: active; 1 */
	ck_assert(!cached(1) && cached(3));                       /* deactivated, then freed */
	ck_assert_uint_eq(pagecache_lru_stats.activated, 2);
	page_put(mapped[3]);
	host_unmap_hook = NULL;
	vmobject_put(&obj);
	truncate_all_no_leak();
}
END_TEST

/* Refaults: an evicted page leaves a shadow; back after fewer evictions
 * than there are active pages it starts active (workingset_activate_file),
 * back later inactive; a truncation or a hole forgets the shadows of its
 * range, and the last one frees the tree. */
START_TEST(test_refault_distance)
{
	use(0), use(1), use(2), use(3);
	for (int i = 10; i < 14; i++)
		use(i), use(i);                                      /* 4 active */
	for (int i = 30; i < 60; i++)
		use(i);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 2, PCR_IDLE), 2);   /* 0 and 1: evictions 0, 1 */
	ck_assert_uint_eq(o->pc.nrshadows, 2);
	ck_assert(!cached(0));
	use(0);                                                   /* distance 2 <= 4 active */
	ck_assert_uint_eq(pagecache_lru_stats.refaults, 1);
	ck_assert_uint_eq(pagecache_lru_stats.refaults_activated, 1);
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 5);
	ck_assert_uint_eq(o->pc.nrshadows, 1);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 10, PCR_IDLE), 10);  /* 2, 3, 30..37 */
	use(1);                                                   /* distance 11 > 5 active */
	ck_assert_uint_eq(pagecache_lru_stats.refaults, 2);
	ck_assert_uint_eq(pagecache_lru_stats.refaults_activated, 1);
	ck_assert_uint_eq(lru_pages(LRU_FILE_HOT), 5);
	ck_assert_uint_eq(o->pc.nrshadows, 10);
	pagecache_truncate(&o->pc, 2, 3);                          /* a hole: its shadows go */
	ck_assert_uint_eq(o->pc.nrshadows, 8);
	use(2);
	ck_assert_uint_eq(pagecache_lru_stats.refaults, 2);      /* no shadow: a new page */
	truncate_all_no_leak();
}
END_TEST

/* A truncation takes its pages out in batches (PC_DETACH_BATCH): the
 * shadows between pages of an earlier batch go too, not only those after
 * the last one (PAGECACHE_SEED=3 of the random test left 15 behind, and
 * the tree's nodes with them). */
START_TEST(test_truncate_forgets_every_shadow)
{
	for (int i = 0; i < 80; i++)
		use(i);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 40, PCR_IDLE), 40);   /* 0..39: shadows */
	ck_assert_uint_eq(o->pc.nrshadows, 40);
	ck_assert_uint_eq(o->pc.nrpages, 40);                         /* more than a batch */
	truncate_all_no_leak();
}
END_TEST

/* A page the reclaimer holds that a truncation takes out meanwhile: its
 * cache is no longer found through it, and the hold's end frees it. */
START_TEST(test_lock_page_after_truncate)
{
	use(7);
	struct page *pg = lru_take(LRU_FILE_COLD);
	ck_assert_ptr_nonnull(pg);
	struct pagecache *pc = pagecache_lock_page(pg);
	ck_assert_ptr_eq(pc, &o->pc);
	ck_assert(!pagecache_evict_idle(pc, pg, 0, NULL));              /* our hold is a use */
	spin_unlock(&pc->lock);
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	ck_assert_ptr_null(pagecache_lock_page(pg));
	ck_assert(!(pg->aflags & AF_LRU));
	page_let_go(pg);
	host_assert_no_leak();
}
END_TEST

/* Read-ahead: a read at the start reads its pages and a window in one
 * call; reads going on sequentially double the window (up to PC_RA_MAX)
 * and wait until half of it is used; a random read reads only its own
 * pages; nothing past `end`; pages already cached are not read again. */
START_TEST(test_readahead_windows)
{
	static const struct { uint64_t at, n; int calls; uint64_t cached; } step[] = {
		{ 0, 2, 1, 6 },     /* the start: its 2 pages + a window of 4 */
		{ 2, 1, 2, 11 },    /* sequential: window 8; 6 cached < 2 + 1 + 8/2: to 11 */
		{ 3, 1, 3, 20 },    /* window 16: to 3 + 1 + 16 */
		{ 4, 1, 4, 37 },    /* window 32 */
		{ 5, 1, 4, 37 },    /* window 32 (the cap); 37 >= 5 + 1 + 32/2: not yet */
	};
	for (unsigned k = 0; k < sizeof(step) / sizeof(step[0]); k++) {
		pagecache_readahead(&o->pc, step[k].at, step[k].n, NPAGES);
		ck_assert_int_eq(o->read_calls, step[k].calls);
		ck_assert_uint_eq(o->pc.nrpages, step[k].cached);
	}
	ck_assert_int_eq(o->reads, 37);                     /* each page read once */
	for (uint64_t at = 6; at < 40; at++)                /* page by page on */
		pagecache_readahead(&o->pc, at, 1, NPAGES);
	ck_assert_uint_eq(o->pc.ra_window, PC_RA_MAX);
	ck_assert_uint_eq(o->pc.nrpages, NPAGES);           /* ... and stops at the end */
	for (uint64_t i = 0; i < NPAGES; i++) {
		struct page *pg = get(i, PC_FIND);
		ck_assert_int_eq(memcmp(page_va(pg), o->store[i], PAGE_SIZE), 0);
		page_put(pg);
	}
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	int calls = o->read_calls;
	pagecache_readahead(&o->pc, 30, 3, NPAGES);         /* random: only its own */
	ck_assert_int_eq(o->read_calls, calls + 1);
	ck_assert_uint_eq(o->pc.nrpages, 3);
	pagecache_readahead(&o->pc, 31, 1, NPAGES);         /* cached: nothing */
	ck_assert_int_eq(o->read_calls, calls + 1);
	pagecache_readahead(&o->pc, 60, 10, NPAGES);        /* clipped at the end */
	ck_assert_uint_eq(o->pc.nrpages, 3 + 4);
	calls = o->read_calls;
	o->pc.kind = PC_KIND_SHMEM;                         /* no store (tmpfs): nothing ahead */
	pagecache_readahead(&o->pc, 0, 8, NPAGES);
	o->pc.kind = PC_KIND_FILE;
	ck_assert_int_eq(o->read_calls, calls);
	truncate_all_no_leak();
}
END_TEST

/* PGC_BLOCKS, an owner's flag: set and tested on a cached page only; a
 * clean page with it is still shrunk; truncation to the middle of a page
 * clears it there (the blocks past the end go). */
START_TEST(test_blocks_flag)
{
	struct page *pg = get(3, PC_READ), *end = get(5, PC_READ);
	ck_assert(!pagecache_test_flags(&o->pc, pg, PGC_BLOCKS));
	pagecache_set_flags(&o->pc, pg, PGC_BLOCKS);
	pagecache_set_flags(&o->pc, end, PGC_BLOCKS);
	ck_assert(pagecache_test_flags(&o->pc, pg, PGC_BLOCKS));
	page_put(pg);
	ck_assert_uint_eq(pagecache_shrink(&o->pc, 3, 3, 1), 1);   /* clean and idle: goes */
	pagecache_truncate_at(&o->pc, 5 * PAGE_SIZE + 100);
	ck_assert(!pagecache_test_flags(&o->pc, end, PGC_BLOCKS));
	page_put(end);
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	ck_assert(!pagecache_test_flags(&o->pc, end, 0));   /* not its page any more */
	host_assert_no_leak();
}
END_TEST

/* Page faults of a mapping read in order: each comes at the first page
 * past the last window (the window was mapped around the fault before),
 * and goes on the stream, its window doubling; a fault elsewhere reads
 * only its page. */
START_TEST(test_readahead_fault_stream)
{
	static const struct { uint64_t at; uint64_t cached; } step[] = {
		{ 0, 5 },      /* the start: 1 + a window of 4 */
		{ 5, 14 },     /* at the window's end: window 8 */
		{ 14, 31 },    /* window 16 */
		{ 31, 64 },    /* window 32, to the end of the object */
	};
	for (unsigned k = 0; k < sizeof(step) / sizeof(step[0]); k++) {
		pagecache_readahead(&o->pc, step[k].at, 1, NPAGES);
		ck_assert_int_eq(o->read_calls, (int)k + 1);
		ck_assert_uint_eq(o->pc.nrpages, step[k].cached);
	}
	pagecache_truncate(&o->pc, 0, PC_MAX_INDEX);
	pagecache_readahead(&o->pc, 40, 1, NPAGES);   /* neither the stream nor a window's end */
	ck_assert_uint_eq(o->pc.nrpages, 1);
	truncate_all_no_leak();
}
END_TEST

/* A failed read-ahead keeps none of its pages; the reader's own get
 * reads its page alone and reports the error. */
START_TEST(test_readahead_error_keeps_nothing)
{
	o->fail_read = 3;
	pagecache_readahead(&o->pc, 0, 8, NPAGES);
	ck_assert_uint_eq(o->pc.nrpages, 0);
	page_put(get(0, PC_READ));
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&o->pc, 3, PC_READ, &pg), -EIO);
	ck_assert_uint_eq(o->pc.nrpages, 1);
	truncate_all_no_leak();
}
END_TEST

/* Write-back hands the dirty pages of a range to one write_pages call,
 * in index order, with their dirty sectors: a page dirty in part
 * (write_part) writes only those sectors; the clean ones of the store
 * stay as they were. */
START_TEST(test_write_back_batches_and_parts)
{
	static char buf[2 * 512];
	for (int i = 0; i < 5; i++) {
		struct page *pg = get((uint64_t)i * 2, PC_READ);
		memset(page_va(pg), 'w', PAGE_SIZE);
		pagecache_set_dirty(&o->pc, pg);
		page_put(pg);
	}
	memset(buf, 'm', sizeof(buf));
	ck_assert_int_eq(pagecache_write_part(&o->pc, 20 * PAGE_SIZE + 700, buf, 400), 0);
	ck_assert_int_eq(pagecache_write_part(&o->pc, 21 * PAGE_SIZE + 4000, buf, 200), -EINVAL);
	ck_assert_uint_eq(o->pc.ndirty, 6);
	memset(o->store[20], 'S', PAGE_SIZE);   /* behind the cache's back */
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	ck_assert_int_eq(o->write_calls, 1);
	ck_assert_int_eq(o->writes, 6);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(o->written[i], (uint64_t)i * 2);
		ck_assert_uint_eq(o->masks[i], PC_SECTORS_ALL);
		ck_assert_int_eq(o->store[i * 2][4095], 'w');
	}
	ck_assert_uint_eq(o->written[5], 20);
	ck_assert_uint_eq(o->masks[5], 0x6);     /* bytes 700..1099: sectors 1 and 2 */
	ck_assert_int_eq(o->store[20][511], 'S');
	ck_assert_int_eq(o->store[20][700], 'm');
	ck_assert_int_eq(o->store[20][699], 'U');   /* the cache's stale byte (A + 20) */
	ck_assert_int_eq(o->store[20][1536], 'S');
	ck_assert_uint_eq(o->pc.ndirty, 0);
	truncate_all_no_leak();
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
		} else if (op < 8) {
			pagecache_shrink(&o->pc, (uint64_t)(rand() % 8), PC_MAX_INDEX,
					 (uint64_t)(rand() % 4));
		} else if (op < 9) {                   /* the reclaimer: shadows left */
			pagecache_lru_reclaim(SIDE_FILE, (uint64_t)(rand() % 4), PCR_IDLE);
			ck_assert_uint_eq(o->pc.nrpages, lru_pages(LRU_FILE_COLD) +
					  lru_pages(LRU_FILE_HOT));
		} else if (rand() % 8 == 0) {          /* truncate: the store's tail too */
			ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
			pagecache_truncate(&o->pc, i, PC_MAX_INDEX);
			for (uint64_t k = i; k < size; k++) {
				memset(o->store[k], 0, PAGE_SIZE);
				model[k] = 0;
			}
		}
	}
	ck_assert_int_eq(pagecache_write_back(&o->pc, 0, PC_MAX_INDEX), 0);
	for (int k = 0; k < NPAGES; k++)
		ck_assert_msg(o->store[k][0] == model[k], "store page %d (seed %u)", k, seed);
	truncate_all_no_leak();
}
END_TEST


/* ---- tmpfs pages on swap ---- */

#define SWAP_PAGES 32

/* A swap disk in memory (page 0: mkswap's header); transfers touching
 * swap_fail_slot fail (0: none), and every write while swap_fail_writes. */
static uint8_t swap_disk[SWAP_PAGES][PAGE_SIZE];
static uint64_t swap_fail_slot;
static bool swap_fail_writes;
static unsigned swap_write_requests;   /* since swap_on */

static int swap_rw(void *dev, uint64_t slot, struct page **pages, unsigned n, enum swap_dir dir)
{
	(void)dev;
	ck_assert_uint_le(slot + n, SWAP_PAGES);
	swap_write_requests += dir == SWAP_WRITE;
	if ((swap_fail_slot && swap_fail_slot >= slot && swap_fail_slot < slot + n) ||
	    (swap_fail_writes && dir == SWAP_WRITE))
		return -EIO;
	for (unsigned i = 0; i < n; i++)
		memcpy(dir == SWAP_READ ? page_va(pages[i]) : swap_disk[slot + i],
		       dir == SWAP_READ ? swap_disk[slot + i] : page_va(pages[i]), PAGE_SIZE);
	return 0;
}

static void swap_release(void *dev)
{
	(void)dev;
}

static const struct swap_io_ops swap_io = { .rw = swap_rw, .release = swap_release };

/* Turn the disk on as a swap area: its number. */
static int swap_on(void)
{
	memset(swap_disk, 0, sizeof(swap_disk));
	struct swap_header *h = (struct swap_header *)swap_disk[0];
	h->version = 1;
	h->last_page = SWAP_PAGES - 1;
	memcpy(swap_disk[0] + SWAP_MAGIC_OFFSET, SWAP_MAGIC, 10);
	swap_fail_slot = 0;
	swap_fail_writes = false;
	swap_write_requests = 0;
	int a = swap_area_add(&swap_io, swap_disk, swap_disk, sizeof(swap_disk), -1, "/fake", false);
	ck_assert_int_ge(a, 0);
	return a;
}

/* swapoff: every page back, then the area goes. */
static void swap_off(int a)
{
	swap_area_stop(a);
	ck_assert_int_eq(pagecache_swap_unuse(a), 0);
	ck_assert_int_eq(swap_area_remove(a), 0);
}

static const struct pagecache_ops shm_ops = { .read_pages = fake_read };
static struct pagecache shm;   /* a tmpfs file's cache */

/* Fill page index of shm with byte c, as a write call does. */
static void shm_write(uint64_t index, int c)
{
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, index, PC_READ, &pg), 0);
	memset(page_va(pg), c, PAGE_SIZE);
	pagecache_set_dirty(&shm, pg);
	page_put(pg);
}

/* Is page index of shm all byte c (read back from swap if it is there)? */
static bool shm_holds(uint64_t index, int c)
{
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, index, PC_READ, &pg), 0);
	bool all = true;
	for (size_t i = 0; i < PAGE_SIZE; i++)
		all &= ((uint8_t *)page_va(pg))[i] == (uint8_t)c;
	page_put(pg);
	return all;
}

/* Swap page index of shm out as the reclaimer does, holding it: went? */
static bool shm_swap_out(uint64_t index)
{
	struct page *pg;
	if (pagecache_get(&shm, index, PC_FIND, &pg) < 0)
		return false;
	bool out = pagecache_swap_out(&pg, 1, 1) == 1;
	page_put(pg);
	return out;
}

/* A tmpfs page written out to a slot leaves memory, its leaf naming the
 * slot (PC_FIND: -ENODATA, not there but not a hole: a fault that brings
 * it back is major, as mincore says absent); a get brings it back, whole,
 * dirty (its only copy), and frees the slot; truncation frees the slots of
 * the pages still out. */
START_TEST(test_shmem_swap_out_and_in)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	int a = swap_on();
	for (int i = 0; i < 4; i++)
		shm_write((uint64_t)i, 'a' + i);
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_COLD), 4);
	ck_assert(shm_swap_out(1) && shm_swap_out(2));
	ck_assert_uint_eq(shm.nrpages, 2);
	ck_assert_uint_eq(shm.nrswapped, 2);
	ck_assert_uint_eq(pagecache_stats.shmem_swapped, 2);   /* meminfo's ShmemSwapped */
	ck_assert_uint_eq(pagecache_stats.shmem, 2);           /* Shmem: in memory only */
	ck_assert_uint_eq(swap_area_used(a), 2);
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_COLD), 2);
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, 1, PC_FIND, &pg), -ENODATA);
	ck_assert_ptr_null(pg);
	ck_assert_int_eq(pagecache_get(&shm, 7, PC_FIND, &pg), -ENOENT);   /* a hole */
	ck_assert(shm_holds(1, 'b'));
	ck_assert_uint_eq(shm.nrswapped, 1);
	ck_assert_uint_eq(swap_area_used(a), 1);
	ck_assert_int_eq(pagecache_get(&shm, 1, PC_FIND, &pg), 0);
	ck_assert(pagecache_test_flags(&shm, pg, PGC_DIRTY));
	page_put(pg);
	ck_assert_uint_eq(pagecache_lru_stats.swapped_out, 2);
	ck_assert_uint_eq(pagecache_lru_stats.swapped_in, 1);
	pagecache_truncate(&shm, 0, PC_MAX_INDEX);
	ck_assert_uint_eq(shm.nrswapped, 0);
	ck_assert_uint_eq(pagecache_stats.shmem_swapped, 0);
	ck_assert_uint_eq(swap_area_used(a), 0);
	swap_off(a);
	pagecache_destroy(&shm);
	host_assert_no_leak();
}
END_TEST

/* Refaults of tmpfs pages: the slot keeps a note of the page's eviction;
 * a page back after fewer evictions than there are active tmpfs pages
 * starts active (the working set), one back after more starts inactive,
 * and both count (vmstat's workingset_*_anon). */
START_TEST(test_shmem_refault_from_swap)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	int a = swap_on();
	for (int i = 0; i < 4; i++)
		shm_write((uint64_t)i, 'a' + i);
	ck_assert(shm_swap_out(0) && shm_swap_out(1) && shm_swap_out(2));
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_HOT), 0);
	ck_assert(shm_holds(2, 'c'));    /* 0 evictions since: back within the active list */
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_HOT), 1);
	ck_assert_uint_eq(pagecache_lru_stats.shmem_refaults, 1);
	ck_assert_uint_eq(pagecache_lru_stats.shmem_refaults_activated, 1);
	ck_assert(shm_holds(0, 'a'));    /* 2 evictions since, 1 active page: inactive */
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_HOT), 1);
	ck_assert_uint_eq(pagecache_lru_stats.shmem_refaults, 2);
	ck_assert_uint_eq(pagecache_lru_stats.shmem_refaults_activated, 1);
	ck_assert(shm_holds(1, 'b'));    /* 1 eviction since, 1 active page: active */
	ck_assert_uint_eq(lru_pages(LRU_SHMEM_HOT), 2);
	ck_assert_uint_eq(pagecache_lru_stats.shmem_refaults_activated, 2);
	swap_off(a);
	pagecache_destroy(&shm);
	host_assert_no_leak();
}
END_TEST

/* A page someone else holds (a mapping, a reader) stays and its slot is
 * free again; with no swap nothing goes; a failed write keeps the page
 * (dirty, whole) and marks the slot bad, never given out again. */
START_TEST(test_shmem_swap_out_refused)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	shm_write(0, 'x');
	ck_assert(!shm_swap_out(0));                          /* no swap */
	int a = swap_on();
	struct page *held;
	ck_assert_int_eq(pagecache_get(&shm, 0, PC_FIND, &held), 0);
	ck_assert(!shm_swap_out(0));                          /* held by another */
	page_put(held);
	ck_assert_uint_eq(swap_area_used(a), 0);
	uint64_t total, free_before, free_after, cached;
	swap_totals(&total, &free_before, &cached);
	swap_fail_writes = true;
	ck_assert(!shm_swap_out(0));
	swap_totals(&total, &free_after, &cached);
	ck_assert_uint_eq(free_after, free_before - 1);        /* the bad slot is gone */
	ck_assert(shm_holds(0, 'x'));
	ck_assert_int_eq(pagecache_get(&shm, 0, PC_FIND, &held), 0);
	ck_assert(pagecache_test_flags(&shm, held, PGC_DIRTY));
	page_put(held);
	swap_fail_writes = false;
	ck_assert(shm_swap_out(0));                           /* another slot */
	ck_assert(shm_holds(0, 'x'));
	swap_off(a);
	pagecache_destroy(&shm);
	host_assert_no_leak();
}
END_TEST

/* A slot that cannot be read: the get fails (-EIO: SIGBUS for a fault),
 * the page stays on swap, and a later get reads it. */
START_TEST(test_shmem_swap_read_error)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	int a = swap_on();
	shm_write(3, 'q');
	ck_assert(shm_swap_out(3));
	swap_fail_slot = 1;
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, 3, PC_READ, &pg), -EIO);
	ck_assert_uint_eq(shm.nrswapped, 1);
	ck_assert_uint_eq(shm.nrpages, 0);
	swap_fail_slot = 0;
	ck_assert(shm_holds(3, 'q'));
	swap_off(a);
	pagecache_destroy(&shm);
	host_assert_no_leak();
}
END_TEST

/* swapoff brings every page of its area back; truncation to the middle of
 * a page on swap reads it back to clear its tail; the cache's end frees
 * the slots of the pages still out. */
START_TEST(test_shmem_swapoff_and_truncate)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	int a = swap_on();
	for (int i = 0; i < 6; i++) {
		shm_write((uint64_t)i * 100, 'k' + i);   /* sparse: several tree levels */
		ck_assert(shm_swap_out((uint64_t)i * 100));
	}
	swap_area_stop(a);
	ck_assert_int_eq(pagecache_swap_unuse(a), 0);
	ck_assert_uint_eq(shm.nrswapped, 0);
	ck_assert_int_eq(swap_area_remove(a), 0);
	for (int i = 0; i < 6; i++)
		ck_assert(shm_holds((uint64_t)i * 100, 'k' + i));
	a = swap_on();
	shm_write(7, 'z');
	ck_assert(shm_swap_out(7));
	pagecache_truncate_at(&shm, 7 * PAGE_SIZE + 100);
	struct page *pg;
	ck_assert_int_eq(pagecache_get(&shm, 7, PC_FIND, &pg), 0);
	const uint8_t *b = page_va(pg);
	ck_assert(b[0] == 'z' && b[99] == 'z' && b[100] == 0 && b[PAGE_SIZE - 1] == 0);
	page_put(pg);
	ck_assert(shm_swap_out(0) && shm_swap_out(7));
	ck_assert_uint_eq(swap_area_used(a), 2);
	pagecache_destroy(&shm);
	ck_assert_uint_eq(swap_area_used(a), 0);
	swap_off(a);
	host_assert_no_leak();
}
END_TEST

/* The reclaimer thread swaps inactive tmpfs pages out (the swap side of
 * the balance, mm/reclaim.h), in one request for a run of slots; a task's
 * scan does not, nor anyone without swap, nor the file side's scan. */
START_TEST(test_reclaim_swaps_tmpfs)
{
	struct vmobject obj;
	vmobject_init(&obj, &map_ops, VMOBJ_FILE);
	vmobject_get(&obj);
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	shm.obj = &obj;
	for (int i = 0; i < 4; i++)
		shm_write((uint64_t)i, '0' + i);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_SWAP, 2, PCR_UNMAP), 0);   /* no swap */
	int a = swap_on();
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_SWAP, 2, PCR_IDLE), 0);
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_FILE, 2, PCR_UNMAP), 0);   /* not the file side's */
	ck_assert_uint_eq(pagecache_lru_reclaim(SIDE_SWAP, 2, PCR_UNMAP), 2);
	ck_assert_uint_eq(swap_write_requests, 1);   /* both in one request: slots in a run */
	ck_assert_uint_eq(shm.nrswapped, 2);
	ck_assert_uint_eq(pagecache_lru_pending(), 2);
	for (int i = 0; i < 4; i++)
		ck_assert(shm_holds((uint64_t)i, '0' + i));
	swap_off(a);
	ck_assert_uint_eq(pagecache_lru_pending(), 0);   /* no swap: tmpfs pages stay */
	pagecache_destroy(&shm);
	vmobject_put(&obj);
	host_assert_no_leak();
}
END_TEST

/* The balance of the reclaimer thread's rounds (mm/reclaim.h): while no
 * file page thrashes, the file side alone gives (here, file pages read
 * once); once a refault of a file page made it active -- back within the
 * working set, which counts the swap side's pages while swap has room --
 * the swap side (here, tmpfs pages) gives a share in proportion to its
 * pages, weighed by swappiness and the sides' costs: 4 of 16 for 32 tmpfs
 * pages against 57 file pages, one refault against none; with swappiness
 * 0, none. */
START_TEST(test_reclaim_balances_sides)
{
	pagecache_init(&shm, &shm_ops, NULL, PC_KIND_SHMEM);
	int a = swap_on();
	for (int i = 0; i < 32; i++)
		shm_write((uint64_t)i, 'a');
	for (int i = 0; i < 64; i++)
		use((uint64_t)i);
	reclaim_min = 0, reclaim_low = reclaim_high = mm_stats.free + 8;
	ck_assert_uint_eq(reclaim_background(), 8);
	ck_assert_uint_eq(shm.nrswapped, 0);                      /* no thrashing: file only */
	ck_assert(!cached(0) && cached(8));
	use(0);                                                   /* back within the working set */
	ck_assert_uint_eq(pagecache_lru_stats.refaults_activated, 1);
	reclaim_low = reclaim_high = mm_stats.free + 16;
	ck_assert_uint_eq(reclaim_background(), 16);
	ck_assert_uint_eq(shm.nrswapped, 4);                      /* the swap side's share */
	reclaim_swappiness = 0;
	use(1);
	ck_assert_uint_eq(pagecache_lru_stats.refaults_activated, 2);
	reclaim_low = reclaim_high = mm_stats.free + 16;
	ck_assert_uint_eq(reclaim_background(), 16);
	ck_assert_uint_eq(shm.nrswapped, 4);                      /* swappiness 0: file only */
	reclaim_swappiness = 60;
	for (int i = 0; i < 32; i++)
		ck_assert(shm_holds((uint64_t)i, 'a'));
	swap_off(a);
	pagecache_destroy(&shm);
	truncate_all_no_leak();
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
	tcase_add_test(tc, test_mkwrite_cleaned_by_write_back);
	tcase_add_test(tc, test_read_error_not_kept);
	tcase_add_test(tc, test_write_error_reported_once);
	tcase_add_test(tc, test_shrink_only_idle_clean);
	tcase_add_test(tc, test_readahead_windows);
	tcase_add_test(tc, test_readahead_fault_stream);
	tcase_add_test(tc, test_blocks_flag);
	tcase_add_test(tc, test_readahead_error_keeps_nothing);
	tcase_add_test(tc, test_write_back_batches_and_parts);
	tcase_add_test_raise_signal(tc, test_set_dirty_foreign_page_panics, SIGABRT);
	tcase_add_test(tc, test_mkwrite_of_truncated_page);
	tcase_add_test(tc, test_write_without_memory_stays_dirty);
	tcase_add_test(tc, test_random_against_model);
	tcase_add_test(tc, test_lists_second_use_activates);
	tcase_add_test(tc, test_reclaim_inactive_first);
	tcase_add_test(tc, test_reclaim_unmaps_mapped);
	tcase_add_test(tc, test_lock_page_after_truncate);
	tcase_add_test(tc, test_refault_distance);
	tcase_add_test(tc, test_truncate_forgets_every_shadow);
	tcase_add_test(tc, test_shmem_swap_out_and_in);
	tcase_add_test(tc, test_shmem_swap_out_refused);
	tcase_add_test(tc, test_shmem_refault_from_swap);
	tcase_add_test(tc, test_shmem_swap_read_error);
	tcase_add_test(tc, test_shmem_swapoff_and_truncate);
	tcase_add_test(tc, test_reclaim_swaps_tmpfs);
	tcase_add_test(tc, test_reclaim_balances_sides);
	return s;
}

int main(void)
{
	return host_run_suite(pagecache_suite());
}

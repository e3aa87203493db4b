/* tests/unit/test_mm_buddy.c -- frame database and buddy allocator on
 * simulated RAM: split/merge, exhaustion, zeroing, counters, and the panics
 * for double free, unallocated frames and refcount underflow. */
#include <check.h>
#include <signal.h>
#include <string.h>
#include "tests/unit/host_mm.h"
#include "mm/frame/buddy.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(16)

static void setup(void) { host_mm_setup(RAM, false); }

START_TEST(test_database)
{
	uint64_t frames_n = RAM / PAGE_SIZE;
	uint64_t db = page_db_bytes() / PAGE_SIZE;
	ck_assert_uint_eq(max_pfn, frames_n);
	ck_assert_uint_eq(mm_stats.total, frames_n);
	ck_assert_uint_le(sizeof(struct page), 48);
	/* frame 0, the image and the database itself are never free */
	ck_assert_uint_eq(mm_stats.free, frames_n - 1 - HOST_IMAGE_LEN / PAGE_SIZE - db);
	ck_assert_uint_eq(mm_stats.managed, mm_stats.free);
	ck_assert_int_eq(frames[0].type, PG_RESERVED);
	ck_assert_int_eq(pa_to_page(HOST_IMAGE_PA)->type, PG_KERNEL);
	ck_assert_uint_eq(pa_to_page(HOST_IMAGE_PA)->refcount, 1);
	ck_assert_ptr_null(pa_to_page(RAM));
	ck_assert_uint_eq(mm_stats.by_type[PG_FREE], mm_stats.free);
	ck_assert_uint_eq(mm_stats.by_type[PG_KERNEL], HOST_IMAGE_LEN / PAGE_SIZE + db);
}
END_TEST

START_TEST(test_split_merge)
{
	frame_cache_on = false;   /* the lists' own order: no cache in front */
	uint64_t big = buddy_free_blocks(MAX_ORDER - 1), f0 = mm_stats.free;
	ck_assert_uint_gt(big, 0);
	/* split a 4 MiB block: one free block of every smaller order appears */
	struct page *big0 = page_alloc(MAX_ORDER - 1, 0);
	page_free(big0, MAX_ORDER - 1);   /* LIFO: it is the next one split */
	struct page *lows[MAX_ORDER];   /* drain the small orders first */
	for (unsigned k = 0; k < MAX_ORDER - 1; k++)
		for (lows[k] = NULL; buddy_free_blocks(k);) {
			struct page *x = page_alloc(k, 0);
			x->link.next = lows[k] ? &lows[k]->link : NULL;
			lows[k] = x;
		}
	struct page *a = page_alloc(0, 0);
	ck_assert_ptr_eq(a, big0);
	for (unsigned k = 0; k < MAX_ORDER - 1; k++)
		ck_assert_uint_eq(buddy_free_blocks(k), 1);
	struct page *b = page_alloc(0, 0);
	ck_assert_uint_eq(page_to_pa(a) ^ page_to_pa(b), PAGE_SIZE);   /* buddies */
	for (unsigned k = 0; k < MAX_ORDER - 1; k++)
		while (lows[k]) {
			struct page *next = lows[k]->link.next ?
				list_entry(lows[k]->link.next, struct page, link) : NULL;
			page_free(lows[k], k);
			lows[k] = next;
		}
	struct page *c = page_alloc(4, PA_ANON);
	ck_assert(IS_ALIGNED(page_to_pa(c), 16 * PAGE_SIZE));
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], 16);
	ck_assert_int_eq(c[15].type, PG_ANON);
	ck_assert_uint_eq(c[15].order, PAGE_ORDER_TAIL);
	page_free(a, 0);
	page_free(c, 4);
	page_free(b, 0);
	ck_assert_uint_eq(mm_stats.free, f0);
	ck_assert_uint_eq(buddy_free_blocks(MAX_ORDER - 1), big);   /* all merged back */
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], 0);
	ck_assert_uint_eq(mm_stats.allocs, mm_stats.frees);
	ck_assert_uint_eq(buddy_check(), f0);
}
END_TEST

START_TEST(test_every_order)
{
	uint64_t f0 = mm_stats.free;
	struct page *p[MAX_ORDER];
	for (unsigned k = 0; k < MAX_ORDER; k++) {
		p[k] = page_alloc(k, 0);
		ck_assert_ptr_nonnull(p[k]);
		ck_assert(IS_ALIGNED(page_to_pa(p[k]), PAGE_SIZE << k));
		ck_assert_uint_eq(p[k]->order, k);
	}
	ck_assert_ptr_null(page_alloc(MAX_ORDER, 0));
	for (unsigned k = 0; k < MAX_ORDER; k++)
		page_free(p[k], k);
	ck_assert_uint_eq(mm_stats.free, f0);
}
END_TEST

START_TEST(test_exhaustion)
{
	struct list held;
	uint64_t f0 = mm_stats.free, big = buddy_free_blocks(MAX_ORDER - 1);
	uint64_t n = host_exhaust(&held);
	ck_assert_uint_eq(n, f0);
	ck_assert_uint_eq(mm_stats.free, 0);
	ck_assert_uint_eq(mm_stats.cached, 0);
	ck_assert_ptr_null(page_alloc(0, 0));   /* NULL, not a panic */
	ck_assert_ptr_null(page_alloc(3, PA_ZERO));
	ck_assert_uint_eq(mm_stats.failed, n ? 3 : 2);
	ck_assert_uint_eq(buddy_check(), 0);
	host_release_all(&held);
	ck_assert_uint_eq(mm_stats.free, f0);
	ck_assert_uint_eq(buddy_check(), f0);
	uint64_t cached = mm_stats.cached;   /* the last frees stayed in the cache */
	ck_assert_uint_ge(cached, PCP_FRAMES - PCP_BATCH);
	ck_assert_uint_eq(buddy_drain_caches(), cached);
	ck_assert_uint_eq(buddy_free_blocks(MAX_ORDER - 1), big);
}
END_TEST

/* Frames a caller can do without (PA_NORESERVE) stop at the reserve; the
 * others go on into it. */
START_TEST(test_noreserve_leaves_the_reserve)
{
	enum { RESERVE = 40 };
	mm_stats.reserve = RESERVE;
	struct list users, kernel;
	list_init(&users);
	list_init(&kernel);
	struct page *pg;
	while ((pg = page_alloc(0, PA_ANON | PA_NORESERVE)))
		list_add_tail(&users, &pg->link);
	ck_assert_uint_eq(mm_stats.free, RESERVE);   /* not one below */
	ck_assert_uint_eq(mm_stats.reserve_refused, 1);
	ck_assert_ptr_null(page_alloc(0, PA_ANON | PA_NORESERVE));
	for (int i = 0; i < RESERVE; i++) {          /* the kernel's: all of it */
		pg = page_alloc(0, 0);
		ck_assert_ptr_nonnull(pg);
		list_add_tail(&kernel, &pg->link);
	}
	ck_assert_uint_eq(mm_stats.free, 0);
	ck_assert_uint_eq(mm_stats.reserve_refused, 2);
	mm_stats.reserve = 0;
	host_release_all(&kernel);
	host_release_all(&users);
	ck_assert_uint_eq(buddy_check(), mm_stats.free);
}
END_TEST

/* ---- the per-CPU free-frame caches ---- */

/* A freed frame waits in this CPU's cache and is the next one it gets; it
 * still counts as free, and the caches are in buddy_check's total. */
START_TEST(test_cache_reuse)
{
	uint64_t f0 = mm_stats.free;
	struct page *p = page_alloc(0, 0);
	ck_assert_uint_eq(mm_stats.cached, PCP_BATCH - 1);   /* one refill, one taken */
	ck_assert_uint_eq(mm_stats.free, f0 - 1);
	page_free(p, 0);
	ck_assert_uint_eq(mm_stats.cached, PCP_BATCH);
	ck_assert_uint_eq(mm_stats.free, f0);
	ck_assert_uint_eq(mm_stats.by_type[PG_FREE], f0);
	ck_assert_uint_eq(buddy_check(), f0);
	ck_assert_ptr_eq(page_alloc(0, 0), p);   /* LIFO, from the cache */
	host_set_cpu(1);
	struct page *q = page_alloc(0, 0);   /* another CPU: its own cache */
	ck_assert_ptr_ne(q, p);
	ck_assert_uint_eq(cpus[1].pcp.n, PCP_BATCH - 1);
	page_free(p, 0);                     /* freed on CPU 1: cached there */
	ck_assert_uint_eq(cpus[1].pcp.n, PCP_BATCH);
	page_free(q, 0);
	ck_assert_uint_eq(buddy_check(), f0);
}
END_TEST

/* A full cache gives PCP_BATCH frames back to the lists before it takes
 * one more. */
START_TEST(test_cache_overflow)
{
	struct page *p[PCP_FRAMES + 1];
	for (int i = 0; i <= PCP_FRAMES; i++)
		p[i] = page_alloc(0, 0);
	uint64_t before = cpus[0].pcp.n;
	for (int i = 0; i <= PCP_FRAMES; i++)
		page_free(p[i], 0);
	uint64_t frees = PCP_FRAMES + 1, room = PCP_FRAMES - before;
	ck_assert_uint_eq(cpus[0].pcp.n, before + frees - PCP_BATCH);   /* one batch back */
	ck_assert_uint_gt(frees, room);
	ck_assert_uint_eq(mm_stats.cached, cpus[0].pcp.n);
	ck_assert_uint_eq(buddy_check(), host_free0);
}
END_TEST

/* The last free frames sit in other CPUs' caches: an allocation that finds
 * the lists empty drains every cache and gets them, so exhaustion still
 * hands out every free frame. */
START_TEST(test_cache_drained_when_short)
{
	for (int c = 1; c < 4; c++) {   /* three CPUs cache frames */
		host_set_cpu(c);
		page_free(page_alloc(0, 0), 0);
	}
	host_set_cpu(0);
	ck_assert_uint_eq(mm_stats.cached, 3 * PCP_BATCH);
	struct list held;
	uint64_t n = host_exhaust(&held);
	ck_assert_uint_eq(n, host_free0);
	ck_assert_uint_eq(mm_stats.cached, 0);
	for (int c = 0; c < 4; c++)
		ck_assert_uint_eq(cpus[c].pcp.n, 0);
	host_release_all(&held);
	ck_assert_uint_eq(buddy_check(), host_free0);
}
END_TEST

/* Free the held frames at pfn >= lo (else below lo) on CPU cpu. */
static void release_part(struct list *held, uint64_t lo, bool above, int cpu)
{
	host_set_cpu(cpu);
	for (struct list *it = held->next, *next; it != held; it = next) {
		next = it->next;
		struct page *pg = list_entry(it, struct page, link);
		if ((uint64_t)(pg - frames) >= lo ? above : !above) {
			list_del(&pg->link);
			page_free(pg, 0);
		}
	}
	host_set_cpu(0);
}

/* Cached frames are order-0 blocks that no buddy merges with: the top
 * 4 MiB block, freed last on CPU 1, is partly in CPU 1's cache; allocating
 * every 4 MiB block there was drains the caches first. */
START_TEST(test_cache_drained_for_large_block)
{
	uint64_t big = buddy_free_blocks(MAX_ORDER - 1);
	uint64_t top = ALIGN_DOWN(max_pfn - 1, 1UL << (MAX_ORDER - 1));
	struct list held;
	host_exhaust(&held);
	release_part(&held, top, false, 0);
	release_part(&held, top, true, 1);
	ck_assert_uint_ge(cpus[1].pcp.n, PCP_FRAMES - PCP_BATCH);
	ck_assert_uint_eq(mm_stats.free, host_free0);
	ck_assert_uint_lt(buddy_free_blocks(MAX_ORDER - 1), big);   /* the lists alone: one short */
	struct page *b[64];
	ck_assert_uint_le(big, 64);
	for (uint64_t i = 0; i < big; i++) {
		b[i] = page_alloc(MAX_ORDER - 1, 0);
		ck_assert_ptr_nonnull(b[i]);
	}
	ck_assert_uint_eq(mm_stats.cached, 0);
	for (uint64_t i = 0; i < big; i++)
		page_free(b[i], MAX_ORDER - 1);
	ck_assert_uint_eq(buddy_check(), host_free0);
}
END_TEST

/* pcp=off: frames go straight to and from the lists. */
START_TEST(test_cache_off)
{
	frame_cache_on = false;
	struct page *p = page_alloc(0, 0);
	page_free(p, 0);
	ck_assert_uint_eq(mm_stats.cached, 0);
	ck_assert_uint_eq(buddy_check(), host_free0);
}
END_TEST

START_TEST(test_zeroing)
{
	struct page *p = page_alloc(2, 0);
	memset(page_va(p), 0x77, 4 * PAGE_SIZE);
	page_free(p, 2);
	struct page *z = page_alloc(2, PA_ZERO);
	ck_assert_ptr_eq(z, p);   /* LIFO: the same block comes back */
	const unsigned char *b = page_va(z);
	for (size_t i = 0; i < 4 * PAGE_SIZE; i++)
		ck_assert_uint_eq(b[i], 0);
	page_free(z, 2);
}
END_TEST

START_TEST(test_refcount)
{
	uint64_t f0 = mm_stats.free;
	struct page *p = page_alloc(1, PA_FILE);
	page_get(p);
	ck_assert_uint_eq(p->refcount, 2);
	page_put(p);
	ck_assert_int_eq(p->type, PG_FILE);
	page_set_type(p, PG_ANON);
	ck_assert_uint_eq(mm_stats.by_type[PG_ANON], 2);
	page_put(p);
	ck_assert_int_eq(p->type, PG_FREE);
	ck_assert_uint_eq(mm_stats.free, f0);
}
END_TEST

/* ---- invariant violations: each one must panic (abort) ---- */

START_TEST(test_double_free)
{
	struct page *p = page_alloc(0, 0);
	page_free(p, 0);
	page_free(p, 0);
}
END_TEST

START_TEST(test_free_unallocated)
{
	page_free(pa_to_page(0), 0);   /* frame 0 is reserved */
}
END_TEST

START_TEST(test_free_pinned_wrong_order)
{
	struct page *p = page_alloc(2, 0);
	page_free(p, 1);
}
END_TEST

START_TEST(test_free_tail)
{
	struct page *p = page_alloc(2, 0);
	page_free(p + 1, 0);
}
END_TEST

START_TEST(test_put_underflow)
{
	struct page *p = page_alloc(0, 0);
	page_put(p);
	page_put(p);
}
END_TEST

START_TEST(test_check_catches_corruption)
{
	struct page *p = page_alloc(3, 0);
	page_free(p, 3);
	buddy_check();
	p[5].type = PG_ANON;   /* a frame inside a free block, wrongly typed */
	buddy_check();
}
END_TEST

START_TEST(test_get_free_frame)
{
	struct page *p = page_alloc(0, 0);
	page_free(p, 0);
	page_get(p);
}
END_TEST

static Suite *buddy_suite(void)
{
	Suite *s = suite_create("mm_buddy");
	TCase *tc = host_tcase(s, "core", setup, host_mm_teardown);
	tcase_add_test(tc, test_database);
	tcase_add_test(tc, test_split_merge);
	tcase_add_test(tc, test_noreserve_leaves_the_reserve);
	tcase_add_test(tc, test_every_order);
	tcase_add_test(tc, test_exhaustion);
	tcase_add_test(tc, test_zeroing);
	tcase_add_test(tc, test_refcount);

	TCase *pcp = host_tcase(s, "pcp", setup, host_mm_teardown);
	tcase_add_test(pcp, test_cache_reuse);
	tcase_add_test(pcp, test_cache_overflow);
	tcase_add_test(pcp, test_cache_drained_when_short);
	tcase_add_test(pcp, test_cache_drained_for_large_block);
	tcase_add_test(pcp, test_cache_off);

	TCase *bad = host_tcase(s, "panics", setup, host_mm_teardown);
	tcase_add_test_raise_signal(bad, test_double_free, SIGABRT);
	tcase_add_test_raise_signal(bad, test_free_unallocated, SIGABRT);
	tcase_add_test_raise_signal(bad, test_free_pinned_wrong_order, SIGABRT);
	tcase_add_test_raise_signal(bad, test_free_tail, SIGABRT);
	tcase_add_test_raise_signal(bad, test_put_underflow, SIGABRT);
	tcase_add_test_raise_signal(bad, test_get_free_frame, SIGABRT);
	tcase_add_test_raise_signal(bad, test_check_catches_corruption, SIGABRT);
	return s;
}

int main(void)
{
	return host_run_suite(buddy_suite());
}

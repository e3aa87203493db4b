/* tests/unit/test_mm_lazyfree.c -- the pieces of lazy freeing below the
 * address spaces, on simulated RAM (MADV_FREE's walk and the reverse-map
 * loop, mm/lazyfree.c, run in the kernel: test=user t_madv, threadtests,
 * the VM tester): reclaim's discard step at an entry (pgt_page_out with
 * PAGE_OUT_DISCARD: a clean page goes after a flush, a written one stays,
 * a page with another reference or reachable through a PT page fork
 * shared stays), the atomic clear it uses, the lazy list and its flag, and the
 * reclaimer's order (the SHRINKER_FIRST shrinker first, for all that is
 * wanted), its watermarks and that allocation never reclaims. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "mm/anon_rmap.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/lru.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/ptshare.h"
#include "mm/reclaim.h"
#include "mm/pt/tlb.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(32)
#define UVA (USER_TEXT_BASE + MiB(4))
#define VA(i) (UVA + (vaddr_t)(i) * PAGE_SIZE)

static struct pagetable *pgt;

static void setup(void)
{
	host_mm_setup(RAM, true);
	anon_rmap_init();       /* a freed page leaves its list */
	reclaim_init();
	pgt = pgt_create();
}

static void teardown(void)
{
	host_mm_teardown();
}

/* Map n anonymous pages at VA(0..n), page i filled with byte i + 1, each
 * on the lazy list (as MADV_FREE leaves them; pgt_map makes clean entries). */
static void map_pages(int n)
{
	for (int i = 0; i < n; i++) {
		struct page *pg = page_alloc(0, PA_ANON);
		ck_assert_ptr_nonnull(pg);
		memset(page_va(pg), i + 1, PAGE_SIZE);
		ck_assert_int_eq(pgt_map(pgt, VA(i), page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE), 0);
		lru_add(pg, LRU_COLD);
		lru_move(pg, LRU_LAZY, AT_TAIL);
	}
}

/* The leaf entry of va (0 if unmapped). */
static pte_t entry(vaddr_t va)
{
	paddr_t pa;
	pte_t e;
	return pgt_lookup(pgt, va, &pa, &e) ? pte_make(pa, e) : 0;
}

/* The frame mapped at va. */
static struct page *page_at(vaddr_t va)
{
	return pa_to_page(pte_addr(entry(va)));
}

/* What the CPU does on a write: set D in the entry (bypassing the kernel). */
static int cpu_write_pte(struct walk *w)
{
	*w->ep = pte_mkdirty(*w->ep);
	return 0;
}

static void cpu_write(vaddr_t va)
{
	static const struct walk_ops ops = { .pte = cpu_write_pte };
	struct walk w = { .ops = &ops, .pgt = pgt };
	walk_range(&w, va, va + PAGE_SIZE);
}

/* The whole address space gone, every frame back and off the lists. */
static void check_all_gone(void)
{
	pgt_destroy(pgt);
	ck_assert_uint_eq(lru_pages(LRU_LAZY) + lru_pages_all(), 0);
	host_assert_no_leak();
}

/* A clean page goes: its entry cleared, its frame freed only after the
 * batch's flush; a page written since MADV_FREE cleaned it (D set by the
 * CPU) stays with its data. */
START_TEST(test_discard_clean_keeps_written)
{
	map_pages(8);
	cpu_write(VA(3));
	pgt_activate(pgt);
	uint64_t free0 = mm_stats.free;
	int flushes0 = host_pv.flush_one + host_pv.flush_user;
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(host_discard(pgt, VA(i)), i == 3 ? PAGE_OUT_DIRTY : PAGE_OUT_DONE);
	ck_assert_uint_eq(mm_stats.free, free0 + 7);
	ck_assert_int_ge(host_pv.flush_one + host_pv.flush_user, flushes0 + 7);
	for (int i = 0; i < 8; i++)
		ck_assert(pte_present(entry(VA(i))) == (i == 3));
	ck_assert_uint_eq(((uint8_t *)P2V(pte_addr(entry(VA(3)))))[100], 4);   /* kept */
	ck_assert_uint_eq(host_pt_of(pgt, VA(0))->count, 1);
	ck_assert_int_eq(host_discard(pgt, VA(0)), PAGE_OUT_NOT_MAPPED);
	pgt_activate(&kernel_pgt);
	check_all_gone();
}
END_TEST

/* A page with a reference besides its entry and the reclaimer's hold (a
 * second mapping, a reference of the kernel's) is not discarded: whoever
 * holds it may still read or write it. */
START_TEST(test_discard_passes_referenced_page)
{
	map_pages(2);
	struct page *pg = page_at(VA(1));
	page_get(pg);
	ck_assert_int_eq(host_discard(pgt, VA(1)), PAGE_OUT_SHARED);
	ck_assert(pte_present(entry(VA(1))));
	page_put(pg);
	ck_assert_int_eq(host_discard(pgt, VA(1)), PAGE_OUT_DONE);
	ck_assert(!pte_present(entry(VA(1))));
	check_all_gone();
}
END_TEST

/* The atomic clear: a dirty entry is left as it is (and reported), a clean
 * one is cleared with the PT page's present count. */
START_TEST(test_clear_clean_leaf)
{
	map_pages(2);
	cpu_write(VA(0));
	struct page *pt = host_pt_of(pgt, VA(0));
	pte_t *ep = (pte_t *)page_va(pt) + pgl_index(VA(0), PGL_PT);
	spin_lock(pt_lock(pt));
	pte_t old0 = pt_clear_clean_leaf(pgt, VA(0), ep);
	pte_t old1 = pt_clear_clean_leaf(pgt, VA(1), ep + 1);
	spin_unlock(pt_lock(pt));
	ck_assert(pte_present(old0) && pte_dirty(old0) && pte_present(entry(VA(0))));
	ck_assert(pte_present(old1) && !pte_dirty(old1) && !pte_present(entry(VA(1))));
	ck_assert_uint_eq(pt->count, 1);
	page_put(pa_to_page(pte_addr(old1)));   /* the cleared entry's reference */
	check_all_gone();
}
END_TEST

/* Through a PT page fork shares: a page one entry maps for two address
 * spaces is kept for both (as one mapped twice: usertests madv_free_fork),
 * written or not; nothing is unshared. */
START_TEST(test_discard_through_shared_pt)
{
	map_pages(8);
	cpu_write(VA(5));
	struct vma v = { .start = UVA, .end = UVA + LARGE_PAGE_SIZE,
			 .prot = PROT_READ | PROT_WRITE, .flags = VM_ANON };
	struct pagetable *child = pgt_create();
	ck_assert_int_eq(host_fork_share(child, pgt, &v), 0);
	struct page *pt = host_pt_of(pgt, VA(0));
	ck_assert_ptr_eq(pt, host_pt_of(child, VA(0)));
	ck_assert_int_eq(host_discard(pgt, VA(2)), PAGE_OUT_SHARED);
	ck_assert_int_eq(host_discard(child, VA(5)), PAGE_OUT_DIRTY);
	ck_assert(pgt_lookup(child, VA(2), NULL, NULL) && pgt_lookup(pgt, VA(2), NULL, NULL));
	ck_assert(pgt_lookup(child, VA(5), NULL, NULL));
	ck_assert_uint_eq(pt->pt.share, 2);
	ck_assert_ptr_eq(pt, host_pt_of(child, VA(0)));
	pgt_destroy(child);
	ck_assert_int_eq(host_discard(pgt, VA(2)), PAGE_OUT_DONE);   /* its own again */
	check_all_gone();
}
END_TEST

/* The lazy list: its flag follows the page (AF_LAZYFREE on it only), it is
 * not among the pages swap could take, and the smaps rule counts a page
 * lazy-free while its entry is clean. */
START_TEST(test_lazy_list)
{
	map_pages(3);
	ck_assert_uint_eq(lru_pages(LRU_LAZY), 3);
	ck_assert_uint_eq(lru_pages_all(), 0);
	struct page *pg = page_at(VA(0));
	ck_assert(pg->aflags & AF_LAZYFREE);
	ck_assert(page_lazyfree_mapping(pg, entry(VA(0))));
	cpu_write(VA(0));
	ck_assert(!page_lazyfree_mapping(pg, entry(VA(0))));
	lru_move(pg, LRU_HOT, AT_TAIL);      /* written: back among normal pages */
	ck_assert(!(pg->aflags & AF_LAZYFREE) && (pg->aflags & AF_HOT));
	ck_assert_uint_eq(lru_pages(LRU_LAZY), 2);
	ck_assert_uint_eq(lru_pages_all(), 1);
	lru_move(pg, LRU_LAZY, AT_TAIL);
	struct page *first = lru_take(LRU_LAZY);   /* oldest first: VA(1)'s */
	ck_assert_ptr_eq(first, page_at(VA(1)));
	page_let_go(first);
	lru_del(pg);
	ck_assert(!(pg->aflags & (AF_LAZYFREE | AF_LRU | AF_HOT)));
	ck_assert_uint_eq(lru_pages(LRU_LAZY), 2);
	check_all_gone();
}
END_TEST

/* A shrinker for the reclaimer tests: frees frames it took at setup, up to
 * what it is asked; notes how it was asked. */
static struct list fake_pool;
static uint64_t fake_n, fake_asked, fake_calls, first_asked, first_calls;

static uint64_t fake_free(uint64_t n)
{
	uint64_t freed = 0;
	for (; freed < n && !list_empty(&fake_pool); freed++) {
		struct page *pg = list_entry(fake_pool.next, struct page, link);
		list_del(&pg->link);
		page_free(pg, 0);
		fake_n--;
	}
	return freed;
}

static uint64_t fake_count(void) { return fake_n; }
static uint64_t fake_scan(uint64_t n) { fake_asked += n; fake_calls++; return fake_free(n); }
static uint64_t first_scan(uint64_t n) { first_asked += n; first_calls++; return fake_free(n); }

static struct shrinker fake_first = { .name = "test-first", .count = fake_count,
				      .scan = first_scan, .flags = SHRINKER_FIRST };
static struct shrinker fake_share = { .name = "test-share", .count = fake_count,
				      .scan = fake_scan };

/* Give the fake shrinkers n frames to free. */
static void fake_fill(uint64_t n)
{
	list_init(&fake_pool);
	for (fake_n = 0; fake_n < n; fake_n++) {
		struct page *pg = page_alloc(0, 0);
		ck_assert_ptr_nonnull(pg);
		list_add_tail(&fake_pool, &pg->link);
	}
}

/* The round's order: the SHRINKER_FIRST one is asked first, for all that
 * is wanted; when it gives that, the others are asked only their share
 * (nothing is left for a SHRINKER_LAST one). A task's frames count as
 * direct reclaim. */
START_TEST(test_first_shrinker_asked_first)
{
	reclaim_add_shrinker(&fake_first);
	reclaim_add_shrinker(&fake_share);
	fake_fill(64);
	reclaim_min = reclaim_low = mm_stats.free + 16;
	reclaim_high = reclaim_low + 8;
	uint64_t want = reclaim_high - mm_stats.free;
	ck_assert(reclaim_direct());
	ck_assert_uint_eq(first_calls, 1);
	ck_assert_uint_eq(first_asked, want);
	ck_assert_uint_ge(mm_stats.free, reclaim_high);
	ck_assert_uint_eq(reclaim_stats.direct_freed, 64 - fake_n);   /* with the others' share */
	fake_free(fake_n);
	ck_assert(!reclaim_direct());        /* nothing left to free */
	check_all_gone();
}
END_TEST

/* A SHRINKER_UNLOCKED shrinker (the lazy list's: it walks the reverse
 * map) runs at a system call's or fault's entry (reclaim_if_low, nothing
 * held) but not in a fault between attempts (reclaim_direct, under the
 * address space's lock): that one waits for the thread instead, which
 * reclaim_background_pending counts it for. */
START_TEST(test_unlocked_shrinker_not_under_lock)
{
	static struct shrinker unlocked = { .name = "test-unlocked", .count = fake_count,
					    .scan = first_scan,
					    .flags = SHRINKER_FIRST | SHRINKER_UNLOCKED };
	reclaim_add_shrinker(&unlocked);
	fake_fill(64);
	ck_assert_uint_eq(reclaim_background_pending(), 64);
	reclaim_min = reclaim_low = mm_stats.free + 16;
	reclaim_high = reclaim_low + 8;
	ck_assert(!reclaim_direct());       /* a fault between attempts: not its to run */
	ck_assert_uint_eq(first_calls, 0);
	reclaim_if_low();                   /* entry, nothing held: runs */
	ck_assert_uint_eq(first_calls, 1);
	ck_assert_uint_ge(mm_stats.free, reclaim_low);
	fake_free(fake_n);
	check_all_gone();
}
END_TEST

/* The allocator never reclaims (mm/frame/page.h): with free memory below
 * every watermark and a shrinker able to free, an allocation (inside an
 * open TLB batch, which is allowed now) takes a free frame and asks
 * nothing. */
START_TEST(test_alloc_never_reclaims)
{
	reclaim_add_shrinker(&fake_first);
	fake_fill(8);
	reclaim_min = reclaim_low = mm_stats.free + 64;
	reclaim_high = reclaim_low + 64;
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	struct page *pg = page_alloc(0, 0);
	tlb_end(&b);
	ck_assert_ptr_nonnull(pg);
	page_free(pg, 0);
	ck_assert_uint_eq(first_calls, 0);
	fake_free(fake_n);
	check_all_gone();
}
END_TEST

/* The watermarks (mm/reclaim.h): reclaim_wanted below low with something
 * to free; reclaim_if_low does nothing above min and reclaims to low below
 * it; reclaim_background to high. */
START_TEST(test_watermarks)
{
	reclaim_add_shrinker(&fake_first);
	fake_fill(64);
	uint64_t free = mm_stats.free;
	reclaim_min = free - 1, reclaim_low = free + 4, reclaim_high = free + 10;
	ck_assert(reclaim_wanted());
	reclaim_if_low();                   /* above min: nothing */
	ck_assert_uint_eq(first_calls, 0);
	reclaim_min = free + 2;
	reclaim_if_low();                   /* below min: up to low */
	ck_assert_uint_eq(mm_stats.free, free + 4);
	ck_assert(!reclaim_wanted());       /* at low */
	reclaim_low = mm_stats.free + 2;
	ck_assert(reclaim_wanted());
	reclaim_background();               /* up to high */
	ck_assert_uint_eq(mm_stats.free, reclaim_high);
	ck_assert(!reclaim_wanted());
	ck_assert_uint_eq(reclaim_stats.background_discarded, 6);
	fake_free(fake_n);
	check_all_gone();
}
END_TEST

/* No page-table page is freed without a TLB flush (issue 14, defect 4),
 * and reclaim frees none (issue 35, defect 3: it changes leaves only, so a
 * walker of the owner's never finds a table freed under it): after every
 * page of a PT page was discarded, the emptied PT page stays linked;
 * unmapping the range frees it and the tables above -- with a flush, since
 * a paging-structure cache may still hold their entries. */
START_TEST(test_table_frees_are_flushed)
{
	map_pages(8);
	pgt_activate(pgt);
	int released0 = host_pv.release_pt;
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(host_discard(pgt, VA(i)), PAGE_OUT_DONE);
	ck_assert_int_eq(host_pv.release_pt, released0);       /* the empty PT page stays */
	int flushes1 = host_pv.flush_one + host_pv.flush_user;
	host_unmap(pgt, VA(0), VA(8), 0);                          /* the PT, PD and PDPT */
	ck_assert_int_eq(host_pv.release_pt, released0 + 3);
	ck_assert_int_gt(host_pv.flush_one + host_pv.flush_user, flushes1);
	pgt_activate(&kernel_pgt);
	check_all_gone();
}
END_TEST

/* pt_clear_clean_leaf into a PT page several address spaces share: a
 * panic naming the table (reclaim keeps such pages; only
 * pt_xchg_shared_leaf may clear a shared table's entry). */
START_TEST(test_clean_clear_of_shared_table_panics)
{
	map_pages(1);
	struct vma v = { .start = UVA, .end = UVA + LARGE_PAGE_SIZE,
			 .prot = PROT_READ | PROT_WRITE, .flags = VM_ANON };
	struct pagetable *child = pgt_create();
	ck_assert_int_eq(host_fork_share(child, pgt, &v), 0);
	struct page *pt = host_pt_of(pgt, VA(0));
	(void)pt_clear_clean_leaf(pgt, VA(0), (pte_t *)page_va(pt) + pgl_index(VA(0), PGL_PT));
}
END_TEST

static Suite *lazyfree_suite(void)
{
	Suite *s = suite_create("mm_lazyfree");
	TCase *tc = host_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_discard_clean_keeps_written);
	tcase_add_test(tc, test_discard_passes_referenced_page);
	tcase_add_test(tc, test_clear_clean_leaf);
	tcase_add_test(tc, test_discard_through_shared_pt);
	tcase_add_test(tc, test_lazy_list);
	tcase_add_test(tc, test_first_shrinker_asked_first);
	tcase_add_test(tc, test_unlocked_shrinker_not_under_lock);
	tcase_add_test(tc, test_alloc_never_reclaims);
	tcase_add_test(tc, test_watermarks);
	tcase_add_test(tc, test_table_frees_are_flushed);

	TCase *bad = host_tcase(s, "panics", setup, teardown);
	tcase_add_test_raise_signal(bad, test_clean_clear_of_shared_table_panics, SIGABRT);
	return s;
}

int main(void)
{
	return host_run_suite(lazyfree_suite());
}

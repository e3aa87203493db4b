/* tests/unit/test_mm_lazyfree.c -- MADV_FREE marking, the lazy-free list
 * and reclaim on simulated RAM: entries become LAZYFREE and clean, reclaim
 * takes the oldest first, discards clean pages mapped once and keeps
 * written or shared ones, every path that clears an entry forgets its
 * record (no dangling records, no leaked frames), the allocator's slow path
 * reclaims before failing, and lazyfree_check catches a broken record. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/lazyfree.h"
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
	reclaim_init();
	lazyfree_stats = (struct lazyfree_stats){ 0 };
	pgt = pgt_create();
}

static void teardown(void)
{
	host_mm_teardown();
}

/* Map n anonymous pages at VA(0..n), page i filled with byte i + 1. */
static void map_pages(int n)
{
	for (int i = 0; i < n; i++) {
		struct page *pg = page_alloc(0, PA_ANON);
		ck_assert_ptr_nonnull(pg);
		memset(page_va(pg), i + 1, PAGE_SIZE);
		ck_assert_int_eq(pgt_map(pgt, VA(i), page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	}
}

/* The leaf entry of va (0 if unmapped). */
static pte_t entry(vaddr_t va)
{
	paddr_t pa;
	pte_t e;
	return pgt_lookup(pgt, va, &pa, &e) ? pte_make(pa, e) : 0;
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

/* The whole address space gone, every frame back, no record left. */
static void check_all_gone(void)
{
	pgt_destroy(pgt);
	ck_assert_uint_eq(lazyfree_check(), 0);
	host_assert_no_leak();
}

START_TEST(test_mark_clean_lazyfree)
{
	map_pages(8);
	for (int i = 0; i < 8; i++)
		cpu_write(VA(i));
	lazyfree_range(pgt, VA(0), VA(8));
	for (int i = 0; i < 8; i++) {
		pte_t e = entry(VA(i));
		ck_assert(pte_present(e) && pte_lazyfree(e) && !pte_dirty(e));
	}
	ck_assert_uint_eq(lazyfree_stats.pages, 8);
	ck_assert_uint_eq(lazyfree_stats.marked, 8);
	ck_assert_uint_eq(lazyfree_check(), 8);
	lazyfree_range(pgt, VA(0), VA(8));   /* again: no new records */
	ck_assert_uint_eq(lazyfree_check(), 8);
	for (int i = 0; i < 8; i++)
		ck_assert(lazyfree_counted(pgt, VA(i)));
	check_all_gone();
}
END_TEST

START_TEST(test_reclaim_clean_and_dirty)
{
	map_pages(8);
	lazyfree_range(pgt, VA(0), VA(8));
	for (int i = 0; i < 8; i += 2)
		cpu_write(VA(i));                 /* the even pages are reused */
	reclaim_lazyfree(100);
	ck_assert_uint_eq(lazyfree_stats.discarded, 4);
	ck_assert_uint_eq(lazyfree_stats.reused, 4);
	ck_assert_uint_eq(lazyfree_stats.pages, 0);
	ck_assert_uint_eq(reclaim_stats.scans, 8);
	for (int i = 0; i < 8; i++) {
		pte_t e = entry(VA(i));
		if (i % 2) {
			ck_assert(!pte_present(e));
			continue;
		}
		ck_assert(pte_present(e) && !pte_lazyfree(e));
		ck_assert_uint_eq(((uint8_t *)P2V(pte_addr(e)))[100], i + 1);  /* kept */
	}
	check_all_gone();
}
END_TEST

/* Oldest first, per PT page: reclaim takes the PT page whose last
 * MADV_FREE is oldest, all of its pages; marking again makes it young. */
START_TEST(test_oldest_first)
{
	map_pages(PT_ENTRIES + 8);
	lazyfree_range(pgt, VA(0), VA(8));
	lazyfree_range(pgt, VA(PT_ENTRIES), VA(PT_ENTRIES + 8));
	lazyfree_range(pgt, VA(4), VA(8));    /* the first PT page is young again */
	reclaim_lazyfree(4);
	for (int i = 0; i < PT_ENTRIES + 8; i++)
		ck_assert_int_eq(pte_present(entry(VA(i))), i < PT_ENTRIES);
	ck_assert_uint_eq(lazyfree_check(), 8);
	reclaim_lazyfree(1);
	ck_assert(!pte_present(entry(VA(0))) && pte_present(entry(VA(8))));
	ck_assert_uint_eq(lazyfree_check(), 0);
	check_all_gone();
}
END_TEST

/* MADV_FREE again over pages nobody wrote changes no entry and flushes
 * nothing; a written page is cleaned again and flushed. */
START_TEST(test_remark_clean_no_flush)
{
	map_pages(8);
	pgt_activate(pgt);
	lazyfree_range(pgt, VA(0), VA(8));
	int flushes0 = host_pv.flush_one + host_pv.flush_user;
	lazyfree_range(pgt, VA(0), VA(8));
	ck_assert_int_eq(host_pv.flush_one + host_pv.flush_user, flushes0);
	cpu_write(VA(5));
	lazyfree_range(pgt, VA(0), VA(8));
	ck_assert_int_eq(host_pv.flush_one + host_pv.flush_user, flushes0 + 1);
	ck_assert(!pte_dirty(entry(VA(5))) && pte_lazyfree(entry(VA(5))));
	ck_assert_uint_eq(lazyfree_stats.marked, 24);
	ck_assert_uint_eq(lazyfree_check(), 8);
	pgt_activate(&kernel_pgt);
	check_all_gone();
}
END_TEST

/* One record per PT page, allocated by the first MADV_FREE there: giving
 * the same memory back again allocates nothing. */
START_TEST(test_one_record_per_pt_page)
{
	map_pages(PT_ENTRIES + 8);
	uint64_t live0 = kmalloc_live();
	lazyfree_range(pgt, VA(0), VA(PT_ENTRIES + 8));
	ck_assert_uint_eq(kmalloc_live(), live0 + 2);
	ck_assert_uint_eq(lazyfree_stats.records, 2);
	ck_assert_uint_eq(lazyfree_stats.pages, PT_ENTRIES + 8);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < PT_ENTRIES + 8; i += 3)
			cpu_write(VA(i));
		lazyfree_range(pgt, VA(0), VA(PT_ENTRIES + 8));
		ck_assert_uint_eq(kmalloc_live(), live0 + 2);
		ck_assert(!pte_dirty(entry(VA(3))) && pte_lazyfree(entry(VA(3))));
	}
	ck_assert_uint_eq(lazyfree_stats.marked, 4 * (PT_ENTRIES + 8));
	ck_assert_uint_eq(lazyfree_check(), PT_ENTRIES + 8);
	host_unmap(pgt, VA(0), VA(PT_ENTRIES), 0);   /* the first record empties: freed */
	ck_assert_uint_eq(kmalloc_live(), live0 + 1);
	ck_assert_uint_eq(lazyfree_check(), 8);
	check_all_gone();
	ck_assert_uint_eq(lazyfree_stats.records, 0);
}
END_TEST

START_TEST(test_unmap_and_replace_forget)
{
	map_pages(8);
	lazyfree_range(pgt, VA(0), VA(8));
	host_unmap(pgt, VA(0), VA(4), 0);                        /* munmap / DONTNEED */
	ck_assert_uint_eq(lazyfree_check(), 4);
	struct page *copy = page_alloc(0, PA_ANON);
	host_replace(pgt, VA(4), page_to_pa(copy), VM_READ | VM_WRITE);  /* a COW copy */
	ck_assert_uint_eq(lazyfree_check(), 3);
	ck_assert_uint_eq(lazyfree_stats.forgotten, 5);
	check_all_gone();                                    /* exit: the rest */
}
END_TEST

START_TEST(test_mapped_twice_kept)
{
	map_pages(4);
	struct page *pg0 = pa_to_page(pte_addr(entry(VA(0))));
	struct page *pg1 = pa_to_page(pte_addr(entry(VA(1))));
	page_get(pg0);                        /* a second mapping before MADV_FREE */
	lazyfree_range(pgt, VA(0), VA(4));
	ck_assert(!pte_lazyfree(entry(VA(0))));
	ck_assert_uint_eq(lazyfree_stats.pages, 3);
	page_get(pg1);                        /* ... and one after it */
	reclaim_lazyfree(100);
	ck_assert(pte_present(entry(VA(0))) && pte_present(entry(VA(1))));
	ck_assert(!pte_present(entry(VA(2))));
	ck_assert_uint_eq(lazyfree_stats.discarded, 2);
	page_put(pg0);
	page_put(pg1);
	check_all_gone();
}
END_TEST

/* Memory exhausted with lazy-free pages waiting: the allocator fails (it
 * never reclaims), direct reclaim (a page fault's, between attempts) then
 * frees every clean one and keeps the written one, and allocation works
 * again. */
START_TEST(test_direct_reclaim_after_failure)
{
	map_pages(64);
	lazyfree_range(pgt, VA(0), VA(64));
	cpu_write(VA(10));
	struct list held;
	host_exhaust(&held);
	ck_assert_ptr_null(page_alloc(0, 0));  /* nothing free: NULL, no panic */
	ck_assert_uint_eq(lazyfree_stats.discarded, 0);
	ck_assert(reclaim_direct());
	ck_assert_uint_eq(lazyfree_stats.discarded, 63);
	ck_assert_uint_eq(lazyfree_stats.pages, 0);
	struct list more;
	uint64_t got = host_exhaust(&more);
	ck_assert_uint_ge(got, 63);
	ck_assert(!reclaim_direct());          /* nothing left to reclaim */
	host_release_all(&more);
	ck_assert_uint_eq(((uint8_t *)P2V(pte_addr(entry(VA(10)))))[0], 11);
	host_release_all(&held);
	check_all_gone();
}
END_TEST

/* Fork with shared PT pages: the frames are mapped twice, so fork drops
 * their records (under lazyfree_lock: reclaim never writes a leaf of a PT
 * page fork shares, issue 35 defect 3) and MADV_FREE skips them; once the
 * PT page is private again marking works; and an address space that exits
 * while its PT page is still shared leaves no record behind (ASan would
 * catch the use after free). */
START_TEST(test_shared_pt)
{
	map_pages(8);
	struct vma v = { .start = UVA, .end = UVA + LARGE_PAGE_SIZE,
			 .prot = PROT_READ | PROT_WRITE, .flags = VM_ANON };
	lazyfree_range(pgt, VA(0), VA(8));
	struct pagetable *child = pgt_create();
	ck_assert_int_eq(host_fork_share(child, pgt, &v), 0);
	ck_assert_uint_eq(lazyfree_stats.pages, 0);     /* fork dropped the record */
	reclaim_lazyfree(100);
	ck_assert_uint_eq(lazyfree_stats.discarded, 0);
	for (int i = 0; i < 8; i++)
		ck_assert(pte_present(entry(VA(i))));
	lazyfree_range(pgt, VA(0), VA(8));          /* shared: skipped */
	ck_assert_uint_eq(lazyfree_stats.pages, 0);
	pgt_destroy(child);
	lazyfree_range(pgt, VA(0), VA(8));          /* private again (unshared) */
	ck_assert_uint_eq(lazyfree_check(), 8);

	struct pagetable *child2 = pgt_create();
	ck_assert_int_eq(host_fork_share(child2, pgt, &v), 0);
	pgt_destroy(pgt);                           /* the records' owner exits */
	ck_assert_uint_eq(lazyfree_check(), 0);
	pgt_destroy(child2);
	host_assert_no_leak();
}
END_TEST

/* An entry changed behind the lazy-free list's back: the check panics. */
START_TEST(test_check_catches_stale_record)
{
	map_pages(2);
	lazyfree_range(pgt, VA(0), VA(2));
	pte_t *e = pt_root(pgt);
	for (int level = PGL_PML4; level > PGL_PT; level--)
		e = P2V(pte_addr(e[pgl_index(VA(1), level)]));
	e[pgl_index(VA(1), PGL_PT)] = pte_clear_lazyfree(e[pgl_index(VA(1), PGL_PT)]);
	lazyfree_check();
}

/* The allocator never reclaims (mm/frame/page.h): with free memory below
 * every watermark and lazy-free pages waiting, an allocation (inside an
 * open TLB batch, which is allowed now) takes a free frame and discards
 * nothing; classic fork then copies every page, lazy ones too. */
START_TEST(test_alloc_never_reclaims)
{
	map_pages(8);
	lazyfree_range(pgt, VA(4), VA(8));
	reclaim_min = reclaim_low = mm_stats.free + 64;
	reclaim_high = reclaim_low + 64;
	struct tlb_batch b;
	tlb_begin(&b, pgt);
	struct page *pg = page_alloc(0, 0);
	tlb_end(&b);
	ck_assert_ptr_nonnull(pg);
	page_free(pg, 0);
	struct pagetable *child = pgt_create();
	ck_assert_int_eq(host_fork_copy(child, pgt, VA(0), VA(8), 0), 0);
	ck_assert_uint_eq(lazyfree_stats.discarded, 0);
	ck_assert_uint_eq(pgt_rss(child), 8);
	ck_assert_uint_eq(pgt_rss(pgt), 8);
	ck_assert(pte_cow(entry(VA(0))));
	pgt_destroy(child);
	check_all_gone();
}
END_TEST

/* The watermarks (mm/reclaim.h): reclaim_wanted below low with records
 * left; reclaim_if_low does nothing above min and reclaims to low below
 * it; reclaim_background to high; reclaim_direct says whether it freed. */
START_TEST(test_watermarks)
{
	map_pages(64);
	lazyfree_range(pgt, VA(0), VA(64));
	uint64_t free = mm_stats.free;
	reclaim_min = free - 1, reclaim_low = free + 4, reclaim_high = free + 10;
	ck_assert(reclaim_wanted());
	reclaim_if_low();                   /* above min: nothing */
	ck_assert_uint_eq(lazyfree_stats.discarded, 0);
	reclaim_min = free + 2;
	reclaim_if_low();                   /* below min: at least up to low */
	ck_assert_uint_ge(mm_stats.free, free + 4);   /* (a record at a time) */
	ck_assert(!reclaim_wanted());       /* every page of the record went */
	ck_assert(!reclaim_direct());       /* no record left */
	map_pages(64);
	lazyfree_range(pgt, VA(0), VA(64));
	reclaim_low = mm_stats.free + 4, reclaim_high = mm_stats.free + 10;
	ck_assert(reclaim_wanted());
	reclaim_background();               /* at least up to high */
	ck_assert_uint_ge(mm_stats.free, reclaim_high);
	ck_assert_uint_eq(lazyfree_stats.discarded, 128);
	check_all_gone();
}
END_TEST

/* No page-table page is freed without a TLB flush (issue 14, defect 4),
 * and reclaim frees none (issue 35, defect 3: it changes leaves only, so a
 * walker of the owner's never finds a table freed under it): after reclaim
 * discarded every page of a PT page, the emptied PT page stays linked;
 * unmapping the range frees it and the tables above -- with a flush, since
 * a paging-structure cache may still hold their entries. */
START_TEST(test_table_frees_are_flushed)
{
	map_pages(8);
	lazyfree_range(pgt, VA(0), VA(8));
	pgt_activate(pgt);
	int flushes0 = host_pv.flush_one + host_pv.flush_user;
	int released0 = host_pv.release_pt;
	reclaim_lazyfree(100);
	ck_assert_uint_eq(lazyfree_stats.discarded, 8);
	ck_assert_int_eq(host_pv.release_pt, released0);       /* the empty PT page stays */
	int flushes1 = host_pv.flush_one + host_pv.flush_user;
	ck_assert_int_gt(flushes1, flushes0);
	host_unmap(pgt, VA(0), VA(8), 0);                          /* the PT, PD and PDPT */
	ck_assert_int_eq(host_pv.release_pt, released0 + 3);
	ck_assert_int_gt(host_pv.flush_one + host_pv.flush_user, flushes1);
	pgt_activate(&kernel_pgt);
	check_all_gone();
}
END_TEST

END_TEST

static Suite *lazyfree_suite(void)
{
	Suite *s = suite_create("mm_lazyfree");
	TCase *tc = host_tcase(s, "core", setup, teardown);
	tcase_add_test(tc, test_mark_clean_lazyfree);
	tcase_add_test(tc, test_reclaim_clean_and_dirty);
	tcase_add_test(tc, test_oldest_first);
	tcase_add_test(tc, test_one_record_per_pt_page);
	tcase_add_test(tc, test_remark_clean_no_flush);
	tcase_add_test(tc, test_unmap_and_replace_forget);
	tcase_add_test(tc, test_mapped_twice_kept);
	tcase_add_test(tc, test_direct_reclaim_after_failure);
	tcase_add_test(tc, test_table_frees_are_flushed);
	tcase_add_test(tc, test_alloc_never_reclaims);
	tcase_add_test(tc, test_watermarks);
	tcase_add_test(tc, test_shared_pt);

	TCase *bad = host_tcase(s, "panics", setup, teardown);
	tcase_add_test_raise_signal(bad, test_check_catches_stale_record, SIGABRT);
	return s;
}

int main(void)
{
	return host_run_suite(lazyfree_suite());
}

/* tests/unit/test_mm_ptshare.c -- shared page-table pages on simulated RAM:
 * fork shares PT pages with no per-page work, a write unshares (copy for
 * share > 1, write bit back for the last sharer), private writable entries
 * become COW in both copies, partial chunks are copied, teardown in either
 * order frees everything, and walk_unshare is the choke point. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "lib/errno.h"
#include "mm/as.h"
#include "mm/pt/share.h"
#include "mm/pt/tlb.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/ptshare.h"
#include "mm/reclaim.h"
#include "mm/pt/walk.h"
#include "arch/x86_64/memlayout.h"

#define RAM MiB(64)
#define BASE (USER_TEXT_BASE + MiB(4))   /* 2 MiB aligned */
#define CHUNK LARGE_PAGE_SIZE

static void setup(void) { host_mm_setup(RAM, true); }

/* The PD entry and PT page for va (the chunk must have one). */
static pte_t *pde_of(struct pagetable *pgt, vaddr_t va)
{
	pte_t *ep;
	ck_assert_int_eq(pgt_walk(pgt, va, PGL_PD, 0, &ep), PGL_PD);
	return ep;
}

static struct page *pt_of(struct pagetable *pgt, vaddr_t va)
{
	return pa_to_page(pte_addr(*pde_of(pgt, va)));
}

static pte_t leaf_of(struct pagetable *pgt, vaddr_t va)
{
	pte_t fl = 0;
	ck_assert(pgt_lookup(pgt, va, NULL, &fl));
	return fl;
}

/* Map n private writable anonymous pages from va; returns the first frame. */
static struct page *map_anon(struct pagetable *pgt, vaddr_t va, int n)
{
	struct page *first = NULL;
	for (int i = 0; i < n; i++) {
		struct page *pg = page_alloc(0, PA_ZERO | PA_ANON);
		ck_assert_ptr_nonnull(pg);
		first = first ? first : pg;
		ck_assert_int_eq(pgt_map(pgt, va + (vaddr_t)i * PAGE_SIZE, page_to_pa(pg),
					 PAGE_SIZE, VM_READ | VM_WRITE), 0);
	}
	return first;
}

static struct vma vma_of(vaddr_t start, vaddr_t end)
{
	return (struct vma){ .start = start, .end = end, .prot = PROT_READ | PROT_WRITE,
			     .flags = VM_ANON };
}

/* Table-entry writes the last fork_pair's pgt_share made. */
static int fork_writes;

/* A parent *p with npages private writable pages at BASE and a child *c
 * forked from it over [BASE, BASE + len); returns the first frame. */
static struct page *fork_pair(struct pagetable **p, struct pagetable **c, int npages,
			      uint64_t len)
{
	*p = pgt_create();
	*c = pgt_create();
	struct page *first = map_anon(*p, BASE, npages);
	struct vma v = vma_of(BASE, BASE + len);
	int writes0 = host_pv.entry_writes;
	ck_assert_int_eq(host_fork_share(*c, *p, &v), 0);
	fork_writes = host_pv.entry_writes - writes0;
	return first;
}

/* Destroy a then b; every frame must be back. */
static void destroy_both(struct pagetable *a, struct pagetable *b)
{
	pgt_destroy(a);
	pgt_destroy(b);
	host_assert_no_leak();
}

/* An unshare runs under the address-space lock held for reading: another
 * thread's look-up may have read the old PD entry just before and still be
 * reading the old PT page. So the unsharer's share of it is dropped only at
 * pgt_release_stale (the last reader's unlock, or a writer's): even when the
 * other sharer goes meanwhile, the page stays a live table with its frames
 * until then. (Before: the share was dropped right after the flush, and the
 * parent's exit freed the page under the reader: issue 35.) */
START_TEST(test_unshared_table_lives_until_readers_leave)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 4, CHUNK);
	struct page *old = pt_of(p, BASE);
	ck_assert_int_eq(pgt_lookup_write(c, BASE, NULL, NULL), 1);   /* c unshares */
	ck_assert_ptr_ne(pt_of(c, BASE), old);
	ck_assert(pgt_has_stale(c));
	pgt_destroy(p);                                   /* the other sharer goes */
	ck_assert_int_eq(old->type, PG_PAGETABLE);        /* still there for a reader, */
	ck_assert_uint_eq(old->pt.share, 1);
	ck_assert_uint_eq(pte_addr(ptpage_entries(old)[0]), page_to_pa(f));   /* whole */
	ck_assert_uint_eq(f->refcount, 2);                /* old's entry and c's copy */
	pgt_release_stale(c);                             /* no reader any more */
	ck_assert(!pgt_has_stale(c));
	ck_assert_int_eq(old->type, PG_FREE);
	ck_assert_uint_eq(f->refcount, 1);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_fork_shares_whole_chunks)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 300, CHUNK);
	/* no per-page work: a handful of table-entry writes, not 300 */
	ck_assert_int_lt(fork_writes, 8);
	ck_assert_ptr_eq(pt_of(p, BASE), pt_of(c, BASE));
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 2);
	ck_assert(!pte_writable(*pde_of(p, BASE)) && !pte_writable(*pde_of(c, BASE)));
	ck_assert_uint_eq(f->refcount, 1);   /* one reference per PT page */
	ck_assert_uint_eq(pgt_rss(c), 300);
	pgt_destroy(c);
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 1);
	pgt_destroy(p);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_write_unshares_copy_then_last)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 4, CHUNK);
	struct page *shared = pt_of(p, BASE);

	/* the child writes: it gets a copy; the entries become COW in both */
	ck_assert_int_eq(pgt_lookup_write(c, BASE, NULL, NULL), 1);
	pgt_release_stale(c);   /* the fault's unlock (as_unlock_read) */
	ck_assert_ptr_ne(pt_of(c, BASE), shared);
	ck_assert_uint_eq(shared->pt.share, 1);
	ck_assert(pte_writable(*pde_of(c, BASE)));
	ck_assert_uint_eq(f->refcount, 2);
	ck_assert(pte_cow(leaf_of(c, BASE)) && !pte_writable(leaf_of(c, BASE)));
	ck_assert(pte_cow(leaf_of(p, BASE)) && !pte_writable(leaf_of(p, BASE)));
	ck_assert_uint_eq(pt_of(c, BASE)->count, 4);

	/* the parent, now the last sharer, just gets its write bit back */
	ck_assert_int_eq(pgt_lookup_write(p, BASE, NULL, NULL), 1);
	pgt_release_stale(p);   /* the fault's unlock (as_unlock_read) */
	ck_assert_ptr_eq(pt_of(p, BASE), shared);
	ck_assert(pte_writable(*pde_of(p, BASE)));
	pgt_destroy(p);
	ck_assert_uint_eq(f->refcount, 1);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* The write fault's lookup unshares first: it returns the entry the copy
 * left (COW), never the shared page's stale writable one; on a private PT
 * page it is a plain lookup that writes nothing. */
START_TEST(test_lookup_write_unshares_first)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 4, CHUNK);
	paddr_t pa;
	pte_t e;
	ck_assert(pte_writable(leaf_of(c, BASE)));   /* a read lookup leaves it shared */
	ck_assert_uint_eq(pt_of(c, BASE)->pt.share, 2);
	ck_assert_int_eq(pgt_lookup_write(c, BASE, &pa, &e), 1);
	pgt_release_stale(c);   /* the fault's unlock (as_unlock_read) */
	ck_assert_ptr_ne(pt_of(c, BASE), pt_of(p, BASE));
	ck_assert_uint_eq(pa, page_to_pa(f));
	ck_assert(pte_cow(e) && !pte_writable(e));
	ck_assert_uint_eq(f->refcount, 2);
	int writes0 = host_pv.entry_writes;
	ck_assert_int_eq(pgt_lookup_write(c, BASE, NULL, &e), 1);
	pgt_release_stale(c);   /* the fault's unlock (as_unlock_read) */
	ck_assert_int_eq(pgt_lookup_write(c, BASE + 8 * PAGE_SIZE, NULL, NULL), 0);
	pgt_release_stale(c);   /* the fault's unlock (as_unlock_read) */
	ck_assert_int_eq(host_pv.entry_writes, writes0);
	destroy_both(c, p);
}
END_TEST

START_TEST(test_partial_chunk_is_copied)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 8, 4 * PAGE_SIZE);   /* not a whole chunk */
	ck_assert_ptr_ne(pt_of(p, BASE), pt_of(c, BASE));
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 1);
	ck_assert_uint_eq(pgt_rss(c), 4);
	ck_assert_uint_eq(f->refcount, 2);
	ck_assert(pte_cow(leaf_of(p, BASE)) && pte_cow(leaf_of(c, BASE)));
	ck_assert(pte_writable(leaf_of(p, BASE + 5 * PAGE_SIZE)));   /* outside the fork */
	destroy_both(c, p);
}
END_TEST

START_TEST(test_three_sharers_any_exit_order)
{
	struct pagetable *a, *b, *c = pgt_create();
	fork_pair(&a, &b, 16, CHUNK);
	struct vma v = vma_of(BASE, BASE + CHUNK);
	ck_assert_int_eq(host_fork_share(c, b, &v), 0);   /* a grandchild */
	ck_assert_uint_eq(pt_of(a, BASE)->pt.share, 3);
	pgt_destroy(b);
	ck_assert_uint_eq(pt_of(a, BASE)->pt.share, 2);
	pgt_destroy(a);
	ck_assert_uint_eq(pt_of(c, BASE)->pt.share, 1);
	ck_assert_uint_eq(pgt_rss(c), 16);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

START_TEST(test_unmap_whole_chunk_drops_share)
{
	struct pagetable *p, *c;
	struct page *f = fork_pair(&p, &c, 10, CHUNK);
	struct page *shared = pt_of(p, BASE);
	host_unmap(c, BASE, BASE + CHUNK, 0);   /* no copy: just leave */
	ck_assert_uint_eq(shared->pt.share, 1);
	ck_assert(!pgt_lookup(c, BASE, NULL, NULL));
	ck_assert_uint_eq(f->refcount, 1);
	ck_assert_uint_eq(pgt_rss(p), 10);
	/* unmapping half of it in the parent edits its (now private) PT */
	host_unmap(p, BASE, BASE + 5 * PAGE_SIZE, 0);
	ck_assert_uint_eq(pgt_rss(p), 5);
	destroy_both(c, p);
}
END_TEST

START_TEST(test_protect_half_unshares)
{
	struct pagetable *p, *c;
	fork_pair(&p, &c, 8, CHUNK);
	host_protect(c, BASE, BASE + 4 * PAGE_SIZE, VM_READ, 0);
	ck_assert_ptr_ne(pt_of(c, BASE), pt_of(p, BASE));
	ck_assert(!pte_writable(leaf_of(c, BASE)));
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 1);
	destroy_both(c, p);
}
END_TEST

/* A read-only private page forked, then made writable again by mprotect
 * on either side, stays copy-on-write: its frame is mapped twice (issue 14,
 * defect 1). len CHUNK shares the PT page, less copies the entries. Once
 * the other side is gone, mprotect gives W in place. */
static void check_mprotect_keeps_cow(uint64_t len)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	struct page *f = map_anon(p, BASE, 4);
	host_protect(p, BASE, BASE + 4 * PAGE_SIZE, VM_READ, 0);
	struct vma v = vma_of(BASE, BASE + len);
	ck_assert_int_eq(host_fork_share(c, p, &v), 0);
	host_protect(c, BASE, BASE + PAGE_SIZE, VM_READ | VM_WRITE, 0);
	ck_assert(!pte_writable(leaf_of(c, BASE)) && pte_cow(leaf_of(c, BASE)));
	host_protect(p, BASE, BASE + PAGE_SIZE, VM_READ | VM_WRITE, 0);
	ck_assert(!pte_writable(leaf_of(p, BASE)) && pte_cow(leaf_of(p, BASE)));
	ck_assert_uint_eq(f->refcount, 2);
	pgt_destroy(c);
	host_protect(p, BASE, BASE + PAGE_SIZE, VM_READ | VM_WRITE, 0);
	ck_assert(pte_writable(leaf_of(p, BASE)) && !pte_cow(leaf_of(p, BASE)));
	pgt_destroy(p);
	host_assert_no_leak();
}

START_TEST(test_mprotect_after_shared_fork_keeps_cow)
{
	check_mprotect_keeps_cow(CHUNK);
}
END_TEST

START_TEST(test_mprotect_after_copied_fork_keeps_cow)
{
	check_mprotect_keeps_cow(4 * PAGE_SIZE);
}
END_TEST

/* munmap and mprotect are all or nothing (issue 14, defect 3): with no
 * memory to unshare a PT page they fail with -ENOMEM and change nothing,
 * in the chunks before the one that could not be unshared too. The child
 * has a private PT page at BASE (a partial fork copies) and a shared one
 * at BASE + CHUNK. */
START_TEST(test_unmap_protect_enomem_change_nothing)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_anon(p, BASE, 4);
	map_anon(p, BASE + CHUNK, 4);
	struct vma part = vma_of(BASE, BASE + 4 * PAGE_SIZE);
	struct vma whole = vma_of(BASE + CHUNK, BASE + 2 * CHUNK);
	ck_assert_int_eq(host_fork_share(c, p, &part), 0);
	ck_assert_int_eq(host_fork_share(c, p, &whole), 0);
	struct list held;
	host_exhaust(&held);
	ck_assert_int_eq(host_protect(c, BASE, BASE + CHUNK + PAGE_SIZE, VM_READ | VM_EXEC, 0), -ENOMEM);
	ck_assert(!pte_exec(leaf_of(c, BASE)));
	ck_assert_int_eq(host_unmap(c, BASE, BASE + CHUNK + PAGE_SIZE, 0), -ENOMEM);
	ck_assert_uint_eq(pgt_rss(c), 8);
	ck_assert_uint_eq(pt_of(c, BASE + CHUNK)->pt.share, 2);
	host_release_all(&held);
	ck_assert_int_eq(host_unmap(c, BASE, BASE + CHUNK + PAGE_SIZE, 0), 0);
	ck_assert_uint_eq(pgt_rss(c), 3);
	destroy_both(c, p);
}
END_TEST

/* Reclaim after fork shared a PT page holding lazy-free pages (issue 14,
 * defect 2): the pages are reachable from both address spaces, so reclaim
 * keeps them (PAGE_OUT_SHARED), writes nothing into the shared table, and
 * the PT page stays shared, reachable through read-only PD entries only --
 * reclaim never unshares and never gives a PD entry its W bit back (issue
 * 35, defect 3). */
START_TEST(test_reclaim_inside_fork_keeps_pd_readonly)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_anon(p, BASE, 8);
	struct vma v = vma_of(BASE, BASE + CHUNK);
	ck_assert_int_eq(host_fork_share(c, p, &v), 0);
	for (int i = 1; i < 8; i++)
		ck_assert_int_eq(host_discard(p, BASE + i * PAGE_SIZE), PAGE_OUT_SHARED);
	ck_assert_uint_eq(pgt_rss(c), 8);
	ck_assert_uint_eq(pgt_rss(p), 8);
	ck_assert_ptr_eq(pt_of(p, BASE), pt_of(c, BASE));
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 2);
	ck_assert(!pte_writable(*pde_of(p, BASE)) && !pte_writable(*pde_of(c, BASE)));
	destroy_both(c, p);
}
END_TEST

/* A PT page reclaim empties stays linked (issue 35, defect 3: reclaim
 * changes leaves only), and its PD entry keeps what it had: read-only
 * after the other sharer left. */
START_TEST(test_reclaim_keeps_wrprotect_frees_empty_pt)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_anon(p, BASE, 8);
	struct vma v = vma_of(BASE, BASE + CHUNK);
	ck_assert_int_eq(host_fork_share(c, p, &v), 0);
	pgt_destroy(c);                          /* share 1, PD entry still read-only */
	uint64_t tables0 = p->nr_tables;
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(host_discard(p, BASE + i * PAGE_SIZE), PAGE_OUT_DONE);
	ck_assert(!pte_writable(*pde_of(p, BASE)));
	ck_assert_uint_eq(p->nr_tables, tables0);       /* the emptied PT page stays */
	ck_assert_uint_eq(pgt_rss(p), 0);
	pgt_destroy(p);
	host_assert_no_leak();
}
END_TEST

/* Writing a leaf into a shared PT page without walk_unshare is
 * the bug the choke point prevents: pt_set_leaf panics. */
START_TEST(test_raw_leaf_write_into_shared_pt_panics)
{
	struct pagetable *p, *c;
	fork_pair(&p, &c, 1, CHUNK);
	pte_t *pt = ptpage_entries(pt_of(c, BASE));
	pt_set_leaf(c, BASE, &pt[0], PGL_PT, 0);
}
END_TEST

/* fork of an active parent: the preparing step changes none of the
 * parent's entries; the write-protection of its PD entries (shared chunk)
 * and of its leaves (copied chunk) is flushed once, at the batch's end. */
START_TEST(test_fork_flushes_in_parent_batch)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_anon(p, BASE, 4);                        /* the chunk at BASE: shared */
	map_anon(p, BASE + CHUNK, 4);                /* the next one: copied (part) */
	struct vma v = vma_of(BASE, BASE + CHUNK + 8 * PAGE_SIZE);
	pgt_activate(p);
	int flushes = host_pv.flush_one + host_pv.flush_user + host_pv.flush_all;
	ck_assert(pte_writable(*pde_of(p, BASE)));
	ck_assert(pte_writable(leaf_of(p, BASE + CHUNK)));
	struct tlb_batch b;
	tlb_begin(&b, p);
	ck_assert_int_eq(pgt_share(&b, c, v.start, v.end, 0), 0);
	ck_assert(!pte_writable(*pde_of(p, BASE)));
	ck_assert(pte_cow(leaf_of(p, BASE + CHUNK)));
	ck_assert_int_eq(host_pv.flush_one + host_pv.flush_user + host_pv.flush_all, flushes);
	tlb_end(&b);
	ck_assert_int_eq(host_pv.flush_one + host_pv.flush_user + host_pv.flush_all, flushes + 1);
	ck_assert_ptr_eq(pt_of(c, BASE), pt_of(p, BASE));
	pgt_activate(&kernel_pgt);
	destroy_both(c, p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mm_ptshare");
	TCase *tc = host_tcase(s, "ptshare", setup, host_mm_teardown);
	tcase_add_test(tc, test_fork_shares_whole_chunks);
	tcase_add_test(tc, test_write_unshares_copy_then_last);
	tcase_add_test(tc, test_unshared_table_lives_until_readers_leave);
	tcase_add_test(tc, test_lookup_write_unshares_first);
	tcase_add_test(tc, test_partial_chunk_is_copied);
	tcase_add_test(tc, test_three_sharers_any_exit_order);
	tcase_add_test(tc, test_unmap_whole_chunk_drops_share);
	tcase_add_test(tc, test_protect_half_unshares);
	tcase_add_test(tc, test_mprotect_after_shared_fork_keeps_cow);
	tcase_add_test(tc, test_mprotect_after_copied_fork_keeps_cow);
	tcase_add_test(tc, test_reclaim_inside_fork_keeps_pd_readonly);
	tcase_add_test(tc, test_unmap_protect_enomem_change_nothing);
	tcase_add_test(tc, test_reclaim_keeps_wrprotect_frees_empty_pt);
	tcase_add_test(tc, test_fork_flushes_in_parent_batch);
	tcase_add_test_raise_signal(tc, test_raw_leaf_write_into_shared_pt_panics, SIGABRT);
	return host_run_suite(s);
}

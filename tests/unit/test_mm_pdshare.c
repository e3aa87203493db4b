/* tests/unit/test_mm_pdshare.c -- PD pages (1 GiB) shared by fork, on
 * simulated RAM: the fork and the teardown of a shared PD page write the
 * same few entries whatever it maps; a write below unshares level by level
 * (the PD page copied, its PT pages shared by one more; then the PT page);
 * the last sharer gets W back; munmap of the whole 1 GiB drops the share,
 * of part of it copies the PD page; a PT-level or copy-on-write fork of a
 * process whose PD page is shared keeps the counts right; PSS splits
 * between the sharers; the invariant checker agrees at every step and
 * catches a writable way into a shared PD page; a table-entry write into a
 * shared PD page panics. */
#include <check.h>
#include <signal.h>
#include "tests/unit/host_mm.h"
#include "lib/errno.h"
#include "mm/as.h"
#include "mm/pt/share.h"
#include "mm/memstat.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/ptshare.h"
#include "mm/vmcheck.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/pv_ops.h"

#define RAM MiB(64)
#define GIB HUGE_PAGE_SIZE
#define BASE (4 * GIB)                /* 1 GiB aligned */
#define CHUNK LARGE_PAGE_SIZE

static void setup(void) { host_mm_setup(RAM, true); }

/* The PDPT entry (to the PD page) and PD entry (to the PT page) of va. */
static pte_t *pdpte_of(struct pagetable *pgt, vaddr_t va)
{
	pte_t *ep;
	ck_assert_int_eq(pgt_walk(pgt, va, PGL_PDPT, 0, &ep), PGL_PDPT);
	return ep;
}

static struct page *pd_of(struct pagetable *pgt, vaddr_t va)
{
	return pa_to_page(pte_addr(*pdpte_of(pgt, va)));
}

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

/* Map n private writable anonymous pages from va, page i holding i + 1. */
static void map_anon(struct pagetable *pgt, vaddr_t va, int n)
{
	for (int i = 0; i < n; i++) {
		struct page *pg = page_alloc(0, PA_ZERO | PA_ANON);
		ck_assert_ptr_nonnull(pg);
		*(uint64_t *)page_va(pg) = (uint64_t)i + 1;
		ck_assert_int_eq(pgt_map(pgt, va + (vaddr_t)i * PAGE_SIZE, page_to_pa(pg),
					 PAGE_SIZE, VM_READ | VM_WRITE), 0);
	}
}

static uint64_t read_at(struct pagetable *pgt, vaddr_t va)
{
	paddr_t pa;
	ck_assert(pgt_lookup(pgt, va, &pa, NULL));
	return *(uint64_t *)P2V(pa);
}

/* One private VMA over `chunks` chunks from BASE. */
static struct vma vma_of(int chunks)
{
	return (struct vma){ .start = BASE, .end = BASE + (vaddr_t)chunks * CHUNK,
			     .prot = PROT_READ | PROT_WRITE, .flags = VM_ANON };
}

/* The invariant checker over every address space there is (up to four,
 * NULL ends the list). */
static void check_all4(struct pagetable *a, struct pagetable *b, struct pagetable *c,
		       struct pagetable *d)
{
	struct pagetable *pgts[] = { a, b, c, d };
	struct vmcheck chk;
	ck_assert_int_eq(vmcheck_begin(&chk), 0);
	for (int i = 0; i < 4 && pgts[i]; i++) {
		struct addrspace as = { .pgt = pgts[i] };
		vmcheck_add(&chk, &as);
	}
	vmcheck_finish(&chk);
}

static void check_all(struct pagetable *a, struct pagetable *b, struct pagetable *c)
{
	check_all4(a, b, c, NULL);
}

static int fork_writes, destroy_writes;

/* A parent with `per_chunk` pages in each of `chunks` chunks from BASE and
 * a child sharing its PD page. */
static void pd_pair(struct pagetable **p, struct pagetable **c, int chunks, int per_chunk)
{
	*p = pgt_create();
	*c = pgt_create();
	for (int i = 0; i < chunks; i++)
		map_anon(*p, BASE + (vaddr_t)i * CHUNK, per_chunk);
	struct vma v = vma_of(chunks);
	int w0 = host_pv.entry_writes;
	ck_assert_int_eq(host_fork_share_flags(*c, *p, &v, PGT_SHARE_PD), 0);
	fork_writes = host_pv.entry_writes - w0;
}

static void destroy_counted(struct pagetable *pgt)
{
	int w0 = host_pv.entry_writes;
	pgt_destroy(pgt);
	destroy_writes = host_pv.entry_writes - w0;
}

/* Fork and teardown of a shared PD page are flat: 1 page or 64 MiB in 32
 * chunks, the same entry writes (the parent's PDPT entry, the child's
 * tables above the PD page), and no PT page or frame is touched. */
START_TEST(test_fork_and_teardown_flat)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 1, 1);
	int small_fork = fork_writes;
	destroy_counted(c);
	int small_destroy = destroy_writes;
	pgt_destroy(p);
	host_assert_no_leak();

	pd_pair(&p, &c, 8, 512);   /* 16 MiB, every page */
	ck_assert_int_eq(fork_writes, small_fork);
	ck_assert_int_le(fork_writes, 4);
	ck_assert_ptr_eq(pd_of(p, BASE), pd_of(c, BASE));
	ck_assert_uint_eq(pd_of(p, BASE)->pt.share, 2);
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 1);
	ck_assert(!pte_writable(*pdpte_of(p, BASE)) && !pte_writable(*pdpte_of(c, BASE)));
	ck_assert_uint_eq(pgt_rss(c), 8 * 512);
	ck_assert_uint_eq(c->nr_tables, p->nr_tables);   /* PDPT, PD, 8 PT pages */
	ck_assert_uint_eq(c->nr_tables, 10);
	ck_assert_uint_eq(read_at(c, BASE + 7 * CHUNK + 511 * PAGE_SIZE), 512);
	check_all(p, c, NULL);
	destroy_counted(c);
	ck_assert_int_eq(destroy_writes, small_destroy);
	ck_assert_uint_eq(pd_of(p, BASE)->pt.share, 1);
	check_all(p, NULL, NULL);
	pgt_destroy(p);
	host_assert_no_leak();
}
END_TEST

/* A write in the child unshares the PD page (a copy: every PT page shared
 * by both PD pages now, through read-only PD entries) and then the PT page
 * it writes into; the parent, last sharer of the old PD page, just gets W
 * back on its PDPT entry. */
START_TEST(test_write_unshares_level_by_level)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 3, 4);
	struct page *pd = pd_of(p, BASE), *pt1 = pt_of(p, BASE + CHUNK);
	struct page *pt0 = pt_of(p, BASE);
	ck_assert_int_eq(pgt_lookup_write(c, BASE, NULL, NULL), 1);
	pgt_release_stale(c);   /* the fault's unlock (as_unlock_read) */
	ck_assert_ptr_ne(pd_of(c, BASE), pd);
	ck_assert_uint_eq(pd->pt.share, 1);
	ck_assert(pte_writable(*pdpte_of(c, BASE)));
	ck_assert_ptr_ne(pt_of(c, BASE), pt0);             /* the written chunk: copied */
	ck_assert_ptr_eq(pt_of(c, BASE + CHUNK), pt1);     /* the others: shared */
	ck_assert_uint_eq(pt1->pt.share, 2);
	ck_assert_uint_eq(pt0->pt.share, 1);
	ck_assert(!pte_writable(*pde_of(c, BASE + CHUNK)) && !pte_writable(*pde_of(p, BASE + CHUNK)));
	check_all(p, c, NULL);

	ck_assert_int_eq(pgt_lookup_write(p, BASE + CHUNK, NULL, NULL), 1);
	pgt_release_stale(p);   /* the fault's unlock (as_unlock_read) */
	ck_assert_ptr_eq(pd_of(p, BASE), pd);              /* last sharer: kept */
	ck_assert(pte_writable(*pdpte_of(p, BASE)));
	ck_assert_ptr_ne(pt_of(p, BASE + CHUNK), pt1);     /* pt1 still shared: copied */
	ck_assert_uint_eq(pt1->pt.share, 1);
	ck_assert_uint_eq(read_at(c, BASE + CHUNK + 3 * PAGE_SIZE), 4);
	ck_assert_uint_eq(read_at(p, BASE + 2 * CHUNK + 2 * PAGE_SIZE), 3);
	check_all(p, c, NULL);
	pgt_destroy(p);
	check_all(c, NULL, NULL);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* munmap of the whole 1 GiB leaves: the share drops, nothing is copied;
 * of one chunk: the PD page is copied, that chunk's PT page loses one
 * share, the rest stays shared. */
START_TEST(test_unmap_whole_and_part)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 2, 8);
	struct page *pd = pd_of(p, BASE);
	uint64_t free0 = mm_stats.free;
	ck_assert_int_eq(host_unmap(c, BASE, BASE + GIB, 0), 0);
	ck_assert_uint_eq(pd->pt.share, 1);
	ck_assert(!pgt_lookup(c, BASE, NULL, NULL));
	ck_assert_uint_eq(mm_stats.free, free0 + 1);   /* nothing copied; c's empty PDPT freed */
	ck_assert_uint_eq(pgt_rss(p), 16);
	check_all(p, c, NULL);
	pgt_destroy(c);

	c = pgt_create();
	struct vma v = vma_of(2);
	ck_assert_int_eq(host_fork_share_flags(c, p, &v, PGT_SHARE_PD), 0);
	struct page *pt1 = pt_of(p, BASE + CHUNK);
	ck_assert_int_eq(host_unmap(c, BASE, BASE + CHUNK, 0), 0);
	ck_assert_ptr_ne(pd_of(c, BASE), pd);
	ck_assert_uint_eq(pd->pt.share, 1);
	ck_assert_uint_eq(pt_of(p, BASE)->pt.share, 1);   /* c dropped its share */
	ck_assert_ptr_eq(pt_of(c, BASE + CHUNK), pt1);
	ck_assert_uint_eq(pt1->pt.share, 2);
	ck_assert_uint_eq(pgt_rss(c), 8);
	ck_assert_uint_eq(read_at(c, BASE + CHUNK + 7 * PAGE_SIZE), 8);
	check_all(p, c, NULL);
	pgt_destroy(p);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* munmap of a whole shared 1 GiB drops the share after the batch's flush,
 * not before: until then the parent must not be the sole owner of the PD
 * page (it would take W back and could free frames whose read-only
 * translations the child's CPUs still hold). The same for a shared PT page. */
START_TEST(test_unmap_drops_share_after_flush)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 2, 8);
	struct page *pd = pd_of(p, BASE);
	struct tlb_batch b;
	tlb_begin(&b, c);
	pgt_unmap(&b, BASE, BASE + GIB, 0);
	ck_assert_uint_eq(pd->pt.share, 2);   /* c's CPUs may still translate through it */
	tlb_end(&b);
	ck_assert_uint_eq(pd->pt.share, 1);
	check_all(p, c, NULL);
	pgt_destroy(c);

	c = pgt_create();
	struct vma v = vma_of(2);
	ck_assert_int_eq(host_fork_share_flags(c, p, &v, 0), 0);   /* PT-level */
	ck_assert_int_eq(pgt_unshare(c, BASE, BASE + CHUNK, PGT_KEEP_WHOLE), 0);   /* the PD page */
	pgt_release_stale(c);   /* as as_unlock_write does */
	struct page *pt = pt_of(p, BASE);
	ck_assert_uint_eq(pt->pt.share, 2);
	tlb_begin(&b, c);
	pgt_unmap(&b, BASE, BASE + CHUNK, 0);
	ck_assert_uint_eq(pt->pt.share, 2);
	tlb_end(&b);
	ck_assert_uint_eq(pt->pt.share, 1);
	check_all(p, c, NULL);
	pgt_destroy(p);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* A PT-level fork of a process whose PD page is shared shares that PD page
 * again (share 3); a copy-on-write fork unshares it first. Any exit order
 * frees everything. */
START_TEST(test_mixed_strategies)
{
	struct pagetable *a, *b, *c = pgt_create(), *d = pgt_create();
	pd_pair(&a, &b, 2, 5);
	struct vma v = vma_of(2);
	ck_assert_int_eq(host_fork_share(c, b, &v), 0);
	ck_assert_uint_eq(pd_of(a, BASE)->pt.share, 3);
	ck_assert_ptr_eq(pd_of(c, BASE), pd_of(a, BASE));
	check_all(a, b, c);
	ck_assert_int_eq(host_fork_copy(d, b, v.start, v.end, 0), 0);
	ck_assert_ptr_ne(pd_of(b, BASE), pd_of(a, BASE));   /* b copied it to write COW */
	ck_assert_uint_eq(pd_of(a, BASE)->pt.share, 2);
	pte_t fl = 0;
	ck_assert(pgt_lookup(b, BASE, NULL, &fl) && pte_cow(fl) && !pte_writable(fl));
	ck_assert_uint_eq(read_at(d, BASE + CHUNK + 4 * PAGE_SIZE), 5);
	check_all4(a, b, c, d);
	pgt_destroy(b);
	pgt_destroy(a);
	check_all(c, d, NULL);
	ck_assert_uint_eq(pgt_rss(c), 10);
	pgt_destroy(d);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* Below a PD page fork shares whole: reclaim's discard finds the entry
 * through the shared PD and PT pages and keeps the page for both address
 * spaces; once the child is gone the parent's page can go. */
START_TEST(test_lazyfree_discard_below_shared_pd)
{
	struct pagetable *p = pgt_create(), *c = pgt_create();
	map_anon(p, BASE, 6);
	struct vma v = vma_of(1);
	ck_assert_int_eq(host_fork_share_flags(c, p, &v, PGT_SHARE_PD), 0);
	ck_assert_int_eq(host_discard(c, BASE + 2 * PAGE_SIZE), PAGE_OUT_SHARED);
	ck_assert_uint_eq(read_at(p, BASE + 2 * PAGE_SIZE), 3);
	ck_assert_uint_eq(read_at(c, BASE + 5 * PAGE_SIZE), 6);
	ck_assert_uint_eq(pgt_rss(p), 6);
	pgt_destroy(c);
	ck_assert_int_eq(host_discard(p, BASE + 2 * PAGE_SIZE), PAGE_OUT_DONE);
	ck_assert_uint_eq(pgt_rss(p), 5);
	pgt_destroy(p);
	host_assert_no_leak();
}
END_TEST

/* PSS: each of two sharers of a PD page gets half of every page. */
START_TEST(test_pss_halves)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 2, 10);
	struct vma vp = vma_of(2), vc = vma_of(2);
	struct addrspace ap = { .pgt = p, .vmas = &vp }, ac = { .pgt = c, .vmas = &vc };
	struct as_memstat sp, sc;
	as_memstat(&ap, &sp);
	as_memstat(&ac, &sc);
	ck_assert_uint_eq(sp.rss_pages, 20);
	ck_assert_uint_eq(sc.rss_pages, 20);
	ck_assert_uint_eq(sp.pss_pages, 10);
	ck_assert_uint_eq(sc.pss_pages, 10);
	ck_assert_uint_eq(sc.shared_pt_pages, 2);
	struct mm_meminfo mi;
	mm_meminfo(&mi);
	ck_assert_uint_eq(mi.shared_pd, 1);
	ck_assert_uint_eq(mi.pt_saved, 3);   /* one PD page and its two PT pages */
	pgt_destroy(p);
	pgt_destroy(c);
	host_assert_no_leak();
}
END_TEST

/* The checker: a writable PDPT entry to a shared PD page is a panic. */
START_TEST(test_checker_catches_writable_pdpte)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 1, 2);
	pte_t *e = pdpte_of(c, BASE);
	pv_set_entry(e, PGL_PDPT, pte_mkwrite(*e));   /* behind the writers' back */
	check_all(p, c, NULL);
}
END_TEST

/* The safety net: a table-entry write into a shared PD page panics. */
START_TEST(test_table_write_into_shared_pd_panics)
{
	struct pagetable *p, *c;
	pd_pair(&p, &c, 1, 2);
	pt_set_table(pde_of(c, BASE), PGL_PD, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mm_pdshare");
	TCase *tc = host_tcase(s, "pdshare", setup, host_mm_teardown);
	tcase_add_test(tc, test_fork_and_teardown_flat);
	tcase_add_test(tc, test_write_unshares_level_by_level);
	tcase_add_test(tc, test_unmap_whole_and_part);
	tcase_add_test(tc, test_unmap_drops_share_after_flush);
	tcase_add_test(tc, test_mixed_strategies);
	tcase_add_test(tc, test_lazyfree_discard_below_shared_pd);
	tcase_add_test(tc, test_pss_halves);
	tcase_add_test_raise_signal(tc, test_checker_catches_writable_pdpte, SIGABRT);
	tcase_add_test_raise_signal(tc, test_table_write_into_shared_pd_panics, SIGABRT);
	return host_run_suite(s);
}

/* kernel/forkbench/measure.c -- measuring fork strategies in the kernel (see
 * kernel/forkbench/measure.h). One parent per size, built once and reused by every
 * strategy in the order copy, cow, share, sharepd (cow leaves the parent's
 * pages COW, share its PD entries and sharepd its PDPT entry
 * write-protected; the next strategy copes, as a second fork would). Each run:
 *
 *   free0 = free frames
 *   t0 child = as_fork_with(parent, s) t1   check child   t2 as_destroy(child) t3
 *   free frames == free0 ?
 *
 * fork = t1 - t0, exit = t3 - t2, both from the TSC. Nothing is timed while
 * checking. The parent lives in no process and is never loaded in CR3, so no
 * TLB flush is part of the numbers (a real fork flushes the parent's TLB). */
#include "kernel/forkbench/measure.h"
#include "lib/errno.h"
#include "lib/format.h"
#include "lib/string.h"
#include "mm/as.h"
#include "mm/frame/kmalloc.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/reclaim.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"

#define FB_BASE GiB(1)           /* the parent's memory starts here */
#define FB_SLACK_PAGES 256       /* kmalloc, upper tables, allocator needs */
#define FB_MAGIC 0x9e3779b97f4a7c15UL
#define FB_BIG_MIB 512           /* default runs: 5 below, 3 from here */

_Static_assert(FORK_COPY == PAGODA_FB_COPY && FORK_COW == PAGODA_FB_COW &&
	       FORK_SHARE == PAGODA_FB_SHARE && FORK_SHARE_PD == PAGODA_FB_SHAREPD &&
	       FORK_NSTRATEGIES == PAGODA_FB_NSTRATEGIES,
	       "pagoda/forkbench.h strategies follow enum fork_strategy");

/* Per-run samples of one cell (too big for a kernel stack). */
struct fb_samples {
	uint64_t fork_ns[PAGODA_FB_MAX_RUNS], exit_ns[PAGODA_FB_MAX_RUNS];
	uint64_t total_ns[PAGODA_FB_MAX_RUNS], cycles[PAGODA_FB_MAX_RUNS];
};

int forkbench_check_req(const struct pagoda_forkbench_req *req)
{
	if (req->nsizes == 0 || req->nsizes > PAGODA_FB_MAX_SIZES ||
	    req->runs > PAGODA_FB_MAX_RUNS || (req->strategies & ~PAGODA_FB_ALL) ||
	    req->reserved)
		return -EINVAL;
	for (uint32_t i = 0; i < req->nsizes; i++)
		if (req->size_mib[i] == 0 || req->size_mib[i] > PAGODA_FB_MAX_MIB)
			return -EINVAL;
	return 0;
}

/* What the parent writes in the page at va (and the child must read). */
static uint64_t fb_pattern(vaddr_t va)
{
	return va ^ FB_MAGIC;
}

/* Table pages mapping `pages` pages: PT pages, PD pages, a few above. */
static uint64_t fb_tables(uint64_t pages)
{
	return pages / PT_ENTRIES + pages / (PT_ENTRIES * PT_ENTRIES) + 4;
}

/* Frames a child of a parent with `pages` pages needs under strategy s. */
static uint64_t fb_child_frames(unsigned s, uint64_t pages)
{
	switch (s) {
	case FORK_COPY: return pages + fb_tables(pages);
	case FORK_COW: return fb_tables(pages);
	default: return fb_tables(0) + pages / (PT_ENTRIES * PT_ENTRIES);
	}
}

/* Can `frames` more frames be allocated, with some slack, without going
 * below reclaim's high watermark (reclaim could free other processes' lazy
 * pages mid-run and upset the free-frame check)? If not, say why in note. */
static bool fb_fits(uint64_t frames, const char *what, char *note, size_t len)
{
	uint64_t need = frames + FB_SLACK_PAGES + reclaim_high;
	if (mm_stats.free >= need)
		return true;
	ksnprintf(note, len, "%s needs %lu MiB free, %lu MiB are", what,
		  ALIGN_UP(need, 256) / 256, mm_stats.free / 256);
	return false;
}

/* A parent address space with `pages` anonymous pages at FB_BASE, every
 * page written with its pattern; NULL if memory ran out. */
static struct addrspace *fb_build_parent(uint64_t pages)
{
	struct addrspace *as = as_create();
	vaddr_t got;
	if (!as)
		return NULL;
	if (as_mmap(as, FB_BASE, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0, &got) < 0)
		goto fail;
	for (vaddr_t va = FB_BASE; va < FB_BASE + pages * PAGE_SIZE; va += PAGE_SIZE) {
		uint64_t v = fb_pattern(va);
		if (as_write(as, va, &v, sizeof(v)) < 0)
			goto fail;
	}
	return as;
fail:
	as_destroy(as);
	return NULL;
}

/* Check the child of a strategy-s fork at the first, middle and last page:
 * same value as the parent's pattern, frame distinct (copy) or the same
 * (cow, share). false with the reason in note. */
static bool fb_check_child(struct addrspace *parent, struct addrspace *child, unsigned s,
			   uint64_t pages, char *note, size_t len)
{
	const uint64_t at[] = { 0, pages / 2, pages - 1 };
	for (unsigned i = 0; i < ARRAY_SIZE(at); i++) {
		vaddr_t va = FB_BASE + at[i] * PAGE_SIZE;
		paddr_t ppa, cpa;
		if (!pgt_lookup(parent->pgt, va, &ppa, NULL) || !pgt_lookup(child->pgt, va, &cpa, NULL)) {
			ksnprintf(note, len, "%#lx not mapped after fork", va);
			return false;
		}
		uint64_t got = *(uint64_t *)P2V(cpa), want = fb_pattern(va);
		if (got != want || *(uint64_t *)P2V(ppa) != want) {
			ksnprintf(note, len, "%#lx holds %#lx in the child, want %#lx", va, got, want);
			return false;
		}
		if ((ppa == cpa) != (s != FORK_COPY)) {
			ksnprintf(note, len, "%#lx: child frame %#lx, parent's %#lx", va, cpa, ppa);
			return false;
		}
	}
	return true;
}

/* Median, min and max of v[0..n) (n >= 1; sorts v). */
static struct pagoda_forkbench_stat fb_stat(uint64_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	uint64_t med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return (struct pagoda_forkbench_stat){ .median = med, .min = v[0], .max = v[n - 1] };
}

/* One measured and checked run; false with c->note on a failure. */
static bool fb_run_once(struct addrspace *parent, unsigned s, uint64_t pages,
			struct pagoda_forkbench_cell *c, struct fb_samples *sm, uint32_t r)
{
	uint64_t free0 = mm_stats.free;
	uint64_t t0 = tsc_read();
	struct addrspace *child = as_fork_with(parent, (enum fork_strategy)s);
	uint64_t t1 = tsc_read();
	if (!child) {
		ksnprintf(c->note, sizeof(c->note), "as_fork_with ran out of memory");
		return false;
	}
	bool ok = fb_check_child(parent, child, s, pages, c->note, sizeof(c->note));
	uint64_t t2 = tsc_read();
	as_destroy(child);
	uint64_t t3 = tsc_read();
	if (ok && mm_stats.free < free0) {   /* more: another CPU freed meanwhile */
		ksnprintf(c->note, sizeof(c->note), "teardown left %ld frames allocated",
			  (long)(free0 - mm_stats.free));
		ok = false;
	}
	sm->fork_ns[r] = tsc_to_ns(t1 - t0);
	sm->exit_ns[r] = tsc_to_ns(t3 - t2);
	sm->cycles[r] = (t1 - t0) + (t3 - t2);
	sm->total_ns[r] = tsc_to_ns(sm->cycles[r]);
	return ok;
}

/* Measure strategy s on parent: runs runs into cell c. */
static void fb_measure(struct addrspace *parent, unsigned s, uint64_t pages, uint32_t runs,
		       struct pagoda_forkbench_cell *c, struct fb_samples *sm)
{
	for (uint32_t r = 0; r < runs; r++) {
		if (!fb_run_once(parent, s, pages, c, sm, r)) {
			c->status = PAGODA_FB_FAILED;
			return;
		}
	}
	c->status = PAGODA_FB_OK;
	c->runs = runs;
	c->fork_ns = fb_stat(sm->fork_ns, runs);
	c->exit_ns = fb_stat(sm->exit_ns, runs);
	c->total_ns = fb_stat(sm->total_ns, runs);
	c->total_cycles = fb_stat(sm->cycles, runs);
}

/* Every asked cell of one size: build the parent, measure, destroy it.
 * Returns how many cells were measured or failed (not skipped). */
static int fb_size(const struct pagoda_forkbench_req *req, uint32_t i,
		   struct pagoda_forkbench_result *res, struct fb_samples *sm)
{
	uint32_t mib = req->size_mib[i], asked = req->strategies ? req->strategies : PAGODA_FB_ALL;
	uint32_t runs = req->runs ? req->runs : mib >= FB_BIG_MIB ? 3 : 5;
	uint64_t pages = (uint64_t)mib * (MiB(1) / PAGE_SIZE);
	struct pagoda_forkbench_cell *row = res->cell[i];
	char note[sizeof(row->note)];
	int done = 0;

	for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
		row[s].status = asked & (1u << s) ? PAGODA_FB_SKIPPED : PAGODA_FB_UNASKED;
	uint64_t free0 = mm_stats.free;
	if (!fb_fits(pages + fb_tables(pages) + fb_child_frames(FORK_SHARE, pages), "the parent",
		     note, sizeof(note))) {
		for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
			ksnprintf(row[s].note, sizeof(note), "%s", note);
		return 0;
	}
	struct addrspace *parent = fb_build_parent(pages);
	for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++) {
		struct pagoda_forkbench_cell *c = &row[s];
		if (c->status == PAGODA_FB_UNASKED)
			continue;
		if (!parent) {
			c->status = PAGODA_FB_FAILED;
			ksnprintf(c->note, sizeof(c->note), "building the parent ran out of memory");
		} else if (fb_fits(fb_child_frames(s, pages), "the child", c->note, sizeof(c->note))) {
			fb_measure(parent, s, pages, runs, c, sm);
		}
		done += c->status != PAGODA_FB_SKIPPED;
	}
	as_destroy(parent);
	/* Fewer free frames after is a leak; more is another CPU freeing
	 * something of its own meanwhile (a reaped process's last frames: one
	 * frame more in a make test run of 2026-12-02), as usertests'
	 * leakcheck and forkbench_run judge it. */
	if (mm_stats.free < free0)
		for (unsigned s = 0; s < PAGODA_FB_NSTRATEGIES; s++)
			if (row[s].status == PAGODA_FB_OK) {
				row[s].status = PAGODA_FB_FAILED;
				ksnprintf(row[s].note, sizeof(note), "the parent's teardown leaked %ld frames",
					  (long)(free0 - mm_stats.free));
			}
	return done;
}

int forkbench_run(const struct pagoda_forkbench_req *req, struct pagoda_forkbench_result *res,
		  void (*size_done)(const struct pagoda_forkbench_result *res, uint32_t i))
{
	int r = forkbench_check_req(req);
	if (r < 0)
		return r;
	struct fb_samples *sm = kmalloc(sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	memset(res, 0, sizeof(*res));
	res->nsizes = req->nsizes;
	res->tsc_khz = tsc_khz();
	int done = 0;
	for (uint32_t i = 0; i < req->nsizes; i++) {
		res->size_mib[i] = req->size_mib[i];
		done += fb_size(req, i, res, sm);
		if (size_done)
			size_done(res, i);
	}
	kfree(sm);
	return done ? 0 : -ENOMEM;
}

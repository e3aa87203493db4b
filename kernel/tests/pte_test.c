/* kernel/tests/pte_test.c -- test=pte: the read-modify-writes of live
 * page-table entries against the MMU of another CPU (mm/pt/ptpage.h).
 *
 * In rounds E = 1, 2, ...: the cleaner CPU opens round E, waits a little
 * (a different delay each round, to sweep the race window) and clears D
 * with the verb under test (clear 1); meanwhile the writer CPU, seeing
 * round E, flushes its TLB entry and writes the page once, so its MMU
 * walks the table and sets D -- before, during or after clear 1. When the
 * write is done the cleaner clears D again (clear 2). The one write set D
 * once, so exactly one of the two clears must report it: before clear 1,
 * clear 1 does; after it, clear 2. A clear that reads the entry and writes
 * it back without D after the writer's MMU set D in between loses the bit:
 * neither clear reports it, and MADV_FREE would discard a written page.
 *
 * One round in eight lets the clear go first and one the write, so both
 * orders are checked however the host schedules the two CPUs (a CI run
 * under the checked backend, whose clears are slow, had the write win all
 * 5000 free-running rounds); the other rounds sweep the race window. */
#include "kernel/ktest.h"
#include "lib/atomic.h"
#include "mm/pt/kstack.h"
#include "mm/lazyfree.h"
#include "mm/frame/lru.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptpage.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"
#include "lib/string.h"
#include "lib/errno.h"

#define RACE_ROUNDS 5000
#define RACE_DELAY_STEPS 64   /* the cleaner's delays: 0..63 pause loops */
#define WRITER_CPU 1
#define CLEANER_CPU 0

enum clean_verb { CLEAN_MKCLEAN, CLEAN_XCHG };

struct race {
	vaddr_t va;            /* the page written (kernel half) */
	pte_t *ep;             /* its entry */
	pte_t clean;           /* the entry without D, for CLEAN_XCHG */
	enum clean_verb verb;
	uint64_t round;        /* opened by the cleaner */
	uint64_t written;      /* the round whose write is done (the writer) */
	uint64_t cleared;      /* the round whose clear 1 is done (the cleaner) */
	uint64_t first, second, lost;   /* rounds whose D clear 1 / clear 2 / neither reported */
	uint64_t misordered;   /* forced rounds whose D the wrong clear reported */
};

enum round_order { ORDER_RACE, ORDER_CLEAR_FIRST, ORDER_WRITE_FIRST };

static enum round_order round_order(uint64_t e)
{
	if (e % 8 == 3)
		return ORDER_CLEAR_FIRST;
	if (e % 8 == 7)
		return ORDER_WRITE_FIRST;
	return ORDER_RACE;
}

static void wait_for(uint64_t *word, uint64_t e)
{
	while (atomic_load(word) != e)
		cpu_relax();
}

static void writer(struct race *r)
{
	for (uint64_t e = 1; e <= RACE_ROUNDS; e++) {
		wait_for(&r->round, e);
		if (round_order(e) == ORDER_CLEAR_FIRST)
			wait_for(&r->cleared, e);
		pv_flush_one(r->va);            /* this write walks the table */
		*(volatile uint64_t *)r->va = e;
		atomic_store(&r->written, e);
	}
}

/* One clear of D with the verb under test: did the entry have D? */
static bool clean_once(struct race *r)
{
	if (r->verb == CLEAN_MKCLEAN)
		return pte_dirty(pt_leaf_mkclean(&kernel_pgt, r->va, r->ep));
	return pte_dirty(pt_xchg_leaf(&kernel_pgt, r->va, r->ep, PGL_PT, r->clean));
}

static void cleaner(struct race *r)
{
	for (uint64_t e = 1; e <= RACE_ROUNDS; e++) {
		enum round_order order = round_order(e);
		atomic_store(&r->round, e);
		if (order == ORDER_WRITE_FIRST)
			wait_for(&r->written, e);
		for (uint64_t i = 0; i < e % RACE_DELAY_STEPS; i++)
			cpu_relax();
		bool d1 = clean_once(r);
		atomic_store(&r->cleared, e);
		wait_for(&r->written, e);
		bool d2 = clean_once(r);
		r->first += d1;
		r->second += d2;
		r->lost += !d1 && !d2;
		r->misordered += (order == ORDER_CLEAR_FIRST && !d2) ||
				 (order == ORDER_WRITE_FIRST && !d1);
	}
}

static void race_cpu(void *arg)
{
	int id = this_cpu()->id;
	if (id == WRITER_CPU)
		writer(arg);
	else if (id == CLEANER_CPU)
		cleaner(arg);
}

/* Map a frame at a kernel stack's guard page (a kernel-half address nobody
 * else uses), run the race with verb, unmap. */
static void run_race(enum clean_verb verb)
{
	KEXPECT(ncpus >= 2);
	void *stack = kstack_alloc();
	struct page *pg = page_alloc(0, PA_ZERO);
	KEXPECT(stack && pg);
	struct race r = { .va = (vaddr_t)stack - KSTACK_SIZE - PAGE_SIZE, .verb = verb };
	KEXPECT_EQ(pgt_map(&kernel_pgt, r.va, page_to_pa(pg), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	KEXPECT_EQ(pgt_walk(&kernel_pgt, r.va, PGL_PT, 0, &r.ep), PGL_PT);
	r.clean = pte_mkclean(pte_read(r.ep));
	ipi_call_here_too(cpumask_of(WRITER_CPU) | cpumask_of(CLEANER_CPU), race_cpu, &r);
	printk("pte: race (%s): %d rounds: D reported by clear 1 in %lu, by clear 2 "
	       "in %lu, lost in %lu\n", verb == CLEAN_XCHG ? "xchg" : "mkclean",
	       RACE_ROUNDS, r.first, r.second, r.lost);
	KEXPECT_EQ(r.written, RACE_ROUNDS);
	KEXPECT_EQ(*(volatile uint64_t *)r.va, RACE_ROUNDS);
	KEXPECT(r.first > 0 && r.second > 0);   /* the write fell on both sides */
	KEXPECT_EQ(r.misordered, 0);
	KEXPECT_EQ(r.first + r.second, RACE_ROUNDS);   /* once per round, never twice */
	KEXPECT_EQ(r.lost, 0);
	struct tlb_batch b;
	tlb_begin(&b, &kernel_pgt);
	pgt_unmap(&b, r.va, r.va + PAGE_SIZE, PGT_STRICT);
	tlb_end(&b);
	kstack_free(stack);
}

/* MADV_FREE's clean (compare-exchange) never loses a D set meanwhile. */
KTEST(pte, mkclean_keeps_concurrent_dirty)
{
	run_race(CLEAN_MKCLEAN);
}

/* The exchange (get_and_clear, replace) reports every D set before it. */
KTEST(pte, xchg_reports_concurrent_dirty)
{
	run_race(CLEAN_XCHG);
}

/* ---- MADV_FREE'd pages rewritten on one CPU while another reclaims ----
 *
 * A test address space maps FREE_PAGES anonymous pages, each given back
 * with MADV_FREE's marking (lazyfree_range: clean, on the lazy list).
 * Then, at once: the writer CPU, running on that page table, writes each
 * page once (its TLB entry flushed first, so the write walks the table:
 * it sets D, or faults if reclaim already took the page -- the fault is
 * caught and the page noted as not written); the reclaiming CPU does
 * reclaim's step at each page's entry (pgt_page_out with
 * PAGE_OUT_DISCARD, the page held as lazyfree_reclaim holds it; the
 * pages have no reverse map: no VMA). Afterwards every page the writer
 * wrote must still be mapped and hold what it wrote: no written byte is
 * lost. (The writer does not publish its CR3, so reclaim's flushes send it
 * no IPI -- it is inside this test's own cross-CPU call -- and it needs
 * none: it flushes before every access.) */

#define FREE_PAGES 32
#define FREE_ROUNDS 200
#define FREE_VA 0x40000000UL

struct free_race {
	struct pagetable *pgt;
	uint64_t round;
	bool wrote[FREE_PAGES];
	vaddr_t writing;            /* the page the catcher runs the write on */
	int cleaned;                /* the cleaner's reclaim is done (this round) */
	int ready;                  /* CPUs at this round's start line */
	uint64_t written, faulted, kept, discarded, lost;
	uint64_t unmarked;          /* kept though never written */
};

static void write_one(void *arg)
{
	struct free_race *f = arg;
	*(volatile uint64_t *)(f->writing + 8 * (f->round % 64)) = f->round;
}

static void free_writer(struct free_race *f)
{
	uint64_t cr3 = pv_read_cr3(), cr4 = pv_read_cr4();
	pv_write_cr4(cr4 & ~CR4_SMAP);             /* kernel writes to user pages */
	pv_write_cr3(pgt_root_pa(f->pgt));
	for (int i = 0; i < FREE_PAGES; i++) {
		f->writing = FREE_VA + (vaddr_t)i * PAGE_SIZE;
		pv_flush_one(f->writing);
		f->wrote[i] = !ktest_catch_fault(write_one, f, NULL, NULL);
	}
	pv_write_cr3(cr3);
	pv_write_cr4(cr4);
}

/* Both CPUs start a round together: the cross-CPU call reaches the other
 * CPU late when it was halted (a CI run had the writer finish first in all
 * 200 rounds: "0 taken before the write"). */
static void free_start_line(struct free_race *f)
{
	atomic_inc(&f->ready);
	while (atomic_load(&f->ready) < 2)
		cpu_relax();
}

/* Reclaim's step at every page, in page order, each in a batch. */
static void free_discard_all(struct free_race *f)
{
	for (int i = 0; i < FREE_PAGES; i++) {
		vaddr_t va = FREE_VA + (vaddr_t)i * PAGE_SIZE;
		paddr_t pa;
		if (!pgt_lookup(f->pgt, va, &pa, NULL))
			continue;
		struct page *pg = pa_to_page(pa);
		if (!page_hold(pg))
			continue;
		struct tlb_batch b;
		tlb_begin(&b, f->pgt);
		(void)pgt_page_out(&b, va, pg, PAGE_OUT_DISCARD, 0);
		tlb_end(&b);
		page_let_go(pg);
	}
}

static void free_race_cpu(void *arg)
{
	struct free_race *f = arg;
	if (this_cpu()->id == WRITER_CPU || this_cpu()->id == CLEANER_CPU)
		free_start_line(f);
	/* Each side is let ahead in half the rounds, so both outcomes occur
	 * whatever the host's scheduling (a CI run on 4 CPUs had the writer win
	 * all 200 rounds, "0 taken before the write", once MADV_FREE's marking
	 * got faster; a delay alone then made the cleaner win nearly all):
	 * in odd rounds the writer starts once reclaim has taken the first
	 * page, in even rounds the cleaner once the writer is halfway. */
	bool writer_waits = f->round % 2;
	if (this_cpu()->id == WRITER_CPU) {
		while (writer_waits && !atomic_load(&f->cleaned) &&
		       pgt_lookup(f->pgt, FREE_VA, NULL, NULL))
			cpu_relax();
		free_writer(f);
	} else if (this_cpu()->id == CLEANER_CPU) {
		while (!writer_waits &&
		       atomic_load(&f->writing) < FREE_VA + FREE_PAGES / 2 * PAGE_SIZE)
			cpu_relax();
		free_discard_all(f);
		atomic_store(&f->cleaned, 1);
	}
}

/* Map the pages on fresh frames and mark them lazy-free. */
static void free_setup(struct free_race *f)
{
	for (int i = 0; i < FREE_PAGES; i++) {
		struct page *pg = page_alloc(0, PA_ANON | PA_ZERO);
		KEXPECT(pg != NULL);
		KEXPECT_EQ(pgt_map(f->pgt, FREE_VA + (vaddr_t)i * PAGE_SIZE, page_to_pa(pg),
				   PAGE_SIZE, VM_READ | VM_WRITE), 0);
		lru_add(pg, LRU_COLD);     /* as a fault's page: on a list */
	}
	lazyfree_range(f->pgt, FREE_VA, FREE_VA + FREE_PAGES * PAGE_SIZE);
	memset(f->wrote, 0, sizeof(f->wrote));
	f->ready = 0;
	f->writing = 0;
	f->cleaned = 0;
}

/* Every page written is mapped and holds the write; then unmap them all. */
static void free_verify(struct free_race *f)
{
	for (int i = 0; i < FREE_PAGES; i++) {
		vaddr_t va = FREE_VA + (vaddr_t)i * PAGE_SIZE;
		paddr_t pa;
		pte_t e;
		bool mapped = pgt_lookup(f->pgt, va, &pa, &e);
		f->written += f->wrote[i];
		f->faulted += !f->wrote[i];
		f->kept += mapped;
		f->discarded += !mapped;
		f->unmarked += mapped && !f->wrote[i];
		if (f->wrote[i] && (!mapped ||
		    ((uint64_t *)P2V(ALIGN_DOWN(pa, PAGE_SIZE)))[f->round % 64] != f->round))
			f->lost++;
	}
	struct tlb_batch b;
	tlb_begin(&b, f->pgt);
	pgt_unmap(&b, FREE_VA, FREE_VA + FREE_PAGES * PAGE_SIZE, 0);
	tlb_end(&b);
}

KTEST(pte, madv_free_rewrite_races_reclaim)
{
	KEXPECT(ncpus >= 2);
	struct free_race f = { .pgt = pgt_create() };
	KEXPECT(f.pgt != NULL);
	uint64_t marked0 = lazyfree_stats.marked, lazy0 = lru_pages(LRU_LAZY);
	for (f.round = 1; f.round <= FREE_ROUNDS; f.round++) {
		free_setup(&f);
		ipi_call_here_too(cpumask_of(WRITER_CPU) | cpumask_of(CLEANER_CPU),
				  free_race_cpu, &f);
		free_verify(&f);
	}
	printk("pte: MADV_FREE vs reclaim: %d rounds of %d pages: %lu written, %lu "
	       "taken before the write; %lu kept, %lu discarded; %lu written pages lost\n",
	       FREE_ROUNDS, FREE_PAGES, f.written, f.faulted, f.kept, f.discarded, f.lost);
	KEXPECT(f.written > 0 && f.faulted > 0);   /* both sides won races */
	KEXPECT_EQ(f.lost, 0);
	KEXPECT_EQ(f.kept, f.written);   /* and every page not written was taken */
	KEXPECT_EQ(f.unmarked, 0);
	KEXPECT_EQ(lazyfree_stats.marked - marked0, (uint64_t)FREE_ROUNDS * FREE_PAGES);
	KEXPECT_EQ(lru_pages(LRU_LAZY), lazy0);   /* the unmapped pages left the list */
	pgt_destroy(f.pgt);
}

/* ---- two CPUs installing into one PT page (the split PT lock) ----
 *
 * Both CPUs fault-install every page of one PT page at the same time (one
 * from each end, so each wins some and they contend where they meet), each
 * with frames of its own (allocated before: the race allocates nothing).
 * For each page exactly one install must win (0) and the other see the
 * winner's entry (-EEXIST) under the PT page's lock; the entry maps the
 * winner's frame, and the table's present count is exact. Without the lock
 * both can find the entry absent and both write it, and the count's
 * read-modify-write loses updates. */

#define FILL_PAGES PT_ENTRIES

struct fill_race {
	struct pagetable *pgt;
	int ready;                  /* both sides start together */
	struct page *frame[2][FILL_PAGES];
	int result[2][FILL_PAGES];
};

static void fill_cpu(void *arg)
{
	struct fill_race *f = arg;
	int id = this_cpu()->id;
	if (id != WRITER_CPU && id != CLEANER_CPU)
		return;
	int side = id == WRITER_CPU;
	atomic_inc(&f->ready);
	while (atomic_load(&f->ready) < 2)
		cpu_relax();
	for (int k = 1; k < FILL_PAGES; k++) {   /* from both ends: they meet */
		int i = side ? FILL_PAGES - k : k;
		f->result[side][i] = pgt_map_fault(f->pgt, FREE_VA + (vaddr_t)i * PAGE_SIZE,
						   page_to_pa(f->frame[side][i]),
						   VM_READ | VM_WRITE, NULL);
		if (k == 1) {   /* each has its first page: then both go on */
			atomic_inc(&f->ready);
			while (atomic_load(&f->ready) < 4)
				cpu_relax();
		}
		for (int j = 0; j < 20; j++)   /* let the other side in: the lock */
			cpu_relax();             /* is not fair */
	}
}

static struct fill_race fill;   /* 12 KiB: not on the stack */

KTEST(pte, concurrent_installs_one_winner)
{
	KEXPECT(ncpus >= 2);
	struct fill_race *f = &fill;
	f->pgt = pgt_create();
	f->ready = 0;
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < FILL_PAGES; i++)
			f->frame[side][i] = page_alloc(0, PA_ANON);
	/* page 0 first: the tables down to the PT page exist before the race */
	KEXPECT_EQ(pgt_map_fault(f->pgt, FREE_VA, page_to_pa(f->frame[0][0]), VM_READ, NULL), 0);
	page_put(f->frame[1][0]);
	ipi_call_here_too(cpumask_of(WRITER_CPU) | cpumask_of(CLEANER_CPU), fill_cpu, f);
	uint64_t won[2] = { 0, 0 }, bad = 0;
	for (int i = 1; i < FILL_PAGES; i++) {
		int w = f->result[1][i] == 0;
		paddr_t pa;
		pte_t e;
		bad += f->result[w][i] != 0 || f->result[!w][i] != -EEXIST ||
		       !pgt_lookup(f->pgt, FREE_VA + (vaddr_t)i * PAGE_SIZE, &pa, &e) ||
		       ALIGN_DOWN(pa, PAGE_SIZE) != page_to_pa(f->frame[w][i]);
		won[w]++;
		page_put(f->frame[!w][i]);      /* the loser kept its reference */
	}
	pte_t *ep;
	KEXPECT_EQ(pgt_walk(f->pgt, FREE_VA, PGL_PT, 0, &ep), PGL_PT);
	printk("pte: two CPUs installing %d pages of one PT page: CPU 0 won %lu, "
	       "CPU 1 won %lu, %lu wrong; present count %u\n", FILL_PAGES - 1, won[0],
	       won[1], bad, ptpage_of(ep)->count);
	KEXPECT_EQ(bad, 0);
	KEXPECT(won[0] > 0 && won[1] > 0);   /* both were installing at once */
	KEXPECT_EQ(ptpage_of(ep)->count, FILL_PAGES);
	pgt_destroy(f->pgt);
}

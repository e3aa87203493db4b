/* kernel/tests/pte_test.c -- test=pte: the read-modify-writes of live
 * page-table entries against the MMU of another CPU (mm/ptpage.h).
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
 * neither clear reports it, and MADV_FREE would discard a written page. */
#include "kernel/ktest.h"
#include "lib/atomic.h"
#include "mm/kstack.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/ptpage.h"
#include "mm/tlb.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"

#define RACE_ROUNDS 20000
#define RACE_DELAY_STEPS 64   /* the cleaner's delays: 0..63 pause loops */
#define WRITER_CPU 1
#define CLEANER_CPU 0

enum clean_verb { CLEAN_MKLAZYFREE, CLEAN_XCHG };

struct race {
	vaddr_t va;            /* the page written (kernel half) */
	pte_t *ep;             /* its entry */
	pte_t clean;           /* the entry without D, for CLEAN_XCHG */
	enum clean_verb verb;
	uint64_t round;        /* opened by the cleaner */
	uint64_t written;      /* the round whose write is done (the writer) */
	uint64_t first, second, lost;   /* rounds whose D clear 1 / clear 2 / neither reported */
};

static void writer(struct race *r)
{
	for (uint64_t e = 1; e <= RACE_ROUNDS; e++) {
		while (atomic_load(&r->round) != e)
			cpu_relax();
		pv_flush_one(r->va);            /* this write walks the table */
		*(volatile uint64_t *)r->va = e;
		atomic_store(&r->written, e);
	}
}

/* One clear of D with the verb under test: did the entry have D? */
static bool clean_once(struct race *r)
{
	if (r->verb == CLEAN_MKLAZYFREE)
		return pte_dirty(pt_leaf_mklazyfree(&kernel_pgt, r->va, r->ep));
	return pte_dirty(pt_xchg_leaf(&kernel_pgt, r->va, r->ep, PGL_PT, r->clean));
}

static void cleaner(struct race *r)
{
	for (uint64_t e = 1; e <= RACE_ROUNDS; e++) {
		atomic_store(&r->round, e);
		for (uint64_t i = 0; i < e % RACE_DELAY_STEPS; i++)
			cpu_relax();
		bool d1 = clean_once(r);
		while (atomic_load(&r->written) != e)
			cpu_relax();
		bool d2 = clean_once(r);
		r->first += d1;
		r->second += d2;
		r->lost += !d1 && !d2;
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
	       "in %lu, lost in %lu\n", verb == CLEAN_XCHG ? "xchg" : "mklazyfree",
	       RACE_ROUNDS, r.first, r.second, r.lost);
	KEXPECT_EQ(r.written, RACE_ROUNDS);
	KEXPECT_EQ(*(volatile uint64_t *)r.va, RACE_ROUNDS);
	KEXPECT(r.first > 0 && r.second > 0);   /* the write fell on both sides */
	KEXPECT_EQ(r.first + r.second, RACE_ROUNDS);   /* once per round, never twice */
	KEXPECT_EQ(r.lost, 0);
	struct tlb_batch b;
	tlb_begin(&b, &kernel_pgt);
	pgt_unmap(&b, r.va, r.va + PAGE_SIZE, PGT_STRICT);
	tlb_end(&b);
	kstack_free(stack);
}

/* MADV_FREE's clean (compare-exchange) never loses a D set meanwhile. */
KTEST(pte, mklazyfree_keeps_concurrent_dirty)
{
	run_race(CLEAN_MKLAZYFREE);
}

/* The exchange (get_and_clear, replace) reports every D set before it. */
KTEST(pte, xchg_reports_concurrent_dirty)
{
	run_race(CLEAN_XCHG);
}

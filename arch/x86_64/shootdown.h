/* arch/x86_64/shootdown.h -- TLB shootdown: flush translations on other
 * CPUs, one IPI round per request, and wait for every acknowledgement.
 *
 * Which CPUs may hold a user translation of a page table? Without PCID a
 * CR3 load drops every non-global entry, so exactly the CPUs whose CR3 is
 * that table now: each CPU publishes its CR3 in struct cpu.cr3 before it
 * loads it (smp_note_cr3), and stays in that table's set until it loads
 * another one -- set at switch, cleared lazily by the next switch.
 * Kernel-half (global) translations may be on every CPU.
 */
#ifndef ARCH_X86_64_SHOOTDOWN_H
#define ARCH_X86_64_SHOOTDOWN_H

#include "lib/types.h"
#include "arch/x86_64/smp.h"

#define SHOOTDOWN_MAX_PAGES 32   /* more than this: flush the whole TLB */

/* What to flush: up to SHOOTDOWN_MAX_PAGES pages, or everything (all);
 * changed is the number of pages the requester changed (for the counters). */
struct shootdown {
	vaddr_t va[SHOOTDOWN_MAX_PAGES];
	int npages;
	bool all;
	uint64_t changed;
};

#ifdef PAGODA_HOST
/* The host unit tests simulate one CPU: there is no other TLB. */
static inline int smp_cpu_id(void) { return 0; }
static inline void smp_note_cr3(uint64_t cr3) { (void)cr3; }
static inline cpumask_t smp_cpus_using(uint64_t cr3) { (void)cr3; return 0; }
static inline cpumask_t smp_other_cpus(void) { return 0; }
static inline void smp_leave_cr3(cpumask_t mask, uint64_t cr3, uint64_t kernel_cr3)
{
	(void)mask, (void)cr3, (void)kernel_cr3;
}
static inline int tlb_shootdown(cpumask_t mask, const struct shootdown *s)
{
	(void)mask, (void)s;
	return 0;
}
#else
/* The calling CPU's id (its index in cpus[]): for per-CPU state of mm/. */
int smp_cpu_id(void);

/* This CPU is about to load cr3 (call before the CR3 write). */
void smp_note_cr3(uint64_t cr3);

/* The online CPUs other than this one whose CR3 is cr3 (they may hold its
 * user translations). */
cpumask_t smp_cpus_using(uint64_t cr3);

/* Every online CPU but this one (kernel-half changes: global entries may
 * be in any TLB). */
cpumask_t smp_other_cpus(void);

/* Make every CPU in mask whose CR3 is still cr3 load kernel_cr3 instead,
 * and wait for them: a CPU back in its scheduler keeps the page table of
 * the process it switched away from until it loads the next one, and that
 * table is about to be freed (its last thread exited on another CPU:
 * Linux's lazy-TLB mm). Not from an interrupt handler. */
void smp_leave_cr3(cpumask_t mask, uint64_t cr3, uint64_t kernel_cr3);

/* Flush s on every CPU in mask but this one; returns when each has done
 * it. An empty set sends nothing and counts as a shootdown avoided. Call
 * before the frames or tables the flushed entries mapped are freed. Any
 * lock may be held (a target spinning for it answers meanwhile). Returns
 * the number of CPUs flushed. */
int tlb_shootdown(cpumask_t mask, const struct shootdown *s);
#endif

/* Add va to s (past SHOOTDOWN_MAX_PAGES, s becomes "all"). */
static inline void shootdown_add(struct shootdown *s, vaddr_t va)
{
	if (!s->all && s->npages == SHOOTDOWN_MAX_PAGES)
		s->all = true;
	if (!s->all)
		s->va[s->npages++] = va;
}

struct shootdown_stats {
	uint64_t rounds;      /* IPI rounds (one per tlb_shootdown that sent any) */
	uint64_t cpus;        /* CPUs targeted, over all rounds */
	uint64_t pages;       /* pages changed by the requesters of those rounds */
	uint64_t full;        /* rounds that flushed the whole TLB */
	uint64_t avoided;     /* requests no other CPU needed: no IPI */
};

/* Totals since boot (zeros on the host). */
void shootdown_get_stats(struct shootdown_stats *st);

#endif

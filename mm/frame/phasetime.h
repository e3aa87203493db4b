/* mm/frame/phasetime.h -- per-phase TSC cycle counters for fork, exit, wait and
 * page faults: where the time of those paths goes (issue 19).
 *
 * Benchmark scaffolding, so it is compiled in only for benchmarks: a kernel
 * built with PHASETIME=1 (make bench-phases builds one in build-phases/)
 * has the counters, on with the kernel option `phasetime` (then every
 * marked phase costs two TSC reads; off, one predictable branch); in every
 * other kernel phase_begin and phase_end compile to nothing, `phasetime`
 * says so at boot, and /proc/phasetime says "enabled 0". Each phase adds
 * its count and cycles to phase_stats[]; /proc/phasetime prints them
 * (kernel/procfs_sys.c) and user/bench/phases.c reads them before and after
 * a workload and prints the difference. Phases nest (fault contains
 * fault_vma, fault_walk, ...), so they do not add up to a total: each says
 * how long its own piece took. Several CPUs add to the same counters:
 * stat_add, so counts stay exact.
 */
#ifndef MM_PHASETIME_H
#define MM_PHASETIME_H

#include "lib/types.h"
#include "lib/atomic.h"
#include "arch/x86_64/cpu.h"

/* The measured phases (names in phasetime.c, same order). */
enum phase {
	PH_FAULT,              /* as_fault, the whole resolution */
	PH_FAULT_VMA,          /* VMA lookup (as_find_vma) */
	PH_FAULT_WALK,         /* entry lookup (pgt_lookup; _write unshares a shared PT) */
	PH_FAULT_ALLOC,        /* anonymous frame allocation, zeroing included */
	PH_FAULT_MAP,          /* entry write (pgt_map), flush included */
	PH_FAULT_COW,          /* a copy-on-write fault (copy or reuse), whole */
	PH_FAULT_FORK_PARENT,  /* the parent's first faults after a fork, whole */
	PH_FAULT_FORK_CHILD,   /* the child's first faults after a fork, whole */
	PH_ZERO,               /* zeroing an allocated frame (any user: PT pages too) */
	PH_PTPAGE_ALLOC,       /* a page-table page allocated (zeroed), any level */
	PH_FORK,               /* proc_fork_req: the whole fork in the kernel */
	PH_FORK_AS,            /* as_fork: the address space */
	PH_FORK_AS_CREATE,     /* as_create: the new PML4 and its kernel half */
	PH_FORK_VMA,           /* one VMA's preparation: the child's tables allocated */
	PH_FORK_ENTRIES,       /* every VMA's entries shared or copied, one flush */
	PH_EXIT,               /* proc_exit up to the switch away */
	PH_EXIT_AS,            /* as_destroy at exit */
	PH_WAIT_REAP,          /* wait: freeing the zombie's slot and stack */
	PH_LAZYFREE,           /* MADV_FREE of a range (lazyfree_range), whole */
	PH_LAZYFREE_FLUSH,     /* its TLB flush (the marking batch's tlb_end) */
	PH_PGT_DESTROY,        /* pgt_destroy: a page table's teardown walk */
	PH_PGT_LEAVE_CR3,      /* its wait for CPUs still in that CR3 (lazily) */
	PH_KSTACK_ALLOC,       /* a kernel stack for a new process or thread */
	PH_KSTACK_FREE,        /* a kernel stack given back, its flush included */
	PH_COUNT
};

/* One phase's totals since boot. */
struct phase_stat {
	uint64_t count;
	uint64_t cycles;
};

#ifndef PHASETIME
#define PHASETIME 0
#endif

#if PHASETIME
extern bool phasetime_on;
#else
#define phasetime_on false   /* every `if (phasetime_on)` compiles away */
#endif
extern struct phase_stat phase_stats[PH_COUNT];

/* Turn the counters on or off (kmain: the `phasetime` kernel option); false
 * if this kernel has none (built without PHASETIME=1). */
bool phasetime_set(bool on);

/* The name of phase p ("fault_vma"), "?" when out of range. */
const char *phase_name(unsigned p);

/* A start time for phase_end: the TSC when on, else 0. */
static inline uint64_t phase_begin(void)
{
	return phasetime_on ? rdtsc() : 0;
}

/* Count one occurrence of p that began at t0; returns the TSC now (the start
 * of a phase that follows), 0 when off. */
static inline uint64_t phase_end(enum phase p, uint64_t t0)
{
	if (!phasetime_on)
		return 0;
	uint64_t now = rdtsc();
	stat_inc(&phase_stats[p].count);
	stat_add(&phase_stats[p].cycles, now - t0);
	return now;
}

/* A fork made child from parent (address spaces, as opaque keys): the next
 * PHASE_AFTER_FORK faults of each count as PH_FAULT_FORK_PARENT/_CHILD too. */
#define PHASE_AFTER_FORK 16
void phasetime_forked(const void *parent, const void *child);

/* The after-fork phase a fault in address space as also counts as (and one
 * fault fewer to go), or PH_COUNT for none. */
enum phase phasetime_fault_kind(const void *as);

#endif

/* arch/x86_64/ipi.h -- cross-CPU calls: run a function on other CPUs and
 * wait for each one's acknowledgement.
 *
 * One call is in flight at a time, system-wide (a global slot guarded by a
 * flag). A CPU waiting for that flag, for the acknowledgements, or for any
 * spinlock (kernel/spinlock.c) answers a call aimed at it meanwhile
 * (ipi_poll), so two CPUs calling each other, or a CPU spinning with
 * interrupts off, cannot deadlock the round.
 */
#ifndef ARCH_X86_64_IPI_H
#define ARCH_X86_64_IPI_H

#include "lib/types.h"
#include "arch/x86_64/smp.h"

typedef void (*ipi_fn_t)(void *arg);

/* Run fn(arg) on every online CPU in mask other than the caller (in
 * interrupt context, interrupts off there), sending one IPI to each, and
 * return once every one of them has returned from fn. fn must not take
 * locks or sleep. Returns the number of CPUs that ran it; an empty target
 * set sends nothing. Callable with interrupts on or off, not from an
 * interrupt handler. */
int ipi_call(cpumask_t mask, ipi_fn_t fn, void *arg);

/* ipi_call, and the caller runs fn(arg) too, at the same time as the
 * targets (interrupts off; fn must not start a cross-CPU call itself):
 * code that must run on several CPUs at once, as the race tests do. Unlike
 * ipi_call's, this fn may take spinlocks that no CPU holds while it calls
 * ipi_call or waits for a round (the allocator's: kmalloc, pcp, frames);
 * a target spinning for one does not run the call again (ipi_poll). */
int ipi_call_here_too(cpumask_t mask, ipi_fn_t fn, void *arg);

/* Answer a call aimed at this CPU, if one is pending (the IPI handler, and
 * every spin loop that runs with interrupts off). */
void ipi_poll(void);

/* Interrupt CPU cpu, and do not wait: it wakes from a halt, or, when it
 * runs user code, passes through the return-to-user path (signals, time
 * slice). Nothing runs there but the interrupt's return. Counted in
 * ipi_stats.kicks. Callable with locks held, from any context. */
void smp_kick(int cpu);

/* Install the IPI vector's handler (once, on the BSP). */
void ipi_init(void);

struct ipi_stats {
	uint64_t rounds;     /* ipi_call()s that sent at least one IPI */
	uint64_t ipis;       /* IPIs sent (CPUs targeted) */
	uint64_t answered;   /* calls run on behalf of another CPU */
	uint64_t kicks;      /* smp_kick IPIs sent */
};

/* Totals since boot. */
void ipi_get_stats(struct ipi_stats *s);

#endif

/* kernel/smp.h -- bringing up every CPU at boot (docs/smp-and-locking.md). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "lib/types.h"

/* Find the CPUs, start the APIC timer on the BSP, start every AP on a
 * kernel stack of its own (each one enables its APIC timer and halts in its
 * idle loop), and print "smp: N CPUs online (APIC ids ...)". Call once from
 * kmain after mm, pv patching and the syscall MSRs are set up, before
 * interrupts are enabled. An AP that does not come up is reported and left
 * out (never scheduled). Panics if no kernel stack can be allocated. */
void smp_init(void);

/* Number of CPUs online. */
int smp_cpus_online(void);

#endif

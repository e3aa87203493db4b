/* arch/x86_64/smp.h -- starting the application processors (APs).
 *
 * The boot CPU (BSP, id 0) finds the others in the ACPI MADT and starts
 * each with INIT-SIPI-SIPI through the real-mode trampoline
 * (trampoline.asm), copied to SMP_TRAMPOLINE_PA: a frame below 1 MiB that
 * mm_init pins (PG_KERNEL) so the allocator never hands it out. An AP comes
 * up on the stack the caller gave it, loads its own GDT/TSS/IST stacks, the
 * IDT, SYSCALL MSRs, the BSP's CR0/CR4/EFER, enables its local APIC and
 * timer, and calls the caller's entry, which never returns.
 */
#ifndef ARCH_X86_64_SMP_H
#define ARCH_X86_64_SMP_H

#include "lib/types.h"

#define MAX_CPUS 8
#define SMP_TRAMPOLINE_PA 0x8000UL   /* TRAMP_PA in trampoline.asm */

/* A set of CPUs by id (bit i = cpus[i]). */
typedef uint64_t cpumask_t;
_Static_assert(MAX_CPUS <= 64, "cpumask_t is one word");

static inline cpumask_t cpumask_of(int cpu)
{
	return 1UL << cpu;
}

/* Number of CPUs in m (no libgcc in the kernel: no __builtin_popcount). */
static inline int cpumask_weight(cpumask_t m)
{
	int n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

/* Find the CPUs (MADT; one CPU without it) and the local APIC, enable the
 * BSP's local APIC and calibrate its timer. Sets ncpus to the CPUs found
 * (the BSP's entry is cpus[0], the others get ids 1.. in MADT order).
 * Returns the number of CPUs found. Call once, after timer_init. */
int smp_detect(paddr_t rsdp_pa);

/* Start CPU id (1 <= id < ncpus) on a stack whose top is stack_top; it ends
 * in entry(), with interrupts off, and must set its own online flag
 * (smp_ap_online) when ready. Returns true once it is online, false when
 * it did not come up within a second (then it is left out: its id is never
 * used). Call from the BSP, one AP at a time. */
typedef void (*ap_entry_t)(void);
bool smp_start_ap(int id, uint64_t stack_top, ap_entry_t entry);

/* The calling AP is up: let smp_start_ap return. */
void smp_ap_online(void);

/* The mask of every CPU that is online. */
cpumask_t smp_online_mask(void);

#endif

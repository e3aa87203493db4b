/* arch/x86_64/lapic.h -- the local APIC of each CPU (xAPIC, MMIO).
 *
 * Every CPU has one at the same physical address (ACPI MADT's, normally
 * 0xfee00000), reached through the direct map, which covers the MMIO below
 * 4 GiB. The registers are strongly uncached whatever the page attributes
 * say: the firmware's MTRRs make the APIC page UC, and UC in an MTRR wins
 * over the direct map's WB (SDM vol. 3, 11.5.2.2); an explicit PCD mapping
 * needs a no-cache protection bit in mm/pt/pgtable.h (not there yet).
 */
#ifndef ARCH_X86_64_LAPIC_H
#define ARCH_X86_64_LAPIC_H

#include "lib/types.h"

/* Interrupt vectors of the local APIC (above the PIC's 32..47). */
#define T_LAPIC_TIMER 0xe0
#define T_IPI_CALL 0xf0       /* cross-CPU function call (arch/x86_64/ipi.c) */
#define T_IPI_KICK 0xf1       /* wake a halted CPU / make it look at its process (smp_kick) */
#define T_LAPIC_SPURIOUS 0xff

/* Use the local APIC at physical address pa (from the MADT) on every CPU. */
void lapic_set_base(paddr_t pa);

/* Is there a local APIC (lapic_set_base was called)? */
bool lapic_present(void);

/* Enable this CPU's local APIC (spurious vector, accept all priorities). */
void lapic_init_cpu(void);

/* This CPU's APIC id. */
uint32_t lapic_id(void);

/* Signal the end of the interrupt being handled. */
void lapic_eoi(void);

/* Measure the APIC timer against the TSC (once, on the BSP; tsc_khz must be
 * known), then run this CPU's APIC timer periodically at hz with vector
 * T_LAPIC_TIMER. */
void lapic_timer_calibrate(void);
void lapic_timer_start(unsigned hz);

/* Called on every APIC timer interrupt, on the CPU that took it, after its
 * lapic_ticks went up (the scheduler's per-CPU hook; may be NULL). */
struct trapframe;
extern void (*lapic_tick_hook)(struct trapframe *tf);

/* The address a device writes to interrupt the CPU with APIC id dest (an
 * MSI or MSI-X message; its data is the vector: fixed, edge). */
static inline uint64_t lapic_msi_address(uint32_t dest)
{
	return 0xfee00000u | dest << 12;
}

/* Send a fixed interrupt with vector to the CPU with APIC id dest. */
void lapic_send_ipi(uint32_t dest, uint8_t vector);

/* The start-up sequence for an application processor: INIT, then two
 * STARTUPs at real-mode page `page` (the trampoline at page << 12), with the
 * delays of the MP specification. Returns false if the APIC never accepted
 * one of the messages. */
bool lapic_start_ap(uint32_t dest, uint8_t page);

#endif

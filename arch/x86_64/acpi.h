/* arch/x86_64/acpi.h -- the one ACPI table Pagoda reads: the MADT, for the
 * CPUs' local APIC ids and the local APIC's address. */
#ifndef ARCH_X86_64_ACPI_H
#define ARCH_X86_64_ACPI_H

#include "lib/types.h"
#include "arch/x86_64/smp.h"

struct acpi_cpus {
	paddr_t lapic_pa;              /* local APIC registers (all CPUs) */
	int ncpus;                     /* enabled processors, at most MAX_CPUS */
	int ignored;                   /* enabled ones past MAX_CPUS */
	uint32_t apic_id[MAX_CPUS];    /* in MADT order (the BSP is usually first) */
};

/* Find the RSDP (rsdp_pa from the boot loader, or 0: scan the EBDA and the
 * BIOS area 0xe0000-0xfffff), then the RSDT or XSDT, then the MADT, and fill
 * out. Returns false (out untouched) when there is no valid RSDP or MADT;
 * tables with a bad checksum are skipped. Reads through the direct map. */
bool acpi_find_cpus(paddr_t rsdp_pa, struct acpi_cpus *out);

#endif

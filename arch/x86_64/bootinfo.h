/* arch/x86_64/bootinfo.h -- what the boot loader told us, in a generic form.
 * Filled by arch/x86_64/multiboot.c before anything else runs. */
#ifndef ARCH_X86_64_BOOTINFO_H
#define ARCH_X86_64_BOOTINFO_H

#include "lib/types.h"

#define BOOT_MAX_REGIONS 32
#define BOOT_MAX_MODULES 4

enum mem_type { MEM_USABLE = 1, MEM_RESERVED, MEM_ACPI, MEM_NVS, MEM_BAD };

struct mem_region {
	paddr_t base;
	uint64_t len;
	enum mem_type type;
};

struct boot_module {
	paddr_t start, end;
	char name[64];
};

struct boot_info {
	struct mem_region regions[BOOT_MAX_REGIONS];
	int nregions;
	struct boot_module modules[BOOT_MAX_MODULES];
	int nmodules;
	char cmdline[512];
	char loader[64];
	paddr_t info_start, info_end;   /* the loader's structure itself */
	paddr_t acpi_rsdp;              /* the loader's copy of the ACPI RSDP, or 0 */
};

extern struct boot_info boot_info;

/* Parse the multiboot2 information at physical address info; panics on a bad
 * magic. */
void multiboot_parse(uint32_t magic, paddr_t info);

/* Print the memory map, modules and command line. */
void boot_info_print(void);

const char *mem_type_name(enum mem_type t);

#endif

/* arch/x86_64/multiboot.c -- read the multiboot2 boot information. */
#include "arch/x86_64/bootinfo.h"
#include "arch/x86_64/memlayout.h"
#include "lib/printk.h"
#include "lib/string.h"

#define MB2_BOOT_MAGIC 0x36d76289
#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER 2
#define MB2_TAG_MODULE 3
#define MB2_TAG_MMAP 6
#define MB2_TAG_ACPI_OLD 14   /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW 15   /* a copy of the ACPI 2.0+ RSDP */

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, reserved;
};

struct boot_info boot_info;

static void add_region(uint64_t base, uint64_t len, uint32_t type)
{
	if (boot_info.nregions == BOOT_MAX_REGIONS)
		return;
	struct mem_region *r = &boot_info.regions[boot_info.nregions++];
	r->base = base;
	r->len = len;
	r->type = type >= MEM_USABLE && type <= MEM_BAD ? type : MEM_RESERVED;
}

void multiboot_parse(uint32_t magic, paddr_t info)
{
	if (magic != MB2_BOOT_MAGIC)
		panic("not booted by a multiboot2 loader (magic %#x)", magic);
	uint32_t total = *(uint32_t *)P2V(info);
	boot_info.info_start = info;
	boot_info.info_end = info + total;

	for (uint64_t off = 8; off + sizeof(struct mb2_tag) <= total;) {
		struct mb2_tag *t = P2V(info + off);
		if (t->type == MB2_TAG_END)
			break;
		char *body = (char *)(t + 1);
		switch (t->type) {
		case MB2_TAG_CMDLINE:
			strlcpy(boot_info.cmdline, body, sizeof(boot_info.cmdline));
			break;
		case MB2_TAG_LOADER:
			strlcpy(boot_info.loader, body, sizeof(boot_info.loader));
			break;
		case MB2_TAG_MODULE:
			if (boot_info.nmodules < BOOT_MAX_MODULES) {
				struct boot_module *m = &boot_info.modules[boot_info.nmodules++];
				m->start = ((uint32_t *)body)[0];
				m->end = ((uint32_t *)body)[1];
				strlcpy(m->name, body + 8, sizeof(m->name));
			}
			break;
		case MB2_TAG_ACPI_OLD:
			if (!boot_info.acpi_rsdp)
				boot_info.acpi_rsdp = info + off + sizeof(*t);
			break;
		case MB2_TAG_ACPI_NEW:
			boot_info.acpi_rsdp = info + off + sizeof(*t);
			break;
		case MB2_TAG_MMAP: {
			uint32_t esize = ((uint32_t *)body)[0];
			for (uint32_t e = 8; e + esize <= t->size - 8; e += esize) {
				struct mb2_mmap_entry *me = (void *)(body + e);
				add_region(me->base, me->len, me->type);
			}
			break;
		}
		}
		off += ALIGN_UP((uint64_t)t->size, 8);
	}
}

const char *mem_type_name(enum mem_type t)
{
	switch (t) {
	case MEM_USABLE: return "usable";
	case MEM_ACPI: return "ACPI reclaimable";
	case MEM_NVS: return "ACPI NVS";
	case MEM_BAD: return "bad";
	default: return "reserved";
	}
}

void boot_info_print(void)
{
	uint64_t usable = 0;
	printk("boot: loader \"%s\"\n", boot_info.loader);
	printk("boot: memory map:\n");
	for (int i = 0; i < boot_info.nregions; i++) {
		struct mem_region *r = &boot_info.regions[i];
		printk("  [0x%012lx - 0x%012lx] %8lu KiB  %s\n", r->base,
		       r->base + r->len - 1, r->len >> 10, mem_type_name(r->type));
		if (r->type == MEM_USABLE)
			usable += r->len;
	}
	printk("boot: %lu MiB usable\n", usable >> 20);
	for (int i = 0; i < boot_info.nmodules; i++)
		printk("boot: module %d [%#lx - %#lx] \"%s\"\n", i,
		       boot_info.modules[i].start, boot_info.modules[i].end,
		       boot_info.modules[i].name);
	printk("boot: command line \"%s\"\n", boot_info.cmdline);
}

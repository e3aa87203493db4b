/* mm/mm.c -- mm_init(): from the boot memory map to a running allocator and
 * the kernel's own page table.
 *
 * The boot page tables (arch/x86_64/boot.asm) map the first BOOT_MAP_LIMIT
 * of RAM at the direct map, so the frame database and the first page-table
 * pages must come from there; the rest of RAM joins the allocator once the
 * new direct map is loaded.
 */
#include "mm/anon_rmap.h"
#include "mm/swap.h"
#include "mm/lazyfree.h"
#include "mm/mm.h"
#include "mm/fault.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/ptwrite_check.h"
#include "mm/pt/kvm.h"
#include "mm/frame/kmalloc.h"
#include "mm/reclaim.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/mmu.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/bootinfo.h"
#include "lib/cmdline.h"
#include "lib/printk.h"
#include "lib/string.h"

#define BOOT_MAP_LIMIT GiB(1)

extern char _kernel_phys_start[], _text_start[], _text_end[], _rodata_start[],
	_rodata_end[], _data_start[], _data_end[], _kernel_end[];

#define NPIN (BOOT_MAX_MODULES + 3)

/* RAM ranges and the pinned ranges (image, boot info, modules, the AP
 * trampoline's frame) of boot_info;
 * returns the end of the direct map: past every RAM and ACPI region, and at
 * least 4 GiB so that the MMIO below 4 GiB (APIC, VGA) is reachable too. */
static paddr_t boot_ranges(struct prange *ram, int *nram, struct prange *pin,
			   enum page_type *pin_type, int *npin)
{
	paddr_t top = GiB(4);
	*nram = *npin = 0;
	for (int i = 0; i < boot_info.nregions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		if (r->type == MEM_USABLE)
			ram[(*nram)++] = (struct prange){ r->base, r->base + r->len };
		if (r->type != MEM_RESERVED && r->type != MEM_BAD)
			top = MAX(top, r->base + r->len);
	}
	pin[*npin] = (struct prange){ (paddr_t)_kernel_phys_start, KV2P(_kernel_end) };
	pin_type[(*npin)++] = PG_KERNEL;
	pin[*npin] = (struct prange){ boot_info.info_start, boot_info.info_end };
	pin_type[(*npin)++] = PG_KERNEL;
	pin[*npin] = (struct prange){ SMP_TRAMPOLINE_PA, SMP_TRAMPOLINE_PA + PAGE_SIZE };
	pin_type[(*npin)++] = PG_KERNEL;
	for (int i = 0; i < boot_info.nmodules; i++) {
		pin[*npin] = (struct prange){ boot_info.modules[i].start, boot_info.modules[i].end };
		pin_type[(*npin)++] = PG_FILE;
	}
	return top;
}

static void print_summary(const struct mmu_features *f, paddr_t dmap_end)
{
	uint64_t db = page_db_bytes();
	printk("mm: %lu MiB RAM, %lu MiB free; frame database %lu KiB "
	       "(%zu bytes/frame, %lu.%02lu%% of RAM)\n",
	       mm_stats.total >> 8, mm_stats.free >> 8, db >> 10, sizeof(struct page),
	       db * 100 / (mm_stats.total << 12),
	       db * 10000 / (mm_stats.total << 12) % 100);
	printk("mm: direct map of %lu MiB with %s pages; image text RX, rodata R, "
	       "data RW NX; identity map dropped\n",
	       dmap_end >> 20, kvm_dmap_page_size() == GiB(1) ? "1 GiB" : "2 MiB");
	printk("mm: NX %s, global pages %s, SMEP %s, SMAP %s, kmalloc debug %s\n",
	       f->nx ? "on" : "off", f->pge ? "on" : "off", f->smep ? "on" : "off",
	       f->smap ? "on" : "off", kmalloc_debug ? "on" : "off");
}

void mm_init(void)
{
	struct prange ram[BOOT_MAX_REGIONS], pin[NPIN];
	enum page_type pin_type[NPIN];
	int nram, npin;
	paddr_t top = boot_ranges(ram, &nram, pin, pin_type, &npin);

	page_db_init(ram, nram, pin, pin_type, npin, BOOT_MAP_LIMIT);
	page_db_release(0, BOOT_MAP_LIMIT);

	struct mmu_features f;
	mmu_detect(&f);
	struct kvm_layout l = {
		.dmap_end = top,
		.page1g = f.page1g && !cmdline_has("mm_no1g"),   /* test the fallback */
		.seg = {
			{ (vaddr_t)_text_start, (vaddr_t)_text_end, VM_READ | VM_EXEC },
			{ (vaddr_t)_rodata_start, (vaddr_t)_rodata_end, VM_READ },
			{ (vaddr_t)_data_start, (vaddr_t)_data_end, VM_READ | VM_WRITE },
		},
		.nseg = 3,
	};
	kvm_build(&l);
	pgt_activate(&kernel_pgt);
	mmu_enable(&f);
	pv_flush_all();
	page_db_release(BOOT_MAP_LIMIT, MIN(max_pfn << PAGE_SHIFT, DIRECT_MAP_MAX));

	kmalloc_set_debug(cmdline_has("mm_debug"));
	reclaim_init();
	fault_init();
	anon_rmap_init();
	swap_init();
	lazyfree_init();
	pv_checked_register(&ptwrite_check_ops);   /* mm's rules, if pv=checked */
	tlb_batching = strcmp(cmdline_get_or("tlb", "batch"), "nobatch") != 0;
	frame_cache_on = strcmp(cmdline_get_or("pcp", "on"), "off") != 0;
	print_summary(&f, top);
}

/* arch/x86_64/smp.c -- find the CPUs, start the APs, bring each one's
 * per-CPU hardware state up to the BSP's. */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/acpi.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/shootdown.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/trap.h"
#include "lib/printk.h"
#include "lib/string.h"

/* The trampoline's parameter block (the end of trampoline.asm). */
struct ap_boot_params {
	uint64_t boot_cr3, kernel_cr3, stack, entry, arg, high;
};

extern const char ap_trampoline[], ap_trampoline_end[], ap_trampoline_params[];
extern char boot_pml4[];             /* boot.asm, linked at its physical address */
extern char ap_start64_high[];       /* start64.asm */

#define AP_WAIT_US 1000000

/* What every AP copies from the BSP before it runs C code of its own. */
static struct {
	uint64_t cr0, cr4, efer;
	ap_entry_t entry;
} bsp_state;

int smp_detect(paddr_t rsdp_pa)
{
	struct acpi_cpus a;
	if (!acpi_find_cpus(rsdp_pa, &a)) {
		printk("smp: no ACPI MADT, one CPU\n");
		return ncpus = 1;
	}
	lapic_set_base(a.lapic_pa);
	lapic_init_cpu();
	lapic_timer_calibrate();
	uint32_t bsp = lapic_id();
	cpus[0].apic_id = bsp;
	ncpus = 1;
	for (int i = 0; i < a.ncpus; i++)
		if (a.apic_id[i] != bsp)
			cpus[ncpus++].apic_id = a.apic_id[i];
	for (int i = 0; i < ncpus; i++)
		cpus[i].id = i;
	if (a.ignored)
		printk("smp: %d CPUs past MAX_CPUS=%d ignored\n", a.ignored, MAX_CPUS);
	return ncpus;
}

/* Runs on the AP, on its own stack, in the kernel page table. */
static __noreturn void ap_main(struct cpu *c)
{
	percpu_init_ap(c);
	smp_note_cr3(pv_read_cr3());   /* the kernel page table, from the trampoline */
	pv_write_cr0(bsp_state.cr0);
	pv_write_cr4(bsp_state.cr4);
	pv_wrmsr(MSR_EFER, bsp_state.efer);
	gdt_init();
	idt_load();
	syscall_init();
	fpu_init_cpu();
	lapic_init_cpu();
	bsp_state.entry();
	panic("smp: CPU %d left its entry", c->id);
}

static void write_trampoline(struct cpu *c, uint64_t stack_top)
{
	size_t len = (size_t)(ap_trampoline_end - ap_trampoline);
	char *dst = P2V(SMP_TRAMPOLINE_PA);
	memcpy(dst, ap_trampoline, len);
	struct ap_boot_params *p = (void *)(dst + (ap_trampoline_params - ap_trampoline));
	*p = (struct ap_boot_params){
		.boot_cr3 = (uint64_t)boot_pml4,
		.kernel_cr3 = pv_read_cr3(),
		.stack = stack_top,
		.entry = (uint64_t)ap_main,
		.arg = (uint64_t)c,
		.high = (uint64_t)ap_start64_high,
	};
}

bool smp_start_ap(int id, uint64_t stack_top, ap_entry_t entry)
{
	struct cpu *c = &cpus[id];
	bsp_state.cr0 = pv_read_cr0();
	bsp_state.cr4 = pv_read_cr4();
	bsp_state.efer = pv_rdmsr(MSR_EFER);
	bsp_state.entry = entry;
	c->boot_stack_top = stack_top;
	write_trampoline(c, stack_top);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!lapic_start_ap(c->apic_id, SMP_TRAMPOLINE_PA >> 12))
		return false;
	uint64_t end = tsc_read() + tsc_khz() * (AP_WAIT_US / 1000);
	while (!c->online && tsc_read() < end)
		cpu_relax();
	return c->online;
}

void smp_ap_online(void)
{
	__atomic_store_n(&this_cpu()->online, true, __ATOMIC_RELEASE);
}

cpumask_t smp_online_mask(void)
{
	cpumask_t m = 0;
	for (int i = 0; i < ncpus; i++)
		if (__atomic_load_n(&cpus[i].online, __ATOMIC_ACQUIRE))
			m |= cpumask_of(i);
	return m;
}

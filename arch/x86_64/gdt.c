/* arch/x86_64/gdt.c -- GDT with kernel/user segments and the TSS.
 *
 * Selector order is fixed by syscall/sysret: kernel code, kernel data, user
 * data, user code (see SEG_* in trap.h). The TSS holds rsp0 (the kernel
 * stack used on entry from user mode) and IST1, a separate stack for double
 * faults so that a kernel stack overflow can still be reported.
 *
 * Every CPU has its own GDT, TSS and IST stacks (indexed by struct cpu.id):
 * a TSS descriptor goes busy when loaded, so two CPUs cannot share one, and
 * two CPUs taking a double fault at once must not share a stack.
 */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __packed;

#define GDT_ACCESSED (1UL << 40)
#define GDT_RW (1UL << 41)
#define GDT_EXEC (1UL << 43)
#define GDT_CODEDATA (1UL << 44)
#define GDT_DPL3 (3UL << 45)
#define GDT_PRESENT (1UL << 47)
#define GDT_LONG (1UL << 53)
#define GDT_TSS_AVAIL (9UL << 40)

#define IST_STACK_SIZE 8192

struct cpu_tables {
	uint64_t gdt[7];
	struct tss tss;
	uint8_t df_stack[IST_STACK_SIZE] __aligned(16);
	uint8_t nmi_stack[IST_STACK_SIZE] __aligned(16);
};

static struct cpu_tables tables[MAX_CPUS];

void gdt_init(void)
{
	struct cpu_tables *t = &tables[this_cpu()->id];
	uint64_t *gdt = t->gdt;
	struct tss *tss = &t->tss;
	uint64_t seg = GDT_PRESENT | GDT_CODEDATA | GDT_RW | GDT_ACCESSED;
	gdt[0] = 0;
	gdt[SEG_KCODE >> 3] = seg | GDT_EXEC | GDT_LONG;
	gdt[SEG_KDATA >> 3] = seg;
	gdt[SEG_UDATA >> 3] = seg | GDT_DPL3;
	gdt[SEG_UCODE >> 3] = seg | GDT_EXEC | GDT_LONG | GDT_DPL3;

	tss->iomap_base = sizeof(*tss);
	tss->ist[IST_DOUBLE_FAULT - 1] = (uint64_t)(t->df_stack + IST_STACK_SIZE);
	tss->ist[IST_NMI - 1] = (uint64_t)(t->nmi_stack + IST_STACK_SIZE);
	uint64_t base = (uint64_t)tss, limit = sizeof(*tss) - 1;
	gdt[SEG_TSS >> 3] = GDT_PRESENT | GDT_TSS_AVAIL | (limit & 0xffff) |
			    ((base & 0xffffff) << 16) |
			    (((base >> 24) & 0xff) << 56);
	gdt[(SEG_TSS >> 3) + 1] = base >> 32;

	struct pv_dtr r = { sizeof(t->gdt) - 1, (uint64_t)gdt };
	pv_load_gdt(&r);
	__asm__ volatile(
		"pushq %0\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w1, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss"
		:
		: "i"(SEG_KCODE), "i"(SEG_KDATA)
		: "rax", "memory");
	pv_load_tr(SEG_TSS);
}

/* The native cpu.load_sp0: user-mode entries use this stack from now on. */
void native_load_sp0(uint64_t rsp0)
{
	tables[this_cpu()->id].tss.rsp[0] = rsp0;
}

void tss_set_kernel_stack(uint64_t rsp0)
{
	pv_load_sp0(rsp0);
}

static bool on_stack(uint64_t addr, const uint8_t *stack)
{
	return addr >= (uint64_t)stack && addr < (uint64_t)stack + IST_STACK_SIZE;
}

bool addr_on_ist_stack(uint64_t addr)
{
	for (int i = 0; i < MAX_CPUS; i++)
		if (on_stack(addr, tables[i].df_stack) || on_stack(addr, tables[i].nmi_stack))
			return true;
	return false;
}

uint64_t ist_stack_top(int cpu, int ist)
{
	struct tss *tss = &tables[cpu].tss;
	return tss->ist[ist - 1];
}

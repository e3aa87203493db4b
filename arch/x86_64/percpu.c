/* arch/x86_64/percpu.c -- the boot CPU's per-CPU area. */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"

static struct cpu cpu0;

void percpu_init(void)
{
	cpu0.self = &cpu0;
	cpu0.id = 0;
	pv_wrmsr(MSR_GS_BASE, (uint64_t)&cpu0);
	pv_wrmsr(MSR_KERNEL_GS_BASE, 0);
}

void arch_set_fs_base(uint64_t base)
{
	pv_wrmsr(MSR_FS_BASE, base);
}

/* arch/x86_64/percpu.c -- every CPU's per-CPU area, reached through the
 * GS base (this_cpu()). */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/smp.h"

struct cpu cpus[MAX_CPUS];
int ncpus = 1;

static void set_gs(struct cpu *c)
{
	c->self = c;
	pv_wrmsr(MSR_GS_BASE, (uint64_t)c);
	pv_wrmsr(MSR_KERNEL_GS_BASE, 0);
}

void percpu_init(void)
{
	cpus[0].id = 0;
	set_gs(&cpus[0]);
	cpus[0].online = true;
}

void percpu_init_ap(struct cpu *c)
{
	set_gs(c);
}

void arch_set_fs_base(uint64_t base)
{
	pv_wrmsr(MSR_FS_BASE, base);
}

/* kernel/smp.c -- start the application processors and give them an idle
 * loop; the hardware half is arch/x86_64/smp.c. */
#include "kernel/smp.h"
#include "kernel/proc.h"
#include "arch/x86_64/bootinfo.h"
#include "lib/cmdline.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "lib/format.h"
#include "mm/pt/kstack.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"

/* Do the application processors run processes? By default (`smp_sched=1`)
 * every CPU does; `smp_sched=0` keeps every process on the boot CPU and the
 * APs only answer IPIs (to tell a bug of the scheduler's from one of the
 * shootdown's). */
static bool aps_schedule;

/* Every AP ends here, on its boot stack: its tick, then the scheduler
 * (which halts while there is nothing to run, answering IPIs). */
static __noreturn void ap_idle(void)
{
	lapic_timer_start(HZ);
	smp_ap_online();
	if (aps_schedule)
		scheduler();
	for (;;)
		cpu_idle();
}

static void start_aps(void)
{
	for (int i = 1; i < ncpus; i++) {
		void *stack = kstack_alloc();
		if (!stack)
			panic("smp: no kernel stack for CPU %d", i);
		if (!smp_start_ap(i, (uint64_t)stack, ap_idle))
			printk("smp: CPU %d (APIC id %u) did not come up\n", i, cpus[i].apic_id);
	}
}

/* "smp: N CPUs online (APIC ids 0 1 ...)" */
static void print_online(void)
{
	char ids[8 * MAX_CPUS] = "";
	size_t len = 0;
	cpumask_t m = smp_online_mask();
	for (int i = 0; i < ncpus; i++)
		if (m & cpumask_of(i))
			len += (size_t)ksnprintf(ids + len, sizeof(ids) - len, "%s%u",
						 len ? " " : "", cpus[i].apic_id);
	printk("smp: %d CPUs online (APIC ids %s)\n", smp_cpus_online(), ids);
}

void smp_init(void)
{
	aps_schedule = strcmp(cmdline_get_or("smp_sched", "1"), "0") != 0;
	smp_detect(boot_info.acpi_rsdp);
	if (lapic_present()) {
		ipi_init();
		lapic_timer_start(HZ);
		cpus[0].boot_stack_top = 0;
		start_aps();
	}
	print_online();
}

int smp_cpus_online(void)
{
	return cpumask_weight(smp_online_mask());
}

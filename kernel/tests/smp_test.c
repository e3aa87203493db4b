/* kernel/tests/smp_test.c -- test=smp: every CPU came up with per-CPU data,
 * stacks and tables of its own, ticks, and answers IPIs. smp_expect=N on the
 * command line is the number of CPUs QEMU was given (-smp N). */
#include "kernel/ktest.h"
#include "lib/cmdline.h"
#include "kernel/smp.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/pt/kstack.h"
#include "mm/frame/page.h"
#include "mm/pt/pgtable.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"
#include "arch/x86_64/shootdown.h"
#include "arch/x86_64/timer.h"

#define IPI_ROUNDS 200
#define TICK_WAIT 100000000UL   /* hang guard for the tick loop (iterations) */

struct seen {
	struct cpu *self;      /* gs:0 */
	uint64_t gs_base;      /* the MSR */
	uint32_t apic_id;      /* the APIC's own register */
	uint64_t rsp;          /* where the handler ran */
	uint64_t calls;
};

static struct seen seen[MAX_CPUS];

static void record(void *arg)
{
	(void)arg;
	struct cpu *c = this_cpu();
	struct seen *s = &seen[c->id];
	s->self = c;
	s->gs_base = pv_rdmsr(MSR_GS_BASE);
	s->apic_id = lapic_id();
	s->rsp = (uint64_t)__builtin_frame_address(0);
	s->calls++;
}

static int expected_cpus(void)
{
	const char *e = cmdline_get("smp_expect");
	return e ? e[0] - '0' : 1;
}

KTEST(smp, cpus_online)
{
	KEXPECT_EQ(smp_cpus_online(), expected_cpus());
	KEXPECT_EQ(ncpus, expected_cpus());
	KEXPECT_EQ(smp_online_mask(), (1UL << expected_cpus()) - 1);
}

/* One round to every other CPU: each answers exactly once, with its own
 * struct cpu in GS, its own APIC, on its own stack. */
KTEST(smp, percpu_distinct)
{
	memset(seen, 0, sizeof(seen));
	KEXPECT_EQ(ipi_call(~0UL, record, NULL), ncpus - 1);
	record(NULL);
	for (int i = 0; i < ncpus; i++) {
		KEXPECT(seen[i].self == &cpus[i]);
		KEXPECT_EQ(seen[i].gs_base, (uint64_t)&cpus[i]);
		KEXPECT_EQ(seen[i].apic_id, cpus[i].apic_id);
		KEXPECT_EQ(seen[i].calls, 1);
		for (int j = 0; j < i; j++)
			KEXPECT(seen[i].apic_id != seen[j].apic_id);
	}
	for (int i = 1; i < ncpus; i++) {   /* an idle AP runs on its boot stack */
		uint64_t top = cpus[i].boot_stack_top;
		KEXPECT(seen[i].rsp < top && seen[i].rsp >= top - KSTACK_SIZE);
	}
}

KTEST(smp, tables_distinct)
{
	for (int i = 0; i < ncpus; i++)
		for (int j = 0; j < i; j++) {
			KEXPECT(ist_stack_top(i, IST_DOUBLE_FAULT) != ist_stack_top(j, IST_DOUBLE_FAULT));
			KEXPECT(ist_stack_top(i, IST_NMI) != ist_stack_top(j, IST_NMI));
			KEXPECT(cpus[i].boot_stack_top != cpus[j].boot_stack_top);
		}
	for (int i = 0; i < ncpus; i++)
		KEXPECT(addr_on_ist_stack(ist_stack_top(i, IST_NMI) - 8));
}

static volatile uint64_t answered[MAX_CPUS];

static void count(void *arg)
{
	(void)arg;
	answered[this_cpu()->id]++;
}

/* IPI_ROUNDS rounds, with interrupts on and off: each returns only after
 * every other CPU ran the function, so the counts are exact at each step. */
KTEST(smp, ipi_rounds_acknowledged)
{
	struct ipi_stats before, after;
	ipi_get_stats(&before);
	memset((void *)answered, 0, sizeof(answered));
	for (int r = 1; r <= IPI_ROUNDS; r++) {
		uint64_t f = r % 2 ? irq_save() : 0;
		KEXPECT_EQ(ipi_call(~0UL, count, NULL), ncpus - 1);
		if (r % 2)
			irq_restore(f);
		for (int i = 1; i < ncpus; i++)
			if (answered[i] != (uint64_t)r)
				KEXPECT_EQ(answered[i], r);
	}
	KEXPECT_EQ(answered[0], 0);
	ipi_get_stats(&after);
	uint64_t rounds = ncpus > 1 ? IPI_ROUNDS : 0;
	KEXPECT_EQ(after.rounds - before.rounds, rounds);
	KEXPECT_EQ(after.ipis - before.ipis, rounds * (uint64_t)(ncpus - 1));
}

/* One clock for all: clock_ns() read on every CPU inside one IPI round
 * lies between the caller's readings before and after the round. Sleeps
 * (nanosleep, the tick channel) compare deadlines taken on one CPU with the
 * clock of another; a CPU whose TSC ran behind would wake them early or
 * late. */
static uint64_t clock_seen[MAX_CPUS];

static void read_clock(void *arg)
{
	(void)arg;
	clock_seen[this_cpu()->id] = clock_ns();
}

KTEST(smp, clock_agrees_on_every_cpu)
{
	for (int round = 0; round < 20; round++) {
		memset(clock_seen, 0, sizeof(clock_seen));
		uint64_t before = clock_ns();
		KEXPECT_EQ(ipi_call(~0UL, read_clock, NULL), ncpus - 1);
		uint64_t after = clock_ns();
		for (int i = 0; i < ncpus; i++) {
			if (i == this_cpu()->id)
				continue;
			if (clock_seen[i] < before || clock_seen[i] > after)
				printk("smp: CPU %d's clock read %lu ns, outside [%lu, %lu]\n", i,
				       clock_seen[i], before, after);
			KEXPECT(clock_seen[i] >= before && clock_seen[i] <= after);
		}
	}
}

/* A call aimed at nobody else (only this CPU, or an empty mask) sends no IPI. */
KTEST(smp, ipi_none_for_self)
{
	struct ipi_stats before, after;
	ipi_get_stats(&before);
	KEXPECT_EQ(ipi_call(cpumask_of(this_cpu()->id), count, NULL), 0);
	KEXPECT_EQ(ipi_call(0, count, NULL), 0);
	ipi_get_stats(&after);
	KEXPECT_EQ(after.ipis, before.ipis);
	KEXPECT_EQ(after.rounds, before.rounds);
}

/* Every CPU's APIC timer interrupts it (the idle loop halts between). */
KTEST(smp, lapic_timer_every_cpu)
{
	uint64_t start[MAX_CPUS];
	for (int i = 0; i < ncpus; i++)
		start[i] = cpus[i].lapic_ticks;
	for (int i = 0; i < ncpus; i++) {
		uint64_t n = 0;
		while (cpus[i].lapic_ticks < start[i] + 2 && n++ < TICK_WAIT)
			cpu_relax();
		KEXPECT(cpus[i].lapic_ticks >= start[i] + 2);
	}
}

static volatile uint64_t read_value[MAX_CPUS];

static void read_page(void *arg)
{
	read_value[this_cpu()->id] = *(volatile uint64_t *)arg;
}

/* Every CPU reads va (its translation is now in every TLB); returns how
 * many read want. */
static int cpus_reading(vaddr_t va, uint64_t want)
{
	memset((void *)read_value, 0, sizeof(read_value));
	ipi_call(~0UL, read_page, (void *)va);
	read_page((void *)va);
	int n = 0;
	for (int i = 0; i < ncpus; i++)
		n += read_value[i] == want;
	return n;
}

static paddr_t marked_frame(uint64_t marker)
{
	struct page *pg = page_alloc(0, 0);
	if (!pg)
		panic("smp test: no frame");
	*(uint64_t *)P2V(page_to_pa(pg)) = marker;
	return page_to_pa(pg);
}

/* A kernel-half page mapped on frame A and read on every CPU, then remapped
 * to frame B in a TLB batch (pgt_replace, which frees A after the flush):
 * the batch's one IPI round makes every CPU's next read see B. */
KTEST(smp, shootdown_every_cpu_sees_new_frame)
{
	void *stack = kstack_alloc();
	KEXPECT(stack != NULL);
	vaddr_t va = (vaddr_t)stack - KSTACK_SIZE - PAGE_SIZE;   /* its guard page */
	KEXPECT_EQ(pgt_map(&kernel_pgt, va, marked_frame(0xa), PAGE_SIZE, VM_READ | VM_WRITE), 0);
	KEXPECT_EQ(cpus_reading(va, 0xa), ncpus);

	paddr_t frame_b = marked_frame(0xb);   /* no allocation inside a batch */
	struct shootdown_stats before, after;
	shootdown_get_stats(&before);
	struct tlb_batch b;
	tlb_begin(&b, &kernel_pgt);
	paddr_t pa_a;
	pte_t flags_a;
	KEXPECT(pgt_lookup(&kernel_pgt, va, &pa_a, &flags_a));
	KEXPECT_EQ(pgt_replace(&b, va, pte_make(pa_a, flags_a), frame_b, VM_READ | VM_WRITE, NULL), 0);
	tlb_end(&b);
	shootdown_get_stats(&after);
	int n = cpus_reading(va, 0xb);
	printk("smp: shootdown: %d of %d CPUs see the new frame\n", n, ncpus);
	KEXPECT_EQ(n, ncpus);
	KEXPECT_EQ(after.rounds - before.rounds, ncpus > 1);
	KEXPECT_EQ(after.cpus - before.cpus, ncpus - 1);
	KEXPECT_EQ(after.avoided - before.avoided, ncpus == 1);

	tlb_begin(&b, &kernel_pgt);
	pgt_unmap(&b, va, va + PAGE_SIZE, PGT_STRICT);
	tlb_end(&b);
	kstack_free(stack);
}

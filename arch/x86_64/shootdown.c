/* arch/x86_64/shootdown.c -- remote TLB flushes through ipi_call. */
#include "arch/x86_64/shootdown.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/pv_ops.h"

static struct shootdown_stats stats;

int smp_cpu_id(void)
{
	return this_cpu()->id;
}

void smp_note_cr3(uint64_t cr3)
{
	__atomic_store_n(&this_cpu()->cr3, cr3, __ATOMIC_SEQ_CST);
}

/* The online CPUs but this one, whose published CR3 is want (any CR3
 * with any_cr3). */
static cpumask_t others_with(uint64_t want, bool any_cr3)
{
	cpumask_t m = 0, online = smp_online_mask();
	int self = this_cpu()->id;
	for (int i = 0; i < ncpus; i++)
		if (i != self && (online & cpumask_of(i)) &&
		    (any_cr3 || __atomic_load_n(&cpus[i].cr3, __ATOMIC_SEQ_CST) == want))
			m |= cpumask_of(i);
	return m;
}

cpumask_t smp_cpus_using(uint64_t cr3)
{
	return others_with(cr3, false);
}

cpumask_t smp_other_cpus(void)
{
	return others_with(0, true);
}

struct cr3_switch {
	uint64_t from, to;
};

/* On each target (interrupts off): the scheduler changes CR3 with them off
 * too, so the published CR3 is the loaded one or the next about to be. */
static void leave_here(void *arg)
{
	const struct cr3_switch *s = arg;
	if (__atomic_load_n(&this_cpu()->cr3, __ATOMIC_SEQ_CST) != s->from)
		return;
	smp_note_cr3(s->to);
	pv_write_cr3(s->to);
}

void smp_leave_cr3(cpumask_t mask, uint64_t cr3, uint64_t kernel_cr3)
{
	struct cr3_switch s = { cr3, kernel_cr3 };
	ipi_call(mask, leave_here, &s);
}

/* On each target, in its IPI handler. */
static void flush_here(void *arg)
{
	const struct shootdown *s = arg;
	if (s->all) {
		pv_flush_all();
		return;
	}
	for (int i = 0; i < s->npages; i++)
		pv_flush_one(s->va[i]);
}

int tlb_shootdown(cpumask_t mask, const struct shootdown *s)
{
	int n = ipi_call(mask, flush_here, (void *)s);
	if (n == 0) {
		__atomic_fetch_add(&stats.avoided, 1, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_fetch_add(&stats.rounds, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.cpus, (uint64_t)n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.pages, s->changed, __ATOMIC_RELAXED);
	if (s->all)
		__atomic_fetch_add(&stats.full, 1, __ATOMIC_RELAXED);
	return n;
}

void shootdown_get_stats(struct shootdown_stats *st)
{
	st->rounds = __atomic_load_n(&stats.rounds, __ATOMIC_RELAXED);
	st->cpus = __atomic_load_n(&stats.cpus, __ATOMIC_RELAXED);
	st->pages = __atomic_load_n(&stats.pages, __ATOMIC_RELAXED);
	st->full = __atomic_load_n(&stats.full, __ATOMIC_RELAXED);
	st->avoided = __atomic_load_n(&stats.avoided, __ATOMIC_RELAXED);
}

/* arch/x86_64/ipi.c -- the cross-CPU call: one slot, one IPI per target,
 * a pending mask the targets clear as they finish. */
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trap.h"
#include "lib/spinlock.h"

static volatile uint32_t call_busy;      /* the slot is taken */
static ipi_fn_t call_fn;
static void *call_arg;
static volatile cpumask_t call_pending;  /* targets that have not finished */
static struct ipi_stats stats;

/* A call's fn that spins for a lock polls here: c->answering keeps it from
 * running the same call again inside itself. */
void ipi_poll(void)
{
	struct cpu *c = this_cpu();
	cpumask_t me = cpumask_of(c->id);
	if (c->answering || !(__atomic_load_n(&call_pending, __ATOMIC_ACQUIRE) & me))
		return;
	c->answering = true;
	call_fn(call_arg);
	c->answering = false;
	c->ipi_calls++;
	__atomic_fetch_add(&stats.answered, 1, __ATOMIC_RELAXED);
	__atomic_fetch_and(&call_pending, ~me, __ATOMIC_RELEASE);
}

static void ipi_irq(struct trapframe *tf)
{
	(void)tf;
	ipi_poll();
}

static void send_all(cpumask_t targets)
{
	for (int i = 0; i < ncpus; i++)
		if (targets & cpumask_of(i))
			lapic_send_ipi(cpus[i].apic_id, T_IPI_CALL);
}

/* Take the call slot (answering calls meanwhile) and send fn to targets;
 * interrupts stay off until call_finish. Returns the saved flags. */
static uint64_t call_start(cpumask_t targets, ipi_fn_t fn, void *arg)
{
	uint64_t flags = irq_save();
	while (__atomic_exchange_n(&call_busy, 1, __ATOMIC_ACQUIRE)) {
		ipi_poll();
		cpu_relax();
	}
	call_fn = fn;
	call_arg = arg;
	__atomic_store_n(&call_pending, targets, __ATOMIC_RELEASE);
	send_all(targets);
	return flags;
}

/* Wait for every target's acknowledgement, count the round, free the slot. */
static int call_finish(cpumask_t targets, uint64_t flags)
{
	while (__atomic_load_n(&call_pending, __ATOMIC_ACQUIRE))
		cpu_relax();
	stats.rounds++;
	stats.ipis += (uint64_t)cpumask_weight(targets);
	__atomic_store_n(&call_busy, 0, __ATOMIC_RELEASE);
	irq_restore(flags);
	return cpumask_weight(targets);
}

static cpumask_t others_in(cpumask_t mask)
{
	return mask & smp_online_mask() & ~cpumask_of(this_cpu()->id);
}

int ipi_call(cpumask_t mask, ipi_fn_t fn, void *arg)
{
	cpumask_t targets = others_in(mask);
	if (!targets)
		return 0;
	return call_finish(targets, call_start(targets, fn, arg));
}

int ipi_call_each(cpumask_t mask, ipi_fn_t fn, void *arg)
{
	cpumask_t targets = others_in(mask);
	bool here = mask & cpumask_of(this_cpu()->id);
	if (!targets) {
		uint64_t flags = irq_save();
		if (here)
			fn(arg);
		irq_restore(flags);
		return here;
	}
	uint64_t flags = call_start(targets, fn, arg);
	if (here) {
		this_cpu()->answering = true;   /* its spin loops must not run fn again */
		fn(arg);
		this_cpu()->answering = false;
	}
	return call_finish(targets, flags) + here;
}

void ipi_init(void)
{
	vector_register(T_IPI_CALL, ipi_irq);
	spin_wait_hook = ipi_poll;
}

void ipi_get_stats(struct ipi_stats *s)
{
	*s = stats;
	s->answered = __atomic_load_n(&stats.answered, __ATOMIC_RELAXED);
}

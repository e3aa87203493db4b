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

/* Answer the call in flight if it is for this CPU. A call's fn that spins
 * for a lock polls here: c->answering keeps it from running the same call
 * again inside itself. The fn runs with interrupts off, also when the
 * poll comes from a spin with them on (sched_stop_others): an interrupt
 * inside it that spins for a lock the caller holds (the timer's tick
 * takes proc_lock) could not answer, and the caller would wait forever. */
void ipi_poll(void)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();
	cpumask_t me = cpumask_of(c->id);
	if (!c->answering && (__atomic_load_n(&call_pending, __ATOMIC_ACQUIRE) & me)) {
		c->answering = true;
		call_fn(call_arg);
		c->answering = false;
		c->ipi_calls++;
		__atomic_fetch_add(&stats.answered, 1, __ATOMIC_RELAXED);
		__atomic_fetch_and(&call_pending, ~me, __ATOMIC_RELEASE);
	}
	irq_restore(flags);
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

/* ipi_call, and with here also fn(arg) on the caller meanwhile. */
static int call_round(cpumask_t mask, ipi_fn_t fn, void *arg, bool here)
{
	cpumask_t targets = mask & smp_online_mask() & ~cpumask_of(this_cpu()->id);
	if (!targets) {
		if (here)
			fn(arg);
		return 0;
	}
	uint64_t flags = irq_save();
	while (__atomic_exchange_n(&call_busy, 1, __ATOMIC_ACQUIRE)) {
		ipi_poll();
		cpu_relax();
	}
	call_fn = fn;
	call_arg = arg;
	__atomic_store_n(&call_pending, targets, __ATOMIC_RELEASE);
	send_all(targets);
	if (here)
		fn(arg);
	while (__atomic_load_n(&call_pending, __ATOMIC_ACQUIRE))
		cpu_relax();
	stats.rounds++;
	stats.ipis += (uint64_t)cpumask_weight(targets);
	__atomic_store_n(&call_busy, 0, __ATOMIC_RELEASE);
	irq_restore(flags);
	return cpumask_weight(targets);
}

int ipi_call(cpumask_t mask, ipi_fn_t fn, void *arg)
{
	return call_round(mask, fn, arg, false);
}

int ipi_call_here_too(cpumask_t mask, ipi_fn_t fn, void *arg)
{
	return call_round(mask, fn, arg, true);
}

void smp_kick(int cpu)
{
	__atomic_fetch_add(&stats.kicks, 1, __ATOMIC_RELAXED);
	lapic_send_ipi(cpus[cpu].apic_id, T_IPI_KICK);
}

static void kick_irq(struct trapframe *tf)
{
	(void)tf;   /* the interrupt itself was the message */
}

void ipi_init(void)
{
	vector_register(T_IPI_CALL, ipi_irq);
	vector_register(T_IPI_KICK, kick_irq);
	spin_wait_hook = ipi_poll;
}

void ipi_get_stats(struct ipi_stats *s)
{
	*s = stats;
	s->answered = __atomic_load_n(&stats.answered, __ATOMIC_RELAXED);
	s->kicks = __atomic_load_n(&stats.kicks, __ATOMIC_RELAXED);
}

/* lib/spinlock.c -- test-and-set locks with nested interrupt disabling. */
#include "lib/spinlock.h"
#include "lib/printk.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"

void push_off(void)
{
	bool was_on = irq_enabled();
	irq_disable();
	struct cpu *c = this_cpu();
	if (c->ncli++ == 0)
		c->intena = was_on;
}

void pop_off(void)
{
	struct cpu *c = this_cpu();
	if (irq_enabled())
		panic("pop_off: interrupts enabled");
	if (c->ncli < 1)
		panic("pop_off: unbalanced");
	if (--c->ncli == 0 && c->intena)
		irq_enable();
}

void spin_lock(struct spinlock *l)
{
	push_off();
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

void spin_unlock(struct spinlock *l)
{
	if (!l->locked)
		panic("spin_unlock: lock %s not held", l->name);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	pop_off();
}

bool spin_holding(struct spinlock *l)
{
	return l->locked;
}

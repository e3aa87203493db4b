/* arch/x86_64/irq.h -- interrupt-flag control for generic code, through
 * the irq group of pv_ops. */
#ifndef ARCH_X86_64_IRQ_H
#define ARCH_X86_64_IRQ_H

#include "arch/x86_64/pv_ops.h"

/* Disable interrupts; returns the previous flags for irq_restore(). */
static inline uint64_t irq_save(void)
{
	uint64_t f = pv_save_fl();
	pv_irq_disable();
	return f;
}

/* Put back the interrupt state irq_save() returned. */
static inline void irq_restore(uint64_t flags)
{
	pv_restore_fl(flags);
}

static inline void irq_enable(void)
{
	pv_irq_enable();
}

static inline void irq_disable(void)
{
	pv_irq_disable();
}

static inline bool irq_enabled(void)
{
	return pv_save_fl() & RFLAGS_IF;
}

/* Wait for the next interrupt with interrupts enabled. */
static inline void cpu_idle(void)
{
	pv_safe_halt();
}

/* Stop until the next interrupt, leaving the interrupt flag alone. */
static inline void cpu_halt(void)
{
	pv_halt();
}

#endif

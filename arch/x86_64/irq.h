/* arch/x86_64/irq.h -- interrupt-flag control for generic code.
 * (Routed through pv_ops.irq once the full paravirt table exists.) */
#ifndef ARCH_X86_64_IRQ_H
#define ARCH_X86_64_IRQ_H

#include "arch/x86_64/cpu.h"

/* Disable interrupts; returns the previous flags for irq_restore(). */
static inline uint64_t irq_save(void)
{
	uint64_t f = native_read_flags();
	native_irq_disable();
	return f;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		native_irq_enable();
}

static inline void irq_enable(void)
{
	native_irq_enable();
}

static inline void irq_disable(void)
{
	native_irq_disable();
}

static inline bool irq_enabled(void)
{
	return native_read_flags() & RFLAGS_IF;
}

/* Wait for the next interrupt with interrupts enabled. */
static inline void cpu_idle(void)
{
	native_safe_halt();
}

#endif

/* arch/x86_64/timer.h -- PIT tick and the calibrated TSC clock. */
#ifndef ARCH_X86_64_TIMER_H
#define ARCH_X86_64_TIMER_H

#include "lib/types.h"

#define HZ 100

/* Measure the TSC frequency against the PIT, then start the PIT at HZ. */
void timer_init(void);

/* Timer ticks since boot. */
uint64_t timer_ticks(void);

/* Called on every tick with the interrupted frame (the scheduler's hook). */
struct trapframe;
extern void (*timer_tick_hook)(struct trapframe *tf);

/* TSC frequency in kHz, measured at boot. */
uint64_t tsc_khz(void);
uint64_t tsc_read(void);

/* Nanoseconds since boot, from the TSC. */
uint64_t clock_ns(void);

/* Convert TSC cycles to nanoseconds. */
uint64_t tsc_to_ns(uint64_t cycles);

#endif

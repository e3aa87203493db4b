/* arch/x86_64/backtrace.h -- frame-pointer backtraces with symbol names. */
#ifndef ARCH_X86_64_BACKTRACE_H
#define ARCH_X86_64_BACKTRACE_H

#include "lib/types.h"
#include "lib/printk.h"

/* Print " (function+0xoff)" for a kernel address, or nothing if unknown. */
void print_symbol(uint64_t addr);

/* Print the call chain starting at rip with frame pointer rbp. */
void backtrace_from(uint64_t rip, uint64_t rbp);

/* The first return address on the call chain whose innermost frame is rbp
 * that lies outside [lo, hi): where a run of functions linked together
 * there (lib/wait.h's SLEEP_TEXT) was called from. 0 when the chain ends
 * first. The stack must hold still: the caller's own, or a switched-out
 * thread's that cannot run meanwhile. */
uint64_t backtrace_first_outside(uint64_t rbp, uint64_t lo, uint64_t hi);

/* Print the call chain of the caller. */
void backtrace_here(void);

/* The panic hook (lib/printk.h) that prints backtrace_here at PANIC_DUMP. */
void backtrace_on_panic(enum panic_stage stage);

/* Did a fault at addr with stack pointer rsp hit a kernel stack's guard page? */
bool kstack_guard_hit(uint64_t rsp, uint64_t addr);

#endif

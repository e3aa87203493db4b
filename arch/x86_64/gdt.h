/* arch/x86_64/gdt.h -- segments, TSS and interrupt stacks. */
#ifndef ARCH_X86_64_GDT_H
#define ARCH_X86_64_GDT_H

#include "lib/types.h"

#define IST_DOUBLE_FAULT 1
#define IST_NMI 2

/* Build and load this CPU's GDT and TSS (its IST stacks included): every
 * CPU calls it once, after percpu_init() gave it its id. */
void gdt_init(void);

/* Kernel stack this CPU switches to on entry from user mode. */
void tss_set_kernel_stack(uint64_t rsp0);

/* Is addr on any CPU's IST stack (double fault, NMI)? */
bool addr_on_ist_stack(uint64_t addr);

/* Top of IST stack ist (IST_*) of CPU cpu (the smp tests check that CPUs
 * share none). */
uint64_t ist_stack_top(int cpu, int ist);

/* Build the IDT (once, on the BSP) and load it on this CPU. */
void idt_init(void);

/* Load the IDT idt_init built on this CPU (application processors). */
void idt_load(void);

#endif

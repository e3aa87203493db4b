/* arch/x86_64/gdt.h -- segments, TSS and interrupt stacks. */
#ifndef ARCH_X86_64_GDT_H
#define ARCH_X86_64_GDT_H

#include "lib/types.h"

#define IST_DOUBLE_FAULT 1
#define IST_NMI 2

void gdt_init(void);

/* Kernel stack the CPU switches to on entry from user mode. */
void tss_set_kernel_stack(uint64_t rsp0);

bool addr_on_ist_stack(uint64_t addr);

void idt_init(void);

#endif

/* arch/x86_64/pic.h -- the legacy 8259 interrupt controllers. */
#ifndef ARCH_X86_64_PIC_H
#define ARCH_X86_64_PIC_H

#include "lib/types.h"

void pic_init(void);            /* remap IRQ 0-15 to vectors 32-47, all masked */
void pic_unmask(int irq);
void pic_eoi(int irq);
bool pic_spurious(int irq);     /* IRQ 7/15 that the PIC did not raise */

#endif

/* arch/x86_64/console.h -- console devices: COM1 serial and VGA text. */
#ifndef ARCH_X86_64_CONSOLE_H
#define ARCH_X86_64_CONSOLE_H

#include "lib/types.h"

void serial_init(void);
void serial_putc(char c);
int serial_getc(void);
void vga_init(void);
void vga_putc(char c);

/* Exit QEMU through the isa-debug-exit device (iobase 0xf4): QEMU's exit
 * status becomes (code << 1) | 1. Returns only when the device is absent. */
void qemu_debug_exit(uint8_t code);

#endif

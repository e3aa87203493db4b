/* arch/x86_64/serial.h -- the COM1 serial port (16550 UART, 115200 8N1):
 * the console's output sink and its keyboard. */
#ifndef ARCH_X86_64_SERIAL_H
#define ARCH_X86_64_SERIAL_H

#include "lib/types.h"

/* Program the UART (115200 8N1, FIFOs, the data-ready interrupt). Once,
 * first thing at boot (before any printk). */
void serial_init(void);

/* Send c, waiting for the transmitter; "\n" goes out as "\r\n". */
void serial_putc(char c);

/* A received byte, or -1 if none is waiting. Never blocks. */
int serial_getc(void);

#endif

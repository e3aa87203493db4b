/* kernel/printk.h -- kernel console output and fatal errors. */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "kernel/types.h"

/* printf to the console (serial + VGA). Returns characters printed. */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

/* Write raw bytes to the console (used by the console device). */
void console_write(const char *s, size_t n);

/* Print the message, the registers of the caller and a backtrace, then stop:
 * exits QEMU with a failure code in test mode, halts otherwise. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/* Panic naming the failed condition, file and line. */
#define ASSERT(c)                                                        \
	do {                                                             \
		if (unlikely(!(c)))                                      \
			panic("assertion failed: %s at %s:%d", #c,       \
			      __FILE__, __LINE__);                       \
	} while (0)

#endif

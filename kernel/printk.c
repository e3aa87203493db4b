/* kernel/printk.c -- formatted output to serial and VGA; panic(). */
#include "kernel/printk.h"
#include "kernel/format.h"
#include "kernel/ktest.h"
#include "arch/x86_64/console.h"
#include "arch/x86_64/backtrace.h"
#include "arch/x86_64/irq.h"

static void console_putc(char c, void *arg)
{
	(void)arg;
	serial_putc(c);
	vga_putc(c);
}

void console_write(const char *s, size_t n)
{
	uint64_t f = irq_save();
	for (size_t i = 0; i < n; i++)
		console_putc(s[i], NULL);
	irq_restore(f);
}

int vprintk(const char *fmt, va_list ap)
{
	uint64_t f = irq_save();
	int n = format(console_putc, NULL, fmt, ap);
	irq_restore(f);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

static bool in_panic;

void panic(const char *fmt, ...)
{
	irq_disable();
	if (in_panic) {            /* panic while panicking: just stop */
		ktest_exit(KTEST_EXIT_PANIC);
		for (;;)
			cpu_halt();
	}
	in_panic = true;
	va_list ap;
	va_start(ap, fmt);
	printk("\nPANIC: ");
	vprintk(fmt, ap);
	printk("\n");
	va_end(ap);
	backtrace_here();
	printk("system halted\n");
	ktest_exit(KTEST_EXIT_PANIC);
	for (;;)
		cpu_halt();
}

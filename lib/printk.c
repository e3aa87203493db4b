/* lib/printk.c -- formatted output to the registered console sinks; panic().
 *
 * printk knows no device: arch registers serial and VGA as sinks at boot
 * (printk_add_sink), and whoever needs to act on a panic (arch's backtrace,
 * the test harness's QEMU exit) registers a panic hook. */
#include "lib/printk.h"
#include "lib/format.h"
#include "arch/x86_64/irq.h"

#define MAX_SINKS 4
#define MAX_PANIC_HOOKS 4

static console_sink_fn sinks[MAX_SINKS];
static int nr_sinks;
static panic_hook_fn panic_hooks[MAX_PANIC_HOOKS];
static int nr_panic_hooks;

void printk_add_sink(console_sink_fn fn)
{
	if (nr_sinks == MAX_SINKS)
		panic("printk_add_sink: more than %d sinks", MAX_SINKS);
	sinks[nr_sinks++] = fn;
}

void panic_add_hook(panic_hook_fn fn)
{
	if (nr_panic_hooks == MAX_PANIC_HOOKS)
		panic("panic_add_hook: more than %d hooks", MAX_PANIC_HOOKS);
	panic_hooks[nr_panic_hooks++] = fn;
}

static void sink_putc(char c, void *arg)
{
	(void)arg;
	for (int i = 0; i < nr_sinks; i++)
		sinks[i](c);
}

void printk_write(const char *s, size_t n)
{
	uint64_t f = irq_save();
	for (size_t i = 0; i < n; i++)
		sink_putc(s[i], NULL);
	irq_restore(f);
}

int vprintk(const char *fmt, va_list ap)
{
	uint64_t f = irq_save();
	int n = format(sink_putc, NULL, fmt, ap);
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

static void run_panic_hooks(enum panic_stage stage)
{
	for (int i = 0; i < nr_panic_hooks; i++)
		panic_hooks[i](stage);
}

static bool in_panic;

void panic(const char *fmt, ...)
{
	irq_disable();
	if (in_panic) {            /* panic while panicking: just stop */
		run_panic_hooks(PANIC_STOP);
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
	run_panic_hooks(PANIC_DUMP);
	printk("system halted\n");
	run_panic_hooks(PANIC_STOP);
	for (;;)
		cpu_halt();
}

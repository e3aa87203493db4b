/* lib/printk.h -- kernel console output and fatal errors. */
#ifndef LIB_PRINTK_H
#define LIB_PRINTK_H

#include "lib/types.h"

/* A console sink: gets every character printk and printk_write write. */
typedef void (*console_sink_fn)(char c);

/* Send all later output to fn too (arch registers serial and VGA at boot;
 * output before the first sink is lost). Panics beyond 4 sinks. */
void printk_add_sink(console_sink_fn fn);

/* What panic is doing when it calls its hooks: PANIC_DUMP after printing
 * the message (arch prints registers and a backtrace), PANIC_STOP just
 * before halting (the test harness exits QEMU). A panic inside a hook goes
 * straight to PANIC_STOP. */
enum panic_stage { PANIC_DUMP, PANIC_STOP };
typedef void (*panic_hook_fn)(enum panic_stage stage);

/* Call fn at each stage of every later panic, in registration order.
 * Panics beyond 4 hooks. */
void panic_add_hook(panic_hook_fn fn);

/* printf to every console sink. Returns characters printed. */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

/* Write raw bytes to every console sink, like printk without formatting
 * (the tty echoes and writes through it). */
void printk_write(const char *s, size_t n);

/* Print the message, run the panic hooks (a backtrace; in test mode, a QEMU
 * exit with a failure code), then halt this CPU with interrupts off. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif

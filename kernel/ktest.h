/* kernel/ktest.h -- in-kernel test suites, selected by test=SUITE[,SUITE].
 *
 *   KTEST(mm, buddy_split) { KEXPECT(x == 1); KEXPECT_EQ(a, b); }
 *
 * Serial protocol read by tests/qemu/driver.py, one line each:
 *   KTEST BEGIN <suite>
 *   TEST <suite>.<name> PASS          or   TEST <suite>.<name> FAIL <why>
 *   KTEST END <n> passed, <m> failed
 * then QEMU exits through isa-debug-exit with KTEST_EXIT_PASS or _FAIL.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "lib/types.h"
#include "lib/printk.h"

/* isa-debug-exit codes; QEMU exits with (code << 1) | 1. */
#define KTEST_EXIT_PASS 0x10   /* QEMU status 33 */
#define KTEST_EXIT_FAIL 0x11   /* 35 */
#define KTEST_EXIT_PANIC 0x12  /* 37 */

struct ktest {
	const char *suite;
	const char *name;
	void (*fn)(void);
};

#define KTEST(suite, name)                                                 \
	static void ktest_##suite##_##name(void);                          \
	static const struct ktest ktest_rec_##suite##_##name               \
		__section(".ktests") __attribute__((used, aligned(8))) = { \
			#suite, #name, ktest_##suite##_##name };           \
	static void ktest_##suite##_##name(void)

/* Record a failure of the current test (the test goes on). */
void ktest_fail(const char *file, int line, const char *fmt, ...) __printf(3, 4);

#define KEXPECT(c)                                                          \
	do {                                                                \
		if (!(c))                                                   \
			ktest_fail(__FILE__, __LINE__, "expected %s", #c);  \
	} while (0)

#define KEXPECT_EQ(a, b)                                                    \
	do {                                                                \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);            \
		if (_a != _b)                                               \
			ktest_fail(__FILE__, __LINE__,                      \
				   "expected %s == %s (%#lx != %#lx)", #a,  \
				   #b, _a, _b);                             \
	} while (0)

/* Are we running tests or benchmarks (test= or bench= given)? */
bool ktest_mode(void);

/* Run the suites named by test= ("all" runs every suite whose name does not
 * start with "crash") and print the summary. Then exit QEMU with the result,
 * unless init= is also given: then return, and the verdict waits for init
 * (ktest_init_exited). */
void ktest_run_selected(void);

/* pid 1 exited with wait status: in test mode exit QEMU with pass (kernel
 * suites passed and status 0) or fail; otherwise exit QEMU with the exit
 * code (make run CMD=...) or power off. kmain registers it with
 * proc_set_init_exit. */
__noreturn void ktest_init_exited(int status);

/* In test mode, leave QEMU with code; otherwise return. */
void ktest_exit(uint8_t code);

/* The panic hook (lib/printk.h) of the test harness: at PANIC_STOP, exit
 * QEMU with KTEST_EXIT_PANIC in test mode. */
void ktest_on_panic(enum panic_stage stage);

/* Run fn(arg) and report whether it faulted; on a fault, *vector and *addr
 * (CR2 for page faults) say how. The fault is caught, not fatal. */
bool ktest_catch_fault(void (*fn)(void *), void *arg, uint64_t *vector,
		       uint64_t *addr);

#endif

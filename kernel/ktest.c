/* kernel/ktest.c -- runs the in-kernel test suites chosen on the command line. */
#include "kernel/ktest.h"
#include "kernel/fs.h"
#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "arch/x86_64/qemu_exit.h"
#include "arch/x86_64/setjmp.h"
#include "arch/x86_64/reset.h"

extern const struct ktest _ktests_start[], _ktests_end[];

static int current_failures;
static int suite_failures;   /* failed kernel tests, for ktest_init_exited */
static char first_failure[160];

void ktest_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[128];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk("  %s:%d: %s\n", file, line, msg);
	if (current_failures++ == 0)
		ksnprintf(first_failure, sizeof(first_failure), "%s:%d: %s",
			  file, line, msg);
}

bool ktest_mode(void)
{
	return cmdline_has("test") || cmdline_has("bench");
}

void ktest_exit(uint8_t code)
{
	if (ktest_mode())
		qemu_debug_exit(code);
}

void ktest_on_panic(enum panic_stage stage)
{
	if (stage == PANIC_STOP)
		ktest_exit(KTEST_EXIT_PANIC);
}

static bool suite_selected(const char *list, const char *suite)
{
	if (cmdline_list_has(list, suite))
		return true;
	return cmdline_list_has(list, "all") && strncmp(suite, "crash", 5) != 0;
}

bool ktest_catch_fault(void (*fn)(void *), void *arg, uint64_t *vector,
		       uint64_t *addr)
{
	struct fault_catcher c = { 0 };
	if (arch_setjmp(&c.jb) == 0) {
		fault_catcher = &c;
		fn(arg);
		fault_catcher = NULL;
		return false;
	}
	if (vector)
		*vector = c.vector;
	if (addr)
		*addr = c.addr;
	return true;
}

void ktest_run_selected(void)
{
	const char *list = cmdline_get("test");
	int passed = 0, failed = 0;
	const char *last_suite = "";

	for (const struct ktest *t = _ktests_start; t < _ktests_end; t++) {
		if (!suite_selected(list, t->suite))
			continue;
		if (strcmp(t->suite, last_suite) != 0) {
			printk("KTEST BEGIN %s\n", t->suite);
			last_suite = t->suite;
		}
		current_failures = 0;
		t->fn();
		if (current_failures == 0) {
			printk("TEST %s.%s PASS\n", t->suite, t->name);
			passed++;
		} else {
			printk("TEST %s.%s FAIL %s\n", t->suite, t->name, first_failure);
			failed++;
		}
	}
	printk("KTEST END %d passed, %d failed\n", passed, failed);
	suite_failures = failed;
	if (cmdline_has("init"))
		return;
	qemu_debug_exit(failed || passed == 0 ? KTEST_EXIT_FAIL : KTEST_EXIT_PASS);
}

void ktest_init_exited(int status)
{
	int code = (status >> 8) & 0xff, sig = status & 0x7f;
	(void)vfs_sync_all(true);   /* the disks written and their file systems marked clean */
	printk("init exited: %s %d\n", sig ? "killed by signal" : "status", sig ? sig : code);
	if (cmdline_has("test"))
		qemu_debug_exit(status == 0 && suite_failures == 0 ? KTEST_EXIT_PASS
								   : KTEST_EXIT_FAIL);
	qemu_debug_exit((uint8_t)(sig ? 128 + sig : code));
	arch_power_off();
	panic("init exited and the machine did not power off");
}

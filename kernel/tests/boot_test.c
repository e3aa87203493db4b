/* kernel/tests/boot_test.c -- test=boot: the foundation works on real hardware
 * (QEMU): formatting, command line, timer, TSC, fault catching. */
#include "kernel/ktest.h"
#include "lib/cmdline.h"
#include "lib/format.h"
#include "lib/string.h"
#include "lib/ksyms.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/trap.h"

KTEST(boot, format)
{
	char buf[64];
	ksnprintf(buf, sizeof(buf), "%d|%5u|%-4x|%08lx|%s|%c|%zu", -42, 7u,
		  0xabu, 0xdeadbeefUL, "ok", 'z', (size_t)3);
	KEXPECT(strcmp(buf, "-42|    7|ab  |deadbeef|ok|z|3") == 0);
}

KTEST(boot, cmdline_has_test)
{
	KEXPECT(cmdline_get("test") != NULL);
}

KTEST(boot, timer_ticks)
{
	uint64_t t0 = timer_ticks();
	while (timer_ticks() < t0 + 3)
		cpu_idle();
	KEXPECT(timer_ticks() >= t0 + 3);
}

KTEST(boot, tsc_calibrated)
{
	/* any real or emulated x86-64 runs its TSC between 100 MHz and 10 GHz */
	KEXPECT(tsc_khz() > 100000 && tsc_khz() < 10000000);
	uint64_t a = clock_ns();
	uint64_t t0 = timer_ticks();
	while (timer_ticks() < t0 + 2)
		cpu_idle();
	KEXPECT(clock_ns() > a);
}

KTEST(boot, symbols)
{
	uint64_t off;
	uint64_t addr = ksym_address("kmain");
	KEXPECT(addr != 0);
	const char *name = ksym_lookup(addr + 1, &off);
	KEXPECT(name && strcmp(name, "kmain") == 0);
	KEXPECT_EQ(off, 1);
}

static void divide_by_zero(void *arg)
{
	volatile int zero = *(int *)arg;
	volatile int r = 1000 / zero;   /* (1/x needs no divide: gcc uses a compare) */
	(void)r;
}

KTEST(boot, fault_catch)
{
	int zero = 0;
	uint64_t vec = 99;
	KEXPECT(ktest_catch_fault(divide_by_zero, &zero, &vec, NULL));
	KEXPECT_EQ(vec, T_DE);
	int one = 1;
	KEXPECT(!ktest_catch_fault(divide_by_zero, &one, &vec, NULL));
}

/* kernel/tests/crash_test.c -- suites that crash on purpose, so that the test
 * driver proves it reports each kind of death (tests/suites.txt expects
 * them to fail with a given report). Never part of test=all. */
#include "kernel/ktest.h"
#include "lib/printk.h"
#include "arch/x86_64/reset.h"

/* test=crash_panic: an explicit panic(). */
KTEST(crash_panic, panic)
{
	panic("crash_panic: deliberate panic from a test");
}

/* test=crash_pagefault: a kernel read of an unmapped (user-half) address. */
KTEST(crash_pagefault, unmapped_read)
{
	volatile uintptr_t addr = 0x00007f0000000010UL;   /* hidden from the optimizer */
	KEXPECT(*(volatile uint64_t *)addr == 0);
}

/* test=crash_triple: an empty IDT makes the next exception a triple fault,
 * which resets the machine: the driver sees a second boot banner. */
KTEST(crash_triple, empty_idt)
{
	arch_triple_fault();
}

/* user/usertests/t_fault.c -- bad memory accesses kill only the process that
 * made them, with a SIGSEGV wait status; the parent carries on. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "usertests.h"

#define PAGE 4096

static const char rodata_string[] = "read-only";

/* fault_null: reads and writes near address 0 are SIGSEGV. */
void test_fault_null(void)
{
	ut_expect_signal(SIGSEGV, ut_poke, NULL);
	ut_expect_signal(SIGSEGV, ut_peek, NULL);
	ut_expect_signal(SIGSEGV, ut_poke, (void *)(uintptr_t)0x1000);
}

/* fault_prot_none: any access to a PROT_NONE page is SIGSEGV. */
void test_fault_prot_none(void)
{
	char *p = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	ut_expect_signal(SIGSEGV, ut_peek, p);
	ut_expect_signal(SIGSEGV, ut_poke, p);
	CHECK_OK(munmap(p, PAGE));
}

/* fault_rodata: writing a string literal (read-only data) is SIGSEGV. */
void test_fault_rodata(void)
{
	ut_expect_signal(SIGSEGV, ut_poke, (void *)rodata_string);
}

/* fault_text: writing over program text is SIGSEGV. */
void test_fault_text(void)
{
	ut_expect_signal(SIGSEGV, ut_poke, (void *)(uintptr_t)test_fault_text);
}

/* fault_mprotect_ro: a page made read-only keeps its data, faults on write. */
void test_fault_mprotect_ro(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	p[0] = 'x';
	CHECK_OK(mprotect(p, PAGE, PROT_READ));
	CHECK(p[0] == 'x');
	ut_expect_signal(SIGSEGV, ut_poke, p);
	CHECK_OK(munmap(p, PAGE));
}

/* fault_munmapped: touching memory after munmap faults (no stale TLB). */
void test_fault_munmapped(void)
{
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	for (int i = 0; i < 4; i++)
		p[i * PAGE] = (char)i;
	CHECK_OK(munmap(p, 4 * PAGE));
	ut_expect_signal(SIGSEGV, ut_peek, p);
	ut_expect_signal(SIGSEGV, ut_poke, p + 3 * PAGE);
}

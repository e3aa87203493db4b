/* user/dyn/libpgtest.c -- a small shared library (lib/libpgtest.so in the
 * initrd) that usertests' libshare tests load with dlopen: musl's loader
 * maps it with mmap of the file (no address: the kernel's canonical slot),
 * so its text PT page is shared by every process that loads it. It has a
 * writable segment (data, bss) like any library. */
int pgtest_counter = 7;
static int pgtest_calls;

/* The answer, 42; counts calls in the library's own bss. */
int pgtest_answer(void)
{
	pgtest_calls++;
	return 42 + pgtest_counter - 7;
}

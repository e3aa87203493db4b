/* user/dyn/libhold.c -- a dynamically linked program that stays alive and
 * answers commands about its libraries, for usertests' libshare tests (built
 * as bin/libhold-dyn, position-independent, and bin/libhold-dyn-nopie: two
 * different programs). One command per line on stdin, one answer line on
 * stdout:
 *   b          the loader's (= musl's libc.so's) base, AT_BASE, in hex
 *   d          the first writable page of libc.so (its data), in hex
 *   r OFF      the byte at libc base + OFF (hex offset), in decimal
 *   w OFF      make that page writable, flip the byte, make it read-only
 *              again; "ok"
 *   m ADDR     map one anonymous page at ADDR (hex) with MAP_FIXED_NOREPLACE
 *              first: "ok" or "err"
 *   l PATH     dlopen PATH (RTLD_NOW) and call its pgtest_answer: "ADDR N"
 *              (the function's address in hex, its result), or "err"
 *   q          exit 0
 * Linux runs it too (the same answers, other addresses). */
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#define PAGE 4096UL

/* libc.so's first writable page: its program headers, read in memory. */
static unsigned long libc_data(unsigned long base)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W))
			return base + (ph[i].p_vaddr & ~(PAGE - 1));
	return 0;
}

/* Flip the byte at p in a read-only page (mprotect around the write). */
static int flip(unsigned char *p)
{
	void *page = (void *)((unsigned long)p & ~(PAGE - 1));
	if (mprotect(page, PAGE, PROT_READ | PROT_WRITE) != 0)
		return -1;
	*p ^= 0xff;
	return mprotect(page, PAGE, PROT_READ);
}

/* dlopen path and call pgtest_answer; print its address and result. */
static void load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*answer)(void) = h ? (int (*)(void))dlsym(h, "pgtest_answer") : NULL;
	if (answer)
		printf("%lx %d\n", (unsigned long)answer, answer());
	else
		printf("err\n");
}

int main(void)
{
	unsigned long base = getauxval(AT_BASE), x;
	char line[256], arg[240];

	while (fgets(line, sizeof line, stdin)) {
		char c = line[0];
		if (c == 'q')
			return 0;
		if (c == 'b')
			printf("%lx\n", base);
		else if (c == 'd')
			printf("%lx\n", libc_data(base));
		else if (c == 'r' && sscanf(line + 1, "%lx", &x) == 1)
			printf("%d\n", ((volatile unsigned char *)base)[x]);
		else if (c == 'w' && sscanf(line + 1, "%lx", &x) == 1)
			printf("%s\n", flip((unsigned char *)base + x) == 0 ? "ok" : "err");
		else if (c == 'm' && sscanf(line + 1, "%lx", &x) == 1)
			printf("%s\n", mmap((void *)x, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
					MAP_FIXED_NOREPLACE, -1, 0) == (void *)x ? "ok" : "err");
		else if (c == 'l' && sscanf(line + 1, "%239s", arg) == 1)
			load(arg);
		else
			printf("?\n");
		fflush(stdout);
	}
	return 0;
}

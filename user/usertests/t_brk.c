/* user/usertests/t_brk.c -- the program break and the malloc built on it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "usertests.h"

#define PAGE 4096

/* raw_brk: the brk system call itself: returns the (new or unchanged)
 * break. Called raw because musl refuses brk()/sbrk() with an increment. */
static char *raw_brk(void *addr)
{
	return (char *)syscall(SYS_brk, addr);
}

/* brk_grow_shrink: growing gives zeroed usable memory, shrinking takes it
 * away (a touch faults), regrowing gives zeros again; impossible requests
 * leave the break where it was. */
void test_brk_grow_shrink(void)
{
	const size_t grow = 1 << 20;
	char *b0 = raw_brk(NULL);
	char *base = (char *)(((uintptr_t)b0 + PAGE - 1) & ~(uintptr_t)(PAGE - 1));

	CHECK(raw_brk(base + grow) == base + grow);
	for (size_t i = 0; i < grow; i += PAGE) {
		CHECK(base[i] == 0);
		base[i] = 'b';
	}
	CHECK(raw_brk(base + PAGE) == base + PAGE);
	CHECK(base[0] == 'b');
	ut_expect_signal(SIGSEGV, ut_poke, base + 2 * PAGE);
	CHECK(raw_brk(base + grow) == base + grow);
	CHECK(base[0] == 'b' && base[2 * PAGE] == 0 && base[grow - PAGE] == 0);
	CHECK(raw_brk(base + ((size_t)1 << 46)) == base + grow);	/* too big */
	CHECK(raw_brk((void *)(uintptr_t)PAGE) == base + grow);	/* below start */
	CHECK(raw_brk(b0) == b0);
}

/* sbrk_huge: an impossible heap request fails with ENOMEM, and malloc
 * returns NULL; small requests still work afterwards. */
void test_sbrk_huge(void)
{
	CHECK_ERR((long)sbrk((intptr_t)1 << 45), ENOMEM);
	errno = 0;
	CHECK(malloc((size_t)1 << 45) == NULL);
	CHECK(errno == ENOMEM);
	char *p = malloc(100);
	CHECK(p != NULL);
	free(p);
}

/* malloc_many: many sizes, realloc growth, calloc zeroing, data intact. */
void test_malloc_many(void)
{
	enum { N = 200 };
	unsigned char *blocks[N];
	size_t sizes[N];

	for (int i = 0; i < N; i++) {
		sizes[i] = (size_t)(i * 37 % 5000) + 1 + (i % 10 == 0 ? 300000 : 0);
		blocks[i] = malloc(sizes[i]);
		CHECK(blocks[i] != NULL);
		memset(blocks[i], i, sizes[i]);
	}
	for (int i = 0; i < N; i += 2) {
		free(blocks[i]);
		blocks[i] = calloc(1, sizes[i]);
		CHECK(blocks[i] != NULL);
		for (size_t k = 0; k < sizes[i]; k += 61)
			CHECK(blocks[i][k] == 0);
		memset(blocks[i], i, sizes[i]);
	}
	for (int i = 1; i < N; i += 2) {
		blocks[i] = realloc(blocks[i], sizes[i] * 3);
		CHECK(blocks[i] != NULL);
		memset(blocks[i] + sizes[i], i, sizes[i] * 2);
		sizes[i] *= 3;
	}
	for (int i = 0; i < N; i++) {
		for (size_t k = 0; k < sizes[i]; k += 13)
			CHECK(blocks[i][k] == (unsigned char)i);
		free(blocks[i]);
	}
}

/* user/usertests/t_malloc.c -- the C library's allocator: many sizes,
 * realloc, calloc, memalign and several free orders, with every byte
 * checked; and the same under each MALLOC_PURGE policy of Pagoda's malloc
 * (libc/malloc_span.c), each in a fresh process (the policy is read once).
 * Under musl or on Linux the same checks run against that libc's malloc,
 * except the Pagoda-only counter check. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define NBLK 300
#define BIG (1u << 20)

extern char **environ;

/* size_for: a spread of sizes from 1 byte to ~1 MiB. */
static size_t size_for(int i)
{
	static const size_t big[] = { 9000, 65536, 70000, 300000, BIG };
	return i % 7 == 0 ? big[i / 7 % 5] : (size_t)(i * 97 % 4100) + 1;
}

static void fill(unsigned char *p, size_t n, int seed)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (unsigned char)(seed + k * 7);
}

static int intact(const unsigned char *p, size_t n, int seed)
{
	for (size_t k = 0; k < n; k++)
		if (p[k] != (unsigned char)(seed + k * 7))
			return 0;
	return 1;
}

/* free_order: the j-th block to free in pattern `how` (0 LIFO, 1 FIFO,
 * 2 evens then odds). */
static int free_order(int how, int j)
{
	if (how == 0)
		return NBLK - 1 - j;
	if (how == 1)
		return j;
	return j < NBLK / 2 ? 2 * j : 2 * (j - NBLK / 2) + 1;
}

/* One round: allocate, check, free in the given order. */
static void round_trip(int how)
{
	unsigned char *b[NBLK];

	for (int i = 0; i < NBLK; i++) {
		b[i] = malloc(size_for(i));
		CHECK(b[i] != NULL && ((uintptr_t)b[i] & 15) == 0);
		CHECK(malloc_usable_size(b[i]) >= size_for(i));
		fill(b[i], size_for(i), i + how);
	}
	for (int j = 0; j < NBLK; j++) {
		int i = free_order(how, j);
		if (!intact(b[i], size_for(i), i + how))
			ut_fail(__FILE__, __LINE__, "block %d (%zu bytes) corrupted", i, size_for(i));
		free(b[i]);
	}
}

/* malloc_patterns: sizes, three free orders, calloc on recycled memory,
 * realloc up and down, memalign, malloc(0) and free(NULL). */
void test_malloc_patterns(void)
{
	for (int how = 0; how < 3; how++)
		round_trip(how);

	for (int i = 0; i < 40; i++) {           /* calloc must zero reused memory */
		unsigned char *p = calloc(size_for(i), 1);
		CHECK(p != NULL);
		for (size_t k = 0; k < size_for(i); k += 31)
			CHECK(p[k] == 0);
		memset(p, 0xee, size_for(i));
		free(p);
	}
	size_t huge = (size_t)(uintptr_t)ut_addr((uintptr_t)1 << 40);   /* opaque to gcc */
	CHECK(calloc(huge, huge) == NULL && errno == ENOMEM);

	size_t n = 10;
	unsigned char *r = malloc(n);
	fill(r, n, 5);
	for (; n < 3 * BIG; n = n * 3 + 1) {    /* grow across every kind of block */
		r = realloc(r, n * 3 + 1);
		CHECK(r != NULL && intact(r, n, 5));
		fill(r, n * 3 + 1, 5);
	}
	r = realloc(r, 100);                     /* and shrink */
	CHECK(r != NULL && intact(r, 100, 5));
	free(r);

	for (size_t a = 16; a <= 8192; a *= 4) {
		void *p = memalign(a, 3000);
		CHECK(p != NULL && (uintptr_t)p % a == 0);
		memset(p, 1, 3000);
		free(p);
	}
	void *z = malloc(0);
	CHECK(z != NULL);
	free(z);
	free(NULL);
}

/* malloc_purge: malloc_patterns again in a fresh usertests process for
 * each MALLOC_PURGE policy; on Pagoda also check that freeing a 1 MiB block
 * used MADV_FREE exactly under the default policy (pglazyfree). */
void test_malloc_purge(void)
{
	static const char *const policies[] = { "free", "dontneed", "munmap", "none" };
	char path[300], env[64], out[2048];

	snprintf(path, sizeof path, "%s/usertests", ut_bindir);
	for (int i = 0; i < 4; i++) {
		int fds[2];
		CHECK_OK(pipe(fds));
		pid_t pid = ut_fork();
		if (pid == 0) {
			char *argv[] = { "usertests", "malloc_patterns", "malloc_purge_counts", NULL };
			char *envp[] = { env, NULL };
			snprintf(env, sizeof env, "MALLOC_PURGE=%s", policies[i]);
			dup2(fds[1], 1);   /* its report lines are not ours: into the pipe */
			close(fds[0]);
			close(fds[1]);
			execve(path, argv, envp);
			_exit(127);
		}
		close(fds[1]);
		size_t len = 0;
		ssize_t n;
		while ((n = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
			len += (size_t)n;
		out[len] = '\0';
		close(fds[0]);
		int st = ut_wait(pid);
		const char *why = strstr(out, "FAIL");
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ut_fail(__FILE__, __LINE__, "MALLOC_PURGE=%s: usertests %s: %.150s",
				policies[i], ut_status_str(st), why ? why : out);
	}
}

/* malloc_purge_counts: under Pagoda's malloc, a freed 1 MiB block is
 * MADV_FREE'd only with MALLOC_PURGE=free (or unset). Skipped where the
 * counters do not exist (Linux) or the allocator is not ours (musl). */
void test_malloc_purge_counts(void)
{
	struct pagoda_meminfo m0, m1;
	const char *policy = getenv("MALLOC_PURGE");
	int lazy = !policy || strcmp(policy, "free") == 0;

#ifndef __NEWLIB__
	return;                                  /* musl: not Pagoda's malloc */
#endif
	if (pagoda_meminfo(&m0) != 0)
		return;
	volatile unsigned char *p = malloc(BIG);   /* volatile: the stores stay */
	CHECK(p != NULL);
	for (size_t k = 0; k < BIG; k += 4096)
		p[k] = 1;
	free((void *)p);
	CHECK(pagoda_meminfo(&m1) == 0);
	if (lazy)
		CHECK(m1.pglazyfree - m0.pglazyfree >= BIG / 4096 - 1);
	else
		CHECK(m1.pglazyfree == m0.pglazyfree);
}

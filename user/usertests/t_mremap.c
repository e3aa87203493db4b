/* user/usertests/t_mremap.c -- mremap (what musl's and glibc's realloc use
 * for large blocks) and mincore, with Linux's errno: these run on the Linux
 * host too. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif


/* fill / filled: page i of p holds the byte 'a' + i at both ends. */
static void fill(char *p, int pages)
{
	for (int i = 0; i < pages; i++)
		p[i * PAGE] = p[i * PAGE + PAGE - 1] = (char)('a' + i);
}

static int filled(const char *p, int pages)
{
	for (int i = 0; i < pages; i++)
		if (p[i * PAGE] != 'a' + i || p[i * PAGE + PAGE - 1] != 'a' + i)
			return 0;
	return 1;
}

static void *raw_mremap(void *old, size_t old_len, size_t new_len, int flags, void *to)
{
	return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, to);
}

/* mremap_in_place: shrinking keeps the head and unmaps the tail; growing
 * into free addresses keeps the address, the data and zero-fills the rest;
 * a blocked grow without MREMAP_MAYMOVE is ENOMEM. */
void test_mremap_in_place(void)
{
	char *p = ut_map_anon(5 * PAGE);

	CHECK_OK(mprotect(p + 4 * PAGE, PAGE, PROT_READ));	/* a neighbour VMA */
	fill(p, 4);
	CHECK(mremap(p, 4 * PAGE, 2 * PAGE, 0) == p);
	CHECK(filled(p, 2));
	ut_expect_signal(SIGSEGV, ut_peek, p + 2 * PAGE);
	CHECK(mremap(p, 2 * PAGE, 4 * PAGE, 0) == p);
	CHECK(filled(p, 2) && p[2 * PAGE] == 0 && p[4 * PAGE - 1] == 0);
	p[3 * PAGE] = 'g';
	CHECK_MAP_ERR(mremap(p, 4 * PAGE, 8 * PAGE, 0), ENOMEM);
	CHECK(p[3 * PAGE] == 'g');
	CHECK_OK(munmap(p, 5 * PAGE));
}

/* mremap_move: MREMAP_MAYMOVE moves a blocked mapping with its data (the
 * old range is gone, the new one writable and private: a child's write
 * stays in the child); MREMAP_FIXED puts it exactly where asked. */
void test_mremap_move(void)
{
	char *p = ut_map_anon(3 * PAGE);

	fill(p, 2);
	CHECK_OK(munmap(p + 2 * PAGE, PAGE));
	char *block = mmap(p + 2 * PAGE, PAGE, RW, ANON | MAP_FIXED, -1, 0);
	CHECK(block == p + 2 * PAGE);
	char *q = mremap(p, 2 * PAGE, 16 * PAGE, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED && q != p);
	CHECK(filled(q, 2) && q[15 * PAGE] == 0);
	ut_expect_signal(SIGSEGV, ut_peek, p);
	q[0] = 'A';
	pid_t pid = ut_fork();
	if (pid == 0) {
		q[0] = 'C';
		_exit(q[PAGE] == 'b' ? 0 : 1);
	}
	CHECK(ut_wait(pid) == 0);
	CHECK(q[0] == 'A');
	char *t = mremap(q, 16 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p);
	CHECK(t == p);
	CHECK(t[0] == 'A' && t[PAGE] == 'b' && t[PAGE + PAGE - 1] == 'b');
	ut_expect_signal(SIGSEGV, ut_peek, q);
	CHECK_OK(munmap(p, 3 * PAGE));
}

/* mremap_shared: a moved MAP_SHARED|MAP_ANONYMOUS mapping is the same
 * memory: a child forked before the move sees the parent's later write. */
void test_mremap_shared(void)
{
	char *s = mmap(NULL, 2 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2];
	char c;

	CHECK(s != MAP_FAILED);
	fill(s, 2);
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(s[PAGE] == 'M' ? 0 : 1);
	}
	close(go[0]);
	char *m = mremap(s, 2 * PAGE, 64 * PAGE, MREMAP_MAYMOVE);
	CHECK(m != MAP_FAILED && filled(m, 2));
	m[PAGE] = 'M';
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(ut_wait(pid) == 0);
	close(go[1]);
	CHECK_OK(munmap(m, 64 * PAGE));
}

/* mremap_errors: Linux's errno for each bad argument. */
void test_mremap_errors(void)
{
	char *p = ut_map_anon(4 * PAGE);

	CHECK_MAP_ERR(raw_mremap(p + 1, PAGE, 2 * PAGE, MREMAP_MAYMOVE, NULL), EINVAL);
	CHECK_MAP_ERR(raw_mremap(p, PAGE, 0, MREMAP_MAYMOVE, NULL), EINVAL);
	CHECK_MAP_ERR(raw_mremap(p, PAGE, 2 * PAGE, 8, NULL), EINVAL);	/* unknown flag */
	CHECK_MAP_ERR(raw_mremap(p, PAGE, PAGE, MREMAP_FIXED, p + 2 * PAGE), EINVAL);
	CHECK_MAP_ERR(raw_mremap(p, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p + PAGE),
		      EINVAL);	/* overlaps */
	CHECK_MAP_ERR(raw_mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_DONTUNMAP, NULL), EINVAL);
	CHECK_OK(munmap(p + 2 * PAGE, PAGE));
	CHECK_MAP_ERR(raw_mremap(p, 4 * PAGE, 8 * PAGE, MREMAP_MAYMOVE, NULL), EFAULT);
	CHECK_MAP_ERR(raw_mremap(p + 2 * PAGE, PAGE, 2 * PAGE, MREMAP_MAYMOVE, NULL), EFAULT);
	CHECK_OK(munmap(p, 4 * PAGE));
}

/* realloc_large: growing and shrinking a multi-megabyte malloc block keeps
 * its contents (musl and glibc move such blocks with mremap). */
void test_realloc_large(void)
{
	size_t n = 3u << 20;
	unsigned char *b = malloc(n);

	CHECK(b != NULL);
	for (size_t i = 0; i < n; i += 4093)
		b[i] = (unsigned char)(i >> 3);
	unsigned char *g = realloc(b, 5 * n);
	CHECK(g != NULL);
	for (size_t i = 0; i < n; i += 4093)
		CHECK(g[i] == (unsigned char)(i >> 3));
	memset(g + n, 7, 4 * n);
	unsigned char *s = realloc(g, n / 2);
	CHECK(s != NULL);
	for (size_t i = 0; i < n / 2; i += 4093)
		CHECK(s[i] == (unsigned char)(i >> 3));
	free(s);
}

/* mincore_basic: touched pages are resident, untouched anonymous ones are
 * not; errors EINVAL (unaligned), ENOMEM (a hole), EFAULT (bad vector). */
void test_mincore_basic(void)
{
	char *p = ut_map_anon(4 * PAGE);
	unsigned char vec[4];

	p[0] = 1;
	(void)*(volatile char *)(p + 2 * PAGE);	/* a read maps too */
	CHECK_OK(mincore(p, 4 * PAGE, vec));
	CHECK((vec[0] & 1) && !(vec[1] & 1) && (vec[2] & 1) && !(vec[3] & 1));
	CHECK_OK(mincore(p, 1, vec));	/* the length is rounded up */
	CHECK_ERR(mincore(p + 1, PAGE, vec), EINVAL);
	CHECK_ERR(mincore(p, 4 * PAGE, ut_addr(0xffff800000000000ull)), EFAULT);
	CHECK_OK(madvise(p, PAGE, MADV_DONTNEED));
	CHECK_OK(mincore(p, PAGE, vec));
	CHECK(!(vec[0] & 1));
	CHECK_OK(munmap(p + 3 * PAGE, PAGE));
	CHECK_ERR(mincore(p, 4 * PAGE, vec), ENOMEM);
	CHECK_OK(munmap(p, 3 * PAGE));
}

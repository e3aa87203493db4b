/* user/usertests/t_mremap.c -- mremap (what musl's and glibc's realloc use
 * for large blocks) and mincore, with Linux's errno: these run on the Linux
 * host too. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
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

/* Does a child that loads *p die of SIGBUS? */
static int load_is_sigbus(volatile const char *p)
{
	pid_t pid = ut_fork();
	if (pid == 0) {
		char c = *p;
		(void)c;
		_exit(0);
	}
	int st;
	return waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS;
}

/* mremap_file: a file mapping keeps its file offsets through mremap: grown
 * (moved), its new pages are the file's next pages, and stores through
 * them reach the file; past the file's end it raises SIGBUS; shrunk, its
 * head stays; a private mapping's copied page moves with it, the pages not
 * written still show the file. */
void test_mremap_file(void)
{
	char path[64], c;
	snprintf(path, sizeof path, "/tmp/ut-mremap.%d", (int)getpid());
	int fd = CHECK_OK(open(path, O_RDWR | O_CREAT | O_TRUNC, 0644));
	char *buf = calloc(8, PAGE);
	CHECK(buf != NULL);
	fill(buf, 8);
	CHECK(write(fd, buf, 8 * PAGE) == 8 * PAGE);
	char *r = mmap(NULL, 3 * PAGE, PROT_NONE, ANON, -1, 0), *block = r + 2 * PAGE;
	CHECK(r != MAP_FAILED);   /* its third page stays: no room in place, it moves */
	char *s = mmap(r, 2 * PAGE, RW, MAP_SHARED | MAP_FIXED, fd, PAGE);   /* pages 1, 2 */
	CHECK(s == r);
	CHECK(s[0] == 'b' && s[PAGE] == 'c');
	char *g = raw_mremap(s, 2 * PAGE, 9 * PAGE, MREMAP_MAYMOVE, NULL);
	CHECK(g != MAP_FAILED && g != s);
	CHECK(g[0] == 'b' && g[PAGE] == 'c' && g[2 * PAGE] == 'd' && g[6 * PAGE + PAGE - 1] == 'h');
	g[3 * PAGE + 1] = 'S';   /* file page 4 */
	CHECK(pread(fd, &c, 1, 4 * PAGE + 1) == 1 && c == 'S');
	CHECK(load_is_sigbus(g + 7 * PAGE));   /* file page 8: past the end */
	CHECK(raw_mremap(g, 9 * PAGE, PAGE, 0, NULL) == g && g[0] == 'b');
	char *p = mmap(NULL, 4 * PAGE, RW, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	p[PAGE] = 'P';   /* a private copy of page 1 */
	char *to = mmap(NULL, 4 * PAGE, PROT_NONE, ANON, -1, 0);
	CHECK(to != MAP_FAILED);
	char *q = raw_mremap(p, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	CHECK(q == to && q[PAGE] == 'P' && q[0] == 'a' && q[3 * PAGE] == 'd');
	CHECK(pwrite(fd, "W", 1, 3 * PAGE) == 1 && q[3 * PAGE] == 'W');   /* not written: the file's */
	CHECK(pread(fd, &c, 1, PAGE) == 1 && c == 'b');   /* the copy stayed private */
	CHECK_OK(munmap(g, PAGE));
	CHECK_OK(munmap(block, PAGE));
	CHECK_OK(munmap(q, 4 * PAGE));
	CHECK_OK(close(fd));
	CHECK_OK(unlink(path));
	free(buf);
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

/* user/usertests/t_mmap.c -- mmap, munmap, mprotect and madvise: what
 * works, and the Linux errno for each kind of bad argument. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* map: an anonymous private RW mapping of len bytes (fails the test). */
static char *map(size_t len)
{
	char *p = mmap(NULL, len, RW, ANON, -1, 0);

	if (p == MAP_FAILED)
		ut_fail(__FILE__, __LINE__, "mmap(%zu) failed: errno %d", len, errno);
	return p;
}

/* mmap_anon: page aligned, zero filled, readable and writable, distinct. */
void test_mmap_anon(void)
{
	const size_t len = 64 * PAGE;
	char *p = map(len), *q = map(PAGE);

	CHECK(((uintptr_t)p & (PAGE - 1)) == 0);
	CHECK(q + PAGE <= p || p + len <= q);
	for (size_t i = 0; i < len; i += 97)
		CHECK(p[i] == 0);
	for (size_t i = 0; i < len; i += PAGE)
		p[i] = (char)(i / PAGE + 1);
	for (size_t i = 0; i < len; i += PAGE)
		CHECK(p[i] == (char)(i / PAGE + 1));
	CHECK_OK(munmap(p, len));
	CHECK_OK(munmap(q, PAGE));
}

/* mmap_fixed: MAP_FIXED puts a fresh zeroed mapping exactly over old ones. */
void test_mmap_fixed(void)
{
	char *p = map(4 * PAGE);

	memset(p, 'a', 4 * PAGE);
	char *q = mmap(p + PAGE, 2 * PAGE, RW, ANON | MAP_FIXED, -1, 0);
	CHECK(q == p + PAGE);
	CHECK(p[0] == 'a' && p[PAGE] == 0 && p[2 * PAGE] == 0 && p[3 * PAGE] == 'a');
	/* A hint without MAP_FIXED is only a hint; the result is still usable. */
	char *h = mmap(p, PAGE, RW, ANON, -1, 0);
	CHECK(h != MAP_FAILED);
	h[0] = 1;
	CHECK(p[0] == 'a');
	CHECK_OK(munmap(h, PAGE));
	CHECK_OK(munmap(p, 4 * PAGE));
}

/* mmap_shared: MAP_SHARED anonymous memory is seen by both sides of fork. */
void test_mmap_shared(void)
{
	volatile int *s = mmap(NULL, PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(s != MAP_FAILED);
	s[0] = 1;
	pid_t pid = ut_fork();
	if (pid == 0) {
		s[1] = s[0] + 41;
		_exit(0);
	}
	ut_wait(pid);
	CHECK(s[1] == 42);
	CHECK_OK(munmap((void *)s, PAGE));
}

/* munmap_split: unmapping the middle leaves both ends intact. */
void test_munmap_split(void)
{
	char *p = map(5 * PAGE);

	memset(p, 'z', 5 * PAGE);
	CHECK_OK(munmap(p + PAGE, 3 * PAGE));
	CHECK(p[0] == 'z' && p[4 * PAGE] == 'z');
	ut_expect_signal(SIGSEGV, ut_peek, p + 2 * PAGE);
	CHECK_OK(munmap(p, 5 * PAGE));	/* partly unmapped already: fine */
	CHECK_OK(munmap(p, 5 * PAGE));	/* nothing mapped: still fine */
}

/* mprotect_basic: protection changes on part of a mapping split it. */
void test_mprotect_basic(void)
{
	char *p = map(3 * PAGE);

	memset(p, 'q', 3 * PAGE);
	CHECK_OK(mprotect(p + PAGE, PAGE, PROT_NONE));
	CHECK(p[0] == 'q' && p[2 * PAGE] == 'q');
	ut_expect_signal(SIGSEGV, ut_peek, p + PAGE);
	CHECK_OK(mprotect(p + PAGE, PAGE, RW));
	CHECK(p[PAGE] == 'q');	/* the data survived PROT_NONE */
	p[PAGE] = 'r';
	CHECK_OK(munmap(p, 3 * PAGE));
}

/* madvise_dontneed: private anonymous pages read back as zeros after. */
void test_madvise_dontneed(void)
{
	char *p = map(8 * PAGE);

	memset(p, 'd', 8 * PAGE);
	CHECK_OK(madvise(p + 2 * PAGE, 4 * PAGE, MADV_DONTNEED));
	CHECK(p[0] == 'd' && p[PAGE] == 'd' && p[6 * PAGE] == 'd');
	for (size_t i = 2 * PAGE; i < 6 * PAGE; i += 512)
		CHECK(p[i] == 0);
	p[3 * PAGE] = 'n';	/* usable again */
	CHECK(p[3 * PAGE] == 'n');
	CHECK_OK(madvise(p, 8 * PAGE, MADV_WILLNEED));
	CHECK_OK(madvise(p, 8 * PAGE, MADV_NORMAL));
	CHECK_OK(munmap(p, 8 * PAGE));
}

/* mmap_errors: Linux's errno for each kind of bad mmap argument. */
void test_mmap_errors(void)
{
	char *p = map(PAGE);

	CHECK_MAP_ERR(mmap(NULL, 0, RW, ANON, -1, 0), EINVAL);
	CHECK_MAP_ERR(mmap(NULL, PAGE, RW, MAP_ANONYMOUS, -1, 0), EINVAL);	/* no type */
	CHECK_MAP_ERR(mmap(NULL, PAGE, RW, MAP_PRIVATE | MAP_SHARED | MAP_ANONYMOUS, -1, 0),
		      EINVAL);
	CHECK_MAP_ERR(mmap(p + 1, PAGE, RW, ANON | MAP_FIXED, -1, 0), EINVAL);
	CHECK_MAP_ERR(mmap(NULL, PAGE, RW, ANON, -1, 1), EINVAL);	/* offset */
	CHECK_MAP_ERR(mmap(NULL, PAGE, RW, MAP_PRIVATE, -1, 0), EBADF);	/* file, no fd */
	CHECK_MAP_ERR(mmap(NULL, (size_t)1 << 47, RW, ANON, -1, 0), ENOMEM);
	CHECK_MAP_ERR(mmap(NULL, (size_t)-PAGE, RW, ANON, -1, 0), ENOMEM);
	CHECK_OK(munmap(p, PAGE));
}

/* munmap_errors: unaligned, empty or kernel ranges are EINVAL. */
void test_munmap_errors(void)
{
	char *p = map(2 * PAGE);

	CHECK_ERR(munmap(p + 1, PAGE), EINVAL);
	CHECK_ERR(munmap(p, 0), EINVAL);
	CHECK_ERR(munmap((void *)(uintptr_t)0xffff800000000000ull, PAGE), EINVAL);
	CHECK(p[0] == 0);	/* still mapped after the failures */
	CHECK_OK(munmap(p, 2 * PAGE));
}

/* mprotect_errors: EINVAL for bad arguments, ENOMEM for holes. */
void test_mprotect_errors(void)
{
	char *p = map(2 * PAGE);

	/* raw: musl's mprotect() rounds the address down to a page itself */
	CHECK_ERR(syscall(SYS_mprotect, p + 1, PAGE, PROT_READ), EINVAL);
	CHECK_ERR(mprotect(p, PAGE, 0x100), EINVAL);	/* unknown bit */
	CHECK_OK(munmap(p + PAGE, PAGE));
	CHECK_ERR(mprotect(p, 2 * PAGE, PROT_READ), ENOMEM);	/* runs into a hole */
	CHECK_ERR(mprotect(p + PAGE, PAGE, PROT_READ), ENOMEM);
	CHECK_OK(mprotect(p, 0, PROT_READ));	/* empty range: nothing to do */
	CHECK_OK(munmap(p, PAGE));
}

/* madvise_errors: EINVAL for bad arguments, ENOMEM for holes. */
void test_madvise_errors(void)
{
	char *p = map(2 * PAGE);

	CHECK_ERR(madvise(p + 1, PAGE, MADV_DONTNEED), EINVAL);
	CHECK_ERR(madvise(p, PAGE, 12345), EINVAL);
	CHECK_OK(munmap(p + PAGE, PAGE));
	CHECK_ERR(madvise(p, 2 * PAGE, MADV_DONTNEED), ENOMEM);
	CHECK_OK(munmap(p, PAGE));
}

/* mmap_private_file: a private file mapping, read while read-only and then
 * made writable with mprotect, takes the write in a private copy: the file
 * (whose frames every process running it shares) is unchanged. */
void test_mmap_private_file(void)
{
	char path[300], buf[2];
	int fd;
	char *p;

	snprintf(path, sizeof path, "%s/usertests", ut_bindir);
	fd = CHECK_OK(open(path, O_RDONLY));
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED);
	char before = p[1];	/* faulted in read-only */
	CHECK_OK(mprotect(p, 4096, PROT_READ | PROT_WRITE));
	p[1] = (char)~before;
	CHECK(p[1] == (char)~before);
	CHECK(lseek(fd, 0, SEEK_SET) == 0 && read(fd, buf, 2) == 2);
	CHECK(buf[1] == before);
	CHECK_OK(munmap(p, 4096));
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK(p != MAP_FAILED && p[1] == before);
	CHECK_OK(munmap(p, 4096));
	close(fd);
}

/* zero_page: reading untouched private anonymous memory gives zeros; on
 * Pagoda every such page maps one shared zero frame, read-only and COW, and
 * the first write gives the page a private zeroed frame (the others stay). */
void test_zero_page(void)
{
	const size_t n = 8, page = 4096;
	unsigned char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pagoda_vmquery a, b;

	CHECK(p != MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		CHECK(p[i * page] == 0 && p[i * page + page - 1] == 0);
	if (pagoda_vmquery(p, &a) == 0) {	/* Pagoda (Linux: ENOSYS) */
		CHECK_OK(pagoda_vmquery(p + (n - 1) * page, &b));
		CHECK(a.mapped && b.mapped && a.pa == b.pa);
		CHECK(!(a.prot & VMQ_WRITE) && (a.soft & VMQ_COW));
		CHECK(a.frame_refcount >= n + 1);	/* n mappings + its own */
	}
	p[3 * page + 5] = 42;
	CHECK(p[3 * page + 5] == 42 && p[3 * page] == 0 && p[2 * page + 5] == 0);
	if (pagoda_vmquery(p + 3 * page, &b) == 0) {
		CHECK(b.pa != a.pa && (b.prot & VMQ_WRITE) && b.frame_refcount == 1);
		CHECK_OK(pagoda_vmquery(p, &b));
		CHECK(b.pa == a.pa);
	}
	CHECK_OK(munmap(p, n * page));
}

/* zero_page_65536: 256 MiB of fresh private memory read (four mappings, so
 * a small machine's commit limit allows each): the zero page is mapped
 * 65,537 times, more than a 16-bit counter holds, and the invariant checker
 * must still answer 0, not panic (issue 14, defect 7). */
void test_zero_page_65536(void)
{
	const size_t part = 64u << 20, page = 4096;
	volatile unsigned char *p[4];
	unsigned sum = 0;

	for (int i = 0; i < 4; i++) {
		size_t len = part + (i == 3 ? page : 0);
		p[i] = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(p[i] != MAP_FAILED);
		for (size_t off = 0; off < len; off += page)
			sum += p[i][off];
	}
	CHECK(sum == 0);
	if (!ut_on_linux())
		CHECK_OK(pagoda_vmcheck());
	for (int i = 0; i < 4; i++)
		CHECK_OK(munmap((void *)p[i], part + (i == 3 ? page : 0)));
}

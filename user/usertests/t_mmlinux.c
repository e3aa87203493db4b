/* user/usertests/t_mmlinux.c -- the corners of mmap, munmap, mprotect and
 * madvise where Linux's answer is the specification: these tests also run
 * on the Linux host (user-host-usertests), so Linux checks them too. Raw
 * syscall() where a C library would round or check arguments itself. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define USER_TOP_ADDR 0x7ffffffff000ul   /* Linux's TASK_SIZE on x86-64 */
#define MAP_UNKNOWN_FLAG 0x200           /* no such flag on x86-64 */

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif


/* open_self: the usertests binary, read-only; its size in *size. */
static int open_self(off_t *size)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof path, "%s/usertests", ut_bindir);
	int fd = CHECK_OK(open(path, O_RDONLY));
	CHECK_OK(fstat(fd, &st));
	*size = st.st_size;
	return fd;
}

static long raw_mmap(void *addr, size_t len, int prot, int flags, int fd, unsigned long off)
{
	return syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* mmap_hint_unaligned: without MAP_FIXED an unaligned hint is rounded (down,
 * on x86-64) and used when the range is free; with MAP_FIXED it is EINVAL. */
void test_mmap_hint_unaligned(void)
{
	char *p = ut_map_anon(2 * PAGE);

	CHECK_OK(munmap(p, 2 * PAGE));
	char *q = mmap(p + 1, PAGE, RW, ANON, -1, 0);
	CHECK(q == p);
	q[0] = 1;
	CHECK_MAP_ERR(mmap(p + PAGE + 1, PAGE, RW, ANON | MAP_FIXED, -1, 0), EINVAL);
	CHECK_OK(munmap(q, PAGE));
}

/* mmap_shared_validate: MAP_SHARED_VALIDATE maps a file like MAP_SHARED
 * but refuses flags it does not know (EOPNOTSUPP), which MAP_SHARED and
 * MAP_PRIVATE ignore; anonymous memory knows only the two old types. */
void test_mmap_shared_validate(void)
{
	off_t size;
	int fd = open_self(&size);
	char head[4];

	CHECK(read(fd, head, 4) == 4);
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED_VALIDATE, fd, 0);
	CHECK(p != MAP_FAILED && memcmp(p, head, 4) == 0);
	CHECK_OK(munmap(p, PAGE));
	CHECK_MAP_ERR(mmap(NULL, PAGE, PROT_READ, MAP_SHARED_VALIDATE | MAP_UNKNOWN_FLAG, fd, 0),
		      EOPNOTSUPP);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED | MAP_UNKNOWN_FLAG, fd, 0);
	CHECK(p != MAP_FAILED && memcmp(p, head, 4) == 0);
	CHECK_OK(munmap(p, PAGE));
	p = mmap(NULL, PAGE, RW, ANON | MAP_UNKNOWN_FLAG, -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK_OK(munmap(p, PAGE));
	CHECK_MAP_ERR(mmap(NULL, PAGE, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS, -1, 0), EINVAL);
	close(fd);
}

/* mmap_wronly: a file open only for writing cannot be mapped at all. */
void test_mmap_wronly(void)
{
	int fd = CHECK_OK(open("/dev/null", O_WRONLY));

	CHECK_MAP_ERR(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), EACCES);
	CHECK_MAP_ERR(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0), EACCES);
	close(fd);
}

/* mmap_eoverflow: an offset whose end lies past the largest file size. */
void test_mmap_eoverflow(void)
{
	off_t size;
	int fd = open_self(&size);

	CHECK_ERR(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0x7ffffffffffff000ul),
		  EOVERFLOW);
	CHECK_ERR(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, -(unsigned long)PAGE),
		  EOVERFLOW);
	close(fd);
}

/* mmap_sigbus: a mapping longer than its file: the rest of the last page
 * reads zeros, the pages after it raise SIGBUS, not SIGSEGV. */
void test_mmap_sigbus(void)
{
	off_t size;
	int fd = open_self(&size);
	size_t file_pages = ((size_t)size + PAGE - 1) / PAGE;
	char *p = mmap(NULL, (file_pages + 2) * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);

	CHECK(p != MAP_FAILED);
	if (size % PAGE)
		CHECK(p[file_pages * PAGE - 1] == 0);
	ut_expect_signal(SIGBUS, ut_peek, p + file_pages * PAGE);
	ut_expect_signal(SIGBUS, ut_peek, p + (file_pages + 1) * PAGE + 5);
	CHECK_OK(munmap(p, (file_pages + 2) * PAGE));
	close(fd);
}

/* munmap_mprotect_overflow: a length that wraps when rounded up to a page
 * is EINVAL for munmap and ENOMEM for mprotect, and changes nothing. */
void test_munmap_mprotect_overflow(void)
{
	char *p = ut_map_anon(PAGE);

	p[0] = 'o';
	CHECK_ERR(syscall(SYS_munmap, p, (size_t)-100), EINVAL);
	CHECK_ERR(syscall(SYS_mprotect, p, (size_t)-100, PROT_READ), ENOMEM);
	CHECK_ERR(syscall(SYS_munmap, p, USER_TOP_ADDR), EINVAL);	/* past the top */
	p[0] = 'k';	/* still mapped, still writable */
	CHECK(p[0] == 'k');
	CHECK_OK(munmap(p, PAGE));
}

/* munmap_low: unmapping below the first mappable address is not an error
 * (nothing is there); madvise past the top of user space is a hole. */
void test_munmap_low_madvise_top(void)
{
	CHECK_OK(munmap(ut_addr(0x1000), PAGE));
	CHECK_OK(munmap(ut_addr(0), 2 * PAGE));
	CHECK_ERR(madvise(ut_addr(USER_TOP_ADDR), PAGE, MADV_DONTNEED), ENOMEM);
	CHECK_ERR(madvise(ut_addr(USER_TOP_ADDR + 0x1000000), PAGE, MADV_NORMAL), ENOMEM);
	CHECK_ERR(madvise(ut_addr(0x800000000000ul), PAGE, MADV_WILLNEED), ENOMEM);
	CHECK_ERR(madvise(ut_addr(USER_TOP_ADDR), (size_t)-100, MADV_NORMAL), EINVAL);
}

/* child_reads: in a child, the byte at p is want (or the read faults:
 * want < 0 means "must die by SIGSEGV"). */
static void child_reads(char *p, int want)
{
	pid_t pid = ut_fork();

	if (pid == 0)
		_exit(*(volatile char *)p == want ? 0 : 1);
	int st = ut_wait(pid);
	if (want < 0)
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* madv_fork: MADV_DONTFORK keeps a range out of the child, MADV_DOFORK
 * puts it back; MADV_WIPEONFORK gives the child zeros (private anonymous
 * memory only), MADV_KEEPONFORK the data again. The parent keeps its data. */
void test_madv_fork(void)
{
	char *p = ut_map_anon(3 * PAGE);

	memset(p, 'f', 3 * PAGE);
	CHECK_OK(madvise(p + PAGE, PAGE, MADV_DONTFORK));
	child_reads(p, 'f');
	child_reads(p + PAGE, -1);
	child_reads(p + 2 * PAGE, 'f');
	CHECK_OK(madvise(p + PAGE, PAGE, MADV_DOFORK));
	child_reads(p + PAGE, 'f');
	CHECK_OK(madvise(p, 2 * PAGE, MADV_WIPEONFORK));
	child_reads(p, 0);
	child_reads(p + PAGE, 0);
	child_reads(p + 2 * PAGE, 'f');
	CHECK(p[0] == 'f' && p[PAGE] == 'f');
	CHECK_OK(madvise(p, 2 * PAGE, MADV_KEEPONFORK));
	child_reads(p, 'f');
	char *s = mmap(NULL, PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED);
	CHECK_ERR(madvise(s, PAGE, MADV_WIPEONFORK), EINVAL);
	CHECK_OK(munmap(s, PAGE));
	CHECK_OK(munmap(p, 3 * PAGE));
}

/* madv_advices: the advices allocators probe are accepted; POPULATE_*
 * fault the pages in; MADV_REMOVE needs a shared object (EINVAL on private
 * anonymous memory). */
void test_madv_advices(void)
{
	static const int ok[] = { MADV_COLD, MADV_PAGEOUT, MADV_HUGEPAGE, MADV_NOHUGEPAGE,
				  MADV_DONTDUMP, MADV_DODUMP, MADV_WILLNEED,
				  MADV_POPULATE_READ, MADV_POPULATE_WRITE };
	char *p = ut_map_anon(4 * PAGE);
	struct pagoda_vmquery q;

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (madvise(p, 4 * PAGE, ok[i]) != 0)
			ut_fail(__FILE__, __LINE__, "madvise advice %d: errno %d", ok[i], errno);
	CHECK(p[0] == 0 && p[3 * PAGE] == 0);
	CHECK_OK(madvise(p, 4 * PAGE, MADV_DONTNEED));
	CHECK_OK(madvise(p, 2 * PAGE, MADV_POPULATE_WRITE));
	if (pagoda_vmquery(p + PAGE, &q) == 0) {	/* Pagoda: mapped, writable */
		CHECK(q.mapped && (q.prot & VMQ_WRITE));
		CHECK_OK(pagoda_vmquery(p + 2 * PAGE, &q));
		CHECK(!q.mapped);
	}
	CHECK_ERR(madvise(p, PAGE, MADV_REMOVE), EINVAL);
	CHECK_ERR(madvise(p, PAGE, 12345), EINVAL);
	CHECK_OK(munmap(p, 4 * PAGE));
}

/* mmap_procfs: /proc's files have no pages to map; Linux says EIO for
 * /proc's own (meminfo, stat) and ENODEV for a process's (/proc/self/...). */
void test_mmap_procfs(void)
{
	static const struct { const char *path; int err; } files[] = {
		{ "/proc/meminfo", EIO }, { "/proc/stat", EIO },
		{ "/proc/self/status", ENODEV }, { "/proc/self/maps", ENODEV },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = CHECK_OK(open(files[i].path, O_RDONLY));
		CHECK_MAP_ERR(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), files[i].err);
		close(fd);
	}
}

/* Does the kernel run with fault_lock=write (every fault and madvise
 * exclusive)? From /proc/cmdline, read before anything is counted. */
static int fault_lock_exclusive(void)
{
	char line[512] = "";
	int fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return strstr(line, "fault_lock=write") != NULL;
}

/* madvise_read_lock: the advices that change only page-table entries
 * (DONTNEED, FREE, POPULATE_WRITE, WILLNEED, REMOVE) take the address-space
 * lock for reading, so other threads' page faults go on meanwhile (Linux's
 * madvise_need_mmap_write); DONTFORK, which changes VMA flags, takes it for
 * writing; under fault_lock=write every one does. Counted by procinfo's
 * as_write_locks on Pagoda; on Linux only the calls are checked. */
void test_madvise_read_lock(void)
{
	char *p = ut_map_anon(16 * PAGE);
	char *s = mmap(NULL, 4 * PAGE, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED);
	memset(p, 1, 16 * PAGE);
	memset(s, 2, 4 * PAGE);
	static const int advice[] = { MADV_DONTNEED, MADV_FREE, MADV_POPULATE_WRITE,
				      MADV_WILLNEED };
	const uint64_t n = sizeof(advice) / sizeof(advice[0]) + 1;
	int exclusive = fault_lock_exclusive();
	struct pagoda_procinfo a, b, c;
	int pagoda = ut_procinfo(getpid(), &a) == 0;
	for (size_t i = 0; i < n - 1; i++)
		CHECK_OK(madvise(p, 16 * PAGE, advice[i]));
	CHECK_OK(madvise(s, 4 * PAGE, MADV_REMOVE));
	CHECK(pagoda == (ut_procinfo(getpid(), &b) == 0));
	CHECK_OK(madvise(p, 16 * PAGE, MADV_DONTFORK));
	CHECK(pagoda == (ut_procinfo(getpid(), &c) == 0));
	if (pagoda && b.as_write_locks - a.as_write_locks != (exclusive ? n : 0))
		ut_fail(__FILE__, __LINE__, "%llu of %llu madvise calls took the lock for writing "
			"(fault_lock=%s)", (unsigned long long)(b.as_write_locks - a.as_write_locks),
			(unsigned long long)n, exclusive ? "write" : "read");
	if (pagoda)
		CHECK(c.as_write_locks - b.as_write_locks == 1);
	CHECK(p[0] == 0 && p[15 * PAGE] == 0 && s[0] == 0);   /* DONTNEED, REMOVE: zeros */
	CHECK_OK(munmap(p, 16 * PAGE));
	CHECK_OK(munmap(s, 4 * PAGE));
}

/* user/usertests/t_shm.c -- MAP_SHARED|MAP_ANONYMOUS memory as Linux has it:
 * one object behind the mapping, filled on fault (mapping it commits
 * nothing), shared with children forked before or after the first touch,
 * kept by MADV_DONTNEED (which drops only this mapping's entries) and
 * emptied by MADV_REMOVE; read-only shared anonymous mappings work. The
 * object is a file of a tmpfs nobody mounts (Linux's shmem), so its pages
 * are Shmem in /proc/meminfo and RssShmem of the process. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define SHANON (MAP_SHARED | MAP_ANONYMOUS)

/* free_pages: the kernel's free frames, or 0 on Linux (no pagoda_meminfo). */
static uint64_t free_pages(void)
{
	struct pagoda_meminfo m;

	return pagoda_meminfo(&m) == 0 ? m.free_pages : 0;
}

/* shm_lazy: a 128 MiB shared anonymous mapping (half of the smallest test
 * machine) costs (almost) no frames until touched, and a child forked
 * before any touch shares its pages. */
void test_shm_lazy(void)
{
	const size_t len = (size_t)128 << 20;
	uint64_t before = free_pages();
	volatile char *p = mmap(NULL, len, RW, SHANON, -1, 0);

	CHECK(p != MAP_FAILED);
	uint64_t after = free_pages();
	/* At most 64 frames gone (the object's index, not its pages); more
	 * free is fine: an earlier test's frees may land meanwhile (as
	 * before - after, a gain would wrap around and fail; one loaded run
	 * failed this check). */
	if (before)
		CHECK(after + 64 > before);
	pid_t pid = ut_fork();
	if (pid == 0) {
		p[len - PAGE] = 'c';
		p[12345] = 'd';
		_exit(0);
	}
	CHECK(ut_wait(pid) == 0);
	CHECK(p[len - PAGE] == 'c' && p[12345] == 'd' && p[0] == 0);
	if (before)
		CHECK(free_pages() + 64 > before);	/* two pages touched */
	CHECK_OK(munmap((void *)p, len));
}

/* shm_dontneed: MADV_DONTNEED on shared anonymous memory drops the entries
 * only: the data reads back, and the sharing with a child goes on. */
void test_shm_dontneed(void)
{
	volatile char *p = mmap(NULL, 4 * PAGE, RW, SHANON, -1, 0);
	int go[2], done[2];
	char c;

	CHECK(p != MAP_FAILED);
	memset((void *)p, 's', 4 * PAGE);
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(done));
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (madvise((void *)p, 4 * PAGE, MADV_DONTNEED) != 0 || p[PAGE] != 's')
			_exit(2);
		if (write(done[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(p[2 * PAGE] == 'P' ? 0 : 4);	/* the parent's write */
	}
	close(done[1]);	/* a child that died early gives EOF, not a hang */
	close(go[0]);
	CHECK(read(done[0], &c, 1) == 1);
	CHECK_OK(madvise((void *)p, 4 * PAGE, MADV_DONTNEED));
	CHECK(p[0] == 's' && p[3 * PAGE + 7] == 's');
	p[2 * PAGE] = 'P';
	CHECK(write(go[1], "g", 1) == 1);
	CHECK(ut_wait(pid) == 0);
	CHECK_OK(madvise((void *)p, 4 * PAGE, MADV_REMOVE));	/* punch the hole */
	CHECK(p[0] == 0 && p[2 * PAGE] == 0);
	CHECK_OK(munmap((void *)p, 4 * PAGE));
	close(go[1]);
	close(done[0]);
}

/* shm_remove_everywhere: a child's MADV_REMOVE empties the pages for the
 * parent too (Linux punches a hole in the shmem file: every mapping reads
 * zeros), and afterwards the two still share one page: the parent's write
 * reaches the child. (Before: the parent kept the old frame, a second copy
 * of the page, and its later writes were lost to the child.) */
void test_shm_remove_everywhere(void)
{
	volatile char *p = mmap(NULL, 2 * PAGE, RW, SHANON, -1, 0);
	int go[2], done[2];
	char c;

	CHECK(p != MAP_FAILED);
	memset((void *)p, 's', 2 * PAGE);
	CHECK_OK(pipe(go));
	CHECK_OK(pipe(done));
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (madvise((void *)p, 2 * PAGE, MADV_REMOVE) != 0 || p[0] != 0 || p[PAGE] != 0)
			_exit(2);
		if (write(done[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(p[PAGE + 1] == 'P' ? 0 : 4);	/* the parent's write */
	}
	close(done[1]);
	close(go[0]);
	CHECK(read(done[0], &c, 1) == 1);
	CHECK(p[0] == 0 && p[PAGE] == 0 && p[2 * PAGE - 1] == 0);
	p[PAGE + 1] = 'P';
	CHECK(write(go[1], "g", 1) == 1);
	int st = ut_wait(pid);
	if (st != 0)
		ut_fail(__FILE__, __LINE__, "child: %s (exit 4: the parent's write not seen)",
			ut_status_str(st));
	CHECK_OK(munmap((void *)p, 2 * PAGE));
	close(go[1]);
	close(done[0]);
}

/* shm_readonly: mmap(PROT_READ, MAP_SHARED|MAP_ANONYMOUS) reads zeros and
 * refuses writes. */
void test_shm_readonly(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ, SHANON, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK(p[0] == 0 && p[2 * PAGE - 1] == 0);
	ut_expect_signal(SIGSEGV, ut_poke, p + PAGE);
	CHECK_OK(mprotect(p, 2 * PAGE, RW));	/* an anonymous object may be written */
	p[PAGE] = 'w';
	CHECK(p[PAGE] == 'w');
	CHECK_OK(munmap(p, 2 * PAGE));
}

/* Field name (kB) of /proc/path, or -1. */
static long long kb_of(const char *path, const char *name)
{
	char *t = procfs_read(path, NULL);
	long long v = t ? procfs_field(t, name) : -1;
	free(t);
	return v;
}

/* shm_is_shmem: shared anonymous memory is tmpfs memory, as Linux's shmem:
 * touching N pages adds N pages to the process's RssShmem and (checked on
 * Pagoda, where nothing else runs meanwhile; a busy Linux host moves it
 * by more) about N to Shmem in /proc/meminfo; unmapped, they leave both. */
void test_shm_is_shmem(void)
{
	enum { N = 256 };
	long long shmem0 = kb_of("/proc/meminfo", "Shmem"), rss0 = kb_of("/proc/self/status", "RssShmem");
	char *p = mmap(NULL, N * PAGE, RW, SHANON, -1, 0);
	CHECK(p != MAP_FAILED && shmem0 >= 0 && rss0 >= 0);
	for (int i = 0; i < N; i++)
		p[i * PAGE] = 1;
	long long shmem1 = kb_of("/proc/meminfo", "Shmem"), rss1 = kb_of("/proc/self/status", "RssShmem");
	CHECK(rss1 - rss0 == N * 4);
	int pagoda = !ut_on_linux();
	if (pagoda && shmem1 - shmem0 < N * 4 - 64)
		ut_fail(__FILE__, __LINE__, "Shmem grew by %lld kB for %d kB of shared anonymous memory",
			shmem1 - shmem0, N * 4);
	CHECK_OK(munmap(p, N * PAGE));
	CHECK(kb_of("/proc/self/status", "RssShmem") == rss0);
	CHECK(!pagoda || kb_of("/proc/meminfo", "Shmem") < shmem1 - N * 4 + 64);
}

/* user/usertests/t_oom.c -- out of memory on Pagoda: a page fault that finds
 * no frame kills the process with the largest RSS (not the one that asked),
 * counted in meminfo's oom_kills; a system call whose copy to user memory
 * finds no frame fails with ENOMEM, not EFAULT. Linux has an OOM killer of
 * its own whose choice (oom_score_adj, memory cgroups) these tests do not
 * model: there they return at once (pagoda_meminfo gives ENOSYS). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

#define PAGE 4096
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

/* touch_new: map len bytes and write every page; 0, or -1 if mmap failed. */
static int touch_new(size_t len)
{
	volatile char *p = mmap(NULL, len, RW, ANON, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (size_t k = 0; k < len; k += PAGE)
		p[k] = 1;
	return 0;
}

/* available: frames a process could get now (free plus reclaimable). */
static uint64_t available(const struct pagoda_meminfo *m)
{
	return m->free_pages + m->lazyfree_pages;
}

/* oom_victim: a hog holding 60% of memory sleeps; a second process then
 * touches another 60%. The hog (largest RSS) must be killed, the grower
 * must finish. */
void test_oom_victim(void)
{
	struct pagoda_meminfo m0, m1;
	int ready[2];
	char c;

	if (pagoda_meminfo(&m0) != 0)
		return;
	size_t each = (size_t)(available(&m0) * 6 / 10) * PAGE;
	CHECK_OK(pipe(ready));
	pid_t hog = ut_fork();
	if (hog == 0) {
		close(ready[0]);
		if (touch_new(each) < 0 || write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(ready[1]);
	CHECK(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	pid_t grower = ut_fork();
	if (grower == 0)
		_exit(touch_new(each) < 0 ? 3 : 0);
	int gs = ut_wait(grower);
	if (!WIFEXITED(gs) || WEXITSTATUS(gs) != 0) {
		kill(hog, SIGKILL);
		ut_wait(hog);
		ut_fail(__FILE__, __LINE__, "the grower (smaller RSS) ended with %s",
			ut_status_str(gs));
	}
	int hs = ut_wait(hog);
	CHECK(WIFSIGNALED(hs) && WTERMSIG(hs) == SIGKILL);
	CHECK_OK(pagoda_meminfo(&m1));
	CHECK(m1.oom_kills == m0.oom_kills + 1);
}

/* oom_syscall: with 90% of memory touched, read() from /dev/zero into a
 * fresh mapping of another 20% runs out inside the kernel's copy: ENOMEM,
 * and nobody is killed. */
void test_oom_syscall(void)
{
	struct pagoda_meminfo m0, m1;

	if (pagoda_meminfo(&m0) != 0)
		return;
	size_t most = (size_t)(available(&m0) * 9 / 10) * PAGE;
	size_t len = (size_t)(available(&m0) / 5) * PAGE;
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (touch_new(most) < 0)	/* in user mode: no shortage yet */
			_exit(6);
		char *p = mmap(NULL, len, RW, ANON, -1, 0);
		int fd = open("/dev/zero", O_RDONLY);
		if (p == MAP_FAILED || fd < 0)
			_exit(3);
		long r = read(fd, p, len);
		_exit(r == -1 && errno == ENOMEM ? 0 : r == -1 && errno == EFAULT ? 4 : 5);
	}
	int st = ut_wait(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		ut_fail(__FILE__, __LINE__, "reader ended with %s (exit 4: EFAULT)",
			ut_status_str(st));
	CHECK_OK(pagoda_meminfo(&m1));
	CHECK(m1.oom_kills == m0.oom_kills);
}

/* user/usertests/t_cow.c -- after fork, writes by either side stay private:
 * copy-on-write isolation both ways, for data, heap, stack and mmap memory. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

static int global_value = 1;

/* sync_read, sync_write: one byte through a pipe, to order the two sides. */
static void sync_read(int fd)
{
	char c;
	if (read(fd, &c, 1) != 1)
		ut_fail(__FILE__, __LINE__, "sync pipe closed");
}

static void sync_write(int fd)
{
	if (write(fd, "s", 1) != 1)
		ut_fail(__FILE__, __LINE__, "sync pipe write failed");
}

/* cow_child_write: the child's writes are invisible to the parent. */
void test_cow_child_write(void)
{
	int stack_value = 2;
	int *heap = malloc(sizeof *heap);

	CHECK(heap != NULL);
	*heap = 3;
	pid_t pid = ut_fork();
	if (pid == 0) {
		global_value = stack_value = *heap = 99;
		_exit(global_value == 99 && stack_value == 99 && *heap == 99 ? 0 : 1);
	}
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(global_value == 1);
	CHECK(stack_value == 2);
	CHECK(*heap == 3);
	free(heap);
}

/* cow_parent_write: the parent writes after fork; the child still reads the
 * values from the moment of fork. */
void test_cow_parent_write(void)
{
	int to_child[2];
	int stack_value = 5;

	global_value = 6;
	CHECK_OK(pipe(to_child));
	pid_t pid = ut_fork();
	if (pid == 0) {
		sync_read(to_child[0]);	/* parent has written by now */
		_exit(global_value == 6 && stack_value == 5 ? 0 : 1);
	}
	global_value = 60;
	stack_value = 50;
	sync_write(to_child[1]);
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(global_value == 60 && stack_value == 50);
	close(to_child[0]);
	close(to_child[1]);
}

/* fill, check_fill: a pattern that depends on the page and a seed. */
static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i += 512)
		p[i] = (unsigned char)(i / 512 * 7 + seed);
}

static int check_fill(const unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i += 512)
		if (p[i] != (unsigned char)(i / 512 * 7 + seed))
			return 0;
	return 1;
}

/* cow_large: 8 MiB of private memory (several page-table pages), both
 * sides rewrite all of it, each keeps its own contents. */
void test_cow_large(void)
{
	const size_t len = 8u << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int go[2];

	CHECK(p != MAP_FAILED);
	fill(p, len, 1);
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {
		int ok = check_fill(p, len, 1);
		fill(p, len, 2);
		sync_read(go[0]);
		_exit(ok && check_fill(p, len, 2) ? 0 : 1);
	}
	fill(p, len, 3);
	sync_write(go[1]);
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(check_fill(p, len, 3));
	CHECK_OK(munmap(p, len));
	close(go[0]);
	close(go[1]);
}

/* cow_mprotect: memory made read-only before fork and writable again by
 * mprotect after it is still copy-on-write -- its frames are shared with
 * the other process (issue 14, defect 1; Linux: can_change_pte_writable).
 * 2 MiB: a whole page-table page, shared by fork under ptshare=fork/all. */
void test_cow_mprotect(void)
{
	const size_t len = 2u << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int go[2];

	CHECK(p != MAP_FAILED);
	fill(p, len, 1);
	CHECK_OK(mprotect(p, len, PROT_READ));
	CHECK_OK(pipe(go));
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (mprotect(p, 4096, PROT_READ | PROT_WRITE) != 0)
			_exit(2);
		p[0] = 'B';
		sync_write(go[1]);
		_exit(p[0] == 'B' ? 0 : 1);
	}
	sync_read(go[0]);
	CHECK(p[0] == (unsigned char)1);        /* the parent's data, not 'B' */
	CHECK_OK(mprotect(p, len, PROT_READ | PROT_WRITE));
	p[512] = 'P';                           /* and the parent's own write */
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(p[512] == 'P' && check_fill(p + 4096, len - 4096, 1 + 8 * 7));
	CHECK_OK(munmap(p, len));
	close(go[0]);
	close(go[1]);
}

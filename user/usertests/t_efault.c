/* user/usertests/t_efault.c -- bad user pointers in system calls return
 * EFAULT; the kernel never faults on the caller's behalf. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

#define PAGE 4096
#define KERNEL_ADDR ((void *)(uintptr_t)0xffff800000000000ull)
#define NONCANON_ADDR ((void *)(uintptr_t)0x0000800000000000ull)

/* bad_addrs: addresses no system call may write to (or read from). */
static void *const bad_addrs[] = {
	NULL, (void *)(uintptr_t)1, (void *)(uintptr_t)0x1000, KERNEL_ADDR, NONCANON_ADDR,
};
#define NBAD (sizeof bad_addrs / sizeof bad_addrs[0])

/* guard_pages: two pages, the second PROT_NONE: a buffer running off the
 * end of the first crosses into memory that is mapped but inaccessible. */
static char *guard_pages(void)
{
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	CHECK_OK(mprotect(p + PAGE, PAGE, PROT_NONE));
	return p;
}

/* efault_read: read(2) into unwritable memory is EFAULT. */
void test_efault_read(void)
{
	int fd = CHECK_OK(open("/dev/zero", O_RDONLY));
	char *g = guard_pages();

	for (size_t i = 0; i < NBAD; i++)
		CHECK_ERR(read(fd, bad_addrs[i], 16), EFAULT);
	CHECK_ERR(read(fd, (void *)(uintptr_t)test_efault_read, 16), EFAULT); /* text */
	CHECK_ERR(read(fd, g + PAGE, 16), EFAULT);
	/* A read that starts in good memory and runs into the guard fails or
	 * stops short, never writes past it (Linux may return a short count). */
	long r = read(fd, g + PAGE - 8, 16);
	CHECK((r == -1 && errno == EFAULT) || (r >= 0 && r <= 8));
	CHECK(read(fd, g, 16) == 16);
	close(fd);
}

/* efault_write: write(2) from unreadable memory is EFAULT. */
void test_efault_write(void)
{
	int fds[2];
	char *g = guard_pages();

	CHECK_OK(pipe(fds));
	for (size_t i = 0; i < NBAD; i++)
		CHECK_ERR(write(fds[1], bad_addrs[i], 16), EFAULT);
	CHECK_ERR(write(fds[1], g + PAGE, 16), EFAULT);
	CHECK(write(fds[1], g, 16) == 16);
	close(fds[0]);
	close(fds[1]);
}

/* efault_open: a path in unreadable memory is EFAULT. */
void test_efault_open(void)
{
	char *g = guard_pages();

	for (size_t i = 0; i < NBAD; i++)
		CHECK_ERR(open(bad_addrs[i], O_RDONLY), EFAULT);
	/* A path without its NUL before the guard page. */
	for (int i = 0; i < 8; i++)
		g[PAGE - 8 + i] = 'a';
	CHECK_ERR(open(g + PAGE - 8, O_RDONLY), EFAULT);
	/* The same bytes NUL-terminated are merely a missing file. */
	g[PAGE - 1] = '\0';
	CHECK_ERR(open(g + PAGE - 8, O_RDONLY), ENOENT);
}

/* efault_misc: other calls that write results through pointers, called
 * raw (libc wrappers may copy through a local buffer first). */
void test_efault_misc(void)
{
	for (size_t i = 0; i < NBAD; i++) {
		CHECK_ERR(syscall(SYS_pipe, bad_addrs[i]), EFAULT);
		CHECK_ERR(syscall(SYS_uname, bad_addrs[i]), EFAULT);
		CHECK_ERR(syscall(SYS_fstat, 0, bad_addrs[i]), EFAULT);
		CHECK_ERR(syscall(SYS_nanosleep, bad_addrs[i], NULL), EFAULT);
	}
	pid_t pid = ut_fork();
	if (pid == 0)
		_exit(7);
	CHECK_ERR(syscall(SYS_wait4, pid, (void *)(uintptr_t)1, 0, NULL), EFAULT);
	/* Linux reaps the child before it fails to store the status; a kernel
	 * that checks the pointer first leaves it for a second wait. */
	int st;
	pid_t again = waitpid(pid, &st, 0);
	CHECK((again == -1 && errno == ECHILD) ||
	      (again == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7));
}

/* efault_prot_none: memory that was touched and then made PROT_NONE is out
 * of the kernel's reach too: write() from it and read() into it fail with
 * EFAULT, as on Linux, in a forked child as well; the data is still there
 * after mprotect gives access back (issue 14, defect 5). */
void test_efault_prot_none(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd[2];

	CHECK(p != MAP_FAILED);
	memcpy(p, "hello\n", 6);
	CHECK_OK(pipe(fd));
	CHECK_OK(mprotect(p, PAGE, PROT_NONE));
	CHECK_ERR(write(fd[1], p, 6), EFAULT);
	CHECK_OK(write(fd[1], "abc", 3));
	CHECK_ERR(read(fd[0], p, 3), EFAULT);
	pid_t pid = ut_fork();
	if (pid == 0) {
		if (write(fd[1], p, 6) != -1 || errno != EFAULT)
			_exit(1);
		if (mprotect(p, PAGE, PROT_READ | PROT_WRITE) != 0 || memcmp(p, "hello\n", 6))
			_exit(2);
		p[0] = 'X';
		_exit(0);
	}
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_OK(mprotect(p, PAGE, PROT_READ));
	CHECK(memcmp(p, "hello\n", 6) == 0);
	CHECK_OK(munmap(p, PAGE));
	close(fd[0]);
	close(fd[1]);
}

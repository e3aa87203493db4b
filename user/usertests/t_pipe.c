/* user/usertests/t_pipe.c -- pipes and descriptor duplication. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

/* pipe_basic: bytes written come out in order, in one process. */
void test_pipe_basic(void)
{
	int fds[2];
	char buf[16];

	CHECK_OK(pipe(fds));
	CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[0] != fds[1]);
	CHECK(write(fds[1], "abc", 3) == 3);
	CHECK(write(fds[1], "defg", 4) == 4);
	CHECK(read(fds[0], buf, sizeof buf) == 7);
	CHECK(memcmp(buf, "abcdefg", 7) == 0);
	CHECK_ERR(read(fds[1], buf, 1), EBADF);
	CHECK_ERR(write(fds[0], buf, 1), EBADF);
	CHECK_OK(close(fds[0]));
	CHECK_OK(close(fds[1]));
	CHECK_ERR(close(fds[0]), EBADF);
}

/* pipe_large: 1 MiB from a child to the parent, more than any pipe buffer,
 * in odd-sized pieces; every byte arrives in order. */
void test_pipe_large(void)
{
	enum { TOTAL = 1 << 20, CHUNK = 1000 };
	static unsigned char buf[CHUNK + 24];
	int fds[2];
	size_t got = 0;
	ssize_t n;

	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(fds[0]);
		for (size_t off = 0; off < TOTAL; off += CHUNK) {
			size_t len = TOTAL - off < CHUNK ? TOTAL - off : CHUNK;
			for (size_t i = 0; i < len; i++)
				buf[i] = (unsigned char)((off + i) % 251);
			if (write(fds[1], buf, len) != (ssize_t)len)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != (unsigned char)((got + (size_t)i) % 251))
				ut_fail(__FILE__, __LINE__, "byte %zu wrong", got + (size_t)i);
		got += (size_t)n;
	}
	CHECK(n == 0);
	CHECK(got == TOTAL);
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
}

/* pipe_eof: read returns 0 once every write end is closed. */
void test_pipe_eof(void)
{
	int fds[2];
	char c;

	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		(void)!write(fds[1], "x", 1);
		_exit(0);
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 1 && c == 'x');
	CHECK(read(fds[0], &c, 1) == 0);	/* child exited: no writer left */
	ut_wait(pid);
	close(fds[0]);
}

/* write_to_closed: child body: write into a pipe nobody reads. */
static void write_to_closed(void *arg)
{
	int *fds = arg;

	close(fds[0]);
	if (write(fds[1], "x", 1) == -1 && errno == EPIPE)
		_exit(3);	/* EPIPE without the signal */
	_exit(4);
}

/* pipe_closed_reader: writing with no reader left raises SIGPIPE, whose
 * default kills the writer; with SIGPIPE ignored the write fails with EPIPE. */
void test_pipe_closed_reader(void)
{
	int fds[2];

	CHECK_OK(pipe(fds));
	close(fds[0]);
	ut_expect_signal(SIGPIPE, write_to_closed, fds);
	CHECK(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
	CHECK_ERR(write(fds[1], "x", 1), EPIPE);
	CHECK(signal(SIGPIPE, SIG_DFL) == SIG_IGN);
	close(fds[1]);
}

/* pipe2_flags: pipe2 with O_CLOEXEC or no flags gives a working pipe;
 * unknown flags are EINVAL (fd_cloexec checks the flag itself). */
void test_pipe2_flags(void)
{
	static const int flags[] = { 0, O_CLOEXEC };
	int fds[2];
	char c;

	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		CHECK_OK(pipe2(fds, flags[i]));
		CHECK(write(fds[1], "p", 1) == 1);
		CHECK(read(fds[0], &c, 1) == 1 && c == 'p');
		close(fds[0]);
		close(fds[1]);
	}
	CHECK_ERR(pipe2(fds, O_TRUNC), EINVAL);
}

/* dup_fds: dup gives the lowest free descriptor, dup2 replaces its target;
 * both share the open file. */
void test_dup_fds(void)
{
	int fds[2];
	char buf[8];

	CHECK_OK(pipe(fds));
	int d = CHECK_OK(dup(fds[1]));
	CHECK(d != fds[0] && d != fds[1]);
	CHECK(write(d, "12", 2) == 2);
	CHECK_OK(close(d));
	CHECK(dup(fds[1]) == d);	/* lowest free again */
	CHECK(dup2(fds[1], 40) == 40);
	CHECK(write(40, "34", 2) == 2);
	CHECK(dup2(40, 40) == 40);
	CHECK_ERR(dup2(99, 41), EBADF);
	CHECK_ERR(dup(-1), EBADF);
	CHECK(read(fds[0], buf, 4) == 4 && memcmp(buf, "1234", 4) == 0);
	close(40);
	close(d);
	close(fds[0]);
	close(fds[1]);
}

/* fd_cloexec: FD_CLOEXEC through fcntl, O_CLOEXEC, pipe2, dup3 and
 * F_DUPFD_CLOEXEC; dup and dup2 give descriptors without it. */
void test_fd_cloexec(void)
{
	int fds[2], p2[2], d;

	CHECK_OK(pipe(fds));
	CHECK(fcntl(fds[1], F_GETFD) == 0);
	CHECK_OK(fcntl(fds[1], F_SETFD, FD_CLOEXEC));
	CHECK(fcntl(fds[1], F_GETFD) == FD_CLOEXEC);
	d = CHECK_OK(dup(fds[1]));
	CHECK(fcntl(d, F_GETFD) == 0);
	CHECK_OK(close(d));
	d = CHECK_OK(fcntl(fds[1], F_DUPFD_CLOEXEC, 20));
	CHECK(d >= 20 && fcntl(d, F_GETFD) == FD_CLOEXEC);
	CHECK(dup2(fds[0], d) == d && fcntl(d, F_GETFD) == 0);
	CHECK_OK(close(d));
	CHECK(dup3(fds[0], 30, O_CLOEXEC) == 30 && fcntl(30, F_GETFD) == FD_CLOEXEC);
	CHECK_OK(close(30));
	CHECK_ERR(dup3(fds[0], fds[0], O_CLOEXEC), EINVAL);
	CHECK_OK(pipe2(p2, O_CLOEXEC));
	CHECK(fcntl(p2[0], F_GETFD) == FD_CLOEXEC && fcntl(p2[1], F_GETFD) == FD_CLOEXEC);
	d = CHECK_OK(open("/dev/null", O_RDONLY | O_CLOEXEC));
	CHECK(fcntl(d, F_GETFD) == FD_CLOEXEC);
	CHECK_OK(fcntl(d, F_SETFD, 0));
	CHECK(fcntl(d, F_GETFD) == 0);
	close(d);
	close(p2[0]);
	close(p2[1]);
	close(fds[0]);
	close(fds[1]);
}

/* exec_cloexec: execve closes exactly the descriptors marked close-on-exec:
 * a pipe whose only writer is marked reads end-of-file while the program
 * the child became (sleep 1) still runs. */
void test_exec_cloexec(void)
{
	int fds[2], st;
	char path[300], c;
	pid_t pid;

	snprintf(path, sizeof path, "%s/sleep", ut_bindir);
	CHECK_OK(pipe2(fds, O_CLOEXEC));
	pid = ut_fork();
	if (pid == 0) {
		close(fds[0]);
		execl(path, "sleep", "1", (char *)NULL);
		_exit(99);
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 0);
	CHECK(waitpid(pid, &st, WNOHANG) == 0);
	st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fds[0]);
}

/* fd_status_flags: F_GETFL gives the access mode and O_NONBLOCK; F_SETFL
 * turns O_NONBLOCK on (an empty pipe's read is then EAGAIN) and off. */
void test_fd_status_flags(void)
{
	int fds[2];
	char c;

	CHECK_OK(pipe(fds));
	CHECK(fcntl(fds[0], F_GETFL) == O_RDONLY);
	CHECK(fcntl(fds[1], F_GETFL) == O_WRONLY);
	CHECK_OK(fcntl(fds[0], F_SETFL, O_NONBLOCK));
	CHECK(fcntl(fds[0], F_GETFL) == (O_RDONLY | O_NONBLOCK));
	CHECK_ERR(read(fds[0], &c, 1), EAGAIN);
	CHECK(write(fds[1], "s", 1) == 1);
	CHECK(read(fds[0], &c, 1) == 1 && c == 's');
	CHECK_OK(fcntl(fds[0], F_SETFL, 0));
	CHECK(fcntl(fds[0], F_GETFL) == O_RDONLY);
	CHECK_ERR(fcntl(-1, F_GETFL), EBADF);
	close(fds[0]);
	close(fds[1]);
}

/* pipe_atomic: writes of PIPE_BUF (4096) bytes are atomic (POSIX): two
 * writers' records never interleave, so the stream, read in odd-sized
 * pieces, is whole records one after another (before: the kernel let
 * the other writer in between 512-byte chunks). */
void test_pipe_atomic(void)
{
	enum { REC = 4096, N = 300, WRITERS = 2 };
	static unsigned char rec[REC], got[REC];
	int fds[2], mixed = 0, records = 0;
	size_t fill = 0;
	ssize_t n;
	pid_t pid[WRITERS];

	CHECK_OK(pipe(fds));
	for (int w = 0; w < WRITERS; w++) {
		pid[w] = ut_fork();
		if (pid[w] == 0) {
			close(fds[0]);
			memset(rec, 'A' + w, REC);
			for (int i = 0; i < N; i++)
				if (write(fds[1], rec, REC) != REC)
					_exit(1);
			_exit(0);
		}
	}
	close(fds[1]);
	while ((n = read(fds[0], got + fill, REC - fill < 1000 ? REC - fill : 1000)) > 0) {
		fill += (size_t)n;
		if (fill < REC)
			continue;
		for (size_t i = 1; i < REC; i++)
			if (got[i] != got[0]) {
				mixed++;
				break;
			}
		records++;
		fill = 0;
	}
	for (int w = 0; w < WRITERS; w++)
		CHECK(ut_wait(pid[w]) == 0);
	close(fds[0]);
	if (mixed || records != N * WRITERS || fill)
		ut_fail(__FILE__, __LINE__, "%d of %d records mixed, %zu bytes left over", mixed,
			records, fill);
}

/* pipe_fault_keeps: a read into memory that is not mapped fails with
 * EFAULT and loses nothing (the bytes come with the next read), and a
 * write from such memory fails with EFAULT and adds nothing. */
void test_pipe_fault_keeps(void)
{
	int fds[2];
	char buf[16];
	char *hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(hole != MAP_FAILED);
	CHECK_OK(munmap(hole, 4096));
	CHECK_OK(pipe(fds));
	CHECK(write(fds[1], "abcdef", 6) == 6);
	CHECK_ERR(read(fds[0], hole, 6), EFAULT);
	CHECK_ERR(write(fds[1], hole, 6), EFAULT);
	CHECK_OK(fcntl(fds[0], F_SETFL, O_NONBLOCK));   /* lost bytes: EAGAIN, not a hang */
	CHECK(read(fds[0], buf, sizeof buf) == 6);
	CHECK(memcmp(buf, "abcdef", 6) == 0);
	close(fds[0]);
	close(fds[1]);
}

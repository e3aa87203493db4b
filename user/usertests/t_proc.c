/* user/usertests/t_proc.c -- fork, exec, wait, exit statuses, kill. */
#define _GNU_SOURCE     /* pipe2 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "usertests.h"

/* clone(2)'s raw flags: Linux numbers (newlib's SIGCHLD is not 17) */
#define LINUX_SIGCHLD 17
#ifndef SYS_clone
#define SYS_clone 56   /* Linux x86-64 (newlib's list lacks it) */
#endif

/* exit_status: the exit code reaches the parent intact (WEXITSTATUS). */
void test_exit_status(void)
{
	static const int codes[] = { 0, 1, 42, 127, 255 };

	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		pid_t pid = ut_fork();
		if (pid == 0)
			_exit(codes[i]);
		int st = ut_wait(pid);
		if (!WIFEXITED(st) || WIFSIGNALED(st) || WEXITSTATUS(st) != codes[i])
			ut_fail(__FILE__, __LINE__, "exit(%d) gave %s", codes[i], ut_status_str(st));
	}
}

/* fork_wait: several children, wait(-1) reaps each exactly once. */
void test_fork_wait(void)
{
	enum { N = 8 };
	pid_t pids[N];
	int seen[N] = { 0 };

	for (int i = 0; i < N; i++) {
		pids[i] = ut_fork();
		if (pids[i] == 0)
			_exit(10 + i);
	}
	for (int k = 0; k < N; k++) {
		int st;
		pid_t got = CHECK_OK(wait(&st));
		int i = 0;
		while (i < N && pids[i] != got)
			i++;
		CHECK(i < N);
		CHECK(!seen[i]);
		seen[i] = 1;
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 10 + i);
	}
	CHECK_ERR(wait(NULL), ECHILD);
}

/* wait_nochild: waiting without children, or for a non-child: ECHILD. */
void test_wait_nochild(void)
{
	CHECK_ERR(wait(NULL), ECHILD);
	CHECK_ERR(waitpid(getppid(), NULL, 0), ECHILD);
	CHECK_ERR(waitpid(1, NULL, WNOHANG), ECHILD);
}

/* getppid: a child sees its parent's pid; pids differ. */
void test_getppid(void)
{
	pid_t me = getpid();
	pid_t pid = ut_fork();

	if (pid == 0)
		_exit(getppid() == me && getpid() != me ? 0 : 1);
	CHECK(pid != me);
	int st = ut_wait(pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* How a capture child starts its program: path is ut_bindir/prog. */
typedef void (*exec_fn)(const char *path, const char *prog, char *const argv[]);

/* via_execve: by full path, with an environment of its own. */
static void via_execve(const char *path, const char *prog, char *const argv[])
{
	char *envp[] = { "PATH=/bin", NULL };

	(void)prog;
	execve(path, argv, envp);
}

/* via_execvp: by name, found through $PATH (set to ut_bindir). */
static void via_execvp(const char *path, const char *prog, char *const argv[])
{
	(void)path;
	setenv("PATH", ut_bindir, 1);
	execvp(prog, argv);
}

/* via_execlp: by name with a fixed argument list (argv[0], argv[1]). */
static void via_execlp(const char *path, const char *prog, char *const argv[])
{
	(void)path;
	setenv("PATH", ut_bindir, 1);
	execlp(prog, argv[0], argv[1], (char *)NULL);
}

/* run_capture: run program prog of ut_bindir with argv, started by how,
 * its stdout into out (NUL-terminated); returns the wait status. */
static int run_capture(exec_fn how, const char *prog, char *const argv[], char *out,
		       size_t size)
{
	char path[256];
	int fds[2];
	size_t len = 0;
	ssize_t n;

	snprintf(path, sizeof path, "%s/%s", ut_bindir, prog);
	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		how(path, prog, argv);
		_exit(99);
	}
	close(fds[1]);
	while (len < size - 1 && (n = read(fds[0], out + len, size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fds[0]);
	return ut_wait(pid);
}

/* exec_echo: exec replaces the child; argv arrives intact, through execve
 * with a path and through the $PATH-searching variants. */
void test_exec_echo(void)
{
	static const exec_fn hows[] = { via_execve, via_execvp, via_execlp };
	static const char *const want[] = { "hello from exec\n", "hello from exec\n", "hello\n" };
	char out[128];
	char *argv[] = { "echo", "hello", "from", "exec", NULL };

	for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++) {
		int st = run_capture(hows[i], "echo", argv, out, sizeof out);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ut_fail(__FILE__, __LINE__, "echo (way %zu): %s", i, ut_status_str(st));
		if (strcmp(out, want[i]) != 0)
			ut_fail(__FILE__, __LINE__, "echo (way %zu) printed \"%s\"", i, out);
	}
	char *hargv[] = { "hello", NULL };
	int st = run_capture(via_execve, "hello", hargv, out, sizeof out);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(strcmp(out, "hello\n") == 0);
}

/* exec_errors: execve of a missing file or a bad pointer fails cleanly and
 * the caller carries on. */
void test_exec_errors(void)
{
	char *argv[] = { "nothing", NULL };
	char *envp[] = { NULL };

	CHECK_ERR(execve("/no/such/program", argv, envp), ENOENT);
	CHECK_ERR(execve(ut_addr(1), argv, envp), EFAULT);
	CHECK_ERR(execve(ut_bindir, argv, envp), EACCES);
	setenv("PATH", ut_bindir, 1);
	CHECK_ERR(execvp("no-such-program", argv), ENOENT);
}

/* exec_dynamic: dynamically linked musl programs, position-independent
 * and not, run through the loader their PT_INTERP names
 * (/lib/ld-musl-x86_64.so.1) and print exactly what they print on Linux. */
void test_exec_dynamic(void)
{
	static const char dyntest_out[] = "dyntest: malloc ok\ndyntest: stdio ok\n"
					  "dyntest: signals ok\ndyntest: fork ok\n"
					  "dyntest: auxv ok\n";
	static const char *const progs[] = { "hello-dyn", "hello-dyn-nopie", "dyntest-dyn",
					     "dyntest-dyn-nopie" };
	static const char *const want[] = { "hello\n", "hello\n", dyntest_out, dyntest_out };
	char out[256];

	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		char *argv[] = { (char *)progs[i], NULL };
		int st = run_capture(via_execve, progs[i], argv, out, sizeof out);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ut_fail(__FILE__, __LINE__, "%s: %s", progs[i], ut_status_str(st));
		if (strcmp(out, want[i]) != 0)
			ut_fail(__FILE__, __LINE__, "%s printed \"%s\"", progs[i], out);
	}
}

/* via_loader: the musl loader started as a command, loading path itself
 * (file mmap of its segments at page offsets, PROT_EXEC, MAP_FIXED). */
static void via_loader(const char *path, const char *prog, char *const argv[])
{
	char *envp[] = { NULL };
	char *largv[] = { "ld-musl-x86_64.so.1", (char *)path, NULL };

	(void)prog;
	(void)argv;
	execve("/lib/ld-musl-x86_64.so.1", largv, envp);
}

/* exec_loader_cmd: `ld-musl-x86_64.so.1 PROG` runs PROG as exec would. */
void test_exec_loader_cmd(void)
{
	static const char *const progs[] = { "hello-dyn", "hello-dyn-nopie" };
	char out[64];

	for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
		int st = run_capture(via_loader, progs[i], NULL, out, sizeof out);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			ut_fail(__FILE__, __LINE__, "%s: %s", progs[i], ut_status_str(st));
		if (strcmp(out, "hello\n") != 0)
			ut_fail(__FILE__, __LINE__, "%s printed \"%s\"", progs[i], out);
	}
}

/* The directory beside ut_bindir holding tools/mkbadelf.py's files. */
static void badelf_path(char *buf, size_t size, const char *name)
{
	const char *slash = strrchr(ut_bindir, '/');
	int dir = slash ? (int)(slash - ut_bindir) : 0;
	snprintf(buf, size, "%.*s/badelf/%s", dir, ut_bindir, name);
}

/* exec_badelf: a program whose interpreter is missing gives ENOENT; each
 * malformed header (tools/mkbadelf.py) gives Linux's errno and the caller
 * carries on. Segments past the end of the file: Linux maps them anyway and
 * the program dies of a signal; Pagoda checks them against the file size
 * and refuses them (ENOEXEC). */
void test_exec_badelf(void)
{
	static const char *const enoexec[] = { "type-rel", "machine", "phentsize", "phnum0",
		"phoff-eof", "phoff-huge", "interp-long", "interp-nonul", "truncated" };
	static const char *const beyond[] = { "load-filesz", "load-offset" };
	char path[256];
	char *argv[] = { "bad", NULL };
	char *envp[] = { NULL };

	snprintf(path, sizeof path, "%s/hello-nointerp", ut_bindir);
	CHECK_ERR(execve(path, argv, envp), ENOENT);
	for (size_t i = 0; i < sizeof enoexec / sizeof enoexec[0]; i++) {
		badelf_path(path, sizeof path, enoexec[i]);
		if (execve(path, argv, envp) != -1 || errno != ENOEXEC)
			ut_fail(__FILE__, __LINE__, "%s: errno %d, not ENOEXEC", enoexec[i], errno);
	}
	badelf_path(path, sizeof path, "interp-eof");
	CHECK_ERR(execve(path, argv, envp), EIO);
	for (size_t i = 0; i < sizeof beyond / sizeof beyond[0]; i++) {
		badelf_path(path, sizeof path, beyond[i]);
		if (!ut_on_linux()) {
			CHECK_ERR(execve(path, argv, envp), ENOEXEC);
			continue;
		}
		pid_t pid = ut_fork();
		if (pid == 0) {
			execve(path, argv, envp);
			_exit(99);
		}
		int st = ut_wait(pid);
		CHECK(WIFSIGNALED(st));
	}
}

/* kill_child: SIGKILL and SIGTERM end a child; the status says which. */
void test_kill_child(void)
{
	static const int sigs[] = { SIGKILL, SIGTERM };

	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		int fds[2];
		char c;
		CHECK_OK(pipe(fds));
		pid_t pid = ut_fork();
		if (pid == 0) {
			close(fds[1]);
			(void)!read(fds[0], &c, 1);	/* blocks until killed */
			_exit(0);
		}
		CHECK_OK(kill(pid, sigs[i]));
		int st = ut_wait(pid);
		close(fds[0]);
		close(fds[1]);
		if (!WIFSIGNALED(st) || WTERMSIG(st) != sigs[i])
			ut_fail(__FILE__, __LINE__, "kill(%d): %s", sigs[i], ut_status_str(st));
	}
	CHECK_ERR(kill(getpid(), 12345), EINVAL);
}

/* kill_zombie: a child that exited and is not reaped yet still exists:
 * kill(pid, 0) and kill(pid, SIGTERM) succeed (Linux: the signal is
 * dropped), and wait then reports the plain exit, not the signal. Pagoda
 * said ESRCH (busybox's "sh: can't kill pid 20: No such process" when a
 * background child had already exited). Once reaped: ESRCH. */
void test_kill_zombie(void)
{
	int fds[2];
	char c;
	CHECK_OK(pipe(fds));
	pid_t pid = ut_fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(7);          /* the pipe's write end closes: the parent sees EOF */
	}
	close(fds[1]);
	CHECK(read(fds[0], &c, 1) == 0);
	close(fds[0]);
	CHECK(ut_state_becomes(pid, 'Z'));   /* exited, not reaped */
	CHECK_OK(kill(pid, 0));
	CHECK_OK(kill(pid, SIGTERM));
	int st = ut_wait(pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
		ut_fail(__FILE__, __LINE__, "killed zombie: %s", ut_status_str(st));
	CHECK_ERR(kill(pid, 0), ESRCH);
}

/* children64: 64 children alive at once, then all exit and are reaped. */
void test_children64(void)
{
	enum { N = 64 };
	pid_t pids[N];
	int fds[2];
	char c;

	CHECK_OK(pipe(fds));
	for (int i = 0; i < N; i++) {
		pids[i] = ut_fork();
		if (pids[i] == 0) {
			close(fds[1]);
			_exit(read(fds[0], &c, 1) == 0 ? i : 200);	/* wait for EOF */
		}
	}
	close(fds[1]);	/* now every child sees EOF */
	close(fds[0]);
	for (int i = 0; i < N; i++) {
		int st = ut_wait(pids[i]);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != i)
			ut_fail(__FILE__, __LINE__, "child %d: %s", i, ut_status_str(st));
	}
	CHECK_ERR(wait(NULL), ECHILD);
}

/* clone_fork: clone in glibc's fork form (SIGCHLD | CLONE_CHILD_SETTID |
 * CLONE_CHILD_CLEARTID, plus CLONE_PARENT_SETTID) is a fork that writes the
 * child's pid where asked, in the child's memory and in the parent's; a
 * spawn form (CLONE_VM | CLONE_VFORK with a stack of its own) runs the
 * child to exit. Threads are user/threadtests.c's; Linux's rules
 * between the flags hold (CLONE_SIGHAND needs CLONE_VM: EINVAL). */
void test_clone_fork(void)
{
	static volatile int ptid, ctid;
	ptid = ctid = -1;
	fflush(stdout);
	long pid = syscall(SYS_clone, LINUX_SIGCHLD | 0x01000000L | 0x00200000L | 0x00100000L, 0,
			   &ptid, &ctid, 0);
	if (pid == 0)
		_exit(ctid == getpid() && ptid == -1 ? 7 : 1);
	CHECK(pid > 0 && ptid == pid && ctid == -1);
	int st = ut_wait((pid_t)pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	CHECK_ERR(syscall(SYS_clone, 0x800L | LINUX_SIGCHLD, 0, 0, 0, 0), EINVAL);
	/* a child_tid that cannot be written is skipped, not an error */
	pid = syscall(SYS_clone, LINUX_SIGCHLD | 0x01000000L, 0, 0, ut_addr(8), 0);
	if (pid == 0)
		_exit(5);
	CHECK(pid > 0);
	st = ut_wait((pid_t)pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* vfork_waits: the parent of a vfork child resumes only once the child
 * exited (its last write is already in the pipe: Linux wakes the parent
 * when the child lets go of its memory, before it is a zombie) or exec'd (its
 * /proc/PID/cmdline already names the new program): clone(CLONE_VFORK)
 * and libc's vfork(). */
void test_vfork_waits(void)
{
	const long vfork_sigchld = 0x00004000L | LINUX_SIGCHLD;
	int st, p[2];
	char c = 0;

	CHECK_OK(pipe2(p, O_NONBLOCK));
	fflush(stdout);
	long pid = syscall(SYS_clone, vfork_sigchld, 0, 0, 0, 0);
	if (pid == 0) {
		usleep(50000);
		_exit(write(p[1], "x", 1) == 1 ? 3 : 1);
	}
	CHECK(pid > 0);
	CHECK(read(p[0], &c, 1) == 1 && c == 'x');
	st = ut_wait((pid_t)pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	close(p[0]);
	close(p[1]);
	pid = vfork();
	if (pid == 0) {
		char *argv[] = { "sleep", "5", NULL };
		usleep(50000);
		execv("/bin/sleep", argv);
		_exit(127);
	}
	CHECK(pid > 0);
	char path[64], exe[256] = { 0 };
	snprintf(path, sizeof path, "/proc/%ld/exe", pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	CHECK(n > 6 && strcmp(exe + n - 6, "/sleep") == 0);
	CHECK_OK(kill((pid_t)pid, SIGKILL));
	st = ut_wait((pid_t)pid);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

/* user/dyntest.c -- a small libc workout for dynamically linked builds.
 *
 * Built three ways: bin/dyntest (static, newlib), bin/dyntest-dyn (musl,
 * dynamic, position-independent: ld-musl-x86_64.so.1 loads it) and
 * bin/dyntest-dyn-nopie (musl, dynamic, ET_EXEC). Checks malloc (small,
 * large, realloc), stdio through a pipe, signal delivery and masking, fork
 * with copy-on-write and wait statuses, and for the dynamic builds the
 * auxiliary vector the loader used (-DDYNTEST_DYNAMIC). Prints one fixed
 * line per group, the same on Pagoda and Linux (usertests' exec_dynamic
 * compares it), and exits 0; a failed check prints "dyntest: FAIL ..." to
 * stderr and exits 1.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef DYNTEST_DYNAMIC
#include <elf.h>
#endif

#define CHECK(c) check((c), #c, __LINE__)

static void check(int ok, const char *what, int line)
{
	if (!ok) {
		fprintf(stderr, "dyntest: FAIL line %d: %s\n", line, what);
		exit(1);
	}
}

/* Many blocks of many sizes, each filled and verified; one large block
 * (mmap-backed in musl) grown by realloc keeps its contents. */
static void test_malloc(void)
{
	enum { N = 500 };
	static unsigned char *blk[N];
	for (int i = 0; i < N; i++) {
		size_t n = 1 + (size_t)(i * 37 % 1000);
		CHECK((blk[i] = malloc(n)) != NULL);
		memset(blk[i], i & 0xff, n);
	}
	for (int i = 0; i < N; i++) {
		size_t n = 1 + (size_t)(i * 37 % 1000);
		CHECK(blk[i][0] == (i & 0xff) && blk[i][n - 1] == (i & 0xff));
		free(blk[i]);
	}
	size_t big = 4u << 20;
	char *p = malloc(big);
	CHECK(p != NULL);
	memset(p, 'x', big);
	CHECK((p = realloc(p, 2 * big)) != NULL);
	CHECK(p[0] == 'x' && p[big - 1] == 'x');
	free(p);
	printf("dyntest: malloc ok\n");
}

/* Formatted output into a pipe through FILE*, read back with fgets/sscanf. */
static void test_stdio(void)
{
	int fds[2];
	char line[64];
	int a = 0;
	double d = 0;
	CHECK(pipe(fds) == 0);
	FILE *w = fdopen(fds[1], "w"), *r = fdopen(fds[0], "r");
	CHECK(w && r);
	fprintf(w, "%d %s %.2f %x\n", 42, "pagoda", 2.5, 255);
	CHECK(fclose(w) == 0);
	CHECK(fgets(line, sizeof line, r) != NULL);
	CHECK(strcmp(line, "42 pagoda 2.50 ff\n") == 0);
	CHECK(sscanf(line, "%d %*s %lf", &a, &d) == 2 && a == 42 && d == 2.5);
	CHECK(fgets(line, sizeof line, r) == NULL && feof(r));
	fclose(r);
	printf("dyntest: stdio ok\n");
}

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

/* A handler runs; a blocked signal waits until it is unblocked. */
static void test_signals(void)
{
	struct sigaction sa;
	sigset_t set;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
	CHECK(raise(SIGUSR1) == 0 && got == SIGUSR1);
	got = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
	CHECK(kill(getpid(), SIGUSR1) == 0 && got == 0);
	CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0 && got == SIGUSR1);
	printf("dyntest: signals ok\n");
}

/* The child's writes to heap memory stay its own; exit and signal
 * statuses arrive intact. */
static void test_fork(void)
{
	char *buf = malloc(8192);
	CHECK(buf != NULL);
	strcpy(buf, "parent");
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		strcpy(buf, "child");
		_exit(strcmp(buf, "child") == 0 ? 42 : 1);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 42);
	CHECK(strcmp(buf, "parent") == 0);
	if ((pid = fork()) == 0) {
		pause();
		_exit(1);
	}
	CHECK(pid > 0 && kill(pid, SIGTERM) == 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	free(buf);
	printf("dyntest: fork ok\n");
}

#ifdef DYNTEST_DYNAMIC
/* The auxiliary vector of a dynamically linked run: the loader's base, the
 * program's headers (one executable PT_LOAD holds main, once the load bias
 * from PT_PHDR is added), its entry point, page size and random bytes. */
static void test_auxv(void)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	uintptr_t n = getauxval(AT_PHNUM), bias = 0, text = (uintptr_t)test_auxv;
	int found = 0;
	CHECK(getauxval(AT_BASE) != 0 && getauxval(AT_BASE) % 4096 == 0);
	CHECK(getauxval(AT_PAGESZ) == 4096 && getauxval(AT_PHENT) == sizeof(Elf64_Phdr));
	CHECK(getauxval(AT_RANDOM) != 0 && getauxval(AT_ENTRY) != 0);
	CHECK(getauxval(AT_SECURE) == 0 && getauxval(AT_EXECFN) != 0);
	CHECK(strstr((const char *)getauxval(AT_EXECFN), "dyntest") != NULL);
	CHECK(ph != NULL && n > 0);
	for (uintptr_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (uintptr_t)ph - ph[i].p_vaddr;
	for (uintptr_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    text >= bias + ph[i].p_vaddr && text < bias + ph[i].p_vaddr + ph[i].p_memsz)
			found = 1;
	CHECK(found);
	printf("dyntest: auxv ok\n");
}
#endif

int main(void)
{
	test_malloc();
	test_stdio();
	test_signals();
	test_fork();
#ifdef DYNTEST_DYNAMIC
	test_auxv();
#endif
	return 0;
}

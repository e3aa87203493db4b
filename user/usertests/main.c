/* user/usertests/main.c -- the runner: usertests [NAME | -NAME ...]
 *
 * Runs every test (or only the named ones, or all but the -named ones;
 * a name may end in '*') each in a forked child, prints
 * "TEST user.NAME PASS|FAIL <why>" per test and "USERTESTS END <n> passed,
 * <m> failed", and exits 0 only if all passed. Around the whole run it
 * checks that the kernel's free-frame count comes back to where it was
 * (pagoda_meminfo), and after every test it runs the kernel's VM invariant
 * checker (pagoda_vmcheck); on kernels without those calls (Linux) it says
 * so and skips only those checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/pagoda.h>
#include <pagoda/procfs.h>
#include "usertests.h"

struct usertest {
	const char *name;
	void (*fn)(void);
};

#define UT_ENTRY(name) { #name, test_##name },
static const struct usertest tests[] = { USERTESTS(UT_ENTRY) };
#define NTESTS (sizeof tests / sizeof tests[0])

static int passed, failed;

/* report: print one result line and count it. */
static void report(const char *name, int ok, const char *why)
{
	if (ok)
		printf("TEST user.%s PASS\n", name);
	else
		printf("TEST user.%s FAIL %s\n", name, why);
	fflush(stdout);
	ok ? passed++ : failed++;
}

/* run_test: fork, run t in the child, judge by the exit status; the
 * child's reason (if any) comes through a pipe only the child holds. */
static void run_test(const struct usertest *t)
{
	char why[300] = "";
	int fds[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(fds) < 0) {
		report(t->name, 0, "pipe failed");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		report(t->name, 0, "fork failed");
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		ut_report_fd = fds[1];
		t->fn();
		_exit(0);
	}
	close(fds[1]);
	while (len < (ssize_t)sizeof why - 1 &&
	       (n = read(fds[0], why + len, sizeof why - 1 - len)) > 0)
		len += n;
	why[len] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid) {
		report(t->name, 0, "waitpid failed");
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		report(t->name, 1, NULL);
	else
		report(t->name, 0, why[0] ? why : ut_status_str(status));
}

/* matches: is name the test pattern p names: p itself, or, when p ends
 * with '*', every name starting with what comes before it ("cow_*")? */
static int matches(const char *p, const char *name)
{
	size_t n = strlen(p);
	if (n && p[n - 1] == '*')
		return strncmp(p, name, n - 1) == 0;
	return strcmp(p, name) == 0;
}

/* selected: should test name run, given the names on the command line?
 * A name or pattern runs those tests; one with a leading '-' ("-oom*")
 * leaves those out (with only such, every other test runs). */
static int selected(const char *name, int argc, char **argv)
{
	int any_named = 0, named = 0;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (matches(argv[i] + 1, name))
				return 0;
			continue;
		}
		any_named = 1;
		named |= matches(argv[i], name);
	}
	return !any_named || named;
}

/* check_names: every name (or pattern) given must be a test's; 0 if so. */
static int check_names(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		size_t k = 0;
		const char *p = argv[i][0] == '-' ? argv[i] + 1 : argv[i];
		while (k < NTESTS && !matches(p, tests[k].name))
			k++;
		if (k == NTESTS) {
			fprintf(stderr, "usertests: no test named %s\n", argv[i]);
			bad = 1;
		}
	}
	return bad;
}

/* set_bindir: the test programs live next to usertests itself. */
static void set_bindir(const char *argv0)
{
	static char dir[256];
	const char *slash = strrchr(argv0, '/');

	if (slash && (size_t)(slash - argv0) < sizeof dir) {
		memcpy(dir, argv0, slash - argv0);
		dir[slash - argv0] = '\0';
		ut_bindir = slash == argv0 ? "/" : dir;
	}
}

/* reap_orphans: when usertests runs as init (pid 1), orphans of the tests
 * are reparented to it; reap the ones that have exited, as init would. */
static void reap_orphans(void)
{
	int status;
	if (getpid() == 1)
		while (waitpid(-1, &status, WNOHANG) > 0)
			;
}

/* Say which test moved the free-frame count (the final leakcheck says
 * only that something did; a per-test count that returns later, a cache
 * filling, is no leak). */
static void note_free_change(const char *name)
{
	static unsigned long long last;
	struct pagoda_meminfo m;
	if (pagoda_meminfo(&m) != 0)
		return;
	if (last && m.free_pages != last)
		printf("  (free pages %+lld after %s)\n",
		       (long long)m.free_pages - (long long)last, name);
	last = m.free_pages;
}

/* explain_leak: where the frames missing at the end are -- the kernel's
 * counters that moved, and every process still there (a test's straggler
 * holds its memory; where it sleeps says why it did not end). */
static void explain_leak(const struct pagoda_meminfo *b, const struct pagoda_meminfo *a)
{
	printf("  kernel %+lld, anon %+lld, file %+lld, page tables %+lld, lazy-free %+lld pages, "
	       "kmalloc objects %+lld\n",
	       (long long)(a->kernel_pages - b->kernel_pages), (long long)(a->anon_pages - b->anon_pages),
	       (long long)(a->file_pages - b->file_pages),
	       (long long)(a->pagetable_pages - b->pagetable_pages),
	       (long long)(a->lazyfree_pages - b->lazyfree_pages),
	       (long long)(a->kmalloc_objects - b->kmalloc_objects));
	procfs_print_tasks("  still there:");
}

int main(int argc, char **argv)
{
	struct pagoda_meminfo before, after;
	int have_meminfo;

	if (check_names(argc, argv))
		return 2;
	set_bindir(argv[0]);
	printf("usertests: starting\n");	/* sets up stdout before the baseline */
	fflush(stdout);
	have_meminfo = pagoda_meminfo(&before) == 0;
	if (!have_meminfo)
		printf("usertests: note: free-frame leak check skipped "
		       "(pagoda_meminfo: %s; not Pagoda)\n", strerror(errno));
	for (size_t i = 0; i < NTESTS; i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		run_test(&tests[i]);
		/* the kernel's VM invariants after every test (a violation
		 * panics the kernel, which fails the whole run loudly) */
		if (have_meminfo && pagoda_vmcheck() != 0)
			report("vmcheck", 0, strerror(errno));
		reap_orphans();
		note_free_change(tests[i].name);
	}
	if (have_meminfo) {
		char why[96];
		/* a leak is fewer free frames after; more is another process's
		 * (or a kernel cache's) frame coming back meanwhile, which runs
		 * with processes on every CPU showed now and then (+1 page) */
		int ok = pagoda_meminfo(&after) == 0 && after.free_pages >= before.free_pages;
		snprintf(why, sizeof why, "free pages before %llu, after %llu",
			 (unsigned long long)before.free_pages,
			 (unsigned long long)after.free_pages);
		if (!ok)
			explain_leak(&before, &after);
		report("leakcheck", ok, why);
	}
	printf("USERTESTS END %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

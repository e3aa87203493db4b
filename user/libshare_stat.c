/* user/libshare_stat.c -- page-table pages with N different programs
 * running at once (issue 21, seed 003 for dynamically linked programs):
 * tools/bench/libshare.sh runs it on Pagoda (ptshare=off and all) and on
 * Linux, with the static and the dynamic builds of the same tools.
 *
 *   libshare_stat [--max N] TAG PROG[,ARG...] ...
 *
 * Starts program i (i = 0, 1, ...) as the (i mod count)th PROG with its
 * arguments, all of them sharing one stdin pipe that nobody writes (a shell
 * or cat blocks reading it) and one stdout pipe filled up beforehand (ls,
 * echo, hello block in their first write); stderr goes to /dev/null. A
 * program counts as running once /proc/PID/stat says it sleeps and
 * its name is the program's (so it is past exec, its loader and start-up).
 * When N programs run, for N = 0 1 2 4 8 16 32 (up to --max, default 32),
 * it prints one line per count, in make bench's BENCH format (runs=1):
 *   BENCH libshare_TAG pt_pages_N pages ...   user page-table pages in use,
 *                                               system-wide (PageTables)
 *   BENCH libshare_TAG pt_shared_N pages ...  of them shared (SharedPT; not
 *                                               on Linux)
 *   BENCH libshare_TAG kib_saved_N KiB ...    PT memory sharing saved (PTSaved)
 *   BENCH libshare_TAG pdpt_pages_N pages ...  the distinct PD and PT pages
 *                                               the N programs point at
 *                                               (pagoda_pttree; Pagoda only):
 *                                               the levels Linux's PageTables
 *                                               counts (pte and pmd pages)
 *   BENCH libshare_TAG rss_kib_N / pss_kib_N KiB  Rss and Pss of
 *                                               /proc/PID/smaps_rollup summed
 *                                               over the N programs
 * then kills and reaps them. Portable: the same binary runs on Linux. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pagoda/pagoda.h>

#define MAX_PROGS 32
#define MAX_ARGS 8
#define WAIT_STEPS 20000   /* 1 ms each: 20 s for one program to start */

static pid_t pids[MAX_PROGS];
static int nrun;
static int in_fd, out_fd;   /* the programs' shared stdin and stdout */

static void die(const char *what)
{
	fprintf(stderr, "libshare_stat: %s\n", what);
	exit(2);
}

/* The whole of a small /proc file into buf (NUL-terminated); 0 or -1. */
static int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t r = 0;
	if (fd < 0)
		return -1;
	while (got + 1 < n && (r = read(fd, buf + got, n - 1 - got)) > 0)
		got += (size_t)r;
	close(fd);
	buf[got] = '\0';
	return r < 0 ? -1 : 0;
}

/* The number after "name:" in text, or -1 when the line is missing. */
static long long field(const char *text, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, len) && p[len] == ':')
			return atoll(p + len + 1);
	return -1;
}

/* pid's state letter from /proc/PID/stat ("pid (comm) S ..."), its comm
 * (the program's file name; Linux cuts it to 15 characters) into comm. */
static char proc_state(pid_t pid, char *comm, size_t n)
{
	char file[64], buf[512];
	snprintf(file, sizeof file, "/proc/%d/stat", (int)pid);
	if (read_file(file, buf, sizeof buf) < 0)
		return '?';
	const char *open_paren = strchr(buf, '('), *paren = strrchr(buf, ')');
	if (!open_paren || !paren || paren[1] != ' ')
		return '?';
	snprintf(comm, n, "%.*s", (int)(paren - open_paren - 1), open_paren + 1);
	return paren[2];
}

/* Is pid asleep in the program at path (past exec and start-up)? */
static int settled(pid_t pid, const char *path)
{
	char comm[64];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (proc_state(pid, comm, sizeof comm) != 'S')
		return 0;
	size_t len = strlen(comm);
	return len > 0 && !strncmp(comm, base, len) && (len >= 15 || base[len] == '\0');
}

/* Wait (1 ms steps) until pid sleeps in path, or (path NULL) just sleeps;
 * dies when it exits or takes longer than WAIT_STEPS. */
static void wait_settled(pid_t pid, const char *path, const char *what)
{
	struct timespec ms = { 0, 1000000 };
	char comm[64];
	for (int i = 0; path ? !settled(pid, path) : proc_state(pid, comm, sizeof comm) != 'S'; i++) {
		if (i == WAIT_STEPS || waitpid(pid, NULL, WNOHANG) == pid)
			die(what);
		nanosleep(&ms, NULL);
	}
}

/* Start spec ("path,arg,arg") and wait until it has settled. */
static void start(const char *spec)
{
	char copy[256], *argv[MAX_ARGS + 1], *save = NULL;
	int argc = 0;
	snprintf(copy, sizeof copy, "%s", spec);
	for (char *t = strtok_r(copy, ",", &save); t && argc < MAX_ARGS; t = strtok_r(NULL, ",", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		for (int fd = 3; fd < 64; fd++)
			close(fd);
		execv(argv[0], argv);
		_exit(127);
	}
	pids[nrun++] = pid;
	wait_settled(pid, argv[0], spec);
}

/* One pipe for every program's stdin (never written) and one for their
 * stdout, filled up: a child writes one byte at a time until it blocks (no
 * O_NONBLOCK: Pagoda's libc has no F_SETFL), then is killed. */
static void make_pipes(int *in_keep, int *out_keep)
{
	int in[2], out[2];
	if (pipe(in) < 0 || pipe(out) < 0)
		die("pipe");
	pid_t filler = fork();
	if (filler < 0)
		die("fork");
	if (filler == 0)
		for (;;)
			if (write(out[1], "x", 1) != 1)
				_exit(1);
	wait_settled(filler, NULL, "filling the stdout pipe");
	kill(filler, SIGKILL);
	waitpid(filler, NULL, 0);
	in_fd = in[0];
	out_fd = out[1];
	*in_keep = in[1];
	*out_keep = out[0];
}

/* The distinct PD and PT pages of the running programs (one shared page
 * counted once), or -1 without pagoda_pttree (Linux). */
static long pd_pt_pages(void)
{
	static struct pagoda_ptnode buf[128];
	static uint64_t seen[MAX_PROGS * 128];
	long nseen = 0;
	for (int i = 0; i < nrun; i++) {
		long k = pagoda_pttree(pids[i], 0, 1ull << 47, 4, buf, 128);
		if (k < 0 || k > 128)
			return -1;
		for (long j = 0; j < k; j++) {
			long s = 0;
			if (buf[j].level != PTN_PD && buf[j].level != PTN_PT)
				continue;
			while (s < nseen && seen[s] != buf[j].pa)
				s++;
			if (s == nseen)
				seen[nseen++] = buf[j].pa;
		}
	}
	return nseen;
}

static void report(const char *tag, const char *name, int n, const char *unit, double v)
{
	printf("BENCH libshare_%s %s_%d %s median=%g min=%g max=%g runs=1\n", tag, name, n, unit,
	       v, v, v);
}

/* Read and print the counters with nrun programs running. */
static void measure(const char *tag)
{
	static char text[8192];
	char path[64], roll[2048];
	double rss = 0, pss = 0;
	if (read_file("/proc/meminfo", text, sizeof text) < 0)
		die("/proc/meminfo");
	report(tag, "pt_pages", nrun, "pages", (double)field(text, "PageTables") / 4);
	if (field(text, "SharedPT") >= 0) {
		report(tag, "pt_shared", nrun, "pages", (double)field(text, "SharedPT") / 4);
		report(tag, "kib_saved", nrun, "KiB", (double)field(text, "PTSaved"));
	}
	long pdpt = pd_pt_pages();
	if (pdpt >= 0)
		report(tag, "pdpt_pages", nrun, "pages", (double)pdpt);
	for (int i = 0; i < nrun; i++) {
		snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pids[i]);
		if (read_file(path, roll, sizeof roll) < 0)
			die(path);
		rss += (double)field(roll, "Rss");
		pss += (double)field(roll, "Pss");
	}
	if (nrun) {
		report(tag, "rss_kib", nrun, "KiB", rss);
		report(tag, "pss_kib", nrun, "KiB", pss);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int max = MAX_PROGS, first = 1, keep_in, keep_out;
	if (argc > 2 && !strcmp(argv[1], "--max")) {
		max = atoi(argv[2]);
		first = 3;
	}
	if (max < 1 || max > MAX_PROGS || argc < first + 2)
		die("usage: libshare_stat [--max N] TAG PROG[,ARG...] ...");
	const char *tag = argv[first];
	char **specs = argv + first + 1;
	int nspecs = argc - first - 1;
	make_pipes(&keep_in, &keep_out);
	measure(tag);
	for (int target = 1; target <= max; target = target * 2 > max && target < max ? max : target * 2) {
		while (nrun < target)
			start(specs[nrun % nspecs]);
		measure(tag);
	}
	for (int i = 0; i < nrun; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	return 0;
}

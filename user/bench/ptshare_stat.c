/*
 * user/bench/ptshare_stat.c -- page-table pages in use, shared and saved
 * while N copies of the shell run (seed 003: "a sharing of 1284 pte pages,
 * five megabytes saved"; and the RSS accounting question it raised).
 *
 * Starts /bin/sh (or SHELL) again and again, each copy reading commands from
 * a pipe this program holds open (so it stays alive, blocked in read), and
 * after the count of running shells reaches each N of 0 1 2 4 8 ... --max
 * (default 16; --quick: 1 2) reads the counters once:
 *   pt_pages_<N>sh   pages  user page-table pages in use, system-wide
 *                           (PageTables of /proc/meminfo)
 *   pt_shared_<N>sh  pages  of which shared by more than one address space
 *                           (SharedPT, Pagoda only)
 *   kib_saved_<N>sh  KiB    page-table memory that sharing saved (PTSaved)
 *   rss_kib_<N>sh    KiB    RSS summed over the shells (N >= 1)
 *   pss_kib_<N>sh    KiB    PSS summed over the shells (N >= 1)
 * (Rss and Pss of /proc/PID/smaps_rollup). The same files are read on Pagoda
 * and on Linux. Counts are one reading each (runs=1). A counter this system does not have is reported
 * once as BENCHSKIP (Linux has no page-table sharing). Then the shells are
 * killed and reaped.
 * Usage: ptshare_stat [--quick] [--max N] [SHELL]
 */
#include "bench_util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pagoda/procfs.h>

extern char **environ;

#define MAX_SHELLS 48       /* each holds one descriptor here (Pagoda: 64 per process) */
#define DEFAULT_MAX 16
#define QUICK_MAX 2
#define FD_CLOSE_LIMIT 256  /* children close inherited descriptors below this */

/* A shell command that a running shell answers with one line on standard
 * error and that starts no process: cd to a directory that does not exist.
 * Its answer shows that the shell has started and read its input. */
static const char handshake[] = "cd /nonexistent-ptshare-stat-dir\n";

/* The running shells: process ids and the write ends of their input pipes. */
static pid_t shell_pid[MAX_SHELLS];
static int shell_in[MAX_SHELLS];
static int nshells;

/* Start one shell reading from a new pipe; return once it has answered the
 * handshake on standard error (its output goes to /dev/null). Dies on failure. */
static void start_shell(const char *path)
{
	int in[2], err[2], fd;
	char c;
	pid_t pid;

	if (pipe(in) != 0 || pipe(err) != 0)
		bench_die("pipe");
	pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		char *argv[] = { "sh", NULL };
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(in[0], 0) < 0 || dup2(null, 1) < 0 || dup2(err[1], 2) < 0)
			_exit(127);
		for (fd = 3; fd < FD_CLOSE_LIMIT; fd++)
			close(fd);
		execve(path, argv, environ);
		_exit(127);
	}
	close(in[0]);
	close(err[1]);
	if (write(in[1], handshake, sizeof handshake - 1) != (ssize_t)(sizeof handshake - 1))
		bench_die("write to the shell");
	do {
		if (read(err[0], &c, 1) != 1) {
			fprintf(stderr, "ptshare_stat: %s (pid %d) did not start\n", path, (int)pid);
			exit(2);
		}
	} while (c != '\n');
	close(err[0]);
	shell_pid[nshells] = pid;
	shell_in[nshells++] = in[1];
}

/* Kill and reap every shell. */
static void stop_shells(void)
{
	int i, status;

	for (i = 0; i < nshells; i++) {
		close(shell_in[i]);
		kill(shell_pid[i], SIGKILL);
		if (waitpid(shell_pid[i], &status, 0) != shell_pid[i])
			bench_die("waitpid");
	}
	nshells = 0;
}

/* The system-wide counters; have_* is 0 where this system has none. */
struct pt_counters {
	int have_pt, have_share;
	double pt_pages, pt_shared, kib_saved;
};

/* The value of "name: <n> kB" in the /proc file at path, or -1 when the
 * file or the line is not there. */
static double proc_field_kib(const char *path, const char *name)
{
	char *text = procfs_read(path, NULL);
	double v = text ? (double)procfs_field(text, name) : -1;
	free(text);
	return v;
}

/* Read the page-table counters of /proc/meminfo: PageTables everywhere,
 * SharedPT and PTSaved where page tables are shared (Pagoda). */
static struct pt_counters read_counters(void)
{
	struct pt_counters c = { 0, 0, 0, 0, 0 };
	double page_kib = (double)bench_page_size() / 1024;
	char *text = procfs_read("/proc/meminfo", NULL);
	long long pt = text ? procfs_field(text, "PageTables") : -1;
	long long shared = text ? procfs_field(text, "SharedPT") : -1;
	long long saved = text ? procfs_field(text, "PTSaved") : -1;

	if (pt >= 0) {
		c.have_pt = 1;
		c.pt_pages = (double)pt / page_kib;
	}
	if (shared >= 0 && saved >= 0) {
		c.have_share = 1;
		c.pt_shared = (double)shared / page_kib;
		c.kib_saved = (double)saved;
	}
	free(text);
	return c;
}

/* RSS and PSS in KiB summed over the shells (/proc/PID/smaps_rollup); 0,
 * or -1 when this system cannot say. */
static int shells_rss_pss(double *rss_kib, double *pss_kib)
{
	char path[64];
	long i;

	*rss_kib = *pss_kib = 0;
	for (i = 0; i < nshells; i++) {
		double rss, pss;
		snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)shell_pid[i]);
		rss = proc_field_kib(path, "Rss");
		pss = proc_field_kib(path, "Pss");
		if (rss < 0 || pss < 0)
			return -1;
		*rss_kib += rss;
		*pss_kib += pss;
	}
	return 0;
}

/* Report one count as "BENCH ptshare_stat <name>_<n>sh <unit>" (runs=1). */
static void report_count(const char *name, int n, const char *unit, double v)
{
	struct bench_stat st = { v, v, v, 1 };
	char metric[32];

	snprintf(metric, sizeof metric, "%s_%dsh", name, n);
	bench_report_stat("ptshare_stat", metric, unit, st);
}

/* Report metric family `name` as not measurable here, once per family. */
static void skip_once(const char *name, const char *why)
{
	static const char *done[8];
	static int ndone;
	int i;

	for (i = 0; i < ndone; i++)
		if (!strcmp(done[i], name))
			return;
	if (ndone < (int)(sizeof done / sizeof done[0]))
		done[ndone++] = name;
	bench_skip("ptshare_stat", name, why);
}

/* Read and report every counter with the current number of shells. */
static void measure(void)
{
	struct pt_counters c = read_counters();
	double rss, pss;

	if (c.have_pt)
		report_count("pt_pages", nshells, "pages", c.pt_pages);
	else
		skip_once("pt_pages", "no page-table counter on this system");
	if (c.have_share) {
		report_count("pt_shared", nshells, "pages", c.pt_shared);
		report_count("kib_saved", nshells, "KiB", c.kib_saved);
	} else {
		skip_once("pt_shared", "no page-table sharing on this system");
		skip_once("kib_saved", "no page-table sharing on this system");
	}
	if (nshells == 0)
		return;
	if (shells_rss_pss(&rss, &pss) == 0) {
		report_count("rss_kib", nshells, "KiB", rss);
		report_count("pss_kib", nshells, "KiB", pss);
	} else {
		skip_once("rss_kib", "no per-process RSS/PSS on this system");
		skip_once("pss_kib", "no per-process RSS/PSS on this system");
	}
}

/* The shell count after `n`: twice as many, but --max itself last. */
static int next_count(int n, int max)
{
	return n < max && n * 2 > max ? max : n * 2;
}

/* Parse --max and the shell's path, then measure with 0, 1, 2, 4, ... shells. */
int main(int argc, char **argv)
{
	const char *shell = "/bin/sh";
	int i, max = DEFAULT_MAX, target;

	bench_init(&argc, argv, "ptshare_stat");
	if (bench_quick())
		max = QUICK_MAX;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			max = atoi(argv[++i]);
			if (max < 1 || max > MAX_SHELLS) {
				fprintf(stderr, "ptshare_stat: --max needs 1 to %d\n", MAX_SHELLS);
				return 2;
			}
		} else {
			shell = argv[i];
		}
	}
	if (!bench_quick())
		measure();
	for (target = 1; target <= max; target = next_count(target, max)) {
		while (nshells < target)
			start_shell(shell);
		measure();
	}
	stop_shells();
	return bench_finish();
}

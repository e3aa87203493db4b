/* user/ps.c -- list processes: pid, parent, state, memory, name.
 * `ps -T` lists every thread (a TID column; /proc/PID/task/TID/status), as
 * Linux's ps -T does.
 *
 * Reads /proc as a Linux ps does: every numeric directory, its status
 * (Name, State, PPid, VmSize, VmRSS, and Pagoda's PTPages and PTShared) and
 * its smaps_rollup (Pss, LazyFree). VSZ, RSS, PSS and LAZY are in KiB; LAZY
 * is the part of RSS given up with MADV_FREE, PT the page-table (PT) pages
 * the process points at, SHPT of which shared with other processes
 * (docs/procfs.md). RSS includes LAZY, as on Linux: those pages are still
 * mapped, but the kernel takes them back first when memory runs short (a
 * footnote says so when any process has some). A figure the kernel does not
 * give (Linux has no PTPages; a zombie has no memory) prints as "-".
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pagoda/procfs.h>

/* Print a figure in a column of width w, "-" when absent (< 0). */
static void column(long long v, int w)
{
	if (v < 0)
		printf(" %*s", w, "-");
	else
		printf(" %*lld", w, v);
}

/* One line for the process or thread whose /proc directory is name (tid:
 * print a TID column too); 0 if it is gone. */
static int show(const char *name, const char *tid, int *lazy)
{
	char path[300], pname[64] = "?", state[32] = "?";
	snprintf(path, sizeof(path), "/proc/%s/status", name);
	char *st = procfs_read(path, NULL);
	if (!st)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", name);
	char *roll = procfs_read(path, NULL);
	procfs_string(st, "Name", pname, sizeof(pname));
	procfs_string(st, "State", state, sizeof(state));
	long long lz = roll ? procfs_field(roll, "LazyFree") : -1;
	if (tid)
		printf("%5lld %5s", procfs_field(st, "Tgid"), tid);
	else
		printf("%5s", name);
	printf(" %5lld %c", procfs_field(st, "PPid"), state[0]);
	column(procfs_field(st, "VmSize"), 8);
	column(procfs_field(st, "VmRSS"), 8);
	column(roll ? procfs_field(roll, "Pss") : -1, 8);
	column(lz, 8);
	column(procfs_field(st, "PTPages"), 4);
	column(procfs_field(st, "PTShared"), 4);
	printf(" %s\n", pname);
	*lazy |= lz > 0;
	free(st);
	free(roll);
	return 1;
}

/* ps -T: a line for each thread of the process in /proc/pid. */
static void show_threads(const char *pid, int *lazy)
{
	char path[300];
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/task/%s", pid, e->d_name);
		show(path, e->d_name, lazy);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int lazy = 0, threads = argc > 1 && strcmp(argv[1], "-T") == 0;

	if (argc > 1 && !threads) {
		fprintf(stderr, "usage: ps [-T]\n");
		return 2;
	}
	if (!d) {
		perror("ps: /proc");
		return 1;
	}
	if (threads)
		printf("%5s %5s ", "PID", "TID");
	else
		printf("%5s ", "PID");
	printf("%5s %s %8s %8s %8s %8s %4s %4s %s\n", "PPID", "S",
	       "VSZ", "RSS", "PSS", "LAZY", "PT", "SHPT", "NAME");
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (threads)
			show_threads(e->d_name, &lazy);
		else
			show(e->d_name, NULL, &lazy);
	}
	closedir(d);
	if (lazy)
		printf("(RSS includes LAZY: pages freed with MADV_FREE, still mapped until "
		       "the kernel reclaims them)\n");
	return 0;
}

/* user/ps.c -- list processes: pid, parent, state, memory, name.
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

/* One line for the process whose /proc directory is name; 0 if it is gone. */
static int show(const char *name, int *lazy)
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
	printf("%5s %5lld %c", name, procfs_field(st, "PPid"), state[0]);
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

int main(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int lazy = 0;

	if (!d) {
		perror("ps: /proc");
		return 1;
	}
	printf("%5s %5s %s %8s %8s %8s %8s %4s %4s %s\n", "PID", "PPID", "S",
	       "VSZ", "RSS", "PSS", "LAZY", "PT", "SHPT", "NAME");
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			show(e->d_name, &lazy);
	closedir(d);
	if (lazy)
		printf("(RSS includes LAZY: pages freed with MADV_FREE, still mapped until "
		       "the kernel reclaims them)\n");
	return 0;
}

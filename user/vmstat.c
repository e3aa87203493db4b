/* user/vmstat.c -- what paging does, once a second (as vmstat(8) does):
 *
 *   vmstat [DELAY [COUNT]]     (default: every second, until killed)
 *
 * A header, then one line per DELAY seconds (the first one's rates are
 * totals since boot):
 *
 *      free    cache     swpd  si/s  so/s majflt/s  scan/s steal/s fscan/s fsteal/s refault/s  ra/s
 *
 * free, cache and swpd in KiB (MemFree, Cached, SwapTotal - SwapFree);
 * si and so pages read from and written to swap per second (pswpin,
 * pswpout), majflt major faults, scan and steal the anonymous pages the
 * reclaimer looked at and freed (pgscan_anon, pgsteal_anon), fscan and
 * fsteal the page-cache pages (pgscan_file, pgsteal_file), refault the
 * pages that came back soon after they were evicted, anonymous and file
 * (workingset_refault_anon + _file), ra the pages read ahead from swap
 * (a counter Linux lacks shows 0). Reads /proc/meminfo and /proc/vmstat
 * only, Linux's too. Exit status 2 on a bad argument, 1 when /proc cannot
 * be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pagoda/procfs.h>

enum { FREE, CACHE, SWPD, SI, SO, MAJFLT, SCAN, STEAL, FSCAN, FSTEAL, REFAULT, RA, NCOLS };
static const char *const vm_names[NCOLS] = {
	[SI] = "pswpin", [SO] = "pswpout", [MAJFLT] = "pgmajfault", [SCAN] = "pgscan_anon",
	[STEAL] = "pgsteal_anon", [FSCAN] = "pgscan_file", [FSTEAL] = "pgsteal_file",
	[REFAULT] = "workingset_refault_anon", [RA] = "swap_ra",
};

/* Counter c of vmstat text vm (0 when absent). */
static long long counter(const char *vm, const char *name)
{
	long long n = procfs_counter(vm, name);
	return n < 0 ? 0 : n;
}

/* Every column's value now: 0 on success. */
static int sample(long long *v)
{
	char *mem = procfs_read("/proc/meminfo", NULL), *vm = procfs_read("/proc/vmstat", NULL);
	if (!mem || !vm) {
		free(mem);
		free(vm);
		return -1;
	}
	v[FREE] = procfs_field(mem, "MemFree");
	v[CACHE] = procfs_field(mem, "Cached");
	v[SWPD] = procfs_field(mem, "SwapTotal") - procfs_field(mem, "SwapFree");
	for (int c = SI; c < NCOLS; c++)
		v[c] = counter(vm, vm_names[c]);
	v[REFAULT] += counter(vm, "workingset_refault_file");
	free(mem);
	free(vm);
	return 0;
}

static void line(const long long *now, const long long *before, long long secs)
{
	static const int width[NCOLS] = { [SI] = 5, 5, 8, 7, 7, 7, 8, 9, 5 };
	printf("%9lld %8lld %8lld", now[FREE], now[CACHE], now[SWPD]);
	for (int c = SI; c < NCOLS; c++)
		printf(" %*lld", width[c], (now[c] - before[c]) / (secs > 0 ? secs : 1));
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char *end;
	long delay = argc > 1 ? strtol(argv[1], &end, 10) : 1, count = -1;
	if (argc > 3 || (argc > 1 && (*end || delay < 1)) ||
	    (argc > 2 && ((count = strtol(argv[2], &end, 10)) < 1 || *end))) {
		fprintf(stderr, "usage: vmstat [DELAY [COUNT]]\n");
		return 2;
	}
	long long before[NCOLS] = { 0 }, now[NCOLS];
	printf("     free    cache     swpd  si/s  so/s majflt/s  scan/s steal/s fscan/s fsteal/s "
	       "refault/s  ra/s\n");
	for (long i = 0; count < 0 || i < count; i++) {
		if (i > 0)
			sleep((unsigned)delay);
		if (sample(now) != 0) {
			perror("vmstat: /proc");
			return 1;
		}
		line(now, before, i == 0 ? 1 : delay);
		for (int c = 0; c < NCOLS; c++)
			before[c] = now[c];
	}
	return 0;
}

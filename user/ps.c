/* user/ps.c -- list processes: pid, parent, state, memory, name.
 *
 * Reads the process table one entry at a time with pagoda_procinfo (system
 * call 1002; see libc/include/pagoda/procinfo.h for what the columns mean:
 * VSZ, RSS and PSS in KiB, PT = page-table pages, SHPT = of which shared).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <pagoda/pagoda.h>

int main(void)
{
	struct pagoda_procinfo p;

	for (long i = 0; pagoda_procinfo(i, &p) == 0; i++) {
		if (i == 0)
			printf("%5s %5s %s %8s %8s %8s %4s %4s %s\n", "PID", "PPID", "S", "VSZ",
			       "RSS", "PSS", "PT", "SHPT", "NAME");
		printf("%5d %5d %c %8llu %8llu %8llu %4llu %4llu %s\n", (int)p.pid, (int)p.ppid,
		       (char)p.state, (unsigned long long)p.vm_pages * 4,
		       (unsigned long long)p.rss_pages * 4, (unsigned long long)p.pss_pages * 4,
		       (unsigned long long)p.pt_pages, (unsigned long long)p.shared_pt_pages,
		       p.name);
	}
	if (errno != ESRCH) {
		fprintf(stderr, "ps: pagoda_procinfo: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* user/ps.c -- list processes: pid, parent, state, memory, name.
 *
 * Reads the process table one entry at a time with pagoda_procinfo (system
 * call 1002; see libc/include/pagoda/procinfo.h for what the columns mean:
 * VSZ, RSS and PSS in KiB, LAZY = the part of RSS given up with MADV_FREE,
 * PT = page-table pages, SHPT = of which shared). RSS includes LAZY, as on
 * Linux: those pages are still mapped, but the kernel takes them back first
 * when memory runs short (a footnote says so when any process has some).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <pagoda/pagoda.h>

int main(void)
{
	struct pagoda_procinfo p;
	int lazy = 0;

	for (long i = 0; pagoda_procinfo(i, &p) == 0; i++) {
		if (i == 0)
			printf("%5s %5s %s %8s %8s %8s %8s %4s %4s %s\n", "PID", "PPID", "S",
			       "VSZ", "RSS", "PSS", "LAZY", "PT", "SHPT", "NAME");
		printf("%5d %5d %c %8llu %8llu %8llu %8llu %4llu %4llu %s\n", (int)p.pid,
		       (int)p.ppid, (char)p.state, (unsigned long long)p.vm_pages * 4,
		       (unsigned long long)p.rss_pages * 4, (unsigned long long)p.pss_pages * 4,
		       (unsigned long long)p.lazyfree_pages * 4,
		       (unsigned long long)p.pt_pages, (unsigned long long)p.shared_pt_pages,
		       p.name);
		lazy |= p.lazyfree_pages != 0;
	}
	if (errno != ESRCH) {
		fprintf(stderr, "ps: pagoda_procinfo: %s\n", strerror(errno));
		return 1;
	}
	if (lazy)
		printf("(RSS includes LAZY: pages freed with MADV_FREE, still mapped until "
		       "the kernel reclaims them)\n");
	return 0;
}

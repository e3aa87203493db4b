/* user/meminfo.c -- the kernel's memory figures: /proc/meminfo as it is,
 * then the counters of /proc/vmstat that say what the VM did (faults,
 * page-table sharing, lazy freeing, reclaim, TLB flushes). Linux has no
 * counters named pt_* or pgfault_*: on Linux those lines are left out.
 * docs/procfs.md explains every line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pagoda/procfs.h>

static const char *const counters[] = {
	"pgfault", "pgfault_cow", "pgreuse", "pt_fork_shared", "pt_unshare_copy",
	"pt_text_attached", "pglazyfree", "pglazyfreed", "pgscan_direct",
	"nr_tlb_local_flush_one", "nr_tlb_local_flush_all", "oom_kill",
};

int main(void)
{
	char *mem = procfs_read("/proc/meminfo", NULL);
	char *vm = procfs_read("/proc/vmstat", NULL);
	if (!mem || !vm) {
		perror("meminfo: /proc");
		return 1;
	}
	fputs(mem, stdout);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		long long v = procfs_counter(vm, counters[i]);
		if (v >= 0)
			printf("%-23s %10lld\n", counters[i], v);
	}
	long long mode = procfs_counter(vm, "ptshare_mode");
	if (mode >= 0)
		printf("%-23s %10s\n", "ptshare", mode == 0 ? "off" : mode == 1 ? "fork" : mode == 2 ? "all" : "pd");
	free(mem);
	free(vm);
	return 0;
}

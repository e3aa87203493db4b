/* user/meminfo.c -- print the kernel's memory counters (pagoda_meminfo,
 * system call 1001; fields explained in libc/include/pagoda/meminfo.h),
 * sizes in KiB like Linux's /proc/meminfo. PageTables counts every user
 * page-table page once; SharedPT those with more than one sharer; PTSaved
 * the page-table memory sharing saved (what copying them would have cost).
 * LazyFree is memory that processes gave up with MADV_FREE: still mapped
 * (part of AnonPages and of their RSS) but taken back first under
 * pressure, so MemAvailable counts it as available. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <pagoda/pagoda.h>

/* kib, count: one "Name: value" line. */
static void kib(const char *name, uint64_t pages)
{
	printf("%-16s %10llu kB\n", name, (unsigned long long)pages * 4);
}

/* count: one "name value" counter line. */
static void count(const char *name, uint64_t n)
{
	printf("%-16s %10llu\n", name, (unsigned long long)n);
}

int main(void)
{
	struct pagoda_meminfo m;

	if (pagoda_meminfo(&m) < 0) {
		fprintf(stderr, "meminfo: pagoda_meminfo: %s\n", strerror(errno));
		return 1;
	}
	kib("MemTotal:", m.total_pages);
	kib("MemFree:", m.free_pages);
	kib("MemAvailable:", m.free_pages + m.lazyfree_pages);
	kib("Kernel:", m.kernel_pages);
	kib("AnonPages:", m.anon_pages);
	kib("FilePages:", m.file_pages);
	kib("PageTables:", m.pagetable_pages);
	kib("SharedPT:", m.shared_pt_pages);
	kib("PTSaved:", m.pt_saved_pages);
	kib("LazyFree:", m.lazyfree_pages);
	if (m.user_frames != ~0ull) {	/* ~0: the kernel had no room to count */
		kib("UserFrames:", m.user_frames);
		kib("PssTotal:", (m.pss_total_frac + (1ull << (PAGODA_PSS_SHIFT - 1))) >>
				 PAGODA_PSS_SHIFT);
	}
	count("pgfault", m.page_faults);
	count("cowfault", m.cow_faults);
	count("pt_unshare", m.pt_unshares);
	count("fork_shared_pt", m.fork_shared_pt);
	count("text_shared_pt", m.text_shared_pt);
	printf("%-16s %10s\n", "ptshare", m.ptshare_mode == 0 ? "off" :
	       m.ptshare_mode == 1 ? "fork" : "all");
	count("pglazyfree", m.pglazyfree);
	count("pglazyfreed", m.pglazyfreed);
	count("reclaim_scan", m.reclaim_scans);
	count("tlb_flush", m.tlb_flushes);
	count("oom_kill", m.oom_kills);
	return 0;
}

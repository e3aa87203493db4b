/* kernel/procfs_sys.c -- /proc's system-wide files in Linux's formats:
 * meminfo, vmstat, uptime, loadavg, cmdline; and Pagoda's phasetime.
 *
 * meminfo and vmstat print Linux's lines that Pagoda has a figure for, in
 * Linux's order, then Pagoda's own (docs/procfs.md says what each means).
 */
#include "mm/frame/swap.h"
#include "mm/swap.h"
#include "mm/frame/lru.h"
#include "lib/cmdline.h"
#include "lib/errno.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/spinlock.h"
#include "arch/x86_64/timer.h"
#include "kernel/time.h"
#include "kernel/proc.h"
#include "kernel/procfs.h"
#include "drivers/block/blkdev.h"
#include "fs/vfs.h"
#include "fs/textbuf.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/percpu.h"
#include "mm/fault.h"
#include "mm/pt/share.h"
#include "mm/lazyfree.h"
#include "mm/memstat.h"
#include "mm/frame/phasetime.h"
#include "mm/ptshare.h"
#include "mm/reclaim.h"
#include "mm/pagecache.h"
#include "mm/pagecache_lru.h"
#include "mm/frame/page.h"
#include "mm/pt/tlb.h"
#include "arch/x86_64/shootdown.h"
#include "arch/x86_64/memlayout.h"
#include "arch/x86_64/timer.h"

/* "Name:" left-aligned in 16 columns, the value in 8, then " kB". */
static void meminfo_line(struct textbuf *tb, const char *name, uint64_t pages)
{
	char label[20];
	ksnprintf(label, sizeof(label), "%s:", name);
	tb_printf(tb, "%-16s%8lu kB\n", label, pages * (PAGE_SIZE / 1024));
}

void procfs_show_meminfo(struct textbuf *tb)
{
	struct mm_meminfo m;
	mm_meminfo(&m);
	meminfo_line(tb, "MemTotal", m.total);
	meminfo_line(tb, "MemFree", m.free);
	/* reclaim can take lazy-free pages and clean cache pages (not tmpfs's) */
	meminfo_line(tb, "MemAvailable", m.free + m.lazyfree + m.cached - m.dirty - m.shmem);
	meminfo_line(tb, "Buffers", m.buffers);                 /* the disks' caches */
	meminfo_line(tb, "Cached", m.file - m.buffers);         /* files' caches, tmpfs */
	uint64_t swap_total, swap_free, swap_cached;
	swap_totals(&swap_total, &swap_free, &swap_cached);
	meminfo_line(tb, "SwapCached", swap_cached);
	meminfo_line(tb, "SwapTotal", swap_total);
	meminfo_line(tb, "SwapFree", swap_free);
	meminfo_line(tb, "Dirty", m.dirty);
	meminfo_line(tb, "Writeback", m.writeback);
	meminfo_line(tb, "AnonPages", m.anon);
	meminfo_line(tb, "Mapped", m.file_mapped);
	meminfo_line(tb, "Shmem", m.shmem);
	meminfo_line(tb, "PageTables", m.pagetable);
	/* Pagoda's own */
	meminfo_line(tb, "Kernel", m.kernel);
	meminfo_line(tb, "LazyFree", m.lazyfree);
	meminfo_line(tb, "SharedPT", m.shared_pt);
	meminfo_line(tb, "SharedPD", m.shared_pd);
	meminfo_line(tb, "PTSaved", m.pt_saved);
	meminfo_line(tb, "ShmemSwapped", atomic_load(&pagecache_stats.shmem_swapped));
	uint64_t pss_frac, frames;
	proc_pss_census(&pss_frac, &frames);
	if (frames != ~0ULL) {   /* ~0: no memory to count */
		meminfo_line(tb, "UserFrames", frames);
		meminfo_line(tb, "PssTotal", (pss_frac + (1ULL << (PSS_SHIFT - 1))) >> PSS_SHIFT);
	}
}

static void vmstat_line(struct textbuf *tb, const char *name, uint64_t v)
{
	tb_printf(tb, "%s %lu\n", name, v);
}

void procfs_show_diskstats(struct textbuf *tb)
{
	struct blkdev *d;
	for (int i = 0; (d = blkdev_get(i)); i++) {
		uint32_t devt = blkdev_devt(i);
		uint64_t ms[3] = { d->busy_ns[0] / 1000000, d->busy_ns[1] / 1000000,
				   d->busy_ns[2] / 1000000 };
		/* major minor name, then reads: done merged sectors ms, writes:
		 * the same, in flight, io ms, weighted ms, discards: four, flushes: two */
		tb_printf(tb, "%4u %7u %s %lu %lu %lu %lu %lu %lu %lu %lu 0 %lu %lu 0 0 0 0 %lu %lu\n",
			  MAJOR(devt), MINOR(devt), d->name, d->reads, d->merged[0], d->sectors_moved[0],
			  ms[0], d->writes, d->merged[1], d->sectors_moved[1], ms[1], ms[0] + ms[1],
			  ms[0] + ms[1], d->flushes, ms[2]);
	}
}

void procfs_show_zoneinfo(struct textbuf *tb)
{
	tb_printf(tb, "Node 0, zone   Normal\n");
	tb_printf(tb, "  pages free     %lu\n", atomic_load(&mm_stats.free));
	tb_printf(tb, "        min      %lu\n", reclaim_min);
	tb_printf(tb, "        low      %lu\n", reclaim_low);
	tb_printf(tb, "        high     %lu\n", reclaim_high);
	tb_printf(tb, "        managed  %lu\n", mm_stats.managed);
}

void procfs_show_phasetime(struct textbuf *tb)
{
	tb_printf(tb, "enabled %d\ntsc_khz %lu\n", phasetime_on ? 1 : 0, tsc_khz());
	for (unsigned p = 0; p < PH_COUNT; p++)
		tb_printf(tb, "%s %lu %lu\n", phase_name(p), phase_stats[p].count,
			  phase_stats[p].cycles);
}

/* KiB read (op 0) or written (op 1) by every disk since boot: vmstat's
 * pgpgin and pgpgout (Linux counts them in KiB too, whatever the name). */
static uint64_t disk_kib(int op)
{
	uint64_t sectors = 0;
	struct blkdev *d;
	for (int i = 0; (d = blkdev_get(i)); i++)
		sectors += atomic_load(&d->sectors_moved[op]);
	return sectors / 2;
}

void procfs_show_vmstat(struct textbuf *tb)
{
	struct mm_meminfo m;
	mm_meminfo(&m);
	const struct fault_stats fs = fault_stats_sum(), *f = &fs;
	vmstat_line(tb, "nr_free_pages", m.free);
	vmstat_line(tb, "nr_inactive_anon", lru_pages(LRU_COLD) + lru_pages(LRU_SHMEM_COLD));
	vmstat_line(tb, "nr_active_anon", lru_pages(LRU_HOT) + lru_pages(LRU_SHMEM_HOT));
	vmstat_line(tb, "nr_inactive_file", lru_pages(LRU_FILE_COLD));
	vmstat_line(tb, "nr_active_file", lru_pages(LRU_FILE_HOT));
	vmstat_line(tb, "workingset_refault_anon",
		    swap_out_stats.refaults + pagecache_lru_stats.shmem_refaults);
	vmstat_line(tb, "workingset_refault_file", pagecache_lru_stats.refaults);
	vmstat_line(tb, "workingset_activate_anon",
		    swap_out_stats.refaults_in_test + pagecache_lru_stats.shmem_refaults_activated);
	vmstat_line(tb, "workingset_activate_file", pagecache_lru_stats.refaults_activated);
	vmstat_line(tb, "nr_anon_pages", m.anon);
	vmstat_line(tb, "nr_mapped", m.file_mapped);
	vmstat_line(tb, "nr_file_pages", m.file);
	vmstat_line(tb, "nr_page_table_pages", m.pagetable);
	vmstat_line(tb, "pgpgin", disk_kib(0));
	vmstat_line(tb, "pgpgout", disk_kib(1));
	vmstat_line(tb, "pswpin", swap_stats.pswpin);
	vmstat_line(tb, "pswpout", swap_stats.pswpout);
	vmstat_line(tb, "pgactivate", swap_out_stats.activated + pagecache_lru_stats.activated);
	vmstat_line(tb, "pgdeactivate", swap_out_stats.deactivated + pagecache_lru_stats.deactivated);
	vmstat_line(tb, "pglazyfree", lazyfree_stats.marked);
	vmstat_line(tb, "pgfault", fault_stats_total());
	vmstat_line(tb, "pgmajfault", fault_stats_sum().major);
	vmstat_line(tb, "pglazyfreed", lazyfree_stats.discarded);
	vmstat_line(tb, "pgreuse", f->cow_reuse);
	vmstat_line(tb, "pgsteal_kswapd", reclaim_stats.background_discarded);
	vmstat_line(tb, "pgsteal_direct", reclaim_stats.direct_freed);
	vmstat_line(tb, "pgscan_direct", lazyfree_stats.scanned);
	vmstat_line(tb, "pgscan_anon", swap_out_stats.scanned + pagecache_lru_stats.shmem_scanned);
	vmstat_line(tb, "pgscan_file", pagecache_lru_stats.scanned);
	vmstat_line(tb, "pgsteal_anon", swap_out_stats.stolen + pagecache_lru_stats.shmem_stolen);
	vmstat_line(tb, "pgsteal_file", pagecache_lru_stats.stolen);

	vmstat_line(tb, "slabs_scanned", reclaim_stats.shrink_scanned);
	vmstat_line(tb, "pageoutrun", reclaim_stats.background_runs);
	vmstat_line(tb, "oom_kill", f->oom_kills);
	vmstat_line(tb, "swap_ra", swap_stats.ra_pages);
	vmstat_line(tb, "swap_ra_hit", swap_stats.ra_hits);
	vmstat_line(tb, "nr_tlb_local_flush_all", tlb_stats.flush_full);
	vmstat_line(tb, "nr_tlb_local_flush_one", tlb_stats.flush_one);
	struct shootdown_stats sd;
	shootdown_get_stats(&sd);
	vmstat_line(tb, "nr_tlb_remote_flush", sd.rounds);
	vmstat_line(tb, "nr_tlb_remote_flush_received", sd.cpus);
	/* Pagoda's own */
	vmstat_line(tb, "tlb_shootdown_pages", sd.pages);
	vmstat_line(tb, "tlb_shootdown_full", sd.full);
	vmstat_line(tb, "tlb_shootdown_avoided", sd.avoided);
	vmstat_line(tb, "pgfault_zero", f->zero);
	vmstat_line(tb, "pgfault_zero_page", f->zero_page);
	vmstat_line(tb, "pgfault_file", f->file);
	vmstat_line(tb, "pgfault_around", f->around);
	vmstat_line(tb, "pgfault_cow", f->cow);
	vmstat_line(tb, "pgfault_mkwrite", f->mkwrite);
	vmstat_line(tb, "pglazyfree_reused", lazyfree_stats.reused);
	vmstat_line(tb, "reclaim_runs", reclaim_stats.runs);
	vmstat_line(tb, "pt_fork_shared", ptshare_stats.fork_shared);
	vmstat_line(tb, "pt_fork_copied", ptshare_stats.fork_copied);
	vmstat_line(tb, "pt_unshare_copy", ptshare_stats.unshare_copy);
	vmstat_line(tb, "pt_unshare_last", ptshare_stats.unshare_last);
	vmstat_line(tb, "pt_fork_shared_pd", ptshare_stats.fork_shared_pd);
	vmstat_line(tb, "pd_unshare_copy", ptshare_stats.pd_unshare_copy);
	vmstat_line(tb, "pd_unshare_last", ptshare_stats.pd_unshare_last);
	vmstat_line(tb, "pt_text_created", ptshare_stats.text_created);
	vmstat_line(tb, "pt_text_attached", ptshare_stats.text_attached);
	vmstat_line(tb, "ptshare_mode", (uint64_t)ptshare_mode);
}

/* Seconds with two decimals from timer ticks. */
static void tb_seconds(struct textbuf *tb, uint64_t ticks, const char *after)
{
	tb_printf(tb, "%lu.%02lu%s", ticks / HZ, (ticks % HZ) * 100 / HZ, after);
}

void procfs_show_uptime(struct textbuf *tb)
{
	struct cpu_times t;
	sched_cpu_times(&t);
	/* since boot by the TSC, as Linux's boottime clock: ticks get lost
	 * when the host is busy, and btime + uptime must be now */
	tb_seconds(tb, clock_ns() / (NSEC_PER_SEC / HZ), " ");
	tb_seconds(tb, t.idle, "\n");
}

void procfs_show_loadavg(struct textbuf *tb)
{
	unsigned long avg[3];
	int running, total;
	sched_loadavg(avg);
	proc_count(&running, &total);
	for (int i = 0; i < 3; i++)
		tb_printf(tb, "%lu.%02lu ", avg[i] / 100, avg[i] % 100);
	tb_printf(tb, "%d/%d %d\n", running, total, proc_last_pid());
}

void procfs_show_sysstat(struct textbuf *tb)
{
	struct cpu_times t;
	int running, total;
	sched_cpu_times(&t);
	proc_count(&running, &total);
	/* user nice system idle iowait irq softirq steal guest guest_nice,
	 * in ticks of HZ (= Linux's USER_HZ, 100) */
	tb_printf(tb, "cpu  %lu 0 %lu %lu 0 0 0 0 0 0\n", t.user, t.system, t.idle);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!(smp_online_mask() & cpumask_of(cpu)))
			continue;
		struct cpu_times c;
		sched_cpu_times_of(cpu, &c);
		tb_printf(tb, "cpu%d %lu 0 %lu %lu 0 0 0 0 0 0\n", cpu, c.user, c.system, c.idle);
	}
	tb_printf(tb, "intr %lu\nctxt %lu\nbtime %lu\nprocesses %d\n", timer_ticks(),
		  t.switches, (uint64_t)(boot_epoch_ns() / NSEC_PER_SEC), proc_last_pid());
	tb_printf(tb, "procs_running %d\nprocs_blocked 0\n", running);
}

void procfs_show_kcmdline(struct textbuf *tb)
{
	tb_printf(tb, "%s\n", cmdline_raw());
}

/* ---- /proc/lockstat ---- */

void procfs_show_lockstat(struct textbuf *tb)
{
	tb_printf(tb, "%-12s %4s %12s %10s %9s %12s %10s\n", "class", "rank", "acquired",
		  "contended", "cont/1e4", "wait-us", "max-us");
	for (int r = 0; r < LOCK_RANK_COUNT; r++) {
		const struct lock_class_stat *s = &lock_stats[r];
		uint64_t acquired = lock_acquired(r);
		if (!acquired)
			continue;
		tb_printf(tb, "%-12s %4d %12lu %10lu %9lu %12lu %10lu\n", s->name, r, acquired,
			  s->contended, s->contended * 10000 / acquired,
			  tsc_to_ns(s->wait_cycles) / 1000, tsc_to_ns(s->wait_max) / 1000);
	}
}

void procfs_show_dentry_state(struct textbuf *tb)
{
	/* nr_dentry nr_unused age_limit want_pages nr_negative dummy: no
	 * negative dentry is ever cached here (fs/dcache.c forget_now) */
	tb_printf(tb, "%lu\t%lu\t45\t0\t0\t0\n", atomic_load(&dcache_stats.dentries),
		  atomic_load(&dcache_stats.unused));
}

void procfs_show_inode_nr(struct textbuf *tb)
{
	tb_printf(tb, "%lu\t%lu\n", atomic_load(&inode_stats.inodes),
		  atomic_load(&inode_stats.idle));
}

/* The integer text[0..n) spells (blanks around it allowed), or -1. */
static long parse_small(const char *text, size_t n)
{
	long v = -1;
	size_t i = 0;
	while (i < n && (text[i] == ' ' || text[i] == '\t'))
		i++;
	for (; i < n && text[i] >= '0' && text[i] <= '9' && v < 1000000; i++)
		v = (v < 0 ? 0 : v * 10) + (text[i] - '0');
	while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
		i++;
	return i == n ? v : -1;
}

void procfs_show_swappiness(struct textbuf *tb)
{
	tb_printf(tb, "%u\n", atomic_load(&reclaim_swappiness));
}

int procfs_store_swappiness(const char *text, size_t n)
{
	long v = parse_small(text, n);
	if (v < 0 || v > 200)
		return -EINVAL;
	atomic_store(&reclaim_swappiness, (unsigned)v);
	return 0;
}

int procfs_store_drop_caches(const char *text, size_t n)
{
	long v = parse_small(text, n);
	if (v < 1 || v > 4)
		return -EINVAL;
	if (v & 1)
		(void)pagecache_drop_clean();   /* clean pages nobody else holds */
	if (v & 2)
		while (dcache_shrink(~0ull) + inode_shrink(~0ull))
			;   /* dentries freed leave inodes idle, inodes freed free pages */
	return 0;
}

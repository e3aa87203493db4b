/* kernel/procfs.h -- what the files of /proc print (the tree itself is in
 * kernel/procfs.c; fs.h's procfs_init mounts it).
 *
 * Every show function appends a file's whole text to tb in Linux's format
 * (field names, order, units and column widths as Linux 6.1 prints them),
 * Pagoda's own figures as extra lines where Linux has none
 * (docs/procfs.md). The figures come from mm (mm/memstat.h) and the
 * kernel's counters; nothing here counts pages itself.
 */
#ifndef KERNEL_PROCFS_H
#define KERNEL_PROCFS_H

#include "lib/types.h"

struct proc;
struct textbuf;

/* /proc/PID/...: p is live (not UNUSED or EMBRYO) and proc_lock is held. */
void procfs_show_status(struct proc *p, struct textbuf *tb);
void procfs_show_stat(struct proc *p, struct textbuf *tb);
void procfs_show_statm(struct proc *p, struct textbuf *tb);
void procfs_show_cmdline(struct proc *p, struct textbuf *tb);
/* wchan: the function p sleeps in (lib/wait.h's SLEEP_TEXT skipped), or "0". */
void procfs_show_wchan(struct proc *p, struct textbuf *tb);
void procfs_show_maps(struct proc *p, struct textbuf *tb);
void procfs_show_smaps(struct proc *p, struct textbuf *tb);
void procfs_show_smaps_rollup(struct proc *p, struct textbuf *tb);

/* System-wide files. */
void procfs_show_meminfo(struct textbuf *tb);
/* /proc/swaps (kernel/swapfile.c). */
void procfs_show_swaps(struct textbuf *tb);
void procfs_show_vmstat(struct textbuf *tb);
/* Linux's /proc/zoneinfo for Pagoda's one zone: free pages and the
 * reclaim watermarks (mm/reclaim.h), the fields Linux has for them. */
void procfs_show_zoneinfo(struct textbuf *tb);
/* Linux's /proc/diskstats: per disk, requests completed, pieces merged,
 * sectors moved and milliseconds spent, by reads, writes (discards: 0)
 * and flushes (drivers/block/blkdev.h's counters). */
void procfs_show_diskstats(struct textbuf *tb);

/* /proc/lockstat: per lock class (rank), acquisitions, contended ones and
 * the time spent waiting (lib/spinlock.h lock_stats), since boot. */
void procfs_show_lockstat(struct textbuf *tb);
/* /proc/phasetime: "enabled 0|1", "tsc_khz N", then one line per phase of
 * mm/frame/phasetime.h: "NAME COUNT CYCLES" (totals since boot). */
void procfs_show_phasetime(struct textbuf *tb);
void procfs_show_uptime(struct textbuf *tb);
void procfs_show_loadavg(struct textbuf *tb);
void procfs_show_kcmdline(struct textbuf *tb);   /* /proc/cmdline: the kernel's */
void procfs_show_sysstat(struct textbuf *tb);    /* /proc/stat: CPU time */

/* /proc/sys/fs/dentry-state and inode-nr: the VFS's caches, in Linux's
 * formats (fs/vfs.h dcache_stats, inode_stats). */
void procfs_show_dentry_state(struct textbuf *tb);
void procfs_show_inode_nr(struct textbuf *tb);
/* /proc/sys/vm/drop_caches: text "1" frees clean page-cache pages nobody
 * maps, "2" unused dentries and idle clean inodes, "3" both ("4": nothing,
 * Linux's switch for its log line): 0, or -EINVAL for anything else. */
int procfs_store_drop_caches(const char *text, size_t n);
/* /proc/sys/vm/swappiness: reclaim_swappiness (mm/reclaim.h) as text; a
 * store takes 0..200 (Linux's range): 0, or -EINVAL. */
void procfs_show_swappiness(struct textbuf *tb);
int procfs_store_swappiness(const char *text, size_t n);

#endif

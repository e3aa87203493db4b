/* pagoda/procfs.h -- reading /proc files (Linux's formats, so the same
 * code reads Pagoda's /proc and Linux's: docs/procfs.md).
 *
 *   char *t = procfs_read("/proc/self/status", NULL);
 *   long long rss_kb = procfs_field(t, "VmRSS");     // "VmRSS:  72 kB" -> 72
 *   free(t);
 */
#ifndef PAGODA_PROCFS_H
#define PAGODA_PROCFS_H

#include <stddef.h>

/* The whole file at path, NUL-terminated, in a buffer the caller frees;
 * its length (without the NUL) in *len when len is not NULL. NULL with
 * errno set when it cannot be opened or read. */
char *procfs_read(const char *path, size_t *len);

/* The number after "name:" at the start of a line of text (status,
 * meminfo, smaps: "Rss:   8 kB" gives 8), or -1 when no line has it. */
long long procfs_field(const char *text, const char *name);

/* The number after "name " at the start of a line (vmstat: "pgfault 12"
 * gives 12), or -1 when no line has it. */
long long procfs_counter(const char *text, const char *name);

/* Counter name of /proc/vmstat (procfs_counter of the file), or -1. */
long long procfs_vmstat(const char *name);

/* Field n (from 1, as proc(5) numbers them) of /proc/self/stat as a
 * number: 3 on (after the command's parentheses), or -1 (10: minflt,
 * 12: majflt). Allocates nothing, so reading it adds no page faults. */
long long procfs_self_stat(int n);

/* The string after "name:" and its tab (status's "Name:\tsh"), copied into
 * buf of n bytes up to the end of the line; buf, or NULL when absent. */
char *procfs_string(const char *text, const char *name, char *buf, size_t n);

/* The numbers of disk name's line of /proc/diskstats (Linux's 17 fields
 * after "major minor name": reads done, merged, sectors, ms; writes the
 * same; in flight, io ms, weighted ms; discards four; flushes done, ms)
 * into f[0..16]: 1 if found, 0 if not (or unreadable). */
int procfs_diskstats(const char *name, unsigned long long f[17]);

/* Print a line per thread of every process but the caller's, to stdout:
 * "<prefix> pid P tid T parent PP (name) S (sleeping), wchan F" -- where
 * each one sleeps (/proc/PID/task/TID/wchan), for a report of a hang or of
 * memory still held after a test. */
void procfs_print_tasks(const char *prefix);

#endif

/* pagoda/pagoda.h -- C wrappers for Pagoda's own system calls.
 *
 * Each returns 0 on success and -1 with errno set on failure (ENOSYS when
 * the kernel is not Pagoda). The wrappers are in libc/pagoda.c, which is
 * built for newlib and for musl programs alike.
 */
#ifndef PAGODA_PAGODA_H
#define PAGODA_PAGODA_H

#include <pagoda/syscall.h>
#include <pagoda/vmquery.h>
#include <pagoda/meminfo.h>
#include <pagoda/procinfo.h>
#include <pagoda/forkbench.h>
#include <pagoda/pttree.h>
#include <pagoda/filecache.h>

int pagoda_vmquery(const void *addr, struct pagoda_vmquery *q);
int pagoda_meminfo(struct pagoda_meminfo *m);
int pagoda_procinfo(long index, struct pagoda_procinfo *p);

/* The page-table pages of process pid (contract in pagoda/pttree.h):
 * returns how many there are (filling at most max), or -1 with errno. */
long pagoda_pttree(int pid, uint64_t lo, uint64_t hi, int depth, struct pagoda_ptnode *buf,
		   long max);

/* The page cache of the file fd is open on (contract in
 * pagoda/filecache.h): how many nodes and pages (filling at most max), or
 * -1 with errno. */
long pagoda_filecache(int fd, struct pagoda_cachenode *buf, long max);

/* The in-kernel fork benchmark (contract in pagoda/forkbench.h). */
int pagoda_forkbench(const struct pagoda_forkbench_req *req, struct pagoda_forkbench_result *res);

/* Run the kernel's VM invariant checker over every address space (share
 * counts, present counts, frame reference counts, no writable PD entry to a
 * shared PT page). Returns 0 when every invariant holds; a violation is a
 * kernel bug and panics the kernel with a message naming the object. */
int pagoda_vmcheck(void);

#endif

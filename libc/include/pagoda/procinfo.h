/* pagoda/procinfo.h -- one process-table entry, for ps.
 *
 * long pagoda_procinfo(long index, struct pagoda_procinfo *p)
 *   System call 1002 (SYS_pagoda_procinfo). Describes the index-th live
 *   process (0, 1, 2, ... in process-table order; indexes are not pids).
 *   Returns 0 and fills *p; -1 with errno ESRCH when index is past the last
 *   process (that ends a listing), EFAULT for a bad p, EINVAL for a negative
 *   index, ENOSYS on kernels without it (Linux).
 *
 *   Memory sizes are in 4 KiB pages. rss_pages counts the present leaf
 *   entries of the page-table pages the process points at, less those
 *   mapping the shared zero page (a page shared with another process
 *   through COW or a shared PT page counts in both); pss_pages gives each
 *   mapped frame 1/N to each of the N address spaces mapping it (rounded
 *   to pages here; meminfo's pss_total_frac is exact), so the pss of all
 *   processes adds up to the memory really used (docs/shared-text-and-rss.md).
 */
#ifndef PAGODA_PROCINFO_H
#define PAGODA_PROCINFO_H

#include <stdint.h>

/* pagoda_procinfo.state */
#define PROC_STATE_RUNNABLE 'R'  /* running or ready                    */
#define PROC_STATE_SLEEPING 'S'  /* blocked in the kernel               */
#define PROC_STATE_ZOMBIE   'Z'  /* exited, not yet reaped              */

#define PAGODA_PROC_NAME_MAX 16

struct pagoda_procinfo {
	int32_t  pid;
	int32_t  ppid;
	uint32_t state;              /* PROC_STATE_*                          */
	uint32_t reserved;           /* 0                                     */
	char     name[PAGODA_PROC_NAME_MAX]; /* program name, NUL-terminated */
	uint64_t vm_pages;           /* total size of the process's VMAs      */
	uint64_t rss_pages;          /* resident pages (see above)            */
	uint64_t pss_pages;          /* proportional share (see above)        */
	uint64_t lazyfree_pages;     /* resident but MADV_FREE'd              */
	uint64_t pt_pages;           /* page-table pages it points at         */
	uint64_t shared_pt_pages;    /* of which shared with another process  */
	uint64_t as_write_locks;     /* times its address-space lock was taken
	                                for writing (mmap, munmap, mprotect,
	                                brk, fork, madvise's *FORK advices) */
};

#endif

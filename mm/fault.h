/* mm/fault.h -- resolving a page fault in an address space (as_fault), what
 * it came to (enum fault_result), and page-fault statistics. */
#ifndef MM_FAULT_H
#define MM_FAULT_H

#include "lib/types.h"

struct addrspace;

/* What the faulting access was (as_fault's flags): 0 is a read. */
#define FAULT_WRITE (1u << 0)
#define FAULT_EXEC (1u << 1)
/* The hardware found no entry (x86: error code without P): a hint, not a
 * promise (another thread may map the page meanwhile). A write with it to
 * private anonymous memory allocates first and maps in one walk, skipping
 * the lookup walk; a page found mapped after all costs one wasted frame and
 * a retry of the access. */
#define FAULT_ABSENT (1u << 3)

/* What a fault came to. The kernel chooses the signal from it once
 * (kernel/fault_signal.c); a system call's copy its errno (fault_errno). */
enum fault_result {
	FAULT_HANDLED = 0,   /* the access is now possible: retry it */
	FAULT_HANDLED_MAJOR, /* ... after the page was read from its store (disk) */
	FAULT_BAD_ADDRESS,   /* no VMA there: SIGSEGV, SEGV_MAPERR */
	FAULT_BAD_ACCESS,    /* the VMA forbids the access: SIGSEGV, SEGV_ACCERR */
	FAULT_SIGBUS,        /* past the end of the VMA's object, or its store failed
			      * (an I/O error, no room for a store): SIGBUS, BUS_ADRERR */
	FAULT_OOM,           /* no frame, even after reclaim: the OOM killer */
};

/* Resolve a fault at va of as for an access of kind flags (FAULT_*):
 * demand-zero, the object's page, copy-on-write, unsharing a PT page on
 * the way. Never panics for anything a program does. */
enum fault_result as_fault(struct addrspace *as, vaddr_t va, unsigned flags);

/* Map the pages of the VMAs in [start, end) (page aligned) that are not
 * mapped yet, as read faults would but without shared text (which is what
 * calls it: mm/ptshare_text.c fills a chunk's PT page before publishing it;
 * no fault path is re-entered). as locked. 0, -ENOMEM, -EIO (past an
 * object's end) or -EFAULT (a VMA that cannot be read). */
int as_fill(struct addrspace *as, vaddr_t start, vaddr_t end);

/* Fault in every page of [start, end) (page aligned) of as now, as an
 * access of kind flags would (MADV_POPULATE_*, MAP_POPULATE). 0, or the
 * fault_errno of the first page that failed (pages before it stay in). */
int as_populate(struct addrspace *as, vaddr_t start, vaddr_t end, unsigned flags);

/* The errno a kernel-side access gets for r: 0 (handled), -ENOMEM (OOM),
 * else -EFAULT (Linux: a copy past a file's end is -EFAULT too). */
int fault_errno(enum fault_result r);

struct fault_stats {          /* only uint64_t counts: fault_stats_sum adds them as an array */
	uint64_t zero;        /* demand-zero pages */
	uint64_t zero_page;   /* reads that mapped the shared zero page */
	uint64_t file;        /* file pages mapped */
	uint64_t around;      /* ... and their neighbours mapped with them (fault-around) */
	uint64_t cow;         /* copy-on-write faults */
	uint64_t cow_reuse;   /* ... resolved without a copy */
	uint64_t mkwrite;     /* first stores to clean pages of shared file mappings */
	uint64_t swapin;      /* swap entries brought back (mm/swap.h) */
	uint64_t major;       /* of file and swapin: pages read from the store first (pgmajfault) */
	uint64_t spurious;    /* nothing to do */
	uint64_t oom_kills;   /* processes killed for a fault with no memory */
};
/* The counts since boot, all CPUs (each CPU counts its own faults: a
 * shared atomic per fault cost ~200 of its ~6 000 cycles under TCG). */
struct fault_stats fault_stats_sum(void);

/* Faults that mapped a page (demand-zero, zero page, file, copy-on-write):
 * Linux's pgfault, less the spurious ones. */
uint64_t fault_stats_total(void);

/* Count one process killed by the OOM killer for a fault (kernel/oom.c). */
void fault_count_oom_kill(void);

/* Allocate the shared zero page (mm_init, once the frame allocator runs). */
void fault_init(void);

struct page;


#endif

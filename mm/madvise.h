/* mm/madvise.h -- madvise(2) advice values (Linux) and the call. */
#ifndef MM_MADVISE_H
#define MM_MADVISE_H

#include "kernel/types.h"

#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3
#define MADV_DONTNEED 4
#define MADV_FREE 8

struct addrspace;

/* Apply advice to [start, start + len): 0 or -EINVAL / -ENOMEM like Linux. */
int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice);

#endif

/* mm/madvise.h -- madvise(2) advice values (Linux) and the call. */
#ifndef MM_MADVISE_H
#define MM_MADVISE_H

#include "lib/types.h"

/* MADV_*: Linux values, shared with libc. */
#include "libc/include/pagoda/abi-mman.h"

struct addrspace;

/* Apply advice to [start, start + len): 0 or -EINVAL / -ENOMEM like Linux. */
int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice);

#endif

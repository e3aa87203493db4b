/* mm/madvise.h -- madvise(2) advice values (Linux) and the call. */
#ifndef MM_MADVISE_H
#define MM_MADVISE_H

#include "lib/types.h"
#include "mm/as.h"

/* MADV_*: Linux values, shared with libc. */
#include "libc/include/pagoda/abi-mman.h"

struct addrspace;

/* How as_madvise(advice) must hold as->lock: AS_LOCK_WRITE for the advices
 * that change VMA flags (MADV_DONTFORK, DOFORK, WIPEONFORK, KEEPONFORK),
 * AS_LOCK_READ for every other (unknown ones included: they fail at once). */
enum as_lock_mode madvise_lock_mode(int advice);

/* Apply advice to [start, start + len), as->lock held as madvise_lock_mode
 * says: 0 or -EINVAL / -ENOMEM like Linux. */
int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice);

#endif

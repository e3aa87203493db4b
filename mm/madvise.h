/* mm/madvise.h -- madvise(2) advice values (Linux) and the call. */
#ifndef MM_MADVISE_H
#define MM_MADVISE_H

#include "lib/types.h"
#include "mm/as.h"

/* MADV_*: Linux values, shared with libc. */
#include "libc/include/pagoda/abi-mman.h"

struct addrspace;

/* How as_madvise(advice) must hold as->lock: AS_LOCK_WRITE for the advices
 * that change VMA flags (MADV_DONTFORK, DOFORK, WIPEONFORK, KEEPONFORK,
 * NORMAL, RANDOM, SEQUENTIAL),
 * AS_LOCK_READ for every other (unknown ones included: they fail at once). */
enum as_lock_mode madvise_lock_mode(int advice);

/* Apply advice to [start, start + len), as->lock held as madvise_lock_mode
 * says: 0 or -EINVAL / -ENOMEM / -EACCES like Linux. MADV_REMOVE of a
 * file's shared mapping is only checked here: the hole is punched by
 * as_madvise_unlocked once the lock is let go; MADV_WILLNEED reads there. */
int as_madvise(struct addrspace *as, vaddr_t start, uint64_t len, int advice);

/* The part of MADV_REMOVE, MADV_WILLNEED, MADV_COLD and MADV_PAGEOUT after
 * as_madvise, as->lock NOT held. COLD and PAGEOUT: mm/swap.h's
 * swap_advise (the reverse map's walk ranks before the address space's
 * lock, which it takes for reading per batch of pages). REMOVE and
 * WILLNEED: a hole punched in each file mapped shared in [start, start + len)
 * (the file system takes the file's locks, which rank before the address
 * space's, and takes the pages out of every mapping; Linux's
 * madvise_remove lets go of its lock too); the pages of each object with a
 * store read in (vmobject_ops.willneed: I/O, not under the lock, as Linux's
 * madvise_willneed). The address space is looked at under its lock one VMA
 * at a time. 0 or the first error (-EOPNOTSUPP: a file system without
 * holes). Any other advice: 0. */
int as_madvise_unlocked(struct addrspace *as, vaddr_t start, uint64_t len, int advice);

#endif

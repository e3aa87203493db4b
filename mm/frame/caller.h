/* mm/frame/caller.h -- naming the code that called into mm/, for panics. */
#ifndef MM_CALLER_H
#define MM_CALLER_H

#include "lib/types.h"

/* The function containing code address addr and the offset into it, or "?"
 * (no symbol table: host builds). */
const char *mm_symbol(const void *addr, uint64_t *off);

#endif

/* mm/kstack.h -- kernel stacks in the KSTACK_BASE region, each with an
 * unmapped guard below it (layout in arch/x86_64/memlayout.h), so an
 * overflow faults and is reported as "kernel stack overflow". */
#ifndef MM_KSTACK_H
#define MM_KSTACK_H

#include "lib/types.h"

/* A new KSTACK_SIZE stack; returns its top (16-byte aligned, the first rsp),
 * or NULL when out of memory or slots. */
void *kstack_alloc(void);

/* Unmap and free the stack whose top kstack_alloc returned. */
void kstack_free(void *top);

#endif

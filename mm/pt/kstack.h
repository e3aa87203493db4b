/* mm/pt/kstack.h -- kernel stacks in the KSTACK_BASE region, each with an
 * unmapped guard below it (layout in arch/x86_64/memlayout.h), so an
 * overflow faults and is reported as "kernel stack overflow". */
#ifndef MM_KSTACK_H
#define MM_KSTACK_H

#include "lib/types.h"

/*
 * A pool of stacks that stay mapped (Linux keeps a few freed stacks per CPU
 * for the same reason): unmapping a kernel-half page costs a TLB
 * shootdown, an IPI round to every other CPU, on each process's or
 * thread's exit; a stack from the pool costs neither that nor four frame
 * allocations and map calls.
 *
 *   kstack_alloc: a pool stack if one is free, else map a new one
 *   kstack_free:  a pool stack --> back to the pool, still mapped
 *                 any other     --> unmapped (one shootdown), frames freed
 *
 * A stack goes back where it came from, so the free-frame count after a
 * workload equals the count before it, however many stacks it used at once:
 * leak checks hold. Boot makes the pool (kmain, once the other CPUs have
 * their idle stacks, which never come back). A reused stack is not zeroed
 * (proc_alloc writes all that the first switch reads). The pool's frames
 * stay the pool's even when memory is short: KSTACK_POOL * KSTACK_SIZE
 * bytes (256 KiB) in all.
 */
#define KSTACK_POOL 16

/* A KSTACK_SIZE stack, from the pool when it has one free; returns its top
 * (16-byte aligned, the first rsp), or NULL when out of memory or slots. */
void *kstack_alloc(void);

/* Give back the stack whose top kstack_alloc returned: to the pool if it
 * is one of the pool's, else unmapped and freed. Panics if top is not an
 * allocated stack's top. */
void kstack_free(void *top);

/* Make the pool n stacks (n <= KSTACK_POOL, else a panic): map new ones,
 * or unmap free pool stacks (a pool stack in use leaves the pool when it is
 * freed). 0, or -ENOMEM with the pool as large as could be mapped. */
int kstack_set_pool(unsigned n);

/* Pool stacks free (mapped, handed out by the next kstack_alloc). */
unsigned kstack_pool_free(void);

#endif

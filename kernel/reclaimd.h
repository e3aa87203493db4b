/* kernel/reclaimd.h -- kreclaimd, the kernel thread that keeps memory free
 * (Linux's kswapd): mm says when it is wanted and does the work
 * (mm/reclaim.h); this layer, which has the scheduler, wakes and runs it,
 * so mm never sleeps nor wakes anyone.
 *
 *   tick, page fault (reclaimd_kick) --reclaim_wanted()?--> wakeup --> kreclaimd:
 *       reclaim_background() (to the high watermark), sleep again
 */
#ifndef KERNEL_RECLAIMD_H
#define KERNEL_RECLAIMD_H

#include "lib/types.h"

/* Start the thread (kmain, after smp_init); panics if it cannot. */
void reclaimd_start(void);

/* Wake the thread if mm wants it (reclaim_wanted): the timer tick
 * (interrupt context), and each page fault after it let its locks go (a
 * memory hog's faults are where free memory falls, as Linux's allocator
 * wakes kswapd). Takes proc_lock only when it wakes. */
void reclaimd_kick(void);

/* A task found no memory and its own (direct) reclaim freed nothing: if
 * the thread has what only it may free (mapped file pages, which it
 * unmaps through the reverse map: SHRINKER_BACKGROUND), wake it and wait
 * for one run of it. true if that run freed something (retry), false
 * (nothing to wait for: the OOM killer's turn). The caller holds no lock:
 * the thread takes address-space locks. */
bool reclaimd_wait(void);

/* A user page fault is about to allocate: while free memory is in the
 * reserve below the min watermark and the thread has work only it can do
 * (pages to write out to swap, mapped file pages), wait for its runs
 * first, up to RECLAIMD_THROTTLE_RUNS and while they free something
 * (Linux's throttle_direct_reclaim). Faults swapping pages in on every
 * CPU would otherwise take the frames faster than the thread writes pages
 * out, down to the last, and a system call's kmalloc (a pipe's buffer)
 * would fail. Without such work (no swap) nothing waits: the fault takes
 * what is left, then the OOM killer's turn comes. No lock held. */
#define RECLAIMD_THROTTLE_RUNS 4
void reclaimd_throttle(void);

#endif

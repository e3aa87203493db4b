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

#endif

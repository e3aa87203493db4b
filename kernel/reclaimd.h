/* kernel/reclaimd.h -- kreclaimd, the kernel thread that keeps memory free
 * (Linux's kswapd): mm says when it is wanted and does the work
 * (mm/reclaim.h); this layer, which has the scheduler, wakes and runs it,
 * so mm never sleeps nor wakes anyone.
 *
 *   tick (reclaimd_tick) --reclaim_wanted()?--> wakeup --> kreclaimd:
 *       reclaim_background() (to the high watermark), sleep again
 */
#ifndef KERNEL_RECLAIMD_H
#define KERNEL_RECLAIMD_H

#include "lib/types.h"

/* Start the thread (kmain, after smp_init); panics if it cannot. */
void reclaimd_start(void);

/* The timer tick (interrupt context): wake the thread if mm wants it. */
void reclaimd_tick(void);

#endif

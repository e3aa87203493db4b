/* kernel/reclaimd.c -- the reclaimer thread (see kernel/reclaimd.h). */
#include "kernel/reclaimd.h"
#include "kernel/kthread.h"
#include "kernel/proc.h"
#include "mm/reclaim.h"
#include "lib/atomic.h"
#include "lib/printk.h"

static bool started;
static char reclaimd_chan;   /* what the thread sleeps on */

/* Sleep until the tick finds reclaim wanted, reclaim, and again: at most
 * one run per tick, each to the high watermark (so a run that found
 * nothing to take does not spin). */
static void kreclaimd(void *arg)
{
	(void)arg;
	for (;;) {
		spin_lock(&proc_lock);
		sleep_on(&reclaimd_chan, &proc_lock);
		spin_unlock(&proc_lock);
		reclaim_background();   /* counted: /proc/vmstat pageoutrun */
	}
}

void reclaimd_start(void)
{
	int r = kthread_start("kreclaimd", kreclaimd, NULL);
	if (r < 0)
		panic("reclaimd_start: cannot start kreclaimd (error %d)", r);
	atomic_store(&started, true);
}

void reclaimd_kick(void)
{
	if (atomic_load(&started) && reclaim_wanted())
		wakeup(&reclaimd_chan);
}

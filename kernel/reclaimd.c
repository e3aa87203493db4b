/* kernel/reclaimd.c -- the reclaimer thread (see kernel/reclaimd.h). */
#include "kernel/reclaimd.h"
#include "kernel/kthread.h"
#include "kernel/proc.h"
#include "mm/reclaim.h"
#include "lib/atomic.h"
#include "lib/printk.h"

static bool started;
static char reclaimd_chan;   /* what the thread sleeps on */
static char runs_chan;       /* what reclaimd_wait's callers sleep on */
static uint64_t runs;        /* the thread's runs so far (under proc_lock) */
static uint64_t last_freed;  /* frames its last run freed (under proc_lock) */

/* Sleep until the tick finds reclaim wanted, reclaim, and again: at most
 * one run per tick, each to the high watermark (so a run that found
 * nothing to take does not spin). After each run the tasks waiting for
 * one (reclaimd_wait) are woken. */
static void kreclaimd(void *arg)
{
	(void)arg;
	for (;;) {
		spin_lock(&proc_lock);
		sleep_on(&reclaimd_chan, &proc_lock);
		spin_unlock(&proc_lock);
		uint64_t freed = reclaim_background();   /* counted: /proc/vmstat pageoutrun */
		spin_lock(&proc_lock);
		runs++;
		last_freed = freed;
		wakeup_locked(&runs_chan);
		spin_unlock(&proc_lock);
	}
}

bool reclaimd_wait(void)
{
	if (!atomic_load(&started) || !reclaim_background_pending())
		return false;
	spin_lock(&proc_lock);
	uint64_t seen = runs;
	wakeup_locked(&reclaimd_chan);
	while (runs == seen)
		sleep_on(&runs_chan, &proc_lock);
	bool freed = last_freed > 0;
	spin_unlock(&proc_lock);
	return freed;
}

void reclaimd_throttle(void)
{
	for (int i = 0; i < RECLAIMD_THROTTLE_RUNS && !reclaim_free_above(reclaim_min); i++)
		if (!reclaimd_wait())
			return;   /* nothing it alone can do, or it freed nothing */
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

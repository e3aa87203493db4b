/* kernel/flushd.c -- kflushd (see kernel/flushd.h). */
#include "kernel/flushd.h"
#include "kernel/fs.h"
#include "kernel/kthread.h"
#include "kernel/proc.h"
#include "lib/cmdline.h"
#include "lib/printk.h"
#include "mm/pagecache.h"
#include "arch/x86_64/timer.h"

#define MS 1000000ull
#define ROUND_MS 1000        /* how often it looks at the dirty total */

static char flushd_chan;     /* nobody wakes it: it sleeps a round at a time */

static void kflushd(void *arg)
{
	uint64_t expire = cmdline_get_u64("dirty_expire", 30000) * MS;
	uint64_t every = cmdline_get_u64("dirty_writeback", 5000) / ROUND_MS;
	(void)arg;
	every = every ? every : 1;
	for (uint64_t round = 1;; round++) {
		spin_lock(&proc_lock);
		sleep_on_until(&flushd_chan, &proc_lock, clock_ns() + ROUND_MS * MS);
		spin_unlock(&proc_lock);
		uint64_t now = clock_ns();
		if (pagecache_dirty_over_background())
			vfs_flush_old(~0ull);
		else if (round % every == 0 && now > expire)
			vfs_flush_old(now - expire);
	}
}

void flushd_start(void)
{
	int r = kthread_start("kflushd", kflushd, NULL);
	if (r < 0)
		panic("flushd_start: cannot start kflushd (error %d)", r);
}

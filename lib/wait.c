/* lib/wait.c -- waiting for an event (see lib/wait.h). */
#include "lib/wait.h"

void (*wait_sleep_hook)(const void *chan, struct spinlock *lk);
void (*wait_wake_hook)(const void *chan);
int (*wait_sleep_signal_hook)(const void *chan, struct spinlock *lk);

SLEEP_TEXT void wait_on(const void *chan, struct spinlock *lk)
{
	if (wait_sleep_hook) {
		wait_sleep_hook(chan, lk);
		return;
	}
	spin_unlock(lk);
	spin_relax();
	spin_lock(lk);
}

SLEEP_TEXT int wait_on_signal(const void *chan, struct spinlock *lk)
{
	if (wait_sleep_signal_hook)
		return wait_sleep_signal_hook(chan, lk);
	wait_on(chan, lk);
	return 0;
}

void wait_wake(const void *chan)
{
	if (wait_wake_hook)
		wait_wake_hook(chan);
}

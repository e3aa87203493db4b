/* lib/wait.h -- waiting for an event, for every layer (Linux's wait_event
 * and wake_up, on xv6's channels).
 *
 * A waiter holds the spinlock that guards its condition, tests it, and
 * calls wait_on until it holds; whoever makes it true takes the same lock
 * and calls wait_wake. The channel is any address both agree on (the
 * object waited for: a lock, an I/O request).
 *
 *   waiter                               waker (a task, or an interrupt)
 *   spin_lock(&q->lk);                   spin_lock(&q->lk);
 *   while (!req->done)                   req->done = true;
 *           wait_on(req, &q->lk);        wait_wake(req);
 *   spin_unlock(&q->lk);                 spin_unlock(&q->lk);
 *
 * Who sleeps is the scheduler's business, and the scheduler sits above mm
 * (a task owns an address space): kernel/sched.c registers wait_sleep_hook
 * and wait_wake_hook at boot. Code with no task to put to sleep (boot, the
 * in-kernel tests, host unit tests) spins instead, the lock released and
 * interrupts on meanwhile, so an interrupt handler can complete the event.
 *
 * Errors: none. Never call wait_on holding any spinlock but lk: lockdep
 * panics at the switch.
 */
#ifndef LIB_WAIT_H
#define LIB_WAIT_H

#include "lib/spinlock.h"

/* SLEEP_TEXT marks the functions a task goes to sleep through (wait_on,
 * the scheduler's sleep_on, an rwsem's down_*): they are linked together
 * (linker.ld's _sleep_text_start.._sleep_text_end), and where a task
 * sleeps -- /proc/PID/wchan -- is the first caller outside them (Linux's
 * __sched), e.g. pipe_read rather than wait_on. */
#define SLEEP_TEXT __attribute__((section(".text.sleep"), noinline))
extern const char _sleep_text_start[], _sleep_text_end[];

/* Wait once for a wake-up on chan: lk (held) is released meanwhile and
 * held again on return. Wake-ups may be spurious: test the condition again. */
void wait_on(const void *chan, struct spinlock *lk);

/* wait_on for a system call a signal interrupts: -EINTR when a signal is
 * pending (before the sleep or at the wake-up), else 0. */
int wait_on_signal(const void *chan, struct spinlock *lk);

/* Wake every task waiting on chan (any context, interrupts included). */
void wait_wake(const void *chan);

/* The scheduler's part: put the running task to sleep on chan, releasing
 * lk (retaken on return), or spin where there is no task; wake every sleeper
 * on chan. NULL until the scheduler starts: wait_on spins. */
extern void (*wait_sleep_hook)(const void *chan, struct spinlock *lk);
extern void (*wait_wake_hook)(const void *chan);
extern int (*wait_sleep_signal_hook)(const void *chan, struct spinlock *lk);

#endif

/* kernel/kthread.h -- kernel threads: tasks that run one kernel function on
 * a kernel stack of their own, in the kernel's address space.
 *
 * A kernel thread is a struct proc that is not a process: it lives in
 * kthread_table, not proc_table, so it has no pid in /proc, gets no
 * signals, is never waited for and never picked by the OOM killer; the
 * scheduler runs it like any thread (sched.c walks both tables), and it
 * sleeps and wakes with sleep_on/wakeup. The kernel is not preemptive: a
 * kernel thread gives the CPU up by sleeping or with sched_yield, and
 * never returns (its function returning is a panic). Linux's kthreads,
 * without kthreadd: they are started at boot and live forever.
 *
 *   kthread_table[0] kreclaimd (kernel/reclaimd.c): mm's reclaimer,
 *                    woken by the tick below the low watermark
 */
#ifndef KERNEL_KTHREAD_H
#define KERNEL_KTHREAD_H

#include "kernel/proc.h"

#define NKTHREAD 8   /* kthread_table's size */

extern struct proc kthread_table[NKTHREAD];

/* Start fn(arg) in a new kernel thread called name: RUNNABLE when this
 * returns. 0, -EAGAIN (the table is full) or -ENOMEM (no kernel stack).
 * Call after proc_init and smp_init, with no lock held. */
int kthread_start(const char *name, void (*fn)(void *arg), void *arg);

/* Is p a kernel thread (in kthread_table)? */
bool proc_is_kthread(const struct proc *p);

#endif

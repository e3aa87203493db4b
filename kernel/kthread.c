/* kernel/kthread.c -- kernel threads (see kernel/kthread.h). */
#include "kernel/kthread.h"
#include "kernel/proc.h"
#include "mm/pt/kstack.h"
#include "arch/x86_64/timer.h"
#include "lib/errno.h"
#include "lib/printk.h"
#include "lib/string.h"

struct proc kthread_table[NKTHREAD];   /* guarded by proc_lock, as proc_table */

/* Where a new kernel thread's context first resumes: out of the
 * scheduler's switch with proc_lock held, as a new process. */
static void kthread_entry(void)
{
	spin_unlock(&proc_lock);
	struct proc *p = current_proc();
	p->kthread_fn(p->kthread_arg);
	panic("kthread %s: its function returned", p->name);
}

/* A free slot of kthread_table, EMBRYO (proc_lock held), or NULL. */
static struct proc *claim_slot(void)
{
	for (int i = 0; i < NKTHREAD; i++)
		if (kthread_table[i].state == P_UNUSED) {
			memset(&kthread_table[i], 0, sizeof(kthread_table[i]));
			kthread_table[i].state = P_EMBRYO;
			return &kthread_table[i];
		}
	return NULL;
}

/* Give p a kernel stack whose context resumes in kthread_entry. */
static int prepare_stack(struct proc *p)
{
	p->kstack_top = kstack_alloc();
	if (!p->kstack_top)
		return -ENOMEM;
	char *sp = (char *)p->kstack_top - sizeof(uint64_t);
	*(uint64_t *)sp = 0;   /* kthread_entry never returns */
	sp -= sizeof(struct context);
	p->ctx = (struct context *)sp;
	memset(p->ctx, 0, sizeof(*p->ctx));
	p->ctx->rip = (uint64_t)kthread_entry;
	fpu_state_reset(&p->fpu);
	return 0;
}

int kthread_start(const char *name, void (*fn)(void *arg), void *arg)
{
	spin_lock(&proc_lock);
	struct proc *p = claim_slot();
	spin_unlock(&proc_lock);
	if (!p)
		return -EAGAIN;
	strlcpy(p->name, name, sizeof(p->name));
	p->kthread_fn = fn;
	p->kthread_arg = arg;
	p->start_ticks = timer_ticks();
	if (prepare_stack(p) < 0) {
		p->state = P_UNUSED;
		return -ENOMEM;
	}
	spin_lock(&proc_lock);
	sched_make_runnable_locked(p);
	spin_unlock(&proc_lock);
	return 0;
}

bool proc_is_kthread(const struct proc *p)
{
	return p >= kthread_table && p < kthread_table + NKTHREAD;
}

/* kernel/sched.c -- round-robin scheduler, sleep and wakeup.
 *
 * The scheduler loop runs on the boot stack in this CPU's own context. A
 * process gives up the CPU by calling sched() with proc_lock held and its
 * state already changed; swtch() then lands in the scheduler loop, which
 * picks the next RUNNABLE process in table order. The timer preempts user
 * code: every tick marks need_resched, and the return-to-user hook yields.
 */
#include "kernel/proc.h"
#include "lib/printk.h"
#include "mm/as.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/timer.h"

#define TIMESLICE_TICKS 2

static volatile int ticks_left = TIMESLICE_TICKS;
static const char tick_channel;   /* address that timer sleepers wait on */
static struct cpu_times cpu_times;   /* since boot, the one CPU */

/* Load the process's address space, kernel stack and TLS, and run it. */
static void switch_to(struct cpu *c, struct proc *p)
{
	c->current = p;
	c->kernel_rsp = (uint64_t)p->kstack_top;
	tss_set_kernel_stack((uint64_t)p->kstack_top);
	as_activate(p->as);
	arch_set_fs_base(p->fs_base);
	p->state = P_RUNNING;
	ticks_left = TIMESLICE_TICKS;
	cpu_times.switches++;
	fpu_restore(&p->fpu);
	swtch(&c->scheduler, p->ctx);
	fpu_save(&p->fpu);
	c->current = NULL;
}

void scheduler(void)
{
	struct cpu *c = this_cpu();
	int next = 0;

	for (;;) {
		irq_enable();
		spin_lock(&proc_lock);
		bool ran = false;
		for (int i = 0; i < NPROC; i++) {
			struct proc *p = &proc_table[(next + i) % NPROC];
			if (p->state != P_RUNNABLE)
				continue;
			next = (int)(p - proc_table) + 1;
			switch_to(c, p);
			thread_switched_out(p);   /* an exited thread's slot */
			ran = true;
			break;
		}
		spin_unlock(&proc_lock);
		if (!ran)
			cpu_idle();   /* nothing to run: wait for an interrupt */
	}
}

void sched(void)
{
	struct proc *p = current_proc();
	if (!spin_holding(&proc_lock))
		panic("sched: pid %d without proc_lock", p->pid);
	if (p->state == P_RUNNING)
		panic("sched: pid %d still RUNNING", p->pid);
	lockdep_assert_switchable(&proc_lock);
	if (this_cpu()->ncli != 1)
		panic("sched: pid %d has interrupts pushed off outside locks", p->pid);
	bool intena = this_cpu()->intena;   /* belongs to this thread */
	swtch(&p->ctx, this_cpu()->scheduler);
	this_cpu()->intena = intena;
}

void sched_yield(void)
{
	spin_lock(&proc_lock);
	current_proc()->state = P_RUNNABLE;
	sched();
	spin_unlock(&proc_lock);
}

void sleep_on(const void *chan, struct spinlock *lk)
{
	struct proc *p = current_proc();
	if (lk != &proc_lock) {
		spin_lock(&proc_lock);
		spin_unlock(lk);
	}
	p->wait_chan = chan;
	p->state = P_SLEEPING;
	sched();
	p->wait_chan = NULL;
	if (lk != &proc_lock) {
		spin_unlock(&proc_lock);
		spin_lock(lk);
	}
}

void sleep_on_until(const void *chan, struct spinlock *lk, uint64_t deadline)
{
	current_proc()->wait_deadline = deadline ? deadline : 1;
	sleep_on(chan, lk);
	current_proc()->wait_deadline = 0;
}

void wakeup_locked(const void *chan)
{
	for (int i = 0; i < NPROC; i++)
		if (proc_table[i].state == P_SLEEPING && proc_table[i].wait_chan == chan)
			proc_table[i].state = P_RUNNABLE;
}

/* The tick: wake the sleep_on_until sleepers whose deadline has come. */
static void wakeup_deadlines(void)
{
	uint64_t now = clock_ns();
	spin_lock(&proc_lock);
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (p->state == P_SLEEPING && p->wait_deadline && p->wait_deadline <= now)
			p->state = P_RUNNABLE;
	}
	spin_unlock(&proc_lock);
}

void wakeup(const void *chan)
{
	spin_lock(&proc_lock);
	wakeup_locked(chan);
	spin_unlock(&proc_lock);
}

/* Load average, Linux's way: every LOAD_FREQ ticks, each average moves
 * toward the number of runnable processes with factor e^(-5s/1min) (and
 * 5, 15 min), in fixed point with FSHIFT fraction bits. */
#define FSHIFT 11
#define FIXED_1 (1UL << FSHIFT)
#define LOAD_FREQ (5 * HZ)
static const unsigned long load_exp[3] = { 1884, 2014, 2037 };
static unsigned long avenrun[3];

/* Processes running or runnable now (proc_lock free: interrupt context). */
static unsigned long nr_active(void)
{
	unsigned long n = 0;
	spin_lock(&proc_lock);
	for (int i = 0; i < NPROC; i++)
		n += proc_table[i].state == P_RUNNING || proc_table[i].state == P_RUNNABLE;
	spin_unlock(&proc_lock);
	return n;
}

static void loadavg_tick(void)
{
	if (timer_ticks() % LOAD_FREQ)
		return;
	unsigned long active = nr_active() * FIXED_1;
	for (int i = 0; i < 3; i++) {
		unsigned long a = avenrun[i] * load_exp[i] + active * (FIXED_1 - load_exp[i]);
		if (active >= avenrun[i])
			a += FIXED_1 - 1;   /* round up while rising, as Linux does */
		avenrun[i] = a / FIXED_1;
	}
}

void sched_loadavg(unsigned long hundredths[3])
{
	for (int i = 0; i < 3; i++)
		hundredths[i] = ((avenrun[i] + FIXED_1 / 200) * 100) >> FSHIFT;
}

void sched_cpu_times(struct cpu_times *t)
{
	*t = cpu_times;
}

/* Timer tick (interrupt context, so proc_lock is free on this CPU): account
 * time, wake processes sleeping on the tick, and end the time slice. */
static void sched_tick(struct trapframe *tf)
{
	struct proc *p = current_proc();
	if (p) {
		if (trap_from_user(tf))
			p->utime_ticks++, cpu_times.user++;
		else
			p->stime_ticks++, cpu_times.system++;
	} else {
		cpu_times.idle++;
	}
	loadavg_tick();
	itimer_tick(p && trap_from_user(tf));
	if (ticks_left > 0)
		ticks_left--;
	wakeup(&tick_channel);
	wakeup_deadlines();
}

/* Sleep until clock_ns() reaches deadline (woken at each tick to check), or
 * the process is killed. The same clock answers clock_gettime, so a sleep
 * never looks shorter than asked. */
void sleep_until_ns(uint64_t deadline)
{
	spin_lock(&proc_lock);
	while (clock_ns() < deadline && !signal_interrupted(current_proc()))
		sleep_on(&tick_channel, &proc_lock);
	spin_unlock(&proc_lock);
}

/* On every return to user mode: die if killed, yield if the slice is over,
 * then deliver a pending signal. */
static void sched_user_return(struct trapframe *tf)
{
	struct proc *p = current_proc();
	if (!p)
		return;
	if (p->killed)
		proc_exit(W_TERMSIG(p->kill_signal));
	if (ticks_left == 0)
		sched_yield();
	if (p->killed)
		proc_exit(W_TERMSIG(p->kill_signal));
	signal_deliver(tf);
}

void sched_init(void)
{
	timer_tick_hook = sched_tick;
	user_return_hook = sched_user_return;
}

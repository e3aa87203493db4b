/* kernel/sched.c -- round-robin scheduler, sleep and wakeup.
 *
 * The scheduler loop runs on the boot stack in this CPU's own context. A
 * process gives up the CPU by calling sched() with proc_lock held and its
 * state already changed; swtch() then lands in the scheduler loop, which
 * picks the next RUNNABLE process in table order. The timer preempts user
 * code: every tick marks need_resched, and the return-to-user hook yields.
 */
#include "kernel/proc.h"
#include "kernel/kthread.h"
#include "kernel/reclaimd.h"
#include "kernel/signal.h"
#include "lib/errno.h"
#include "lib/atomic.h"
#include "lib/printk.h"
#include "lib/rwsem.h"
#include "lib/wait.h"
#include "mm/as.h"
#include "arch/x86_64/backtrace.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/lapic.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"

#define TIMESLICE_TICKS 2

/* What the scheduler keeps for each CPU (indexed by struct cpu.id). */
struct sched_cpu {
	int slice_left;            /* ticks left in the running process's slice */
	bool idle;                 /* halted with nothing to run (proc_lock) */
	struct cpu_times times;    /* since boot */
};
static struct sched_cpu sched_cpus[MAX_CPUS];
static int rr_next;                /* where the next scan starts (proc_lock) */
static const char tick_channel;    /* address that timer sleepers wait on */

static void park_if_stopped(void);
static cpumask_t scheduling;        /* CPUs that entered scheduler() */

/* Who holds a sleeping lock (lib/rwsem.h): the running process, or, with
 * none (boot, in-kernel tests), the CPU itself. */
static const void *current_task(void)
{
	return current_proc() ? (const void *)current_proc() : (const void *)this_cpu();
}

/* The running process's record of held sleeping locks (lib/rwsem.h's
 * lock order); none (boot, in-kernel tests): lib/rwsem.c keeps one. */
static struct sleep_locks_held *current_sleep_locks(void)
{
	return current_proc() ? &current_proc()->sleep_locks : NULL;
}

/* lib/wait.h's wait: sleep, or spin where there is no process. */
SLEEP_TEXT static void wait_sleep(const void *chan, struct spinlock *lk)
{
	if (current_proc()) {
		sleep_on(chan, lk);
		return;
	}
	spin_unlock(lk);
	spin_relax();
	spin_lock(lk);
}

/* wait_on_signal's: a task's sleep that a signal ends (-EINTR). */
SLEEP_TEXT static int wait_sleep_signal(const void *chan, struct spinlock *lk)
{
	struct proc *p = current_proc();
	if (!p) {
		wait_sleep(chan, lk);
		return 0;
	}
	if (signal_interrupted(p))
		return -EINTR;
	sleep_on_signal(chan, lk);
	return signal_interrupted(p) ? -EINTR : 0;
}

static struct sched_cpu *this_sched(void)
{
	return &sched_cpus[this_cpu()->id];
}

/* Load the process's address space, kernel stack and TLS, and run it
 * (proc_lock held: no other CPU can pick p until p is switched out and
 * this CPU's scheduler lets the lock go). */
static void switch_to(struct cpu *c, struct proc *p)
{
	c->current = p;
	c->kernel_rsp = (uint64_t)p->kstack_top;
	tss_set_kernel_stack((uint64_t)p->kstack_top);
	as_activate(p->as);
	arch_set_fs_base(p->fs_base);
	p->state = P_RUNNING;
	p->cpu = c->id;
	this_sched()->slice_left = TIMESLICE_TICKS;
	this_sched()->times.switches++;
	fpu_restore(&p->fpu);
	swtch(&c->scheduler, p->ctx);
	fpu_save(&p->fpu);
	c->current = NULL;
}

/* Every task the scheduler runs: the processes' threads, then the kernel
 * threads (kernel/kthread.h), numbered 0 .. NTASK - 1. */
#define NTASK (NPROC + NKTHREAD)

static struct proc *task(int i)
{
	return i < NPROC ? &proc_table[i] : &kthread_table[i - NPROC];
}

/* The next RUNNABLE task after the last one picked, in table order
 * (one run queue for all CPUs), or NULL. proc_lock held. */
static struct proc *pick_next(void)
{
	for (int i = 0; i < NTASK; i++) {
		int n = (rr_next + i) % NTASK;
		if (task(n)->state == P_RUNNABLE) {
			rr_next = n + 1;
			return task(n);
		}
	}
	return NULL;
}

/* Nothing to run (proc_lock held): say so, so that the next wakeup kicks
 * this CPU, and leave the last process's page table: an idle CPU runs on
 * the kernel's, so no CPU but those running an address space ever has it
 * in CR3 (pgt_destroy relies on it; shootdowns never target idle CPUs). */
static void go_idle(struct sched_cpu *s)
{
	s->idle = true;
	as_activate(NULL);
}

void scheduler(void)
{
	struct cpu *c = this_cpu();
	struct sched_cpu *s = this_sched();
	__atomic_fetch_or(&scheduling, cpumask_of(c->id), __ATOMIC_SEQ_CST);
	for (;;) {
		irq_enable();    /* take pending interrupts between rounds */
		park_if_stopped();
		irq_disable();   /* ... then none until the halt: see below */
		spin_lock(&proc_lock);
		s->idle = false;
		struct proc *p = pick_next();
		if (p) {
			switch_to(c, p);
			thread_switched_out(p);   /* an exited thread's slot */
		} else {
			go_idle(s);
		}
		spin_unlock(&proc_lock);
		/* Interrupts are still off: a kick sent after go_idle waits until
		 * the sti of the halt, so it wakes the halt and is never lost. */
		if (!p)
			cpu_idle();
	}
}

/* ---- stopping the other CPUs (sched_stop_others) ---- */

static int stop_owner = -1;         /* the CPU that stopped the others, or -1 */
static cpumask_t parked;            /* CPUs waiting for it to resume them */

/* A safe point (no lock held, no kernel operation half done): if another
 * CPU stopped the world, wait here until it resumes it. */
static void park_if_stopped(void)
{
	int me = this_cpu()->id;
	int owner = atomic_load(&stop_owner);
	if (owner < 0 || owner == me)
		return;
	uint64_t flags = irq_save();
	__atomic_fetch_or(&parked, cpumask_of(me), __ATOMIC_SEQ_CST);
	while ((owner = atomic_load(&stop_owner)) >= 0 && owner != me)
		spin_relax();             /* answers cross-CPU calls meanwhile */
	__atomic_fetch_and(&parked, ~cpumask_of(me), __ATOMIC_SEQ_CST);
	irq_restore(flags);
}

void sched_stop_others(void)
{
	int me = this_cpu()->id, none = -1;
	if (spin_held_count())
		panic("sched_stop_others: CPU %d holds a lock", me);
	while (!atomic_cmpxchg(&stop_owner, &none, me)) {
		none = -1;
		park_if_stopped();        /* another stopper first */
	}
	cpumask_t want = atomic_load(&scheduling) & ~cpumask_of(me);
	for (int i = 0; i < ncpus; i++)
		if (want & cpumask_of(i))
			smp_kick(i);      /* out of a halt, or back toward user mode */
	while ((atomic_load(&parked) & want) != want)
		spin_relax();
}

void sched_resume_others(void)
{
	atomic_store(&stop_owner, -1);
}

/* proc_lock held: some process just became RUNNABLE. Kick one idle CPU
 * (not this one: it reaches its scheduler by itself) to come and run it. */
static void kick_idle_cpu(void)
{
	int me = this_cpu()->id;
	for (int i = 0; i < ncpus; i++)
		if (i != me && sched_cpus[i].idle) {
			sched_cpus[i].idle = false;   /* one kick per idle period */
			smp_kick(i);
			return;
		}
}

void sched_make_runnable_locked(struct proc *p)
{
	p->state = P_RUNNABLE;
	kick_idle_cpu();
}

void sched_notify_locked(struct proc *p)
{
	if (p->state == P_RUNNING && p->cpu != this_cpu()->id)
		smp_kick(p->cpu);   /* it looks at its signals on the way back to user */
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

uint64_t sleep_site(struct proc *p)
{
	if (p->state != P_SLEEPING || !p->ctx)
		return 0;
	return backtrace_first_outside(p->ctx->rbp, (uint64_t)_sleep_text_start,
				       (uint64_t)_sleep_text_end);
}

enum sleep_kind { SLEEP_PLAIN, SLEEP_SIGNAL };

/* Sleep on chan, lk given up for proc_lock meanwhile; a SLEEP_SIGNAL sleep
 * is skipped when a signal interrupts it already. */
SLEEP_TEXT static void sleep_locked(const void *chan, struct spinlock *lk, enum sleep_kind kind)
{
	struct proc *p = current_proc();
	if (lk != &proc_lock) {
		spin_lock(&proc_lock);
		spin_unlock(lk);
	}
	if (kind == SLEEP_PLAIN || !signal_interrupted(p)) {
		p->wait_chan = chan;
		p->state = P_SLEEPING;
		sched();
		p->wait_chan = NULL;
	}
	if (lk != &proc_lock) {
		spin_unlock(&proc_lock);
		spin_lock(lk);
	}
}

SLEEP_TEXT static void sleep_until(const void *chan, struct spinlock *lk, uint64_t deadline,
			enum sleep_kind kind)
{
	current_proc()->wait_deadline = deadline ? deadline : 1;
	sleep_locked(chan, lk, kind);
	current_proc()->wait_deadline = 0;
}

SLEEP_TEXT void sleep_on(const void *chan, struct spinlock *lk)
{
	sleep_locked(chan, lk, SLEEP_PLAIN);
}

SLEEP_TEXT void sleep_on_until(const void *chan, struct spinlock *lk, uint64_t deadline)
{
	sleep_until(chan, lk, deadline, SLEEP_PLAIN);
}

SLEEP_TEXT void sleep_on_signal(const void *chan, struct spinlock *lk)
{
	sleep_locked(chan, lk, SLEEP_SIGNAL);
}

SLEEP_TEXT void sleep_on_signal_until(const void *chan, struct spinlock *lk, uint64_t deadline)
{
	sleep_until(chan, lk, deadline, SLEEP_SIGNAL);
}

void wakeup_locked(const void *chan)
{
	for (int i = 0; i < NTASK; i++)
		if (task(i)->state == P_SLEEPING && task(i)->wait_chan == chan)
			sched_make_runnable_locked(task(i));
}

/* The tick: wake the sleep_on_until sleepers whose deadline has come. */
static void wakeup_deadlines(void)
{
	uint64_t now = clock_ns();
	spin_lock(&proc_lock);
	for (int i = 0; i < NTASK; i++) {
		struct proc *p = task(i);
		if (p->state == P_SLEEPING && p->wait_deadline && p->wait_deadline <= now)
			sched_make_runnable_locked(p);
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
	for (int i = 0; i < NTASK; i++)
		n += task(i)->state == P_RUNNING || task(i)->state == P_RUNNABLE;
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
	*t = (struct cpu_times){ 0 };
	for (int i = 0; i < ncpus; i++) {
		struct cpu_times c;
		sched_cpu_times_of(i, &c);
		t->user += c.user, t->system += c.system, t->idle += c.idle;
		t->switches += c.switches;
	}
}

void sched_cpu_times_of(int cpu, struct cpu_times *t)
{
	*t = sched_cpus[cpu].times;
}

/* This CPU's tick (its local APIC timer; interrupt context): charge the
 * tick to whatever it was doing and count down the time slice. */
static void sched_cpu_tick(struct trapframe *tf)
{
	struct proc *p = current_proc();
	struct sched_cpu *s = this_sched();
	bool user = trap_from_user(tf);
	if (!p)
		s->times.idle++;
	else if (user)
		p->utime_ticks++, s->times.user++;
	else
		p->stime_ticks++, s->times.system++;
	if (p)
		itimer_charge_tick(p, user);
	if (s->slice_left > 0)
		s->slice_left--;
}

/* The system tick (the PIT, on the boot CPU): the load average, real-time
 * timers and sleepers. Without a local APIC timer it is also CPU 0's. */
static void sched_tick(struct trapframe *tf)
{
	if (!lapic_present())
		sched_cpu_tick(tf);
	loadavg_tick();
	reclaimd_kick();
	itimer_real_tick();
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
	park_if_stopped();
	if (p->killed)
		proc_exit(W_TERMSIG(p->kill_signal));
	if (this_sched()->slice_left == 0)
		sched_yield();
	if (p->killed)
		proc_exit(W_TERMSIG(p->kill_signal));
	signal_deliver(tf);
}

void sched_init(void)
{
	timer_tick_hook = sched_tick;
	lapic_tick_hook = sched_cpu_tick;
	user_return_hook = sched_user_return;
	wait_sleep_hook = wait_sleep;
	wait_wake_hook = wakeup;
	wait_sleep_signal_hook = wait_sleep_signal;
	rwsem_self_hook = current_task;
	rwsem_held_hook = current_sleep_locks;
}

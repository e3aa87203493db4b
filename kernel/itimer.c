/* kernel/itimer.c -- interval timers and the syscalls that set them. */
#include "kernel/itimer.h"
#include "kernel/proc.h"
#include "kernel/signal.h"
#include "kernel/time.h"
#include "kernel/syscall.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "mm/uaccess.h"
#include "arch/x86_64/timer.h"

#define TICK_NS (NSEC_PER_SEC / HZ)

/* Linux's struct itimerval: two struct timeval (seconds, microseconds). */
struct k_itimerval {
	struct k_timeval interval, value;
};

static const int itimer_signal[NR_ITIMERS] = { SIGALRM, SIGVTALRM, SIGPROF };

/* The earliest armed REAL deadline of any process (0: none), so that a tick
 * with no alarm due costs one comparison. May be early, never late. */
static uint64_t next_real_ns;

/* Timer t of p ran out: signal p and re-arm t by its interval (REAL: from
 * the missed deadline, so a periodic timer keeps its phase). */
static void expire(struct proc *p, enum itimer_which which, uint64_t now)
{
	struct itimer *t = &p->itimer[which];
	signal_send_locked(p, itimer_signal[which], 0);
	if (!t->interval_ns)
		t->value_ns = 0;
	else if (which == ITIMER_REAL)
		while (t->value_ns <= now)
			t->value_ns += t->interval_ns;
	else
		t->value_ns = t->interval_ns;
}

/* Charge one tick of CPU time to p's timer `which`. */
static void charge(struct proc *p, enum itimer_which which)
{
	struct itimer *t = &p->itimer[which];
	if (!t->value_ns)
		return;
	if (t->value_ns > TICK_NS)
		t->value_ns -= TICK_NS;
	else
		expire(p, which, 0);
}

/* Fire the due REAL timers of every process; recompute next_real_ns. */
static void fire_real(uint64_t now)
{
	uint64_t next = 0;
	for (int i = 0; i < NPROC; i++) {
		struct proc *p = &proc_table[i];
		if (p->state == P_UNUSED || p->state == P_ZOMBIE || !p->itimer[ITIMER_REAL].value_ns)
			continue;
		if (p->itimer[ITIMER_REAL].value_ns <= now)
			expire(p, ITIMER_REAL, now);
		uint64_t v = p->itimer[ITIMER_REAL].value_ns;
		if (v && (!next || v < next))
			next = v;
	}
	next_real_ns = next;
}

void itimer_charge_tick(struct proc *p, bool in_user)
{
	spin_lock(&proc_lock);
	if (in_user)
		charge(p, ITIMER_VIRTUAL);
	charge(p, ITIMER_PROF);
	spin_unlock(&proc_lock);
}

void itimer_real_tick(void)
{
	uint64_t now = clock_ns();
	spin_lock(&proc_lock);
	if (next_real_ns && next_real_ns <= now)
		fire_real(now);
	spin_unlock(&proc_lock);
}

/* The current setting of p's timer `which` (proc_lock held). */
static struct k_itimerval itimer_get(struct proc *p, enum itimer_which which, uint64_t now)
{
	const struct itimer *t = &p->itimer[which];
	uint64_t left = t->value_ns;
	if (which == ITIMER_REAL && left)
		left = left > now ? left - now : 1;   /* due: fires at this tick */
	return (struct k_itimerval){ ns_to_timeval(t->interval_ns), ns_to_timeval(left) };
}

/* Arm (value > 0) or disarm p's timer; *old gets the previous setting. */
static void itimer_set(struct proc *p, enum itimer_which which, uint64_t value,
		       uint64_t interval, struct k_itimerval *old)
{
	uint64_t now = clock_ns();
	spin_lock(&proc_lock);
	*old = itimer_get(p, which, now);
	struct itimer *t = &p->itimer[which];
	t->interval_ns = value ? interval : 0;
	t->value_ns = value ? (which == ITIMER_REAL ? deadline_after(value) : value) : 0;
	if (which == ITIMER_REAL && value && (!next_real_ns || t->value_ns < next_real_ns))
		next_real_ns = t->value_ns;
	spin_unlock(&proc_lock);
}

static long sys_getitimer(const uint64_t a[6])
{
	if (a[0] >= NR_ITIMERS)
		return -EINVAL;
	spin_lock(&proc_lock);
	struct k_itimerval v = itimer_get(current_proc(), (enum itimer_which)a[0], clock_ns());
	spin_unlock(&proc_lock);
	return copyout(a[1], &v, sizeof v) < 0 ? -EFAULT : 0;
}

/* setitimer(which, new, old): new NULL disarms (as Linux does). */
static long sys_setitimer(const uint64_t a[6])
{
	struct k_itimerval nv = { 0 }, ov;
	uint64_t value = 0, interval = 0;
	if (a[0] >= NR_ITIMERS)
		return -EINVAL;
	if (a[1] && copyin(&nv, a[1], sizeof nv) < 0)
		return -EFAULT;
	if (timeval_to_ns(&nv.value, &value) < 0 || timeval_to_ns(&nv.interval, &interval) < 0)
		return -EINVAL;
	itimer_set(current_proc(), (enum itimer_which)a[0], value, interval, &ov);
	if (a[2] && copyout(a[2], &ov, sizeof ov) < 0)
		return -EFAULT;
	return 0;
}

/* alarm(seconds): the REAL timer, no interval; returns the seconds that
 * were left, rounded to the nearest (at least 1 when one was armed). */
static long sys_alarm(const uint64_t a[6])
{
	struct k_itimerval ov;
	itimer_set(current_proc(), ITIMER_REAL, (uint64_t)(uint32_t)a[0] * NSEC_PER_SEC, 0, &ov);
	long left = ov.value.tv_sec + (ov.value.tv_usec >= 500000);
	return (!left && ov.value.tv_usec) ? 1 : left;
}

const struct syscall_entry sys_itimer_table[] = {
	{ SYS_getitimer, "getitimer", sys_getitimer },
	{ SYS_alarm, "alarm", sys_alarm },
	{ SYS_setitimer, "setitimer", sys_setitimer },
	{ 0, NULL, NULL },
};

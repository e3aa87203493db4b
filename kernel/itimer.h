/* kernel/itimer.h -- interval timers: alarm(2), setitimer(2), getitimer(2).
 *
 * Every process has Linux's three timers:
 *
 *   ITIMER_REAL     wall-clock time       -> SIGALRM    (alarm(2) uses it)
 *   ITIMER_VIRTUAL  its user time          -> SIGVTALRM
 *   ITIMER_PROF     its user + system time -> SIGPROF
 *
 * A timer with an interval re-arms itself by that interval when it fires.
 * The ticks check them (each CPU's tick charges the process it runs:
 * itimer_charge_tick; the system tick fires REAL timers: itimer_real_tick), so they fire with the tick's
 * resolution (1/HZ) and never early. fork gives the child no timers;
 * execve keeps them (POSIX).
 */
#ifndef KERNEL_ITIMER_H
#define KERNEL_ITIMER_H

#include "lib/types.h"

enum itimer_which { ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF, NR_ITIMERS };

/* One timer of a process (inside struct proc). Disarmed when value_ns is 0.
 * REAL: value_ns is the deadline on clock_ns(); VIRTUAL and PROF: value_ns
 * is the CPU time still to run. */
struct itimer {
	uint64_t value_ns;
	uint64_t interval_ns;
};

struct proc;

/* A CPU's tick (interrupt context, proc_lock free on this CPU): charge one
 * tick to p's VIRTUAL (when in_user) and PROF timers, firing them when
 * they run out. p is the process this CPU runs. */
void itimer_charge_tick(struct proc *p, bool in_user);

/* The system tick's part (interrupt context): fire every REAL timer that is
 * due, whichever CPU its process runs on. */
void itimer_real_tick(void);

#endif

/* kernel/itimer.h -- interval timers: alarm(2), setitimer(2), getitimer(2).
 *
 * Every process has Linux's three timers:
 *
 *   ITIMER_REAL     wall-clock time       -> SIGALRM    (alarm(2) uses it)
 *   ITIMER_VIRTUAL  its user time          -> SIGVTALRM
 *   ITIMER_PROF     its user + system time -> SIGPROF
 *
 * A timer with an interval re-arms itself by that interval when it fires.
 * The timer tick checks them (itimer_tick), so they fire with the tick's
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

/* The tick's part (interrupt context, proc_lock free on this CPU): charge
 * one tick to the current process's VIRTUAL (when in_user) and PROF
 * timers, and fire every REAL timer that is due. */
void itimer_tick(bool in_user);

#endif

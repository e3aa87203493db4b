/* lib/spinlock.h -- spinlocks that also disable interrupts.
 *
 * Pagoda runs one CPU today, but shared state is still guarded by locks so
 * the structure is ready for more. Holding any spinlock keeps interrupts
 * off on this CPU (an interrupt handler could otherwise spin forever on a
 * lock its own CPU holds). Disabling nests, xv6 style: push_off/pop_off
 * count per CPU, and interrupts come back on only when the outermost lock is
 * released, whatever the release order.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include "lib/types.h"

struct spinlock {
	volatile uint32_t locked;
	const char *name;
};

#define SPINLOCK_INIT(n) { 0, n }

void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_holding(struct spinlock *l);

/* Interrupts off, nested (the lock functions use these). */
void push_off(void);
void pop_off(void);

#endif

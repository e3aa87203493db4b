/* lib/spinlock.c -- test-and-set locks with nested interrupt disabling and
 * the per-CPU stack of held locks that lockdep checks. */
#include "lib/spinlock.h"
#include "lib/printk.h"
#include "lib/atomic.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"

bool lockdep_on = true;
void (*spin_wait_hook)(void);
struct lock_class_stat lock_stats[LOCK_RANK_COUNT];
uint64_t (*spin_clock)(void);

void push_off(void)
{
	bool was_on = irq_enabled();
	irq_disable();
	struct cpu *c = this_cpu();
	if (c->ncli++ == 0)
		c->intena = was_on;
}

void pop_off(void)
{
	struct cpu *c = this_cpu();
	if (irq_enabled())
		panic("pop_off: interrupts enabled");
	if (c->ncli < 1)
		panic("pop_off: unbalanced");
	if (--c->ncli == 0 && c->intena)
		irq_enable();
}

void spin_init(struct spinlock *l, const char *name, enum lock_rank rank)
{
	*l = (struct spinlock)SPINLOCK_INIT(name, rank);
}

/* Taking l must come after every lock this CPU holds in the order. */
static void check_order(struct cpu *c, const struct spinlock *l)
{
	for (int i = 0; i < c->nheld; i++) {
		const struct spinlock *h = c->held[i];
		if (h == l)
			panic("lockdep: CPU %d takes lock %s it already holds", c->id, l->name);
		if (l->rank <= h->rank)
			panic("lockdep: CPU %d takes lock %s (rank %d) while holding %s (rank %d)",
			      c->id, l->name, l->rank, h->name, h->rank);
	}
	if (c->nheld == LOCKDEP_MAX_HELD)
		panic("lockdep: CPU %d holds %d locks, taking %s", c->id, c->nheld, l->name);
}

/* l is now this CPU's. */
static void held(struct cpu *c, struct spinlock *l)
{
	l->cpu = (int8_t)c->id;
	if (c->nheld < LOCKDEP_MAX_HELD)
		c->held[c->nheld++] = l;
}

void spin_relax(void)
{
	if (spin_wait_hook)
		spin_wait_hook();
	cpu_relax();
}

const char *spin_held_name(void)
{
	push_off();
	struct cpu *c = this_cpu();
	const char *n = c->nheld ? c->held[c->nheld - 1]->name : NULL;
	pop_off();
	return n;
}

/* No push_off: the kernel is not preemptive, so nothing moves this code to
 * another CPU between this_cpu() and the read, and an interrupt handler
 * leaves nheld as it found it. (Every page fault and sleeping lock asks:
 * the cli/sti pair cost more than the rest of the question under TCG.) */
int spin_held_count(void)
{
	return __atomic_load_n(&this_cpu()->nheld, __ATOMIC_RELAXED);
}

static bool try_take(struct spinlock *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

/* l was taken when we came: spin until it is ours, counting the wait. */
static void wait_for(struct spinlock *l)
{
	uint64_t t0 = spin_clock ? spin_clock() : 0;
	while (!try_take(l))
		spin_relax();
	uint64_t waited = spin_clock ? spin_clock() - t0 : 0;
	struct lock_class_stat *s = &lock_stats[l->rank];
	stat_inc(&s->contended);
	stat_add(&s->wait_cycles, waited);
	if (waited > s->wait_max)
		s->wait_max = waited;
}

/* l is ours: count it for its class, on this CPU (interrupts are off). */
static void count_acquired(struct cpu *c, const struct spinlock *l)
{
	struct lock_class_stat *s = &lock_stats[l->rank];
	if (!s->name)
		s->name = l->name;
	__atomic_store_n(&c->lock_acquired[l->rank], c->lock_acquired[l->rank] + 1,
			 __ATOMIC_RELAXED);   /* read by lock_acquired on other CPUs */
}

uint64_t lock_acquired(int rank)
{
	uint64_t n = 0;
	for (int i = 0; i < ncpus; i++)
		n += __atomic_load_n(&cpus[i].lock_acquired[rank], __ATOMIC_RELAXED);
	return n;
}

void spin_lock(struct spinlock *l)
{
	push_off();
	struct cpu *c = this_cpu();
	if (lockdep_on)
		check_order(c, l);
	if (!try_take(l))
		wait_for(l);
	count_acquired(c, l);
	held(c, l);
}

bool spin_trylock(struct spinlock *l)
{
	push_off();
	if (!try_take(l)) {
		pop_off();
		return false;
	}
	struct cpu *c = this_cpu();
	count_acquired(c, l);
	held(c, l);
	return true;
}

static void forget(struct cpu *c, const struct spinlock *l)
{
	for (int i = 0; i < c->nheld; i++)
		if (c->held[i] == l) {
			c->held[i] = c->held[--c->nheld];
			return;
		}
}

void spin_unlock(struct spinlock *l)
{
	struct cpu *c = this_cpu();
	if (!l->locked)
		panic("lockdep: CPU %d unlocks %s, which is not locked", c->id, l->name);
	if (l->cpu != c->id)
		panic("lockdep: CPU %d unlocks %s, held by CPU %d", c->id, l->name, l->cpu);
	forget(c, l);
	l->cpu = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	pop_off();
}

bool spin_holding(const struct spinlock *l)
{
	push_off();
	bool mine = l->locked && l->cpu == this_cpu()->id;
	pop_off();
	return mine;
}

void lockdep_assert_switchable(const struct spinlock *allowed)
{
	struct cpu *c = this_cpu();
	for (int i = 0; lockdep_on && i < c->nheld; i++)
		if (c->held[i] != allowed)
			panic("lockdep: CPU %d switches to another process with lock %s held",
			      c->id, c->held[i]->name);
}

/* kernel/tests/lockdep_test.c -- test=lockdep: spinlocks restore the
 * interrupt state and know their holder CPU, sleeping locks are ranked
 * too; test=crash_lock_*, crash_sleep_lock_order: each violation lockdep
 * exists for panics with the locks' names. */
#include "kernel/ktest.h"
#include "kernel/proc.h"
#include "lib/spinlock.h"
#include "lib/rwsem.h"
#include "arch/x86_64/ipi.h"
#include "arch/x86_64/irq.h"
#include "arch/x86_64/percpu.h"

static struct spinlock low = SPINLOCK_INIT("test-low", LOCK_RANK_TEST_LOW);
static struct spinlock high = SPINLOCK_INIT("test-high", LOCK_RANK_TEST_HIGH);

KTEST(lockdep, on_by_default)
{
	KEXPECT(lockdep_on);
}

KTEST(lockdep, increasing_ranks_any_release_order)
{
	spin_lock(&low);
	spin_lock(&high);
	KEXPECT_EQ(this_cpu()->nheld, 2);
	spin_unlock(&low);          /* release order is free */
	KEXPECT(spin_holding(&high) && !spin_holding(&low));
	spin_unlock(&high);
	KEXPECT_EQ(this_cpu()->nheld, 0);
	KEXPECT_EQ(low.cpu, -1);
}

KTEST(lockdep, interrupt_state_restored)
{
	irq_enable();
	spin_lock(&low);
	KEXPECT(!irq_enabled());
	spin_lock(&high);
	spin_unlock(&low);
	KEXPECT(!irq_enabled());    /* on again only after the outermost */
	spin_unlock(&high);
	KEXPECT(irq_enabled());
	irq_disable();
	spin_lock(&low);
	spin_unlock(&low);
	KEXPECT(!irq_enabled());    /* off before, off after */
	irq_enable();
}

static volatile int others_holding;

static void probe(void *arg)
{
	if (spin_holding(arg))
		others_holding++;
}

/* A lock held here is not "held" on another CPU, and the other CPUs still
 * answer a call while this one holds a spinlock with interrupts off. */
KTEST(lockdep, holding_is_per_cpu)
{
	others_holding = 0;
	spin_lock(&low);
	KEXPECT(spin_holding(&low));
	KEXPECT_EQ(low.cpu, this_cpu()->id);
	KEXPECT_EQ(ipi_call(~0UL, probe, &low), ncpus - 1);
	spin_unlock(&low);
	KEXPECT_EQ(others_holding, 0);
}

/* Lock statistics: every CPU takes test-low LOCKSTAT_ROUNDS times at once,
 * holding it a little each time. The class counts every acquisition
 * exactly (and trylock's), the critical sections never overlap (a shared
 * counter adds up), and with two CPUs or more some had to wait, for a
 * measured time. */
#define LOCKSTAT_ROUNDS 2000
static volatile uint64_t in_section, section_overlaps, section_total;

static void lockstat_body(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOCKSTAT_ROUNDS; i++) {
		spin_lock(&low);
		if (in_section++)
			section_overlaps++;
		for (int k = 0; k < 50; k++)
			cpu_relax();
		section_total++;
		in_section--;
		spin_unlock(&low);
	}
}

KTEST(lockdep, lockstat_counts_every_acquisition_and_wait)
{
	struct lock_class_stat *s = &lock_stats[LOCK_RANK_TEST_LOW];
	uint64_t acquired = lock_acquired(LOCK_RANK_TEST_LOW), contended = s->contended, waited = s->wait_cycles;
	section_overlaps = section_total = 0;
	int cpus = ipi_call_here_too(~0UL, lockstat_body, NULL) + 1;
	KEXPECT_EQ(section_total, (uint64_t)cpus * LOCKSTAT_ROUNDS);
	KEXPECT_EQ(section_overlaps, 0);
	KEXPECT_EQ(lock_acquired(LOCK_RANK_TEST_LOW) - acquired, (uint64_t)cpus * LOCKSTAT_ROUNDS);
	KEXPECT(spin_trylock(&low));
	spin_unlock(&low);
	KEXPECT_EQ(lock_acquired(LOCK_RANK_TEST_LOW) - acquired, (uint64_t)cpus * LOCKSTAT_ROUNDS + 1);
	KEXPECT_EQ(s->name, low.name);
	printk("lockstat: %d CPUs, %lu acquisitions, %lu contended, %lu cycles waited\n", cpus,
	       lock_acquired(LOCK_RANK_TEST_LOW) - acquired, s->contended - contended, s->wait_cycles - waited);
	if (cpus > 1) {
		KEXPECT(s->contended > contended);
		KEXPECT(s->wait_cycles > waited);
	} else {
		KEXPECT_EQ(s->contended, contended);
	}
}

static struct rwsem sleep_low, sleep_high;

static void init_sleep_locks(void)
{
	rwsem_init(&sleep_low, "test-sleep-low", SLEEP_RANK_TEST_LOW);
	rwsem_init(&sleep_high, "test-sleep-high", SLEEP_RANK_TEST_HIGH);
}

/* Sleeping locks in increasing rank, a reader taking its lock again (equal
 * ranks nest), any release order: no panic, and nothing left counted. */
KTEST(lockdep, sleeping_locks_in_rank_order)
{
	init_sleep_locks();
	down_read(&sleep_low);
	down_read(&sleep_low);
	down_write(&sleep_high);
	up_read(&sleep_low);
	up_write(&sleep_high);
	up_read(&sleep_low);
	KEXPECT(down_write_trylock(&sleep_high));
	KEXPECT(!down_write_trylock(&sleep_high));
	up_write(&sleep_high);
	down_write(&sleep_low);   /* nothing of a higher rank is held any more */
	up_write(&sleep_low);
}

KTEST(crash_sleep_lock_order, higher_then_lower)
{
	init_sleep_locks();
	down_read(&sleep_high);
	down_write(&sleep_low);
}

KTEST(crash_lock_order, higher_then_lower)
{
	spin_lock(&high);
	spin_lock(&low);
}

KTEST(crash_lock_unheld, unlock_unlocked)
{
	spin_unlock(&low);
}

KTEST(crash_lock_switch, switch_with_lock_held)
{
	spin_lock(&low);
	lockdep_assert_switchable(&proc_lock);   /* what sched() checks */
}

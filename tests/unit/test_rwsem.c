/* tests/unit/test_rwsem.c -- the sleeping reader/writer lock (lib/rwsem.c):
 * who is woken when. The sleep hook stands in for the scheduler: a task
 * "asleep" in it lets the test play the other task (release the lock) and
 * then re-checks, as a woken sleeper would. */
#include <check.h>
#include "lib/rwsem.h"
#include "lib/wait.h"
#include "tests/unit/host_mm.h"

static struct rwsem lock;
static int wakes, sleeps;
static void (*while_asleep)(void);   /* what "the other task" does meanwhile */

static void count_wake(const void *chan)
{
	ck_assert_ptr_eq(chan, &lock);
	wakes++;
}

static void fake_sleep(const void *chan, struct spinlock *lk)
{
	ck_assert_ptr_eq(chan, &lock);
	sleeps++;
	spin_unlock(lk);
	if (while_asleep) {
		void (*fn)(void) = while_asleep;
		while_asleep = NULL;
		fn();
	}
	spin_lock(lk);
}

static void setup(void)
{
	host_mm_setup(1 << 20, false);
	rwsem_init(&lock, "test", SLEEP_RANK_TEST_LOW);
	wait_wake_hook = count_wake;
	wait_sleep_hook = fake_sleep;
	wakes = sleeps = 0;
	while_asleep = NULL;
}

static void teardown(void)
{
	wait_wake_hook = NULL;
	wait_sleep_hook = NULL;
	host_mm_teardown();
}

/* The common case of every page fault: no writer waits, nobody to wake
 * (each wake scans every sleeper under the process lock). */
START_TEST(test_reader_alone_wakes_nobody)
{
	for (int i = 0; i < 3; i++) {
		down_read(&lock);
		up_read(&lock);
	}
	down_read(&lock);
	down_read(&lock);
	up_read(&lock);
	up_read(&lock);
	ck_assert_int_eq(wakes, 0);
	ck_assert_int_eq(sleeps, 0);
}
END_TEST

static void release_read(void)
{
	up_read(&lock);
}

/* A writer waiting for a reader: the reader's last up_read wakes it. */
START_TEST(test_last_reader_wakes_waiting_writer)
{
	down_read(&lock);
	while_asleep = release_read;   /* the reader leaves while the writer sleeps */
	down_write(&lock);
	ck_assert_int_eq(sleeps, 1);
	ck_assert_int_eq(wakes, 1);
	ck_assert(rwsem_is_write_locked_by_me(&lock));
	up_write(&lock);
}
END_TEST

/* A reader that is not the last one does not wake the writer. */
START_TEST(test_reader_not_last_wakes_nobody)
{
	down_read(&lock);
	down_read(&lock);
	lock.count += RWSEM_WAITING;   /* as a writer asleep would have left it */
	up_read(&lock);
	ck_assert_int_eq(wakes, 0);
	up_read(&lock);
	ck_assert_int_eq(wakes, 1);
	lock.count -= RWSEM_WAITING;
}
END_TEST

static void writer_stops_waiting(void)
{
	lock.count -= RWSEM_WAITING;   /* it took the lock and let it go */
}

/* Writers are preferred: once one waits, a new reader sleeps behind it
 * (the fast path must not let it in), and gets in once it is gone. */
START_TEST(test_waiting_writer_blocks_new_reader)
{
	lock.count += RWSEM_WAITING;
	while_asleep = writer_stops_waiting;
	down_read(&lock);
	ck_assert_int_eq(sleeps, 1);
	ck_assert(rwsem_is_locked(&lock));
	up_read(&lock);
	ck_assert(!rwsem_is_locked(&lock));
	ck_assert_int_eq(lock.count, 0);
}
END_TEST

/* The trylock takes only a free lock; the writer excludes readers and
 * wakes whoever waits when it leaves. */
START_TEST(test_trylock_and_writer)
{
	down_read(&lock);
	ck_assert(!down_write_trylock(&lock));
	up_read(&lock);
	ck_assert(down_write_trylock(&lock));
	ck_assert(rwsem_is_write_locked_by_me(&lock));
	ck_assert_uint_eq(lock.count, RWSEM_WRITER);
	up_write(&lock);
	ck_assert_int_eq(wakes, 1);
	ck_assert_uint_eq(lock.count, 0);
	down_write(&lock);
	ck_assert_int_eq(sleeps, 0);
	up_write(&lock);
	ck_assert_uint_eq(lock.count, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rwsem");
	TCase *tc = host_tcase(s, "wakes", setup, teardown);
	tcase_add_test(tc, test_reader_alone_wakes_nobody);
	tcase_add_test(tc, test_last_reader_wakes_waiting_writer);
	tcase_add_test(tc, test_reader_not_last_wakes_nobody);
	tcase_add_test(tc, test_waiting_writer_blocks_new_reader);
	tcase_add_test(tc, test_trylock_and_writer);
	return host_run_suite(s);
}

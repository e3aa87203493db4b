/* kernel/time.c -- user time values to nanoseconds and deadlines
 * (kernel/time.h). */
#include "kernel/time.h"
#include "kernel/proc.h"
#include "lib/errno.h"
#include "mm/uaccess.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/rtc.h"
#include "lib/printk.h"

#define FALLBACK_EPOCH 1767225600ULL   /* 2026-01-01, when the RTC holds no date */

static uint64_t epoch_ns;   /* set once at boot, read-only after */

void time_init(void)
{
	struct calendar_time t;
	uint64_t now = clock_ns(), s = FALLBACK_EPOCH;
	if (rtc_read(&t)) {
		s = calendar_to_unix(&t);
		printk("time: %04u-%02u-%02u %02u:%02u:%02u UTC from the RTC\n", t.year, t.month,
		       t.day, t.hour, t.min, t.sec);
	} else {
		printk("time: the RTC holds no date; the clock starts at 2026-01-01\n");
	}
	epoch_ns = s * NSEC_PER_SEC > now ? s * NSEC_PER_SEC - now : 0;
}

uint64_t boot_epoch_ns(void)
{
	return epoch_ns;
}

/* sec * NSEC_PER_SEC + frac_ns, saturated at TIME_NS_MAX (sec >= 0). */
static uint64_t ns_of(int64_t sec, uint64_t frac_ns)
{
	if ((uint64_t)sec >= TIME_NS_MAX / NSEC_PER_SEC)
		return TIME_NS_MAX;
	return MIN((uint64_t)sec * NSEC_PER_SEC + frac_ns, TIME_NS_MAX);
}

int timespec_to_ns(const struct k_timespec *ts, uint64_t *ns)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= (int64_t)NSEC_PER_SEC)
		return -EINVAL;
	*ns = ns_of(ts->tv_sec, (uint64_t)ts->tv_nsec);
	return 0;
}

int timeval_to_ns(const struct k_timeval *tv, uint64_t *ns)
{
	if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)
		return -EINVAL;
	*ns = ns_of(tv->tv_sec, (uint64_t)tv->tv_usec * NSEC_PER_USEC);
	return 0;
}

int timespec_from_user(vaddr_t uaddr, uint64_t *ns)
{
	struct k_timespec ts;
	if (copyin(&ts, uaddr, sizeof(ts)) < 0)
		return -EFAULT;
	return timespec_to_ns(&ts, ns);
}

struct k_timespec ns_to_timespec(uint64_t ns)
{
	return (struct k_timespec){ (int64_t)(ns / NSEC_PER_SEC), (int64_t)(ns % NSEC_PER_SEC) };
}

struct k_timeval ns_to_timeval(uint64_t ns)
{
	uint64_t us = ns / NSEC_PER_USEC + (ns % NSEC_PER_USEC != 0);
	return (struct k_timeval){ (int64_t)(us / 1000000), (int64_t)(us % 1000000) };
}

uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = clock_ns();
	return ns >= TIME_NS_MAX - now ? TIME_NS_MAX : MAX(now + ns, 1);
}

uint64_t deadline_at(uint64_t ns, enum time_clock c)
{
	uint64_t epoch = c == TIME_REALTIME ? boot_epoch_ns() : 0;
	return ns > epoch ? MIN(ns - epoch, TIME_NS_MAX) : 1;
}

/* kernel/time.h -- user time values to nanoseconds and deadlines, in one
 * place, saturating as Linux's ktime does.
 *
 *   struct k_timespec / k_timeval (user)  --timespec_to_ns-->  ns
 *   ns (a duration)                       --deadline_after-->  deadline
 *   ns (a time on CLOCK_REALTIME/...)     --deadline_at----->  deadline
 *
 * A deadline is a time on clock_ns() (nanoseconds since boot). Every value
 * too large for 64-bit nanoseconds becomes TIME_NS_MAX (Linux's KTIME_MAX,
 * about 292 years), and a deadline of TIME_NS_MAX never comes: so a timeout
 * of INT64_MAX seconds waits forever instead of wrapping to "now"
 * (futex, setitimer, nanosleep, clock_nanosleep all convert here).
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "lib/types.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_USEC 1000ULL
#define TIME_NS_MAX ((uint64_t)INT64_MAX)

/* Linux's struct __kernel_timespec and struct __kernel_old_timeval. */
struct k_timespec {
	int64_t tv_sec, tv_nsec;
};
struct k_timeval {
	int64_t tv_sec, tv_usec;
};

/* The clocks a deadline can be given on (Linux's clock ids map to these). */
enum time_clock { TIME_MONOTONIC, TIME_REALTIME };

/* *ns = ts (or tv), saturated at TIME_NS_MAX: 0, or -EINVAL for a negative
 * time or a fraction outside [0, 1 s). */
int timespec_to_ns(const struct k_timespec *ts, uint64_t *ns);
int timeval_to_ns(const struct k_timeval *tv, uint64_t *ns);

/* timespec_to_ns of the user's struct at uaddr: 0, -EFAULT or -EINVAL. */
int timespec_from_user(vaddr_t uaddr, uint64_t *ns);

/* ns as a timespec; ns as a timeval rounded up to the microsecond (Linux:
 * an armed timer never reads as 0). */
struct k_timespec ns_to_timespec(uint64_t ns);
struct k_timeval ns_to_timeval(uint64_t ns);

/* The deadline ns from now: at least 1, at most TIME_NS_MAX. */
uint64_t deadline_after(uint64_t ns);

/* The deadline at time ns on clock c: at least 1 (a time before boot is
 * long past; 0 means "no deadline" to the sleepers), at most TIME_NS_MAX. */
uint64_t deadline_at(uint64_t ns, enum time_clock c);

/* Set the wall clock from the real-time clock (arch/x86_64/rtc.h): the
 * time of boot, so that CLOCK_REALTIME runs on from the RTC's reading with
 * the TSC. An RTC that holds no date leaves 2026-01-01 (said at boot).
 * Once, at boot, after the timer is calibrated. */
void time_init(void);

/* Nanoseconds from 1970-01-01 UTC to the boot (when clock_ns() was 0):
 * CLOCK_REALTIME is clock_ns() + this; /proc/stat's btime its seconds. */
uint64_t boot_epoch_ns(void);

#endif

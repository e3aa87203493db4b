/* sys/features.h -- newlib's feature header, plus the POSIX options Pagoda
 * provides. newlib built for a bare target announces none of them, which
 * hides clock_gettime, nanosleep, CLOCK_MONOTONIC and sched_yield from
 * <time.h> and <sched.h>. The libc glue implements those. sys/config.h
 * includes this before it picks its defaults, so settings here win. */
#ifndef PAGODA_SYS_FEATURES_H
#define PAGODA_SYS_FEATURES_H

#include_next <sys/features.h>

/* read/write return ssize_t as POSIX says (newlib's bare default is int;
 * newlib's own stdio only looks at the low 32 bits, which is compatible). */
#ifndef _READ_WRITE_RETURN_TYPE
#define _READ_WRITE_RETURN_TYPE _ssize_t
#endif

#ifndef _POSIX_TIMERS
#define _POSIX_TIMERS              200809L  /* clock_gettime, nanosleep     */
#endif
#ifndef _POSIX_MONOTONIC_CLOCK
#define _POSIX_MONOTONIC_CLOCK     200809L  /* CLOCK_MONOTONIC              */
#endif
#ifndef _POSIX_CPUTIME
#define _POSIX_CPUTIME             200809L  /* CLOCK_PROCESS_CPUTIME_ID     */
#endif
#ifndef _POSIX_PRIORITY_SCHEDULING
#define _POSIX_PRIORITY_SCHEDULING 200809L  /* sched_yield                  */
#endif

#endif

/* lib/calendar.h -- a UTC date and time as seconds since 1970 (the Unix
 * epoch), for the real-time clock's reading at boot. Proleptic Gregorian
 * calendar: leap years every 4, not every 100, again every 400. */
#ifndef LIB_CALENDAR_H
#define LIB_CALENDAR_H

#include "lib/types.h"

struct calendar_time {
	unsigned year;                /* 1970.. */
	unsigned month, day;          /* 1..12, 1..31 */
	unsigned hour, min, sec;      /* 0..23, 0..59, 0..59 */
};

/* Is t a real date and time, in 1970 or later (Feb 29 only in leap years)? */
bool calendar_valid(const struct calendar_time *t);

/* Seconds since 1970-01-01 00:00:00 UTC of t (calendar_valid). */
uint64_t calendar_to_unix(const struct calendar_time *t);

#endif

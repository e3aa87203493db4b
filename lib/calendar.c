/* lib/calendar.c -- dates to Unix seconds (see lib/calendar.h). */
#include "lib/calendar.h"

static bool leap(unsigned y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(unsigned y, unsigned m)
{
	static const unsigned char days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return days[m - 1] + (m == 2 && leap(y));
}

bool calendar_valid(const struct calendar_time *t)
{
	return t->year >= 1970 && t->year < 10000 && t->month >= 1 && t->month <= 12 &&
	       t->day >= 1 && t->day <= month_days(t->year, t->month) && t->hour < 24 &&
	       t->min < 60 && t->sec < 60;
}

/* Days from 1970-01-01 to the first day of year y. */
static uint64_t days_before_year(unsigned y)
{
	uint64_t n = (uint64_t)(y - 1970) * 365;
	unsigned p = y - 1;   /* leap years in [1970, y): counted from year 1 */
	return n + (p / 4 - p / 100 + p / 400) - (1969 / 4 - 1969 / 100 + 1969 / 400);
}

uint64_t calendar_to_unix(const struct calendar_time *t)
{
	uint64_t days = days_before_year(t->year) + t->day - 1;
	for (unsigned m = 1; m < t->month; m++)
		days += month_days(t->year, m);
	return days * 86400 + t->hour * 3600u + t->min * 60u + t->sec;
}

/* tests/unit/test_calendar.c -- lib/calendar against dates whose Unix
 * seconds Python's calendar.timegm gives (the leap-year rules of 2000 and
 * 2100 included), and the dates it must refuse. */
#include <check.h>
#include "lib/calendar.h"

static uint64_t secs(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s)
{
	struct calendar_time t = { y, mo, d, h, mi, s };
	ck_assert(calendar_valid(&t));
	return calendar_to_unix(&t);
}

static bool valid(unsigned y, unsigned mo, unsigned d)
{
	struct calendar_time t = { y, mo, d, 0, 0, 0 };
	return calendar_valid(&t);
}

START_TEST(test_known_dates)
{
	ck_assert_uint_eq(secs(1970, 1, 1, 0, 0, 0), 0);
	ck_assert_uint_eq(secs(1999, 12, 31, 23, 59, 59), 946684799);
	ck_assert_uint_eq(secs(2000, 2, 29, 12, 0, 0), 951825600);
	ck_assert_uint_eq(secs(2026, 12, 4, 13, 5, 7), 1796389507);
	ck_assert_uint_eq(secs(2038, 1, 19, 3, 14, 8), 2147483648u);
	ck_assert_uint_eq(secs(2100, 3, 1, 0, 0, 0), 4107542400u);
}
END_TEST

START_TEST(test_invalid_dates)
{
	ck_assert(valid(2000, 2, 29));    /* divisible by 400: leap */
	ck_assert(!valid(2100, 2, 29));   /* by 100, not 400: not */
	ck_assert(!valid(2026, 2, 29));
	ck_assert(!valid(2026, 4, 31));
	ck_assert(!valid(2026, 13, 1));
	ck_assert(!valid(2026, 0, 1));
	ck_assert(!valid(1969, 12, 31));
	struct calendar_time t = { 2026, 1, 1, 24, 0, 0 };
	ck_assert(!calendar_valid(&t));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("calendar");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_known_dates);
	tcase_add_test(tc, test_invalid_dates);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

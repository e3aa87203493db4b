/* tests/unit/test_format.c -- printk's formatting engine against expected
 * strings (and against the host's snprintf where C defines the result). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "lib/format.h"

static char buf[128];

#define FMT(...) (ksnprintf(buf, sizeof(buf), __VA_ARGS__), buf)

/* Compare with the host libc for a format both must agree on. */
#define SAME_AS_LIBC(...)                                              \
	do {                                                           \
		char want[128];                                        \
		snprintf(want, sizeof(want), __VA_ARGS__);             \
		ck_assert_str_eq(FMT(__VA_ARGS__), want);              \
	} while (0)

START_TEST(test_integers)
{
	SAME_AS_LIBC("%d", 0);
	SAME_AS_LIBC("%d", -2147483647 - 1);
	SAME_AS_LIBC("%u", 4294967295u);
	SAME_AS_LIBC("%ld", -9223372036854775807L - 1);
	SAME_AS_LIBC("%lu", 18446744073709551615UL);
	SAME_AS_LIBC("%x %X %o", 0xbeefu, 0xbeefu, 8u);
	SAME_AS_LIBC("%lx", 0xffff800000000000UL);
	SAME_AS_LIBC("%zu", (size_t)12345);
	SAME_AS_LIBC("%hhd %hd", (signed char)-5, (short)-300);
}
END_TEST

START_TEST(test_width_and_padding)
{
	SAME_AS_LIBC("[%5d]", 42);
	SAME_AS_LIBC("[%-5d]", 42);
	SAME_AS_LIBC("[%05d]", -42);
	SAME_AS_LIBC("[%016lx]", 0xdeadUL);
	SAME_AS_LIBC("[%#x]", 255u);
	SAME_AS_LIBC("[%#x]", 0u);
	SAME_AS_LIBC("[%#010x]", 255u);
	SAME_AS_LIBC("[%*d]", 6, 7);
	SAME_AS_LIBC("[%-8s]", "ab");
	SAME_AS_LIBC("[%8s]", "ab");
	SAME_AS_LIBC("[%.2s]", "abcdef");
	SAME_AS_LIBC("[%3c]", 'x');
}
END_TEST

/* These formats are deliberately odd: silence gcc's printf checks here. */
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wformat-extra-args"

START_TEST(test_pointer_and_string)
{
	ck_assert_str_eq(FMT("%p", (void *)0x1234), "0x1234");
	ck_assert_str_eq(FMT("%s", (char *)NULL), "(null)");
	ck_assert_str_eq(FMT("100%%"), "100%");
	ck_assert_str_eq(FMT("%q"), "%q");   /* unknown: verbatim */
}
END_TEST

START_TEST(test_truncation)
{
	char small[6];
	int n = ksnprintf(small, sizeof(small), "%s", "abcdefgh");
	ck_assert_int_eq(n, 8);             /* length it would have had */
	ck_assert_str_eq(small, "abcde");   /* always NUL-terminated */
	ck_assert_int_eq(ksnprintf(NULL, 0, "%d", 12345), 5);
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_integers);
	tcase_add_test(tc, test_width_and_padding);
	tcase_add_test(tc, test_pointer_and_string);
	tcase_add_test(tc, test_truncation);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(format_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

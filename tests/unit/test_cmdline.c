/* tests/unit/test_cmdline.c -- kernel command-line parsing. */
#include <check.h>
#include <string.h>
#include "lib/cmdline.h"

START_TEST(test_key_values)
{
	ck_assert_int_eq(cmdline_parse("test=mm ptshare=fork quiet"), 3);
	ck_assert_str_eq(cmdline_get("test"), "mm");
	ck_assert_str_eq(cmdline_get("ptshare"), "fork");
	ck_assert_str_eq(cmdline_get("quiet"), "");
	ck_assert_ptr_null(cmdline_get("bench"));
	ck_assert(cmdline_has("quiet"));
	ck_assert(!cmdline_has("ques"));
	ck_assert_str_eq(cmdline_get_or("pv", "patched"), "patched");
	ck_assert_str_eq(cmdline_raw(), "test=mm ptshare=fork quiet");
}
END_TEST

START_TEST(test_whitespace_and_override)
{
	ck_assert_int_eq(cmdline_parse("  a=1\t\tb=x=y   a=2  "), 3);
	ck_assert_str_eq(cmdline_get("a"), "2");     /* last one wins */
	ck_assert_str_eq(cmdline_get("b"), "x=y");   /* split at first '=' */
	ck_assert_int_eq(cmdline_parse(""), 0);
	ck_assert_ptr_null(cmdline_get("a"));
}
END_TEST

START_TEST(test_numbers)
{
	cmdline_parse("mem=64M n=0x10 k=4k bad=12x plain=77");
	ck_assert_uint_eq(cmdline_get_u64("mem", 0), 64ULL << 20);
	ck_assert_uint_eq(cmdline_get_u64("n", 0), 16);
	ck_assert_uint_eq(cmdline_get_u64("k", 0), 4096);
	ck_assert_uint_eq(cmdline_get_u64("bad", 5), 5);
	ck_assert_uint_eq(cmdline_get_u64("plain", 0), 77);
	ck_assert_uint_eq(cmdline_get_u64("missing", 9), 9);
}
END_TEST

START_TEST(test_lists)
{
	ck_assert(cmdline_list_has("mm,boot", "boot"));
	ck_assert(cmdline_list_has("mm", "mm"));
	ck_assert(!cmdline_list_has("mmu,boot", "mm"));
	ck_assert(!cmdline_list_has("", "mm"));
}
END_TEST

START_TEST(test_limits)
{
	char big[CMDLINE_MAX + 10];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ck_assert_int_eq(cmdline_parse(big), -1);
	char many[CMDLINE_MAX] = "";
	for (int i = 0; i < CMDLINE_MAX_OPTS + 1; i++)
		strcat(many, "k ");
	ck_assert_int_eq(cmdline_parse(many), -1);
}
END_TEST

static Suite *cmdline_suite(void)
{
	Suite *s = suite_create("cmdline");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_key_values);
	tcase_add_test(tc, test_whitespace_and_override);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cmdline_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

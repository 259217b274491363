// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PCI address validation and normalisation.
 */
#include <errno.h>
#include <string.h>

#include "cksuite.h"

static const struct {
	const char *in;
	const char *out;
} good[] = {
	{ "0000:01:00.0", "0000:01:00.0" },
	{ "01:00.0", "0000:01:00.0" },
	{ "00:1f.7", "0000:00:1f.7" },
	{ "0000:00:02.0", "0000:00:02.0" },
	{ "0000:FF:1F.7", "0000:ff:1f.7" },
	{ "ab:0C.3", "0000:ab:0c.3" },
	{ "1:02:03.4", "0001:02:03.4" },
	{ "000a:00:00.0", "000a:00:00.0" },
	{ "10000:e1:00.1", "10000:e1:00.1" },		/* VMD domains */
	{ "ffffffff:ff:1f.7", "ffffffff:ff:1f.7" },
	{ "00000000:00:00.0", "0000:00:00.0" },
};

START_TEST(test_good)
{
	char out[PCIERR_ADDR_STRLEN];

	memset(out, 'x', sizeof(out));
	ck_assert_int_eq(pcierr_addr_normalize(good[_i].in, out), 0);
	ck_assert_str_eq(out, good[_i].out);
}
END_TEST

START_TEST(test_good_in_place)
{
	char buf[PCIERR_ADDR_STRLEN];

	snprintf(buf, sizeof(buf), "%s", good[_i].in);
	ck_assert_int_eq(pcierr_addr_normalize(buf, buf), 0);
	ck_assert_str_eq(buf, good[_i].out);
}
END_TEST

static const char *const bad[] = {
	"",
	"0",
	"01:00",
	"01:00.",
	"1:00.0",		/* short form needs two-digit bus */
	"01:0.0",
	"001:00.0",
	"0000:1:00.0",
	"0000:01:0.0",
	"0000:01:00.00",
	"0000:01:00.8",		/* function > 7 */
	"0000:01:20.0",		/* device > 1f */
	"0000:100:00.0",
	"100000000:00:00.0",	/* domain > 8 digits */
	"0000:01:00.0 ",
	" 0000:01:00.0",
	"0000:01:00.0\n",
	"0000-01-00.0",
	"0000:01:00:0",
	"0000:01.00.0",
	"g000:01:00.0",
	"0000:0g:00.0",
	"0000:01:00.x",
	"+000:01:00.0",
	"0x00:01:00.0",
	"0000:01:00.0.0",
	"::.",
	"0000::00.0",
	"0000:01:00.-1",
};

START_TEST(test_bad)
{
	char out[PCIERR_ADDR_STRLEN];

	ck_assert_int_eq(pcierr_addr_normalize(bad[_i], out), -EINVAL);
}
END_TEST

START_TEST(test_null)
{
	char out[PCIERR_ADDR_STRLEN];

	ck_assert_int_eq(pcierr_addr_normalize(NULL, out), -EINVAL);
	ck_assert_int_eq(pcierr_addr_normalize("0000:00:00.0", NULL), -EINVAL);
}
END_TEST

START_TEST(test_long_input)
{
	char in[4096], out[PCIERR_ADDR_STRLEN];

	memset(in, '0', sizeof(in) - 1);
	in[sizeof(in) - 1] = 0;
	ck_assert_int_eq(pcierr_addr_normalize(in, out), -EINVAL);
}
END_TEST

Suite *suite_addr(void)
{
	Suite *s = suite_create("addr");
	TCase *tc = tcase_create("normalize");

	tcase_add_loop_test(tc, test_good, 0, ARRAY_SIZE(good));
	tcase_add_loop_test(tc, test_good_in_place, 0, ARRAY_SIZE(good));
	tcase_add_loop_test(tc, test_bad, 0, ARRAY_SIZE(bad));
	tcase_add_test(tc, test_null);
	tcase_add_test(tc, test_long_input);
	suite_add_tcase(s, tc);
	return s;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The second unit test runner: pcierrd's glue (manager.c, recovery*.c,
 * kernel-source.c, udev-source.c) linked whole against the fake kernel
 * side. Apart from check-all because cksuite-bus.c there stands in for
 * the manager_*() functions this one links for real. make unit-check
 * runs both.
 */
#include <stdlib.h>

#include <check.h>

Suite *suite_manager(void);
Suite *suite_status(void);
Suite *suite_hold(void);

int main(void)
{
	SRunner *sr = srunner_create(suite_manager());
	int failed;

	srunner_add_suite(sr, suite_status());
	srunner_add_suite(sr, suite_hold());
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

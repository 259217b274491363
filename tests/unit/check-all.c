// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The unit test runner: every suite of the tree, in one srunner.
 * CK_FORK (default yes), CK_VERBOSITY, CK_RUN_SUITE, CK_RUN_CASE are
 * honoured as usual.
 * Every suite listed here must link: a suite missing from the build is a
 * link error, never a silent skip.
 */
#include <stdlib.h>

#include "cksuite.h"
#include "cksuites.h"

int main(void)
{
	Suite *(*const suites[])(void) = {
		suite_names,
		suite_addr,
		suite_notify,
		suite_pe,
		suite_reply,
		suite_ctx,
		suite_policy,
		suite_config,
		suite_state,
		suite_metrics,
		suite_uevent,
		suite_bus,
		suite_ctl,
		suite_polkit,
		suite_pseries,
		suite_verify,
	};
	SRunner *sr = NULL;
	int failed;

	for (size_t i = 0; i < ARRAY_SIZE(suites); i++) {
		if (!sr)
			sr = srunner_create(suites[i]());
		else
			srunner_add_suite(sr, suites[i]());
	}

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

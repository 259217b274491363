/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit test suites; tests/unit/check-all.c runs them all.
 */
#ifndef PCIERR_CKSUITES_H
#define PCIERR_CKSUITES_H

#include <check.h>

Suite *suite_policy(void);
Suite *suite_config(void);
Suite *suite_state(void);
Suite *suite_metrics(void);
Suite *suite_uevent(void);
Suite *suite_bus(void);
Suite *suite_ctl(void);
Suite *suite_polkit(void);
Suite *suite_pseries(void);
Suite *suite_verify(void);

#endif /* PCIERR_CKSUITES_H */

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Name tables: every value round-trips, nothing else has a name.
 */
#include <errno.h>
#include <string.h>

#include "cksuite.h"

enum table { T_STEP, T_RESULT, T_STATE, T_PE_STATE, T_SOURCE, T_RESET, T_HANDLER, T_OP, T_STAT };

static const char *to_string(enum table t, int v)
{
	switch (t) {
	case T_STEP:     return pcierr_step_to_string(v);
	case T_RESULT:   return pcierr_result_to_string(v);
	case T_STATE:    return pcierr_state_to_string(v);
	case T_PE_STATE: return pcierr_pe_state_to_string(v);
	case T_SOURCE:   return pcierr_source_to_string(v);
	case T_RESET:    return pcierr_reset_type_to_string(v);
	case T_HANDLER:  return pcierr_handler_to_string(v);
	case T_OP:       return pcierr_op_to_string(v);
	case T_STAT:     return pcierr_stat_to_string(v);
	}
	return NULL;
}

static int from_string(enum table t, const char *s)
{
	switch (t) {
	case T_STEP:     return pcierr_step_from_string(s);
	case T_RESULT:   return pcierr_result_from_string(s);
	case T_STATE:    return pcierr_state_from_string(s);
	case T_PE_STATE: return pcierr_pe_state_from_string(s);
	case T_SOURCE:   return pcierr_source_from_string(s);
	case T_RESET:    return pcierr_reset_type_from_string(s);
	case T_HANDLER:  return pcierr_handler_from_string(s);
	case T_OP:       return pcierr_op_from_string(s);
	case T_STAT:     return pcierr_stat_from_string(s);
	}
	return -EINVAL;
}

static const struct {
	enum table t;
	int value;
	const char *name;
} names[] = {
	{ T_STEP, PCIERR_STEP_ERROR_DETECTED, "error_detected" },
	{ T_STEP, PCIERR_STEP_MMIO_ENABLED, "mmio_enabled" },
	{ T_STEP, PCIERR_STEP_SLOT_RESET, "slot_reset" },
	{ T_STEP, PCIERR_STEP_RESUME, "resume" },
	{ T_STEP, PCIERR_STEP_PERM_FAILURE, "perm_failure" },
	{ T_RESULT, PCIERR_RESULT_NONE, "none" },
	{ T_RESULT, PCIERR_RESULT_CAN_RECOVER, "can_recover" },
	{ T_RESULT, PCIERR_RESULT_NEED_RESET, "need_reset" },
	{ T_RESULT, PCIERR_RESULT_DISCONNECT, "disconnect" },
	{ T_RESULT, PCIERR_RESULT_RECOVERED, "recovered" },
	{ T_RESULT, PCIERR_RESULT_NO_DRIVER, "no_driver" },
	{ T_RESULT, PCIERR_RESULT_GONE, "gone" },
	{ T_STATE, PCIERR_STATE_NORMAL, "normal" },
	{ T_STATE, PCIERR_STATE_FROZEN, "frozen" },
	{ T_STATE, PCIERR_STATE_PERM_FAILURE, "perm_failure" },
	{ T_PE_STATE, PCIERR_PE_STATE_NORMAL, "normal" },
	{ T_PE_STATE, PCIERR_PE_STATE_FROZEN, "frozen" },
	{ T_PE_STATE, PCIERR_PE_STATE_MMIO_ENABLED, "mmio_enabled" },
	{ T_PE_STATE, PCIERR_PE_STATE_RESET, "reset" },
	{ T_PE_STATE, PCIERR_PE_STATE_REMOVED, "removed" },
	{ T_PE_STATE, PCIERR_PE_STATE_DISABLED, "disabled" },
	{ T_SOURCE, PCIERR_SOURCE_INJECT, "inject" },
	{ T_SOURCE, PCIERR_SOURCE_CHECK, "check" },
	{ T_SOURCE, PCIERR_SOURCE_WATCHDOG, "watchdog" },
	{ T_SOURCE, PCIERR_SOURCE_DRIVER, "driver" },
	{ T_RESET, PCIERR_RESET_HOT, "hot" },
	{ T_RESET, PCIERR_RESET_FUNDAMENTAL, "fundamental" },
	{ T_HANDLER, PCIERR_HANDLER_ERROR_DETECTED, "error_detected" },
	{ T_HANDLER, PCIERR_HANDLER_MMIO_ENABLED, "mmio_enabled" },
	{ T_HANDLER, PCIERR_HANDLER_SLOT_RESET, "slot_reset" },
	{ T_HANDLER, PCIERR_HANDLER_RESUME, "resume" },
	{ T_HANDLER, PCIERR_HANDLER_RESET_PREPARE, "reset_prepare" },
	{ T_HANDLER, PCIERR_HANDLER_RESET_DONE, "reset_done" },
	{ T_OP, PCIERR_CMD_REPORT, "report" },
	{ T_OP, PCIERR_CMD_ENABLE_IO, "enable_io" },
	{ T_OP, PCIERR_CMD_RESET, "reset" },
	{ T_OP, PCIERR_CMD_REMOVE, "remove" },
	{ T_OP, PCIERR_CMD_RESCAN, "rescan" },
	{ T_OP, PCIERR_CMD_DISABLE, "disable" },
	{ T_OP, PCIERR_CMD_ENABLE, "enable" },
	{ T_STAT, PCIERR_STAT_CHECKS, "checks" },
	{ T_STAT, PCIERR_STAT_ALL_ONES, "all_ones" },
	{ T_STAT, PCIERR_STAT_FALSE_POSITIVES, "false_positives" },
	{ T_STAT, PCIERR_STAT_IGNORED, "ignored" },
	{ T_STAT, PCIERR_STAT_FREEZES, "freezes" },
	{ T_STAT, PCIERR_STAT_EVENTS_SENT, "events_sent" },
	{ T_STAT, PCIERR_STAT_EVENTS_DROPPED, "events_dropped" },
	{ T_STAT, PCIERR_STAT_RESETS, "resets" },
	{ T_STAT, PCIERR_STAT_HOTPLUGS, "hotplugs" },
	{ T_STAT, PCIERR_STAT_OPS, "ops" },
	{ T_STAT, PCIERR_STAT_OPS_FAILED, "ops_failed" },
};

START_TEST(test_round_trip)
{
	const char *s = to_string(names[_i].t, names[_i].value);

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s, names[_i].name);
	ck_assert_int_eq(from_string(names[_i].t, names[_i].name), names[_i].value);
}
END_TEST

/* each table has exactly the names above: count per table */
static const struct {
	enum table t;
	int first, last;	/* every value in first..last is named */
} ranges[] = {
	{ T_STEP, 1, PCIERR_STEP_MAX },
	{ T_RESULT, 1, PCIERR_RESULT_MAX },
	{ T_STATE, 1, PCIERR_STATE_MAX },
	{ T_PE_STATE, 1, PCIERR_PE_STATE_MAX },
	{ T_SOURCE, 1, PCIERR_SOURCE_MAX },
	{ T_RESET, 1, PCIERR_RESET_MAX },
	{ T_HANDLER, 0, __PCIERR_HANDLER_MAX - 1 },
	{ T_OP, PCIERR_CMD_REPORT, PCIERR_CMD_ENABLE },
	{ T_STAT, 1, PCIERR_STAT_OPS_FAILED },
};

START_TEST(test_ranges)
{
	enum table t = ranges[_i].t;

	for (int v = ranges[_i].first; v <= ranges[_i].last; v++)
		ck_assert_msg(to_string(t, v), "table %d value %d has no name", t, v);
	/* just outside, and far outside, there is none */
	if (ranges[_i].first > 0)
		ck_assert_ptr_null(to_string(t, ranges[_i].first - 1));
	ck_assert_ptr_null(to_string(t, ranges[_i].last + 1));
	ck_assert_ptr_null(to_string(t, 1000));
	ck_assert_ptr_null(to_string(t, -1));
}
END_TEST

static const struct {
	enum table t;
	const char *name;
} bad_names[] = {
	{ T_STEP, "" }, { T_STEP, "ERROR_DETECTED" }, { T_STEP, "error_detected " },
	{ T_STEP, "error" }, { T_STEP, NULL }, { T_STEP, "unspec" },
	{ T_RESULT, "need-reset" }, { T_RESULT, "unspec" }, { T_RESULT, NULL },
	{ T_STATE, "Frozen" }, { T_STATE, "" }, { T_STATE, "mmio_enabled" },
	{ T_PE_STATE, "perm_failure" }, { T_PE_STATE, NULL },
	{ T_SOURCE, "aer" }, { T_SOURCE, "" },
	/* v2: values nothing produced are gone from the ABI */
	{ T_SOURCE, "platform" }, { T_STEP, "link_reset" },
	{ T_HANDLER, "link_reset" }, { T_HANDLER, "cor_error_detected" },
	{ T_RESET, "warm" }, { T_RESET, "HOT" },
	{ T_HANDLER, "perm_failure" }, { T_HANDLER, "" },
	{ T_OP, "get_pe" }, { T_OP, "inject" }, { T_OP, "watch" }, { T_OP, "enable-io" },
	{ T_STAT, "pad" }, { T_STAT, "unspec" }, { T_STAT, "checks\n" },
};

START_TEST(test_bad_names)
{
	ck_assert_int_eq(from_string(bad_names[_i].t, bad_names[_i].name), -EINVAL);
}
END_TEST

static const struct {
	uint32_t mask;
	const char *text;
} handler_masks[] = {
	{ 0, "" },
	{ 1U << PCIERR_HANDLER_ERROR_DETECTED, "error_detected" },
	{ 1U << PCIERR_HANDLER_ERROR_DETECTED | 1U << PCIERR_HANDLER_MMIO_ENABLED |
	  1U << PCIERR_HANDLER_SLOT_RESET | 1U << PCIERR_HANDLER_RESUME,
	  "error_detected,mmio_enabled,slot_reset,resume" },
	{ 1U << PCIERR_HANDLER_RESET_DONE | 1U << PCIERR_HANDLER_RESET_PREPARE,
	  "reset_prepare,reset_done" },
	{ (1U << __PCIERR_HANDLER_MAX) - 1,
	  "error_detected,mmio_enabled,slot_reset,resume,reset_prepare,reset_done" },
	/* a newer module's handler bit: shown, not dropped */
	{ 1U << __PCIERR_HANDLER_MAX | 1U << PCIERR_HANDLER_RESUME, "resume,0x40" },
	{ 1U << 31 | 1U << PCIERR_HANDLER_RESUME, "resume,0x80000000" },
	{ 1U << 30 | 1U << 8, "0x40000100" },
};

START_TEST(test_handlers_to_string)
{
	char buf[256];

	ck_assert_int_eq(pcierr_handlers_to_string(handler_masks[_i].mask, buf, sizeof(buf)),
			 (int)strlen(handler_masks[_i].text));
	ck_assert_str_eq(buf, handler_masks[_i].text);
}
END_TEST

START_TEST(test_handlers_to_string_small)
{
	char buf[10];

	ck_assert_int_eq(pcierr_handlers_to_string(0xf, buf, sizeof(buf)), -ENOBUFS);
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
	ck_assert_int_eq(pcierr_handlers_to_string(0, NULL, 0), -ENOBUFS);
	ck_assert_int_eq(pcierr_handlers_to_string(0, buf, 1), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

Suite *suite_names(void)
{
	Suite *s = suite_create("names");
	TCase *tc;

	tc = tcase_create("round_trip");
	tcase_add_loop_test(tc, test_round_trip, 0, ARRAY_SIZE(names));
	tcase_add_loop_test(tc, test_ranges, 0, ARRAY_SIZE(ranges));
	tcase_add_loop_test(tc, test_bad_names, 0, ARRAY_SIZE(bad_names));
	suite_add_tcase(s, tc);

	tc = tcase_create("handlers");
	tcase_add_loop_test(tc, test_handlers_to_string, 0, ARRAY_SIZE(handler_masks));
	tcase_add_test(tc, test_handlers_to_string_small);
	suite_add_tcase(s, tc);
	return s;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parsing the multicast notifications: EVENT, OP_DONE, OVERFLOW, built
 * as the kernel builds them; and every kind of malformed one. Also the
 * generic netlink controller's family messages (NEWFAMILY, DELFAMILY,
 * ...), of "pcierr" and of other families.
 */
#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "cksuite.h"

/* also used by cksuite-ctx.c */
struct nl_msg *ck_build_ctrl(uint8_t cmd, const char *name, uint16_t id);

static void free_msg(struct nl_msg **m)
{
	nlmsg_free(*m);
	*m = NULL;
}

static int parse(struct nl_msg *m, struct pcierr_notification **n)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	return pcierr_parse_notification(nlh, nlh->nlmsg_len, n);
}

START_TEST(test_event)
{
	struct nl_msg *m = ck_build_event(42);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(n->event.seq, 42);
	ck_assert_str_eq(n->event.pe, "0000:00:02.0");
	ck_assert_str_eq(n->event.dev, "0000:01:00.0");
	ck_assert_int_eq(n->event.state, PCIERR_STATE_FROZEN);
	ck_assert_int_eq(n->event.source, PCIERR_SOURCE_INJECT);
	ck_assert_uint_eq(n->event.time_unavail_ms, 250);
	ck_assert_uint_eq(n->event.timestamp_ns, 123456789000ULL);
	ck_assert_uint_eq(n->event.error_gen, 3);
	ck_assert_uint_eq(n->event.pe_id, CK_PE_ID);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

/* issue 12: an EVENT naming the RECOVER an armed PE started (ARM) */
START_TEST(test_event_auto_op_id)
{
	struct pcierr_notification *n = NULL;
	struct nl_msg *m;

	/* none: 0 */
	m = ck_build_event(1);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_uint_eq(n->event.auto_op_id, 0);
	pcierr_notification_free(n);
	free_msg(&m);

	m = ck_build_event(2);
	ck_assert_int_eq(nla_put_u64(m, PCIERR_A_AUTO_OP_ID, 0x1234567890ULL), 0);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_uint_eq(n->event.auto_op_id, 0x1234567890ULL);
	ck_assert_uint_eq(n->event.seq, 2);
	pcierr_notification_free(n);
	free_msg(&m);

	/* a u32 where a u64 belongs: malformed */
	m = ck_build_event(3);
	ck_assert_int_eq(nla_put_u32(m, PCIERR_A_AUTO_OP_ID, 7), 0);
	ck_assert_int_eq(parse(m, &n), -EBADMSG);
	free_msg(&m);
}
END_TEST

/* pseries: the platform error detail an EVENT carries (docs/pseries.md) */
START_TEST(test_event_detail)
{
	static const uint8_t log[12] = { 0x06, 0x84, 0x23, 0x40, 0, 0, 0, 4, 1, 2, 3, 4 };
	static uint8_t big[PCIERR_DETAIL_MAX + 1];
	struct pcierr_notification *n = NULL;
	struct nl_msg *m;

	/* none: not pseries */
	m = ck_build_event(1);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_int_eq(n->event.detail.severity, PCIERR_DETAIL_UNSPEC);
	pcierr_notification_free(n);
	free_msg(&m);

	/* refused by firmware (QEMU: no EEH): a status, no bytes */
	m = ck_build_event(2);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_SEVERITY, PCIERR_DETAIL_TEMPORARY);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_STATUS, (uint32_t)-3);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_int_eq(n->event.detail.severity, PCIERR_DETAIL_TEMPORARY);
	ck_assert_int_eq(n->event.detail.status, -3);
	ck_assert_uint_eq(n->event.detail.len, 0);
	pcierr_notification_free(n);
	free_msg(&m);

	/* a log */
	m = ck_build_event(3);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_SEVERITY, PCIERR_DETAIL_PERMANENT);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_STATUS, 0);
	ck_assert_int_eq(nla_put(m, PCIERR_A_ERROR_DETAIL, sizeof(log), log), 0);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_int_eq(n->event.detail.severity, PCIERR_DETAIL_PERMANENT);
	ck_assert_int_eq(n->event.detail.status, 0);
	ck_assert_uint_eq(n->event.detail.len, sizeof(log));
	ck_assert_mem_eq(n->event.detail.data, log, sizeof(log));
	pcierr_notification_free(n);
	free_msg(&m);

	/* too long: malformed; severity 0: malformed */
	m = ck_build_event(4);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_SEVERITY, PCIERR_DETAIL_TEMPORARY);
	ck_assert_int_eq(nla_put(m, PCIERR_A_ERROR_DETAIL, sizeof(big), big), 0);
	ck_assert_int_eq(parse(m, &n), -EBADMSG);
	free_msg(&m);
	m = ck_build_event(5);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_SEVERITY, 0);
	ck_assert_int_eq(parse(m, &n), -EBADMSG);
	free_msg(&m);
	/* a severity a newer module has: carried, not refused (ABI v2) */
	m = ck_build_event(6);
	ck_put_u32(m, 0, PCIERR_A_ERROR_DETAIL_SEVERITY, 3);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_int_eq(n->event.detail.severity, 3);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

START_TEST(test_op_done_report)
{
	struct nl_msg *m = ck_build_op_done(7, PCIERR_CMD_REPORT);
	struct pcierr_notification *n = NULL;
	const struct pcierr_op_done *d;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, PCIERR_NOTIFY_OP_DONE);
	d = &n->op_done;
	ck_assert_uint_eq(d->op_id, 7);
	ck_assert_int_eq(d->op, PCIERR_CMD_REPORT);
	ck_assert_str_eq(d->pe, "0000:00:02.0");
	ck_assert_uint_eq(d->pe_id, CK_PE_ID + 1);
	ck_assert_int_eq(d->step, PCIERR_STEP_ERROR_DETECTED);
	ck_assert_int_eq(d->result, PCIERR_RESULT_NEED_RESET);
	ck_assert_int_eq(d->error, 0);
	ck_assert_uint_eq(d->duration_ns, 4242);
	ck_assert_uint_eq(d->start_ns, 1000000);
	ck_assert_int_eq(d->pe_state, PCIERR_PE_STATE_FROZEN);
	ck_assert_uint_eq(d->n_results, 2);
	ck_assert_str_eq(d->results[0].addr, "0000:01:00.0");
	ck_assert_int_eq(d->results[0].result, PCIERR_RESULT_NEED_RESET);
	ck_assert_str_eq(d->results[1].addr, "0000:01:00.1");
	ck_assert_int_eq(d->results[1].result, PCIERR_RESULT_NONE);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

static const uint32_t other_ops[] = {
	PCIERR_CMD_ENABLE_IO, PCIERR_CMD_RESET, PCIERR_CMD_REMOVE, PCIERR_CMD_RESCAN,
	PCIERR_CMD_DISABLE, PCIERR_CMD_ENABLE,
};

START_TEST(test_op_done_other)
{
	struct nl_msg *m = ck_build_op_done(1000 + _i, other_ops[_i]);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, PCIERR_NOTIFY_OP_DONE);
	ck_assert_uint_eq(n->op_done.op_id, 1000 + _i);
	ck_assert_int_eq(n->op_done.op, other_ops[_i]);
	ck_assert_int_eq(n->op_done.step, PCIERR_STEP_UNSPEC);
	ck_assert_int_eq(n->op_done.result, PCIERR_RESULT_UNSPEC);
	ck_assert_uint_eq(n->op_done.n_results, 0);
	ck_assert_ptr_null(n->op_done.results);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

START_TEST(test_overflow)
{
	struct nl_msg *m = ck_build_overflow(17, 1234);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, PCIERR_NOTIFY_OVERFLOW);
	ck_assert_uint_eq(n->overflow.dropped, 17);
	ck_assert_uint_eq(n->overflow.next_seq, 1234);
	ck_assert_int_eq(n->overflow.reason, PCIERR_OVERFLOW_KERNEL);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

/* Other commands of the family are no notifications: ignored. */
START_TEST(test_not_a_notification)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_STATS, 0, 0);
	struct pcierr_notification *n = (void *)1;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_null(n);
	free_msg(&m);
}
END_TEST

/* Attributes of a newer ABI are ignored. */
START_TEST(test_unknown_attrs_ignored)
{
	struct nl_msg *m = ck_build_event(5);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(nla_put_u32(m, PCIERR_A_MAX + 1, 77), 0);
	ck_assert_int_eq(nla_put_string(m, PCIERR_A_MAX + 9, "future"), 0);
	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_uint_eq(n->event.seq, 5);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

/* ------------------------------------------------------------------ */

enum which { W_EVENT, W_OP_DONE, W_OVERFLOW };

static const struct {
	const char *name;
	enum which which;
	struct ck_override ov;
} bad[] = {
	/* EVENT: missing */
	{ "event_no_seq",    W_EVENT, OV_OMIT(0, PCIERR_A_SEQ) },
	{ "event_no_pe_id",  W_EVENT, OV_OMIT(0, PCIERR_A_PE_ID) },
	{ "event_pe_id_0",   W_EVENT, OV_NUM(0, PCIERR_A_PE_ID, CK_U64, 0) },
	{ "event_pe_id_u32", W_EVENT, OV_NUM(0, PCIERR_A_PE_ID, CK_U32, 7) },
	{ "event_no_pe",     W_EVENT, OV_OMIT(0, PCIERR_A_PE) },
	{ "event_no_dev",    W_EVENT, OV_OMIT(0, PCIERR_A_DEVICE) },
	{ "event_no_state",  W_EVENT, OV_OMIT(0, PCIERR_A_STATE) },
	{ "event_no_source", W_EVENT, OV_OMIT(0, PCIERR_A_SOURCE) },
	/* EVENT: wrong types and lengths */
	{ "event_seq_u32",   W_EVENT, OV_NUM(0, PCIERR_A_SEQ, CK_U32, 1) },
	{ "event_state_u16", W_EVENT, OV_NUM(0, PCIERR_A_STATE, CK_U16, 2) },
	{ "event_state_u64", W_EVENT, OV_NUM(0, PCIERR_A_STATE, CK_U64, 2) },
	{ "event_ts_u32",    W_EVENT, OV_NUM(0, PCIERR_A_TIMESTAMP_NS, CK_U32, 2) },
	{ "event_gen_u64",   W_EVENT, OV_NUM(0, PCIERR_A_ERROR_GEN, CK_U64, 2) },
	{ "event_pe_u32",    W_EVENT, OV_NUM(0, PCIERR_A_PE, CK_U32, 0x30303030) },
	{ "event_pe_empty",  W_EVENT, OV_RAW(0, PCIERR_A_PE, "", 0) },
	{ "event_pe_unterminated", W_EVENT, OV_RAW(0, PCIERR_A_PE, "0000:00:02.0", 12) },
	{ "event_pe_inner_nul", W_EVENT, OV_RAW(0, PCIERR_A_PE, "0000:00\0:02.0", 14) },
	{ "event_pe_oversize", W_EVENT, OV_STR(0, PCIERR_A_PE, "0000:00:02.00000000000000000000") },
	{ "event_pe_bad_syntax", W_EVENT, OV_STR(0, PCIERR_A_PE, "0000:00:02") },
	{ "event_dev_bad_syntax", W_EVENT, OV_STR(0, PCIERR_A_DEVICE, "e1000e") },
	/* EVENT: enum values out of range */
	{ "event_state_0",   W_EVENT, OV_NUM(0, PCIERR_A_STATE, CK_U32, 0) },
	{ "event_source_0",  W_EVENT, OV_NUM(0, PCIERR_A_SOURCE, CK_U32, 0) },
	/* EVENT: garbage after the last attribute */
	{ "event_junk_3",    W_EVENT, OV_JUNK(0, 3) },
	{ "event_junk_8",    W_EVENT, OV_JUNK(0, 8) },

	/* OP_DONE */
	{ "op_no_id",        W_OP_DONE, OV_OMIT(0, PCIERR_A_OP_ID) },
	{ "op_no_pe_id",     W_OP_DONE, OV_OMIT(0, PCIERR_A_PE_ID) },
	{ "op_pe_id_0",      W_OP_DONE, OV_NUM(0, PCIERR_A_PE_ID, CK_U64, 0) },
	{ "op_no_op",        W_OP_DONE, OV_OMIT(0, PCIERR_A_OP) },
	{ "op_no_pe",        W_OP_DONE, OV_OMIT(0, PCIERR_A_PE) },
	{ "op_no_errno",     W_OP_DONE, OV_OMIT(0, PCIERR_A_ERRNO) },
	{ "op_no_step",      W_OP_DONE, OV_OMIT(0, PCIERR_A_STEP) },
	{ "op_no_result",    W_OP_DONE, OV_OMIT(0, PCIERR_A_RESULT) },
	{ "op_op_0",         W_OP_DONE, OV_NUM(0, PCIERR_A_OP, CK_U32, 0) },
	{ "op_step_0",       W_OP_DONE, OV_NUM(0, PCIERR_A_STEP, CK_U32, 0) },
	{ "op_result_0",     W_OP_DONE, OV_NUM(0, PCIERR_A_RESULT, CK_U32, 0) },
	{ "op_pe_state_0",   W_OP_DONE, OV_NUM(0, PCIERR_A_PE_STATE, CK_U32, 0) },
	{ "op_errno_huge",   W_OP_DONE, OV_NUM(0, PCIERR_A_ERRNO, CK_U32, 100000) },
	{ "op_id_u32",       W_OP_DONE, OV_NUM(0, PCIERR_A_OP_ID, CK_U32, 7) },
	{ "op_duration_u16", W_OP_DONE, OV_NUM(0, PCIERR_A_DURATION_NS, CK_U16, 7) },
	{ "op_start_u16",    W_OP_DONE, OV_NUM(0, PCIERR_A_START_NS, CK_U16, 7) },
	{ "op_results_u32",  W_OP_DONE, OV_NUM(0, PCIERR_A_RESULTS, CK_U32, 7) },
	{ "op_junk",         W_OP_DONE, OV_JUNK(0, 5) },
	/* OP_DONE: inside a result entry (scope 1) and the list (scope 3) */
	{ "res_no_addr",     W_OP_DONE, OV_OMIT(1, PCIERR_DEV_A_ADDR) },
	{ "res_no_result",   W_OP_DONE, OV_OMIT(1, PCIERR_DEV_A_RESULT) },
	{ "res_result_0",    W_OP_DONE, OV_NUM(2, PCIERR_DEV_A_RESULT, CK_U32, 0) },
	{ "res_result_u16",  W_OP_DONE, OV_NUM(1, PCIERR_DEV_A_RESULT, CK_U16, 1) },
	{ "res_addr_oversize", W_OP_DONE, OV_STR(1, PCIERR_DEV_A_ADDR, "0000:01:00.0000000000000000000000") },
	{ "res_addr_bad",    W_OP_DONE, OV_STR(2, PCIERR_DEV_A_ADDR, "01:00.9") },
	{ "res_addr_unterminated", W_OP_DONE, OV_RAW(1, PCIERR_DEV_A_ADDR, "0000:01:00.0", 12) },
	{ "res_junk",        W_OP_DONE, OV_JUNK(1, 2) },
	{ "res_list_junk",   W_OP_DONE, OV_JUNK(3, 6) },

	/* OVERFLOW */
	{ "ovf_no_dropped",  W_OVERFLOW, OV_OMIT(0, PCIERR_A_DROPPED) },
	{ "ovf_no_seq",      W_OVERFLOW, OV_OMIT(0, PCIERR_A_SEQ) },
	{ "ovf_dropped_u32", W_OVERFLOW, OV_NUM(0, PCIERR_A_DROPPED, CK_U32, 3) },
	{ "ovf_seq_str",     W_OVERFLOW, OV_STR(0, PCIERR_A_SEQ, "123") },
	{ "ovf_junk",        W_OVERFLOW, OV_JUNK(0, 1) },
};

/*
 * Forward compatibility (userspace review M5): an enum value of a newer
 * module, one this header does not know, is carried as is, never a
 * dropped notification; its name is NULL ("unknown").
 */
enum carried_field { F_STATE, F_SOURCE, F_OP, F_STEP, F_RESULT, F_PE_STATE, F_DEV_RESULT };

static const struct {
	const char *name;
	enum which which;
	struct ck_override ov;
	enum carried_field field;
	uint32_t value;
} carried[] = {
	{ "event_state_new", W_EVENT, OV_NUM(0, PCIERR_A_STATE, CK_U32, __PCIERR_STATE_MAX),
	  F_STATE, __PCIERR_STATE_MAX },
	{ "event_state_big", W_EVENT, OV_NUM(0, PCIERR_A_STATE, CK_U32, 0xffffffff),
	  F_STATE, 0xffffffff },
	{ "event_source_new", W_EVENT, OV_NUM(0, PCIERR_A_SOURCE, CK_U32, __PCIERR_SOURCE_MAX),
	  F_SOURCE, __PCIERR_SOURCE_MAX },
	{ "event_source_99", W_EVENT, OV_NUM(0, PCIERR_A_SOURCE, CK_U32, 99), F_SOURCE, 99 },
	{ "op_op_new",       W_OP_DONE, OV_NUM(0, PCIERR_A_OP, CK_U32, __PCIERR_CMD_MAX),
	  F_OP, __PCIERR_CMD_MAX },
	{ "op_step_new",     W_OP_DONE, OV_NUM(0, PCIERR_A_STEP, CK_U32, __PCIERR_STEP_MAX),
	  F_STEP, __PCIERR_STEP_MAX },
	{ "op_result_new",   W_OP_DONE, OV_NUM(0, PCIERR_A_RESULT, CK_U32, __PCIERR_RESULT_MAX),
	  F_RESULT, __PCIERR_RESULT_MAX },
	{ "op_pe_state_99",  W_OP_DONE, OV_NUM(0, PCIERR_A_PE_STATE, CK_U32, 99), F_PE_STATE, 99 },
	{ "res_result_99",   W_OP_DONE, OV_NUM(2, PCIERR_DEV_A_RESULT, CK_U32, 99),
	  F_DEV_RESULT, 99 },
};

static struct nl_msg *build(enum which w);

START_TEST(test_carried)
{
	struct pcierr_notification *n = NULL;
	const char *name = (void *)1;
	struct nl_msg *m;
	uint32_t got = 0;

	ck_ov = &carried[_i].ov;
	m = build(carried[_i].which);
	ck_ov = NULL;
	ck_assert_msg(parse(m, &n) == 0, "%s: refused", carried[_i].name);
	ck_assert_ptr_nonnull(n);
	switch (carried[_i].field) {
	case F_STATE:
		got = n->event.state;
		name = pcierr_state_to_string(n->event.state);
		break;
	case F_SOURCE:
		got = n->event.source;
		name = pcierr_source_to_string(n->event.source);
		break;
	case F_OP:
		got = n->op_done.op;
		name = pcierr_op_to_string(n->op_done.op);
		/* a command of a newer module: its step and result are not
		 * REPORT's, so not read */
		break;
	case F_STEP:
		got = n->op_done.step;
		name = pcierr_step_to_string(n->op_done.step);
		break;
	case F_RESULT:
		got = n->op_done.result;
		name = pcierr_result_to_string(n->op_done.result);
		break;
	case F_PE_STATE:
		got = n->op_done.pe_state;
		name = pcierr_pe_state_to_string(n->op_done.pe_state);
		break;
	case F_DEV_RESULT:
		ck_assert_uint_eq(n->op_done.n_results, 2);
		got = n->op_done.results[1].result;
		name = pcierr_result_to_string(n->op_done.results[1].result);
		break;
	}
	ck_assert_msg(got == carried[_i].value, "%s: carried %u", carried[_i].name, got);
	ck_assert_ptr_null(name);
	/* the rest is intact */
	if (carried[_i].which == W_EVENT)
		ck_assert_uint_eq(n->event.seq, 9);
	else
		ck_assert_uint_eq(n->op_done.op_id, 9);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

static struct nl_msg *build(enum which w)
{
	switch (w) {
	case W_EVENT:
		return ck_build_event(9);
	case W_OP_DONE:
		return ck_build_op_done(9, PCIERR_CMD_REPORT);
	default:
		return ck_build_overflow(1, 9);
	}
}

START_TEST(test_malformed)
{
	struct pcierr_notification *n = (void *)1;
	struct nl_msg *m;
	int r;

	ck_ov = &bad[_i].ov;
	m = build(bad[_i].which);
	ck_ov = NULL;
	r = parse(m, &n);
	ck_assert_msg(r == -EBADMSG, "%s: got %d", bad[_i].name, r);
	ck_assert_ptr_null(n);
	free_msg(&m);
}
END_TEST

/* The same message cut short anywhere fails cleanly, never reads
 * beyond what it was given. */
START_TEST(test_truncated)
{
	struct nl_msg *m = build(_i);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	uint32_t full = nlh->nlmsg_len;

	for (uint32_t len = 0; len < full; len++) {
		struct pcierr_notification *n = (void *)1;
		void *copy = malloc(len ? len : 1);
		int r;

		/* the buffer is just len bytes: valgrind sees any overread */
		memcpy(copy, nlh, len);
		r = pcierr_parse_notification(copy, len, &n);
		ck_assert_msg(r == -EBADMSG, "len %u: got %d", len, r);
		ck_assert_ptr_null(n);

		/* nlmsg_len shortened too: attributes cut off */
		if (len >= NLMSG_HDRLEN + GENL_HDRLEN + 1 && len % 4 != 0) {
			((struct nlmsghdr *)copy)->nlmsg_len = len;
			r = pcierr_parse_notification(copy, len, &n);
			ck_assert_msg(r == -EBADMSG, "nlmsg_len %u: got %d", len, r);
		}
		free(copy);
	}
	free_msg(&m);
}
END_TEST

START_TEST(test_bad_headers)
{
	struct nl_msg *m = ck_build_event(1);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct pcierr_notification *n = (void *)1;
	uint32_t full = nlh->nlmsg_len;

	/* nlmsg_len beyond the buffer */
	ck_assert_int_eq(pcierr_parse_notification(nlh, full - 1, &n), -EBADMSG);
	/* nlmsg_len shorter than the headers */
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	ck_assert_int_eq(pcierr_parse_notification(nlh, full, &n), -EBADMSG);
	nlh->nlmsg_len = 0;
	ck_assert_int_eq(pcierr_parse_notification(nlh, full, &n), -EBADMSG);
	ck_assert_int_eq(pcierr_parse_notification(NULL, 0, &n), -EBADMSG);
	ck_assert_ptr_null(n);
	free_msg(&m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The controller's messages                                           */
/* ------------------------------------------------------------------ */

/*
 * A message of the generic netlink controller, on its "notify" group, as
 * the kernel's ctrl_fill_info() builds it for NEWFAMILY / DELFAMILY (and
 * much the same for the others): name, id, version, header size, max
 * attribute, then the ops and the multicast groups. ck_ov applies to
 * the top level (scope 0).
 */
struct nl_msg *ck_build_ctrl(uint8_t cmd, const char *name, uint16_t id)
{
	struct nl_msg *m = nlmsg_alloc_size(16 * 1024);
	struct nlattr *list, *e;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(genlmsg_put(m, 0, 0, GENL_ID_CTRL, 0, 0, cmd, 2));
	ck_put_str(m, 0, CTRL_ATTR_FAMILY_NAME, name);
	ck_put_u16(m, 0, CTRL_ATTR_FAMILY_ID, id);
	ck_put_u32(m, 0, CTRL_ATTR_VERSION, 1);
	ck_put_u32(m, 0, CTRL_ATTR_HDRSIZE, 0);
	ck_put_u32(m, 0, CTRL_ATTR_MAXATTR, 30);

	list = nla_nest_start(m, CTRL_ATTR_OPS);
	ck_assert_ptr_nonnull(list);
	for (int i = 1; i <= 3; i++) {
		e = nla_nest_start(m, i);
		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(nla_put_u32(m, CTRL_ATTR_OP_ID, (uint32_t)i), 0);
		ck_assert_int_eq(nla_put_u32(m, CTRL_ATTR_OP_FLAGS, GENL_CMD_CAP_DO), 0);
		nla_nest_end(m, e);
	}
	nla_nest_end(m, list);

	list = nla_nest_start(m, CTRL_ATTR_MCAST_GROUPS);
	ck_assert_ptr_nonnull(list);
	e = nla_nest_start(m, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(nla_put_u32(m, CTRL_ATTR_MCAST_GRP_ID, 5), 0);
	ck_assert_int_eq(nla_put_string(m, CTRL_ATTR_MCAST_GRP_NAME, "events"), 0);
	nla_nest_end(m, e);
	nla_nest_end(m, list);
	ck_end_scope(m, 0);
	return m;
}

#define NO_OV { .kind = CK_NONE }

static const struct {
	const char *name;
	uint8_t cmd;
	const char *family;
	uint16_t id;
	struct ck_override ov;
	int expected;			/* 0 or -EBADMSG */
	enum pcierr_notify_type type;	/* 0: ignored (*ret NULL) */
} ctrl_cases[] = {
	/* ours */
	{ "del_pcierr", CTRL_CMD_DELFAMILY, "pcierr", 0x1c, NO_OV, 0, PCIERR_NOTIFY_FAMILY_REMOVED },
	{ "new_pcierr", CTRL_CMD_NEWFAMILY, "pcierr", 0x1d, NO_OV, 0, PCIERR_NOTIFY_FAMILY_ADDED },
	{ "new_pcierr_first_id", CTRL_CMD_NEWFAMILY, "pcierr", GENL_ID_CTRL + 1, NO_OV, 0,
	  PCIERR_NOTIFY_FAMILY_ADDED },
	{ "del_pcierr_max_id", CTRL_CMD_DELFAMILY, "pcierr", GENL_MAX_ID, NO_OV, 0,
	  PCIERR_NOTIFY_FAMILY_REMOVED },
	/* ours, but not a family coming or going: ignored */
	{ "newgrp_pcierr", CTRL_CMD_NEWMCAST_GRP, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "delgrp_pcierr", CTRL_CMD_DELMCAST_GRP, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "getfamily_pcierr", CTRL_CMD_GETFAMILY, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "newops_pcierr", CTRL_CMD_NEWOPS, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "unspec_pcierr", CTRL_CMD_UNSPEC, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "future_cmd_pcierr", 99, "pcierr", 0x1c, NO_OV, 0, 0 },
	{ "delgrp_junk", CTRL_CMD_DELMCAST_GRP, "pcierr", 0x1c, OV_JUNK(0, 3), 0, 0 },
	/* other families: ignored */
	{ "del_other", CTRL_CMD_DELFAMILY, "nl80211", 0x1c, NO_OV, 0, 0 },
	{ "new_other", CTRL_CMD_NEWFAMILY, "wireguard", 0x22, NO_OV, 0, 0 },
	{ "del_prefix", CTRL_CMD_DELFAMILY, "pcierr2", 0x1c, NO_OV, 0, 0 },
	{ "del_shorter", CTRL_CMD_DELFAMILY, "pcier", 0x1c, NO_OV, 0, 0 },
	{ "del_upper", CTRL_CMD_DELFAMILY, "PCIERR", 0x1c, NO_OV, 0, 0 },
	{ "del_empty_name", CTRL_CMD_DELFAMILY, "", 0x1c, NO_OV, 0, 0 },
	{ "del_longest_name", CTRL_CMD_DELFAMILY, "pcierr_01234567", 0x1c, NO_OV, 0, 0 },
	{ "del_other_no_id", CTRL_CMD_DELFAMILY, "nl80211", 0x1c,
	  OV_OMIT(0, CTRL_ATTR_FAMILY_ID), 0, 0 },
	{ "new_other_id_0", CTRL_CMD_NEWFAMILY, "nl80211", 0, NO_OV, 0, 0 },
	/* malformed */
	{ "del_no_name", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_OMIT(0, CTRL_ATTR_FAMILY_NAME), -EBADMSG, 0 },
	{ "del_pcierr_no_id", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_OMIT(0, CTRL_ATTR_FAMILY_ID), -EBADMSG, 0 },
	{ "new_pcierr_no_id", CTRL_CMD_NEWFAMILY, "pcierr", 0x1c,
	  OV_OMIT(0, CTRL_ATTR_FAMILY_ID), -EBADMSG, 0 },
	{ "del_pcierr_id_0", CTRL_CMD_DELFAMILY, "pcierr", 0, NO_OV, -EBADMSG, 0 },
	{ "del_pcierr_id_15", CTRL_CMD_DELFAMILY, "pcierr", GENL_MIN_ID - 1, NO_OV, -EBADMSG, 0 },
	{ "del_pcierr_id_ctrl", CTRL_CMD_DELFAMILY, "pcierr", GENL_ID_CTRL, NO_OV, -EBADMSG, 0 },
	{ "new_pcierr_id_1024", CTRL_CMD_NEWFAMILY, "pcierr", GENL_MAX_ID + 1, NO_OV, -EBADMSG, 0 },
	{ "del_id_u32", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_NUM(0, CTRL_ATTR_FAMILY_ID, CK_U32, 0x1c), -EBADMSG, 0 },
	{ "del_id_u64", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_NUM(0, CTRL_ATTR_FAMILY_ID, CK_U64, 0x1c), -EBADMSG, 0 },
	{ "del_other_id_u32", CTRL_CMD_DELFAMILY, "nl80211", 0x1c,
	  OV_NUM(0, CTRL_ATTR_FAMILY_ID, CK_U32, 0x1c), -EBADMSG, 0 },
	{ "del_name_u32", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_NUM(0, CTRL_ATTR_FAMILY_NAME, CK_U32, 0x30303030), -EBADMSG, 0 },
	{ "del_name_empty_attr", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_RAW(0, CTRL_ATTR_FAMILY_NAME, "", 0), -EBADMSG, 0 },
	{ "del_name_unterminated", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_RAW(0, CTRL_ATTR_FAMILY_NAME, "pcierr", 6), -EBADMSG, 0 },
	{ "del_name_inner_nul", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_RAW(0, CTRL_ATTR_FAMILY_NAME, "pcierr\0x", 9), -EBADMSG, 0 },
	{ "del_name_oversize", CTRL_CMD_DELFAMILY, "pcierr", 0x1c,
	  OV_STR(0, CTRL_ATTR_FAMILY_NAME, "pcierr_0123456789"), -EBADMSG, 0 },
	{ "del_junk_3", CTRL_CMD_DELFAMILY, "pcierr", 0x1c, OV_JUNK(0, 3), -EBADMSG, 0 },
	{ "new_junk_8", CTRL_CMD_NEWFAMILY, "pcierr", 0x1c, OV_JUNK(0, 8), -EBADMSG, 0 },
	{ "del_other_junk", CTRL_CMD_DELFAMILY, "nl80211", 0x1c, OV_JUNK(0, 5), -EBADMSG, 0 },
};

START_TEST(test_ctrl)
{
	struct pcierr_notification *n = (void *)1;
	struct nlmsghdr *nlh;
	struct nl_msg *m;
	int r;

	ck_ov = ctrl_cases[_i].ov.kind == CK_NONE ? NULL : &ctrl_cases[_i].ov;
	m = ck_build_ctrl(ctrl_cases[_i].cmd, ctrl_cases[_i].family, ctrl_cases[_i].id);
	ck_ov = NULL;
	nlh = nlmsg_hdr(m);
	r = pcierr_parse_ctrl(nlh, nlh->nlmsg_len, &n);
	ck_assert_msg(r == ctrl_cases[_i].expected, "%s: got %d", ctrl_cases[_i].name, r);
	if (ctrl_cases[_i].type == 0) {
		ck_assert_msg(n == NULL, "%s: not ignored", ctrl_cases[_i].name);
	} else {
		ck_assert_ptr_nonnull(n);
		ck_assert_int_eq(n->type, ctrl_cases[_i].type);
		ck_assert_int_eq(n->family.family_id, ctrl_cases[_i].id);
		pcierr_notification_free(n);
	}
	free_msg(&m);
}
END_TEST

/* cut short anywhere: fails cleanly, never reads beyond */
START_TEST(test_ctrl_truncated)
{
	struct nl_msg *m = ck_build_ctrl(_i ? CTRL_CMD_NEWFAMILY : CTRL_CMD_DELFAMILY, "pcierr", 0x1c);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	uint32_t full = nlh->nlmsg_len;

	for (uint32_t len = 0; len < full; len++) {
		struct pcierr_notification *n = (void *)1;
		void *copy = malloc(len ? len : 1);
		int r;

		memcpy(copy, nlh, len);
		r = pcierr_parse_ctrl(copy, len, &n);
		ck_assert_msg(r == -EBADMSG, "len %u: got %d", len, r);
		ck_assert_ptr_null(n);

		/* nlmsg_len shortened too: an attribute cut off. Only a cut
		 * in the id's padding (name: 12 bytes, id: 6 + 2) leaves a
		 * whole message: what we need, and nothing else (the rest
		 * is optional). */
		if (len >= NLMSG_HDRLEN + GENL_HDRLEN + 1 && len % 4 != 0) {
			uint32_t id_end = NLMSG_HDRLEN + GENL_HDRLEN + 12 + 6;

			((struct nlmsghdr *)copy)->nlmsg_len = len;
			r = pcierr_parse_ctrl(copy, len, &n);
			if (len >= id_end && len < id_end + 2) {
				ck_assert_msg(r == 0, "nlmsg_len %u: got %d", len, r);
				ck_assert_ptr_nonnull(n);
				ck_assert_int_eq(n->family.family_id, 0x1c);
				pcierr_notification_free(n);
			} else {
				ck_assert_msg(r == -EBADMSG, "nlmsg_len %u: got %d", len, r);
			}
		}
		free(copy);
	}
	free_msg(&m);
}
END_TEST

START_TEST(test_ctrl_bad_headers)
{
	struct nl_msg *m = ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", 0x1c);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct pcierr_notification *n = (void *)1;
	uint32_t full = nlh->nlmsg_len;

	/* another family's message is no controller's */
	nlh->nlmsg_type = CK_FAMILY;
	ck_assert_int_eq(pcierr_parse_ctrl(nlh, full, &n), -EBADMSG);
	ck_assert_ptr_null(n);
	nlh->nlmsg_type = GENL_ID_CTRL;
	ck_assert_int_eq(pcierr_parse_ctrl(nlh, full - 1, &n), -EBADMSG);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	ck_assert_int_eq(pcierr_parse_ctrl(nlh, full, &n), -EBADMSG);
	ck_assert_int_eq(pcierr_parse_ctrl(NULL, 0, &n), -EBADMSG);
	ck_assert_ptr_null(n);
	nlh->nlmsg_len = full;
	ck_assert_int_eq(pcierr_parse_ctrl(nlh, full, &n), 0);
	ck_assert_ptr_nonnull(n);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST


/* ---- RECOVER's OP_DONE (issue 12): nested steps ---- */

enum rbad {
	RB_GOOD,
	RB_UNKNOWN,		/* a newer module's step and stop: carried */
	RB_NO_ERRNO,		/* malformed from here on */
	RB_OP_U16,
	RB_NO_STEP,
	RB_BAD_ADDR,
	RB_NO_STOP,
	RB_NO_STEPS,
	RB_GARBAGE,
	RB_BIG_ERRNO,
	RB_RESULT_ZERO,
	RB_RESET_NO_TYPE,
	RB_STEP_GARBAGE,
	RB_RESULTS_GARBAGE,
	__RB_MAX
};

static void put_rstep(struct nl_msg *m, enum rbad rb, uint32_t op, uint32_t step,
		      uint32_t result, bool results)
{
	struct nlattr *e = nla_nest_start(m, PCIERR_A_RECOVER_STEPS_ENTRY);

	if (rb == RB_OP_U16)
		nla_put_u16(m, PCIERR_RSTEP_A_OP, (uint16_t)op);
	else
		nla_put_u32(m, PCIERR_RSTEP_A_OP, op);
	if (op == PCIERR_CMD_REPORT) {
		if (rb != RB_NO_STEP)
			nla_put_u32(m, PCIERR_RSTEP_A_STEP, step);
		nla_put_u32(m, PCIERR_RSTEP_A_RESULT, rb == RB_RESULT_ZERO ? 0 : result);
	}
	if (op == PCIERR_CMD_RESET && rb != RB_RESET_NO_TYPE)
		nla_put_u32(m, PCIERR_RSTEP_A_RESET_TYPE, PCIERR_RESET_HOT);
	if (rb != RB_NO_ERRNO)
		nla_put_u32(m, PCIERR_RSTEP_A_ERRNO, rb == RB_BIG_ERRNO ? 5000 : 0);
	nla_put_u64(m, PCIERR_RSTEP_A_DURATION_NS, 1000 + step);
	if (results) {
		struct nlattr *l = nla_nest_start(m, PCIERR_RSTEP_A_RESULTS);
		struct nlattr *r = nla_nest_start(m, PCIERR_A_RESULTS_ENTRY);

		nla_put_string(m, PCIERR_DEV_A_ADDR, rb == RB_BAD_ADDR ? "zz" : "0000:01:00.0");
		nla_put_u32(m, PCIERR_DEV_A_RESULT, result);
		nla_nest_end(m, r);
		if (rb == RB_RESULTS_GARBAGE) {
			/* three bytes that are no attribute */
			void *p = nlmsg_reserve(m, 4, 1);

			if (p)
				memset(p, 0xff, 4);
			l->nla_len += 4;
		}
		nla_nest_end(m, l);
	}
	if (rb == RB_STEP_GARBAGE) {
		void *p = nlmsg_reserve(m, 4, 1);

		if (p)
			memset(p, 0xff, 4);
	}
	nla_nest_end(m, e);
}

static struct nl_msg *build_recover(enum rbad rb)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_OP_DONE, 0, 0);
	struct nlattr *steps;

	nla_put_u64(m, PCIERR_A_OP_ID, 77);
	nla_put_u32(m, PCIERR_A_OP, PCIERR_CMD_RECOVER);
	nla_put_string(m, PCIERR_A_PE, "0000:00:02.0");
	nla_put_u64(m, PCIERR_A_PE_ID, CK_PE_ID + 1);
	if (rb != RB_NO_STOP)
		nla_put_u32(m, PCIERR_A_RECOVER_STOP, rb == RB_UNKNOWN ? 99 :
			    PCIERR_RECOVER_STOP_RECOVERED);
	if (rb != RB_NO_STEPS) {
		steps = nla_nest_start(m, PCIERR_A_RECOVER_STEPS);
		put_rstep(m, rb, PCIERR_CMD_REPORT, PCIERR_STEP_ERROR_DETECTED,
			  PCIERR_RESULT_NEED_RESET, true);
		put_rstep(m, rb, PCIERR_CMD_RESET, 0, 0, false);
		put_rstep(m, rb, PCIERR_CMD_REPORT, PCIERR_STEP_SLOT_RESET,
			  PCIERR_RESULT_RECOVERED, true);
		if (rb == RB_UNKNOWN)
			put_rstep(m, rb, 99, 0, 0, false);
		if (rb == RB_GARBAGE) {
			void *p = nlmsg_reserve(m, 4, 1);

			if (p)
				memset(p, 0xff, 4);
			steps->nla_len += 4;
		}
		nla_nest_end(m, steps);
	}
	nla_put_u64(m, PCIERR_A_DURATION_NS, 9999);
	nla_put_u64(m, PCIERR_A_START_NS, 123456789ULL);
	nla_put_u32(m, PCIERR_A_ERRNO, 0);
	nla_put_u32(m, PCIERR_A_PE_STATE, PCIERR_PE_STATE_NORMAL);
	return m;
}

START_TEST(test_recover_done)
{
	struct nl_msg *m = build_recover(RB_GOOD);
	struct pcierr_notification *n = NULL;
	const struct pcierr_recover_done *d;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->type, PCIERR_NOTIFY_RECOVER_DONE);
	d = &n->recover_done;
	ck_assert_uint_eq(d->op_id, 77);
	ck_assert_str_eq(d->pe, "0000:00:02.0");
	ck_assert_uint_eq(d->pe_id, CK_PE_ID + 1);
	ck_assert_int_eq(d->stop, PCIERR_RECOVER_STOP_RECOVERED);
	ck_assert_int_eq(d->pe_state, PCIERR_PE_STATE_NORMAL);
	ck_assert_uint_eq(d->duration_ns, 9999);
	ck_assert_uint_eq(d->start_ns, 123456789ULL);
	ck_assert_uint_eq(d->n_steps, 3);
	ck_assert_int_eq(d->steps[0].op, PCIERR_CMD_REPORT);
	ck_assert_int_eq(d->steps[0].step, PCIERR_STEP_ERROR_DETECTED);
	ck_assert_int_eq(d->steps[0].result, PCIERR_RESULT_NEED_RESET);
	ck_assert_uint_eq(d->steps[0].n_results, 1);
	ck_assert_str_eq(d->steps[0].results[0].addr, "0000:01:00.0");
	ck_assert_int_eq(d->steps[1].op, PCIERR_CMD_RESET);
	ck_assert_int_eq(d->steps[1].reset_type, PCIERR_RESET_HOT);
	ck_assert_uint_eq(d->steps[1].n_results, 0);
	ck_assert_int_eq(d->steps[2].step, PCIERR_STEP_SLOT_RESET);
	ck_assert_int_eq(d->steps[2].result, PCIERR_RESULT_RECOVERED);
	ck_assert_uint_eq(d->steps[2].duration_ns, 1000 + PCIERR_STEP_SLOT_RESET);
	ck_assert_str_eq(pcierr_recover_stop_to_string(d->stop), "recovered");
	ck_assert_int_eq(pcierr_recover_stop_from_string("frozen_again"),
			 PCIERR_RECOVER_STOP_FROZEN_AGAIN);
	ck_assert_str_eq(pcierr_op_to_string(PCIERR_CMD_RECOVER), "recover");
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

START_TEST(test_recover_unknown_carried)
{
	struct nl_msg *m = build_recover(RB_UNKNOWN);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(parse(m, &n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(n->recover_done.stop, 99);
	ck_assert_ptr_null(pcierr_recover_stop_to_string(n->recover_done.stop));
	ck_assert_uint_eq(n->recover_done.n_steps, 4);
	ck_assert_int_eq(n->recover_done.steps[3].op, 99);
	pcierr_notification_free(n);
	free_msg(&m);
}
END_TEST

START_TEST(test_recover_malformed)
{
	struct nl_msg *m = build_recover(RB_NO_ERRNO + _i);
	struct pcierr_notification *n = NULL;

	ck_assert_int_eq(parse(m, &n), -EBADMSG);
	ck_assert_ptr_null(n);
	free_msg(&m);
}
END_TEST

/* GET_PE's last operation, a RECOVER (pcierr_pe_last_recover()) */
static struct nl_msg *build_pe_last(uint32_t op, bool done)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_PE, 0, 0);
	struct nlattr *last, *steps;

	nla_put_string(m, PCIERR_A_PE, "0000:00:02.0");
	nla_put_u64(m, PCIERR_A_PE_ID, CK_PE_ID);
	nla_put_u32(m, PCIERR_A_PE_STATE, PCIERR_PE_STATE_NORMAL);
	last = nla_nest_start(m, PCIERR_A_LAST_OP);
	nla_put_u64(m, PCIERR_A_OP_ID, 5);
	nla_put_u32(m, PCIERR_A_OP, op);
	if (done) {
		nla_put_u32(m, PCIERR_A_ERRNO, 0);
		nla_put_u64(m, PCIERR_A_DURATION_NS, 123);
		nla_put_u32(m, PCIERR_A_PE_STATE, PCIERR_PE_STATE_NORMAL);
		nla_put_u32(m, PCIERR_A_RECOVER_STOP, PCIERR_RECOVER_STOP_RECOVERED);
		steps = nla_nest_start(m, PCIERR_A_RECOVER_STEPS);
		put_rstep(m, RB_GOOD, PCIERR_CMD_REPORT, PCIERR_STEP_ERROR_DETECTED,
			  PCIERR_RESULT_CAN_RECOVER, false);
		put_rstep(m, RB_GOOD, PCIERR_CMD_ENABLE_IO, 0, 0, false);
		nla_nest_end(m, steps);
	}
	nla_nest_end(m, last);
	return m;
}

START_TEST(test_last_recover)
{
	struct nl_msg *m = build_pe_last(PCIERR_CMD_RECOVER, true);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct pcierr_recover_done d = {};
	struct pcierr_pe pe = {};

	ck_assert_int_eq(pcierr_parse_last_recover(nlh, nlh->nlmsg_len, &d), 0);
	ck_assert_uint_eq(d.op_id, 5);
	ck_assert_uint_eq(d.pe_id, CK_PE_ID);
	ck_assert_uint_eq(d.n_steps, 2);
	ck_assert_int_eq(d.steps[0].result, PCIERR_RESULT_CAN_RECOVER);
	ck_assert_int_eq(d.steps[1].op, PCIERR_CMD_ENABLE_IO);
	ck_assert_int_eq(d.stop, PCIERR_RECOVER_STOP_RECOVERED);
	pcierr_recover_done_clear(&d);
	ck_assert_uint_eq(d.n_steps, 0);
	/* GET_PE itself still reads it */
	ck_assert_int_eq(pcierr_parse_pe(nlh, nlh->nlmsg_len, &pe), 0);
	ck_assert_int_eq(pe.last_op.op, PCIERR_CMD_RECOVER);
	ck_assert(pe.last_op.done);
	pcierr_pe_clear(&pe);
	free_msg(&m);

	m = build_pe_last(PCIERR_CMD_RESET, true);
	nlh = nlmsg_hdr(m);
	ck_assert_int_eq(pcierr_parse_last_recover(nlh, nlh->nlmsg_len, &d), -ENOMSG);
	free_msg(&m);
	m = build_pe_last(PCIERR_CMD_RECOVER, false);
	nlh = nlmsg_hdr(m);
	ck_assert_int_eq(pcierr_parse_last_recover(nlh, nlh->nlmsg_len, &d), -ENOMSG);
	free_msg(&m);
}
END_TEST

Suite *suite_notify(void)
{
	Suite *s = suite_create("notify");
	TCase *tc;

	tc = tcase_create("good");
	tcase_add_test(tc, test_event);
	tcase_add_test(tc, test_event_detail);
	tcase_add_test(tc, test_event_auto_op_id);
	tcase_add_test(tc, test_op_done_report);
	tcase_add_loop_test(tc, test_op_done_other, 0, ARRAY_SIZE(other_ops));
	tcase_add_test(tc, test_recover_done);
	tcase_add_test(tc, test_recover_unknown_carried);
	tcase_add_loop_test(tc, test_recover_malformed, 0, __RB_MAX - RB_NO_ERRNO);
	tcase_add_test(tc, test_last_recover);
	tcase_add_test(tc, test_overflow);
	tcase_add_test(tc, test_not_a_notification);
	tcase_add_test(tc, test_unknown_attrs_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_carried, 0, ARRAY_SIZE(carried));
	tcase_add_loop_test(tc, test_malformed, 0, ARRAY_SIZE(bad));
	tcase_add_loop_test(tc, test_truncated, W_EVENT, W_OVERFLOW + 1);
	tcase_add_test(tc, test_bad_headers);
	suite_add_tcase(s, tc);

	tc = tcase_create("ctrl");
	tcase_add_loop_test(tc, test_ctrl, 0, ARRAY_SIZE(ctrl_cases));
	tcase_add_loop_test(tc, test_ctrl_truncated, 0, 2);
	tcase_add_test(tc, test_ctrl_bad_headers);
	suite_add_tcase(s, tc);
	return s;
}

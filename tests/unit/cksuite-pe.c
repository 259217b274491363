// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Parsing GET_PE, GET_STATS and the u64 replies of INJECT and the
 * operations.
 */
#include <errno.h>
#include <string.h>

#include "cksuite.h"

static int parse_pe(struct nl_msg *m, struct pcierr_pe *pe)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	return pcierr_parse_pe(nlh, nlh->nlmsg_len, pe);
}

START_TEST(test_pe)
{
	struct nl_msg *m = ck_build_pe("0000:00:02.0", 2, 0, 0);
	struct pcierr_pe pe;
	const struct pcierr_device *d;

	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_str_eq(pe.addr, "0000:00:02.0");
	ck_assert_int_eq(pe.state, PCIERR_PE_STATE_FROZEN);
	ck_assert_uint_eq(pe.flags, PCIERR_PE_F_BUSY);
	ck_assert_uint_eq(pe.reset_types, 1U << PCIERR_RESET_HOT);
	ck_assert_uint_eq(pe.generation, 7);
	ck_assert_uint_eq(pe.watch_interval_ms, 500);
	ck_assert_uint_eq(pe.id, ck_pe_id("0000:00:02.0"));
	ck_assert_uint_eq(pe.last_op.op_id, 77);
	ck_assert_int_eq(pe.last_op.op, PCIERR_CMD_REPORT);
	ck_assert_int_eq(pe.last_op.step, PCIERR_STEP_SLOT_RESET);
	ck_assert_int_eq(pe.last_op.result, PCIERR_RESULT_RECOVERED);
	ck_assert(pe.last_op.done);
	ck_assert_int_eq(pe.last_op.error, 5);
	ck_assert_uint_eq(pe.last_op.duration_ns, 999);
	ck_assert_int_eq(pe.last_op.pe_state, PCIERR_PE_STATE_RESET);
	ck_assert_uint_eq(pe.n_devices, 2);

	d = &pe.devices[0];
	ck_assert_str_eq(d->addr, "0000:01:00.0");
	ck_assert_uint_eq(d->vendor, 0x8086);
	ck_assert_uint_eq(d->device, 0x10d3);
	ck_assert_uint_eq(d->subvendor, 0x8086);
	ck_assert_uint_eq(d->subdevice, 0xa01f);
	ck_assert_uint_eq(d->class, 0x020000);
	ck_assert(d->has_dsn);
	ck_assert_uint_eq(d->dsn, 0x0011223344556677ULL);
	ck_assert_str_eq(d->driver, "e1000e");
	ck_assert_uint_eq(d->handlers, 1U << PCIERR_HANDLER_ERROR_DETECTED |
			  1U << PCIERR_HANDLER_MMIO_ENABLED | 1U << PCIERR_HANDLER_SLOT_RESET |
			  1U << PCIERR_HANDLER_RESUME);
	ck_assert_int_eq(d->state, PCIERR_STATE_FROZEN);
	ck_assert_uint_eq(d->error_gen, 2);
	ck_assert_uint_eq(d->flags, 0);

	d = &pe.devices[1];
	ck_assert_str_eq(d->addr, "0000:01:00.1");
	ck_assert_uint_eq(d->vendor, 0x1af4);
	ck_assert(!d->has_dsn);
	ck_assert_ptr_nonnull(d->driver);
	ck_assert_str_eq(d->driver, "");
	ck_assert_int_eq(d->state, PCIERR_STATE_NORMAL);
	ck_assert_uint_eq(d->flags, PCIERR_DEV_F_BRIDGE);

	ck_assert_ptr_eq(pcierr_pe_find_device(&pe, "01:00.1"), &pe.devices[1]);
	ck_assert_ptr_eq(pcierr_pe_find_device(&pe, "0000:01:00.0"), &pe.devices[0]);
	ck_assert_ptr_null(pcierr_pe_find_device(&pe, "0000:01:00.2"));
	ck_assert_ptr_null(pcierr_pe_find_device(&pe, "junk"));

	pcierr_pe_clear(&pe);
	ck_assert_uint_eq(pe.n_devices, 0);
	ck_assert_ptr_null(pe.devices);
	pcierr_pe_clear(&pe);	/* twice is fine */
	pcierr_pe_clear(NULL);
	nlmsg_free(m);
}
END_TEST

START_TEST(test_pe_sizes)
{
	static const int sizes[] = { 0, 1, 3, 64, 256 };
	struct nl_msg *m = ck_build_pe("0000:00:1c.0", sizes[_i], 0, 0);
	struct pcierr_pe pe;

	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_uint_eq(pe.n_devices, (size_t)sizes[_i]);
	if (sizes[_i] == 0)
		ck_assert_ptr_null(pe.devices);
	for (int i = 1; i < sizes[_i]; i++) {
		char addr[PCIERR_ADDR_STRLEN];

		snprintf(addr, sizeof(addr), "0000:01:%02x.%x", i / 8, i % 8);
		ck_assert_str_eq(pe.devices[i].addr, addr);
	}
	pcierr_pe_clear(&pe);
	nlmsg_free(m);
}
END_TEST

static const struct {
	const char *name;
	struct ck_override ov;
} bad_pe[] = {
	{ "no_pe",          OV_OMIT(0, PCIERR_A_PE) },
	{ "no_pe_state",    OV_OMIT(0, PCIERR_A_PE_STATE) },
	{ "no_pe_id",       OV_OMIT(0, PCIERR_A_PE_ID) },
	{ "pe_id_0",        OV_NUM(0, PCIERR_A_PE_ID, CK_U64, 0) },
	{ "pe_id_u32",      OV_NUM(0, PCIERR_A_PE_ID, CK_U32, 5) },
	{ "last_op_u32",    OV_NUM(0, PCIERR_A_LAST_OP, CK_U32, 5) },
	{ "last_op_no_id",  OV_OMIT(4, PCIERR_A_OP_ID) },
	{ "last_op_no_op",  OV_OMIT(4, PCIERR_A_OP) },
	{ "last_op_op_0",   OV_NUM(4, PCIERR_A_OP, CK_U32, 0) },
	{ "last_op_errno_huge", OV_NUM(4, PCIERR_A_ERRNO, CK_U32, 70000) },
	{ "last_op_junk",   OV_JUNK(4, 3) },
	{ "pe_state_0",     OV_NUM(0, PCIERR_A_PE_STATE, CK_U32, 0) },
	{ "pe_flags_u16",   OV_NUM(0, PCIERR_A_PE_FLAGS, CK_U16, 1) },
	{ "generation_u64", OV_NUM(0, PCIERR_A_GENERATION, CK_U64, 1) },
	{ "devices_u32",    OV_NUM(0, PCIERR_A_PE_DEVICES, CK_U32, 1) },
	{ "pe_oversize",    OV_STR(0, PCIERR_A_PE, "0000:00:02.0:0000:00:02.0") },
	{ "pe_bad",         OV_STR(0, PCIERR_A_PE, "pci0000:00") },
	{ "junk",           OV_JUNK(0, 7) },
	{ "dev_no_addr",    OV_OMIT(1, PCIERR_DEV_A_ADDR) },
	{ "dev_no_vendor",  OV_OMIT(1, PCIERR_DEV_A_VENDOR) },
	{ "dev_no_device",  OV_OMIT(2, PCIERR_DEV_A_DEVICE) },
	{ "dev_no_state",   OV_OMIT(1, PCIERR_DEV_A_STATE) },
	{ "dev_vendor_u32", OV_NUM(1, PCIERR_DEV_A_VENDOR, CK_U32, 0x8086) },
	{ "dev_class_u16",  OV_NUM(1, PCIERR_DEV_A_CLASS, CK_U16, 2) },
	{ "dev_class_big",  OV_NUM(1, PCIERR_DEV_A_CLASS, CK_U32, 0x1020000) },
	{ "dev_dsn_u32",    OV_NUM(1, PCIERR_DEV_A_DSN, CK_U32, 1) },
	{ "dev_state_0",    OV_NUM(2, PCIERR_DEV_A_STATE, CK_U32, 0) },
	{ "dev_addr_bad",   OV_STR(2, PCIERR_DEV_A_ADDR, "0000:01:00") },
	{ "dev_addr_oversize", OV_STR(1, PCIERR_DEV_A_ADDR, "00000000000000:01:00.0") },
	{ "dev_driver_unterminated", OV_RAW(1, PCIERR_DEV_A_DRIVER, "e1000e", 6) },
	{ "dev_driver_empty_attr", OV_RAW(1, PCIERR_DEV_A_DRIVER, "", 0) },
	{ "dev_driver_oversize", OV_STR(1, PCIERR_DEV_A_DRIVER,
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345678901234567890123456789" ) },
	{ "dev_handlers_u64", OV_NUM(1, PCIERR_DEV_A_HANDLERS, CK_U64, 1) },
	{ "dev_junk",       OV_JUNK(1, 3) },
	{ "devices_junk",   OV_JUNK(3, 9) },
};

/* An operation still in flight: no PCIERR_A_ERRNO in PCIERR_A_LAST_OP */
START_TEST(test_pe_last_op_in_flight)
{
	static const struct ck_override ov = OV_OMIT(4, PCIERR_A_ERRNO);
	struct pcierr_pe pe;
	struct nl_msg *m;

	ck_ov = &ov;
	m = ck_build_pe("0000:00:02.0", 1, 0, 0);
	ck_ov = NULL;
	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_uint_eq(pe.last_op.op_id, 77);
	ck_assert(!pe.last_op.done);
	ck_assert_int_eq(pe.last_op.error, 0);
	pcierr_pe_clear(&pe);
	nlmsg_free(m);
}
END_TEST

/* No operation ever: no PCIERR_A_LAST_OP, op_id 0 */
START_TEST(test_pe_no_last_op)
{
	static const struct ck_override ov = OV_OMIT(0, PCIERR_A_LAST_OP);
	struct pcierr_pe pe;
	struct nl_msg *m;

	ck_ov = &ov;
	m = ck_build_pe("0000:00:02.0", 1, 0, 0);
	ck_ov = NULL;
	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_uint_eq(pe.last_op.op_id, 0);
	ck_assert(!pe.last_op.done);
	pcierr_pe_clear(&pe);
	nlmsg_free(m);
}
END_TEST

/* Forward compatibility: enum values of a newer module are carried. */
START_TEST(test_pe_carried)
{
	static const struct ck_override ov[] = {
		OV_NUM(0, PCIERR_A_PE_STATE, CK_U32, 99),
		OV_NUM(2, PCIERR_DEV_A_STATE, CK_U32, __PCIERR_STATE_MAX),
		OV_NUM(4, PCIERR_A_OP, CK_U32, 200),
	};
	struct pcierr_pe pe;
	struct nl_msg *m;

	ck_ov = &ov[_i];
	m = ck_build_pe("0000:00:02.0", 3, 0, 0);
	ck_ov = NULL;
	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_uint_eq(pe.n_devices, 3);
	switch (_i) {
	case 0:
		ck_assert_int_eq(pe.state, 99);
		ck_assert_ptr_null(pcierr_pe_state_to_string(pe.state));
		break;
	case 1:
		ck_assert_int_eq(pe.devices[1].state, __PCIERR_STATE_MAX);
		ck_assert_ptr_null(pcierr_state_to_string(pe.devices[1].state));
		break;
	default:
		ck_assert_int_eq(pe.last_op.op, 200);
		ck_assert_ptr_null(pcierr_op_to_string(pe.last_op.op));
		break;
	}
	pcierr_pe_clear(&pe);
	nlmsg_free(m);
}
END_TEST

/* A PE split across dump messages (D6) comes back as one. */
static void add_part(struct pcierr_pe_list *list, size_t *cap, const char *addr, int first,
		     int n, int expected)
{
	struct nl_msg *m = ck_build_pe_part(addr, first, n, 0, NLM_F_MULTI);
	struct pcierr_pe pe;

	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_int_eq(pcierr_pe_list_add(list, cap, &pe), expected);
	ck_assert_ptr_null(pe.devices);		/* moved or freed */
	nlmsg_free(m);
}

START_TEST(test_pe_split)
{
	struct pcierr_pe_list list = {};
	size_t cap = 0;

	add_part(&list, &cap, "0000:00:01.0", 0, 2, 0);
	/* 0000:00:02.0: 1 + 100 + 0 + 155 devices in four messages */
	add_part(&list, &cap, "0000:00:02.0", 0, 1, 0);
	add_part(&list, &cap, "0000:00:02.0", 1, 100, 0);
	add_part(&list, &cap, "0000:00:02.0", 101, 0, 0);
	add_part(&list, &cap, "0000:00:02.0", 101, 155, 0);
	add_part(&list, &cap, "0000:00:03.0", 0, 0, 0);
	ck_assert_uint_eq(list.n_pes, 3);
	ck_assert_str_eq(list.pes[0].addr, "0000:00:01.0");
	ck_assert_uint_eq(list.pes[0].n_devices, 2);
	ck_assert_str_eq(list.pes[1].addr, "0000:00:02.0");
	ck_assert_uint_eq(list.pes[1].n_devices, 256);
	ck_assert_str_eq(list.pes[1].devices[0].driver, "e1000e");
	for (int i = 1; i < 256; i++) {
		char addr[PCIERR_ADDR_STRLEN];

		snprintf(addr, sizeof(addr), "0000:01:%02x.%x", i / 8, i % 8);
		ck_assert_str_eq(list.pes[1].devices[i].addr, addr);
		ck_assert_str_eq(list.pes[1].devices[i].driver, "");
	}
	ck_assert_uint_eq(list.pes[2].n_devices, 0);
	pcierr_pe_list_clear(&list);
}
END_TEST

/* The same id under another address is no continuation: a bad message */
START_TEST(test_pe_split_bad)
{
	static const struct ck_override ov = OV_NUM(0, PCIERR_A_PE_ID, CK_U64, 1);
	struct pcierr_pe_list list = {};
	struct pcierr_pe pe;
	struct nl_msg *m;
	size_t cap = 0;

	ck_ov = &ov;
	m = ck_build_pe("0000:00:01.0", 1, 0, NLM_F_MULTI);
	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_int_eq(pcierr_pe_list_add(&list, &cap, &pe), 0);
	nlmsg_free(m);
	m = ck_build_pe("0000:00:02.0", 2, 0, NLM_F_MULTI);
	ck_ov = NULL;
	ck_assert_int_eq(parse_pe(m, &pe), 0);
	ck_assert_int_eq(pcierr_pe_list_add(&list, &cap, &pe), -EBADMSG);
	ck_assert_ptr_null(pe.devices);
	ck_assert_uint_eq(list.n_pes, 1);
	ck_assert_uint_eq(list.pes[0].n_devices, 1);
	nlmsg_free(m);
	pcierr_pe_list_clear(&list);
}
END_TEST

START_TEST(test_pe_malformed)
{
	struct pcierr_pe pe;
	struct nl_msg *m;
	int r;

	memset(&pe, 0x5a, sizeof(pe));
	ck_ov = &bad_pe[_i].ov;
	m = ck_build_pe("0000:00:02.0", 3, 0, 0);
	ck_ov = NULL;
	r = parse_pe(m, &pe);
	ck_assert_msg(r == -EBADMSG, "%s: got %d", bad_pe[_i].name, r);
	nlmsg_free(m);
}
END_TEST

START_TEST(test_pe_truncated)
{
	struct nl_msg *m = ck_build_pe("0000:00:02.0", 2, 0, 0);
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	for (uint32_t len = 0; len < nlh->nlmsg_len; len++) {
		struct pcierr_pe pe;
		void *copy = malloc(len ? len : 1);

		memcpy(copy, nlh, len);
		ck_assert_int_eq(pcierr_parse_pe(copy, len, &pe), -EBADMSG);
		if (len >= NLMSG_HDRLEN + GENL_HDRLEN + 1 && len % 4) {
			((struct nlmsghdr *)copy)->nlmsg_len = len;
			ck_assert_msg(pcierr_parse_pe(copy, len, &pe) == -EBADMSG, "nlmsg_len %u", len);
		}
		free(copy);
	}
	nlmsg_free(m);
}
END_TEST

START_TEST(test_pe_wrong_cmd)
{
	struct nl_msg *m = ck_build_event(1);
	struct pcierr_pe pe;

	ck_assert_int_eq(parse_pe(m, &pe), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

START_TEST(test_stats)
{
	struct nl_msg *m = ck_build_stats();
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct pcierr_stats st;

	ck_assert_int_eq(pcierr_parse_stats(nlh, nlh->nlmsg_len, &st), 0);
	for (int i = 1; i <= PCIERR_STAT_MAX; i++)
		ck_assert_uint_eq(st.counter[i], i == PCIERR_STAT_PAD ? 0 : 100 + (uint64_t)i);
	ck_assert_uint_eq(st.counter[0], 0);
	ck_assert_uint_eq(st.counter[PCIERR_STAT_OPS_FAILED], 100 + PCIERR_STAT_OPS_FAILED);
	nlmsg_free(m);
}
END_TEST

static const struct {
	const char *name;
	struct ck_override ov;
} bad_stats[] = {
	{ "checks_u32",  OV_NUM(1, PCIERR_STAT_CHECKS, CK_U32, 1) },
	{ "ops_str",     OV_STR(1, PCIERR_STAT_OPS, "12345678") },
	{ "junk",        OV_JUNK(1, 4) },
	{ "stats_u64",   OV_NUM(0, PCIERR_A_STATS, CK_U64, 1) },
	{ "no_stats",    OV_OMIT(0, PCIERR_A_STATS) },
};

START_TEST(test_stats_malformed)
{
	struct pcierr_stats st;
	struct nl_msg *m;
	struct nlmsghdr *nlh;

	ck_ov = &bad_stats[_i].ov;
	m = ck_build_stats();
	ck_ov = NULL;
	nlh = nlmsg_hdr(m);
	ck_assert_msg(pcierr_parse_stats(nlh, nlh->nlmsg_len, &st) == -EBADMSG, "%s",
		      bad_stats[_i].name);
	nlmsg_free(m);
}
END_TEST

START_TEST(test_stats_missing)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_STATS, 0, 0);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct pcierr_stats st;

	ck_assert_int_eq(pcierr_parse_stats(nlh, nlh->nlmsg_len, &st), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

/* counters newer than this header still fit, and are kept */
START_TEST(test_stats_newer)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_STATS, 0, 0);
	struct nlattr *n = nla_nest_start(m, PCIERR_A_STATS);
	struct nlmsghdr *nlh;
	struct pcierr_stats st;

	ck_assert_int_eq(nla_put_u64(m, PCIERR_STAT_FREEZES, 5), 0);
	ck_assert_int_eq(nla_put_u64(m, PCIERR_STAT_MAX + 3, 9), 0);
	ck_assert_int_eq(nla_put_u64(m, PCIERR_STATS_CAPACITY + 5, 9), 0);	/* ignored */
	nla_nest_end(m, n);
	nlh = nlmsg_hdr(m);
	ck_assert_int_eq(pcierr_parse_stats(nlh, nlh->nlmsg_len, &st), 0);
	ck_assert_uint_eq(st.counter[PCIERR_STAT_FREEZES], 5);
	ck_assert_uint_eq(st.counter[PCIERR_STAT_MAX + 3], 9);
	ck_assert_uint_eq(st.counter[PCIERR_STAT_CHECKS], 0);
	nlmsg_free(m);
}
END_TEST

static const struct {
	uint8_t cmd;
	int attr;
	enum ck_kind kind;
	int expected;
} u64_replies[] = {
	{ PCIERR_CMD_INJECT, PCIERR_A_SEQ, CK_U64, 0 },
	{ PCIERR_CMD_REPORT, PCIERR_A_OP_ID, CK_U64, 0 },
	{ PCIERR_CMD_RESET, PCIERR_A_OP_ID, CK_U32, -EBADMSG },
	{ PCIERR_CMD_RESET, PCIERR_A_OP_ID, CK_OMIT, -EBADMSG },
	{ PCIERR_CMD_INJECT, PCIERR_A_SEQ, CK_STR, -EBADMSG },
};

START_TEST(test_u64_reply)
{
	struct nl_msg *m = ck_genl_msg(u64_replies[_i].cmd, 0, 0);
	struct ck_override o = {
		.attr = u64_replies[_i].attr, .kind = u64_replies[_i].kind, .num = 77, .str = "77",
	};
	struct nlmsghdr *nlh;
	uint64_t v = 0;

	ck_ov = &o;
	ck_put_u64(m, 0, u64_replies[_i].attr, PCIERR_A_PAD, 77);
	ck_ov = NULL;
	nlh = nlmsg_hdr(m);
	ck_assert_int_eq(pcierr_parse_u64_reply(nlh, nlh->nlmsg_len, u64_replies[_i].attr, &v),
			 u64_replies[_i].expected);
	if (u64_replies[_i].expected == 0)
		ck_assert_uint_eq(v, 77);
	/* asking for an attribute that is no u64 is the caller's mistake */
	ck_assert_int_eq(pcierr_parse_u64_reply(nlh, nlh->nlmsg_len, PCIERR_A_PE, &v), -EINVAL);
	ck_assert_int_eq(pcierr_parse_u64_reply(nlh, nlh->nlmsg_len, PCIERR_A_MAX + 1, &v), -EINVAL);
	nlmsg_free(m);
}
END_TEST

Suite *suite_pe(void)
{
	Suite *s = suite_create("pe");
	TCase *tc;

	tc = tcase_create("get_pe");
	tcase_add_test(tc, test_pe);
	tcase_add_loop_test(tc, test_pe_sizes, 0, 5);
	tcase_add_loop_test(tc, test_pe_malformed, 0, ARRAY_SIZE(bad_pe));
	tcase_add_test(tc, test_pe_last_op_in_flight);
	tcase_add_test(tc, test_pe_no_last_op);
	tcase_add_loop_test(tc, test_pe_carried, 0, 3);
	tcase_add_test(tc, test_pe_split);
	tcase_add_test(tc, test_pe_split_bad);
	tcase_add_test(tc, test_pe_truncated);
	tcase_add_test(tc, test_pe_wrong_cmd);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_test(tc, test_stats);
	tcase_add_loop_test(tc, test_stats_malformed, 0, ARRAY_SIZE(bad_stats));
	tcase_add_test(tc, test_stats_missing);
	tcase_add_test(tc, test_stats_newer);
	suite_add_tcase(s, tc);

	tc = tcase_create("u64_reply");
	tcase_add_loop_test(tc, test_u64_reply, 0, ARRAY_SIZE(u64_replies));
	suite_add_tcase(s, tc);
	return s;
}

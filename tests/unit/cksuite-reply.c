// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reading replies: error acks with and without extended ack text,
 * NLMSG_DONE, dumps interrupted by a topology change, stale replies.
 */
#include <errno.h>
#include <string.h>

#include "cksuite.h"

static const struct {
	int error;
	const char *text;
	int capped;
} acks[] = {
	{ 0, NULL, 1 },
	{ 0, NULL, 0 },
	{ -EPERM, NULL, 1 },
	{ -EINVAL, "Attribute failed policy validation", 1 },
	{ -EINVAL, "Attribute failed policy validation", 0 },
	{ -ENODEV, "pcierr: no such device", 0 },
	{ -EBUSY, "pcierr: an operation is in flight on this PE", 1 },
	{ -4095, "x", 1 },
};

START_TEST(test_ack)
{
	struct nl_msg *m = ck_build_error(99, acks[_i].error, acks[_i].text, acks[_i].capped);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	char text[PCIERR_ERRMSG_MAX];
	int error = 1;

	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), 0);
	ck_assert_int_eq(error, acks[_i].error);
	ck_assert_str_eq(text, acks[_i].text ? acks[_i].text : "");
	nlmsg_free(m);
}
END_TEST

START_TEST(test_ack_small_buffer)
{
	struct nl_msg *m = ck_build_error(1, -EINVAL, "a rather long message", 1);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	char text[5];
	int error;

	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "a ra");
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, NULL, 0), 0);
	ck_assert_int_eq(error, -EINVAL);
	nlmsg_free(m);
}
END_TEST

START_TEST(test_ack_bad)
{
	struct nl_msg *m = ck_build_error(1, -EINVAL, NULL, 1);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct nlmsgerr *e = nlmsg_data(nlh);
	char text[16];
	int error;

	/* cut: no room for the nlmsgerr */
	nlh->nlmsg_len = NLMSG_HDRLEN + 4;
	ck_assert_int_eq(pcierr_parse_ack(nlh, NLMSG_HDRLEN + 4, &error, text, sizeof(text)), -EBADMSG);
	nlh->nlmsg_len = NLMSG_HDRLEN + sizeof(*e);
	/* a positive or absurd error */
	e->error = 5;
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), -EBADMSG);
	e->error = -5000;
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), -EBADMSG);
	/* not an ack at all */
	e->error = 0;
	nlh->nlmsg_type = CK_FAMILY;
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), -EBADMSG);
	/* longer than the buffer */
	nlh->nlmsg_type = NLMSG_ERROR;
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len - 1, &error, text, sizeof(text)), -EBADMSG);
	nlmsg_free(m);
}
END_TEST

/* A garbled extack costs the text, not the error. */
START_TEST(test_ack_bad_tlv)
{
	struct nl_msg *m = ck_build_error(1, -EPERM, "abc", 1);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	struct nlattr *a = (struct nlattr *)((char *)nlmsg_data(nlh) + sizeof(struct nlmsgerr));
	char text[16];
	int error;

	((char *)nla_data(a))[3] = 'd';		/* no NUL any more */
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), 0);
	ck_assert_int_eq(error, -EPERM);
	ck_assert_str_eq(text, "");
	nlmsg_free(m);
}
END_TEST

START_TEST(test_done)
{
	struct nl_msg *m = ck_build_done(3, -EMSGSIZE, 0);
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	char text[16];
	int error = 1;

	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), 0);
	ck_assert_int_eq(error, -EMSGSIZE);
	/* an old kernel's DONE without payload */
	nlh->nlmsg_len = NLMSG_HDRLEN;
	ck_assert_int_eq(pcierr_parse_ack(nlh, nlh->nlmsg_len, &error, text, sizeof(text)), 0);
	ck_assert_int_eq(error, 0);
	nlmsg_free(m);
}
END_TEST

/* ------------------------------------------------------------------ */

struct collect {
	int n;
	char addrs[8][PCIERR_ADDR_STRLEN];
	int fail_at;		/* return -EIO for the n-th call (1-based), 0 never */
};

static int collect_pe(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct collect *c = userdata;
	struct pcierr_pe pe;
	int r;

	if (c->fail_at && c->n + 1 == c->fail_at) {
		c->n++;
		return -EIO;
	}
	r = pcierr_parse_pe(nlh, len, &pe);
	if (r < 0)
		return r;
	snprintf(c->addrs[c->n++ % 8], PCIERR_ADDR_STRLEN, "%s", pe.addr);
	pcierr_pe_clear(&pe);
	return 0;
}

static struct pcierr_ctx *detached(void)
{
	struct pcierr_ctx *ctx = NULL;

	ck_assert_int_eq(pcierr_ctx_new_detached(CK_FAMILY, &ctx), 0);
	ck_assert_ptr_nonnull(ctx);
	return ctx;
}

/* datagram helpers: messages in one buffer */
struct dgram {
	char buf[64 * 1024];
	size_t len;
};

static void dg_add(struct dgram *d, struct nl_msg *m)
{
	d->len = ck_append(d->buf, sizeof(d->buf), d->len, m);
	nlmsg_free(m);
}

START_TEST(test_dump_sequence)
{
	struct pcierr_ctx *ctx = detached();
	struct collect c = {};
	struct pcierr_reply_state st = { .seq = 10, .fn = collect_pe, .userdata = &c };
	struct dgram d1 = {}, d2 = {};

	/* a stale part of an older request, then two parts */
	dg_add(&d1, ck_build_pe("0000:00:09.0", 1, 9, NLM_F_MULTI));
	dg_add(&d1, ck_build_pe("0000:00:01.0", 1, 10, NLM_F_MULTI));
	dg_add(&d1, ck_build_pe("0000:00:02.0", 2, 10, NLM_F_MULTI));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d1.buf, d1.len), 0);
	ck_assert_int_eq(c.n, 2);
	ck_assert(!st.done);
	ck_assert(!st.intr);

	/* the next datagram: one more, and DONE */
	dg_add(&d2, ck_build_pe("0000:00:03.0", 0, 10, NLM_F_MULTI));
	dg_add(&d2, ck_build_done(10, 0, 0));
	dg_add(&d2, ck_build_pe("0000:00:04.0", 0, 10, NLM_F_MULTI));	/* after DONE: not read */
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d2.buf, d2.len), 1);
	ck_assert(st.done);
	ck_assert_int_eq(st.result, 0);
	ck_assert_int_eq(c.n, 3);
	ck_assert_str_eq(c.addrs[0], "0000:00:01.0");
	ck_assert_str_eq(c.addrs[1], "0000:00:02.0");
	ck_assert_str_eq(c.addrs[2], "0000:00:03.0");
	ck_assert_ptr_null(pcierr_last_error_message(ctx));
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_dump_intr)
{
	struct pcierr_ctx *ctx = detached();
	struct collect c = {};
	struct pcierr_reply_state st = { .seq = 4, .fn = collect_pe, .userdata = &c };
	struct dgram d = {};

	dg_add(&d, ck_build_pe("0000:00:01.0", 1, 4, NLM_F_MULTI));
	dg_add(&d, ck_build_pe("0000:00:02.0", 1, 4, NLM_F_MULTI | NLM_F_DUMP_INTR));
	dg_add(&d, ck_build_done(4, 0, 0));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert(st.intr);
	ck_assert_int_eq(st.result, 0);

	/* the flag on DONE alone counts too */
	memset(&st, 0, sizeof(st));
	st.seq = 5;
	d.len = 0;
	dg_add(&d, ck_build_done(5, 0, NLM_F_DUMP_INTR));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert(st.intr);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_doit_error)
{
	struct pcierr_ctx *ctx = detached();
	struct collect c = {};
	struct pcierr_reply_state st = { .seq = 77, .fn = collect_pe, .userdata = &c };
	struct dgram d = {};

	dg_add(&d, ck_build_error(76, -EBUSY, "stale", 1));
	dg_add(&d, ck_build_error(77, -EPERM, "Operation requires CAP_NET_ADMIN", 1));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert_int_eq(st.result, -EPERM);
	ck_assert_int_eq(c.n, 0);
	ck_assert_ptr_nonnull(pcierr_last_error_message(ctx));
	ck_assert_str_eq(pcierr_last_error_message(ctx), "Operation requires CAP_NET_ADMIN");
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_doit_reply_then_ack)
{
	struct pcierr_ctx *ctx = detached();
	struct collect c = {};
	struct pcierr_reply_state st = { .seq = 8, .fn = collect_pe, .userdata = &c };
	struct dgram d = {};

	dg_add(&d, ck_build_pe("0000:00:1c.0", 2, 8, 0));
	dg_add(&d, ck_build_error(8, 0, NULL, 1));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert_int_eq(st.result, 0);
	ck_assert_int_eq(c.n, 1);
	ck_assert_str_eq(c.addrs[0], "0000:00:1c.0");
	ck_assert_ptr_null(pcierr_last_error_message(ctx));
	pcierr_ctx_free(ctx);
}
END_TEST

/* A reply that fails to parse: the error is kept, reading goes on to
 * the ack (so that no part of the reply is left for the next request). */
START_TEST(test_reply_parse_error)
{
	static const struct ck_override no_state = OV_OMIT(0, PCIERR_A_PE_STATE);
	struct pcierr_ctx *ctx = detached();
	struct collect c = { .fail_at = 0 };
	struct pcierr_reply_state st = { .seq = 3, .fn = collect_pe, .userdata = &c };
	struct dgram d = {};

	ck_ov = &no_state;
	dg_add(&d, ck_build_pe("0000:00:01.0", 1, 3, NLM_F_MULTI));
	ck_ov = NULL;
	dg_add(&d, ck_build_pe("0000:00:02.0", 1, 3, NLM_F_MULTI));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 0);
	ck_assert_int_eq(st.result, -EBADMSG);
	ck_assert_int_eq(c.n, 0);	/* not called after the failure */
	d.len = 0;
	dg_add(&d, ck_build_done(3, 0, 0));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert_int_eq(st.result, -EBADMSG);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_reply_callback_error)
{
	struct pcierr_ctx *ctx = detached();
	struct collect c = { .fail_at = 1 };
	struct pcierr_reply_state st = { .seq = 3, .fn = collect_pe, .userdata = &c };
	struct dgram d = {};

	dg_add(&d, ck_build_pe("0000:00:01.0", 1, 3, NLM_F_MULTI));
	dg_add(&d, ck_build_pe("0000:00:02.0", 1, 3, NLM_F_MULTI));
	dg_add(&d, ck_build_done(3, -EINTR, 0));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, d.buf, d.len), 1);
	ck_assert_int_eq(st.result, -EIO);	/* the first error wins */
	ck_assert_int_eq(c.n, 1);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_reply_garbage)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_reply_state st = { .seq = 1 };
	char junk[64];

	memset(junk, 0xff, sizeof(junk));
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, junk, sizeof(junk)), 0);
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, junk, 3), 0);
	ck_assert_int_eq(pcierr_reply_process(ctx, &st, junk, 0), 0);
	ck_assert(!st.done);
	pcierr_ctx_free(ctx);
}
END_TEST

Suite *suite_reply(void)
{
	Suite *s = suite_create("reply");
	TCase *tc;

	tc = tcase_create("ack");
	tcase_add_loop_test(tc, test_ack, 0, ARRAY_SIZE(acks));
	tcase_add_test(tc, test_ack_small_buffer);
	tcase_add_test(tc, test_ack_bad);
	tcase_add_test(tc, test_ack_bad_tlv);
	tcase_add_test(tc, test_done);
	suite_add_tcase(s, tc);

	tc = tcase_create("transaction");
	tcase_add_test(tc, test_dump_sequence);
	tcase_add_test(tc, test_dump_intr);
	tcase_add_test(tc, test_doit_error);
	tcase_add_test(tc, test_doit_reply_then_ack);
	tcase_add_test(tc, test_reply_parse_error);
	tcase_add_test(tc, test_reply_callback_error);
	tcase_add_test(tc, test_reply_garbage);
	suite_add_tcase(s, tc);
	return s;
}

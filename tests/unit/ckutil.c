// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Builders for the unit tests: netlink messages as the pcierr_shim
 * kernel module sends them (u64 values with alignment padding before
 * them, nests flagged NLA_F_NESTED), with an optional defect (ck_ov).
 */
#include <string.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "cksuite.h"

const struct ck_override *ck_ov;

static const struct ck_override *ov_for(int scope, int attr)
{
	if (ck_ov && ck_ov->scope == scope && ck_ov->attr == attr && ck_ov->kind != CK_JUNK)
		return ck_ov;
	return NULL;
}

static void put_override(struct nl_msg *m, const struct ck_override *o)
{
	switch (o->kind) {
	case CK_U16:
		ck_assert_int_eq(nla_put_u16(m, o->attr, (uint16_t)o->num), 0);
		break;
	case CK_U32:
		ck_assert_int_eq(nla_put_u32(m, o->attr, (uint32_t)o->num), 0);
		break;
	case CK_U64:
		ck_assert_int_eq(nla_put_u64(m, o->attr, o->num), 0);
		break;
	case CK_STR:
		ck_assert_int_eq(nla_put_string(m, o->attr, o->str), 0);
		break;
	case CK_RAW:
		ck_assert_int_eq(nla_put(m, o->attr, (int)o->len, o->str), 0);
		break;
	default:	/* CK_OMIT */
		break;
	}
}

void ck_put_u16(struct nl_msg *m, int scope, int attr, uint16_t v)
{
	const struct ck_override *o = ov_for(scope, attr);

	if (o)
		put_override(m, o);
	else
		ck_assert_int_eq(nla_put_u16(m, attr, v), 0);
}

void ck_put_u32(struct nl_msg *m, int scope, int attr, uint32_t v)
{
	const struct ck_override *o = ov_for(scope, attr);

	if (o)
		put_override(m, o);
	else
		ck_assert_int_eq(nla_put_u32(m, attr, v), 0);
}

void ck_put_u64(struct nl_msg *m, int scope, int attr, int pad_attr, uint64_t v)
{
	const struct ck_override *o = ov_for(scope, attr);

	if (o) {
		put_override(m, o);
		return;
	}
	/* what nla_put_u64_64bit() does when the data would be unaligned:
	 * an empty pad attribute first (here: always) */
	ck_assert_int_eq(nla_put(m, pad_attr, 0, NULL), 0);
	ck_assert_int_eq(nla_put_u64(m, attr, v), 0);
}

void ck_put_str(struct nl_msg *m, int scope, int attr, const char *s)
{
	const struct ck_override *o = ov_for(scope, attr);

	if (o)
		put_override(m, o);
	else
		ck_assert_int_eq(nla_put_string(m, attr, s), 0);
}

void ck_end_scope(struct nl_msg *m, int scope)
{
	/* (OV_JUNK(3, 9) of cksuite-pe.c read past a junk[8]: found by
	 * make unit-asan) */
	static const char junk[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	if (ck_ov && ck_ov->kind == CK_JUNK && ck_ov->scope == scope) {
		ck_assert_uint_le(ck_ov->len, sizeof(junk));
		ck_assert_int_eq(nlmsg_append(m, (void *)junk, ck_ov->len, 0), 0);
	}
}

struct nl_msg *ck_genl_msg(uint8_t cmd, uint32_t seq, int flags)
{
	struct nl_msg *m = nlmsg_alloc_size(64 * 1024);

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(genlmsg_put(m, 0, seq, CK_FAMILY, 0, flags, cmd,
					  PCIERR_GENL_VERSION));
	return m;
}

static struct nlattr *nest_start(struct nl_msg *m, int type)
{
	struct nlattr *n = nla_nest_start(m, type | NLA_F_NESTED);

	ck_assert_ptr_nonnull(n);
	return n;
}

/* a nest, unless the override replaces it (then NULL: skip its content) */
static struct nlattr *nest_start_ov(struct nl_msg *m, int scope, int type)
{
	const struct ck_override *o = ov_for(scope, type);

	if (o) {
		put_override(m, o);
		return NULL;
	}
	return nest_start(m, type);
}

struct nl_msg *ck_build_event(uint64_t seq)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_EVENT, 0, 0);

	ck_put_str(m, 0, PCIERR_A_PE, "0000:00:02.0");
	ck_put_u64(m, 0, PCIERR_A_PE_ID, PCIERR_A_PAD, CK_PE_ID);
	ck_put_str(m, 0, PCIERR_A_DEVICE, "0000:01:00.0");
	ck_put_u32(m, 0, PCIERR_A_STATE, PCIERR_STATE_FROZEN);
	ck_put_u32(m, 0, PCIERR_A_TIME_UNAVAIL_MS, 250);
	ck_put_u32(m, 0, PCIERR_A_SOURCE, PCIERR_SOURCE_INJECT);
	ck_put_u64(m, 0, PCIERR_A_SEQ, PCIERR_A_PAD, seq);
	ck_put_u64(m, 0, PCIERR_A_TIMESTAMP_NS, PCIERR_A_PAD, 123456789000ULL);
	ck_put_u32(m, 0, PCIERR_A_ERROR_GEN, 3);
	ck_end_scope(m, 0);
	return m;
}

static void put_result(struct nl_msg *m, int scope, const char *addr, uint32_t result)
{
	struct nlattr *e = nest_start(m, PCIERR_A_RESULTS_ENTRY);

	ck_put_str(m, scope, PCIERR_DEV_A_ADDR, addr);
	ck_put_u32(m, scope, PCIERR_DEV_A_RESULT, result);
	ck_end_scope(m, scope);
	nla_nest_end(m, e);
}

struct nl_msg *ck_build_op_done(uint64_t op_id, uint32_t op)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_OP_DONE, 0, 0);

	ck_put_u64(m, 0, PCIERR_A_OP_ID, PCIERR_A_PAD, op_id);
	ck_put_u32(m, 0, PCIERR_A_OP, op);
	ck_put_str(m, 0, PCIERR_A_PE, "0000:00:02.0");
	ck_put_u64(m, 0, PCIERR_A_PE_ID, PCIERR_A_PAD, CK_PE_ID + 1);
	if (op == PCIERR_CMD_REPORT) {
		struct nlattr *n;

		ck_put_u32(m, 0, PCIERR_A_STEP, PCIERR_STEP_ERROR_DETECTED);
		ck_put_u32(m, 0, PCIERR_A_RESULT, PCIERR_RESULT_NEED_RESET);
		n = nest_start_ov(m, 0, PCIERR_A_RESULTS);
		if (n) {
			put_result(m, 1, "0000:01:00.0", PCIERR_RESULT_NEED_RESET);
			put_result(m, 2, "0000:01:00.1", PCIERR_RESULT_NONE);
			ck_end_scope(m, 3);	/* junk inside the list itself */
			nla_nest_end(m, n);
		}
	}
	ck_put_u64(m, 0, PCIERR_A_DURATION_NS, PCIERR_A_PAD, 4242);
	ck_put_u64(m, 0, PCIERR_A_START_NS, PCIERR_A_PAD, 1000000);
	ck_put_u32(m, 0, PCIERR_A_ERRNO, 0);
	ck_put_u32(m, 0, PCIERR_A_PE_STATE, PCIERR_PE_STATE_FROZEN);
	ck_end_scope(m, 0);
	return m;
}

struct nl_msg *ck_build_overflow(uint64_t dropped, uint64_t seq)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_OVERFLOW, 0, 0);

	ck_put_u64(m, 0, PCIERR_A_DROPPED, PCIERR_A_PAD, dropped);
	ck_put_u64(m, 0, PCIERR_A_SEQ, PCIERR_A_PAD, seq);
	ck_end_scope(m, 0);
	return m;
}

uint64_t ck_pe_id(const char *pe)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *pe; pe++)
		h = (h ^ (unsigned char)*pe) * 1099511628211ULL;
	return h ? h : 1;
}

struct nl_msg *ck_build_pe(const char *pe, int n_devices, uint32_t seq, int flags)
{
	return ck_build_pe_part(pe, 0, n_devices, seq, flags);
}

struct nl_msg *ck_build_pe_part(const char *pe, int first, int n_devices, uint32_t seq,
				int flags)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_PE, seq, flags);
	struct nlattr *devs, *e, *last;

	ck_put_str(m, 0, PCIERR_A_PE, pe);
	ck_put_u64(m, 0, PCIERR_A_PE_ID, PCIERR_A_PAD, ck_pe_id(pe));
	last = nest_start_ov(m, 0, PCIERR_A_LAST_OP);
	if (last) {
		ck_put_u64(m, 4, PCIERR_A_OP_ID, PCIERR_A_PAD, 77);
		ck_put_u32(m, 4, PCIERR_A_OP, PCIERR_CMD_REPORT);
		ck_put_u32(m, 4, PCIERR_A_STEP, PCIERR_STEP_SLOT_RESET);
		ck_put_u32(m, 4, PCIERR_A_RESULT, PCIERR_RESULT_RECOVERED);
		ck_put_u32(m, 4, PCIERR_A_ERRNO, 5);
		ck_put_u64(m, 4, PCIERR_A_DURATION_NS, PCIERR_A_PAD, 999);
		ck_put_u32(m, 4, PCIERR_A_PE_STATE, PCIERR_PE_STATE_RESET);
		ck_end_scope(m, 4);
		nla_nest_end(m, last);
	}
	ck_put_u32(m, 0, PCIERR_A_PE_STATE, PCIERR_PE_STATE_FROZEN);
	ck_put_u32(m, 0, PCIERR_A_PE_FLAGS, PCIERR_PE_F_BUSY);
	ck_put_u32(m, 0, PCIERR_A_RESET_TYPES, 1U << PCIERR_RESET_HOT);
	ck_put_u32(m, 0, PCIERR_A_GENERATION, 7);
	ck_put_u32(m, 0, PCIERR_A_WATCH_INTERVAL_MS, 500);
	if (n_devices > 0 && (devs = nest_start_ov(m, 0, PCIERR_A_PE_DEVICES))) {
		if (first > 0)
			goto rest;
		e = nest_start(m, PCIERR_A_PE_DEVICES_ENTRY);
		ck_put_str(m, 1, PCIERR_DEV_A_ADDR, "0000:01:00.0");
		ck_put_u16(m, 1, PCIERR_DEV_A_VENDOR, 0x8086);
		ck_put_u16(m, 1, PCIERR_DEV_A_DEVICE, 0x10d3);
		ck_put_u16(m, 1, PCIERR_DEV_A_SUBVENDOR, 0x8086);
		ck_put_u16(m, 1, PCIERR_DEV_A_SUBDEVICE, 0xa01f);
		ck_put_u32(m, 1, PCIERR_DEV_A_CLASS, 0x020000);
		ck_put_u64(m, 1, PCIERR_DEV_A_DSN, PCIERR_DEV_A_PAD, 0x0011223344556677ULL);
		ck_put_str(m, 1, PCIERR_DEV_A_DRIVER, "e1000e");
		ck_put_u32(m, 1, PCIERR_DEV_A_HANDLERS,
			   1U << PCIERR_HANDLER_ERROR_DETECTED | 1U << PCIERR_HANDLER_MMIO_ENABLED |
			   1U << PCIERR_HANDLER_SLOT_RESET | 1U << PCIERR_HANDLER_RESUME);
		ck_put_u32(m, 1, PCIERR_DEV_A_STATE, PCIERR_STATE_FROZEN);
		ck_put_u32(m, 1, PCIERR_DEV_A_ERROR_GEN, 2);
		ck_put_u32(m, 1, PCIERR_DEV_A_FLAGS, 0);
		ck_end_scope(m, 1);
		nla_nest_end(m, e);

rest:
		for (int i = first ? first : 1; i < first + n_devices; i++) {
			char addr[PCIERR_ADDR_STRLEN];

			snprintf(addr, sizeof(addr), "0000:01:%02x.%x", i / 8, i % 8);
			e = nest_start(m, PCIERR_A_PE_DEVICES_ENTRY);
			ck_put_str(m, 2, PCIERR_DEV_A_ADDR, addr);
			ck_put_u16(m, 2, PCIERR_DEV_A_VENDOR, 0x1af4);
			ck_put_u16(m, 2, PCIERR_DEV_A_DEVICE, 0x1000);
			ck_put_u32(m, 2, PCIERR_DEV_A_CLASS, 0x010000);
			ck_put_u32(m, 2, PCIERR_DEV_A_HANDLERS, 0);
			ck_put_u32(m, 2, PCIERR_DEV_A_STATE, PCIERR_STATE_NORMAL);
			ck_put_u32(m, 2, PCIERR_DEV_A_ERROR_GEN, 0);
			ck_put_u32(m, 2, PCIERR_DEV_A_FLAGS, PCIERR_DEV_F_BRIDGE);
			nla_nest_end(m, e);
		}
		ck_end_scope(m, 3);
		nla_nest_end(m, devs);
	}
	ck_end_scope(m, 0);
	return m;
}

struct nl_msg *ck_build_stats(void)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_GET_STATS, 0, 0);
	struct nlattr *n = nest_start_ov(m, 0, PCIERR_A_STATS);

	if (!n)
		return m;
	for (int i = 1; i <= PCIERR_STAT_MAX; i++)
		if (i != PCIERR_STAT_PAD)
			ck_put_u64(m, 1, i, PCIERR_STAT_PAD, 100 + (uint64_t)i);
	ck_end_scope(m, 1);
	nla_nest_end(m, n);
	return m;
}

struct nl_msg *ck_build_error(uint32_t seq, int error, const char *text, int capped)
{
	static const uint8_t req_payload[12] = { 0x8, 0, 0, 0, 0x6, 0, 1, 0, 'x', 0, 0, 0 };
	struct nl_msg *m = nlmsg_alloc();
	size_t plen = sizeof(struct nlmsgerr) + (capped ? 0 : sizeof(req_payload));
	int flags = (capped ? NLM_F_CAPPED : 0) | (text ? NLM_F_ACK_TLVS : 0);
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	ck_assert_ptr_nonnull(m);
	nlh = nlmsg_put(m, 0, seq, NLMSG_ERROR, (int)plen, flags);
	ck_assert_ptr_nonnull(nlh);
	e = nlmsg_data(nlh);
	e->error = error;
	e->msg = (struct nlmsghdr) {
		.nlmsg_len = NLMSG_HDRLEN + (capped ? 0 : sizeof(req_payload)),
		.nlmsg_type = CK_FAMILY,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nlmsg_seq = seq,
	};
	if (!capped)
		memcpy(e + 1, req_payload, sizeof(req_payload));
	if (text)
		ck_assert_int_eq(nla_put_string(m, NLMSGERR_ATTR_MSG, text), 0);
	return m;
}

struct nl_msg *ck_build_done(uint32_t seq, int error, int flags)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlmsghdr *nlh;

	ck_assert_ptr_nonnull(m);
	nlh = nlmsg_put(m, 0, seq, NLMSG_DONE, sizeof(int), NLM_F_MULTI | flags);
	ck_assert_ptr_nonnull(nlh);
	memcpy(nlmsg_data(nlh), &error, sizeof(error));
	return m;
}

size_t ck_append(void *buf, size_t size, size_t off, struct nl_msg *m)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	off = NLMSG_ALIGN(off);
	ck_assert_uint_le(off + nlh->nlmsg_len, size);
	memcpy((char *)buf + off, nlh, nlh->nlmsg_len);
	return off + NLMSG_ALIGN(nlh->nlmsg_len);
}

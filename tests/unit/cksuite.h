/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpcierr unit tests: the suites and the helpers that build netlink
 * messages exactly as the pcierr_shim kernel module sends them.
 */
#ifndef PCIERR_CKSUITE_H
#define PCIERR_CKSUITE_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>
#include <netlink/msg.h>

#include "pcierr-internal.h"

Suite *suite_names(void);
Suite *suite_addr(void);
Suite *suite_notify(void);
Suite *suite_pe(void);
Suite *suite_reply(void);
Suite *suite_ctx(void);

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* the family id the test messages carry */
#define CK_FAMILY 0x1c

/*
 * One change to an otherwise well-formed message: the attribute attr at
 * nesting scope (0: top level; 1: inside the first device / result
 * entry) is left out, or replaced by one of another kind/value; CK_JUNK
 * appends bytes that are no attribute at the end of that scope.
 */
enum ck_kind { CK_NONE, CK_OMIT, CK_U16, CK_U32, CK_U64, CK_STR, CK_RAW, CK_JUNK };

struct ck_override {
	int scope;
	int attr;
	enum ck_kind kind;
	uint64_t num;
	const char *str;
	size_t len;		/* CK_RAW, CK_JUNK: bytes */
};

#define OV_OMIT(s, a)		{ .scope = (s), .attr = (a), .kind = CK_OMIT }
#define OV_NUM(s, a, k, v)	{ .scope = (s), .attr = (a), .kind = (k), .num = (v) }
#define OV_STR(s, a, v)		{ .scope = (s), .attr = (a), .kind = CK_STR, .str = (v) }
#define OV_RAW(s, a, v, l)	{ .scope = (s), .attr = (a), .kind = CK_RAW, .str = (v), .len = (l) }
#define OV_JUNK(s, l)		{ .scope = (s), .kind = CK_JUNK, .len = (l) }

/* the override the builders apply (NULL: none) */
extern const struct ck_override *ck_ov;

/* a generic netlink message of the test family, as the kernel starts one */
struct nl_msg *ck_genl_msg(uint8_t cmd, uint32_t seq, int flags);

/* attribute writers that honour ck_ov */
void ck_put_u16(struct nl_msg *m, int scope, int attr, uint16_t v);
void ck_put_u32(struct nl_msg *m, int scope, int attr, uint32_t v);
void ck_put_u64(struct nl_msg *m, int scope, int attr, int pad_attr, uint64_t v);
void ck_put_str(struct nl_msg *m, int scope, int attr, const char *s);
void ck_end_scope(struct nl_msg *m, int scope);

/* EVENT: pe 0000:00:02.0, dev 0000:01:00.0, frozen, inject, unavail 250,
 * ts 123456789000, gen 3 */
struct nl_msg *ck_build_event(uint64_t seq);
/* OP_DONE of REPORT error_detected on 0000:00:02.0: need_reset, errno 0,
 * duration 4242, pe_state frozen; results 0000:01:00.0 need_reset,
 * 0000:01:00.1 none. For another op, no step/result/results. */
struct nl_msg *ck_build_op_done(uint64_t op_id, uint32_t op);
/* OVERFLOW dropped, seq */
struct nl_msg *ck_build_overflow(uint64_t dropped, uint64_t seq);
/* GET_PE reply: PE 0000:00:02.0 frozen, flags BUSY, reset types HOT,
 * generation 7, watch 500; devices 0000:01:00.0 (8086:10d3 sub 8086:a01f,
 * class 020000, dsn, e1000e, handlers error_detected|mmio_enabled|
 * slot_reset|resume, frozen, gen 2) and 0000:01:00.1 (1af4:1000, class
 * 010000, no driver, normal, gen 0, flags BRIDGE). n_devices 0: none.
 * flags: nlmsg flags (NLM_F_MULTI, NLM_F_DUMP_INTR) */
struct nl_msg *ck_build_pe(const char *pe, int n_devices, uint32_t seq, int flags);
/* Devices first .. first + n_devices - 1 of that PE (device 0 is the
 * e1000e above, the others are bridges 0000:01:DD.F): one part of a PE
 * split across dump messages. Also carries a PCIERR_A_LAST_OP (scope 4):
 * REPORT slot_reset, op id 77, done, errno 5, recovered, 999 ns, RESET. */
struct nl_msg *ck_build_pe_part(const char *pe, int first, int n_devices, uint32_t seq,
				int flags);
/* The PE id ck_build_pe() gives the PE named pe (never 0) */
uint64_t ck_pe_id(const char *pe);
/* The PE id of ck_build_event() (ck_build_op_done(): this + 1) */
#define CK_PE_ID 0x1234567890ULL
/* GET_STATS reply: counter i = 100 + i */
struct nl_msg *ck_build_stats(void);
/* NLMSG_ERROR for request seq: error (<= 0), extack text (or NULL);
 * capped: NLM_F_CAPPED (else the request is echoed) */
struct nl_msg *ck_build_error(uint32_t seq, int error, const char *text, int capped);
/* NLMSG_DONE for request seq, with its error int; flags extra */
struct nl_msg *ck_build_done(uint32_t seq, int error, int flags);

/* copy a message's bytes to a datagram buffer at *off (aligned) */
size_t ck_append(void *buf, size_t size, size_t off, struct nl_msg *m);

#endif /* PCIERR_CKSUITE_H */

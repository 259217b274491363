/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table-driven tests of the pure policy (daemon/policy.c): every rule of
 * design §2/§6 and issue 3 is a scenario, a PE plus a list of inputs, each
 * with the action (and effects) expected. The harness plays the daemon: it
 * keeps the recovery state and persists the effects into the devices'
 * freeze records between inputs.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/config.h"
#include "../../daemon/policy.h"
#include "cksuites.h"

#define MAXD	4
#define MAXS	40

#define SEC(x)	((pcierr_usec_t)(x) * PCIERR_USEC_PER_SEC)
#define MSEC(x)	((pcierr_usec_t)(x) * PCIERR_USEC_PER_MSEC)
#define T0	SEC(1700000000)		/* the base of every scenario's clock */
/* every device's error generation, kept through the effects */
#define ERROR_GEN(i)	(0xfffffff0U + (unsigned int)(i))

#define H(x)	(1U << PCIERR_HANDLER_##x)
#define H_ALL	(H(ERROR_DETECTED) | H(MMIO_ENABLED) | H(SLOT_RESET) | H(RESUME))

/* ------------------------------------------------------------------ */
/* The table's vocabulary */

struct dev {
	const char *addr;
	uint16_t vendor, device;
	bool bound, bridge;
	uint32_t handlers;
	unsigned int count;		/* history */
	pcierr_usec_t last;		/* offset from T0 */
	bool disabled;
	const char *driver;		/* bound driver's name; NULL: unknown */
};

#define AWARE(a)	{ .addr = a, .vendor = 0x8086, .device = 0x10d3, .bound = true, .handlers = H_ALL }
#define NO_MMIO(a)	{ .addr = a, .vendor = 0x8086, .device = 0x100e, .bound = true, \
			  .handlers = H(ERROR_DETECTED) | H(SLOT_RESET) | H(RESUME) }
#define NO_HANDLERS(a)	{ .addr = a, .vendor = 0x10ec, .device = 0x8139, .bound = true }
#define ED_ONLY(a)	{ .addr = a, .vendor = 0x1000, .device = 0x0012, .bound = true, \
			  .handlers = H(ERROR_DETECTED) | H(RESUME) }
#define UNBOUND(a)	{ .addr = a, .vendor = 0x1b36, .device = 0x0005, .bound = false, .handlers = H_ALL }
#define BRIDGE(a)	{ .addr = a, .vendor = 0x1b36, .device = 0x000e, .bridge = true }
/* an aware device bound to the named driver */
#define DRV(a, drv)	{ .addr = a, .vendor = 0x8086, .device = 0x100e, .bound = true, \
			  .handlers = H_ALL, .driver = (drv) }
#define HIST(d, n, l)	{ .addr = (d), .vendor = 0x8086, .device = 0x10d3, .bound = true, \
			  .handlers = H_ALL, .count = (n), .last = (l) }

enum rt { RT_BOTH, RT_HOT, RT_FUND, RT_NONE };

enum in_kind { IN_END, IN_FREEZE, IN_PERM, IN_AER, IN_OP, IN_WAIT_DONE, IN_TIMEOUT,
	       IN_SLOT_EMPTY, IN_VERIFIED };

struct in {
	enum in_kind kind;
	pcierr_usec_t t;		/* offset from T0 */
	int named;			/* device index + 1; 0 = the PE */
	int64_t tu;			/* PERM: time_unavail_ms */
	bool empty;			/* PERM: slot_empty */
	enum pcierr_policy_aer aer;
	bool nonfatal;			/* AER: the channel stayed normal */
	enum pcierr_cmd op;
	enum pcierr_step step;
	int error;
	enum pcierr_result res[MAXD];	/* UNSPEC: not in the results */
	enum pcierr_result below;	/* a device the PE does not list (a child PE's) */
	enum pcierr_policy_freeze_kind fk;	/* FREEZE, PERM */
	enum pcierr_reset_type rtype;		/* ... ADMIN */
	bool verified;				/* VERIFIED */
	const char *missing;
	bool gone;
};

#define FREEZE(tt, d)	{ .kind = IN_FREEZE, .t = (tt), .named = (d) + 1 }
#define FREEZE_PE(tt)	{ .kind = IN_FREEZE, .t = (tt), .named = 0 }
#define PERM(tt, ms)	{ .kind = IN_PERM, .t = (tt), .named = 1, .tu = (ms) }
#define PERM_EMPTY(tt)	{ .kind = IN_PERM, .t = (tt), .named = 1, .empty = true }
#define FROZEN_EMPTY(tt) { .kind = IN_FREEZE, .t = (tt), .named = 1, .empty = true }
#define AER(tt, k)	{ .kind = IN_AER, .t = (tt), .named = 1, .aer = PCIERR_POLICY_AER_##k }
/* ... naming device d; a non-fatal one (the kernel's AER counters) */
#define AER_D(tt, k, d)	{ .kind = IN_AER, .t = (tt), .named = (d) + 1, .aer = PCIERR_POLICY_AER_##k }
#define AER_NF(tt, k, d) { .kind = IN_AER, .t = (tt), .named = (d) + 1, \
			  .aer = PCIERR_POLICY_AER_##k, .nonfatal = true }
#define REP(s, ...)	{ .kind = IN_OP, .op = PCIERR_CMD_REPORT, .step = PCIERR_STEP_##s, \
			  .res = { __VA_ARGS__ } }
#define REP_ERR(s, e)	{ .kind = IN_OP, .op = PCIERR_CMD_REPORT, .step = PCIERR_STEP_##s, .error = (e) }
/* the result of an endpoint below the PE's switch, in a child PE */
#define REP_BELOW(s, r)	{ .kind = IN_OP, .op = PCIERR_CMD_REPORT, .step = PCIERR_STEP_##s, \
			  .below = (r) }
#define OP(c)		{ .kind = IN_OP, .op = PCIERR_CMD_##c }
#define OP_ERR(c, e)	{ .kind = IN_OP, .op = PCIERR_CMD_##c, .error = (e) }
#define OP_AT(tt, c)	{ .kind = IN_OP, .t = (tt), .op = PCIERR_CMD_##c }
#define REP_AT(tt, s, ...) { .kind = IN_OP, .t = (tt), .op = PCIERR_CMD_REPORT, \
			  .step = PCIERR_STEP_##s, .res = { __VA_ARGS__ } }
/* found frozen by a resync after a restart (counted before) */
#define COUNTED(tt, d)	{ .kind = IN_FREEZE, .t = (tt), .named = (d) + 1, \
			  .fk = PCIERR_FREEZE_COUNTED }
#define COUNTED_PE(tt)	{ .kind = IN_FREEZE, .t = (tt), .named = 0, .fk = PCIERR_FREEZE_COUNTED }
#define COUNTED_PERM(tt, ms) { .kind = IN_PERM, .t = (tt), .named = 1, .tu = (ms), \
			  .fk = PCIERR_FREEZE_COUNTED }
#define COUNTED_PERM_EMPTY(tt) { .kind = IN_PERM, .t = (tt), .named = 1, .empty = true, \
			  .fk = PCIERR_FREEZE_COUNTED }
/* an administrator's Reset of the PE, of reset type r */
#define ADMIN(tt, r)	{ .kind = IN_FREEZE, .t = (tt), .named = 0, .fk = PCIERR_FREEZE_ADMIN, \
			  .rtype = PCIERR_RESET_##r }
#define WAIT_DONE	{ .kind = IN_WAIT_DONE }
#define TIMEOUT		{ .kind = IN_TIMEOUT }
#define SLOT_EMPTY	{ .kind = IN_SLOT_EMPTY }
/* the daemon's check after a recovery (issue 25) */
#define VERIFIED_OK	{ .kind = IN_VERIFIED, .verified = true }
#define VERIFIED_NOT(m)	{ .kind = IN_VERIFIED, .missing = (m) }
#define VERIFIED_GONE	{ .kind = IN_VERIFIED, .missing = "0000:01:00.0: gone", .gone = true }

#define CR	PCIERR_RESULT_CAN_RECOVER
#define NR	PCIERR_RESULT_NEED_RESET
#define DC	PCIERR_RESULT_DISCONNECT
#define RC	PCIERR_RESULT_RECOVERED
#define NO	PCIERR_RESULT_NONE
#define ND	PCIERR_RESULT_NO_DRIVER
#define GN	PCIERR_RESULT_GONE

struct exp {
	enum pcierr_policy_action action;
	enum pcierr_step step;
	enum pcierr_reset_type reset;
	enum pcierr_policy_reason reason;
	bool recovered;
	bool all;			/* REMOVE, WAIT_UDEV */
	unsigned int mask;		/* ... or these device indices */
	pcierr_usec_t timeout;		/* 0: not checked */
	const char *msg;		/* substring of out.message */
	pcierr_usec_t duration;		/* DONE; 0: not checked */
};

#define X_NOTHING(r)	{ .action = PCIERR_ACTION_NOTHING, .reason = PCIERR_REASON_##r }
#define X_REPORT(s)	{ .action = PCIERR_ACTION_REPORT, .step = PCIERR_STEP_##s }
#define X_REPORT_MSG(s, m) { .action = PCIERR_ACTION_REPORT, .step = PCIERR_STEP_##s, .msg = (m) }
#define X_ENABLE_IO	{ .action = PCIERR_ACTION_ENABLE_IO }
#define X_RESET(t)	{ .action = PCIERR_ACTION_RESET, .reset = PCIERR_RESET_##t }
#define X_REMOVE_ALL	{ .action = PCIERR_ACTION_REMOVE, .all = true }
#define X_REMOVE_ALL_MSG(m) { .action = PCIERR_ACTION_REMOVE, .all = true, .msg = (m) }
#define X_REMOVE(m)	{ .action = PCIERR_ACTION_REMOVE, .mask = (m) }
#define X_UDEV_ALL	{ .action = PCIERR_ACTION_WAIT_UDEV, .all = true, \
			  .timeout = PCIERR_POLICY_UDEV_SETTLE_USEC }
#define X_UDEV(m)	{ .action = PCIERR_ACTION_WAIT_UDEV, .mask = (m), \
			  .timeout = PCIERR_POLICY_UDEV_SETTLE_USEC }
#define X_WAIT(us)	{ .action = PCIERR_ACTION_WAIT, .timeout = (us) }
#define X_RESCAN	{ .action = PCIERR_ACTION_RESCAN }
#define X_DISABLE(r)	{ .action = PCIERR_ACTION_DISABLE, .reason = PCIERR_REASON_##r }
#define X_DISABLE_MSG(r, m) { .action = PCIERR_ACTION_DISABLE, .reason = PCIERR_REASON_##r, .msg = (m) }
#define X_DONE_OK	{ .action = PCIERR_ACTION_DONE, .recovered = true, \
			  .reason = PCIERR_REASON_RECOVERED }
#define X_DONE_OK_IN(us) { .action = PCIERR_ACTION_DONE, .recovered = true, \
			  .reason = PCIERR_REASON_RECOVERED, .duration = (us) }
#define X_DONE_FAIL(r)	{ .action = PCIERR_ACTION_DONE, .reason = PCIERR_REASON_##r }
#define X_STUCK		{ .action = PCIERR_ACTION_STUCK }
#define X_VERIFY(sec)	{ .action = PCIERR_ACTION_VERIFY, .timeout = SEC(sec) }
#define X_REMOVE_ALL_WHY(r, m) { .action = PCIERR_ACTION_REMOVE, .all = true, \
			  .reason = PCIERR_REASON_##r, .msg = (m) }
#define X_DONE_FAIL_MSG(r, m) { .action = PCIERR_ACTION_DONE, .reason = PCIERR_REASON_##r, \
			  .msg = (m) }

struct step {
	struct in in;
	struct exp exp;
	/* freeze records after the step: "count[d]" per device, comma
	 * separated, 'd' = identity disabled; NULL: not checked */
	const char *hist;
};

struct scenario {
	const char *name;
	const char *config;
	/* VERIFY is in the table: the harness does not answer it itself */
	bool verify;
	enum rt rt;
	struct dev devs[MAXD];
	struct step steps[MAXS];
};

/* The recovery of one aware device that says CAN_RECOVER, from the freeze */
#define CAN_RECOVER_PATH(tt)						\
	{ FREEZE(tt, 0), X_REPORT(ERROR_DETECTED) },			\
	{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },			\
	{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },			\
	{ REP(MMIO_ENABLED, RC), X_REPORT(RESUME) },			\
	{ REP(RESUME, NO), X_DONE_OK }

/* A full hotplug from its REMOVE's end to the RESCAN */
#define HOTPLUG_TO_RESCAN						\
	{ OP(REMOVE), X_UDEV_ALL },					\
	{ WAIT_DONE, X_RESET(HOT) },					\
	{ OP(RESET), X_RESCAN }

/* One aware device asking for a reset, to the check of its function */
#define RESET_TO_VERIFY							\
	{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },			\
	{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },			\
	{ OP(RESET), X_REPORT(SLOT_RESET) },				\
	{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },			\
	{ REP(RESUME, NO), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) }

/* ... two of them, VerifySec sec */
#define RESET_TO_VERIFY_2(sec)						\
	{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },			\
	{ REP(ERROR_DETECTED, NR, NR), X_RESET(HOT) },			\
	{ OP(RESET), X_REPORT(SLOT_RESET) },				\
	{ REP(SLOT_RESET, RC, RC), X_REPORT(RESUME) },			\
	{ REP(RESUME, NO, NO), X_VERIFY(sec) }

/* From a DISABLE to the end */
#define DISABLE_DONE(r)	{ OP(DISABLE), X_DONE_FAIL(r) }

static const struct scenario scenarios[] = {
	/* ---------------- the callback sequence (design §2) ---------------- */
	{ "all CAN_RECOVER: enable I/O, mmio_enabled, resume, no reset",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { CAN_RECOVER_PATH(0) } },
	{ "mmio_enabled missing: NONE keeps RECOVERED",
	  .devs = { NO_MMIO("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1" },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, NO), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "1" } } },
	{ "NEED_RESET: hot reset, slot_reset, resume",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK } } },
	{ "one NEED_RESET among CAN_RECOVERs resets the PE",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1"), AWARE("0000:01:01.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR, NR, CR), X_RESET(HOT) } } },
	{ "mmio_enabled NEED_RESET: hot reset",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK } } },
	{ "ENABLE_IO fails: reset instead",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP_ERR(ENABLE_IO, -EIO), X_RESET(HOT) } } },
	{ "still failing after hot reset: fundamental reset, then recovered",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK } } },
	{ "still failing after both resets: permanent disable",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, CR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_DISABLE_MSG(RESET_FAILED, "fundamental"), "1d" },
		DISABLE_DONE(RESET_FAILED) } },
	{ "no fundamental reset on the PE: skipped, disable after hot",
	  .rt = RT_HOT,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_DISABLE(RESET_FAILED), "1d" },
		DISABLE_DONE(RESET_FAILED) } },
	{ "hot reset not supported by the shim (EOPNOTSUPP): fundamental",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP_ERR(RESET, -EOPNOTSUPP), X_RESET(FUNDAMENTAL) },
		{ OP_ERR(RESET, -EIO), X_DISABLE(RESET_FAILED) } } },
	{ "PE with only a fundamental reset starts with it",
	  .rt = RT_FUND,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_DISABLE(RESET_FAILED) } } },
	/* issue 8 point 6: no reset is no reason to give up */
	{ "PE without any reset: hotplug without a reset when one is needed",
	  .rt = RT_NONE,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR),
		  X_REMOVE_ALL_MSG("has no reset: removing and rescanning it without one"), "1" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESCAN },
		{ OP(RESCAN), X_DONE_OK, "1" } } },
	{ "PE without any reset, no handlers: full hotplug without a reset",
	  .rt = RT_NONE,
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL, "1" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },
	{ "PE without any reset, partial hotplug: the rest removed too, no reset",
	  .rt = RT_NONE,
	  .devs = { AWARE("0000:02:00.0"), NO_HANDLERS("0000:02:01.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1,0" },
		{ REP(ERROR_DETECTED, CR, NO), X_REMOVE(1U << 1) },
		{ OP(REMOVE), X_UDEV(1U << 1) },
		{ WAIT_DONE, X_REMOVE_ALL_MSG("has no reset") },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },

	/* ---------------- DISCONNECT and merging (err.c) ---------------- */
	{ "DISCONNECT with none needing reset: disable",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR, DC), X_DISABLE(DISCONNECT), "1d,1d" },
		DISABLE_DONE(DISCONNECT) } },
	{ "DISCONNECT and NEED_RESET: the reset is tried (err.c merge)",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, DC, NR), X_RESET(HOT) } } },
	{ "mmio_enabled DISCONNECT: disable",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, DC), X_DISABLE(DISCONNECT) } } },
	{ "slot_reset DISCONNECT: disable",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, DC), X_DISABLE(DISCONNECT) },
		DISABLE_DONE(DISCONNECT) } },
	{ "a bridge in the PE takes part but does not make it partial",
	  .devs = { BRIDGE("0000:01:00.0"), AWARE("0000:01:01.0") },
	  .steps = {
		{ FREEZE(0, 1), X_REPORT(ERROR_DETECTED), "0,1" },
		{ REP(ERROR_DETECTED, NO, CR), X_ENABLE_IO } } },

	/* ---------------- hotplug fallback ---------------- */
	{ "all drivers without handlers: full hotplug",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL, "1" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },
	{ "no driver / error_detected without slot_reset: full hotplug",
	  .devs = { UNBOUND("0000:01:00.0"), ED_ONLY("0000:01:00.1") },
	  .steps = {
		{ FREEZE_PE(0), X_REMOVE_ALL, "1,1" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ TIMEOUT, X_RESET(HOT) },	/* udev did not finish in 5 s */
		{ OP(RESET), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },
	{ "full hotplug, the unplug fails: disable",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL },
		{ OP_ERR(REMOVE, -EIO), X_DISABLE(OP_FAILED), "1d" } } },
	{ "some unaware: partial hotplug, the rest recovered by callbacks",
	  .devs = { AWARE("0000:02:00.0"), NO_HANDLERS("0000:02:01.0"), BRIDGE("0000:02:02.0"),
		    UNBOUND("0000:02:03.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1,0,0,0" },
		{ REP(ERROR_DETECTED, CR, NO, NO, ND), X_REMOVE(1U << 1 | 1U << 3) },
		{ OP(REMOVE), X_UDEV(1U << 1 | 1U << 3) },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK, "1,0,0,0" } } },
	{ "partial hotplug: an unaware device's vote does not count",
	  .devs = { AWARE("0000:02:00.0"), ED_ONLY("0000:02:01.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR, DC), X_REMOVE(1U << 1) } } },
	{ "partial hotplug: an aware DISCONNECT still disables",
	  .devs = { AWARE("0000:02:00.0"), NO_HANDLERS("0000:02:01.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, DC, NO), X_DISABLE(DISCONNECT) } } },

	/* ---------------- the freeze count and its window ---------------- */
	{ "5th freeze in the window is recovered",
	  .devs = { HIST("0000:01:00.0", 4, 0) },
	  .steps = { { FREEZE(SEC(60), 0), X_REPORT(ERROR_DETECTED), "5" } } },
	{ "6th freeze in the window disables: reseat or replace",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ FREEZE(SEC(60), 0), X_DISABLE_MSG(TOO_MANY_FREEZES, "reseating or replacing"), "6d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "six freezes in a row: five recoveries, then disable",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		CAN_RECOVER_PATH(SEC(0)), CAN_RECOVER_PATH(SEC(600)), CAN_RECOVER_PATH(SEC(1200)),
		CAN_RECOVER_PATH(SEC(1800)), CAN_RECOVER_PATH(SEC(2400)),
		{ FREEZE(SEC(3000), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "window: exactly 3600 s after the last freeze still counts",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { FREEZE(SEC(3600), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" } } },
	{ "window: 1 us inside still counts",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { FREEZE(SEC(3600) - 1, 0), X_DISABLE(TOO_MANY_FREEZES), "6d" } } },
	{ "window: 1 us after a quiet hour the count restarts",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { FREEZE(SEC(3600) + 1, 0), X_REPORT(ERROR_DETECTED), "1" } } },
	{ "window: measured from the first freeze, as EEH (U5)",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		CAN_RECOVER_PATH(SEC(0)), CAN_RECOVER_PATH(SEC(3000)), CAN_RECOVER_PATH(SEC(6000)),
		CAN_RECOVER_PATH(SEC(9000)), CAN_RECOVER_PATH(SEC(12000)),
		{ FREEZE(SEC(15000), 0), X_REPORT(ERROR_DETECTED), "2" } } },
	{ "the count belongs to the named card's identities",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:01.0") },
	  .steps = { { FREEZE(0, 1), X_REPORT(ERROR_DETECTED), "0,1" } } },
	{ "the functions of one card count together (U5)",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1"), AWARE("0000:01:01.0") },
	  .steps = { { FREEZE(0, 1), X_REPORT(ERROR_DETECTED), "1,1,0" } } },
	{ "a freeze naming no device counts for every device",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = { { FREEZE_PE(0), X_REPORT(ERROR_DETECTED), "1,1" } } },
	{ "a replaced card (new identity, count 0) starts at zero",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(SEC(1), 0), X_REPORT(ERROR_DETECTED), "1" } } },
	{ "an identity disabled earlier is taken down again",
	  .devs = { { .addr = "0000:01:00.0", .bound = true, .handlers = H_ALL, .count = 6,
		      .disabled = true } },
	  .steps = {
		{ FREEZE(0, 0), X_DISABLE_MSG(IDENTITY_DISABLED, "pcierrctl enable") },
		DISABLE_DONE(IDENTITY_DISABLED) } },

	/* ---------------- perm_failure and time_unavail ---------------- */
	{ "perm_failure, time_unavail 0: permanent",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 0), X_DISABLE(PERM_FAILURE), "1d" },
		DISABLE_DONE(PERM_FAILURE) } },
	{ "perm_failure, time_unavail -1: permanent",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { PERM(0, -1), X_DISABLE(PERM_FAILURE) } } },
	{ "perm_failure, time_unavail 3000 ms: told, wait, then recovered (U5)",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 3000), X_REPORT(ERROR_DETECTED), "1" },
		{ REP(ERROR_DETECTED, NR), X_WAIT(MSEC(3000)) },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "1" } } },
	{ "perm_failure, time_unavail 15000 ms (= MaxWaitSec): recovered",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 15000), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_WAIT(MSEC(15000)) },
		{ TIMEOUT, X_ENABLE_IO } } },
	{ "perm_failure, time_unavail 15001 ms: permanent",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { PERM(0, 15001), X_DISABLE(PERM_FAILURE), "1d" } } },
	{ "perm_failure, time_unavail 20000 ms: permanent",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { PERM(0, 20000), X_DISABLE_MSG(PERM_FAILURE, "20000 ms"), "1d" } } },
	{ "perm_failure, 20000 ms with MaxWaitSec=20 for the device: recovered",
	  .config = "[Device 8086:10d3]\nMaxWaitSec=20\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 20000), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_WAIT(MSEC(20000)) } } },
	{ "perm_failure of unaware devices only: nobody to tell, the wait, then hotplug",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 3000), X_WAIT(MSEC(3000)), "1" },
		{ WAIT_DONE, X_REMOVE_ALL } } },
	{ "perm_failure on an empty slot: false alarm, not counted",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { PERM_EMPTY(0), X_NOTHING(FALSE_ALARM), "0" } } },
	{ "perm_failure on a PE with no devices: false alarm",
	  .steps = { { PERM(0, 0), X_NOTHING(FALSE_ALARM) } } },
	{ "a plain freeze on an 'empty' slot is no false alarm",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FROZEN_EMPTY(0), X_REPORT(ERROR_DETECTED), "1" } } },
	{ "the card is pulled during a step: done, gone",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ SLOT_EMPTY, X_NOTHING(WAITING) },
		{ REP(ERROR_DETECTED, GN), X_DONE_FAIL(GONE), "1" } } },
	{ "the card is pulled while waiting for udev: done at once",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL },
		{ OP(REMOVE), X_UDEV_ALL },
		{ SLOT_EMPTY, X_DONE_FAIL(GONE) },
		{ OP(RESET), X_NOTHING(IGNORED) } } },
	{ "every device answers GONE: done, gone",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, GN), X_DONE_FAIL(GONE) } } },
	{ "a PE of bridges alone: the endpoints below answer, it is not gone",
	  .devs = { BRIDGE("0000:00:19.0"), BRIDGE("0000:08:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP_BELOW(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP_BELOW(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP_BELOW(RESUME, NO), X_DONE_OK } } },
	{ "a PE of bridges alone whose endpoints below are GONE: gone",
	  .devs = { BRIDGE("0000:00:19.0"), BRIDGE("0000:08:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP_BELOW(ERROR_DETECTED, GN), X_DONE_FAIL(GONE) } } },
	{ "the PE vanished (ENODEV): done, gone",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP_ERR(RESET, -ENODEV), X_DONE_FAIL(GONE) } } },

	/* ---------------- escalation: one recovery per PE ---------------- */
	{ "a freeze during error_detected is folded in: reset instead of enable I/O",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1" },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "2" },
		{ FREEZE(SEC(2), 0), X_NOTHING(FOLDED), "3" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "3" } } },
	{ "a freeze during mmio_enabled: reset",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED) },
		{ REP(MMIO_ENABLED, RC), X_RESET(HOT) } } },
	{ "a freeze after the hot reset: next hammer (fundamental)",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "2" },
		{ REP(SLOT_RESET, RC), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK } } },
	{ "a freeze during resume with only hot reset: hot reset again",
	  .rt = RT_HOT,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED) },
		{ REP(RESUME, NO), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "2" } } },
	{ "a freeze during the rescan of a hotplug: over again",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL },
		{ OP(REMOVE), X_UDEV_ALL },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "2" },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_RESCAN },
		{ FREEZE(SEC(2), 0), X_NOTHING(FOLDED), "3" },
		{ OP(RESCAN), X_REMOVE_ALL },
		{ OP(REMOVE), X_UDEV_ALL } } },
	{ "the limit passed during a recovery: disabled at the next step",
	  .devs = { HIST("0000:01:00.0", 4, 0) },
	  .steps = {
		{ FREEZE(SEC(10), 0), X_REPORT(ERROR_DETECTED), "5" },
		{ FREEZE(SEC(11), 0), X_NOTHING(FOLDED), "6d" },
		{ FREEZE(SEC(12), 0), X_NOTHING(FOLDED), "7d" },
		{ REP(ERROR_DETECTED, CR), X_DISABLE(TOO_MANY_FREEZES) },
		{ FREEZE(SEC(13), 0), X_NOTHING(FOLDED), "8d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "the limit passed while waiting for udev: disabled at once",
	  .devs = { { .addr = "0000:01:00.0", .bound = true, .count = 4 } },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL, "5" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ FREEZE(SEC(1), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "a permanent perm_failure during a recovery: disabled at the next step",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ PERM(SEC(1), 0), X_NOTHING(FOLDED), "2d" },
		{ REP(ERROR_DETECTED, CR), X_DISABLE(PERM_FAILURE) } } },
	{ "a freeze while waiting out time_unavail is folded",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 3000), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_WAIT(MSEC(3000)) },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "2" },
		{ WAIT_DONE, X_RESET(HOT) } } },

	/* ---------------- timeouts, stale completions ---------------- */
	{ "a step timeout marks the PE stuck; a late completion goes on",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ TIMEOUT, X_STUCK },
		{ TIMEOUT, X_NOTHING(WAITING) },
		{ FREEZE(SEC(40), 0), X_NOTHING(FOLDED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ TIMEOUT, X_STUCK } } },
	{ "a completion of another step is ignored",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(SLOT_RESET, RC), X_NOTHING(IGNORED) },
		{ OP(RESET), X_NOTHING(IGNORED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) } } },
	{ "inputs for an idle PE are ignored",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ OP(RESET), X_NOTHING(IGNORED) },
		{ TIMEOUT, X_NOTHING(IGNORED) },
		{ WAIT_DONE, X_NOTHING(IGNORED) },
		{ SLOT_EMPTY, X_NOTHING(IGNORED) } } },
	{ "resume fails: disable",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP_ERR(RESUME, -EIO), X_DISABLE(OP_FAILED) } } },
	{ "the step timeout comes from StepTimeoutSec, longest in the PE",
	  .config = "[Policy]\nStepTimeoutSec=7\n[Device 0000:01:00.1]\nStepTimeoutSec=9\n",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = { { FREEZE(0, 0), { .action = PCIERR_ACTION_REPORT,
				       .step = PCIERR_STEP_ERROR_DETECTED, .timeout = SEC(9) } } } },

	/* ---------------- configuration overrides ---------------- */
	{ "Recover=no by address: recorded, nothing done",
	  .config = "[Device \"0000:01:00.0\"]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_NOTHING(RECOVER_OFF), "1" } } },
	{ "Recover=no: past the limit still nothing, not disabled",
	  .config = "[Device 8086:10d3]\nRecover=no\n",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ FREEZE(SEC(1), 0), X_NOTHING(RECOVER_OFF), "6" },
		{ PERM(SEC(2), 0), X_NOTHING(RECOVER_OFF), "7" } } },
	{ "Recover=no for the vendor",
	  .config = "[Device 8086:*]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_NOTHING(RECOVER_OFF), "1" } } },
	{ "Recover=no on one device keeps the whole PE from recovery",
	  .config = "[Device 10ec:8139]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0"), NO_HANDLERS("0000:01:01.0") },
	  .steps = { { FREEZE(0, 0), X_NOTHING(RECOVER_OFF), "1,0" } } },
	{ "Recover=no on the PE's own address",
	  .config = "[Device 0000:00:1c.0]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_NOTHING(RECOVER_OFF), "1" } } },
	{ "Recover=no globally, yes for the address: recovers",
	  .config = "[Policy]\nRecover=no\n[Device 01:00.0]\nRecover=yes\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_REPORT(ERROR_DETECTED) } } },
	{ "MaxFreezes=2 by vendor:device: the 3rd freeze disables",
	  .config = "[Device 8086:10d3]\nMaxFreezes=2\n",
	  .devs = { HIST("0000:01:00.0", 2, 0) },
	  .steps = { { FREEZE(SEC(1), 0), X_DISABLE(TOO_MANY_FREEZES), "3d" } } },
	{ "MaxFreezes by address beats vendor:device",
	  .config = "[Device 8086:10d3]\nMaxFreezes=2\n[Device 0000:01:00.0]\nMaxFreezes=10\n",
	  .devs = { HIST("0000:01:00.0", 2, 0) },
	  .steps = { { FREEZE(SEC(1), 0), X_REPORT(ERROR_DETECTED), "3" } } },
	{ "MaxFreezes=0: the first freeze disables",
	  .config = "[Policy]\nMaxFreezes=0\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_DISABLE(TOO_MANY_FREEZES), "1d" } } },
	{ "FreezeWindowSec=60: a freeze 61 s later restarts the count",
	  .config = "[Policy]\nFreezeWindowSec=60\n",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { FREEZE(SEC(61), 0), X_REPORT(ERROR_DETECTED), "1" } } },
	{ "FreezeWindowSec=60: a freeze 60 s later counts",
	  .config = "[Policy]\nFreezeWindowSec=60\n",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { FREEZE(SEC(60), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" } } },

	/* ---------------- kernel-native AER recovery ---------------- */
	{ "AER: BEGIN counts a freeze, SUCCESSFUL ends it",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(KERNEL), "1" },
		{ AER(SEC(1), SUCCESSFUL), X_DONE_OK, "1" } } },
	{ "AER: SUCCESSFUL without BEGIN still counts once",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { AER(0, SUCCESSFUL), X_DONE_OK, "1" } } },
	{ "AER: FAILED gets pcierr's fallback (hot-unplug, reset, rescan)",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(KERNEL), "1" },
		{ AER(SEC(1), FAILED), X_REMOVE_ALL, "1" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },
	{ "AER: past the limit, disabled when the kernel is done",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ AER(SEC(1), BEGIN), X_NOTHING(KERNEL), "6d" },
		{ AER(SEC(2), SUCCESSFUL), X_DISABLE(TOO_MANY_FREEZES) },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "AER: BEGIN during pcierr's own recovery is folded in",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ AER(SEC(1), BEGIN), X_NOTHING(FOLDED), "2" },
		{ AER(SEC(1), FAILED), X_NOTHING(IGNORED), "2" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) } } },
	{ "AER: a shim freeze during the kernel's recovery: ours after it, counted once",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(KERNEL), "1" },
		{ FREEZE(SEC(1), 0), X_NOTHING(KERNEL), "1" },
		{ AER(SEC(2), SUCCESSFUL), X_REPORT(ERROR_DETECTED) } } },
	{ "U3: a shim freeze during a non-fatal kernel recovery is one freeze",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER_NF(0, BEGIN, 0), X_NOTHING(KERNEL), "0" },
		{ FREEZE(SEC(1), 0), X_NOTHING(KERNEL), "1" },
		{ FREEZE(SEC(1), 0), X_NOTHING(KERNEL), "1" },
		{ AER_NF(SEC(2), SUCCESSFUL, 0), X_REPORT(ERROR_DETECTED) } } },
	/* ---------------- a resync after a restart: COUNTED ---------------- */
	{ "COUNTED under the limit: recovered, not counted again",
	  .devs = { HIST("0000:01:00.0", 3, 0) },
	  .steps = {
		{ COUNTED(SEC(60), 0), X_REPORT(ERROR_DETECTED), "3" },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "3" } } },
	{ "COUNTED at the limit (count = MaxFreezes): still recovered",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = { { COUNTED(SEC(60), 0), X_REPORT(ERROR_DETECTED), "5" } } },
	{ "COUNTED over the limit: disabled, reseat or replace",
	  .devs = { HIST("0000:01:00.0", 6, 0) },
	  .steps = {
		{ COUNTED(SEC(60), 0), X_DISABLE_MSG(TOO_MANY_FREEZES, "reseating or replacing"), "6d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "COUNTED over the limit long after the last freeze: still disabled",
	  .devs = { HIST("0000:01:00.0", 6, 0) },
	  .steps = { { COUNTED(SEC(86400), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" } } },
	{ "COUNTED over a MaxFreezes lowered since: disabled",
	  .config = "[Device 8086:10d3]\nMaxFreezes=2\n",
	  .devs = { HIST("0000:01:00.0", 3, 0) },
	  .steps = { { COUNTED(SEC(1), 0), X_DISABLE(TOO_MANY_FREEZES), "3d" } } },
	{ "COUNTED naming a device: only its card's count is looked at",
	  .devs = { HIST("0000:01:00.0", 6, 0), HIST("0000:01:01.0", 1, 0) },
	  .steps = { { COUNTED(SEC(1), 1), X_REPORT(ERROR_DETECTED), "6,1" } } },
	{ "COUNTED for the whole PE: every device's count",
	  .devs = { HIST("0000:01:00.0", 1, 0), HIST("0000:01:01.0", 6, 0) },
	  .steps = {
		{ COUNTED_PE(SEC(1)), X_DISABLE_MSG(TOO_MANY_FREEZES, "0000:01:01.0"), "1,6d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "COUNTED with Recover=no: nothing, not disabled",
	  .config = "[Device 8086:10d3]\nRecover=no\n",
	  .devs = { HIST("0000:01:00.0", 6, 0) },
	  .steps = { { COUNTED(SEC(1), 0), X_NOTHING(RECOVER_OFF), "6" } } },
	{ "COUNTED with an identity disabled earlier: disabled again",
	  .devs = { { .addr = "0000:01:00.0", .bound = true, .handlers = H_ALL, .count = 2,
		      .disabled = true } },
	  .steps = {
		{ COUNTED(SEC(1), 0), X_DISABLE_MSG(IDENTITY_DISABLED, "pcierrctl enable"), "2d" },
		DISABLE_DONE(IDENTITY_DISABLED) } },
	{ "COUNTED perm_failure, time_unavail 3000 ms: wait, then recovered",
	  .devs = { HIST("0000:01:00.0", 1, 0) },
	  .steps = {
		{ COUNTED_PERM(SEC(1), 3000), X_REPORT(ERROR_DETECTED), "1" },
		{ REP(ERROR_DETECTED, NR), X_WAIT(MSEC(3000)) },
		{ WAIT_DONE, X_RESET(HOT) } } },
	{ "COUNTED perm_failure, time_unavail 0: permanent",
	  .devs = { HIST("0000:01:00.0", 1, 0) },
	  .steps = {
		{ COUNTED_PERM(SEC(1), 0), X_DISABLE(PERM_FAILURE), "1d" },
		DISABLE_DONE(PERM_FAILURE) } },
	{ "COUNTED perm_failure on an empty slot: false alarm",
	  .devs = { HIST("0000:01:00.0", 1, 0) },
	  .steps = { { COUNTED_PERM_EMPTY(SEC(1)), X_NOTHING(FALSE_ALARM), "1" } } },
	{ "COUNTED: the recovery's clock starts at the resync",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ COUNTED(SEC(100), 0), X_REPORT(ERROR_DETECTED), "0" },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) },
		{ OP_AT(SEC(101), RESET), X_REPORT(SLOT_RESET) },
		{ REP_AT(SEC(102), SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP_AT(SEC(103), RESUME, NO), X_DONE_OK_IN(SEC(3)), "0" } } },
	{ "COUNTED, then a new freeze during the recovery: that one counts",
	  .devs = { HIST("0000:01:00.0", 2, 0) },
	  .steps = {
		{ COUNTED(SEC(1), 0), X_REPORT(ERROR_DETECTED), "2" },
		{ FREEZE(SEC(2), 0), X_NOTHING(FOLDED), "3" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) } } },

	/* ---------------- an administrator's Reset: ADMIN ---------------- */
	{ "ADMIN: CAN_RECOVER answers still go through a reset, not counted",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, UNSPEC), X_REPORT_MSG(ERROR_DETECTED, "reset requested"), "0" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "0" } } },
	{ "ADMIN hot reset",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ ADMIN(0, HOT), X_REPORT(ERROR_DETECTED), "0,0" },
		{ REP(ERROR_DETECTED, CR, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO, NO), X_DONE_OK, "0,0" } } },
	{ "ADMIN fundamental on a PE that has it: fundamental first",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK } } },
	{ "ADMIN fundamental, still failing: no bigger hammer, disabled",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_DISABLE_MSG(RESET_FAILED, "fundamental"), "0d" },
		DISABLE_DONE(RESET_FAILED) } },
	{ "ADMIN fundamental on a PE without it: hot",
	  .rt = RT_HOT,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) } } },
	{ "ADMIN hot on a PE with only fundamental: fundamental",
	  .rt = RT_FUND,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, HOT), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(FUNDAMENTAL) } } },
	{ "ADMIN hot, still failing after it: fundamental next",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, HOT), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NR), X_RESET(FUNDAMENTAL) } } },
	{ "ADMIN on a PE without any reset: hotplug without one (issue 8 point 6)",
	  .rt = RT_NONE,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, UNSPEC), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_REMOVE_ALL_MSG("has no reset"), "0" } } },
	{ "ADMIN with Recover=no: done all the same",
	  .config = "[Device 8086:10d3]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, UNSPEC), X_REPORT(ERROR_DETECTED), "0" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "0" } } },
	{ "ADMIN on an identity disabled earlier: disabled",
	  .devs = { AWARE("0000:01:00.0"),
		    { .addr = "0000:01:00.1", .bound = true, .handlers = H_ALL, .count = 6,
		      .disabled = true } },
	  .steps = {
		{ ADMIN(0, HOT), X_DISABLE_MSG(IDENTITY_DISABLED, "0000:01:00.1"), "0,6d" },
		DISABLE_DONE(IDENTITY_DISABLED) } },
	{ "ADMIN is no limit check: a count above MaxFreezes is reset",
	  .devs = { HIST("0000:01:00.0", 6, 0) },
	  .steps = {
		{ ADMIN(SEC(1), UNSPEC), X_REPORT(ERROR_DETECTED), "6" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) } } },
	{ "ADMIN ignores the channel state (perm_failure, empty slot)",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ { .kind = IN_PERM, .t = 0, .empty = true, .fk = PCIERR_FREEZE_ADMIN },
		  X_REPORT(ERROR_DETECTED), "0" } } },
	{ "ADMIN, all drivers without handlers: full hotplug with the reset asked for",
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REMOVE_ALL_MSG("reset requested"), "0" },
		{ OP(REMOVE), X_UDEV_ALL },
		{ WAIT_DONE, X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK, "0" } } },
	{ "ADMIN, some unaware: partial hotplug with the reset asked for",
	  .devs = { AWARE("0000:02:00.0"), NO_HANDLERS("0000:02:01.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REPORT(ERROR_DETECTED), "0,0" },
		{ REP(ERROR_DETECTED, CR, NO), X_REMOVE(1U << 1) },
		{ OP(REMOVE), X_UDEV(1U << 1) },
		{ WAIT_DONE, X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK, "0,0" } } },
	{ "ADMIN and COUNTED on a busy PE: ignored",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1" },
		{ ADMIN(SEC(1), HOT), X_NOTHING(IGNORED), "1" },
		{ COUNTED(SEC(2), 0), X_NOTHING(IGNORED), "1" },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },	/* no reset forced */
		{ ADMIN(SEC(3), FUNDAMENTAL), X_NOTHING(IGNORED) },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "1" } } },
	{ "ADMIN and COUNTED while waiting out time_unavail: ignored",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ PERM(0, 3000), X_REPORT(ERROR_DETECTED), "1" },
		{ REP(ERROR_DETECTED, CR), X_WAIT(MSEC(3000)) },
		{ ADMIN(SEC(1), HOT), X_NOTHING(IGNORED), "1" },
		{ COUNTED(SEC(1), 0), X_NOTHING(IGNORED), "1" },
		{ WAIT_DONE, X_ENABLE_IO } } },
	{ "ADMIN during the kernel's AER recovery: ignored",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(KERNEL), "1" },
		{ ADMIN(SEC(1), HOT), X_NOTHING(IGNORED), "1" },
		{ AER(SEC(2), SUCCESSFUL), X_DONE_OK, "1" } } },
	{ "a freeze folded into an ADMIN recovery after its reset: next hammer",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, HOT), X_REPORT(ERROR_DETECTED), "0" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "1" },
		{ REP(SLOT_RESET, RC), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "1" } } },
	{ "a freeze folded into an ADMIN recovery before its reset: that reset answers it",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, UNSPEC), X_REPORT(ERROR_DETECTED), "0" },
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "1" },
		{ REP(ERROR_DETECTED, CR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ FREEZE(SEC(2), 0), X_NOTHING(FOLDED), "2" },
		{ REP(RESUME, NO), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "2" } } },
	{ "a freeze past the limit folded into an ADMIN recovery: disabled",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ ADMIN(SEC(1), UNSPEC), X_REPORT(ERROR_DETECTED), "5" },
		{ FREEZE(SEC(2), 0), X_NOTHING(FOLDED), "6d" },
		{ REP(ERROR_DETECTED, CR), X_DISABLE(TOO_MANY_FREEZES) },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "after an ADMIN recovery the next freeze is an ordinary one",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ ADMIN(0, FUNDAMENTAL), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_RESET(FUNDAMENTAL) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_DONE_OK, "0" },
		CAN_RECOVER_PATH(SEC(10)),
		{ FREEZE(SEC(20), 0), X_REPORT(ERROR_DETECTED), "2" },
		{ REP(ERROR_DETECTED, NR), X_RESET(HOT) } } },

	/* ---------------- U3: the kernel's AER as EEH counts ---------------- */
	{ "U3: non-fatal AER errors are recorded, never counted, never disable",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ AER_NF(SEC(1), BEGIN, 0), X_NOTHING(KERNEL), "5" },
		{ AER_NF(SEC(1), SUCCESSFUL, 0), X_DONE_OK, "5" },
		{ AER_NF(SEC(2), BEGIN, 0), X_NOTHING(KERNEL), "5" },
		{ AER_NF(SEC(2), SUCCESSFUL, 0), X_DONE_OK, "5" },
		{ AER_NF(SEC(3), SUCCESSFUL, 0), X_DONE_OK, "5" } } },
	{ "U3: two functions, one kernel recovery: one freeze, one card",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ AER_D(0, BEGIN, 0), X_NOTHING(KERNEL), "1,1" },
		{ AER_D(0, BEGIN, 1), X_NOTHING(KERNEL), "1,1" },
		{ AER_D(SEC(1), SUCCESSFUL, 0), X_NOTHING(KERNEL), "1,1" },
		{ AER_D(SEC(1), SUCCESSFUL, 1), X_DONE_OK, "1,1" },
		{ AER_D(SEC(5), BEGIN, 0), X_NOTHING(KERNEL), "2,2" },
		{ AER_D(SEC(5), BEGIN, 1), X_NOTHING(KERNEL), "2,2" },
		{ AER_D(SEC(6), SUCCESSFUL, 0), X_NOTHING(KERNEL), "2,2" },
		{ AER_D(SEC(6), SUCCESSFUL, 1), X_DONE_OK, "2,2" } } },
	{ "U3: two functions, ten non-fatal errors: nothing counted",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
#define NF_ROUND(tt) \
		{ AER_NF(tt, BEGIN, 0), X_NOTHING(KERNEL), "0,0" }, \
		{ AER_NF(tt, BEGIN, 1), X_NOTHING(KERNEL), "0,0" }, \
		{ AER_NF(tt, SUCCESSFUL, 0), X_NOTHING(KERNEL), "0,0" }, \
		{ AER_NF(tt, SUCCESSFUL, 1), X_DONE_OK, "0,0" }
		NF_ROUND(SEC(1)), NF_ROUND(SEC(6)), NF_ROUND(SEC(12)), NF_ROUND(SEC(18)),
		NF_ROUND(SEC(24)), NF_ROUND(SEC(30)), NF_ROUND(SEC(36)), NF_ROUND(SEC(42)),
		NF_ROUND(SEC(48)), NF_ROUND(SEC(54))
#undef NF_ROUND
	  } },
	{ "U3: the sixth fatal error of a two-function card disables the card, named whole",
	  .devs = { HIST("0000:01:00.0", 5, 0), HIST("0000:01:00.1", 5, 0) },
	  .steps = {
		{ AER_D(SEC(1), BEGIN, 0), X_NOTHING(KERNEL), "6d,6d" },
		{ AER_D(SEC(1), BEGIN, 1), X_NOTHING(KERNEL), "6d,6d" },
		{ AER_D(SEC(2), SUCCESSFUL, 0), X_NOTHING(KERNEL) },
		{ AER_D(SEC(2), SUCCESSFUL, 1),
		  X_DISABLE_MSG(TOO_MANY_FREEZES, "functions 0000:01:00.0 0000:01:00.1") },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	{ "U3: a non-fatal recovery turned fatal by a later function counts once",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ AER_NF(0, BEGIN, 0), X_NOTHING(KERNEL), "0,0" },
		{ AER_D(0, BEGIN, 1), X_NOTHING(KERNEL), "1,1" },
		{ AER_D(0, SUCCESSFUL, 0), X_NOTHING(KERNEL), "1,1" },
		{ AER_D(0, SUCCESSFUL, 1), X_DONE_OK, "1,1" } } },
	{ "U3: the fallback only once every function's FAILED came",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ AER_D(0, BEGIN, 0), X_NOTHING(KERNEL) },
		{ AER_D(0, BEGIN, 1), X_NOTHING(KERNEL) },
		{ AER_D(SEC(1), FAILED, 0), X_NOTHING(KERNEL) },
		{ AER_D(SEC(1), FAILED, 1), X_REMOVE_ALL, "1,1" } } },
	{ "U3: a DISCONNECT vote's FAILED, then every function resumed: recovered",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ AER_D(0, BEGIN, 0), X_NOTHING(KERNEL) },
		{ AER_D(0, FAILED, 1), X_NOTHING(KERNEL) },
		{ AER_D(SEC(1), SUCCESSFUL, 0), X_NOTHING(KERNEL) },
		{ AER_D(SEC(1), SUCCESSFUL, 1), X_DONE_OK, "1,1" } } },
	{ "U3: the PE's head bridge sends no end of its own",
	  .devs = { BRIDGE("0000:00:1c.0"), AWARE("0000:01:00.0") },
	  .steps = {
		{ AER_D(0, BEGIN, 1), X_NOTHING(KERNEL), "0,1" },
		{ AER_D(SEC(1), SUCCESSFUL, 1), X_DONE_OK, "0,1" } } },
	{ "U3: phase KERNEL is bounded by KernelTimeoutSec, not StepTimeoutSec",
	  .config = "[Policy]\nStepTimeoutSec=5\nKernelTimeoutSec=120\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), { .action = PCIERR_ACTION_NOTHING, .reason = PCIERR_REASON_KERNEL,
				   .timeout = SEC(120) } } } },
	/* ---------------- U5: counting as EEH and the seeds ---------------- */
	{ "U5: the window runs from its first freeze (eeh_pe_update_time_stamp)",
	  .config = "[Policy]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_NOTHING(RECOVER_OFF), "1" },
		{ FREEZE(SEC(1800), 0), X_NOTHING(RECOVER_OFF), "2" },
		{ FREEZE(SEC(3500), 0), X_NOTHING(RECOVER_OFF), "3" },
		{ FREEZE(SEC(3601), 0), X_NOTHING(RECOVER_OFF), "1" } } },
	{ "U5: the limit holds per PE: two cards taking turns, the sixth freeze disables",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:01.0") },
	  .steps = {
#define TURN(tt, d) \
		{ FREEZE(tt, d), X_REPORT(ERROR_DETECTED) }, \
		{ REP(ERROR_DETECTED, CR, CR), X_ENABLE_IO }, \
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) }, \
		{ REP(MMIO_ENABLED, RC, RC), X_REPORT(RESUME) }, \
		{ REP(RESUME, NO, NO), X_DONE_OK }
		TURN(SEC(1), 0), TURN(SEC(2), 1), TURN(SEC(3), 0), TURN(SEC(4), 1), TURN(SEC(5), 0),
#undef TURN
		{ FREEZE(SEC(6), 1), X_DISABLE_MSG(TOO_MANY_FREEZES, "card 0000:01:01"), "3,3d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
	/* ---------------- U2: a DISABLE that fails ---------------- */
	{ "U2: a DISABLE the shim refuses ends failed, with its errno, not disabled",
	  .devs = { HIST("0000:01:00.0", 5, 0) },
	  .steps = {
		{ FREEZE(SEC(1), 0), X_DISABLE(TOO_MANY_FREEZES), "6d" },
		{ OP_ERR(DISABLE, -EBUSY), { .action = PCIERR_ACTION_DONE,
					     .reason = PCIERR_REASON_OP_FAILED,
					     .msg = "errno 16" } } } },
	{ "AER with Recover=no: recorded only",
	  .config = "[Device 0000:01:00.0]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(RECOVER_OFF), "1" },
		{ AER(SEC(1), FAILED), X_NOTHING(RECOVER_OFF), "1" },
		{ FREEZE(SEC(2), 0), X_NOTHING(RECOVER_OFF), "2" } } },

	/* ------- Method= (issue 25 point 2): the hotplug path by choice ------- */
	{ "[Driver] Method=hotplug: a device with callbacks goes the full hotplug path",
	  .config = "[Driver e1000]\nMethod=hotplug\n",
	  .devs = { DRV("0000:01:00.0", "e1000") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL_WHY(METHOD, "Method=hotplug for 0000:01:00.0 (e1000)"), "1" },
		HOTPLUG_TO_RESCAN,
		{ OP(RESCAN), X_DONE_OK } } },
	{ "[Driver] of another driver does not match: callbacks",
	  .config = "[Driver e1000]\nMethod=hotplug\n",
	  .devs = { DRV("0000:01:00.0", "e1000e") },
	  .steps = { { FREEZE(0, 0), X_REPORT(ERROR_DETECTED) } } },
	{ "[Driver] does not match a device without a driver bound",
	  .config = "[Driver e1000]\nMethod=hotplug\n",
	  .devs = { { .addr = "0000:01:00.0", .vendor = 0x8086, .device = 0x100e,
		      .handlers = H_ALL, .driver = "e1000" }, AWARE("0000:01:00.1") },
	  .steps = { { FREEZE(0, 1), X_REPORT(ERROR_DETECTED) },
		     { REP(ERROR_DETECTED, ND, CR), X_REMOVE(0x1) } } },
	{ "[Device ADDR] Method=hotplug beside an aware device: partial hotplug of it alone",
	  .config = "[Device 0000:01:00.1]\nMethod=hotplug\n",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT_MSG(ERROR_DETECTED, "Method=hotplug for 0000:01:00.1") },
		{ REP(ERROR_DETECTED, CR, CR), X_REMOVE(0x2) },
		{ OP(REMOVE), X_UDEV(0x2) },
		{ WAIT_DONE, X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, RC, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO, NO), X_RESCAN },
		{ OP(RESCAN), X_DONE_OK } } },
	{ "[Device VVVV:DDDD] Method=hotplug",
	  .config = "[Device 8086:10d3]\nMethod=hotplug\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { { FREEZE(0, 0), X_REMOVE_ALL_WHY(METHOD, "Method=hotplug") } } },
	{ "Method=auto at the address beats the driver's hotplug",
	  .config = "[Driver e1000]\nMethod=hotplug\n[Device 0000:01:00.0]\nMethod=auto\n",
	  .devs = { DRV("0000:01:00.0", "e1000") },
	  .steps = { { FREEZE(0, 0), X_REPORT(ERROR_DETECTED) } } },
	{ "[Driver] Method=hotplug beats [Device VVVV:*] Method=auto",
	  .config = "[Device 8086:*]\nMethod=auto\n[Driver e1000]\nMethod=hotplug\n",
	  .devs = { DRV("0000:01:00.0", "e1000") },
	  .steps = { { FREEZE(0, 0), X_REMOVE_ALL_WHY(METHOD, "e1000") } } },

	/* ------- verification (issue 25 point 1) ------- */
	{ "verified after resume: recovered",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		RESET_TO_VERIFY,
		{ VERIFIED_OK, X_DONE_OK } } },
	{ "callbacks said recovered, function not back: once to hotplug, back then",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED), "1" },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ VERIFIED_NOT("0000:01:00.0: tty 0 of 1"),
		  X_REMOVE_ALL_WHY(NOT_VERIFIED, "tty 0 of 1"), "1" },
		HOTPLUG_TO_RESCAN,
		{ OP(RESCAN), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ VERIFIED_OK, X_DONE_OK, "1" } } },
	{ "its devices left the system while checked: gone, no hotplug path on an empty slot",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		RESET_TO_VERIFY,
		{ VERIFIED_GONE, X_DONE_FAIL(GONE) },
		/* a card plugged in later is recovered as usual */
		{ FREEZE(SEC(60), 0), X_REPORT(ERROR_DETECTED), "2" } } },
	{ "not back after the hotplug either: failed with what is missing, nothing disabled",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		RESET_TO_VERIFY,
		{ VERIFIED_NOT("0000:01:00.0: net 0 of 1"), X_REMOVE_ALL_WHY(NOT_VERIFIED, "net 0 of 1") },
		HOTPLUG_TO_RESCAN,
		{ OP(RESCAN), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ VERIFIED_NOT("0000:01:00.0: driver e1000 not bound"),
		  X_DONE_FAIL_MSG(NOT_VERIFIED, "driver e1000 not bound"), "1" },
		/* the next freeze is recovered as usual */
		{ FREEZE(SEC(60), 0), X_REPORT(ERROR_DETECTED), "2" } } },
	{ "VerifyEscalate=no: not back is failed at once",
	  .verify = true,
	  .config = "[Policy]\nVerifyEscalate=no\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, CR), X_ENABLE_IO },
		{ OP(ENABLE_IO), X_REPORT(MMIO_ENABLED) },
		{ REP(MMIO_ENABLED, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ VERIFIED_NOT("0000:01:00.0: tty 0 of 1"),
		  X_DONE_FAIL_MSG(NOT_VERIFIED, "callbacks' recovery (0000:01:00.0: tty 0 of 1)") } } },
	{ "VerifyEscalate=no on one device of the PE holds for the PE",
	  .verify = true,
	  .config = "[Device 0000:01:00.1]\nVerifyEscalate=no\n",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		RESET_TO_VERIFY_2(PCIERR_DEFAULT_VERIFY_SEC),
		{ VERIFIED_NOT("x"), X_DONE_FAIL(NOT_VERIFIED) } } },
	{ "VerifySec=0: no verification, recovered at resume",
	  .verify = true,
	  .config = "[Policy]\nVerifySec=0\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = { CAN_RECOVER_PATH(0) } },
	{ "VerifySec is the longest of the PE's devices'",
	  .verify = true,
	  .config = "[Device 0000:01:00.1]\nVerifySec=30\n",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .steps = {
		RESET_TO_VERIFY_2(30) } },
	{ "full hotplug verified after its rescan; a TIMEOUT is not verified",
	  .verify = true,
	  .devs = { NO_HANDLERS("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 0), X_REMOVE_ALL },
		HOTPLUG_TO_RESCAN,
		{ OP(RESCAN), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ TIMEOUT, X_REMOVE_ALL_WHY(NOT_VERIFIED, "not confirmed in time") },
		HOTPLUG_TO_RESCAN,
		{ OP(RESCAN), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ TIMEOUT, X_DONE_FAIL_MSG(NOT_VERIFIED, "escalated to") } } },
	{ "VerifySec= of the card behind its root port (the bridge's default does not count)",
	  .verify = true,
	  .config = "[Device 0000:01:00.0]\nVerifySec=5\nVerifyEscalate=no\n",
	  .devs = { BRIDGE("0000:00:1c.0"), AWARE("0000:01:00.0") },
	  .steps = {
		{ FREEZE(0, 1), X_REPORT(ERROR_DETECTED) },
		{ REP(ERROR_DETECTED, NO, NR), X_RESET(HOT) },
		{ OP(RESET), X_REPORT(SLOT_RESET) },
		{ REP(SLOT_RESET, NO, RC), X_REPORT(RESUME) },
		{ REP(RESUME, NO, NO), X_VERIFY(5) },
		{ VERIFIED_NOT("x"), X_DONE_FAIL(NOT_VERIFIED) } } },
	{ "a freeze during VERIFY is folded in; the recovery starts over",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		RESET_TO_VERIFY,
		{ FREEZE(SEC(1), 0), X_NOTHING(FOLDED), "2" },
		{ VERIFIED_OK, X_REPORT(ERROR_DETECTED) } } },
	{ "the kernel's AER SUCCESSFUL is verified too",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ AER(0, BEGIN), X_NOTHING(KERNEL), "1" },
		{ AER(SEC(1), SUCCESSFUL), X_VERIFY(PCIERR_DEFAULT_VERIFY_SEC) },
		{ VERIFIED_NOT("0000:01:00.0: net 0 of 1"), X_REMOVE_ALL_WHY(NOT_VERIFIED, "net 0 of 1") } } },
	{ "VERIFIED outside VERIFY is ignored",
	  .verify = true,
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		{ VERIFIED_NOT("x"), X_NOTHING(IGNORED) },
		{ FREEZE(0, 0), X_REPORT(ERROR_DETECTED) },
		{ VERIFIED_OK, X_NOTHING(IGNORED) } } },
	{ "past the limit during VERIFY: disabled at once",
	  .verify = true,
	  .config = "[Policy]\nMaxFreezes=1\n",
	  .devs = { AWARE("0000:01:00.0") },
	  .steps = {
		RESET_TO_VERIFY,
		{ FREEZE(SEC(1), 0), X_DISABLE(TOO_MANY_FREEZES), "2d" },
		DISABLE_DONE(TOO_MANY_FREEZES) } },
};

/* ------------------------------------------------------------------ */
/* The harness */

static uint32_t reset_types(enum rt rt)
{
	switch (rt) {
	case RT_BOTH:
		return 1U << PCIERR_RESET_HOT | 1U << PCIERR_RESET_FUNDAMENTAL;
	case RT_HOT:
		return 1U << PCIERR_RESET_HOT;
	case RT_FUND:
		return 1U << PCIERR_RESET_FUNDAMENTAL;
	default:
		return 0;
	}
}

static void check_hist(const char *ctx, const char *hist,
		       const struct pcierr_policy_device *devs, size_t n)
{
	const char *p = hist;

	for (size_t i = 0; i < n; i++) {
		char *e;
		unsigned long count = strtoul(p, &e, 10);
		bool disabled = *e == 'd';

		ck_assert_msg(e != p, "%s: bad hist '%s'", ctx, hist);
		ck_assert_msg(devs[i].history.count == count,
			      "%s: device %zu freeze count %u, expected %lu", ctx, i,
			      devs[i].history.count, count);
		ck_assert_msg(devs[i].history.disabled == disabled,
			      "%s: device %zu disabled %d, expected %d", ctx, i,
			      devs[i].history.disabled, disabled);
		p = e + disabled;
		if (*p == ',')
			p++;
	}
}

static void check_devices(const char *ctx, const struct pcierr_policy_output *out,
			  const struct exp *x)
{
	unsigned int mask = 0;

	ck_assert_msg(out->all_devices == x->all, "%s: all_devices %d, expected %d", ctx,
		      out->all_devices, x->all);
	for (size_t i = 0; i < out->n_devices; i++)
		mask |= 1U << out->devices[i];
	ck_assert_msg(mask == x->mask, "%s: device mask %#x, expected %#x", ctx, mask, x->mask);
}

/* The table's devices as the daemon passes them (devs: MAXD) */
static size_t to_devices(const struct dev *tab, struct pcierr_policy_device *devs)
{
	size_t n = 0;

	for (size_t i = 0; i < MAXD && tab[i].addr; i++) {
		const struct dev *d = &tab[i];

		snprintf(devs[i].addr, sizeof(devs[i].addr), "%s", d->addr);
		devs[i].vendor = d->vendor;
		devs[i].device = d->device;
		devs[i].driver_bound = d->bound;
		devs[i].handlers = d->handlers;
		devs[i].driver = d->driver;
		devs[i].flags = d->bridge ? PCIERR_DEV_F_BRIDGE : 0;
		devs[i].history = (struct pcierr_freeze_record) {
			.count = d->count,
			.first_usec = T0 + d->last,
			.last_usec = T0 + d->last,
			.disabled = d->disabled,
			.error_gen = ERROR_GEN(i),
		};
		n++;
	}
	return n;
}

/* One table input as the daemon would feed it (results: MAXD + 1) */
static void to_event(const struct in *in, const struct pcierr_policy_device *devs, size_t n,
		     struct pcierr_policy_result *results, struct pcierr_policy_event *ev,
		     const char *ctx)
{
	switch (in->kind) {
	case IN_FREEZE:
		ev->type = PCIERR_POLICY_EV_FREEZE;
		ev->state = PCIERR_STATE_FROZEN;
		ev->slot_empty = in->empty;
		ev->freeze_kind = in->fk;
		ev->reset_type = in->rtype;
		break;
	case IN_PERM:
		ev->type = PCIERR_POLICY_EV_FREEZE;
		ev->state = PCIERR_STATE_PERM_FAILURE;
		ev->time_unavail_ms = in->tu;
		ev->slot_empty = in->empty;
		ev->freeze_kind = in->fk;
		ev->reset_type = in->rtype;
		break;
	case IN_AER:
		ev->type = PCIERR_POLICY_EV_AER;
		ev->aer = in->aer;
		ev->aer_frozen = !in->nonfatal;
		break;
	case IN_OP:
		ev->type = PCIERR_POLICY_EV_OP_DONE;
		ev->op = in->op;
		ev->step = in->step;
		ev->error = in->error;
		for (size_t d = 0; d < n; d++)
			if (in->res[d] != PCIERR_RESULT_UNSPEC) {
				memcpy(results[ev->n_results].addr, devs[d].addr,
				       PCIERR_ADDR_MAX);
				results[ev->n_results++].result = in->res[d];
			}
		if (in->below != PCIERR_RESULT_UNSPEC) {
			snprintf(results[ev->n_results].addr, PCIERR_ADDR_MAX,
				 "0000:0a:00.0");
			results[ev->n_results++].result = in->below;
		}
		break;
	case IN_WAIT_DONE:
		ev->type = PCIERR_POLICY_EV_WAIT_DONE;
		break;
	case IN_TIMEOUT:
		ev->type = PCIERR_POLICY_EV_TIMEOUT;
		break;
	case IN_SLOT_EMPTY:
		ev->type = PCIERR_POLICY_EV_SLOT_EMPTY;
		break;
	case IN_VERIFIED:
		ev->type = PCIERR_POLICY_EV_VERIFIED;
		ev->verified = in->verified;
		ev->missing = in->missing;
		ev->gone = in->gone;
		break;
	default:
		ck_abort_msg("%s: bad input", ctx);
	}
}

START_TEST(test_scenario)
{
	const struct scenario *sc = &scenarios[_i];
	struct pcierr_policy_device devs[MAXD] = {};
	struct pcierr_config cfg;
	struct pcierr_config_error err = {};
	struct pcierr_policy_pe pe = {
		.addr = "0000:00:1c.0",
		.reset_types = reset_types(sc->rt),
		.devices = devs,
	};
	struct pcierr_recovery rec = PCIERR_RECOVERY_INIT;
	struct pcierr_policy_output *out;

	out = calloc(1, sizeof(*out));
	ck_assert_ptr_nonnull(out);

	pcierr_config_init(&cfg);
	if (sc->config)
		ck_assert_msg(pcierr_config_parse_string(&cfg, sc->config, "test.conf", &err) == 0,
			      "%s: config: %s:%u: %s", sc->name, err.file, err.line, err.message);

	pe.n_devices = to_devices(sc->devs, devs);

	for (size_t s = 0; s < MAXS && sc->steps[s].in.kind != IN_END; s++) {
		const struct step *st = &sc->steps[s];
		const struct in *in = &st->in;
		const struct exp *x = &st->exp;
		struct pcierr_policy_result results[MAXD] = {};
		struct pcierr_policy_event ev = {
			.now = T0 + in->t,
			.device = in->named ? devs[in->named - 1].addr : NULL,
			.results = results,
		};
		enum pcierr_recovery_phase before = rec.phase;
		char ctx[256];

		snprintf(ctx, sizeof(ctx), "'%s' step %zu", sc->name, s + 1);

		to_event(in, devs, pe.n_devices, results, &ev, ctx);

		ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
		if (out->action == PCIERR_ACTION_VERIFY && x->action == PCIERR_ACTION_DONE &&
		    x->recovered && !sc->verify) {
			/* issue 25: every recovered end is verified first; the
			 * daemon found the function back */
			struct pcierr_policy_event v = {
				.type = PCIERR_POLICY_EV_VERIFIED, .now = ev.now,
				.verified = true,
			};

			ck_assert_msg(rec.phase == PCIERR_PHASE_VERIFY &&
				      out->timeout_usec == SEC(PCIERR_DEFAULT_VERIFY_SEC),
				      "%s: VERIFY without its phase or bound", ctx);
			/* the first output's effects are persisted first */
			for (size_t e = 0; e < out->n_effects; e++)
				devs[out->effects[e].device].history = out->effects[e].record;
			ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &v, out), 0);
		}

		ck_assert_msg(out->action == x->action, "%s: action %s, expected %s (reason %s)",
			      ctx, pcierr_policy_action_to_string(out->action),
			      pcierr_policy_action_to_string(x->action),
			      pcierr_policy_reason_to_string(out->reason));
		switch (x->action) {
		case PCIERR_ACTION_REPORT:
			ck_assert_msg(out->step == x->step, "%s: step %d, expected %d", ctx,
				      out->step, x->step);
			if (x->step == PCIERR_STEP_ERROR_DETECTED)
				ck_assert_int_eq(out->state, PCIERR_STATE_FROZEN);
			break;
		case PCIERR_ACTION_RESET:
			ck_assert_msg(out->reset_type == x->reset, "%s: reset %d, expected %d", ctx,
				      out->reset_type, x->reset);
			break;
		case PCIERR_ACTION_REMOVE:
		case PCIERR_ACTION_WAIT_UDEV:
			check_devices(ctx, out, x);
			break;
		case PCIERR_ACTION_NOTHING:
		case PCIERR_ACTION_DISABLE:
			ck_assert_msg(out->reason == x->reason, "%s: reason %s, expected %s", ctx,
				      pcierr_policy_reason_to_string(out->reason),
				      pcierr_policy_reason_to_string(x->reason));
			if (x->action == PCIERR_ACTION_DISABLE)
				ck_assert_msg(out->message[0], "%s: DISABLE without a message", ctx);
			break;
		case PCIERR_ACTION_DONE:
			ck_assert_msg(out->recovered == x->recovered && out->reason == x->reason,
				      "%s: done %d/%s, expected %d/%s", ctx, out->recovered,
				      pcierr_policy_reason_to_string(out->reason), x->recovered,
				      pcierr_policy_reason_to_string(x->reason));
			ck_assert_msg(rec.phase == PCIERR_PHASE_IDLE, "%s: not idle after DONE", ctx);
			if (x->duration)
				ck_assert_msg(out->duration_usec == x->duration,
					      "%s: duration %llu, expected %llu", ctx,
					      (unsigned long long)out->duration_usec,
					      (unsigned long long)x->duration);
			break;
		default:
			break;
		}
		if (x->timeout)
			ck_assert_msg(out->timeout_usec == x->timeout,
				      "%s: timeout %llu, expected %llu", ctx,
				      (unsigned long long)out->timeout_usec,
				      (unsigned long long)x->timeout);
		if (x->msg)
			ck_assert_msg(strstr(out->message, x->msg), "%s: message '%s' lacks '%s'",
				      ctx, out->message, x->msg);

		/* invariants over every step of every scenario */
		if (out->action >= PCIERR_ACTION_REPORT && out->action <= PCIERR_ACTION_DISABLE)
			ck_assert_msg(out->timeout_usec > 0, "%s: no timeout for a step", ctx);
		if ((ev.type == PCIERR_POLICY_EV_FREEZE || ev.type == PCIERR_POLICY_EV_AER) &&
		    before != PCIERR_PHASE_IDLE && before != PCIERR_PHASE_WAIT &&
		    before != PCIERR_PHASE_WAIT_UDEV && before != PCIERR_PHASE_KERNEL &&
		    before != PCIERR_PHASE_VERIFY)
			ck_assert_msg(out->action == PCIERR_ACTION_NOTHING,
				      "%s: a second operation while one is in flight", ctx);
		if (out->action != PCIERR_ACTION_DONE && out->action != PCIERR_ACTION_NOTHING &&
		    out->action != PCIERR_ACTION_STUCK)
			ck_assert_msg(rec.phase != PCIERR_PHASE_IDLE, "%s: idle after an action", ctx);

		/* persist the effects, as the daemon does */
		for (size_t e = 0; e < out->n_effects; e++) {
			const struct pcierr_policy_effect *ef = &out->effects[e];

			if (ef->type == PCIERR_EFFECT_PE_FREEZE_RECORDED) {
				ck_assert_msg(ev.type != PCIERR_POLICY_EV_FREEZE ||
					      ev.freeze_kind == PCIERR_FREEZE_DETECTED,
					      "%s: a PE freeze recorded for freeze kind %d", ctx,
					      ev.freeze_kind);
				ck_assert_msg(!(ev.type == PCIERR_POLICY_EV_AER && in->nonfatal),
					      "%s: a non-fatal AER error counted", ctx);
				pe.history = ef->record;
				continue;
			}
			ck_assert_uint_lt(ef->device, pe.n_devices);
			ck_assert_msg(!(ev.type == PCIERR_POLICY_EV_AER && in->nonfatal &&
					ef->type == PCIERR_EFFECT_FREEZE_RECORDED),
				      "%s: a non-fatal AER error counted", ctx);
			/* pcierrd's error generation is carried through */
			ck_assert_msg(ef->record.error_gen == ERROR_GEN(ef->device),
				      "%s: effect on device %u changed error_gen to %u", ctx,
				      ef->device, ef->record.error_gen);
			/* a resync or a Reset records no freeze */
			ck_assert_msg(ev.type != PCIERR_POLICY_EV_FREEZE ||
				      ev.freeze_kind == PCIERR_FREEZE_DETECTED ||
				      ef->type != PCIERR_EFFECT_FREEZE_RECORDED,
				      "%s: a freeze recorded for freeze kind %d", ctx, ev.freeze_kind);
			devs[ef->device].history = ef->record;
			if (ef->type == PCIERR_EFFECT_IDENTITY_DISABLED)
				ck_assert_msg(ef->record.disabled && ef->reason != PCIERR_REASON_NONE,
					      "%s: disabled effect without reason", ctx);
		}
		if (st->hist)
			check_hist(ctx, st->hist, devs, pe.n_devices);
	}

	pcierr_config_done(&cfg);
	free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* merge_result() of drivers/pci/pcie/err.c */

static const struct {
	enum pcierr_result orig, new_result, expected;
} merge_table[] = {
	{ CR, CR, CR }, { CR, NR, NR }, { CR, DC, DC }, { CR, RC, RC },
	{ CR, NO, CR }, { CR, ND, CR }, { CR, GN, CR },
	{ RC, RC, RC }, { RC, NR, NR }, { RC, DC, DC }, { RC, CR, CR }, { RC, NO, RC },
	{ NR, CR, NR }, { NR, RC, NR }, { NR, DC, NR }, { NR, NO, NR },
	{ DC, NR, NR }, { DC, CR, DC }, { DC, RC, DC }, { DC, NO, DC },
	{ NO, CR, NO }, { NO, NR, NO },
};

START_TEST(test_merge)
{
	ck_assert_int_eq(pcierr_policy_merge(merge_table[_i].orig, merge_table[_i].new_result),
			 merge_table[_i].expected);
}
END_TEST

/* Which devices are recovered by callbacks */
static const struct {
	bool bound;
	uint32_t handlers;
	bool aware;
} aware_table[] = {
	{ true, H_ALL, true },
	{ true, H(ERROR_DETECTED) | H(SLOT_RESET), true },
	{ true, H(ERROR_DETECTED) | H(RESUME), false },
	{ true, H(SLOT_RESET) | H(RESUME), false },
	{ true, 0, false },
	{ false, H_ALL, false },
};

START_TEST(test_aware)
{
	struct pcierr_policy_device d = {
		.driver_bound = aware_table[_i].bound,
		.handlers = aware_table[_i].handlers,
	};

	ck_assert(pcierr_policy_device_aware(&d) == aware_table[_i].aware);
}
END_TEST

/* The freeze count rule on its own */
static const struct {
	unsigned int count;		/* before */
	pcierr_usec_t last;		/* before */
	pcierr_usec_t now;
	unsigned int max, window;	/* settings */
	unsigned int new_count;
	bool exceeded;
} count_table[] = {
	{ 0, 0, SEC(5), 5, 3600, 1, false },
	{ 4, SEC(100), SEC(200), 5, 3600, 5, false },
	{ 5, SEC(100), SEC(200), 5, 3600, 6, true },
	{ 5, SEC(100), SEC(3700), 5, 3600, 6, true },		/* exactly 3600 s */
	{ 5, SEC(100), SEC(3700) - 1, 5, 3600, 6, true },	/* just inside */
	{ 5, SEC(100), SEC(3700) + 1, 5, 3600, 1, false },	/* just outside */
	{ 5, SEC(100), SEC(50), 5, 3600, 6, true },		/* clock went back */
	{ 1, SEC(100), SEC(161), 1, 60, 1, false },
	{ 1, SEC(100), SEC(160), 1, 60, 2, true },
	{ 0, 0, 0, 0, 3600, 1, true },				/* MaxFreezes=0 */
	{ UINT32_MAX, 0, 1, 5, 3600, UINT32_MAX, true },	/* saturates */
};

START_TEST(test_count)
{
	struct pcierr_settings s = {
		.max_freezes = count_table[_i].max,
		.freeze_window_sec = count_table[_i].window,
	};
	struct pcierr_freeze_record r = {
		.count = count_table[_i].count,
		.first_usec = count_table[_i].last,
		.last_usec = count_table[_i].last,
	};
	bool exceeded = pcierr_policy_count_freeze(&r, count_table[_i].now, &s);

	ck_assert_uint_eq(r.count, count_table[_i].new_count);
	ck_assert(exceeded == count_table[_i].exceeded);
	ck_assert_uint_ge(r.last_usec, count_table[_i].now);
	if (r.count == 1)
		ck_assert_uint_eq(r.first_usec, count_table[_i].now);
}
END_TEST

START_TEST(test_names)
{
	for (int a = 0; a < __PCIERR_ACTION_MAX; a++)
		ck_assert_ptr_nonnull(pcierr_policy_action_to_string(a));
	for (int r = 0; r < __PCIERR_REASON_MAX; r++)
		ck_assert_ptr_nonnull(pcierr_policy_reason_to_string(r));
	for (int p = 0; p < __PCIERR_PHASE_MAX; p++)
		ck_assert_ptr_nonnull(pcierr_recovery_phase_to_string(p));
	ck_assert_ptr_null(pcierr_policy_action_to_string(__PCIERR_ACTION_MAX));
}
END_TEST

START_TEST(test_bad_input)
{
	struct pcierr_config cfg;
	struct pcierr_policy_pe pe = { .n_devices = 1 };	/* devices NULL */
	struct pcierr_recovery rec = PCIERR_RECOVERY_INIT;
	struct pcierr_policy_event ev = { .type = PCIERR_POLICY_EV_FREEZE };
	struct pcierr_policy_output *out = calloc(1, sizeof(*out));

	ck_assert_ptr_nonnull(out);
	pcierr_config_init(&cfg);
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), -EINVAL);
	pe.n_devices = 0;
	ev.type = __PCIERR_POLICY_EV_MAX;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), -EINVAL);
	ck_assert_int_eq(pcierr_policy_step(NULL, &pe, &rec, &ev, out), -EINVAL);
	ck_assert_int_eq(rec.phase, PCIERR_PHASE_IDLE);
	ev.type = PCIERR_POLICY_EV_FREEZE;
	ev.freeze_kind = __PCIERR_FREEZE_KIND_MAX;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), -EINVAL);
	ev.freeze_kind = PCIERR_FREEZE_ADMIN;
	ev.reset_type = __PCIERR_RESET_MAX;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), -EINVAL);
	ev.reset_type = PCIERR_RESET_UNSPEC;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(out->action, PCIERR_ACTION_REPORT);	/* a PE without devices */
	free(out);
}
END_TEST

/* L4: durations from the monotonic clock, whatever the wall clock does;
 * H1: a KERNEL phase that times out falls back to hotplug */
START_TEST(test_monotonic_and_kernel_timeout)
{
	struct pcierr_config cfg;
	struct pcierr_policy_device dev = {
		.addr = "0000:01:00.0", .vendor = 0x8086, .device = 0x10d3,
		.driver_bound = true,
		.handlers = (1U << PCIERR_HANDLER_ERROR_DETECTED) | (1U << PCIERR_HANDLER_SLOT_RESET),
	};
	struct pcierr_policy_pe pe = {
		.addr = "0000:00:1c.0", .devices = &dev, .n_devices = 1,
		.reset_types = 1U << PCIERR_RESET_HOT,
	};
	struct pcierr_recovery rec = PCIERR_RECOVERY_INIT;
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_AER, .aer = PCIERR_POLICY_AER_BEGIN,
		.now = 1000 * PCIERR_USEC_PER_SEC, .mono = 50 * PCIERR_USEC_PER_SEC,
	};
	struct pcierr_policy_output *out = calloc(1, sizeof(*out));

	ck_assert_ptr_nonnull(out);
	pcierr_config_init(&cfg);
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(rec.phase, PCIERR_PHASE_KERNEL);
	/* the wall clock stepped back 10 s, 2 s passed */
	ev.aer = PCIERR_POLICY_AER_SUCCESSFUL;
	ev.now -= 10 * PCIERR_USEC_PER_SEC;
	ev.mono += 2 * PCIERR_USEC_PER_SEC;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(out->action, PCIERR_ACTION_VERIFY);
	ev.type = PCIERR_POLICY_EV_VERIFIED;
	ev.verified = true;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(out->action, PCIERR_ACTION_DONE);
	ck_assert(out->recovered);
	ck_assert_uint_eq(out->duration_usec, 2 * PCIERR_USEC_PER_SEC);
	ev.type = PCIERR_POLICY_EV_AER;

	/* BEGIN and then nothing for KernelTimeoutSec: the devices' states,
	 * read from the kernel, decide (U3). All normal: it recovered */
	ev.aer = PCIERR_POLICY_AER_BEGIN;
	ev.aer_frozen = true;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(rec.phase, PCIERR_PHASE_KERNEL);
	ck_assert_uint_eq(out->timeout_usec,
			  PCIERR_DEFAULT_KERNEL_TIMEOUT_SEC * PCIERR_USEC_PER_SEC);
	ev.type = PCIERR_POLICY_EV_TIMEOUT;
	dev.state = PCIERR_STATE_NORMAL;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	/* recovered as far as the kernel tells: verified first (issue 25) */
	ck_assert_int_eq(out->action, PCIERR_ACTION_VERIFY);
	ev.type = PCIERR_POLICY_EV_VERIFIED;
	ev.verified = true;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(out->action, PCIERR_ACTION_DONE);
	ck_assert(out->recovered);
	/* ... still frozen: the kernel's recovery failed, the fallback */
	ev.type = PCIERR_POLICY_EV_AER;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ev.type = PCIERR_POLICY_EV_TIMEOUT;
	dev.state = PCIERR_STATE_FROZEN;
	ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
	ck_assert_int_eq(out->action, PCIERR_ACTION_REMOVE);
	ck_assert_int_eq(rec.mode, PCIERR_MODE_FULL_HOTPLUG);
	pcierr_config_done(&cfg);
	free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/*
 * U11: the decisions recovery.c took by itself, now the policy's. Each
 * case runs its inputs through pcierr_policy_step(), then asks
 * pcierr_policy_plan(); "copy" says what the copy that was deleted from
 * recovery.c answered (first_reset() and try_recover(),
 * next_freeze_recovers(), check_op()'s merged answer copied to every
 * device), where it is not the plan's.
 */

#define PLANIN	6

struct plan_case {
	const char *name;
	const char *config;
	enum rt rt;
	struct dev devs[MAXD];
	enum pcierr_pe_state state;
	uint32_t flags;
	enum pcierr_backend backend;
	struct in before[PLANIN];	/* the last one's output: recover? */
	int recover;			/* 1 yes, -1 no, 0 not checked */
	enum pcierr_reset_type recover_reset;
	struct pcierr_policy_query q;
	bool arm;			/* ARM */
	enum pcierr_reset_type arm_reset;
	pcierr_usec_t step_timeout;	/* 0: the default */
	/* LOST: the plan's input, fed to the policy, gives */
	bool replay;
	struct exp then;
	/* ... and what the copy's input gave (check_op: the merged
	 * answer as every device's); action NOTHING: the same */
	struct exp copy;
};

#define ASK_ARM		{ .question = PCIERR_PLAN_ARM }
#define ASK_BOUNDS	{ .question = PCIERR_PLAN_BOUNDS }
#define LOST(c, s)	{ .question = PCIERR_PLAN_LOST, .op = PCIERR_CMD_##c, \
			  .step = PCIERR_STEP_##s }
#define KEPT(c, s, e, r) { .question = PCIERR_PLAN_LOST, .op = PCIERR_CMD_##c, \
			  .step = PCIERR_STEP_##s, .kept = true, .error = (e), .result = (r) }

static const struct plan_case plan_table[] = {
	/* try_recover() and first_reset(): when a RECOVER may run, its reset */
	{ "recover: callbacks, hot first", .rt = RT_BOTH, .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .recover = 1, .recover_reset = PCIERR_RESET_HOT,
	  .q = ASK_BOUNDS },
	{ "recover: fundamental only", .rt = RT_FUND, .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .recover = 1, .recover_reset = PCIERR_RESET_FUNDAMENTAL,
	  .q = ASK_BOUNDS },
	{ "recover: no reset", .rt = RT_NONE, .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .recover = -1, .q = ASK_BOUNDS },
	{ "recover: partial hotplug", .devs = { AWARE("0000:01:00.0"), NO_HANDLERS("0000:01:00.1") },
	  .before = { FREEZE(0, 0) }, .recover = -1, .q = ASK_BOUNDS },
	{ "recover: Method=hotplug", .config = "[Device 8086:10d3]\nMethod=hotplug\n",
	  .devs = { AWARE("0000:01:00.0"), NO_MMIO("0000:01:00.1") },
	  .before = { FREEZE(0, 0) }, .recover = -1, .q = ASK_BOUNDS },
	{ "recover: an administrator's reset", .devs = { AWARE("0000:01:00.0") },
	  .before = { ADMIN(0, FUNDAMENTAL) }, .recover = -1, .q = ASK_BOUNDS },
	{ "recover: told before time_unavail", .devs = { AWARE("0000:01:00.0") },
	  .before = { PERM(0, 2000) }, .recover = -1, .q = ASK_BOUNDS },
	{ "recover: over again after a rescan", .devs = { AWARE("0000:01:00.0"), NO_HANDLERS("0000:01:00.1") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, NR), OP(REMOVE), WAIT_DONE, OP(RESET),
		      REP(SLOT_RESET, RC) },
	  .recover = -1, .q = ASK_BOUNDS },

	/* next_freeze_recovers() and arm_wanted(): the arm */
	{ "arm: an aware card", .rt = RT_BOTH, .devs = { BRIDGE("0000:00:1c.0"), AWARE("0000:01:00.0") },
	  .q = ASK_ARM, .arm = true, .arm_reset = PCIERR_RESET_HOT },
	{ "arm: fundamental only", .rt = RT_FUND, .devs = { AWARE("0000:01:00.0") },
	  .q = ASK_ARM, .arm = true, .arm_reset = PCIERR_RESET_FUNDAMENTAL },
	{ "arm: AutoRecover=no", .config = "[Policy]\nAutoRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") }, .q = ASK_ARM },
	{ "arm: Recover=no", .config = "[Device 0000:01:00.0]\nRecover=no\n",
	  .devs = { AWARE("0000:01:00.0") }, .q = ASK_ARM },
	{ "arm: a card without handlers", .devs = { AWARE("0000:01:00.0"), NO_HANDLERS("0000:02:00.0") },
	  .q = ASK_ARM },
	{ "arm: the next freeze of a card disables", .devs = { AWARE("0000:01:00.0"),
	  HIST("0000:02:00.0", 5, SEC(60)) }, .q = ASK_ARM },
	{ "arm: five freezes of the card so far is still armed",
	  .devs = { HIST("0000:01:00.0", 4, SEC(60)) }, .q = ASK_ARM, .arm = true,
	  .arm_reset = PCIERR_RESET_HOT },
	{ "arm: a disabled identity", .devs = { { .addr = "0000:01:00.0", .vendor = 0x8086,
	  .device = 0x10d3, .bound = true, .handlers = H_ALL, .disabled = true } }, .q = ASK_ARM },
	{ "arm: no reset", .rt = RT_NONE, .devs = { AWARE("0000:01:00.0") }, .q = ASK_ARM },
	{ "arm: the head alone", .devs = { BRIDGE("0000:00:1c.0") }, .q = ASK_ARM },
	{ "arm: busy in the shim", .devs = { AWARE("0000:01:00.0") }, .flags = PCIERR_PE_F_BUSY,
	  .q = ASK_ARM },
	{ "arm: disabled in the shim", .devs = { AWARE("0000:01:00.0") },
	  .state = PCIERR_PE_STATE_DISABLED, .q = ASK_ARM },
	{ "arm: hot-unplugged", .devs = { AWARE("0000:01:00.0") },
	  .state = PCIERR_PE_STATE_REMOVED, .q = ASK_ARM },
	{ "arm: RTAS", .devs = { AWARE("0000:01:00.0") }, .backend = PCIERR_BACKEND_RTAS,
	  .q = ASK_ARM },
	{ "arm: generic", .devs = { AWARE("0000:01:00.0") }, .backend = PCIERR_BACKEND_GENERIC,
	  .state = PCIERR_PE_STATE_NORMAL, .q = ASK_ARM, .arm = true, .arm_reset = PCIERR_RESET_HOT },
	{ "arm: recovering", .devs = { AWARE("0000:01:00.0") }, .before = { FREEZE(0, 0) },
	  .q = ASK_ARM },

	/* U6: the PE's own StepTimeoutSec, not [Policy]'s */
	{ "bounds: the PE's StepTimeoutSec", .config = "[Policy]\nStepTimeoutSec=7\n"
	  "[Device 0000:01:00.1]\nStepTimeoutSec=90\n",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") }, .q = ASK_BOUNDS,
	  .step_timeout = SEC(90) },

	/* check_op(): what a lost OP_DONE means */
	{ "lost: error_detected, end not kept", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .q = LOST(REPORT, ERROR_DETECTED), .then = X_RESET(HOT) },
	{ "lost: a RECOVER, end not kept", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .q = LOST(RECOVER, UNSPEC), .then = X_RESET(HOT) },
	{ "lost: a RECOVER, kept: its steps", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0) }, .q = KEPT(RECOVER, UNSPEC, 0, PCIERR_RESULT_UNSPEC),
	  .replay = true, .then = X_RESET(HOT) },
	{ "lost: a reset that failed", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, NR) },
	  .q = KEPT(RESET, UNSPEC, -EIO, PCIERR_RESULT_UNSPEC), .then = X_RESET(FUNDAMENTAL) },
	{ "lost: a reset, end not kept", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, NR) },
	  .q = LOST(RESET, UNSPEC), .then = X_RESET(FUNDAMENTAL) },
	{ "lost: kept NEED_RESET", .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .before = { FREEZE(0, 0) }, .q = KEPT(REPORT, ERROR_DETECTED, 0, NR),
	  .then = X_RESET(HOT) },
	{ "lost: kept DISCONNECT of members", .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .before = { FREEZE(0, 0) }, .q = KEPT(REPORT, ERROR_DETECTED, 0, DC),
	  .then = X_DISABLE(DISCONNECT) },
	/* the copy was wrong: a card hot-unplugged anyway (no slot_reset)
	 * answered DISCONNECT, which the live merge leaves out (its vote
	 * does not count: partial hotplug); the copy gave that DISCONNECT
	 * to the aware card too and disabled the PE */
	{ "lost: kept DISCONNECT of a card that is unplugged anyway",
	  .devs = { AWARE("0000:01:00.0"), ED_ONLY("0000:01:00.1") },
	  .before = { FREEZE(0, 0) }, .q = KEPT(REPORT, ERROR_DETECTED, 0, DC),
	  .then = X_REMOVE(0x2), .copy = X_DISABLE(DISCONNECT) },
	{ "lost: kept RECOVERED after slot_reset", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, NR), OP(RESET) },
	  .q = KEPT(REPORT, SLOT_RESET, 0, RC), .then = X_REPORT(RESUME) },
	{ "lost: kept CAN_RECOVER after mmio_enabled: a reset",
	  .devs = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, CR, CR), OP(ENABLE_IO) },
	  .q = KEPT(REPORT, MMIO_ENABLED, 0, CR), .then = X_RESET(HOT) },
	/* a kept end without an answer: no vote, and not "gone" (a live
	 * step that no device answered would be) */
	{ "lost: kept, no vote: not gone", .devs = { AWARE("0000:01:00.0") },
	  .before = { FREEZE(0, 0), REP(ERROR_DETECTED, NR), OP(RESET) },
	  .q = KEPT(REPORT, SLOT_RESET, 0, PCIERR_RESULT_UNSPEC), .then = X_REPORT(RESUME) },
};

static void check_exp(const char *ctx, const struct pcierr_policy_output *out,
		      const struct exp *x)
{
	ck_assert_msg(out->action == x->action, "%s: action %s, expected %s (reason %s)", ctx,
		      pcierr_policy_action_to_string(out->action),
		      pcierr_policy_action_to_string(x->action),
		      pcierr_policy_reason_to_string(out->reason));
	if (x->action == PCIERR_ACTION_RESET)
		ck_assert_msg(out->reset_type == x->reset, "%s: reset %d, expected %d", ctx,
			      out->reset_type, x->reset);
	if (x->action == PCIERR_ACTION_REPORT)
		ck_assert_msg(out->step == x->step, "%s: step %d, expected %d", ctx, out->step,
			      x->step);
	if (x->action == PCIERR_ACTION_REMOVE)
		check_devices(ctx, out, x);
	if (x->action == PCIERR_ACTION_DISABLE)
		ck_assert_msg(out->reason == x->reason, "%s: reason %s", ctx,
			      pcierr_policy_reason_to_string(out->reason));
}

START_TEST(test_plan)
{
	const struct plan_case *pc = &plan_table[_i];
	struct pcierr_policy_device devs[MAXD] = {};
	struct pcierr_config cfg;
	struct pcierr_config_error err = {};
	struct pcierr_policy_pe pe = {
		.addr = "0000:00:1c.0",
		.reset_types = reset_types(pc->rt),
		.devices = devs,
		.state = pc->state,
		.flags = pc->flags,
		.backend = pc->backend,
	};
	struct pcierr_recovery rec = PCIERR_RECOVERY_INIT, saved;
	struct pcierr_policy_output *out = calloc(1, sizeof(*out));
	struct pcierr_policy_query q = pc->q;
	struct pcierr_policy_plan plan;
	char ctx[256];

	ck_assert_ptr_nonnull(out);
	pcierr_config_init(&cfg);
	if (pc->config)
		ck_assert_msg(pcierr_config_parse_string(&cfg, pc->config, "test.conf", &err) == 0,
			      "%s: config: %s:%u: %s", pc->name, err.file, err.line, err.message);
	pe.n_devices = to_devices(pc->devs, devs);

	for (size_t i = 0; i < PLANIN && pc->before[i].kind != IN_END; i++) {
		struct pcierr_policy_result results[MAXD + 1] = {};
		struct pcierr_policy_event ev = {
			.now = T0 + pc->before[i].t,
			.device = pc->before[i].named ? devs[pc->before[i].named - 1].addr : NULL,
			.results = results,
		};

		snprintf(ctx, sizeof(ctx), "'%s' input %zu", pc->name, i + 1);
		to_event(&pc->before[i], devs, pe.n_devices, results, &ev, ctx);
		ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
		for (size_t e = 0; e < out->n_effects; e++)
			if (out->effects[e].type != PCIERR_EFFECT_PE_FREEZE_RECORDED)
				devs[out->effects[e].device].history = out->effects[e].record;
	}
	snprintf(ctx, sizeof(ctx), "'%s'", pc->name);
	if (pc->recover) {
		ck_assert_msg(out->recover == (pc->recover > 0), "%s: recover %d (action %s)", ctx,
			      out->recover, pcierr_policy_action_to_string(out->action));
		if (pc->recover > 0)
			ck_assert_msg(out->action == PCIERR_ACTION_REPORT &&
				      out->reset_type == pc->recover_reset,
				      "%s: RECOVER's reset %d, expected %d", ctx, out->reset_type,
				      pc->recover_reset);
	}

	q.now = T0 + SEC(120);
	saved = rec;
	ck_assert_int_eq(pcierr_policy_plan(&cfg, &pe, &rec, &q, &plan), 0);
	ck_assert_msg(memcmp(&saved, &rec, sizeof(rec)) == 0, "%s: the plan changed rec", ctx);
	ck_assert_msg(plan.step_timeout_usec == (pc->step_timeout ? pc->step_timeout :
						  SEC(PCIERR_DEFAULT_STEP_TIMEOUT_SEC)),
		      "%s: step timeout %llu", ctx, (unsigned long long)plan.step_timeout_usec);
	ck_assert_msg(plan.arm == pc->arm && (!pc->arm || plan.arm_reset == pc->arm_reset),
		      "%s: arm %d (reset %d), expected %d (%d)", ctx, plan.arm, plan.arm_reset,
		      pc->arm, pc->arm_reset);

	if (q.question == PCIERR_PLAN_LOST) {
		struct pcierr_recovery copy = rec;
		struct pcierr_policy_result fake[MAXD];
		struct pcierr_policy_event ev = plan.lost;

		ck_assert_msg(plan.replay == pc->replay, "%s: replay %d", ctx, plan.replay);
		ck_assert_int_eq(ev.type, PCIERR_POLICY_EV_OP_DONE);
		ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &rec, &ev, out), 0);
		check_exp(ctx, out, &pc->then);

		/* the deleted copy: the kept answer as every device's */
		if (pc->copy.action != PCIERR_ACTION_NOTHING) {
			snprintf(ctx, sizeof(ctx), "'%s' (the copy)", pc->name);
			for (size_t d = 0; d < pe.n_devices; d++) {
				memcpy(fake[d].addr, devs[d].addr, PCIERR_ADDR_MAX);
				fake[d].result = q.result;
			}
			ev.merged = PCIERR_RESULT_UNSPEC;
			ev.results = fake;
			ev.n_results = pe.n_devices;
			ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &copy, &ev, out), 0);
			check_exp(ctx, out, &pc->copy);
		}
	}
	pcierr_config_done(&cfg);
	free(out);
}
END_TEST

/* Live answers and a kept answer of the same drivers decide alike, where
 * the kept one can tell (policy.h "Merging") */
START_TEST(test_kept_like_live)
{
	static const enum pcierr_result answers[] = { CR, NR, DC, RC, NO };
	struct pcierr_policy_device devs[MAXD] = {};
	const struct dev tab[MAXD] = { AWARE("0000:01:00.0"), AWARE("0000:01:00.1") };
	struct pcierr_config cfg;
	struct pcierr_policy_pe pe = {
		.addr = "0000:00:1c.0", .reset_types = reset_types(RT_BOTH), .devices = devs,
	};
	struct pcierr_policy_output *live = calloc(1, sizeof(*live));
	struct pcierr_policy_output *kept = calloc(1, sizeof(*kept));

	ck_assert_ptr_nonnull(live);
	ck_assert_ptr_nonnull(kept);
	pcierr_config_init(&cfg);
	pe.n_devices = to_devices(tab, devs);
	for (size_t a = 0; a < sizeof(answers) / sizeof(answers[0]); a++)
		for (size_t b = 0; b < sizeof(answers) / sizeof(answers[0]); b++) {
			struct pcierr_policy_event fr = {
				.type = PCIERR_POLICY_EV_FREEZE, .now = T0,
				.state = PCIERR_STATE_FROZEN,
			};
			struct pcierr_policy_result res[2] = {
				{ .addr = "0000:01:00.0", .result = answers[a] },
				{ .addr = "0000:01:00.1", .result = answers[b] },
			};
			struct pcierr_policy_event ev = {
				.type = PCIERR_POLICY_EV_OP_DONE, .now = T0,
				.op = PCIERR_CMD_REPORT, .step = PCIERR_STEP_ERROR_DETECTED,
				.results = res, .n_results = 2,
			};
			struct pcierr_policy_query q = {
				.question = PCIERR_PLAN_LOST, .op = PCIERR_CMD_REPORT,
				.step = PCIERR_STEP_ERROR_DETECTED, .kept = true,
			};
			struct pcierr_recovery r1 = PCIERR_RECOVERY_INIT, r2;
			struct pcierr_policy_plan plan;

			/* the shim's merge (uapi "Merging results"): by rank */
			q.result = answers[a] == NR || answers[b] == NR ? NR :
				   answers[a] == DC || answers[b] == DC ? DC :
				   answers[a] == CR || answers[b] == CR ? CR :
				   answers[a] == RC || answers[b] == RC ? RC : NO;
			ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &r1, &fr, live), 0);
			r2 = r1;
			ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &r1, &ev, live), 0);
			ck_assert_int_eq(pcierr_policy_plan(&cfg, &pe, &r2, &q, &plan), 0);
			ck_assert_int_eq(pcierr_policy_step(&cfg, &pe, &r2, &plan.lost, kept), 0);
			ck_assert_msg(live->action == kept->action && live->reset_type == kept->reset_type,
				      "answers %d,%d: live %s, kept %s", answers[a], answers[b],
				      pcierr_policy_action_to_string(live->action),
				      pcierr_policy_action_to_string(kept->action));
		}
	pcierr_config_done(&cfg);
	free(live);
	free(kept);
}
END_TEST

Suite *suite_policy(void)
{
	Suite *s = suite_create("policy");
	TCase *tc;

	tc = tcase_create("scenarios");
	tcase_add_loop_test(tc, test_scenario, 0, (int)(sizeof(scenarios) / sizeof(scenarios[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_loop_test(tc, test_merge, 0, (int)(sizeof(merge_table) / sizeof(merge_table[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("aware");
	tcase_add_loop_test(tc, test_aware, 0, (int)(sizeof(aware_table) / sizeof(aware_table[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("count");
	tcase_add_loop_test(tc, test_count, 0, (int)(sizeof(count_table) / sizeof(count_table[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("plan");
	tcase_add_loop_test(tc, test_plan, 0, (int)(sizeof(plan_table) / sizeof(plan_table[0])));
	tcase_add_test(tc, test_kept_like_live);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_monotonic_and_kernel_timeout);
	suite_add_tcase(s, tc);

	return s;
}

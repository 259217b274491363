// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The context: connecting without the module, errno translation, the
 * notification queue (nothing lost around pcierr_op_wait(), the event fd
 * readable exactly while something is pending), the family going away
 * and coming back, argument checks.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <netlink/errno.h>

#include "cksuite.h"

/* in cksuite-notify.c: a controller's message about a family */
struct nl_msg *ck_build_ctrl(uint8_t cmd, const char *name, uint16_t id);

/* The module is not loaded on the build host (it has no modules at
 * all): pcierr_ctx_new() says so clearly. If a module is there after
 * all (a developer's machine), a working context is fine too. */
START_TEST(test_ctx_new_without_module)
{
	struct pcierr_ctx *ctx = NULL;
	int r = pcierr_ctx_new(&ctx);

	if (r == 0) {
		ck_assert_ptr_nonnull(ctx);
		ck_assert_int_gt(pcierr_family_id(ctx), 0);
		ck_assert_int_ge(pcierr_event_fd(ctx), 0);
		pcierr_ctx_free(ctx);
		return;
	}
	ck_assert_int_eq(r, -EPROTONOSUPPORT);
	ck_assert_ptr_null(ctx);
	ck_assert_int_eq(pcierr_ctx_new(NULL), -EINVAL);
	pcierr_ctx_free(NULL);
}
END_TEST

static const struct {
	int nle;
	int err;
} nle_map[] = {
	{ 0, 0 },
	{ NLE_FAILURE, -EIO },
	{ NLE_INTR, -EINTR },
	{ NLE_AGAIN, -EAGAIN },
	{ NLE_NOMEM, -ENOMEM },
	{ NLE_EXIST, -EEXIST },
	{ NLE_INVAL, -EINVAL },
	{ NLE_RANGE, -ERANGE },
	{ NLE_MSGSIZE, -EMSGSIZE },
	{ NLE_OPNOTSUPP, -EOPNOTSUPP },
	{ NLE_OBJ_NOTFOUND, -ENOENT },
	{ NLE_MSG_TOOSHORT, -EBADMSG },
	{ NLE_BUSY, -EBUSY },
	{ NLE_NOACCESS, -EACCES },
	{ NLE_PERM, -EPERM },
	{ NLE_NODEV, -ENODEV },
	{ NLE_DUMP_INTR, -EAGAIN },
	{ NLE_ATTRSIZE, -ERANGE },
	{ NLE_MAX + 1, -EIO },
	{ 12345, -EIO },
};

START_TEST(test_nle_to_errno)
{
	ck_assert_int_eq(pcierr_nle_to_errno(nle_map[_i].nle), nle_map[_i].err);
	ck_assert_int_eq(pcierr_nle_to_errno(-nle_map[_i].nle), nle_map[_i].err);
}
END_TEST

/* every NLE_* has a translation: a negative errno, never 0 */
START_TEST(test_nle_all)
{
	for (int i = 1; i <= NLE_MAX; i++)
		ck_assert_msg(pcierr_nle_to_errno(-i) < 0, "NLE %d untranslated", i);
}
END_TEST

/* ------------------------------------------------------------------ */

struct dgram {
	char buf[32 * 1024];
	size_t len;
};

static void dg_add(struct dgram *d, struct nl_msg *m)
{
	d->len = ck_append(d->buf, sizeof(d->buf), d->len, m);
	nlmsg_free(m);
}

static struct pcierr_ctx *detached(void)
{
	struct pcierr_ctx *ctx = NULL;

	ck_assert_int_eq(pcierr_ctx_new_detached(CK_FAMILY, &ctx), 0);
	return ctx;
}

static int readable(struct pcierr_ctx *ctx)
{
	struct pollfd p = { .fd = pcierr_event_fd(ctx), .events = POLLIN };

	ck_assert_int_ge(poll(&p, 1, 0), 0);
	return !!(p.revents & POLLIN);
}

struct seen {
	int n;
	enum pcierr_notify_type type[16];
	uint64_t id[16];	/* seq, op id, or dropped */
	int stop_after;		/* return -ECANCELED after this many, 0 never */
};

static int record(struct pcierr_ctx *ctx, const struct pcierr_notification *n, void *userdata)
{
	struct seen *s = userdata;

	ck_assert_int_lt(s->n, 16);
	s->type[s->n] = n->type;
	s->id[s->n] = n->type == PCIERR_NOTIFY_EVENT ? n->event.seq :
		      n->type == PCIERR_NOTIFY_OP_DONE ? n->op_done.op_id :
		      n->type == PCIERR_NOTIFY_OVERFLOW ? n->overflow.dropped :
		      (uint64_t)n->family.family_id;
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		return -ECANCELED;
	return 0;
}

START_TEST(test_queue_op_wait)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct seen s = {};
	struct dgram d = {};

	ck_assert(!readable(ctx));
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 0);

	/* what arrives while someone waits for op 7 */
	dg_add(&d, ck_build_event(1));
	dg_add(&d, ck_build_op_done(6, PCIERR_CMD_RESET));
	dg_add(&d, ck_build_event(2));
	dg_add(&d, ck_build_op_done(7, PCIERR_CMD_REPORT));
	dg_add(&d, ck_build_overflow(3, 6));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_uint_eq(pcierr_event_pending(ctx), 5);
	ck_assert(readable(ctx));

	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 0, &done), 0);
	ck_assert_uint_eq(done.op_id, 7);
	ck_assert_int_eq(done.op, PCIERR_CMD_REPORT);
	ck_assert_uint_eq(done.n_results, 2);
	ck_assert_str_eq(done.results[1].addr, "0000:01:00.1");
	pcierr_op_done_clear(&done);
	ck_assert_ptr_null(done.results);
	pcierr_op_done_clear(NULL);

	/* the other four are still there, in order */
	ck_assert_uint_eq(pcierr_event_pending(ctx), 4);
	ck_assert(readable(ctx));
	ck_assert_int_eq(pcierr_event_wait(ctx, 0), 1);
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 4);
	ck_assert_int_eq(s.n, 4);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(s.id[0], 1);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_OP_DONE);
	ck_assert_uint_eq(s.id[1], 6);
	ck_assert_int_eq(s.type[2], PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(s.id[2], 2);
	ck_assert_int_eq(s.type[3], PCIERR_NOTIFY_OVERFLOW);
	ck_assert_uint_eq(s.id[3], 3);

	ck_assert_uint_eq(pcierr_event_pending(ctx), 0);
	ck_assert(!readable(ctx));
	ck_assert_int_eq(pcierr_event_wait(ctx, 0), 0);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_queue_op_wait_timeout)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct dgram d = {};

	dg_add(&d, ck_build_op_done(1, PCIERR_CMD_RESET));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_int_eq(pcierr_op_wait(ctx, 2, 20, &done), -ETIMEDOUT);
	ck_assert_int_eq(pcierr_op_wait(ctx, 2, 0, &done), -ETIMEDOUT);
	ck_assert_uint_eq(pcierr_event_pending(ctx), 1);
	/* ctx_free frees what is still queued */
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_queue_stop)
{
	struct pcierr_ctx *ctx = detached();
	struct seen s = { .stop_after = 2 };
	struct dgram d = {};

	for (int i = 1; i <= 5; i++)
		dg_add(&d, ck_build_event(i));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), -ECANCELED);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(pcierr_event_pending(ctx), 3);
	ck_assert(readable(ctx));
	s.stop_after = 0;
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 3);
	ck_assert_uint_eq(s.id[4], 5);
	ck_assert(!readable(ctx));
	pcierr_ctx_free(ctx);
}
END_TEST

/* A notification that cannot be parsed is not dropped silently. */
START_TEST(test_queue_bad_message)
{
	static const struct ck_override no_seq = OV_OMIT(0, PCIERR_A_SEQ);
	struct pcierr_ctx *ctx = detached();
	struct seen s = {};
	struct dgram d = {};
	struct nl_msg *other;

	dg_add(&d, ck_build_event(1));
	ck_ov = &no_seq;
	dg_add(&d, ck_build_event(2));
	ck_ov = NULL;
	/* another family's message and a non-notification command: ignored */
	other = ck_build_event(9);
	nlmsg_hdr(other)->nlmsg_type = CK_FAMILY + 1;
	dg_add(&d, other);
	dg_add(&d, ck_genl_msg(PCIERR_CMD_GET_STATS, 0, 0));
	dg_add(&d, ck_build_event(3));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 3);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_EVENT);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_OVERFLOW);
	ck_assert_int_eq(s.type[2], PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(s.id[2], 3);
	pcierr_ctx_free(ctx);
}
END_TEST

struct reason {
	enum pcierr_overflow_reason reason;
	int n;
};

static int get_reason(struct pcierr_ctx *ctx, const struct pcierr_notification *n, void *userdata)
{
	struct reason *r = userdata;

	ck_assert_int_eq(n->type, PCIERR_NOTIFY_OVERFLOW);
	r->reason = n->overflow.reason;
	r->n++;
	return 0;
}

static int get_reason_or_count(struct pcierr_ctx *ctx, const struct pcierr_notification *n,
			       void *userdata)
{
	int *total = userdata;

	ck_assert_int_eq(n->type, PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(n->event.seq, (uint64_t)*total + 1);
	(*total)++;
	return 0;
}

/* A datagram that ends inside a message lost that message: reported. */
START_TEST(test_queue_truncated_datagram)
{
	struct pcierr_ctx *ctx = detached();
	struct reason r = {};
	struct dgram d = {};

	dg_add(&d, ck_build_event(1));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len - 8), 0);
	ck_assert_int_eq(pcierr_event_read(ctx, get_reason, &r), 1);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.reason, PCIERR_OVERFLOW_BAD_MESSAGE);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_queue_many)
{
	struct pcierr_ctx *ctx = detached();
	int total = 0, r;

	/* more than one batch */
	for (int i = 0; i < PCIERR_EVENT_READ_BATCH + 10; i++) {
		struct dgram d = {};

		dg_add(&d, ck_build_event((uint64_t)i + 1));
		ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	}
	while ((r = pcierr_event_read(ctx, get_reason_or_count, &total)) > 0)
		;
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(total, PCIERR_EVENT_READ_BATCH + 10);
	pcierr_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The family going away and coming back                               */
/* ------------------------------------------------------------------ */

/* The controller's messages among the family's: ours become
 * FAMILY_REMOVED / _ADDED, in order; the rest is ignored, not lost. */
START_TEST(test_family_queue)
{
	struct pcierr_ctx *ctx = detached();
	struct seen s = {};
	struct dgram d = {};

	dg_add(&d, ck_build_event(1));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "nl80211", CK_FAMILY + 3));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELMCAST_GRP, "pcierr", CK_FAMILY));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", CK_FAMILY));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWFAMILY, "wireguard", CK_FAMILY + 4));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWFAMILY, "pcierr", CK_FAMILY + 1));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWMCAST_GRP, "pcierr", CK_FAMILY + 1));
	/* an event of the new instance: not ours until a reconnect */
	{
		struct nl_msg *m = ck_build_event(1);

		nlmsg_hdr(m)->nlmsg_type = CK_FAMILY + 1;
		dg_add(&d, m);
	}
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_uint_eq(pcierr_event_pending(ctx), 3);
	ck_assert(readable(ctx));
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 3);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_EVENT);
	ck_assert_uint_eq(s.id[0], 1);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_FAMILY_REMOVED);
	ck_assert_uint_eq(s.id[1], CK_FAMILY);
	ck_assert_int_eq(s.type[2], PCIERR_NOTIFY_FAMILY_ADDED);
	ck_assert_uint_eq(s.id[2], CK_FAMILY + 1);
	ck_assert(!readable(ctx));
	/* the context stays with its instance until reconnected */
	ck_assert_int_eq(pcierr_family_id(ctx), CK_FAMILY);
	pcierr_ctx_free(ctx);
}
END_TEST

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waiting for an operation ends when the family goes away: its OP_DONE
 * would never come. One that completed before is still found. */
START_TEST(test_family_op_wait)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct seen s = {};
	struct dgram d = {};
	int64_t t0;

	dg_add(&d, ck_build_op_done(6, PCIERR_CMD_RESET));
	dg_add(&d, ck_build_event(1));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", CK_FAMILY));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);

	t0 = mono_ms();
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 10000, &done), -ENOTCONN);
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, -1, &done), -ENOTCONN);
	ck_assert_int_lt(mono_ms() - t0, 5000);
	ck_assert_int_eq(pcierr_op_wait(ctx, 6, 10000, &done), 0);
	ck_assert_uint_eq(done.op_id, 6);
	pcierr_op_done_clear(&done);

	/* the rest stays queued, the removal included */
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 2);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_EVENT);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_FAMILY_REMOVED);
	/* and waiting still fails, delivered or not */
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, -1, &done), -ENOTCONN);
	/* a detached context cannot reconnect */
	ck_assert_int_eq(pcierr_ctx_reconnect(ctx), -ENOTCONN);
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 0, &done), -ENOTCONN);
	pcierr_ctx_free(ctx);
}
END_TEST

/* The removal of another instance than the context's (an older one,
 * announced late) is reported but does not cut the context off; the
 * addition of the very instance it is connected to (the module loaded
 * on demand while connecting) is not reported. */
START_TEST(test_family_other_instance)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct seen s = {};
	struct dgram d = {};

	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWFAMILY, "pcierr", CK_FAMILY));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", CK_FAMILY - 1));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWFAMILY, "pcierr", CK_FAMILY + 1));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 20, &done), -ETIMEDOUT);
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 2);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_FAMILY_REMOVED);
	ck_assert_uint_eq(s.id[0], CK_FAMILY - 1);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_FAMILY_ADDED);
	ck_assert_uint_eq(s.id[1], CK_FAMILY + 1);
	pcierr_ctx_free(ctx);
}
END_TEST

/* Removed and added again under the same id (the kernel may reuse it):
 * both reported, the context stays cut off until reconnected. */
START_TEST(test_family_same_id)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct seen s = {};
	struct dgram d = {};

	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", CK_FAMILY));
	dg_add(&d, ck_build_ctrl(CTRL_CMD_NEWFAMILY, "pcierr", CK_FAMILY));
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 10000, &done), -ENOTCONN);
	ck_assert_int_eq(pcierr_event_read(ctx, record, &s), 2);
	ck_assert_int_eq(s.type[0], PCIERR_NOTIFY_FAMILY_REMOVED);
	ck_assert_uint_eq(s.id[0], CK_FAMILY);
	ck_assert_int_eq(s.type[1], PCIERR_NOTIFY_FAMILY_ADDED);
	ck_assert_uint_eq(s.id[1], CK_FAMILY);
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 0, &done), -ENOTCONN);
	pcierr_ctx_free(ctx);
}
END_TEST

/* A malformed controller message about a family may have been ours:
 * reported as lost (BAD_MESSAGE), never silently dropped. */
START_TEST(test_family_bad_message)
{
	static const struct ck_override no_id = OV_OMIT(0, CTRL_ATTR_FAMILY_ID);
	struct pcierr_ctx *ctx = detached();
	struct pcierr_op_done done;
	struct reason r = {};
	struct dgram d = {};

	ck_ov = &no_id;
	dg_add(&d, ck_build_ctrl(CTRL_CMD_DELFAMILY, "pcierr", CK_FAMILY));
	ck_ov = NULL;
	ck_assert_int_eq(pcierr_ev_process(ctx, d.buf, d.len), 0);
	/* (not known to be ours: no cut-off) */
	ck_assert_int_eq(pcierr_op_wait(ctx, 7, 0, &done), -ETIMEDOUT);
	ck_assert_int_eq(pcierr_event_read(ctx, get_reason, &r), 1);
	ck_assert_int_eq(r.reason, PCIERR_OVERFLOW_BAD_MESSAGE);
	pcierr_ctx_free(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */

/* A detached context has no request socket: a request that gets past
 * the argument checks fails with -ENOTCONN; bad arguments fail first. */
enum call { C_INJECT, C_REPORT, C_RESET, C_ENABLE_IO, C_REMOVE, C_RESCAN, C_DISABLE, C_ENABLE,
	    C_WATCH, C_PE_GET, C_PE_BY_DEV, C_IOCHK };

static const struct {
	enum call call;
	const char *addr;
	int a, b;
	int expected;
	bool zero_id;		/* name PE id 0: always refused */
} calls[] = {
	{ C_INJECT, "01:00.0", PCIERR_STATE_FROZEN, 0, -ENOTCONN, false },
	{ C_INJECT, "0000:01:00.0", PCIERR_STATE_UNSPEC, 0, -ENOTCONN, false },
	{ C_INJECT, "0000:01:00.0", PCIERR_STATE_PERM_FAILURE, 0, -ENOTCONN, false },
	{ C_INJECT, "0000:01:00.0", PCIERR_STATE_NORMAL, 0, -EINVAL, false },
	{ C_INJECT, "0000:01:00.0", 99, 0, -EINVAL, false },
	{ C_INJECT, "0000:01:00", PCIERR_STATE_FROZEN, 0, -EINVAL, false },
	{ C_INJECT, NULL, PCIERR_STATE_FROZEN, 0, -EINVAL, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_ERROR_DETECTED, 0, -ENOTCONN, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_ERROR_DETECTED, PCIERR_STATE_PERM_FAILURE, -ENOTCONN, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_ERROR_DETECTED, 77, -EINVAL, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_RESUME, 77, -ENOTCONN, false },	/* state ignored */
	{ C_REPORT, "00:02.0", PCIERR_STEP_PERM_FAILURE, 0, -ENOTCONN, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_UNSPEC, 0, -EINVAL, false },
	{ C_REPORT, "00:02.0", PCIERR_STEP_MAX + 1, 0, -EINVAL, false },
	{ C_REPORT, "00:02.0x", PCIERR_STEP_RESUME, 0, -EINVAL, false },
	{ C_RESET, "00:02.0", PCIERR_RESET_HOT, 0, -ENOTCONN, false },
	{ C_RESET, "00:02.0", PCIERR_RESET_FUNDAMENTAL, 0, -ENOTCONN, false },
	{ C_RESET, "00:02.0", PCIERR_RESET_UNSPEC, 0, -EINVAL, false },
	{ C_RESET, "00:02.0", PCIERR_RESET_MAX + 1, 0, -EINVAL, false },
	{ C_ENABLE_IO, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_ENABLE_IO, "", 0, 0, -EINVAL, false },
	{ C_REMOVE, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_REMOVE, "bogus", 0, 0, -EINVAL, false },
	{ C_RESCAN, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_RESCAN, NULL, 0, 0, -EINVAL, false },
	{ C_DISABLE, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_DISABLE, "00:02.8", 0, 0, -EINVAL, false },
	{ C_ENABLE, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_ENABLE, "00:20.0", 0, 0, -EINVAL, false },
	{ C_WATCH, "00:02.0", 100, 0, -ENOTCONN, false },
	{ C_WATCH, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_WATCH, "0000:00:02.0:", 100, 0, -EINVAL, false },
	{ C_PE_GET, "00:02.0", 0, 0, -ENOTCONN, false },
	{ C_PE_GET, "00:02", 0, 0, -EINVAL, false },
	{ C_PE_BY_DEV, "01:00.0", 0, 0, -ENOTCONN, false },
	{ C_PE_BY_DEV, "01:00.0.0", 0, 0, -EINVAL, false },
	{ C_IOCHK, "01:00.0", 0, 0, -ENOTCONN, false },
	{ C_IOCHK, "01:00", 0, 0, -EINVAL, false },
	/* v2: every command that changes state names a PE id, never 0 */
	{ C_INJECT, "01:00.0", PCIERR_STATE_FROZEN, 0, -EINVAL, true },
	{ C_REPORT, "00:02.0", PCIERR_STEP_RESUME, 0, -EINVAL, true },
	{ C_RESET, "00:02.0", PCIERR_RESET_HOT, 0, -EINVAL, true },
	{ C_ENABLE_IO, "00:02.0", 0, 0, -EINVAL, true },
	{ C_REMOVE, "00:02.0", 0, 0, -EINVAL, true },
	{ C_RESCAN, "00:02.0", 0, 0, -EINVAL, true },
	{ C_DISABLE, "00:02.0", 0, 0, -EINVAL, true },
	{ C_ENABLE, "00:02.0", 0, 0, -EINVAL, true },
	{ C_WATCH, "00:02.0", 100, 0, -EINVAL, true },
	/* the watchdog's interval: 0 (off) or PCIERR_WATCH_MIN_MS..MAX_MS */
	{ C_WATCH, "00:02.0", PCIERR_WATCH_MIN_MS, 0, -ENOTCONN, false },
	{ C_WATCH, "00:02.0", PCIERR_WATCH_MAX_MS, 0, -ENOTCONN, false },
	{ C_WATCH, "00:02.0", PCIERR_WATCH_MIN_MS - 1, 0, -EINVAL, false },
	{ C_WATCH, "00:02.0", PCIERR_WATCH_MAX_MS + 1, 0, -EINVAL, false },
};

START_TEST(test_calls)
{
	struct pcierr_ctx *ctx = detached();
	const char *addr = calls[_i].addr;
	int a = calls[_i].a, b = calls[_i].b, r;
	uint64_t id = 12345, pe_id = calls[_i].zero_id ? 0 : 7;
	struct pcierr_pe pe = {};
	struct pcierr_iochk_cookie cookie;

	switch (calls[_i].call) {
	case C_INJECT:    r = pcierr_inject(ctx, addr, pe_id, a, 0, &id); break;
	case C_REPORT:    r = pcierr_report(ctx, addr, pe_id, a, b, &id); break;
	case C_RESET:     r = pcierr_reset(ctx, addr, pe_id, a, &id); break;
	case C_ENABLE_IO: r = pcierr_enable_io(ctx, addr, pe_id, &id); break;
	case C_REMOVE:    r = pcierr_remove(ctx, addr, pe_id, &id); break;
	case C_RESCAN:    r = pcierr_rescan(ctx, addr, pe_id, NULL); break;
	case C_DISABLE:   r = pcierr_disable(ctx, addr, pe_id, &id); break;
	case C_ENABLE:    r = pcierr_enable(ctx, addr, pe_id, &id); break;
	case C_WATCH:     r = pcierr_watch(ctx, addr, pe_id, (uint32_t)a); break;
	case C_PE_GET:    r = pcierr_pe_get(ctx, addr, &pe); break;
	case C_PE_BY_DEV: r = pcierr_pe_get_by_device(ctx, addr, &pe); break;
	default:          r = pcierr_iochk_clear(ctx, addr, &cookie); break;
	}
	ck_assert_int_eq(r, calls[_i].expected);
	ck_assert_uint_eq(id, 12345);		/* untouched on failure */
	ck_assert_ptr_null(pe.devices);
	pcierr_ctx_free(ctx);
}
END_TEST

/* pcierr_remove_device(): both addresses are checked before sending. */
static const struct {
	const char *pe, *dev;
	int expected;
} remove_device_calls[] = {
	{ "0000:05:00.0", "0000:06:02.0", -ENOTCONN },
	{ "05:00.0", "06:02.0", -ENOTCONN },
	{ "05:00.0", "06:02", -EINVAL },
	{ "05:00.0", "", -EINVAL },
	{ "05:00.0", NULL, -EINVAL },
	{ "bogus", "06:02.0", -EINVAL },
	{ NULL, "06:02.0", -EINVAL },
};

START_TEST(test_remove_device)
{
	struct pcierr_ctx *ctx = detached();
	uint64_t id = 12345;

	ck_assert_int_eq(pcierr_remove_device(ctx, remove_device_calls[_i].pe, 9,
					      remove_device_calls[_i].dev, &id),
			 remove_device_calls[_i].expected);
	ck_assert_uint_eq(id, 12345);		/* untouched on failure */
	ck_assert_int_eq(pcierr_remove_device(NULL, "05:00.0", 9, "06:02.0", &id), -EINVAL);
	ck_assert_int_eq(pcierr_remove_device(ctx, "05:00.0", 0, "06:02.0", &id), -EINVAL);
	pcierr_ctx_free(ctx);
}
END_TEST

START_TEST(test_null_args)
{
	struct pcierr_ctx *ctx = detached();
	struct pcierr_pe_list list = {};
	struct pcierr_stats st;
	struct pcierr_iochk_cookie cookie = { "0000:01:00.0", 0 };

	ck_assert_int_eq(pcierr_pe_dump(ctx, &list), -ENOTCONN);
	ck_assert_int_eq(pcierr_pe_dump(NULL, &list), -EINVAL);
	ck_assert_int_eq(pcierr_pe_dump(ctx, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_stats_get(ctx, &st), -ENOTCONN);
	ck_assert_int_eq(pcierr_stats_get(ctx, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_iochk_read(ctx, &cookie), -ENOTCONN);
	ck_assert_int_eq(pcierr_iochk_read(ctx, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_event_read(ctx, NULL, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_event_read(NULL, record, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_op_wait(ctx, 1, 0, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_inject(NULL, "01:00.0", 1, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_report(NULL, "01:00.0", 1, PCIERR_STEP_RESUME, 0, NULL), -EINVAL);
	ck_assert(!pcierr_events_joined(ctx));
	ck_assert(!pcierr_events_joined(NULL));
	ck_assert_ptr_null(pcierr_last_error_message(ctx));
	ck_assert_ptr_null(pcierr_last_error_message(NULL));
	ck_assert_int_eq(pcierr_event_fd(NULL), -EINVAL);
	ck_assert_int_eq(pcierr_ctx_reconnect(NULL), -EINVAL);
	ck_assert_int_eq(pcierr_ctx_reconnect(ctx), -ENOTCONN);
	pcierr_pe_list_clear(&list);
	pcierr_pe_list_clear(NULL);
	pcierr_ctx_free(ctx);
}
END_TEST

Suite *suite_ctx(void)
{
	Suite *s = suite_create("ctx");
	TCase *tc;

	tc = tcase_create("connect");
	tcase_add_test(tc, test_ctx_new_without_module);
	tcase_add_loop_test(tc, test_nle_to_errno, 0, ARRAY_SIZE(nle_map));
	tcase_add_test(tc, test_nle_all);
	suite_add_tcase(s, tc);

	tc = tcase_create("queue");
	tcase_add_test(tc, test_queue_op_wait);
	tcase_add_test(tc, test_queue_op_wait_timeout);
	tcase_add_test(tc, test_queue_stop);
	tcase_add_test(tc, test_queue_bad_message);
	tcase_add_test(tc, test_queue_truncated_datagram);
	tcase_add_test(tc, test_queue_many);
	suite_add_tcase(s, tc);

	tc = tcase_create("family");
	tcase_add_test(tc, test_family_queue);
	tcase_add_test(tc, test_family_op_wait);
	tcase_add_test(tc, test_family_other_instance);
	tcase_add_test(tc, test_family_same_id);
	tcase_add_test(tc, test_family_bad_message);
	suite_add_tcase(s, tc);

	tc = tcase_create("arguments");
	tcase_add_loop_test(tc, test_calls, 0, ARRAY_SIZE(calls));
	tcase_add_loop_test(tc, test_remove_device, 0, ARRAY_SIZE(remove_device_calls));
	tcase_add_test(tc, test_null_args);
	suite_add_tcase(s, tc);
	return s;
}

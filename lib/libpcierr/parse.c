// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpcierr: parsing what the kernel sends.
 *
 * Attributes are checked strictly against the ABI (exact lengths for
 * integers, NUL-terminated strings of bounded length, enum values in
 * range, required attributes present, no trailing garbage); attributes
 * unknown to this version are ignored, as the ABI is append-only. An enum
 * value above this header's _MAX (a newer module's) is carried as is:
 * never a dropped notification or a failed dump (the names functions
 * return NULL for it, "unknown"). Only 0 (_UNSPEC, never sent) is
 * refused. Any violation is -EBADMSG. These functions never print.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "macros.h"
#include "pcierr-internal.h"

/* Longest driver name accepted (with its NUL); the kernel's are short. */
#define DRIVER_NAME_MAX 256
/* Largest errno the kernel can report (MAX_ERRNO) */
#define KERNEL_MAX_ERRNO 4095

enum kind {
	K_NONE = 0,	/* not in the ABI (or unknown): ignored */
	K_U16,
	K_U32,
	K_U64,
	K_STR,		/* NUL-terminated, at most .max bytes with the NUL */
	K_NEST,
	K_PAD,		/* u64 alignment padding: ignored */
	K_BIN,		/* bytes, at most .max */
};

struct spec {
	uint8_t kind;
	uint16_t max;
};

static const struct spec pe_attrs[__PCIERR_A_MAX] = {
	[PCIERR_A_PE]			= { K_STR, PCIERR_ADDR_MAX },
	[PCIERR_A_DEVICE]		= { K_STR, PCIERR_ADDR_MAX },
	[PCIERR_A_PE_STATE]		= { K_U32 },
	[PCIERR_A_PE_FLAGS]		= { K_U32 },
	[PCIERR_A_RESET_TYPES]		= { K_U32 },
	[PCIERR_A_GENERATION]		= { K_U32 },
	[PCIERR_A_PE_DEVICES]		= { K_NEST },
	[PCIERR_A_STATE]		= { K_U32 },
	[PCIERR_A_TIME_UNAVAIL_MS]	= { K_U32 },
	[PCIERR_A_SOURCE]		= { K_U32 },
	[PCIERR_A_SEQ]			= { K_U64 },
	[PCIERR_A_TIMESTAMP_NS]		= { K_U64 },
	[PCIERR_A_ERROR_GEN]		= { K_U32 },
	[PCIERR_A_STEP]			= { K_U32 },
	[PCIERR_A_RESET_TYPE]		= { K_U32 },
	[PCIERR_A_OP_ID]		= { K_U64 },
	[PCIERR_A_OP]			= { K_U32 },
	[PCIERR_A_RESULT]		= { K_U32 },
	[PCIERR_A_RESULTS]		= { K_NEST },
	[PCIERR_A_DURATION_NS]		= { K_U64 },
	[PCIERR_A_ERRNO]		= { K_U32 },
	[PCIERR_A_DROPPED]		= { K_U64 },
	[PCIERR_A_STATS]		= { K_NEST },
	[PCIERR_A_WATCH_INTERVAL_MS]	= { K_U32 },
	[PCIERR_A_PAD]			= { K_PAD },
	[PCIERR_A_PE_ID]		= { K_U64 },
	[PCIERR_A_LAST_OP]		= { K_NEST },
	[PCIERR_A_BACKEND]		= { K_U32 },
	[PCIERR_A_ERROR_DETAIL]		= { K_BIN, PCIERR_DETAIL_MAX },
	[PCIERR_A_ERROR_DETAIL_STATUS]	= { K_U32 },
	[PCIERR_A_ERROR_DETAIL_SEVERITY] = { K_U32 },
	[PCIERR_A_RECOVER_STEPS]	= { K_NEST },
	[PCIERR_A_RECOVER_STOP]		= { K_U32 },
	[PCIERR_A_AUTO_BUDGET]		= { K_U32 },
	[PCIERR_A_AUTO_OP_ID]		= { K_U64 },
	[PCIERR_A_START_NS]		= { K_U64 },
	[PCIERR_A_HOLD_MS]		= { K_U32 },
};

static const struct spec rstep_attrs[__PCIERR_RSTEP_A_MAX] = {
	[PCIERR_RSTEP_A_OP]		= { K_U32 },
	[PCIERR_RSTEP_A_STEP]		= { K_U32 },
	[PCIERR_RSTEP_A_RESULT]		= { K_U32 },
	[PCIERR_RSTEP_A_RESULTS]	= { K_NEST },
	[PCIERR_RSTEP_A_RESET_TYPE]	= { K_U32 },
	[PCIERR_RSTEP_A_ERRNO]		= { K_U32 },
	[PCIERR_RSTEP_A_DURATION_NS]	= { K_U64 },
	[PCIERR_RSTEP_A_PAD]		= { K_PAD },
};

static const struct spec dev_attrs[__PCIERR_DEV_A_MAX] = {
	[PCIERR_DEV_A_ADDR]		= { K_STR, PCIERR_ADDR_MAX },
	[PCIERR_DEV_A_VENDOR]		= { K_U16 },
	[PCIERR_DEV_A_DEVICE]		= { K_U16 },
	[PCIERR_DEV_A_SUBVENDOR]	= { K_U16 },
	[PCIERR_DEV_A_SUBDEVICE]	= { K_U16 },
	[PCIERR_DEV_A_CLASS]		= { K_U32 },
	[PCIERR_DEV_A_DSN]		= { K_U64 },
	[PCIERR_DEV_A_DRIVER]		= { K_STR, DRIVER_NAME_MAX },
	[PCIERR_DEV_A_HANDLERS]		= { K_U32 },
	[PCIERR_DEV_A_STATE]		= { K_U32 },
	[PCIERR_DEV_A_ERROR_GEN]	= { K_U32 },
	[PCIERR_DEV_A_RESULT]		= { K_U32 },
	[PCIERR_DEV_A_FLAGS]		= { K_U32 },
	[PCIERR_DEV_A_PAD]		= { K_PAD },
};

/* the generic netlink controller's family messages: only what we use */
static const struct spec ctrl_attrs[CTRL_ATTR_FAMILY_NAME + 1] = {
	[CTRL_ATTR_FAMILY_ID]		= { K_U16 },
	[CTRL_ATTR_FAMILY_NAME]		= { K_STR, GENL_NAMSIZ },
};

static const struct spec errmsg_attrs[NLMSGERR_ATTR_MAX + 1] = {
	[NLMSGERR_ATTR_MSG]		= { K_STR, 0xffff },
};

/*
 * Parse a stream of attributes into tb[0..n-1] (tb[type] = the last one of
 * that type), checking each against spec[type]; types >= n or without a
 * spec are ignored.
 */
static int attrs_parse(const void *head, size_t len, const struct spec *spec,
		       size_t n, const struct nlattr **tb)
{
	const struct nlattr *nla;
	int rem;

	memset(tb, 0, n * sizeof(*tb));
	if (len > INT32_MAX)
		return -EBADMSG;

	nla_for_each_attr(nla, (struct nlattr *)head, (int)len, rem) {
		unsigned type = (unsigned)nla_type(nla);
		size_t alen = (size_t)nla_len(nla);
		const char *s;

		if (type == 0 || type >= n)
			continue;
		switch (spec[type].kind) {
		case K_NONE:
		case K_PAD:
			continue;
		case K_U16:
			if (alen != sizeof(uint16_t))
				return -EBADMSG;
			break;
		case K_U32:
			if (alen != sizeof(uint32_t))
				return -EBADMSG;
			break;
		case K_U64:
			if (alen != sizeof(uint64_t))
				return -EBADMSG;
			break;
		case K_STR:
			s = nla_data(nla);
			if (alen < 1 || alen > spec[type].max || s[alen - 1] != 0)
				return -EBADMSG;
			/* no NUL inside either: one string, all of it */
			if (strlen(s) != alen - 1)
				return -EBADMSG;
			break;
		case K_NEST:
			break;
		case K_BIN:
			if (alen > spec[type].max)
				return -EBADMSG;
			break;
		default:
			return -EBADMSG;
		}
		tb[type] = nla;
	}
	/* Leftover bytes: a truncated or garbled attribute. (rem < 0 only
	 * if the last attribute lacks its alignment padding: harmless.) */
	if (rem > 0)
		return -EBADMSG;
	return 0;
}

int pcierr_msg_genl(const struct nlmsghdr *nlh, size_t len, const struct genlmsghdr **ret)
{
	if (!nlh || len < NLMSG_HDRLEN)
		return -EBADMSG;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || nlh->nlmsg_len > len)
		return -EBADMSG;
	*ret = (const struct genlmsghdr *)((const char *)nlh + NLMSG_HDRLEN);
	return 0;
}

static int genl_attrs(const struct nlmsghdr *nlh, size_t len, uint8_t *ret_cmd,
		      const struct spec *spec, size_t n, const struct nlattr **tb)
{
	const struct genlmsghdr *g;
	int r;

	r = pcierr_msg_genl(nlh, len, &g);
	if (r < 0)
		return r;
	if (ret_cmd)
		*ret_cmd = g->cmd;
	return attrs_parse((const char *)g + GENL_HDRLEN,
			   nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, spec, n, tb);
}

/*
 * An enum attribute: required or not, value not 0. A value above max is
 * a newer module's: carried, never refused (forward compatibility); max
 * only documents which enum is meant.
 */
static int get_enum(const struct nlattr *nla, bool required, uint32_t max, uint32_t *ret)
{
	uint32_t v;

	(void)max;
	if (!nla) {
		*ret = 0;
		return required ? -EBADMSG : 0;
	}
	v = nla_get_u32((struct nlattr *)nla);
	if (v == 0)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int get_addr(const struct nlattr *nla, bool required, char out[PCIERR_ADDR_STRLEN])
{
	if (!nla) {
		out[0] = 0;
		return required ? -EBADMSG : 0;
	}
	if (pcierr_addr_normalize(nla_data(nla), out) < 0)
		return -EBADMSG;
	return 0;
}

static uint32_t opt_u32(const struct nlattr *nla)
{
	return nla ? nla_get_u32((struct nlattr *)nla) : 0;
}

static uint64_t opt_u64(const struct nlattr *nla)
{
	return nla ? nla_get_u64((struct nlattr *)nla) : 0;
}

static uint16_t opt_u16(const struct nlattr *nla)
{
	return nla ? nla_get_u16((struct nlattr *)nla) : 0;
}

#define NEST_FOREACH(pos, nest, rem)					\
	nla_for_each_attr(pos, (struct nlattr *)nla_data(nest), nla_len(nest), rem)

/* ------------------------------------------------------------------ */

static int parse_detail(const struct nlattr **tb, struct pcierr_error_detail *d)
{
	uint32_t v;
	int r;

	if (!tb[PCIERR_A_ERROR_DETAIL_SEVERITY])
		return 0;
	r = get_enum(tb[PCIERR_A_ERROR_DETAIL_SEVERITY], true,
		     PCIERR_DETAIL_SEVERITY_MAX, &v);
	if (r < 0)
		return r;
	d->severity = v;
	d->status = (int32_t)opt_u32(tb[PCIERR_A_ERROR_DETAIL_STATUS]);
	if (tb[PCIERR_A_ERROR_DETAIL]) {
		d->len = nla_len(tb[PCIERR_A_ERROR_DETAIL]);
		memcpy(d->data, nla_data(tb[PCIERR_A_ERROR_DETAIL]), d->len);
	}
	return 0;
}

static int parse_event(const struct nlattr **tb, struct pcierr_event *e)
{
	uint32_t v;
	int r;

	if (!tb[PCIERR_A_SEQ])
		return -EBADMSG;
	e->seq = opt_u64(tb[PCIERR_A_SEQ]);
	if (!tb[PCIERR_A_PE_ID] || !(e->pe_id = opt_u64(tb[PCIERR_A_PE_ID])))
		return -EBADMSG;
	r = get_addr(tb[PCIERR_A_PE], true, e->pe);
	if (r < 0)
		return r;
	r = get_addr(tb[PCIERR_A_DEVICE], true, e->dev);
	if (r < 0)
		return r;
	r = get_enum(tb[PCIERR_A_STATE], true, PCIERR_STATE_MAX, &v);
	if (r < 0)
		return r;
	e->state = v;
	r = get_enum(tb[PCIERR_A_SOURCE], true, PCIERR_SOURCE_MAX, &v);
	if (r < 0)
		return r;
	e->source = v;
	e->time_unavail_ms = opt_u32(tb[PCIERR_A_TIME_UNAVAIL_MS]);
	e->timestamp_ns = opt_u64(tb[PCIERR_A_TIMESTAMP_NS]);
	e->error_gen = opt_u32(tb[PCIERR_A_ERROR_GEN]);
	e->auto_op_id = opt_u64(tb[PCIERR_A_AUTO_OP_ID]);
	return parse_detail(tb, &e->detail);
}

static int parse_result_list(const struct nlattr *nest, struct pcierr_dev_result **ret,
			     size_t *ret_n)
{
	const struct nlattr *dtb[__PCIERR_DEV_A_MAX];
	const struct nlattr *pos;
	size_t n = 0, i = 0;
	int rem, r;

	/* count first; also catches garbage at the end of the nest */
	NEST_FOREACH(pos, nest, rem)
		if (nla_type(pos) == PCIERR_A_RESULTS_ENTRY)
			n++;
	if (rem > 0)
		return -EBADMSG;
	if (n == 0)
		return 0;

	*ret = calloc(n, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;

	NEST_FOREACH(pos, nest, rem) {
		struct pcierr_dev_result *res = &(*ret)[i];
		uint32_t v;

		if (nla_type(pos) != PCIERR_A_RESULTS_ENTRY)
			continue;
		r = attrs_parse(nla_data(pos), (size_t)nla_len(pos), dev_attrs,
				ELEMENTSOF(dev_attrs), dtb);
		if (r < 0)
			return r;
		r = get_addr(dtb[PCIERR_DEV_A_ADDR], true, res->addr);
		if (r < 0)
			return r;
		r = get_enum(dtb[PCIERR_DEV_A_RESULT], true, PCIERR_RESULT_MAX, &v);
		if (r < 0)
			return r;
		res->result = v;
		*ret_n = ++i;
	}
	return 0;
}

static int parse_results(const struct nlattr *nest, struct pcierr_op_done *d)
{
	return parse_result_list(nest, &d->results, &d->n_results);
}

/* One PCIERR_A_RECOVER_STEPS_ENTRY */
static int parse_recover_step(const struct nlattr *entry, struct pcierr_recover_step *st)
{
	const struct nlattr *tb[__PCIERR_RSTEP_A_MAX];
	uint32_t v;
	int r;

	r = attrs_parse(nla_data(entry), (size_t)nla_len(entry), rstep_attrs,
			ELEMENTSOF(rstep_attrs), tb);
	if (r < 0)
		return r;
	if (!tb[PCIERR_RSTEP_A_ERRNO])
		return -EBADMSG;
	/* a step this version does not know: carried */
	r = get_enum(tb[PCIERR_RSTEP_A_OP], true, PCIERR_CMD_MAX, &v);
	if (r < 0)
		return r;
	st->op = v;
	v = opt_u32(tb[PCIERR_RSTEP_A_ERRNO]);
	if (v > KERNEL_MAX_ERRNO)
		return -EBADMSG;
	st->error = (int)v;
	st->duration_ns = opt_u64(tb[PCIERR_RSTEP_A_DURATION_NS]);
	if (st->op == PCIERR_CMD_REPORT) {
		r = get_enum(tb[PCIERR_RSTEP_A_STEP], true, PCIERR_STEP_MAX, &v);
		if (r < 0)
			return r;
		st->step = v;
		r = get_enum(tb[PCIERR_RSTEP_A_RESULT], true, PCIERR_RESULT_MAX, &v);
		if (r < 0)
			return r;
		st->result = v;
	}
	r = get_enum(tb[PCIERR_RSTEP_A_RESET_TYPE], st->op == PCIERR_CMD_RESET,
		     PCIERR_RESET_MAX, &v);
	if (r < 0)
		return r;
	st->reset_type = v;
	if (tb[PCIERR_RSTEP_A_RESULTS])
		return parse_result_list(tb[PCIERR_RSTEP_A_RESULTS], &st->results,
					 &st->n_results);
	return 0;
}

/* PCIERR_A_RECOVER_STOP and PCIERR_A_RECOVER_STEPS (both required) */
static int parse_recover_steps(const struct nlattr **tb, struct pcierr_recover_done *d)
{
	const struct nlattr *pos;
	size_t n = 0;
	uint32_t v;
	int rem, r;

	r = get_enum(tb[PCIERR_A_RECOVER_STOP], true, PCIERR_RECOVER_STOP_MAX, &v);
	if (r < 0)
		return r;
	d->stop = v;
	if (!tb[PCIERR_A_RECOVER_STEPS])
		return -EBADMSG;
	NEST_FOREACH(pos, tb[PCIERR_A_RECOVER_STEPS], rem)
		if (nla_type(pos) == PCIERR_A_RECOVER_STEPS_ENTRY)
			n++;
	if (rem > 0)
		return -EBADMSG;
	if (n == 0)
		return 0;
	d->steps = calloc(n, sizeof(*d->steps));
	if (!d->steps)
		return -ENOMEM;
	NEST_FOREACH(pos, tb[PCIERR_A_RECOVER_STEPS], rem) {
		if (nla_type(pos) != PCIERR_A_RECOVER_STEPS_ENTRY)
			continue;
		/* counted first so that clear() frees its results */
		d->n_steps++;
		r = parse_recover_step(pos, &d->steps[d->n_steps - 1]);
		if (r < 0)
			return r;
	}
	return 0;
}

_public_ void pcierr_recover_done_clear(struct pcierr_recover_done *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_steps; i++)
		free(d->steps[i].results);
	free(d->steps);
	*d = (struct pcierr_recover_done) {};
}

/* errno, state, duration and steps: in an OP_DONE and in a LAST_OP nest */
static int parse_recover_outcome(const struct nlattr **tb, struct pcierr_recover_done *d)
{
	uint32_t v;
	int r;

	if (!tb[PCIERR_A_OP_ID] || !tb[PCIERR_A_ERRNO])
		return -EBADMSG;
	d->op_id = opt_u64(tb[PCIERR_A_OP_ID]);
	v = opt_u32(tb[PCIERR_A_ERRNO]);
	if (v > KERNEL_MAX_ERRNO)
		return -EBADMSG;
	d->error = (int)v;
	r = get_enum(tb[PCIERR_A_PE_STATE], false, PCIERR_PE_STATE_MAX, &v);
	if (r < 0)
		return r;
	d->pe_state = v;
	d->duration_ns = opt_u64(tb[PCIERR_A_DURATION_NS]);
	d->start_ns = opt_u64(tb[PCIERR_A_START_NS]);
	return parse_recover_steps(tb, d);
}

/* the OP_DONE of a RECOVER */
static int parse_recover_done(const struct nlattr **tb, struct pcierr_recover_done *d)
{
	int r;

	d->pe_id = opt_u64(tb[PCIERR_A_PE_ID]);
	if (d->pe_id == 0)
		return -EBADMSG;
	r = get_addr(tb[PCIERR_A_PE], true, d->pe);
	if (r < 0)
		return r;
	return parse_recover_outcome(tb, d);
}

static int parse_op_done(const struct nlattr **tb, struct pcierr_op_done *d)
{
	uint32_t v;
	int r;

	if (!tb[PCIERR_A_OP_ID] || !tb[PCIERR_A_OP] || !tb[PCIERR_A_ERRNO])
		return -EBADMSG;
	d->op_id = opt_u64(tb[PCIERR_A_OP_ID]);
	/* a command this version does not know: carried */
	r = get_enum(tb[PCIERR_A_OP], true, PCIERR_CMD_MAX, &v);
	if (r < 0)
		return r;
	d->op = v;
	d->pe_id = opt_u64(tb[PCIERR_A_PE_ID]);
	if (d->pe_id == 0)
		return -EBADMSG;
	r = get_addr(tb[PCIERR_A_PE], true, d->pe);
	if (r < 0)
		return r;
	v = opt_u32(tb[PCIERR_A_ERRNO]);
	if (v > KERNEL_MAX_ERRNO)
		return -EBADMSG;
	d->error = (int)v;
	if (d->op == PCIERR_CMD_REPORT) {
		r = get_enum(tb[PCIERR_A_STEP], true, PCIERR_STEP_MAX, &v);
		if (r < 0)
			return r;
		d->step = v;
		r = get_enum(tb[PCIERR_A_RESULT], true, PCIERR_RESULT_MAX, &v);
		if (r < 0)
			return r;
		d->result = v;
	}
	r = get_enum(tb[PCIERR_A_PE_STATE], false, PCIERR_PE_STATE_MAX, &v);
	if (r < 0)
		return r;
	d->pe_state = v;
	d->duration_ns = opt_u64(tb[PCIERR_A_DURATION_NS]);
	d->start_ns = opt_u64(tb[PCIERR_A_START_NS]);
	r = parse_detail(tb, &d->detail);
	if (r < 0)
		return r;
	if (tb[PCIERR_A_RESULTS])
		return parse_results(tb[PCIERR_A_RESULTS], d);
	return 0;
}

static int parse_overflow(const struct nlattr **tb, struct pcierr_overflow *o)
{
	if (!tb[PCIERR_A_DROPPED] || !tb[PCIERR_A_SEQ])
		return -EBADMSG;
	o->dropped = opt_u64(tb[PCIERR_A_DROPPED]);
	o->next_seq = opt_u64(tb[PCIERR_A_SEQ]);
	o->reason = PCIERR_OVERFLOW_KERNEL;
	return 0;
}

void pcierr_notification_free(struct pcierr_notification *n)
{
	if (!n)
		return;
	if (n->type == PCIERR_NOTIFY_OP_DONE)
		free(n->op_done.results);
	if (n->type == PCIERR_NOTIFY_RECOVER_DONE)
		pcierr_recover_done_clear(&n->recover_done);
	free(n);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct pcierr_notification *, pcierr_notification_free)

int pcierr_parse_notification(const struct nlmsghdr *nlh, size_t len,
			      struct pcierr_notification **ret)
{
	_cleanup_(pcierr_notification_freep) struct pcierr_notification *n = NULL;
	const struct nlattr *tb[__PCIERR_A_MAX];
	uint8_t cmd;
	int r;

	*ret = NULL;
	r = genl_attrs(nlh, len, &cmd, pe_attrs, ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (cmd != PCIERR_CMD_EVENT && cmd != PCIERR_CMD_OP_DONE && cmd != PCIERR_CMD_OVERFLOW)
		return 0;	/* not a notification of ours: ignored */

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	switch (cmd) {
	case PCIERR_CMD_EVENT:
		n->type = PCIERR_NOTIFY_EVENT;
		r = parse_event(tb, &n->event);
		break;
	case PCIERR_CMD_OP_DONE:
		if (tb[PCIERR_A_OP] &&
		    nla_get_u32((struct nlattr *)tb[PCIERR_A_OP]) == PCIERR_CMD_RECOVER) {
			n->type = PCIERR_NOTIFY_RECOVER_DONE;
			r = parse_recover_done(tb, &n->recover_done);
			break;
		}
		n->type = PCIERR_NOTIFY_OP_DONE;
		r = parse_op_done(tb, &n->op_done);
		break;
	default:
		n->type = PCIERR_NOTIFY_OVERFLOW;
		r = parse_overflow(tb, &n->overflow);
		break;
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(n);
	return 0;
}

int pcierr_parse_ctrl(const struct nlmsghdr *nlh, size_t len, struct pcierr_notification **ret)
{
	const struct nlattr *tb[ELEMENTSOF(ctrl_attrs)];
	struct pcierr_notification *n;
	const struct genlmsghdr *g;
	uint16_t id;
	int r;

	*ret = NULL;
	r = pcierr_msg_genl(nlh, len, &g);
	if (r < 0)
		return r;
	if (nlh->nlmsg_type != GENL_ID_CTRL)
		return -EBADMSG;
	if (g->cmd != CTRL_CMD_NEWFAMILY && g->cmd != CTRL_CMD_DELFAMILY)
		return 0;	/* groups, ops, ...: not what we follow */
	r = genl_attrs(nlh, len, NULL, ctrl_attrs, ELEMENTSOF(ctrl_attrs), tb);
	if (r < 0)
		return r;
	if (!tb[CTRL_ATTR_FAMILY_NAME])
		return -EBADMSG;
	if (strcmp(nla_data(tb[CTRL_ATTR_FAMILY_NAME]), PCIERR_GENL_NAME) != 0)
		return 0;	/* another family's */
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	id = nla_get_u16((struct nlattr *)tb[CTRL_ATTR_FAMILY_ID]);
	if (id < GENL_MIN_ID || id == GENL_ID_CTRL || id > GENL_MAX_ID)
		return -EBADMSG;

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->type = g->cmd == CTRL_CMD_DELFAMILY ? PCIERR_NOTIFY_FAMILY_REMOVED
					       : PCIERR_NOTIFY_FAMILY_ADDED;
	n->family.family_id = id;
	*ret = n;
	return 0;
}

/* ------------------------------------------------------------------ */

static int parse_device(const struct nlattr *entry, struct pcierr_device *d)
{
	const struct nlattr *tb[__PCIERR_DEV_A_MAX];
	const char *driver;
	uint32_t v;
	int r;

	r = attrs_parse(nla_data(entry), (size_t)nla_len(entry), dev_attrs,
			ELEMENTSOF(dev_attrs), tb);
	if (r < 0)
		return r;
	r = get_addr(tb[PCIERR_DEV_A_ADDR], true, d->addr);
	if (r < 0)
		return r;
	if (!tb[PCIERR_DEV_A_VENDOR] || !tb[PCIERR_DEV_A_DEVICE])
		return -EBADMSG;
	d->vendor = opt_u16(tb[PCIERR_DEV_A_VENDOR]);
	d->device = opt_u16(tb[PCIERR_DEV_A_DEVICE]);
	d->subvendor = opt_u16(tb[PCIERR_DEV_A_SUBVENDOR]);
	d->subdevice = opt_u16(tb[PCIERR_DEV_A_SUBDEVICE]);
	d->class = opt_u32(tb[PCIERR_DEV_A_CLASS]);
	if (d->class > 0xffffff)
		return -EBADMSG;
	d->has_dsn = !!tb[PCIERR_DEV_A_DSN];
	d->dsn = opt_u64(tb[PCIERR_DEV_A_DSN]);
	d->handlers = opt_u32(tb[PCIERR_DEV_A_HANDLERS]);
	r = get_enum(tb[PCIERR_DEV_A_STATE], true, PCIERR_STATE_MAX, &v);
	if (r < 0)
		return r;
	d->state = v;
	d->error_gen = opt_u32(tb[PCIERR_DEV_A_ERROR_GEN]);
	d->flags = opt_u32(tb[PCIERR_DEV_A_FLAGS]);

	driver = tb[PCIERR_DEV_A_DRIVER] ? nla_data(tb[PCIERR_DEV_A_DRIVER]) : "";
	d->driver = strdup(driver);
	if (!d->driver)
		return -ENOMEM;
	return 0;
}

_public_ void pcierr_pe_clear(struct pcierr_pe *pe)
{
	if (!pe)
		return;
	for (size_t i = 0; i < pe->n_devices; i++)
		free(pe->devices[i].driver);
	free(pe->devices);
	memset(pe, 0, sizeof(*pe));
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct pcierr_pe *, pcierr_pe_clear)

/* PCIERR_A_LAST_OP: the same attributes as an OP_DONE, nested */
static int parse_last_op(const struct nlattr *nest, struct pcierr_last_op *o)
{
	const struct nlattr *tb[__PCIERR_A_MAX];
	uint32_t v;
	int r;

	r = attrs_parse(nla_data(nest), (size_t)nla_len(nest), pe_attrs,
			ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (!tb[PCIERR_A_OP_ID])
		return -EBADMSG;
	o->op_id = opt_u64(tb[PCIERR_A_OP_ID]);
	r = get_enum(tb[PCIERR_A_OP], true, PCIERR_CMD_MAX, &v);
	if (r < 0)
		return r;
	o->op = v;
	r = get_enum(tb[PCIERR_A_STEP], false, PCIERR_STEP_MAX, &v);
	if (r < 0)
		return r;
	o->step = v;
	r = get_enum(tb[PCIERR_A_RESULT], false, PCIERR_RESULT_MAX, &v);
	if (r < 0)
		return r;
	o->result = v;
	o->done = !!tb[PCIERR_A_ERRNO];
	v = opt_u32(tb[PCIERR_A_ERRNO]);
	if (v > KERNEL_MAX_ERRNO)
		return -EBADMSG;
	o->error = (int)v;
	o->duration_ns = opt_u64(tb[PCIERR_A_DURATION_NS]);
	r = get_enum(tb[PCIERR_A_PE_STATE], false, PCIERR_PE_STATE_MAX, &v);
	if (r < 0)
		return r;
	o->pe_state = v;
	return 0;
}

int pcierr_parse_pe(const struct nlmsghdr *nlh, size_t len, struct pcierr_pe *ret)
{
	const struct nlattr *tb[__PCIERR_A_MAX];
	struct pcierr_pe pe = {};
	_cleanup_(pcierr_pe_clearp) struct pcierr_pe *cleanup = &pe;
	const struct nlattr *pos;
	size_t n = 0;
	uint32_t v;
	uint8_t cmd;
	int rem, r;

	r = genl_attrs(nlh, len, &cmd, pe_attrs, ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (cmd != PCIERR_CMD_GET_PE)
		return -EBADMSG;
	r = get_addr(tb[PCIERR_A_PE], true, pe.addr);
	if (r < 0)
		return r;
	pe.id = opt_u64(tb[PCIERR_A_PE_ID]);
	if (pe.id == 0)
		return -EBADMSG;
	if (tb[PCIERR_A_LAST_OP]) {
		r = parse_last_op(tb[PCIERR_A_LAST_OP], &pe.last_op);
		if (r < 0)
			return r;
	}
	r = get_enum(tb[PCIERR_A_PE_STATE], true, PCIERR_PE_STATE_MAX, &v);
	if (r < 0)
		return r;
	pe.state = v;
	pe.flags = opt_u32(tb[PCIERR_A_PE_FLAGS]);
	pe.reset_types = opt_u32(tb[PCIERR_A_RESET_TYPES]);
	pe.generation = opt_u32(tb[PCIERR_A_GENERATION]);
	pe.watch_interval_ms = opt_u32(tb[PCIERR_A_WATCH_INTERVAL_MS]);
	r = get_enum(tb[PCIERR_A_BACKEND], false, PCIERR_BACKEND_MAX, &v);
	if (r < 0)
		return r;
	pe.backend = v;

	if (tb[PCIERR_A_PE_DEVICES]) {
		NEST_FOREACH(pos, tb[PCIERR_A_PE_DEVICES], rem)
			if (nla_type(pos) == PCIERR_A_PE_DEVICES_ENTRY)
				n++;
		if (rem > 0)
			return -EBADMSG;
	}
	if (n > 0) {
		pe.devices = calloc(n, sizeof(*pe.devices));
		if (!pe.devices)
			return -ENOMEM;
		NEST_FOREACH(pos, tb[PCIERR_A_PE_DEVICES], rem) {
			if (nla_type(pos) != PCIERR_A_PE_DEVICES_ENTRY)
				continue;
			/* count it first so that clear() frees its driver */
			pe.n_devices++;
			r = parse_device(pos, &pe.devices[pe.n_devices - 1]);
			if (r < 0)
				return r;
		}
	}
	*ret = pe;
	cleanup = NULL;
	return 0;
}

int pcierr_parse_last_recover(const struct nlmsghdr *nlh, size_t len,
			      struct pcierr_recover_done *ret)
{
	const struct nlattr *tb[__PCIERR_A_MAX], *ltb[__PCIERR_A_MAX];
	struct pcierr_recover_done d = {};
	uint8_t cmd;
	int r;

	r = genl_attrs(nlh, len, &cmd, pe_attrs, ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (cmd != PCIERR_CMD_GET_PE)
		return -EBADMSG;
	if (!tb[PCIERR_A_LAST_OP])
		return -ENOMSG;
	r = attrs_parse(nla_data(tb[PCIERR_A_LAST_OP]), (size_t)nla_len(tb[PCIERR_A_LAST_OP]),
			pe_attrs, ELEMENTSOF(pe_attrs), ltb);
	if (r < 0)
		return r;
	if (!ltb[PCIERR_A_OP_ID] || !ltb[PCIERR_A_OP])
		return -EBADMSG;
	if (opt_u32(ltb[PCIERR_A_OP]) != PCIERR_CMD_RECOVER || !ltb[PCIERR_A_ERRNO])
		return -ENOMSG;
	d.pe_id = opt_u64(tb[PCIERR_A_PE_ID]);
	r = get_addr(tb[PCIERR_A_PE], true, d.pe);
	if (r >= 0)
		r = parse_recover_outcome(ltb, &d);
	if (r < 0) {
		pcierr_recover_done_clear(&d);
		return r;
	}
	*ret = d;
	return 0;
}

int pcierr_parse_stats(const struct nlmsghdr *nlh, size_t len, struct pcierr_stats *ret)
{
	const struct nlattr *tb[__PCIERR_A_MAX];
	const struct nlattr *stb[PCIERR_STATS_CAPACITY];
	struct spec specs[PCIERR_STATS_CAPACITY];
	uint8_t cmd;
	int r;

	r = genl_attrs(nlh, len, &cmd, pe_attrs, ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (cmd != PCIERR_CMD_GET_STATS || !tb[PCIERR_A_STATS])
		return -EBADMSG;

	/* every counter is a u64, also those newer than this header */
	for (size_t i = 0; i < ELEMENTSOF(specs); i++)
		specs[i] = (struct spec) { i == PCIERR_STAT_PAD ? K_PAD : K_U64, 0 };
	r = attrs_parse(nla_data(tb[PCIERR_A_STATS]), (size_t)nla_len(tb[PCIERR_A_STATS]),
			specs, ELEMENTSOF(specs), stb);
	if (r < 0)
		return r;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 1; i < ELEMENTSOF(stb); i++)
		if (i != PCIERR_STAT_PAD)
			ret->counter[i] = opt_u64(stb[i]);
	return 0;
}

int pcierr_parse_u64_reply(const struct nlmsghdr *nlh, size_t len, int attr, uint64_t *ret)
{
	const struct nlattr *tb[__PCIERR_A_MAX];
	int r;

	if (attr <= 0 || attr > PCIERR_A_MAX || pe_attrs[attr].kind != K_U64)
		return -EINVAL;
	r = genl_attrs(nlh, len, NULL, pe_attrs, ELEMENTSOF(pe_attrs), tb);
	if (r < 0)
		return r;
	if (!tb[attr])
		return -EBADMSG;
	*ret = opt_u64(tb[attr]);
	return 0;
}

/* ------------------------------------------------------------------ */

int pcierr_parse_ack(const struct nlmsghdr *nlh, size_t len, int *ret_error,
		     char *msg, size_t msg_size)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const char *payload;
	size_t plen, tlv_off;
	int error;

	if (msg && msg_size)
		msg[0] = 0;
	if (!nlh || len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return -EBADMSG;
	payload = (const char *)nlh + NLMSG_HDRLEN;
	plen = nlh->nlmsg_len - NLMSG_HDRLEN;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = (const struct nlmsgerr *)payload;

		if (plen < sizeof(*e))
			return -EBADMSG;
		error = e->error;
		tlv_off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			/* the whole request is echoed */
			if (e->msg.nlmsg_len < NLMSG_HDRLEN)
				return -EBADMSG;
			tlv_off += e->msg.nlmsg_len - NLMSG_HDRLEN;
		}
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		if (plen < sizeof(int)) {
			error = 0;	/* old kernels: no payload */
			tlv_off = plen;
		} else {
			memcpy(&error, payload, sizeof(error));
			tlv_off = sizeof(int);
		}
	} else {
		return -EBADMSG;
	}
	if (error > 0 || error < -KERNEL_MAX_ERRNO)
		return -EBADMSG;
	*ret_error = error;

	tlv_off = NLMSG_ALIGN(tlv_off);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_off >= plen)
		return 0;
	/* a malformed extack costs the message, not the error code */
	if (attrs_parse(payload + tlv_off, plen - tlv_off, errmsg_attrs,
			ELEMENTSOF(errmsg_attrs), tb) < 0)
		return 0;
	if (tb[NLMSGERR_ATTR_MSG] && msg && msg_size) {
		strncpy(msg, nla_data(tb[NLMSGERR_ATTR_MSG]), msg_size - 1);
		msg[msg_size - 1] = 0;
	}
	return 0;
}

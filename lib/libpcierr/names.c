// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpcierr: name tables and address normalisation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macros.h"
#include "pcierr-internal.h"

static const char *const step_names[__PCIERR_STEP_MAX] = {
	[PCIERR_STEP_ERROR_DETECTED]	= "error_detected",
	[PCIERR_STEP_MMIO_ENABLED]	= "mmio_enabled",
	[PCIERR_STEP_SLOT_RESET]	= "slot_reset",
	[PCIERR_STEP_RESUME]		= "resume",
	[PCIERR_STEP_PERM_FAILURE]	= "perm_failure",
};

static const char *const result_names[__PCIERR_RESULT_MAX] = {
	[PCIERR_RESULT_NONE]		= "none",
	[PCIERR_RESULT_CAN_RECOVER]	= "can_recover",
	[PCIERR_RESULT_NEED_RESET]	= "need_reset",
	[PCIERR_RESULT_DISCONNECT]	= "disconnect",
	[PCIERR_RESULT_RECOVERED]	= "recovered",
	[PCIERR_RESULT_NO_DRIVER]	= "no_driver",
	[PCIERR_RESULT_GONE]		= "gone",
};

static const char *const state_names[__PCIERR_STATE_MAX] = {
	[PCIERR_STATE_NORMAL]		= "normal",
	[PCIERR_STATE_FROZEN]		= "frozen",
	[PCIERR_STATE_PERM_FAILURE]	= "perm_failure",
};

static const char *const pe_state_names[__PCIERR_PE_STATE_MAX] = {
	[PCIERR_PE_STATE_NORMAL]	= "normal",
	[PCIERR_PE_STATE_FROZEN]	= "frozen",
	[PCIERR_PE_STATE_MMIO_ENABLED]	= "mmio_enabled",
	[PCIERR_PE_STATE_RESET]		= "reset",
	[PCIERR_PE_STATE_REMOVED]	= "removed",
	[PCIERR_PE_STATE_DISABLED]	= "disabled",
};

static const char *const source_names[__PCIERR_SOURCE_MAX] = {
	[PCIERR_SOURCE_INJECT]		= "inject",
	[PCIERR_SOURCE_CHECK]		= "check",
	[PCIERR_SOURCE_WATCHDOG]	= "watchdog",
	[PCIERR_SOURCE_DRIVER]		= "driver",
};

static const char *const reset_names[__PCIERR_RESET_MAX] = {
	[PCIERR_RESET_HOT]		= "hot",
	[PCIERR_RESET_FUNDAMENTAL]	= "fundamental",
};

static const char *const handler_names[__PCIERR_HANDLER_MAX] = {
	[PCIERR_HANDLER_ERROR_DETECTED]		= "error_detected",
	[PCIERR_HANDLER_MMIO_ENABLED]		= "mmio_enabled",
	[PCIERR_HANDLER_SLOT_RESET]		= "slot_reset",
	[PCIERR_HANDLER_RESUME]			= "resume",
	[PCIERR_HANDLER_RESET_PREPARE]		= "reset_prepare",
	[PCIERR_HANDLER_RESET_DONE]		= "reset_done",
};

/* Only the commands that start an asynchronous operation have a name. */
static const char *const op_names[__PCIERR_CMD_MAX] = {
	[PCIERR_CMD_REPORT]		= "report",
	[PCIERR_CMD_ENABLE_IO]		= "enable_io",
	[PCIERR_CMD_RESET]		= "reset",
	[PCIERR_CMD_REMOVE]		= "remove",
	[PCIERR_CMD_RESCAN]		= "rescan",
	[PCIERR_CMD_DISABLE]		= "disable",
	[PCIERR_CMD_ENABLE]		= "enable",
	[PCIERR_CMD_RECOVER]		= "recover",
	[PCIERR_CMD_OWNER_RECOVER]	= "owner_recover",
};

static const char *const recover_stop_names[__PCIERR_RECOVER_STOP_MAX] = {
	[PCIERR_RECOVER_STOP_RECOVERED]		= "recovered",
	[PCIERR_RECOVER_STOP_DISCONNECT]	= "disconnect",
	[PCIERR_RECOVER_STOP_NO_HANDLER]	= "no_handler",
	[PCIERR_RECOVER_STOP_GONE]		= "gone",
	[PCIERR_RECOVER_STOP_NOT_RECOVERED]	= "not_recovered",
	[PCIERR_RECOVER_STOP_FAILED]		= "failed",
	[PCIERR_RECOVER_STOP_FROZEN_AGAIN]	= "frozen_again",
};

static const char *const stat_names[__PCIERR_STAT_MAX] = {
	[PCIERR_STAT_CHECKS]		= "checks",
	[PCIERR_STAT_ALL_ONES]		= "all_ones",
	[PCIERR_STAT_FALSE_POSITIVES]	= "false_positives",
	[PCIERR_STAT_IGNORED]		= "ignored",
	[PCIERR_STAT_FREEZES]		= "freezes",
	[PCIERR_STAT_EVENTS_SENT]	= "events_sent",
	[PCIERR_STAT_EVENTS_DROPPED]	= "events_dropped",
	[PCIERR_STAT_RESETS]		= "resets",
	[PCIERR_STAT_HOTPLUGS]		= "hotplugs",
	[PCIERR_STAT_OPS]		= "ops",
	[PCIERR_STAT_OPS_FAILED]	= "ops_failed",
	[PCIERR_STAT_LOAD_ID]		= "load_id",
};

_Static_assert(__PCIERR_STAT_MAX <= PCIERR_STATS_CAPACITY, "stats capacity");
_Static_assert(__PCIERR_HANDLER_MAX <= 32, "handler bits fit a u32");

static const char *table_to_string(const char *const *table, size_t n, unsigned v)
{
	if (v >= n)
		return NULL;
	return table[v];
}

static int table_from_string(const char *const *table, size_t n, const char *s)
{
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (table[i] && strcmp(table[i], s) == 0)
			return (int)i;
	return -EINVAL;
}

#define DEFINE_NAMES(name, type, table)						\
	_public_ const char *pcierr_##name##_to_string(type v)			\
	{									\
		return table_to_string(table, ELEMENTSOF(table), (unsigned)v);	\
	}									\
	_public_ int pcierr_##name##_from_string(const char *s)			\
	{									\
		return table_from_string(table, ELEMENTSOF(table), s);		\
	}

DEFINE_NAMES(step, enum pcierr_step, step_names)
DEFINE_NAMES(result, enum pcierr_result, result_names)
DEFINE_NAMES(state, enum pcierr_channel_state, state_names)
DEFINE_NAMES(pe_state, enum pcierr_pe_state, pe_state_names)
DEFINE_NAMES(source, enum pcierr_source, source_names)
DEFINE_NAMES(reset_type, enum pcierr_reset_type, reset_names)
DEFINE_NAMES(handler, enum pcierr_handler, handler_names)
DEFINE_NAMES(op, enum pcierr_cmd, op_names)
DEFINE_NAMES(stat, enum pcierr_stat, stat_names)
DEFINE_NAMES(recover_stop, enum pcierr_recover_stop, recover_stop_names)

_public_ int pcierr_handlers_to_string(uint32_t handlers, char *buf, size_t size)
{
	size_t len = 0;
	uint32_t unknown = 0;
	int r;

	if (!buf || size == 0)
		return -ENOBUFS;
	buf[0] = 0;

	for (unsigned i = 0; i < 32; i++) {
		const char *name;

		if (!(handlers & (1U << i)))
			continue;
		name = i < ELEMENTSOF(handler_names) ? handler_names[i] : NULL;
		if (!name) {
			unknown |= 1U << i;
			continue;
		}
		r = snprintf(buf + len, size - len, "%s%s", len ? "," : "", name);
		if (r < 0 || (size_t)r >= size - len)
			return -ENOBUFS;
		len += (size_t)r;
	}
	if (unknown) {
		r = snprintf(buf + len, size - len, "%s0x%x", len ? "," : "", unknown);
		if (r < 0 || (size_t)r >= size - len)
			return -ENOBUFS;
		len += (size_t)r;
	}
	return (int)len;
}

/* exactly min..max hex digits at *p, stopping at anything else */
static int hex_field(const char **p, unsigned min, unsigned max, uint32_t *ret)
{
	uint32_t v = 0;
	unsigned n = 0;
	int d;

	while ((d = unhexchar((*p)[n])) >= 0) {
		if (++n > max)
			return -EINVAL;
		v = v << 4 | (uint32_t)d;
	}
	if (n < min)
		return -EINVAL;
	*p += n;
	*ret = v;
	return 0;
}

_public_ int pcierr_addr_normalize(const char *in, char out[PCIERR_ADDR_STRLEN])
{
	uint32_t a, b, domain = 0, bus, dev, fn;
	const char *p = in;
	int r;

	if (!in || !out)
		return -EINVAL;

	r = hex_field(&p, 1, 8, &a);
	if (r < 0 || *p++ != ':')
		return -EINVAL;
	r = hex_field(&p, 2, 2, &b);
	if (r < 0)
		return -EINVAL;
	if (*p == ':') {		/* DDDD:BB:DD.F */
		p++;
		domain = a;
		bus = b;
		r = hex_field(&p, 2, 2, &dev);
		if (r < 0)
			return -EINVAL;
	} else {			/* BB:DD.F */
		if (p - in != 5)	/* "BB:DD" exactly */
			return -EINVAL;
		bus = a;
		dev = b;
	}
	if (*p++ != '.')
		return -EINVAL;
	r = hex_field(&p, 1, 1, &fn);
	if (r < 0 || *p != 0)
		return -EINVAL;
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;

	snprintf(out, PCIERR_ADDR_STRLEN, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
	return 0;
}

/* struct pcierr_notification keeps the size LIBPCIERR_2.0 gave it */
_Static_assert(sizeof(struct pcierr_recover_done) <= sizeof(struct pcierr_op_done),
	       "the notification union does not grow");
_Static_assert(sizeof(struct pcierr_event) <= sizeof(struct pcierr_op_done),
	       "the notification union does not grow (LIBPCIERR_2.2's auto_op_id)");

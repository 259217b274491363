/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * org.pcierr1.Manager at /org/pcierr1 (docs/dbus.md): configuration,
 * counters, the methods and the signals; and bus_setup(), which puts the
 * whole tree (manager, object manager, slots, devices) on the bus.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "bus.h"
#include "state-writer.h"
#include "bus-polkit.h"
#include "bus-util.h"
#include "recovery.h"

#ifndef PCIERR_VERSION
#define PCIERR_VERSION "0.1"
#endif

static int property_get_version(sd_bus *bus, const char *path,
				const char *interface, const char *property,
				sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	return sd_bus_message_append(reply, "s", PCIERR_VERSION);
}

/* an unsigned int of seconds at the offset, as µs */
static int property_get_sec_as_usec(sd_bus *bus, const char *path,
				    const char *interface,
				    const char *property,
				    sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	uint64_t usec = (uint64_t)*(const unsigned int *)userdata *
			PCIERR_USEC_PER_SEC;

	return sd_bus_message_append_basic(reply, 't', &usec);
}

static int method_inject(sd_bus_message *message, void *userdata,
			 sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *addr, *state_str;
	char norm[PCIERR_ADDR_MAX], msg[256] = "", q[BUS_QUOTE_BYTES + 4];
	enum pcierr_channel_state state;
	uint32_t ms;
	uint64_t seq = 0;
	int r;

	r = sd_bus_message_read(message, "ssu", &addr, &state_str, &ms);
	if (r < 0)
		return r;
	r = bus_parse_address(addr, norm, error);
	if (r < 0)
		return r;
	if (bus_isempty(state_str) || strcmp(state_str, "frozen") == 0)
		state = PCIERR_STATE_FROZEN;
	else if (strcmp(state_str, "perm_failure") == 0)
		state = PCIERR_STATE_PERM_FAILURE;
	else
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid state '%s': expected 'frozen' or 'perm_failure'",
					 bus_quote(state_str, q));

	r = bus_verify_polkit_async(message, PCIERR_POLKIT_INJECT,
				    POLKIT_DETAILS("address", norm, "verb", "inject"), error);
	if (r != 0)
		return r;

	r = manager_inject(m, norm, state, ms, &seq, msg, sizeof(msg));
	if (r < 0)
		return bus_error_from_errno(error, r, msg, norm);
	return sd_bus_reply_method_return(message, "t", seq);
}

static int method_reset(sd_bus_message *message, void *userdata,
			sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *addr, *type_str;
	char norm[PCIERR_ADDR_MAX], msg[256] = "", q[BUS_QUOTE_BYTES + 4];
	enum pcierr_reset_type type;
	uint64_t id = 0;
	int r;

	r = sd_bus_message_read(message, "ss", &addr, &type_str);
	if (r < 0)
		return r;
	r = bus_parse_address(addr, norm, error);
	if (r < 0)
		return r;
	if (bus_isempty(type_str))
		type = PCIERR_RESET_HOT;
	else {
		r = pcierr_reset_type_from_string(type_str);
		if (r <= 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "Invalid reset type '%s': expected 'hot' or 'fundamental'",
						 bus_quote(type_str, q));
		type = (enum pcierr_reset_type)r;
	}

	r = bus_verify_polkit_async(message, PCIERR_POLKIT_RESET,
				    POLKIT_DETAILS("address", norm, "verb", "reset"), error);
	if (r != 0)
		return r;

	r = recovery_reset(m, norm, type, &id, msg, sizeof(msg));
	if (r < 0)
		return bus_error_from_errno(error, r, msg, norm);
	return sd_bus_reply_method_return(message, "t", id);
}

static int writer_hold_reply(struct manager *m, sd_bus_message *call);

typedef int (*address_method_fn)(struct manager *m, const char *addr,
				 char *msg, size_t msg_size);

static int method_on_address(sd_bus_message *message, struct manager *m,
			     const char *action, const char *verb,
			     address_method_fn fn, sd_bus_error *error)
{
	const char *addr;
	char norm[PCIERR_ADDR_MAX], msg[256] = "";
	int r;

	r = sd_bus_message_read(message, "s", &addr);
	if (r < 0)
		return r;
	r = bus_parse_address(addr, norm, error);
	if (r < 0)
		return r;

	r = bus_verify_polkit_async(message, action,
				    POLKIT_DETAILS("address", norm, "verb", verb), error);
	if (r != 0)
		return r;

	r = fn(m, norm, msg, sizeof(msg));
	if (r < 0)
		return bus_error_from_errno(error, r, msg, norm);
	if (writer_hold_reply(m, message) > 0)
		return 1;
	return sd_bus_reply_method_return(message, NULL);
}

static int method_enable(sd_bus_message *message, void *userdata,
			 sd_bus_error *error)
{
	return method_on_address(message, userdata, PCIERR_POLKIT_ENABLE, "enable",
				 recovery_enable, error);
}

static int method_clear_freeze_count(sd_bus_message *message, void *userdata,
				     sd_bus_error *error)
{
	return method_on_address(message, userdata, PCIERR_POLKIT_CLEAR_FREEZE_COUNT,
				 "clear-freeze-count", manager_clear_freeze_count, error);
}

/* GetDevice and GetSlot: the object path of what the address names */
static int reply_object_of(sd_bus_message *message, struct manager *m, bool slot,
			   sd_bus_error *error)
{
	_cleanup_free_ char *tmp = NULL;
	char norm[PCIERR_ADDR_MAX];
	const char *addr, *p;
	int r;

	r = sd_bus_message_read(message, "s", &addr);
	if (r < 0)
		return r;
	r = bus_parse_address(addr, norm, error);
	if (r < 0)
		return r;
	if (slot) {
		struct slot *s = manager_find_slot_for(m, norm);

		if (!s)
			return sd_bus_error_setf(error, PCIERR_BUS_ERROR_NO_SUCH_DEVICE,
						 "No PCI slot or device '%s'", norm);
		p = bus_slot_object_path(s, &tmp);
	} else {
		struct device *d = manager_find_device(m, norm);

		if (!d)
			return sd_bus_error_setf(error, PCIERR_BUS_ERROR_NO_SUCH_DEVICE,
						 "No PCI device '%s'", norm);
		p = bus_device_object_path(d, &tmp);
	}
	if (!p)
		return -ENOMEM;
	return sd_bus_reply_method_return(message, "o", p);
}

static int method_get_device(sd_bus_message *message, void *userdata,
			     sd_bus_error *error)
{
	return reply_object_of(message, userdata, false, error);
}

static int method_get_slot(sd_bus_message *message, void *userdata,
			   sd_bus_error *error)
{
	return reply_object_of(message, userdata, true, error);
}

/* GetHistory: entries of one query, to be merged */
struct history_list {
	struct pcierr_history_entry *e;
	size_t n;
};

static void history_list_done(struct history_list *l)
{
	pcierr_history_free(l->e, l->n);
	l->e = NULL;
	l->n = 0;
}

/* (time, id) order, as the state store gives them */
static int history_cmp(const struct pcierr_history_entry *a,
		       const struct pcierr_history_entry *b)
{
	if (a->time_usec != b->time_usec)
		return a->time_usec < b->time_usec ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

static int append_history_entry(sd_bus_message *reply,
				const struct pcierr_history_entry *e)
{
	return sd_bus_message_append(reply, "(tsssssstis)",
				     (uint64_t)e->time_usec,
				     bus_strempty(e->pe),
				     bus_strempty(e->device),
				     bus_strempty(pcierr_history_kind_to_string(e->kind)),
				     bus_strempty(e->step),
				     bus_strempty(e->result),
				     bus_strempty(e->results),
				     (uint64_t)e->duration_usec,
				     (int32_t)e->error,
				     bus_strempty(e->message));
}

/*
 * GetHistory shows what is queued for the state writer, so it waits for
 * the writer, at most bus_history_wait_usec (250 ms); but never on the loop (issue 11
 * point 3: under a flood of GetHistory calls during recoveries, each
 * blocked the loop until the writer's commit, and the writer thread is
 * niced): the call is held, and dispatched again (as bus-polkit.c does)
 * when the writer's eventfd says the batch is in, or at its deadline. At
 * most HISTORY_WAITS_MAX are held; past that a call reads what is
 * committed.
 */
uint64_t bus_history_wait_usec = 250 * 1000;
#define HISTORY_WAITS_MAX	64

struct history_wait {
	struct history_wait *next;
	sd_bus_message *call;		/* referenced */
	sd_event_source *timer;		/* the deadline */
	uint64_t target;		/* the writer's jobs queued at the call */
	bool released;			/* dispatched again: go on */
	bool reply;			/* done already: only its empty reply waits
					 * (writer_hold_reply()) */
};

static struct history_wait *history_waits;
static unsigned int n_history_waits;
static sd_event_source *writer_source;

static void history_wait_free(struct history_wait *w)
{
	sd_event_source_disable_unref(w->timer);
	sd_bus_message_unref(w->call);
	free(w);
	n_history_waits--;
}

static struct history_wait *history_wait_take(sd_bus_message *call)
{
	for (struct history_wait **p = &history_waits; *p; p = &(*p)->next)
		if ((*p)->call == call && (*p)->released) {
			struct history_wait *w = *p;

			*p = w->next;
			return w;
		}
	return NULL;
}

static void history_release(struct history_wait *w)
{
	sd_bus *bus = sd_bus_message_get_bus(w->call);
	int r;

	if (w->released)
		return;
	w->released = true;
	w->timer = sd_event_source_disable_unref(w->timer);
	if (w->reply) {
		sd_bus_message *call = sd_bus_message_ref(w->call);

		w = history_wait_take(call);
		if (w)
			history_wait_free(w);
		(void)sd_bus_reply_method_return(call, NULL);
		sd_bus_message_unref(call);
		return;
	}
	r = sd_bus_message_rewind(w->call, true);
	if (r >= 0)
		r = sd_bus_enqueue_for_read(bus, w->call);
	if (r < 0) {
		sd_bus_message *call = sd_bus_message_ref(w->call);

		w = history_wait_take(call);
		if (w)
			history_wait_free(w);
		(void)sd_bus_reply_method_errno(call, r, NULL);
		sd_bus_message_unref(call);
	}
}

static int on_writer_done(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	eventfd_t v;

	(void)eventfd_read(fd, &v);
	for (struct history_wait *w = history_waits, *next; w; w = next) {
		next = w->next;
		if (!w->released && state_writer_reached(m->writer, w->target))
			history_release(w);
	}
	return 0;
}

static int on_history_deadline(sd_event_source *es, uint64_t usec, void *userdata)
{
	history_release(userdata);
	return 0;
}

/*
 * 0: go on (nothing to wait for, or waited); 1: held, answered later.
 * reply: the call is done; only its (empty) reply waits, at most
 * wait_usec, and is sent then: never dispatched again.
 */
static int writer_wait(struct manager *m, sd_bus_message *call, uint64_t wait_usec, bool reply)
{
	struct history_wait *w = reply ? NULL : history_wait_take(call);
	uint64_t target;
	sd_event *e = sd_bus_get_event(sd_bus_message_get_bus(call));
	int r;

	if (w) {
		history_wait_free(w);
		return 0;
	}
	target = state_writer_target(m->writer);
	if (state_writer_reached(m->writer, target) || !e ||
	    n_history_waits >= HISTORY_WAITS_MAX)
		return 0;
	if (!writer_source) {
		r = sd_event_add_io(e, &writer_source, state_writer_fd(m->writer), EPOLLIN,
				    on_writer_done, m);
		if (r < 0)
			return 0;	/* what is committed, then */
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return 0;
	n_history_waits++;
	w->target = target;
	w->reply = reply;
	r = sd_event_add_time_relative(e, &w->timer, CLOCK_MONOTONIC, wait_usec, 1000,
				       on_history_deadline, w);
	if (r < 0) {
		free(w);
		n_history_waits--;
		return 0;
	}
	w->call = sd_bus_message_ref(call);
	w->next = history_waits;
	history_waits = w;
	/* committed meanwhile (before the fd was watched)? */
	if (state_writer_reached(m->writer, target))
		history_release(w);
	return 1;
}

static int history_wait(struct manager *m, sd_bus_message *call)
{
	return writer_wait(m, call, bus_history_wait_usec, false);
}

/*
 * U7: Enable and ClearFreezeCount answer once what they queued is
 * committed (a client that reads the store next sees it), at most
 * bus_written_wait_usec; the loop goes on meanwhile. 1: the reply waits;
 * 0: send it now.
 */
uint64_t bus_written_wait_usec = 2 * 1000 * 1000;

static int writer_hold_reply(struct manager *m, sd_bus_message *call)
{
	if (!m->writer)
		return 0;
	return writer_wait(m, call, bus_written_wait_usec, true);
}

void bus_manager_flush(void)
{
	while (history_waits) {
		struct history_wait *w = history_waits;

		history_waits = w->next;
		history_wait_free(w);
	}
	writer_source = sd_event_source_disable_unref(writer_source);
}

/*
 * The entries of one address are those of its slot (pe = addr) and those
 * of its device (device = addr): two queries, each with the limit, merged
 * in (time, id) order without duplicates, the newest limit kept.
 */
static int method_get_history(sd_bus_message *message, void *userdata,
			      sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct history_list a = {}, b = {};
	char norm[PCIERR_ADDR_MAX];
	const char *addr;
	uint64_t since;
	uint32_t limit;
	size_t i, j, total, skip;
	int r;

	r = sd_bus_message_read(message, "tsu", &since, &addr, &limit);
	if (r < 0)
		return r;
	if (since > (uint64_t)INT64_MAX)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid since_usec %" PRIu64 ": at most %" PRId64,
					 since, INT64_MAX);
	/* bounded: any local user may ask (review M6) */
	if (limit == 0)
		limit = PCIERR_BUS_HISTORY_DEFAULT;
	limit = MIN(limit, PCIERR_BUS_HISTORY_MAX);
	if (m->writer) {
		/* what is queued shows, unless the disk hangs */
		r = history_wait(m, message);
		if (r != 0)
			return r;
	}
	if (!bus_isempty(addr)) {
		r = bus_parse_address(addr, norm, error);
		if (r < 0)
			return r;
	}

	if (m->state) {
		struct pcierr_history_filter f = {
			.since_usec = since,
			.limit = limit,
		};

		if (bus_isempty(addr)) {
			r = pcierr_state_get_history(m->state, &f, &a.e, &a.n);
		} else {
			f.pe = norm;
			r = pcierr_state_get_history(m->state, &f, &a.e, &a.n);
			if (r >= 0) {
				f.pe = NULL;
				f.device = norm;
				r = pcierr_state_get_history(m->state, &f,
							     &b.e, &b.n);
			}
		}
		if (r < 0) {
			r = sd_bus_error_setf(error, PCIERR_BUS_ERROR_FAILED,
					      "Cannot read the history: %s",
					      strerror(-r));
			goto finish;
		}
	}

	r = sd_bus_message_new_method_return(message, &reply);
	if (r < 0)
		goto finish;
	r = sd_bus_message_open_container(reply, 'a', "(tsssssstis)");
	if (r < 0)
		goto finish;

	/* merge: count the distinct entries first, to keep the newest limit */
	for (i = 0, j = 0, total = 0; i < a.n || j < b.n; total++) {
		int c = i >= a.n ? 1 : j >= b.n ? -1 : history_cmp(&a.e[i], &b.e[j]);

		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	skip = limit > 0 && total > limit ? total - limit : 0;
	for (i = 0, j = 0; i < a.n || j < b.n; ) {
		int c = i >= a.n ? 1 : j >= b.n ? -1 : history_cmp(&a.e[i], &b.e[j]);
		const struct pcierr_history_entry *e = c <= 0 ? &a.e[i] : &b.e[j];

		if (skip > 0)
			skip--;
		else {
			r = append_history_entry(reply, e);
			if (r < 0)
				goto finish;
		}
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}

	r = sd_bus_message_close_container(reply);
	if (r < 0)
		goto finish;
	r = sd_bus_send(NULL, reply, NULL);
finish:
	history_list_done(&a);
	history_list_done(&b);
	return r;
}

#define EMITS	SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST	SD_BUS_VTABLE_PROPERTY_CONST
#define UNPRIV	SD_BUS_VTABLE_UNPRIVILEGED
#define COUNTER(name, field)						\
	SD_BUS_PROPERTY(name, "t", NULL,				\
			offsetof(struct manager, counters.field), EMITS)

/*
 * Every method is UNPRIVILEGED for sd-bus's own check (which would let
 * any caller of our uid or with CAP_SYS_ADMIN in): the methods that
 * change something authorise the caller themselves, root or through polkit
 * (bus_verify_polkit_async(), bus-polkit.h), the others are for everyone.
 */
const sd_bus_vtable bus_manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", property_get_version, 0, CONST),
	SD_BUS_PROPERTY("MaxFreezes", "u", NULL,
			offsetof(struct manager, config.defaults.max_freezes),
			CONST),
	SD_BUS_PROPERTY("FreezeWindowUSec", "t", property_get_sec_as_usec,
			offsetof(struct manager, config.defaults.freeze_window_sec),
			CONST),
	SD_BUS_PROPERTY("MaxWaitUSec", "t", property_get_sec_as_usec,
			offsetof(struct manager, config.defaults.max_wait_sec),
			CONST),
	SD_BUS_PROPERTY("StepTimeoutUSec", "t", property_get_sec_as_usec,
			offsetof(struct manager, config.defaults.step_timeout_sec),
			CONST),
	SD_BUS_PROPERTY("KernelConnected", "b", bus_property_get_bool,
			offsetof(struct manager, kernel_connected), EMITS),
	COUNTER("EventsReceived", events_received),
	COUNTER("EventsLost", events_lost),
	COUNTER("RecoveriesStarted", recoveries_started),
	COUNTER("RecoveriesSucceeded", recoveries_succeeded),
	COUNTER("RecoveriesFailed", recoveries_failed),
	COUNTER("HotplugFallbacks", hotplug_fallbacks),
	COUNTER("PermanentDisables", permanent_disables),
	COUNTER("Resyncs", resyncs),
	COUNTER("EventsFolded", events_folded),
	SD_BUS_PROPERTY("ResyncFailed", "b", bus_property_get_bool,
			offsetof(struct manager, resync_failed), EMITS),

	SD_BUS_METHOD_WITH_NAMES("Inject", "ssu",
				 SD_BUS_PARAM(address) SD_BUS_PARAM(state)
				 SD_BUS_PARAM(unavailable_ms),
				 "t", SD_BUS_PARAM(seq),
				 method_inject, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("Reset", "ss",
				 SD_BUS_PARAM(address) SD_BUS_PARAM(type),
				 "t", SD_BUS_PARAM(recovery),
				 method_reset, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("Enable", "s", SD_BUS_PARAM(address),
				 "", ,
				 method_enable, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("ClearFreezeCount", "s", SD_BUS_PARAM(address),
				 "", ,
				 method_clear_freeze_count, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("GetDevice", "s", SD_BUS_PARAM(address),
				 "o", SD_BUS_PARAM(device),
				 method_get_device, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("GetSlot", "s", SD_BUS_PARAM(address),
				 "o", SD_BUS_PARAM(slot),
				 method_get_slot, UNPRIV),
	SD_BUS_METHOD_WITH_NAMES("GetHistory", "tsu",
				 SD_BUS_PARAM(since_usec) SD_BUS_PARAM(address)
				 SD_BUS_PARAM(limit),
				 "a(tsssssstis)", SD_BUS_PARAM(entries),
				 method_get_history, UNPRIV),
	/* bus-status.c */
	SD_BUS_METHOD_WITH_NAMES("GetStatus", "", ,
				 "a" BUS_STATUS_SLOT_SIG "a" BUS_STATUS_DEVICE_SIG,
				 SD_BUS_PARAM(slots) SD_BUS_PARAM(devices),
				 bus_method_get_status, UNPRIV),

	SD_BUS_SIGNAL_WITH_NAMES("ErrorDetected", "sssus",
				 SD_BUS_PARAM(slot) SD_BUS_PARAM(device)
				 SD_BUS_PARAM(state) SD_BUS_PARAM(unavailable_ms)
				 SD_BUS_PARAM(source), 0),
	/* U9: the recovery's id (Reset returns it) and the slot's object
	 * last, so that a client reading the first arguments reads on */
	SD_BUS_SIGNAL_WITH_NAMES("RecoveryStarted", "ssto",
				 SD_BUS_PARAM(slot) SD_BUS_PARAM(mode)
				 SD_BUS_PARAM(recovery) SD_BUS_PARAM(slot_path), 0),
	SD_BUS_SIGNAL_WITH_NAMES("RecoveryStep", "ssstto",
				 SD_BUS_PARAM(slot) SD_BUS_PARAM(step)
				 SD_BUS_PARAM(result) SD_BUS_PARAM(duration_usec)
				 SD_BUS_PARAM(recovery) SD_BUS_PARAM(slot_path), 0),
	SD_BUS_SIGNAL_WITH_NAMES("RecoveryFinished", "sststo",
				 SD_BUS_PARAM(slot) SD_BUS_PARAM(result)
				 SD_BUS_PARAM(duration_usec) SD_BUS_PARAM(reason)
				 SD_BUS_PARAM(recovery) SD_BUS_PARAM(slot_path), 0),
	SD_BUS_SIGNAL_WITH_NAMES("PermanentlyDisabled", "sss",
				 SD_BUS_PARAM(slot) SD_BUS_PARAM(device)
				 SD_BUS_PARAM(reason), 0),
	SD_BUS_VTABLE_END
};

/*
 * The bus as the manager's observer (observer.h).
 *
 * PropertiesChanged is coalesced (issue 11 point 10): a change marks its
 * object dirty, and one flush at most every BUS_FLUSH_INTERVAL_USEC sends
 * one PropertiesChanged per dirty object with the values of then. An
 * event storm that changes a slot 10,000 times sends a few signals, not
 * 10,000 (each built from every getter, routed by the bus daemon and
 * queued for every subscriber). The order of the world is kept: anything
 * else (InterfacesAdded/Removed, the Manager's signals) flushes what is
 * dirty first, so a client never hears RecoveryFinished before the
 * PropertiesChanged of what came before it.
 */
#define BUS_FLUSH_INTERVAL_USEC	(50 * 1000)

static void changes_flush(struct manager *m)
{
	m->bus_flush_source = sd_event_source_disable_unref(m->bus_flush_source);
	if (m->bus_manager_dirty) {
		m->bus_manager_dirty = false;
		(void)bus_manager_changed(m);
	}
	if (m->bus_objects_dirty) {
		m->bus_objects_dirty = false;
		for (size_t i = 0; i < m->n_slots; i++) {
			struct slot *s = m->slots[i];

			if (s->bus_dirty) {
				s->bus_dirty = false;
				(void)bus_slot_changed(s);
			}
			for (size_t j = 0; j < s->n_devices; j++)
				if (s->devices[j]->bus_dirty) {
					s->devices[j]->bus_dirty = false;
					(void)bus_device_changed(s->devices[j]);
				}
		}
	}
	m->bus_flushed_usec = now_monotonic_usec();
}

static int on_changes_flush(sd_event_source *es, uint64_t usec, void *userdata)
{
	changes_flush(userdata);
	return 0;
}

static void changes_schedule(struct manager *m)
{
	uint64_t now, due;
	int r;

	if (m->bus_flush_source)
		return;
	if (!m->event) {
		changes_flush(m);
		return;
	}
	now = now_monotonic_usec();
	due = m->bus_flushed_usec + BUS_FLUSH_INTERVAL_USEC;
	/* accuracy 1 µs: 0 would be sd-event's default of 250 ms */
	r = sd_event_add_time(m->event, &m->bus_flush_source, CLOCK_MONOTONIC,
			      MAX(now, due), 1, on_changes_flush, m);
	if (r < 0)
		changes_flush(m);	/* at once, then */
}

/* before anything that is not a PropertiesChanged: what came first first */
static void changes_flush_pending(struct manager *m)
{
	if (m && (m->bus_manager_dirty || m->bus_objects_dirty))
		changes_flush(m);
}

static void obs_slot_added(struct slot *s)
{
	changes_flush_pending(s->manager);
	(void)bus_slot_added(s);
}

static void obs_slot_removed(struct slot *s)
{
	changes_flush_pending(s->manager);
	s->bus_dirty = false;
	(void)bus_slot_removed(s);
}

static void obs_slot_changed(struct slot *s)
{
	if (!s->manager)
		return;
	s->bus_dirty = true;
	s->manager->bus_objects_dirty = true;
	changes_schedule(s->manager);
}

static void obs_device_added(struct device *d)
{
	changes_flush_pending(d->manager);
	(void)bus_device_added(d);
}

static void obs_device_removed(struct device *d)
{
	changes_flush_pending(d->manager);
	d->bus_dirty = false;
	(void)bus_device_removed(d);
}

static void obs_device_changed(struct device *d)
{
	if (!d->manager)
		return;
	d->bus_dirty = true;
	d->manager->bus_objects_dirty = true;
	changes_schedule(d->manager);
}

static void obs_manager_changed(struct manager *m)
{
	m->bus_manager_dirty = true;
	changes_schedule(m);
}

static void obs_report(struct manager *m, const struct recovery_report *r)
{
	changes_flush_pending(m);
	switch (r->type) {
	case REPORT_ERROR_DETECTED:
		(void)bus_emit_error_detected(m, r->slot, r->device ?: "", r->state ?: "",
					      r->unavailable_ms, r->source ?: "");
		break;
	case REPORT_STARTED:
		(void)bus_emit_recovery_started(m, r->slot, r->mode ?: "", r->recovery);
		break;
	case REPORT_STEP:
		(void)bus_emit_recovery_step(m, r->slot, r->step ?: "", r->result ?: "",
					     r->duration_usec, r->recovery);
		break;
	case REPORT_FINISHED:
		(void)bus_emit_recovery_finished(m, r->slot, r->result ?: "", r->duration_usec,
						 r->reason ?: "", r->recovery);
		break;
	case REPORT_DISABLED:
		(void)bus_emit_permanently_disabled(m, r->slot, r->device ?: "", r->reason ?: "");
		break;
	}
}

static const struct manager_observer bus_observer = {
	.slot_added = obs_slot_added,
	.slot_removed = obs_slot_removed,
	.slot_changed = obs_slot_changed,
	.device_added = obs_device_added,
	.device_removed = obs_device_removed,
	.device_changed = obs_device_changed,
	.manager_changed = obs_manager_changed,
	.report = obs_report,
};

int bus_setup(struct manager *m)
{
	size_t n = 0;
	int r;

	if (!m || !m->bus)
		return 0;
	r = manager_add_observer(m, &bus_observer);
	if (r < 0)
		return r;

	/* manager, object manager, 2 x (fallback vtable + enumerator) */
	_Static_assert(ELEMENTSOF(m->bus_slots) >= 6, "room for the bus slots");

	r = sd_bus_add_object_vtable(m->bus, &m->bus_slots[n++], PCIERR_BUS_PATH,
				     PCIERR_BUS_MANAGER_IFACE,
				     bus_manager_vtable, m);
	if (r < 0)
		return r;
	r = sd_bus_add_object_manager(m->bus, &m->bus_slots[n++],
				      PCIERR_BUS_PATH);
	if (r < 0)
		return r;
	r = sd_bus_add_fallback_vtable(m->bus, &m->bus_slots[n++],
				       PCIERR_BUS_SLOT_PREFIX,
				       PCIERR_BUS_SLOT_IFACE, bus_slot_vtable,
				       bus_slot_find, m);
	if (r < 0)
		return r;
	r = sd_bus_add_node_enumerator(m->bus, &m->bus_slots[n++],
				       PCIERR_BUS_SLOT_PREFIX,
				       bus_slot_enumerate, m);
	if (r < 0)
		return r;
	r = sd_bus_add_fallback_vtable(m->bus, &m->bus_slots[n++],
				       PCIERR_BUS_DEVICE_PREFIX,
				       PCIERR_BUS_DEVICE_IFACE,
				       bus_device_vtable, bus_device_find, m);
	if (r < 0)
		return r;
	r = sd_bus_add_node_enumerator(m->bus, &m->bus_slots[n++],
				       PCIERR_BUS_DEVICE_PREFIX,
				       bus_device_enumerate, m);
	if (r < 0)
		return r;
	return 0;
}

int bus_request_name(struct manager *m)
{
	if (!m || !m->bus)
		return 0;
	return sd_bus_request_name(m->bus, PCIERR_BUS_NAME, 0);
}

int bus_manager_changed(struct manager *m)
{
	if (!m || !m->bus)
		return 0;
	return sd_bus_emit_properties_changed_strv(m->bus, PCIERR_BUS_PATH,
						   PCIERR_BUS_MANAGER_IFACE,
						   NULL);
}

int bus_emit_error_detected(struct manager *m, const char *slot,
			    const char *device, const char *state,
			    uint32_t time_unavail_ms, const char *source)
{
	if (!m || !m->bus)
		return 0;
	return sd_bus_emit_signal(m->bus, PCIERR_BUS_PATH,
				  PCIERR_BUS_MANAGER_IFACE, "ErrorDetected",
				  "sssus", bus_strempty(slot),
				  bus_strempty(device), bus_strempty(state),
				  time_unavail_ms, bus_strempty(source));
}

int bus_emit_recovery_started(struct manager *m, const char *slot,
			      const char *mode, uint64_t recovery)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (!m || !m->bus)
		return 0;
	r = bus_slot_path(bus_strempty(slot), &path);
	if (r < 0)
		return r;
	return sd_bus_emit_signal(m->bus, PCIERR_BUS_PATH,
				  PCIERR_BUS_MANAGER_IFACE, "RecoveryStarted",
				  "ssto", bus_strempty(slot), bus_strempty(mode), recovery, path);
}

int bus_emit_recovery_step(struct manager *m, const char *slot,
			   const char *step, const char *result,
			   uint64_t duration_usec, uint64_t recovery)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (!m || !m->bus)
		return 0;
	r = bus_slot_path(bus_strempty(slot), &path);
	if (r < 0)
		return r;
	return sd_bus_emit_signal(m->bus, PCIERR_BUS_PATH,
				  PCIERR_BUS_MANAGER_IFACE, "RecoveryStep",
				  "ssstto", bus_strempty(slot),
				  bus_strempty(step), bus_strempty(result),
				  duration_usec, recovery, path);
}

int bus_emit_recovery_finished(struct manager *m, const char *slot,
			       const char *result, uint64_t duration_usec,
			       const char *reason, uint64_t recovery)
{
	_cleanup_free_ char *path = NULL;
	int r;

	if (!m || !m->bus)
		return 0;
	r = bus_slot_path(bus_strempty(slot), &path);
	if (r < 0)
		return r;
	return sd_bus_emit_signal(m->bus, PCIERR_BUS_PATH,
				  PCIERR_BUS_MANAGER_IFACE, "RecoveryFinished",
				  "sststo", bus_strempty(slot),
				  bus_strempty(result), duration_usec,
				  bus_strempty(reason), recovery, path);
}

int bus_emit_permanently_disabled(struct manager *m, const char *slot,
				  const char *device, const char *reason)
{
	if (!m || !m->bus)
		return 0;
	return sd_bus_emit_signal(m->bus, PCIERR_BUS_PATH,
				  PCIERR_BUS_MANAGER_IFACE,
				  "PermanentlyDisabled", "sss",
				  bus_strempty(slot), bus_strempty(device),
				  bus_strempty(reason));
}

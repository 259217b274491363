/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd: polkit authorisation of method calls, asynchronous on sd-bus
 * (see bus-polkit.h). Written for pcierr after the way systemd's services
 * authorise (root first, then CheckAuthorization with the caller's bus
 * name as the subject, the call dispatched again on the answer).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-polkit.h"
#include "bus-util.h"

#define POLKIT_NAME	"org.freedesktop.PolicyKit1"
#define POLKIT_PATH	"/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_IFACE	"org.freedesktop.PolicyKit1.Authority"
#define POLKIT_ALLOW_USER_INTERACTION	1U

#ifndef SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED
#define SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED \
	"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"
#endif

/* what the action does, for the error messages ("Only root may ...") */
static const struct {
	const char *action;
	const char *words;
} action_words[] = {
	{ PCIERR_POLKIT_INJECT, "inject errors" },
	{ PCIERR_POLKIT_RESET, "reset slots" },
	{ PCIERR_POLKIT_ENABLE, "enable slots" },
	{ PCIERR_POLKIT_CLEAR_FREEZE_COUNT, "clear freeze counts" },
};

/*
 * Pending questions are bounded (review U8): a caller that sends calls
 * faster than polkit answers holds one message each here. Past the bound
 * a call is refused at once; the list stays short enough for a linear
 * lookup.
 */
#define QUERIES_MAX		256
#define QUERIES_PER_SENDER	16

struct query {
	struct query *next;
	sd_bus_message *request;	/* the method call, referenced */
	sd_bus_slot *slot;		/* the pending CheckAuthorization */
	const char *action;		/* static */
	bool done;
	int result;			/* 0: authorised, < 0: refused */
	sd_bus_error error;
};

static struct query *queries;
static unsigned int n_queries;

/*
 * polkit found absent (not installed, not running, cannot be started):
 * until then (CLOCK_MONOTONIC, µs) an unprivileged caller is refused at
 * once, root-only, without asking the bus again. A flood of refused calls
 * (issue 11 point 3: 10,000 from uid 65534) then costs one bus round trip
 * per second, not one per call; a polkitd that appears is asked within a
 * second.
 */
#define POLKIT_ABSENT_USEC	(1000 * 1000ULL)
static uint64_t polkit_absent_until;
unsigned int bus_polkit_asked;

static uint64_t now_mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static const char *words_of(const char *action)
{
	for (size_t i = 0; i < ELEMENTSOF(action_words); i++)
		if (strcmp(action_words[i].action, action) == 0)
			return action_words[i].words;
	return action;
}

static void query_free(struct query *q)
{
	if (!q)
		return;
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->request);
	sd_bus_error_free(&q->error);
	free(q);
}

static struct query *query_take(sd_bus_message *call)
{
	for (struct query **p = &queries; *p; p = &(*p)->next)
		if ((*p)->request == call) {
			struct query *q = *p;

			*p = q->next;
			q->next = NULL;
			n_queries--;
			return q;
		}
	return NULL;
}

void bus_polkit_flush(void)
{
	while (queries) {
		struct query *q = queries;

		queries = q->next;
		query_free(q);
	}
	n_queries = 0;
}

static void query_add(struct query *q)
{
	q->next = queries;
	queries = q;
	n_queries++;
}

/* Pending questions for this sender: 0, or -EBUSY past a bound */
static int query_room(sd_bus_message *call)
{
	const char *sender = sd_bus_message_get_sender(call);
	unsigned int mine = 0;

	if (n_queries >= QUERIES_MAX)
		return -EBUSY;
	for (const struct query *q = queries; q; q = q->next) {
		const char *s = sd_bus_message_get_sender(q->request);

		if (sender && s && strcmp(sender, s) == 0 && ++mine >= QUERIES_PER_SENDER)
			return -EBUSY;
	}
	return 0;
}

/*
 * 1 if the sender's effective uid is root's. Only what the bus daemon
 * recorded for the connection counts (SO_PEERCRED when it connected):
 * never creds augmented from /proc, which the caller could race.
 */
static int sender_is_root(sd_bus_message *call)
{
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	uid_t euid;
	int r;

	r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID, &creds);
	if (r < 0)
		return r;
	if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
		return 0;
	r = sd_bus_creds_get_euid(creds, &euid);
	if (r < 0)
		return 0;
	return euid == bus_privileged_uid;
}

/* The root-only fallback, with why polkit could not be asked */
static int refuse_root_only(sd_bus_error *error, const char *action,
			    const char *why)
{
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
				 "Only root may %s. (polkit is not available to authorise others: %s)",
				 words_of(action), why);
}

/* Turn polkit's answer (or error) into q->result and q->error */
static void query_conclude(struct query *q, sd_bus_message *reply)
{
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	const char *words = words_of(q->action);
	int authorized, challenge, r;

	if (e) {
		/* not installed, or cannot be started: root only */
		if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
					   SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
		    (e->name && strncmp(e->name, "org.freedesktop.DBus.Error.Spawn.",
					strlen("org.freedesktop.DBus.Error.Spawn.")) == 0)) {
			q->result = refuse_root_only(&q->error, q->action,
						     "polkitd is not installed or not running");
			polkit_absent_until = now_mono_usec() + POLKIT_ABSENT_USEC;
		} else
			q->result = sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
						      "Could not ask polkit whether you may %s: %s",
						      words, e->message ?: e->name);
		return;
	}

	r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
	if (r < 0) {
		q->result = sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
					      "polkit's answer to whether you may %s is not understood",
					      words);
		return;
	}
	if (authorized)
		q->result = 0;
	else if (challenge)
		q->result = sd_bus_error_setf(&q->error,
					      SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
					      "Authentication is required to %s (polkit action %s).",
					      words, q->action);
	else
		q->result = sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
					      "Not authorised to %s (polkit action %s).",
					      words, q->action);
}

static int on_polkit_reply(sd_bus_message *reply, void *userdata,
			   sd_bus_error *ret_error)
{
	struct query *q = userdata;
	sd_bus *bus = sd_bus_message_get_bus(q->request);
	int r;

	q->slot = sd_bus_slot_unref(q->slot);
	query_conclude(q, reply);
	q->done = true;

	/* the same call again, from the start: its method now gets the answer */
	r = sd_bus_message_rewind(q->request, true);
	if (r >= 0)
		r = sd_bus_enqueue_for_read(bus, q->request);
	if (r < 0) {
		/* cannot dispatch it again: answer it here, refused */
		q = query_take(q->request);
		(void) sd_bus_reply_method_errno(q->request, r, NULL);
		query_free(q);
	}
	return 1;
}

static int new_check_authorization(sd_bus_message *call, const char *action,
				   const char *const *details, sd_bus_message **ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	const char *sender = sd_bus_message_get_sender(call);
	uint32_t flags = 0;
	int r;

	if (!sender)
		return -EBADMSG;
	if (sd_bus_message_get_allow_interactive_authorization(call) > 0)
		flags |= POLKIT_ALLOW_USER_INTERACTION;

	r = sd_bus_message_new_method_call(sd_bus_message_get_bus(call), &m,
					   POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE,
					   "CheckAuthorization");
	if (r < 0)
		return r;
	/* subject: the caller's unique bus name, as polkit knows it best */
	r = sd_bus_message_append(m, "(sa{sv})s", "system-bus-name", 1, "name", "s",
				  sender, action);
	if (r < 0)
		return r;
	/*
	 * details: what the call would act on (the device's address, the
	 * verb), so that a rules file can allow one group one device only
	 * (docs/dbus.md "Authorisation"), as systemd passes "unit" and "verb"
	 */
	r = sd_bus_message_open_container(m, 'a', "{ss}");
	if (r < 0)
		return r;
	for (size_t i = 0; details && details[i] && details[i + 1]; i += 2) {
		r = sd_bus_message_append(m, "{ss}", details[i], details[i + 1]);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(m);
	if (r < 0)
		return r;
	/* flags; no cancellation id */
	r = sd_bus_message_append(m, "us", flags, "");
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int bus_verify_polkit_async(sd_bus_message *call, const char *action,
			    const char *const *details, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *ask = NULL;
	struct query *q;
	int r;

	if (!call || !action)
		return -EINVAL;

	/* called again after the answer? */
	q = query_take(call);
	if (q) {
		if (!q->done) {
			/* dispatched again before the answer: keep waiting */
			query_add(q);
			return 1;
		}
		r = q->result;
		if (r < 0)
			sd_bus_error_copy(error, &q->error);
		query_free(q);
		return r;
	}

	r = sender_is_root(call);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Only root may %s (the caller's user is unknown).",
					 words_of(action));
	if (r > 0)
		return 0;

	if (polkit_absent_until != 0 && now_mono_usec() < polkit_absent_until)
		return refuse_root_only(error, action, "polkitd is not installed or not running");

	if (query_room(call) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					 "Too many calls waiting for polkit's answer; try again when they are answered.");

	r = new_check_authorization(call, action, details, &ask);
	if (r < 0)
		return refuse_root_only(error, action, strerror(-r));

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->action = action;
	q->error = SD_BUS_ERROR_NULL;
	q->request = sd_bus_message_ref(call);
	/* the default timeout (25 s), as systemd's services use */
	r = sd_bus_call_async(sd_bus_message_get_bus(call), &q->slot, ask,
			      on_polkit_reply, q, 0);
	if (r < 0) {
		query_free(q);
		return refuse_root_only(error, action, strerror(-r));
	}
	query_add(q);
	bus_polkit_asked++;
	return 1;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl monitor, and the wait of reset and inject (see ctl-wait.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-event.h>

#include "ctl-bus.h"
#include "ctl-macro.h"
#include "ctl-wait.h"

#define NAME_OWNER_MATCH						\
	"type='signal',sender='org.freedesktop.DBus',"			\
	"path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"	\
	"member='NameOwnerChanged',arg0='" CTL_BUS_NAME "'"

/* after a RecoveryFinished "disabled" without its reason (a pcierrd before
 * U9): how long for its PermanentlyDisabled */
#define DISABLED_REASON_WAIT_USEC	(500 * USEC_PER_MSEC)

static uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

static bool streq_ptr(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int ctl_signal_from_message(sd_bus_message *m, struct ctl_signal *sig, char **tmp)
{
	const char *iface = sd_bus_message_get_interface(m);
	const char *member = sd_bus_message_get_member(m);
	int r = -EINVAL;

	*sig = (struct ctl_signal) {};
	*tmp = NULL;
	if (!iface || !member)
		return -EINVAL;

	if (strcmp(iface, CTL_BUS_MANAGER_IFACE) == 0) {
		if (strcmp(member, "ErrorDetected") == 0) {
			sig->kind = CTL_SIGNAL_ERROR_DETECTED;
			r = sd_bus_message_read(m, "sssus", &sig->slot, &sig->device,
						&sig->state, &sig->unavailable_ms, &sig->source);
		} else if (strcmp(member, "RecoveryStarted") == 0) {
			sig->kind = CTL_SIGNAL_RECOVERY_STARTED;
			r = sd_bus_message_read(m, "ss", &sig->slot, &sig->mode);
		} else if (strcmp(member, "RecoveryStep") == 0) {
			sig->kind = CTL_SIGNAL_RECOVERY_STEP;
			r = sd_bus_message_read(m, "ssst", &sig->slot, &sig->step,
						&sig->result, &sig->duration_usec);
		} else if (strcmp(member, "RecoveryFinished") == 0) {
			sig->kind = CTL_SIGNAL_RECOVERY_FINISHED;
			r = sd_bus_message_read(m, "sst", &sig->slot, &sig->result,
						&sig->duration_usec);
			/* a pcierrd of U9 says why in the same signal; an
			 * older one sends PermanentlyDisabled after it */
			if (r > 0 && sd_bus_message_peek_type(m, NULL, NULL) > 0 &&
			    sd_bus_message_read(m, "s", &sig->reason) < 0)
				sig->reason = NULL;
		} else if (strcmp(member, "PermanentlyDisabled") == 0) {
			sig->kind = CTL_SIGNAL_PERMANENTLY_DISABLED;
			r = sd_bus_message_read(m, "sss", &sig->slot, &sig->device, &sig->reason);
		}
	} else if (strcmp(iface, "org.freedesktop.DBus.ObjectManager") == 0) {
		if (strcmp(member, "InterfacesAdded") == 0)
			sig->kind = CTL_SIGNAL_INTERFACES_ADDED;
		else if (strcmp(member, "InterfacesRemoved") == 0)
			sig->kind = CTL_SIGNAL_INTERFACES_REMOVED;
		else
			return -EINVAL;
		r = sd_bus_message_read(m, "o", &sig->path);
		if (r <= 0)
			return r < 0 ? r : -EINVAL;
		if ((*tmp = ctl_path_to_address(sig->path, CTL_BUS_SLOT_PREFIX)))
			sig->object = "slot";
		else if ((*tmp = ctl_path_to_address(sig->path, CTL_BUS_DEVICE_PREFIX)))
			sig->object = "device";
		else
			return -EINVAL;	/* not one of ours */
		sig->address = *tmp;
	} else if (strcmp(iface, "org.freedesktop.DBus") == 0 &&
		   strcmp(member, "NameOwnerChanged") == 0) {
		const char *name, *old_owner, *new_owner;

		sig->kind = CTL_SIGNAL_NAME_OWNER_CHANGED;
		r = sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner);
		if (r > 0 && strcmp(name, CTL_BUS_NAME) != 0)
			return -EINVAL;
		sig->running = r > 0 && new_owner && *new_owner;
	}
	if (r == 0)
		return -EINVAL;
	return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ */
/* monitor                                                             */
/* ------------------------------------------------------------------ */

struct monitor {
	const struct ctl_style *st;
	bool json;
};

static int on_monitor_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct monitor *mon = userdata;
	_cleanup_free_ char *tmp = NULL;
	struct ctl_signal sig;

	if (ctl_signal_from_message(m, &sig, &tmp) < 0)
		return 0;
	sig.time_usec = now_usec(CLOCK_REALTIME);
	if (mon->json)
		ctl_json_signal(stdout, &sig);
	else
		ctl_render_signal(stdout, mon->st, &sig);
	fflush(stdout);
	return 0;
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si,
			  void *userdata)
{
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int block_exit_signals(sigset_t *old)
{
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &ss, old) < 0)
		return -errno;
	/* an ignored signal never reaches the signalfd (a job started in the
	 * background by a script inherits SIGINT ignored): take them */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return 0;
}

int ctl_monitor(sd_bus *bus, const struct ctl_style *st, bool json, bool legend)
{
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *m1 = NULL, *m2 = NULL, *m3 = NULL, *f = NULL;
	_cleanup_(sd_event_unrefp) sd_event *e = NULL;
	struct monitor mon = { .st = st, .json = json };
	sigset_t old;
	int r;

	r = sd_bus_match_signal(bus, &m1, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
				NULL, on_monitor_signal, &mon);
	if (r >= 0)
		r = sd_bus_match_signal(bus, &m2, CTL_BUS_NAME, CTL_BUS_PATH,
					"org.freedesktop.DBus.ObjectManager", NULL,
					on_monitor_signal, &mon);
	if (r >= 0)
		r = sd_bus_add_match(bus, &m3, NAME_OWNER_MATCH, on_monitor_signal, &mon);
	/* the bus going away ends the monitor, with an error (L1) */
	if (r >= 0)
		r = sd_bus_add_filter(bus, &f, ctl_on_bus_disconnected, &e);
	if (r < 0) {
		log_error("Failed to subscribe to the signals of pcierrd: %s", strerror(-r));
		return r;
	}

	if (legend && !json) {
		_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *c = NULL;

		fprintf(stderr, "Following the signals of pcierrd%s; Ctrl-C stops.\n",
			sd_bus_get_name_creds(bus, CTL_BUS_NAME, 0, &c) < 0 ?
			" (not running now)" : "");
	}

	r = block_exit_signals(&old);
	if (r < 0)
		return r;
	r = sd_event_default(&e);
	if (r >= 0)
		r = sd_event_add_signal(e, NULL, SIGINT, on_exit_signal, NULL);
	if (r >= 0)
		r = sd_event_add_signal(e, NULL, SIGTERM, on_exit_signal, NULL);
	if (r >= 0)
		r = sd_bus_attach_event(bus, e, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0)
		r = sd_event_loop(e);
	if (r < 0 && r != -ECONNRESET)	/* that one is said already */
		log_error("Failed to follow the signals: %s", strerror(-r));
	sd_bus_detach_event(bus);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ */
/* The wait of reset and inject                                        */
/* ------------------------------------------------------------------ */

struct ctl_wait {
	sd_bus *bus;
	sd_event *event;
	char *slot;
	const struct ctl_style *st;
	bool show;
	sd_bus_slot *match_manager;
	sd_bus_slot *match_owner;
	sd_bus_slot *filter;
	bool begun;			/* an ErrorDetected/RecoveryStarted of the slot came */
	bool finished;
	bool stopped;			/* pcierrd left the bus */
	bool timed_out;
	char *result;
	uint64_t duration_usec;
	struct ctl_step *steps;
	size_t n_steps;
	char *reason;
};

struct ctl_wait *ctl_wait_free(struct ctl_wait *w)
{
	if (!w)
		return NULL;
	sd_bus_slot_unref(w->match_manager);
	sd_bus_slot_unref(w->match_owner);
	sd_bus_slot_unref(w->filter);
	sd_event_unref(w->event);
	free(w->slot);
	free(w->result);
	for (size_t i = 0; i < w->n_steps; i++) {
		free(w->steps[i].step);
		free(w->steps[i].result);
	}
	free(w->steps);
	free(w->reason);
	free(w);
	return NULL;
}

static void wait_done(struct ctl_wait *w)
{
	if (w->event)
		sd_event_exit(w->event, 0);
}

static int add_step(struct ctl_wait *w, const char *step, const char *result, uint64_t usec)
{
	struct ctl_step *s = realloc(w->steps, (w->n_steps + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	w->steps = s;
	s = &w->steps[w->n_steps];
	*s = (struct ctl_step) { .step = strdup(step), .result = strdup(result),
				 .duration_usec = usec };
	if (!s->step || !s->result) {
		free(s->step);
		free(s->result);
		return -ENOMEM;
	}
	w->n_steps++;
	return 0;
}

static void clear_steps(struct ctl_wait *w)
{
	for (size_t i = 0; i < w->n_steps; i++) {
		free(w->steps[i].step);
		free(w->steps[i].result);
	}
	w->n_steps = 0;
}

static int on_wait_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct ctl_wait *w = userdata;
	_cleanup_free_ char *tmp = NULL;
	struct ctl_signal sig;

	if (ctl_signal_from_message(m, &sig, &tmp) < 0)
		return 0;
	if (sig.kind == CTL_SIGNAL_NAME_OWNER_CHANGED) {
		if (!sig.running) {
			w->stopped = true;
			wait_done(w);
		}
		return 0;
	}
	if (!streq_ptr(sig.slot, w->slot))
		return 0;
	/* the end of a recovery older than ours is none of ours */
	if (!w->begun && sig.kind != CTL_SIGNAL_ERROR_DETECTED &&
	    sig.kind != CTL_SIGNAL_RECOVERY_STARTED)
		return 0;
	if (w->finished && sig.kind != CTL_SIGNAL_PERMANENTLY_DISABLED)
		return 0;
	if (w->show) {
		ctl_render_signal(stdout, w->st, &sig);
		fflush(stdout);
	}

	switch (sig.kind) {
	case CTL_SIGNAL_ERROR_DETECTED:
	case CTL_SIGNAL_RECOVERY_STARTED:
		if (!w->begun)
			clear_steps(w);
		w->begun = true;
		break;
	case CTL_SIGNAL_RECOVERY_STEP:
		if (add_step(w, sig.step ? sig.step : "", sig.result ? sig.result : "",
			     sig.duration_usec) < 0)
			return -ENOMEM;
		break;
	case CTL_SIGNAL_RECOVERY_FINISHED:
		w->finished = true;
		free(w->result);
		w->result = strdup(sig.result ? sig.result : "");
		if (!w->result)
			return -ENOMEM;
		w->duration_usec = sig.duration_usec;
		if (sig.reason && *sig.reason && strcmp(w->result, "disabled") == 0) {
			/* the reason in the signal itself (U9) */
			free(w->reason);
			w->reason = strdup(sig.reason);
			if (!w->reason)
				return -ENOMEM;
		}
		/* an older pcierrd sends a disabled slot's reason next: wait
		 * for it a little */
		if (strcmp(w->result, "disabled") != 0 || w->reason)
			wait_done(w);
		else if (w->event)
			sd_event_add_time_relative(w->event, NULL, CLOCK_MONOTONIC,
						   DISABLED_REASON_WAIT_USEC, 0, NULL, NULL);
		break;
	case CTL_SIGNAL_PERMANENTLY_DISABLED:
		free(w->reason);
		w->reason = strdup(sig.reason ? sig.reason : "");
		if (!w->reason)
			return -ENOMEM;
		if (w->finished)
			wait_done(w);
		break;
	default:
		break;
	}
	return 0;
}

int ctl_wait_new(sd_bus *bus, const char *slot, const struct ctl_style *st, bool show,
		 struct ctl_wait **ret)
{
	struct ctl_wait *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->bus = bus;
	w->st = st;
	w->show = show;
	w->slot = strdup(slot);
	if (!w->slot) {
		ctl_wait_free(w);
		return -ENOMEM;
	}
	/* synchronous AddMatch: in force before the method is called */
	r = sd_bus_match_signal(bus, &w->match_manager, CTL_BUS_NAME, CTL_BUS_PATH,
				CTL_BUS_MANAGER_IFACE, NULL, on_wait_signal, w);
	if (r >= 0)
		r = sd_bus_add_match(bus, &w->match_owner, NAME_OWNER_MATCH, on_wait_signal, w);
	if (r >= 0)
		r = sd_bus_add_filter(bus, &w->filter, ctl_on_bus_disconnected, &w->event);
	if (r < 0) {
		log_error("Failed to subscribe to the signals of pcierrd: %s", strerror(-r));
		ctl_wait_free(w);
		return r;
	}
	*ret = w;
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct ctl_wait *w = userdata;

	w->timed_out = true;
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

int ctl_wait_run(struct ctl_wait *w, uint64_t timeout_usec)
{
	sigset_t old;
	int r;

	/* the signals may have come with the method's reply already */
	if (w->finished && (w->reason || !streq_ptr(w->result, "disabled")))
		return 0;

	r = block_exit_signals(&old);
	if (r < 0)
		return r;
	r = sd_event_new(&w->event);
	if (r >= 0 && timeout_usec > 0 && timeout_usec != UINT64_MAX)
		r = sd_event_add_time_relative(w->event, NULL, CLOCK_MONOTONIC, timeout_usec,
					       0, on_timeout, w);
	if (r >= 0)
		r = sd_event_add_signal(w->event, NULL, SIGINT, on_exit_signal, NULL);
	if (r >= 0)
		r = sd_event_add_signal(w->event, NULL, SIGTERM, on_exit_signal, NULL);
	if (r >= 0)
		r = sd_bus_attach_event(w->bus, w->event, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0 && w->finished)
		/* only the reason of a disabled slot is missing */
		r = sd_event_add_time_relative(w->event, NULL, CLOCK_MONOTONIC,
					       DISABLED_REASON_WAIT_USEC, 0, NULL, NULL);
	if (r >= 0)
		r = sd_event_loop(w->event);
	sd_bus_detach_event(w->bus);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r == -ECONNRESET)
		return r;		/* said by ctl_on_bus_disconnected() */
	if (r < 0) {
		log_error("Failed to wait for the recovery: %s", strerror(-r));
		return r;
	}
	if (w->finished)
		return 0;
	if (w->stopped)
		return -ESHUTDOWN;
	if (w->timed_out)
		return -ETIMEDOUT;
	return -EINTR;
}

void ctl_wait_recovery(const struct ctl_wait *w, struct ctl_recovery *ret)
{
	*ret = (struct ctl_recovery) {
		.slot = w->slot,
		.result = w->finished ? w->result : NULL,
		.has_duration = w->finished,
		.duration_usec = w->duration_usec,
		.steps = w->steps,
		.n_steps = w->n_steps,
		.reason = w->reason,
	};
}

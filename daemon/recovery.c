// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recovery of one slot at a time, every slot on its own: each input (a
 * freeze, an AER uevent, an OP_DONE, a timer, udev done removing) goes
 * through pcierr_policy_step() and its action is carried out at once.
 *
 * Act first, persist after (issue 10 point 2, review H2): between a
 * detection and the command the policy asks for, only the policy runs:
 * the slot is known from the model (no GET_PE, no sysfs probe, no write).
 * The policy's effects update the model in memory before the command;
 * the journal entry, the D-Bus signals, the state writes (queued to the
 * writer thread, state-writer.h) and the metrics fan out after it. The
 * slot is refreshed from the shim afterwards (a deferred refresh) --
 * except after a REMOVE, RESCAN, DISABLE or ENABLE, whose next decision
 * needs the new device list.
 *
 * No wait without an end (H1): a command's step timeout asks the kernel
 * where the PE is; an operation the shim no longer runs goes on as if it
 * failed (a synthetic OP_DONE with ETIMEDOUT, step result "timeout"); one
 * it still runs is asked after again, at growing intervals.
 *
 * A shim command that fails at once comes back as the OP_DONE of that
 * command with the error, so the policy sees one kind of answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hold.h"
#include "aer-stats.h"
#include "log.h"
#include "recovery.h"
#include "state-writer.h"
#include "verify-slot.h"
#include "../kernel/pcierr_shim/pseries-rtas.h"

/* a resync saw the operation over: its OP_DONE may still be queued on
 * our socket; ask the kernel once more after this */
#define OP_LOST_GRACE_USEC	(1 * PCIERR_USEC_PER_SEC)
/* an operation the kernel still runs after its timeout: asked after again
 * at StepTimeoutSec, doubled each time, at most this */
#define OP_RECHECK_MAX_USEC	(300 * PCIERR_USEC_PER_SEC)

/* how often a VERIFY looks again whether the function is back */
#define VERIFY_POLL_USEC	(200 * PCIERR_USEC_PER_MSEC)

/* inputs a single input may lead to at once (a command failing at once,
 * a wait already over): more would be a loop */
#define FOLLOW_UPS_MAX	32

/* U2: a command refused for a reason about the command, not the hardware,
 * is sent again after the PE is read again: at most this often, after
 * 100 ms, 200 ms, 400 ms, 800 ms */
#define RETRY_MAX		4
#define RETRY_BASE_USEC		(100 * PCIERR_USEC_PER_MSEC)

#define ADVICE	"please try reseating or replacing the card, then run: pcierrctl enable "

struct follow_up {
	bool pending;
	struct pcierr_policy_event ev;
};

static void feed(struct slot *s, const struct pcierr_policy_event *ev);

/* A resync found the slot not healthy while pcierrd thought it idle: a
 * freeze missed while pcierrd was down, or an identity disabled earlier
 * that came back */
static void recovery_resync_slot(struct slot *s);
/*
 * A resync (or a completion of an operation some other pcierrd started)
 * found the PE's last operation done, one this pcierrd did not start: if
 * it was a RECOVER or a DISABLE whose recovery the history leaves open
 * (pcierrd was SIGKILLed while it ran), its end is recorded now (its
 * steps, RecoveryStarted/Finished, the history's "recovery" entry), or the
 * recovery goes on from its last step. True when it took the slot up.
 */
static bool recovery_resync_lost_end(struct slot *s);

/* Not as a recovery left it: a freeze missed while pcierrd was down, or
 * an identity disabled earlier that came back */
static bool slot_unhealthy(const struct slot *s)
{
	if (s->state == PCIERR_PE_STATE_DISABLED)
		return false;
	if (s->state != PCIERR_PE_STATE_NORMAL)
		return true;
	for (size_t i = 0; i < s->n_devices; i++) {
		if (s->devices[i]->state != PCIERR_STATE_NORMAL &&
		    s->devices[i]->state != PCIERR_STATE_UNSPEC)
			return true;
		if (s->devices[i]->history.disabled)
			return true;
	}
	return false;
}

static const char *mode_name(const struct pcierr_recovery *rec)
{
	if (rec->phase == PCIERR_PHASE_KERNEL)
		return "kernel";
	switch (rec->mode) {
	case PCIERR_MODE_PARTIAL_HOTPLUG:
		return "partial-hotplug";
	case PCIERR_MODE_FULL_HOTPLUG:
		return "full-hotplug";
	default:
		return "callbacks";
	}
}

/*
 * The store counted this error generation of this device already. A
 * generation alone is not enough: the shim's start again at 1 at each load
 * (a reboot, a reload), so the one stored counts only under the same load.
 */
static bool counted_before(const struct device *d, uint32_t error_gen)
{
	return d->history.error_gen == error_gen &&
	       d->history.load_id == d->slot->manager->shim_load_id;
}

static bool is_head(const struct slot *s, const struct device *d)
{
	return strcmp(s->addr, d->addr) == 0;
}

/* ---------------------------------------------------------------------- */
/* Reports (observer.h): the Manager's signals, through the observer */

static void report_step(struct slot *s, const char *step, const char *result,
			uint64_t duration_usec)
{
	observe_report(s->manager, &(struct recovery_report) {
		.type = REPORT_STEP, .slot = s->addr, .step = step, .result = result,
		.duration_usec = duration_usec,
	});
}

static void report_error(struct slot *s, const char *device, const char *state,
			 uint32_t unavailable_ms, const char *source)
{
	observe_report(s->manager, &(struct recovery_report) {
		.type = REPORT_ERROR_DETECTED, .slot = s->addr, .device = device,
		.state = state, .unavailable_ms = unavailable_ms, .source = source,
	});
}

/* ---------------------------------------------------------------------- */
/* History */

static void history(struct slot *s, const char *device, enum pcierr_history_kind kind,
		    const char *step, const char *result, const char *results,
		    pcierr_usec_t duration_usec, int error, const char *message,
		    int64_t *ret_id)
{
	struct manager *m = s->manager;
	struct pcierr_history_entry e = {
		.time_usec = now_realtime_usec(),
		.pe = s->addr,
		.device = device && *device ? device : NULL,
		.kind = kind,
		.step = step ? step : "",
		.result = result ? result : "",
		.results = results ? results : "",
		.duration_usec = duration_usec,
		.error = error,
		.message = message ? message : "",
	};
	int r;

	if (ret_id)
		*ret_id = 0;
	if (!m->writer)
		return;
	r = state_writer_history(m->writer, &e);
	if (r < 0)
		log_warning_errno(r, "Failed to record history of %s: %m", s->addr);
}

static void folded_summary(struct slot *s);

/* ---------------------------------------------------------------------- */
/* Timers */

static void check_op(struct slot *s);
static void verify_poll(struct slot *s, struct follow_up *next);

static int on_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct slot *s = userdata;
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_TIMEOUT,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
	};

	s->recovery.timer = sd_event_source_unref(s->recovery.timer);
	if (s->recovery.op_id != 0) {
		/* a command's step timeout: where is the PE? */
		check_op(s);
		return 0;
	}
	if (s->recovery.policy.phase == PCIERR_PHASE_VERIFY) {
		struct follow_up next = { 0 };

		verify_poll(s, &next);
		if (next.pending)
			feed(s, &next.ev);
		return 0;
	}
	if (s->recovery.policy.phase == PCIERR_PHASE_WAIT_UDEV || s->recovery.policy.phase == PCIERR_PHASE_WAIT) {
		bool udev = s->recovery.policy.phase == PCIERR_PHASE_WAIT_UDEV;
		const char *step = udev ? "wait_udev" : "wait";
		const char *result = udev ? "timeout" : "ok";
		pcierr_usec_t took = now_monotonic_usec() - s->recovery.step_started_mono;

		if (udev) {
			log_warning("Slot %s: udev did not report every removal within %llu s; going on.",
				    s->addr, PCIERR_POLICY_UDEV_SETTLE_USEC / PCIERR_USEC_PER_SEC);
			s->recovery.waiting_udev = false;
		}
		report_step(s, step, result, took);
		history(s, NULL, PCIERR_HISTORY_STEP, step, result, "", took, 0, "", NULL);
	}
	if (s->recovery.policy.phase == PCIERR_PHASE_KERNEL) {
		/* U3: KernelTimeoutSec is over; the devices' channel states as
		 * the kernel has them now decide, never the model's */
		struct manager *m = s->manager;
		char addr[PCIERR_ADDR_MAX];

		snprintf(addr, sizeof(addr), "%s", s->addr);
		log_warning("Slot %s: the kernel's recovery sent no end within %u s; asking the kernel.",
			    s->addr, m->config.defaults.kernel_timeout_sec);
		(void)manager_refresh_slot(m, s);
		s = manager_find_slot(m, addr);
		if (!s)
			return 0;
	}
	feed(s, &ev);
	return 0;
}

static void disarm(struct slot *s)
{
	s->recovery.timer = sd_event_source_disable_unref(s->recovery.timer);
}

static void arm(struct slot *s, pcierr_usec_t usec)
{
	int r;

	disarm(s);
	if (usec == 0)
		return;
	r = sd_event_add_time_relative(s->manager->event, &s->recovery.timer, CLOCK_BOOTTIME,
				       usec, 0, on_timer, s);
	if (r < 0)
		log_error_errno(r, "Slot %s: failed to arm a timer: %m", s->addr);
}

/* ---------------------------------------------------------------------- */
/* Effects */

/*
 * The policy's effects: the model is updated at once (the next decision
 * sees it), the writes are queued and the bus told after the command
 * (commit_effects()). Keyed by address and identity, never by index: the
 * device list may change in between (a finished recovery refreshes it).
 */
struct pending_write {
	enum pcierr_policy_effect_type type;
	char key[PCIERR_IDENTITY_KEY_MAX];
	char addr[PCIERR_ADDR_MAX];
	struct pcierr_freeze_record rec;
	enum pcierr_policy_reason reason;
	pcierr_usec_t now;
	char why[256];
};

struct pending {
	size_t n;
	struct pending_write w[PCIERR_POLICY_MAX_EFFECTS];
};

static void hold_disable(struct slot *s, const struct device *d, enum pcierr_policy_reason reason,
			 pcierr_usec_t now, const char *why)
{
	struct held_disable *h;

	for (size_t i = 0; i < s->recovery.n_held; i++)
		if (strcmp(s->recovery.held[i].key, d->key) == 0)
			return;
	h = realloc(s->recovery.held, (s->recovery.n_held + 1) * sizeof(*h));
	if (!h) {
		log_error("Slot %s: out of memory; the disabling of %s is not recorded.", s->addr,
			  d->addr);
		return;
	}
	s->recovery.held = h;
	h = &h[s->recovery.n_held++];
	*h = (struct held_disable) { .reason = reason, .now = now };
	snprintf(h->key, sizeof(h->key), "%s", d->key);
	snprintf(h->addr, sizeof(h->addr), "%s", d->addr);
	snprintf(h->why, sizeof(h->why), "%s", why);
}

static void apply_effects(struct slot *s, const struct pcierr_policy_event *ev,
			  const struct pcierr_policy_output *out, struct pending *p)
{
	bool counted = false;

	p->n = 0;
	for (size_t i = 0; i < out->n_effects; i++) {
		const struct pcierr_policy_effect *e = &out->effects[i];
		struct pending_write *w = &p->w[p->n];
		struct device *d;

		if (e->type == PCIERR_EFFECT_PE_FREEZE_RECORDED) {
			s->pe_history = e->record;
			continue;
		}
		if (e->device >= s->n_devices)
			continue;
		d = s->devices[e->device];
		*w = (struct pending_write) { .type = e->type, .reason = e->reason, .now = ev->now };
		snprintf(w->key, sizeof(w->key), "%s", d->key);
		snprintf(w->addr, sizeof(w->addr), "%s", d->addr);

		switch (e->type) {
		case PCIERR_EFFECT_FREEZE_RECORDED: {
			bool disabled = d->history.disabled;

			w->rec = e->record;
			/* this error generation of this load is counted now */
			w->rec.error_gen = d->error_gen;
			w->rec.load_id = s->manager->shim_load_id;
			d->history = w->rec;
			d->history.disabled = disabled || w->rec.disabled;
			d->last_error_usec = ev->now;
			counted = true;
			break;
		}
		case PCIERR_EFFECT_IDENTITY_DISABLED: {
			const char *why = out->message[0] ? out->message :
				s->recovery.policy.message[0] ? s->recovery.policy.message :
				pcierr_policy_reason_to_string(e->reason);
			char *dup = strdup(why);

			snprintf(w->why, sizeof(w->why), "%s", why);
			/* written at once (a pcierrd killed during the DISABLE
			 * keeps it), taken back if the DISABLE fails (U2) */
			if (!d->history.disabled)
				hold_disable(s, d, e->reason, ev->now, why);
			d->history.disabled = true;
			if (dup) {
				free(d->disabled_reason);
				d->disabled_reason = dup;
			}
			break;
		}
		default:
			continue;
		}
		p->n++;
	}
	if (!counted)
		return;
	/*
	 * U5: the PE's freeze is counted: every device of the PE records its
	 * error generation as counted, so that a resync after a restart finds
	 * none of them uncounted (the shim bumps only the detecting device's)
	 */
	for (size_t i = 0; i < s->n_devices && p->n < ELEMENTSOF(p->w); i++) {
		struct device *d = s->devices[i];
		bool has = false;

		for (size_t j = 0; j < p->n; j++)
			if (p->w[j].type == PCIERR_EFFECT_FREEZE_RECORDED &&
			    strcmp(p->w[j].addr, d->addr) == 0)
				has = true;
		if (has || (d->history.error_gen == d->error_gen &&
			    d->history.load_id == s->manager->shim_load_id))
			continue;
		d->history.error_gen = d->error_gen;
		d->history.load_id = s->manager->shim_load_id;
		p->w[p->n++] = (struct pending_write) {
			.type = PCIERR_EFFECT_FREEZE_RECORDED, .rec = d->history, .now = ev->now,
		};
		snprintf(p->w[p->n - 1].key, sizeof(p->w[0].key), "%s", d->key);
		snprintf(p->w[p->n - 1].addr, sizeof(p->w[0].addr), "%s", d->addr);
	}
}

/*
 * U2: the DISABLE failed: the identities this recovery marked disabled
 * are not (the card is still there, frozen, not kept away); their marks
 * are taken back
 */
static void undo_held(struct slot *s)
{
	struct manager *m = s->manager;

	for (size_t i = 0; i < s->recovery.n_held; i++) {
		const struct held_disable *h = &s->recovery.held[i];
		struct device *d = manager_find_device(m, h->addr);
		int r = 0;

		if (d && strcmp(d->key, h->key) == 0) {
			char *none = strdup("");

			d->history.disabled = false;
			if (none) {
				free(d->disabled_reason);
				d->disabled_reason = none;
			}
			observe_device_changed(d);
		}
		if (m->writer)
			r = state_writer_enable(m->writer, h->key);
		if (r < 0)
			log_error_errno(r, "Failed to take back the disabling of %s: %m", h->addr);
		history(s, h->addr, PCIERR_HISTORY_DISABLE, "", "not disabled", "", 0, 0,
			"the DISABLE failed: not disabled", NULL);
	}
	s->recovery.n_held = 0;
}

static void drop_held(struct slot *s)
{
	free(s->recovery.held);
	s->recovery.held = NULL;
	s->recovery.n_held = 0;
}

static void commit_effects(struct slot *s, const struct pending *p)
{
	struct manager *m = s->manager;
	int r = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct pending_write *w = &p->w[i];
		struct device *d;

		switch (w->type) {
		case PCIERR_EFFECT_FREEZE_RECORDED:
			if (m->writer)
				r = state_writer_save_freeze(m->writer, w->key, &w->rec);
			if (r < 0)
				log_error_errno(r, "Failed to save the freeze count of %s: %m", w->addr);
			break;
		case PCIERR_EFFECT_IDENTITY_DISABLED:
			if (m->writer)
				r = state_writer_disable(m->writer, w->key, w->reason, w->why,
							 w->now, s->addr, w->addr);
			if (r < 0)
				log_error_errno(r, "Failed to save the disabling of %s: %m", w->addr);
			history(s, w->addr, PCIERR_HISTORY_DISABLE, "", "disabled", "", 0, 0,
				w->why, NULL);
			break;
		default:
			break;
		}
		d = manager_find_device(m, w->addr);
		if (d)
			observe_device_changed(d);
	}
}

/* ---------------------------------------------------------------------- */
/* Actions */

static void abandon(struct slot *s);
static void schedule_retry(struct slot *s);
static bool slot_empty(const struct slot *s, const char *dev);

/*
 * U1, U2: errors sorted from verdicts. ESTALE (the PE changed: read it
 * again), EBUSY (an operation of the PE runs: ours, an armed RECOVER),
 * ENOMEM and EAGAIN say nothing about the hardware: the command is sent
 * again, bounded. A DISABLE is retried whatever failed. ENOTCONN: the shim
 * went away, as recovery_kernel_gone().
 */
static bool retryable(enum pcierr_cmd op, int error)
{
	if (op == PCIERR_CMD_DISABLE)
		return error != -ENOTCONN;
	return error == -ESTALE || error == -EBUSY || error == -ENOMEM || error == -EAGAIN;
}

/* true when the error was taken care of (a retry, the shim gone) */
static bool sort_error(struct slot *s, enum pcierr_cmd op, int error)
{
	if (error == -ENOTCONN && s->manager->kernel) {
		abandon(s);
		return true;
	}
	if (op != s->recovery.retry_op || !retryable(op, error) ||
	    s->recovery.retries >= RETRY_MAX)
		return false;
	log_notice("Slot %s: %s refused (%s); reading the PE again, retry %u of %u.", s->addr,
		   pcierr_op_to_string(op), strerror(-error), s->recovery.retries + 1, RETRY_MAX);
	schedule_retry(s);
	return true;
}

static void op_failed_now(struct slot *s, enum pcierr_cmd op, enum pcierr_step step,
			  int error, struct follow_up *next)
{
	const char *why = s->manager->kernel ?
			  s->manager->kops->last_error_message(s->manager->kernel) : NULL;

	if (why)
		log_warning_errno(error, "Slot %s: %s failed: %s", s->addr,
				  pcierr_op_to_string(op), why);
	else
		log_warning_errno(error, "Slot %s: %s failed: %m", s->addr,
				  pcierr_op_to_string(op));
	if (sort_error(s, op, error))
		return;
	if (op == PCIERR_CMD_DISABLE)
		s->recovery.disable_failed = true;
	next->pending = true;
	next->ev = (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.op = op,
		.step = step,
		.error = error,
	};
}

static void started_step(struct slot *s, enum pcierr_cmd op, enum pcierr_step step,
			 uint64_t op_id, pcierr_usec_t timeout_usec)
{
	s->recovery.op = op;
	s->recovery.op_step = step;
	s->recovery.op_id = op_id;
	s->recovery.op_checks = 0;
	/* its end is ours to record, never looked for after a resync */
	s->recovery.end_checked = op_id;
	s->recovery.step_started_mono = now_monotonic_usec();
	arm(s, timeout_usec);
}

static void started(struct slot *s, enum pcierr_cmd op, uint64_t op_id,
		    pcierr_usec_t timeout_usec)
{
	started_step(s, op, PCIERR_STEP_UNSPEC, op_id, timeout_usec);
}

static int issue_remove_next(struct slot *s, uint64_t *op_id)
{
	return s->manager->kops->remove_device(s->manager->kernel, s->addr, s->pe_id,
					       s->recovery.remove_queue[0], op_id);
}

static void add_udev_pending(struct slot *s, const char *addr)
{
	char (*a)[PCIERR_ADDR_MAX];

	a = realloc(s->recovery.udev_pending, (s->recovery.n_udev_pending + 1) * sizeof(*a));
	if (!a)
		return;	/* then the wait is bounded by its timeout */
	s->recovery.udev_pending = a;
	snprintf(a[s->recovery.n_udev_pending++], PCIERR_ADDR_MAX, "%s", addr);
}

/* the udev and REMOVE queues of a recovery, emptied */
static void clear_queues(struct slot *s)
{
	free(s->recovery.udev_pending);
	s->recovery.udev_pending = NULL;
	s->recovery.n_udev_pending = 0;
	free(s->recovery.remove_queue);
	s->recovery.remove_queue = NULL;
	s->recovery.n_remove_queue = 0;
}

static void do_remove(struct slot *s, const struct pcierr_policy_output *out,
		      struct follow_up *next)
{
	struct manager *m = s->manager;
	uint64_t op_id = 0;
	int r;

	clear_queues(s);
	s->recovery.remove_error = 0;

	if (out->all_devices) {
		for (size_t i = 0; i < s->n_devices; i++)
			if (!is_head(s, s->devices[i]))
				add_udev_pending(s, s->devices[i]->addr);
		r = m->kops->remove(m->kernel, s->addr, s->pe_id, &op_id);
	} else {
		s->recovery.remove_queue = calloc(out->n_devices ? out->n_devices : 1,
					 sizeof(*s->recovery.remove_queue));
		if (!s->recovery.remove_queue)
			return op_failed_now(s, PCIERR_CMD_REMOVE, 0, -ENOMEM, next);
		for (size_t i = 0; i < out->n_devices; i++) {
			unsigned int idx = out->devices[i];

			if (idx >= s->n_devices)
				continue;
			snprintf(s->recovery.remove_queue[s->recovery.n_remove_queue++], PCIERR_ADDR_MAX, "%s",
				 s->devices[idx]->addr);
			add_udev_pending(s, s->devices[idx]->addr);
		}
		if (s->recovery.n_remove_queue == 0)
			return op_failed_now(s, PCIERR_CMD_REMOVE, 0, -ENODEV, next);
		r = issue_remove_next(s, &op_id);
	}
	if (r < 0)
		return op_failed_now(s, PCIERR_CMD_REMOVE, 0, r, next);
	started(s, PCIERR_CMD_REMOVE, op_id, out->timeout_usec);
}

static void emit_started(struct slot *s)
{
	struct manager *m = s->manager;
	const char *mode = mode_name(&s->recovery.policy);

	bool fallback = s->recovery.policy.phase != PCIERR_PHASE_KERNEL &&
			s->recovery.policy.mode != PCIERR_MODE_CALLBACKS;

	s->recovery.folded = 0;
	s->recovery.mode = mode;
	/* the counters change before they are announced (review M9) */
	m->counters.recoveries_started++;
	if (fallback)
		m->counters.hotplug_fallbacks++;
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_STARTED, .slot = s->addr, .mode = mode,
	});
	observe_manager_changed(m);
	log_info("Slot %s: recovery started (%s).", s->addr, mode);
	if (fallback) {
		log_struct(LOG_NOTICE, PCIERR_MESSAGE_HOTPLUG_FALLBACK, s->addr, NULL, NULL,
			   "Slot %s: %s; recovering by %s.", s->addr,
			   s->recovery.policy.by_method ?
			   "Method=hotplug (pcierrd.conf) for a driver whose callbacks are known broken" :
			   s->recovery.policy.mode == PCIERR_MODE_FULL_HOTPLUG ?
			   "no driver has recovery callbacks" :
			   "some drivers lack recovery callbacks",
			   s->recovery.policy.mode == PCIERR_MODE_FULL_HOTPLUG ?
			   (s->reset_types == 0 ?
			    "hot-unplug and rescan, without a reset (the PE has none)" :
			    "hot-unplug, reset and rescan") :
			   "removing those devices, recovering the rest, and a rescan");
	}
}

/* the card to name when disabling: one whose identity is disabled */
static const char *first_disabled_device(const struct slot *s)
{
	for (size_t i = 0; i < s->recovery.n_held; i++)
		if (strcmp(s->recovery.held[i].addr, s->addr) != 0)
			return s->recovery.held[i].addr;
	for (size_t i = 0; i < s->n_devices; i++)
		if (s->devices[i]->history.disabled && !is_head(s, s->devices[i]))
			return s->devices[i]->addr;
	for (size_t i = 0; i < s->n_devices; i++)
		if (!is_head(s, s->devices[i]))
			return s->devices[i]->addr;
	return "";
}

static void finish(struct slot *s, const struct pcierr_policy_output *out)
{
	struct manager *m = s->manager;
	const char *result;
	bool disabled = out->reason >= PCIERR_REASON_TOO_MANY_FREEZES &&
			out->reason != PCIERR_REASON_OP_FAILED &&
			out->reason != PCIERR_REASON_NOT_VERIFIED &&
			out->reason != PCIERR_REASON_METHOD;
	/* U6: a card disabled before and found again (each boot) is kept
	 * disabled: no new CRIT, signal or count */
	bool again = out->reason == PCIERR_REASON_IDENTITY_DISABLED;
	const char *why = out->message[0] ? out->message :
			  pcierr_policy_reason_to_string(out->reason);
	char duration[32];

	disarm(s);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	s->recovery.retries = 0;
	if (s->recovery.disable_failed)
		undo_held(s);
	drop_held(s);
	s->recovery.disable_failed = false;
	s->recovery.waiting_udev = false;
	/* whatever started this recovery, an admin's Reset pending is over
	 * with it (review M3) */
	s->recovery.admin_reset = false;
	if (out->recovered)
		result = "recovered";
	else if (disabled)
		result = "disabled";
	else if (out->reason == PCIERR_REASON_GONE)
		result = "gone";
	else
		result = "failed";

	snprintf(s->status.last_result, sizeof(s->status.last_result), "%s", result);
	snprintf(s->status.message, sizeof(s->status.message), "%s", why ? why : "");
	s->status.last_duration_usec = out->duration_usec;
	s->status.last_finished_usec = now_realtime_usec();
	snprintf(duration, sizeof(duration), "DURATION_USEC=%llu",
		 (unsigned long long)out->duration_usec);
	folded_summary(s);

	if (out->recovered) {
		const char *extra[] = { duration, NULL };

		m->counters.recoveries_succeeded++;
		log_struct(LOG_NOTICE, PCIERR_MESSAGE_RECOVERED, s->addr, NULL, extra,
			   "Slot %s recovered in %llu ms (%s).", s->addr,
			   (unsigned long long)(out->duration_usec / 1000),
			   s->recovery.mode ? s->recovery.mode : mode_name(&s->recovery.policy));
	} else {
		char missing[600];
		const char *extra[] = { duration, NULL, NULL };

		if (out->reason == PCIERR_REASON_NOT_VERIFIED) {
			/* what an administrator looks for (issue 25) */
			snprintf(missing, sizeof(missing), "PCIERR_MISSING=%s",
				 verify_slot_missing(s->recovery.verify));
			extra[1] = missing;
		}
		m->counters.recoveries_failed++;
		log_struct(LOG_ERR, PCIERR_MESSAGE_RECOVERY_FAILED, s->addr, NULL, extra,
			   "Slot %s was not recovered (%s): %s.", s->addr, result,
			   why ? why : "");
	}
	history(s, NULL, PCIERR_HISTORY_RECOVERY, s->recovery.mode ? s->recovery.mode : mode_name(&s->recovery.policy), result, "",
		out->duration_usec, 0, why, NULL);
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_FINISHED, .slot = s->addr, .result = result,
		.duration_usec = out->duration_usec,
	});

	if (disabled && again) {
		log_notice("Slot %s kept disabled: %s", s->addr, why ? why : "");
	} else if (disabled) {
		char reason[512];
		const char *dev = s->recovery.disabled_device;

		if (why && strstr(why, "reseat"))
			snprintf(reason, sizeof(reason), "%s; then run: pcierrctl enable %s",
				 why, dev[0] ? dev : s->addr);
		else
			snprintf(reason, sizeof(reason), "%s; " ADVICE "%s", why ? why : "",
				 dev[0] ? dev : s->addr);
		m->counters.permanent_disables++;
		log_struct(LOG_CRIT, PCIERR_MESSAGE_DISABLED, s->addr, dev, NULL,
			   "Slot %s permanently disabled: %s", s->addr, reason);
		observe_report(m, &(struct recovery_report) {
			.type = REPORT_DISABLED, .slot = s->addr, .device = dev, .reason = reason,
		});
		snprintf(s->status.message, sizeof(s->status.message), "%s", reason);
	}
	free(s->recovery.udev_pending);
	s->recovery.udev_pending = NULL;
	s->recovery.n_udev_pending = 0;
	manager_schedule_refresh(m, s);
	observe_manager_changed(m);
}

/* a RECOVER's steps, at most (kernel/pcierr_shim: PCIERR_RECOVER_STEPS) */
#define RECOVER_STEPS_MAX	6

/*
 * Issue 12: the policy says when a RECOVER may run the callbacks
 * (out->recover: nothing to decide between error_detected, reset,
 * slot_reset and resume); its OP_DONE's steps go through the policy as
 * if each had been asked for (recovery_on_recover_done()). A kernel
 * without RECOVER (an older module: EOPNOTSUPP, EINVAL) gets the single
 * REPORT. A RECOVER the shim started by itself (armed) for this freeze
 * is awaited, not sent: its steps are checked against the policy's as
 * any RECOVER's.
 */
static bool try_recover(struct slot *s, const struct pcierr_policy_output *out)
{
	struct manager *m = s->manager;
	uint64_t op_id = 0;
	int r;

	if (s->recovery.auto_op_id && out->step == PCIERR_STEP_ERROR_DETECTED) {
		/* the shim started it on its own (armed): awaited, not sent;
		 * the recovery no longer waits for this line */
		log_info("Slot %s: recover %" PRIu64 " started by the shim itself (armed); awaiting it.",
			 s->addr, s->recovery.auto_op_id);
		started_step(s, PCIERR_CMD_RECOVER, PCIERR_STEP_ERROR_DETECTED, s->recovery.auto_op_id,
			     out->timeout_usec * 4);
		/* as for a RECOVER sent (below): a restarted pcierrd learns
		 * from the mark that its end is not recorded */
		s->recovery.recover_mark = s->recovery.auto_op_id;
		s->recovery.auto_op_id = 0;
		return true;
	}
	if (!out->recover || !m->kops->recover)
		return false;
	r = m->kops->recover(m->kernel, s->addr, s->pe_id, out->state, out->reset_type, &op_id);
	if (r < 0) {
		log_debug_errno(r, "Slot %s: recover refused (%m); one step at a time.", s->addr);
		return false;
	}
	/* up to six steps in one operation: the bound of each, for all */
	started_step(s, PCIERR_CMD_RECOVER, PCIERR_STEP_ERROR_DETECTED, op_id,
		     out->timeout_usec * 4);
	/* its steps are written at its end: a pcierrd restarted before
	 * then learns from this entry that the end is not recorded */
	s->recovery.recover_mark = op_id;
	return true;
}

/*
 * A VERIFY (issue 25): is every device's function back? Yes, or the
 * bound passed: the answer is the next input (VERIFIED); else look again
 * shortly. Nothing is written while it passes (the steps a recovery
 * shows stay those of its path); a failure is, with what is missing.
 */
static void verify_poll(struct slot *s, struct follow_up *next)
{
	pcierr_usec_t now = now_monotonic_usec();
	bool final = now >= verify_slot_deadline(s->recovery.verify);
	pcierr_usec_t took = now - s->recovery.step_started_mono;
	char missing[512];
	bool ok;

	ok = verify_slot_check(s->recovery.verify, final, missing, sizeof(missing));
	if (!ok && !final) {
		arm(s, VERIFY_POLL_USEC);
		return;
	}
	if (ok) {
		log_info("Slot %s: verify: the function is back (%llu ms).", s->addr,
			 (unsigned long long)(took / 1000));
	} else {
		log_struct(LOG_WARNING, PCIERR_MESSAGE_RECOVERY_FAILED, s->addr, NULL,
			   ((const char *[]) { "PCIERR_STEP=verify", NULL }),
			   "Slot %s: verify: the function is not back within %llu ms: %s.", s->addr,
			   (unsigned long long)(took / 1000), missing);
		/* a step of its own where it failed (RecoveryStep, history) */
		s->manager->counters.verify_failures++;
		report_step(s, "verify", "missing", took);
		history(s, NULL, PCIERR_HISTORY_STEP, "verify", "missing", "", took, 0, missing, NULL);
	}
	next->pending = true;
	next->ev = (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_VERIFIED,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.verified = ok,
	};
	/* the event outlives this frame in next: the words live in the slot */
	next->ev.missing = verify_slot_missing(s->recovery.verify);
}

static const enum pcierr_cmd action_cmd[__PCIERR_ACTION_MAX] = {
	[PCIERR_ACTION_REPORT] = PCIERR_CMD_REPORT,
	[PCIERR_ACTION_ENABLE_IO] = PCIERR_CMD_ENABLE_IO,
	[PCIERR_ACTION_RESET] = PCIERR_CMD_RESET,
	[PCIERR_ACTION_REMOVE] = PCIERR_CMD_REMOVE,
	[PCIERR_ACTION_RESCAN] = PCIERR_CMD_RESCAN,
	[PCIERR_ACTION_DISABLE] = PCIERR_CMD_DISABLE,
};

/* what a retry sends again: the decision as it was taken */
static void remember_command(struct slot *s, const struct pcierr_policy_output *out)
{
	struct slot_recovery *r = &s->recovery;

	r->retries = 0;
	r->retry_op = action_cmd[out->action];
	r->retry_step = out->step;
	r->retry_state = out->state;
	r->retry_reset = out->reset_type;
	r->retry_all = out->all_devices;
	r->retry_timeout = out->timeout_usec;
}

static void carry_out(struct slot *s, const struct pcierr_policy_output *out,
		      struct follow_up *next)
{
	struct manager *m = s->manager;
	struct pcierr_ctx *k = m->kernel;
	const struct kernel_ops *ko = m->kops;
	uint64_t op_id = 0;
	int r;

	if ((unsigned int)out->action < ELEMENTSOF(action_cmd) && action_cmd[out->action])
		remember_command(s, out);

	switch (out->action) {
	case PCIERR_ACTION_NOTHING:
		switch (out->reason) {
		case PCIERR_REASON_FALSE_ALARM:
			log_info("Slot %s: permanent failure on an empty slot: a false alarm.", s->addr);
			break;
		case PCIERR_REASON_RECOVER_OFF:
			log_notice("Slot %s: Recover=no: the freeze is recorded, nothing done.", s->addr);
			hold_note_recover_off(s);
			break;
		case PCIERR_REASON_FOLDED:
			/* the first one; the rest are counted (folded_summary) */
			if (s->recovery.folded <= 1)
				log_info("Slot %s: froze again during its recovery; folded in.",
					 s->addr);
			break;
		default:
			break;
		}
		if (out->timeout_usec > 0)
			arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_REPORT:
		if (k && try_recover(s, out))
			return;
		r = k ? ko->report(k, s->addr, s->pe_id, out->step, out->state, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_REPORT, out->step, r, next);
		return started_step(s, PCIERR_CMD_REPORT, out->step, op_id, out->timeout_usec);
	case PCIERR_ACTION_ENABLE_IO:
		r = k ? ko->enable_io(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_ENABLE_IO, 0, r, next);
		return started(s, PCIERR_CMD_ENABLE_IO, op_id, out->timeout_usec);
	case PCIERR_ACTION_RESET:
		r = k ? ko->reset(k, s->addr, s->pe_id, out->reset_type, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_RESET, 0, r, next);
		return started(s, PCIERR_CMD_RESET, op_id, out->timeout_usec);
	case PCIERR_ACTION_REMOVE:
		if (out->reason == PCIERR_REASON_NOT_VERIFIED) {
			/* issue 25: drivers said recovered, the function is not back */
			m->counters.hotplug_fallbacks++;
			log_struct(LOG_WARNING, PCIERR_MESSAGE_HOTPLUG_FALLBACK, s->addr, NULL, NULL,
				   "Slot %s: %s.", s->addr, out->message);
		} else if (out->reason == PCIERR_REASON_METHOD) {
			log_info("Slot %s: %s.", s->addr, out->message);
		}
		if (out->reason == PCIERR_REASON_NO_RESET && s->recovery.policy.phase != PCIERR_PHASE_IDLE) {
			/* issue 8 point 6: the path, in the journal; counted
			 * once (U6): a partial hotplug counted at its start */
			if (!s->recovery.mode || strcmp(s->recovery.mode, "callbacks") == 0)
				m->counters.hotplug_fallbacks++;
			log_struct(LOG_NOTICE, PCIERR_MESSAGE_HOTPLUG_FALLBACK, s->addr, NULL, NULL,
				   "Slot %s: %s.", s->addr, out->message);
		}
		if (!k)
			return op_failed_now(s, PCIERR_CMD_REMOVE, 0, -ENOTCONN, next);
		return do_remove(s, out, next);
	case PCIERR_ACTION_WAIT_UDEV:
		if (s->recovery.n_udev_pending == 0) {
			next->pending = true;
			next->ev = (struct pcierr_policy_event) {
				.type = PCIERR_POLICY_EV_WAIT_DONE,
				.now = now_realtime_usec(),
				.mono = now_boottime_usec(),
			};
			log_info("Slot %s: wait_udev: ok (0 ms, udev was done already)", s->addr);
			report_step(s, "wait_udev", "ok", 0);
			history(s, NULL, PCIERR_HISTORY_STEP, "wait_udev", "ok", "", 0, 0, "", NULL);
			return;
		}
		s->recovery.waiting_udev = true;
		s->recovery.step_started_mono = now_monotonic_usec();
		arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_WAIT:
		log_info("Slot %s: unavailable for %llu ms; waiting before recovering.", s->addr,
			 (unsigned long long)(out->timeout_usec / 1000));
		s->recovery.step_started_mono = now_monotonic_usec();
		arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_RESCAN:
		r = k ? ko->rescan(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_RESCAN, 0, r, next);
		return started(s, PCIERR_CMD_RESCAN, op_id, out->timeout_usec);
	case PCIERR_ACTION_DISABLE:
		/* the devices are gone once it is done: name one now */
		snprintf(s->recovery.disabled_device, sizeof(s->recovery.disabled_device), "%s",
			 first_disabled_device(s));
		r = k ? ko->disable(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		log_warning("Slot %s: disabling: %s", s->addr,
			    out->message[0] ? out->message : pcierr_policy_reason_to_string(out->reason));
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_DISABLE, 0, r, next);
		return started(s, PCIERR_CMD_DISABLE, op_id, out->timeout_usec);
	case PCIERR_ACTION_VERIFY:
		s->recovery.step_started_mono = now_monotonic_usec();
		verify_slot_begin(&s->recovery.verify, s->recovery.step_started_mono + out->timeout_usec);
		return verify_poll(s, next);
	case PCIERR_ACTION_DONE:
		return finish(s, out);
	case PCIERR_ACTION_STUCK:
		log_struct(LOG_ERR, PCIERR_MESSAGE_STUCK, s->addr, NULL, NULL,
			   "Slot %s is stuck: %s; other slots go on.", s->addr, out->message);
		snprintf(s->status.message, sizeof(s->status.message), "%s", out->message);
		return;
	default:
		return;
	}
}

/* The command of the decision under way, sent again to the PE as read
 * just now (its id may have changed: ESTALE) */
static void reissue(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_ctx *k = m->kernel;
	const struct kernel_ops *ko = m->kops;
	struct slot_recovery *rr = &s->recovery;
	struct follow_up next = {};
	uint64_t op_id = 0;
	int r;

	switch (rr->retry_op) {
	case PCIERR_CMD_REPORT:
		r = ko->report(k, s->addr, s->pe_id, rr->retry_step, rr->retry_state, &op_id);
		break;
	case PCIERR_CMD_ENABLE_IO:
		r = ko->enable_io(k, s->addr, s->pe_id, &op_id);
		break;
	case PCIERR_CMD_RESET:
		r = ko->reset(k, s->addr, s->pe_id, rr->retry_reset, &op_id);
		break;
	case PCIERR_CMD_REMOVE:
		r = rr->retry_all || rr->n_remove_queue == 0 ?
		    ko->remove(k, s->addr, s->pe_id, &op_id) : issue_remove_next(s, &op_id);
		break;
	case PCIERR_CMD_RESCAN:
		r = ko->rescan(k, s->addr, s->pe_id, &op_id);
		break;
	case PCIERR_CMD_DISABLE:
		r = ko->disable(k, s->addr, s->pe_id, &op_id);
		break;
	default:
		return;
	}
	if (r < 0) {
		op_failed_now(s, rr->retry_op, rr->retry_step, r, &next);
		if (next.pending)
			feed(s, &next.ev);
		return;
	}
	started_step(s, rr->retry_op, rr->retry_op == PCIERR_CMD_REPORT ? rr->retry_step :
		     PCIERR_STEP_UNSPEC, op_id, rr->retry_timeout);
}

static int on_retry(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct slot *s = userdata;
	struct manager *m = s->manager;
	char addr[PCIERR_ADDR_MAX];

	s->recovery.retry_timer = sd_event_source_unref(s->recovery.retry_timer);
	snprintf(addr, sizeof(addr), "%s", s->addr);
	/* read the PE again: its id, its devices, an operation that ran */
	(void)manager_refresh_slot(m, s);
	s = manager_find_slot(m, addr);
	if (!s || s->recovery.policy.phase == PCIERR_PHASE_IDLE || s->recovery.op_id != 0)
		return 0;
	if (slot_empty(s, NULL)) {
		/* the card went away: the command's end, as the shim says it */
		struct pcierr_policy_event ev = {
			.type = PCIERR_POLICY_EV_OP_DONE,
			.now = now_realtime_usec(),
			.mono = now_boottime_usec(),
			.op = s->recovery.retry_op,
			.step = s->recovery.retry_step,
			.error = -ENODEV,
		};

		feed(s, &ev);
		return 0;
	}
	reissue(s);
	return 0;
}

static void schedule_retry(struct slot *s)
{
	pcierr_usec_t delay = RETRY_BASE_USEC << s->recovery.retries;
	int r;

	s->recovery.retries++;
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	r = sd_event_add_time_relative(s->manager->event, &s->recovery.retry_timer, CLOCK_BOOTTIME,
				       delay, 0, on_retry, s);
	if (r < 0)
		log_error_errno(r, "Slot %s: failed to arm a retry timer: %m", s->addr);
}

/* The shim is gone for this slot's recovery (ENOTCONN): as when it goes
 * away, the recovery resumes from a resync when it is back */
static void abandon(struct slot *s)
{
	log_warning("Slot %s: the kernel shim went away during the recovery; "
		    "it resumes when the shim is back.", s->addr);
	disarm(s);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	s->recovery.retries = 0;
	drop_held(s);
	s->recovery.disable_failed = false;
	s->recovery.policy = PCIERR_RECOVERY_INIT;
	s->recovery.op_id = 0;
	s->recovery.outside_policy = false;
	s->recovery.waiting_udev = false;
	s->recovery.n_remove_queue = 0;
	s->recovery.n_udev_pending = 0;
	observe_slot_changed(s);
}

static int build_pe(struct slot *s, struct pcierr_policy_pe *pe,
		    struct pcierr_policy_device **ret)
{
	struct pcierr_policy_device *devs = NULL;
	size_t n = MIN(s->n_devices, (size_t)PCIERR_POLICY_MAX_DEVICES);

	if (n > 0) {
		devs = calloc(n, sizeof(*devs));
		if (!devs)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct device *d = s->devices[i];

		snprintf(devs[i].addr, sizeof(devs[i].addr), "%s", d->addr);
		devs[i].vendor = d->vendor;
		devs[i].device = d->device;
		devs[i].subvendor = d->subvendor;
		devs[i].subdevice = d->subdevice;
		devs[i].dsn = d->dsn;
		devs[i].has_dsn = d->has_dsn;
		devs[i].flags = d->flags;
		devs[i].driver_bound = d->driver && d->driver[0];
		devs[i].handlers = d->handlers;
		devs[i].driver = d->driver;
		devs[i].history = d->history;
		devs[i].state = d->state;
	}
	*pe = (struct pcierr_policy_pe) {
		.reset_types = s->reset_types,
		.state = s->state,
		.flags = s->flags,
		.backend = s->backend,
		.devices = devs,
		.n_devices = n,
		.history = s->pe_history,
	};
	snprintf(pe->addr, sizeof(pe->addr), "%s", s->addr);
	*ret = devs;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Pre-authorised automatic recovery (issue 12, PCIERR_CMD_ARM) */

/* What the policy plans for @s now (pcierr_policy_plan()); false: no answer */
static bool plan(struct slot *s, const struct pcierr_policy_query *q, struct pcierr_policy_plan *p)
{
	_cleanup_free_ struct pcierr_policy_device *devs = NULL;
	struct pcierr_policy_pe pe;
	int r;

	r = build_pe(s, &pe, &devs);
	if (r >= 0)
		r = pcierr_policy_plan(&s->manager->config, &pe, &s->recovery.policy, q, p);
	if (r < 0) {
		log_error_errno(r, "Slot %s: the policy gave no plan: %m", s->addr);
		return false;
	}
	return true;
}

/* The PE's StepTimeoutSec, as the policy gives its steps (U6) */
static pcierr_usec_t step_timeout(struct slot *s)
{
	struct pcierr_policy_query q = { .question = PCIERR_PLAN_BOUNDS };
	struct pcierr_policy_plan p;

	if (!plan(s, &q, &p))
		return (pcierr_usec_t)s->manager->config.defaults.step_timeout_sec * PCIERR_USEC_PER_SEC;
	return p.step_timeout_usec;
}

/* The policy's ARM; the rest is whether pcierrd can carry it out now */
static bool arm_wanted(struct slot *s, enum pcierr_reset_type *type)
{
	struct manager *m = s->manager;
	struct pcierr_policy_query q = {
		.question = PCIERR_PLAN_ARM,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
	};
	struct pcierr_policy_plan p;

	if (!m->kernel || !m->kernel_connected || !m->kops->arm ||
	    slot_recovery_busy(&s->recovery) || s->recovery.admin_reset || !plan(s, &q, &p))
		return false;
	*type = p.arm_reset;
	return p.arm;
}

static void send_arm(struct slot *s, bool on, enum pcierr_reset_type type)
{
	struct manager *m = s->manager;
	int r;

	r = m->kops->arm(m->kernel, s->addr, s->pe_id, on ? 1 : 0, type);
	if (r == -EOPNOTSUPP) {
		/* an older shim (an unknown command); until it is replaced */
		if (!m->arm_unsupported)
			log_info("The kernel shim has no PCIERR_CMD_ARM: every freeze goes through pcierrd.");
		m->arm_unsupported = true;
		s->recovery.armed = false;
		return;
	}
	if (r < 0) {
		/* an older shim (EOPNOTSUPP, EINVAL), a changed PE (ESTALE):
		 * the freeze then goes the usual way */
		log_debug_errno(r, "Slot %s: %s failed: %m", s->addr, on ? "arm" : "disarm");
		s->recovery.armed = false;
		return;
	}
	s->recovery.armed = on;
	s->recovery.armed_pe_id = s->pe_id;
	s->recovery.armed_type = type;
	log_debug("Slot %s: %s.", s->addr, on ? "armed: the shim recovers its next freeze at once" :
		  "disarmed");
}

static void recovery_update_arm(struct slot *s)
{
	enum pcierr_reset_type type = PCIERR_RESET_UNSPEC;
	bool want;

	if (!s->manager->kernel || !s->manager->kops->arm || s->manager->arm_unsupported)
		return;
	if (!s->recovery.armed && !s->manager->config.auto_recover)
		return;
	want = arm_wanted(s, &type);
	if (want == s->recovery.armed && (!want || (s->recovery.armed_pe_id == s->pe_id && s->recovery.armed_type == type)))
		return;
	if (!want && (s->flags & PCIERR_PE_F_BUSY))
		return;		/* its arm is used up (resync: recovery_resync_slot) */
	send_arm(s, want, type);
}

/* What an input tells the world, once its command is sent */
typedef void (*fanout_fn)(struct slot *s, void *userdata);

static bool is_command(enum pcierr_policy_action a)
{
	switch (a) {
	case PCIERR_ACTION_REPORT:
	case PCIERR_ACTION_ENABLE_IO:
	case PCIERR_ACTION_RESET:
	case PCIERR_ACTION_REMOVE:
	case PCIERR_ACTION_RESCAN:
	case PCIERR_ACTION_DISABLE:
		return true;
	default:
		return false;
	}
}

/*
 * One input through the policy, and what follows from it at once. The
 * command goes out first; then the input's own news (fanout, once), the
 * effects' writes and the signals.
 */
static void feed_then(struct slot *s, const struct pcierr_policy_event *first,
		      fanout_fn fanout, void *userdata)
{
	_cleanup_free_ struct pcierr_policy_output *out = calloc(1, sizeof(*out));
	_cleanup_free_ struct pending *pend = calloc(1, sizeof(*pend));
	struct follow_up next = { .pending = true, .ev = *first };
	struct manager *m = s->manager;

	if (!out || !pend) {
		log_error("Slot %s: out of memory; input dropped.", s->addr);
		if (fanout)
			fanout(s, userdata);
		return;
	}

	for (int i = 0; next.pending && i < FOLLOW_UPS_MAX; i++) {
		_cleanup_free_ struct pcierr_policy_device *devs = NULL;
		struct pcierr_policy_event ev = next.ev;
		struct pcierr_policy_pe pe;
		bool was_idle = s->recovery.policy.phase == PCIERR_PHASE_IDLE;
		int r;

		next.pending = false;
		r = build_pe(s, &pe, &devs);
		if (r >= 0)
			r = pcierr_policy_step(&m->config, &pe, &s->recovery.policy, &ev, out);
		if (r < 0) {
			log_error_errno(r, "Slot %s: the policy refused an input: %m", s->addr);
			break;
		}
		apply_effects(s, &ev, out, pend);

		if (fanout && !is_command(out->action)) {
			/* nothing to send: the news in their order */
			fanout(s, userdata);
			fanout = NULL;
		}
		if (was_idle && s->recovery.policy.phase != PCIERR_PHASE_IDLE && !is_command(out->action))
			emit_started(s);

		/* act */
		carry_out(s, out, &next);

		/* then tell */
		if (fanout) {
			fanout(s, userdata);
			fanout = NULL;
		}
		log_debug("Slot %s: %s -> %s (%s), phase %s.", s->addr,
			  ev.type == PCIERR_POLICY_EV_OP_DONE ? pcierr_op_to_string(ev.op) : "input",
			  pcierr_policy_action_to_string(out->action),
			  pcierr_policy_reason_to_string(out->reason),
			  pcierr_recovery_phase_to_string(s->recovery.policy.phase));
		commit_effects(s, pend);
		if (s->recovery.recover_mark) {
			/* after the freeze it counts (queued in order): written,
			 * it means the count is too */
			char message[64];

			snprintf(message, sizeof(message), "operation %" PRIu64, s->recovery.recover_mark);
			history(s, NULL, PCIERR_HISTORY_STEP, PCIERR_HISTORY_RECOVER_STEP,
				PCIERR_HISTORY_RECOVER_STARTED, "", 0, 0, message, NULL);
			s->recovery.recover_mark = 0;
		}
		if (was_idle && is_command(out->action) && s->recovery.policy.phase != PCIERR_PHASE_IDLE)
			emit_started(s);
		observe_slot_changed(s);
	}
	if (fanout)
		fanout(s, userdata);
	if (next.pending)
		log_error("Slot %s: the recovery kept deciding without waiting; stopped.", s->addr);
	recovery_update_arm(s);
}

static void feed(struct slot *s, const struct pcierr_policy_event *ev)
{
	feed_then(s, ev, NULL, NULL);
}

/* ---------------------------------------------------------------------- */
/* Inputs */

/* No card in the slot, or the device named is not one of ours any more:
 * from the model alone (no sysfs probe on the way to the first command) */
static bool slot_empty(const struct slot *s, const char *dev)
{
	size_t cards = 0;
	bool named = !dev || !dev[0];

	for (size_t i = 0; i < s->n_devices; i++) {
		if (!is_head(s, s->devices[i]))
			cards++;
		if (dev && strcmp(s->devices[i]->addr, dev) == 0)
			named = true;
	}
	return cards == 0 || !named;
}

static void log_error_detail(const char *slot, const char *dev,
			     const struct pcierr_error_detail *d, char *hist, size_t hsize);

struct event_news {
	const struct pcierr_event *e;
	const char *source;
};

/*
 * A freeze of a PE that is recovering (issue 11 point 10): the policy
 * counts it (freeze count, escalation) as always, but past the first one
 * it costs no journal entry, signal or history row of its own, and no
 * refresh: a counter (EventsFolded, s->recovery.folded) and one history entry
 * "N further freeze events folded" when the recovery ends.
 */
static void event_fanout(struct slot *s, void *userdata);

static void folded_fanout(struct slot *s, void *userdata)
{
	s->manager->counters.events_folded++;
	if (++s->recovery.folded == 1)
		event_fanout(s, userdata);
}

static void folded_summary(struct slot *s)
{
	char message[128];

	if (s->recovery.folded > 1) {
		snprintf(message, sizeof(message),
			 "%" PRIu64 " further freeze events folded into this recovery",
			 s->recovery.folded - 1);
		log_info("Slot %s: %s.", s->addr, message);
		history(s, NULL, PCIERR_HISTORY_EVENT, "folded", "", "", 0, 0, message, NULL);
	}
	s->recovery.folded = 0;
}

static void event_fanout(struct slot *s, void *userdata)
{
	const struct event_news *n = userdata;
	const struct pcierr_event *e = n->e;
	const char *source = n->source;
	char message[192], detail[64];

	log_struct(LOG_WARNING, PCIERR_MESSAGE_ERROR_DETECTED, s->addr, e->dev, NULL,
		   "PCI error detected on %s (slot %s): %s, source %s%s.", e->dev, s->addr,
		   pcierr_state_to_string(e->state) ?: "?", source ?: "?",
		   e->state == PCIERR_STATE_PERM_FAILURE ? ", permanent failure reported" : "");
	report_error(s, e->dev, pcierr_state_to_string(e->state) ?: "", e->time_unavail_ms,
		     source ?: "");
	log_error_detail(s->addr, e->dev, &e->detail, detail, sizeof(detail));
	snprintf(message, sizeof(message), "source %s, unavailable %u ms, seq %" PRIu64 "%s",
		 source ?: "?", e->time_unavail_ms, e->seq, detail);
	history(s, e->dev, PCIERR_HISTORY_EVENT, pcierr_state_to_string(e->state), "", "",
		0, 0, message, &s->recovery.history_id);
}

static bool admin_pending(const struct slot *s)
{
	return s->recovery.admin_reset && now_monotonic_usec() < s->recovery.admin_deadline;
}

/* the most of a platform error log put in one journal field, as hex */
#define DETAIL_HEX_MAX	1000

/*
 * The platform's error detail (pseries: ibm,slot-error-detail; the
 * shim's EVENT, or OP_DONE of DISABLE) to the journal: raw bytes as hex
 * in PCIERR_DETAIL_DATA, the RTAS log header decoded in the message.
 * @hist gets a short form for the history.
 */
static void log_error_detail(const char *slot, const char *dev,
			     const struct pcierr_error_detail *d, char *hist, size_t hsize)
{
	char sev[64], status[64], data[sizeof("PCIERR_DETAIL_DATA=") + 2 * DETAIL_HEX_MAX];
	const char *extra[4] = { sev, status, NULL, NULL };
	const char *kind = d->severity == PCIERR_DETAIL_PERMANENT ? "permanent" : "temporary";
	struct pseries_log_header h;
	char head[160] = "";
	size_t n;

	hist[0] = 0;
	if (d->severity == PCIERR_DETAIL_UNSPEC)
		return;
	snprintf(sev, sizeof(sev), "PCIERR_DETAIL_SEVERITY=%s", kind);
	snprintf(status, sizeof(status), "PCIERR_DETAIL_STATUS=%d", d->status);
	if (d->len > 0) {
		n = (size_t)snprintf(data, sizeof(data), "PCIERR_DETAIL_DATA=");
		for (uint32_t i = 0; i < d->len && i < DETAIL_HEX_MAX; i++)
			n += (size_t)snprintf(data + n, sizeof(data) - n, "%02x", d->data[i]);
		extra[2] = data;
		if (pseries_log_decode(d->data, d->len, &h) > 0)
			snprintf(head, sizeof(head),
				 ": RTAS log version %u, severity %s, disposition %u, initiator %u, target %u, type %u",
				 h.version, pseries_log_severity_name(h.severity), h.disposition,
				 h.initiator, h.target, h.type);
	}
	log_struct(LOG_WARNING, NULL, slot, dev, extra,
		   "Platform error detail for %s (slot %s), %s log: firmware status %d, %u bytes%s.",
		   dev && *dev ? dev : slot, slot, kind, d->status, d->len, head);
	snprintf(hist, hsize, "; %s error detail: status %d, %u bytes", kind, d->status, d->len);
}

/*
 * The shim started a RECOVER on its own that the policy did not take up
 * (its decision changed between the ARM and the freeze: pcierrd disarms
 * as soon as it does, so only a freeze in between). A policy that left
 * the slot idle (Recover=no since) waits for it as for an operation
 * started outside the policy; one that went on (a command, refused with
 * EBUSY while the RECOVER runs; a wait) goes on its own way, and the
 * RECOVER's completion is ignored.
 */
static void auto_not_taken(struct slot *s)
{
	if (s->recovery.auto_op_id == 0)
		return;
	log_warning("Slot %s: the shim started recover %" PRIu64 " on its own (armed), but the policy chose otherwise.",
		    s->addr, s->recovery.auto_op_id);
	if (!slot_recovery_busy(&s->recovery)) {
		s->recovery.outside_policy = true;
		started_step(s, PCIERR_CMD_RECOVER, PCIERR_STEP_ERROR_DETECTED, s->recovery.auto_op_id,
			     step_timeout(s) * 4);
	}
	s->recovery.auto_op_id = 0;
}

void recovery_on_event(struct manager *m, const struct pcierr_event *e)
{
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_FREEZE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.device = e->dev,
		.state = e->state,
		.time_unavail_ms = e->time_unavail_ms,
	};
	struct event_news news = { .e = e, .source = pcierr_source_to_string(e->source) };
	struct slot *s = manager_find_slot(m, e->pe);
	struct device *d;

	if (!s) {
		/* a PE pcierrd has not seen yet (a hotplug whose uevent is
		 * still queued): the one case that asks the kernel first */
		(void)manager_refresh_by_device(m, e->dev, false);
		s = manager_find_slot(m, e->pe);
	}
	if (!s) {
		log_warning("Error event for %s in unknown slot %s; ignored.", e->dev, e->pe);
		return;
	}
	/* act on the PE the error was detected in: if it changed since (a
	 * card swapped), the shim refuses our commands with ESTALE */
	if (s->recovery.op_id == 0 && e->pe_id)
		s->pe_id = e->pe_id;
	/* any event of the PE uses its arm up; this one may have started
	 * the RECOVER the policy is about to ask for (recovery_update_arm) */
	s->recovery.armed = false;
	s->recovery.auto_op_id = s->recovery.op_id == 0 ? e->auto_op_id : 0;

	d = manager_find_device(m, e->dev);
	/* an administrator's Reset first: its event is never a duplicate
	 * (review M3) */
	if (s->recovery.admin_reset && e->seq == s->recovery.admin_seq) {
		s->recovery.admin_reset = false;
		ev.freeze_kind = PCIERR_FREEZE_ADMIN;
		ev.reset_type = s->recovery.admin_type;
		news.source = "admin";
	} else if (d && slot_recovery_busy(&s->recovery) && e->error_gen != 0 &&
		   counted_before(d, e->error_gen)) {
		/* a resync already found and counted this one */
		log_debug("Slot %s: event seq %" PRIu64 " already handled by a resync.",
			  s->addr, e->seq);
		return;
	}
	/* the event says what the kernel did: the model follows it now, the
	 * rest of the slot is refreshed after the command */
	if (d && d->slot == s) {
		if (e->error_gen != 0)
			d->error_gen = e->error_gen;
		d->state = e->state;
	}
	if (s->state == PCIERR_PE_STATE_NORMAL)
		s->state = PCIERR_PE_STATE_FROZEN;
	ev.slot_empty = e->state == PCIERR_STATE_PERM_FAILURE && slot_empty(s, e->dev);

	/* folded into the recovery under way: O(1), no refresh (the event
	 * says the state; the recovery's end refreshes) */
	if (s->recovery.policy.phase != PCIERR_PHASE_IDLE && ev.freeze_kind == PCIERR_FREEZE_DETECTED &&
	    e->state != PCIERR_STATE_PERM_FAILURE) {
		feed_then(s, &ev, folded_fanout, &news);
		s = manager_find_slot(m, e->pe);
		if (s)
			auto_not_taken(s);
		return;
	}
	feed_then(s, &ev, event_fanout, &news);
	s = manager_find_slot(m, e->pe);
	if (s)
		auto_not_taken(s);
	if (s)
		manager_schedule_refresh(m, s);
}

static void format_results(const struct pcierr_op_done *d, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < d->n_results && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s=%s", i ? "," : "",
				 d->results[i].addr,
				 pcierr_result_to_string(d->results[i].result) ?: "?");

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static const char *step_name(const struct pcierr_op_done *d)
{
	if (d->op == PCIERR_CMD_REPORT)
		return pcierr_step_to_string(d->step) ?: "report";
	return pcierr_op_to_string(d->op) ?: "?";
}

struct op_news {
	const struct pcierr_op_done *d;
	bool lost;
};

static void op_done_fanout(struct slot *s, void *userdata)
{
	const struct op_news *n = userdata;
	const struct pcierr_op_done *d = n->d;
	char results[1024];
	const char *result;

	format_results(d, results, sizeof(results));
	result = n->lost ? "timeout" : d->error ? "failed" : d->op == PCIERR_CMD_REPORT ?
		 (pcierr_result_to_string(d->result) ?: "none") : "ok";
	report_step(s, step_name(d), result, d->duration_ns / 1000);
	history(s, NULL, PCIERR_HISTORY_STEP, step_name(d), result, results,
		d->duration_ns / 1000, -(int)d->error, d->error ? strerror(d->error) : "", NULL);
	log_info("Slot %s: %s: %s (%llu ms)%s%s", s->addr, step_name(d), result,
		 (unsigned long long)(d->duration_ns / 1000000),
		 results[0] ? " " : "", results);
}

/* the topology may have changed: the next decision needs the new list */
static bool changes_devices(enum pcierr_cmd op)
{
	return op == PCIERR_CMD_REMOVE || op == PCIERR_CMD_RESCAN ||
	       op == PCIERR_CMD_DISABLE || op == PCIERR_CMD_ENABLE;
}

/*
 * kept: a lost OP_DONE of a REPORT whose merged answer the shim kept
 * (check_op(), the policy's LOST); UNSPEC: d's own results
 */
static void op_done(struct manager *m, const struct pcierr_op_done *d, bool lost,
		    enum pcierr_result kept)
{
	_cleanup_free_ struct pcierr_policy_result *res = NULL;
	struct slot *s = manager_find_slot(m, d->pe);
	struct op_news news = { .d = d, .lost = lost };
	struct pcierr_policy_event ev;

	if (!s)
		return;
	/* the PE as the operation left it: what the next command names */
	if (s->recovery.op_id == d->op_id && d->pe_id)
		s->pe_id = d->pe_id;
	if (s->recovery.op_id == 0 || s->recovery.op_id != d->op_id) {
		if (s->recovery.op_id == 0 && !slot_recovery_busy(&s->recovery)) {
			/* someone else's operation (a pcierrd before a
			 * restart, a tool): look at the slot now */
			(void)manager_refresh_slot(m, s);
			s = manager_find_slot(m, d->pe);
			/* a healthy slot (the shim's owner timeout recovered
			 * it) is not fed a freeze */
			if (s && !slot_recovery_busy(&s->recovery) && !(s->flags & PCIERR_PE_F_BUSY) &&
			    !recovery_resync_lost_end(s) && slot_unhealthy(s))
				recovery_resync_slot(s);
		} else
			log_debug("Slot %s: OP_DONE of operation %" PRIu64 " ignored (waiting for %" PRIu64 ").",
				  s->addr, d->op_id, s->recovery.op_id);
		return;
	}
	s->recovery.op_id = 0;
	disarm(s);
	if (d->detail.severity != PCIERR_DETAIL_UNSPEC) {	/* DISABLE on pseries */
		char dh[64];

		log_error_detail(s->addr, NULL, &d->detail, dh, sizeof(dh));
	}

	if (s->recovery.outside_policy) {
		s->recovery.outside_policy = false;
		if (d->error)
			log_error("Slot %s: %s failed: %s", s->addr, pcierr_op_to_string(d->op),
				  strerror(d->error));
		else
			log_info("Slot %s: %s done.", s->addr, pcierr_op_to_string(d->op));
		(void)manager_refresh_slot(m, s);
		return;
	}

	if (d->error && !lost && s->recovery.n_remove_queue == 0 &&
	    sort_error(s, d->op, -(int)d->error)) {
		op_done_fanout(s, &news);
		return;
	}
	if (d->error && d->op == PCIERR_CMD_DISABLE)
		s->recovery.disable_failed = true;

	if (s->recovery.n_remove_queue > 0) {
		uint64_t op_id;
		int r;

		if (d->error && !s->recovery.remove_error)
			s->recovery.remove_error = -(int)d->error;
		memmove(&s->recovery.remove_queue[0], &s->recovery.remove_queue[1],
			(s->recovery.n_remove_queue - 1) * sizeof(*s->recovery.remove_queue));
		if (--s->recovery.n_remove_queue > 0) {
			r = issue_remove_next(s, &op_id);
			if (r == 0) {
				/* U6: the PE's own StepTimeoutSec, as the
				 * policy gave it for the first */
				started(s, PCIERR_CMD_REMOVE, op_id, s->recovery.retry_timeout);
				return;
			}
			if (!s->recovery.remove_error)
				s->recovery.remove_error = r;
		}
	}

	if (changes_devices(d->op) || lost) {
		(void)manager_refresh_slot(m, s);
		s = manager_find_slot(m, d->pe);
		if (!s)
			return;
	}

	if (d->n_results > 0) {
		res = calloc(d->n_results, sizeof(*res));
		if (!res) {
			log_error("Slot %s: out of memory.", s->addr);
			return;
		}
		for (size_t i = 0; i < d->n_results; i++) {
			snprintf(res[i].addr, sizeof(res[i].addr), "%s", d->results[i].addr);
			res[i].result = d->results[i].result;
		}
	}
	ev = (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.op = d->op,
		.step = d->step,
		.error = d->error ? -(int)d->error : s->recovery.remove_error,
		.results = res,
		.n_results = d->n_results,
		.merged = kept,
	};
	s->recovery.remove_error = 0;
	feed_then(s, &ev, op_done_fanout, &news);
	s = manager_find_slot(m, d->pe);
	if (s && !changes_devices(d->op))
		manager_schedule_refresh(m, s);
}

void recovery_on_op_done(struct manager *m, const struct pcierr_op_done *d)
{
	op_done(m, d, false, PCIERR_RESULT_UNSPEC);
}

/* ---------------------------------------------------------------------- */
/* RECOVER (issue 12) */

static const char *rstep_name(const struct pcierr_recover_step *st)
{
	if (st->op == PCIERR_CMD_REPORT)
		return pcierr_step_to_string(st->step) ?: "report";
	return pcierr_op_to_string(st->op) ?: "?";
}

/* Does the policy's next command equal what the kernel did next? */
static bool same_command(const struct pcierr_policy_output *out,
			 const struct pcierr_recover_step *st)
{
	switch (out->action) {
	case PCIERR_ACTION_REPORT:
		return st->op == PCIERR_CMD_REPORT && st->step == out->step;
	case PCIERR_ACTION_ENABLE_IO:
		return st->op == PCIERR_CMD_ENABLE_IO;
	case PCIERR_ACTION_RESET:
		return st->op == PCIERR_CMD_RESET && st->reset_type == out->reset_type;
	default:
		return false;
	}
}

struct recover_news {
	const struct pcierr_recover_done *rd;
	bool lost;
};

/* each step's news, in order: what a step at a time would have said */
static void recover_fanout(struct slot *s, void *userdata)
{
	const struct recover_news *n = userdata;
	const struct pcierr_recover_done *rd = n->rd;

	for (size_t i = 0; i < rd->n_steps; i++) {
		const struct pcierr_recover_step *st = &rd->steps[i];
		struct pcierr_op_done d = {
			.op = st->op,
			.step = st->step,
			.result = st->result,
			.error = st->error,
			.duration_ns = st->duration_ns,
			.n_results = st->n_results,
			.results = st->results,
		};
		struct op_news on = { .d = &d };

		op_done_fanout(s, &on);
	}
	log_info("Slot %s: recover: %zu steps in one operation (%llu ms), stopped: %s%s.",
		 s->addr, rd->n_steps, (unsigned long long)(rd->duration_ns / 1000000),
		 pcierr_recover_stop_to_string(rd->stop) ?: "?",
		 n->lost ? " (its completion was read back)" : "");
}

/* the policy's view of one step's results */
static struct pcierr_policy_result *step_results(const struct pcierr_recover_step *st)
{
	struct pcierr_policy_result *res;

	if (st->n_results == 0)
		return NULL;
	res = calloc(st->n_results, sizeof(*res));
	if (!res)
		return NULL;
	for (size_t i = 0; i < st->n_results; i++) {
		snprintf(res[i].addr, sizeof(res[i].addr), "%s", st->results[i].addr);
		res[i].result = st->results[i].result;
	}
	return res;
}

/* lost: read back from GET_PE, whose steps keep the merged answer only */
static struct pcierr_policy_event step_event(const struct pcierr_recover_step *st,
					     const struct pcierr_policy_result *res, bool lost)
{
	return (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.op = st->op,
		.step = st->step,
		.error = st->error ? -st->error : 0,
		.results = res,
		.n_results = st->n_results,
		.merged = lost && st->op == PCIERR_CMD_REPORT && st->n_results == 0 ?
			  st->result : PCIERR_RESULT_UNSPEC,
	};
}

/*
 * The steps of a RECOVER go through the policy one by one, as their
 * OP_DONEs would have: each step the kernel went on with must be the
 * command the policy chooses (no command is sent for it); from the last
 * step (or the first one where the policy would choose otherwise: a
 * freeze folded in meanwhile) the policy's choice is carried out as
 * usual. The signals, journal and history of every step follow the
 * command (act first, fan out after).
 */
static bool recover_done(struct manager *m, const struct pcierr_recover_done *rd, bool lost)
{
	_cleanup_free_ struct pcierr_policy_output *out = calloc(1, sizeof(*out));
	_cleanup_free_ struct pending *pend = calloc(1, sizeof(*pend));
	_cleanup_free_ struct pcierr_policy_result *res = NULL;
	struct slot *s = manager_find_slot(m, rd->pe);
	struct recover_news news = { .rd = rd, .lost = lost };
	struct pcierr_policy_event ev;
	size_t i = 0;

	if (!s)
		return false;
	if (s->recovery.op_id == 0 && !slot_recovery_busy(&s->recovery) && !admin_pending(s) &&
	    rd->n_steps > 0 && rd->steps[0].op == PCIERR_CMD_REPORT &&
	    rd->steps[0].step == PCIERR_STEP_ERROR_DETECTED &&
	    pcierr_policy_resume_hotplug(&s->recovery.policy, PCIERR_CMD_RECOVER, now_realtime_usec(),
					 now_boottime_usec()) == 0) {
		/* a pcierrd before a restart started it (scenario 25): its
		 * steps finish that recovery here, the freeze counted then */
		log_notice("Slot %s: a recover started before pcierrd restarted has finished; taking its steps up.",
			   s->addr);
		emit_started(s);
		s->recovery.op_id = rd->op_id;
		s->recovery.end_checked = rd->op_id;
	}
	if (s->recovery.op_id == 0 || s->recovery.op_id != rd->op_id) {
		log_debug("Slot %s: completion of recover %" PRIu64 " ignored (waiting for %" PRIu64 ").",
			  s->addr, rd->op_id, s->recovery.op_id);
		if (s->recovery.op_id == 0 && !slot_recovery_busy(&s->recovery))
			manager_schedule_refresh(m, s);
		return false;
	}
	if (rd->pe_id)
		s->pe_id = rd->pe_id;
	s->recovery.op_id = 0;
	disarm(s);
	if (s->recovery.outside_policy) {
		/* an automatic RECOVER the policy did not take up */
		s->recovery.outside_policy = false;
		log_info("Slot %s: recover %" PRIu64 " (started by the shim) ended: %s.", s->addr,
			 rd->op_id, pcierr_recover_stop_to_string(rd->stop) ?: "?");
		(void)manager_refresh_slot(m, s);
		return false;
	}
	if (!out || !pend) {
		log_error("Slot %s: out of memory.", s->addr);
		return true;
	}
	if (rd->n_steps == 0) {
		/* nothing ran (the PE went away): as error_detected failing */
		struct pcierr_op_done d = {
			.op_id = rd->op_id, .op = PCIERR_CMD_REPORT,
			.step = PCIERR_STEP_ERROR_DETECTED, .pe_id = rd->pe_id,
			.error = rd->error ? rd->error : EIO, .duration_ns = rd->duration_ns,
		};

		snprintf(d.pe, sizeof(d.pe), "%s", rd->pe);
		s->recovery.op_id = rd->op_id;
		op_done(m, &d, lost, PCIERR_RESULT_UNSPEC);
		return true;
	}

	for (i = 0; i + 1 < rd->n_steps; i++) {
		_cleanup_free_ struct pcierr_policy_device *devs = NULL;
		_cleanup_free_ struct pcierr_policy_result *sres = NULL;
		struct pcierr_recovery saved = s->recovery.policy;
		struct pcierr_policy_pe pe;
		int r;

		sres = step_results(&rd->steps[i]);
		ev = step_event(&rd->steps[i], sres, lost);
		if (rd->steps[i].n_results && !sres)
			break;
		r = build_pe(s, &pe, &devs);
		if (r >= 0)
			r = pcierr_policy_step(&m->config, &pe, &s->recovery.policy, &ev, out);
		if (r < 0 || !same_command(out, &rd->steps[i + 1]) || out->n_effects > 0) {
			/* the policy decides here: from this step on as usual */
			s->recovery.policy = saved;
			if (r >= 0)
				log_notice("Slot %s: after %s the kernel went on with %s, the policy chose %s; going on from %s.",
					   s->addr, rstep_name(&rd->steps[i]),
					   rstep_name(&rd->steps[i + 1]),
					   pcierr_policy_action_to_string(out->action),
					   rstep_name(&rd->steps[i]));
			break;
		}
		/* the kernel did what the policy chose */
		s->recovery.policy.stuck = false;
	}
	res = step_results(&rd->steps[i]);
	ev = step_event(&rd->steps[i], res, lost);
	s->recovery.op = rd->steps[i].op;
	s->recovery.op_step = rd->steps[i].step;
	feed_then(s, &ev, recover_fanout, &news);
	s = manager_find_slot(m, rd->pe);
	if (s)
		manager_schedule_refresh(m, s);
	return true;
}

void recovery_on_recover_done(struct manager *m, const struct pcierr_recover_done *rd)
{
	(void)recover_done(m, rd, false);
}

/*
 * A RECOVER's completion was lost (H1): its steps as the kernel kept
 * them (GET_PE's last operation, without per-device results: each
 * step's merged answer, read as the policy reads a kept answer). 0 when
 * it was handled.
 */
static int recover_lost(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_recover_done rd = { 0 };
	int r;

	if (!m->kops->last_recover || !m->kernel)
		return -EOPNOTSUPP;
	r = m->kops->last_recover(m->kernel, s->addr, &rd);
	if (r < 0)
		return r;
	if (rd.op_id != s->recovery.op_id) {
		pcierr_recover_done_clear(&rd);
		return -ENOMSG;
	}
	log_struct(LOG_WARNING, PCIERR_MESSAGE_STUCK, s->addr, NULL, NULL,
		   "Slot %s: the shim finished recover but its completion never came; going on with the steps the shim kept.",
		   s->addr);
	(void)recover_done(m, &rd, true);
	pcierr_recover_done_clear(&rd);
	return 0;
}

/*
 * The step timeout of a command (H1): the kernel says whether the PE
 * still runs an operation. Not busy (or gone): its OP_DONE was lost (an
 * overrun, a message the library could not parse): go on as if it failed.
 * Busy: a driver is slow; STUCK is reported once and the kernel is asked
 * again later.
 */
static void check_op(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_pe pe = { 0 };
	struct pcierr_policy_query q = {
		.question = PCIERR_PLAN_LOST,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.op = s->recovery.op,
		.step = s->recovery.op_step,
	};
	struct pcierr_policy_plan p;
	struct pcierr_op_done d;
	pcierr_usec_t again;
	uint64_t took_ns = 0, pe_id = 0;
	enum pcierr_pe_state pe_state = PCIERR_PE_STATE_UNSPEC;
	bool busy = true;
	int r = -ENOTCONN;

	if (m->kernel && m->kernel_connected)
		r = m->kops->pe_get(m->kernel, s->addr, &pe);
	if (r == -ENODEV)
		busy = false;
	else if (r >= 0 && pe.last_op.op_id == s->recovery.op_id) {
		/* ABI v2: the shim says how our operation ended */
		busy = !pe.last_op.done;
		if (pe.last_op.done) {
			q.kept = true;
			q.error = -(int)pe.last_op.error;
			q.result = pe.last_op.result;
			took_ns = pe.last_op.duration_ns;
			pe_state = pe.last_op.pe_state;
			pe_id = pe.id;
		}
	} else if (r >= 0 && !(pe.flags & PCIERR_PE_F_BUSY))
		busy = false;
	pcierr_pe_clear(&pe);

	if (!busy) {
		/* what the lost end means is the policy's */
		if (!plan(s, &q, &p))
			return;
		if (p.replay && recover_lost(s) == 0)
			return;
		d = (struct pcierr_op_done) {
			.op_id = s->recovery.op_id,
			.op = p.lost.op,
			.step = p.lost.step,
			.pe_id = pe_id,
			.error = -p.lost.error,
			.result = p.lost.merged,
			.pe_state = pe_state,
			.duration_ns = q.kept && !p.replay ? took_ns :
				       (now_monotonic_usec() - s->recovery.step_started_mono) * 1000,
		};
		snprintf(d.pe, sizeof(d.pe), "%s", s->addr);
		s->recovery.op = d.op;
		log_struct(LOG_WARNING, PCIERR_MESSAGE_STUCK, s->addr, NULL, NULL,
			   "Slot %s: the shim finished %s but its completion never came; %s.",
			   s->addr, step_name(&d), q.kept && !p.replay ?
			   "going on with the result the shim kept" : "going on as if it failed");
		op_done(m, &d, !q.kept || p.replay, p.lost.merged);
		return;
	}

	if (!s->recovery.policy.stuck) {
		struct pcierr_policy_event ev = {
			.type = PCIERR_POLICY_EV_TIMEOUT,
			.now = now_realtime_usec(),
			.mono = now_boottime_usec(),
		};

		feed(s, &ev);	/* STUCK, reported once */
	}
	/* the PE's own StepTimeoutSec (U6), doubled each time */
	again = step_timeout(s);
	for (unsigned int i = 0; i < s->recovery.op_checks && again < OP_RECHECK_MAX_USEC; i++)
		again *= 2;
	again = MIN(MAX(again, PCIERR_USEC_PER_SEC), OP_RECHECK_MAX_USEC);
	s->recovery.op_checks++;
	if (r < 0)
		log_warning_errno(r, "Slot %s: cannot ask the kernel after %s: %m; asking again in %llu s.",
				  s->addr, pcierr_op_to_string(s->recovery.op) ?: "?",
				  (unsigned long long)(again / PCIERR_USEC_PER_SEC));
	else
		log_warning("Slot %s: %s is still running in the kernel; asking again in %llu s.",
			    s->addr, pcierr_op_to_string(s->recovery.op) ?: "?",
			    (unsigned long long)(again / PCIERR_USEC_PER_SEC));
	arm(s, again);
}

static void recovery_op_maybe_lost(struct slot *s)
{
	if (s->recovery.op_id == 0)
		return;
	/* the timer then asks the kernel (check_op) */
	if (!s->recovery.timer || s->recovery.op_checks == 0) {
		log_debug("Slot %s: the shim is done with operation %" PRIu64 "; its OP_DONE is due.",
			  s->addr, s->recovery.op_id);
		arm(s, OP_LOST_GRACE_USEC);
	}
}

struct aer_news {
	const struct pcierr_uevent *u;
	bool whole;
	bool first;		/* BEGIN, or news of an idle slot */
	bool frozen;		/* the channel was frozen */
};

static const char *const aer_names[] = {
	[PCIERR_POLICY_AER_BEGIN] = "begin",
	[PCIERR_POLICY_AER_SUCCESSFUL] = "successful",
	[PCIERR_POLICY_AER_FAILED] = "failed",
};

static void aer_fanout(struct slot *s, void *userdata)
{
	const struct aer_news *n = userdata;
	const struct pcierr_uevent *u = n->u;
	char message[128];

	snprintf(message, sizeof(message), "kernel AER recovery %s (%s)", aer_names[u->aer],
		 n->frozen ? "fatal: frozen, counted" : "non-fatal: not counted");
	if (n->first) {
		log_struct(LOG_WARNING, PCIERR_MESSAGE_ERROR_DETECTED, s->addr, u->addr, NULL,
			   "PCI error on %s (slot %s): the kernel's AER recovery %s (%s).", u->addr,
			   s->addr, u->aer == PCIERR_POLICY_AER_BEGIN ? "began" :
			   u->aer == PCIERR_POLICY_AER_SUCCESSFUL ? "succeeded" : "failed",
			   n->frozen ? "fatal" : "non-fatal");
		report_error(s, n->whole ? "" : u->addr, n->frozen ? "frozen" : "normal", 0, "aer");
		history(s, n->whole ? NULL : u->addr, PCIERR_HISTORY_EVENT, "aer", aer_names[u->aer],
			"", 0, 0, message, NULL);
	} else {
		log_info("Slot %s: %s (%s).", s->addr, message, u->addr);
		history(s, n->whole ? NULL : u->addr, PCIERR_HISTORY_STEP, "aer", aer_names[u->aer],
			"", 0, 0, message, NULL);
	}
}

enum aer_severity {
	AER_SEV_UNKNOWN,	/* no counter moved: DPC, EDR, no AER stats */
	AER_SEV_NONFATAL,
	AER_SEV_FATAL,
};

/*
 * What the kernel's AER counters of the slot's devices say since they
 * were last read (aer-stats.h); the non-fatal errors are recorded on the
 * devices that reported them. baseline: only take the values in.
 */
static enum aer_severity aer_read_severity(struct slot *s, bool baseline, const char *named)
{
	const bool was_baseline = baseline;
	struct manager *m = s->manager;
	bool fatal = false, nonfatal = false, recorded = false;

	for (size_t i = 0; i < s->n_devices; i++) {
		struct device *d = s->devices[i];
		struct aer_stats st;
		bool known = d->aer_known;

		if (baseline && known)
			continue;
		aer_stats_read(m->sysfs_pci, d->addr, &st);
		d->aer_known = true;
		if (!st.present)
			continue;
		/* never read before: its counts are from before pcierrd */
		if (!known)
			baseline = true;
		if (!baseline && (st.fatal > d->aer_fatal_seen || st.rp_fatal > d->aer_rp_fatal_seen))
			fatal = true;
		if (!baseline && st.rp_nonfatal > d->aer_rp_nonfatal_seen)
			nonfatal = true;
		if (!baseline && st.nonfatal > d->aer_nonfatal_seen) {
			nonfatal = true;
			recorded = true;
			d->nonfatal_errors += st.nonfatal - d->aer_nonfatal_seen;
			observe_device_changed(d);
		}
		d->aer_fatal_seen = st.fatal;
		d->aer_nonfatal_seen = st.nonfatal;
		d->aer_rp_fatal_seen = st.rp_fatal;
		d->aer_rp_nonfatal_seen = st.rp_nonfatal;
		baseline = was_baseline;
	}
	if (fatal)
		return AER_SEV_FATAL;
	if (!nonfatal)
		return AER_SEV_UNKNOWN;
	m->counters.nonfatal_errors++;
	if (!recorded && named) {
		/* a device without AER statistics: its root port counted it */
		struct device *d = manager_find_device(m, named);

		if (d) {
			d->nonfatal_errors++;
			observe_device_changed(d);
		}
	}
	return AER_SEV_NONFATAL;
}

void recovery_aer_baseline(struct slot *s)
{
	(void)aer_read_severity(s, true, NULL);
}

void recovery_on_aer(struct manager *m, const struct pcierr_uevent *u)
{
	struct slot *s = manager_find_slot_for(m, u->addr);
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_AER,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.aer = u->aer,
	};
	struct aer_news news = { .u = u };
	enum aer_severity sev;
	bool idle;

	if (!s) {
		log_debug("AER recovery event for %s outside any slot; ignored.", u->addr);
		return;
	}
	if (s->state == PCIERR_PE_STATE_DISABLED)
		return;

	/*
	 * U3: frozen or not, from the kernel's counters (docs/pcierrd.conf.md):
	 * the first news of a recovery with no counter moved is frozen (DPC
	 * and EDR recover frozen channels only); a later function of the same
	 * recovery makes it frozen only when a fatal counter moved
	 */
	idle = s->recovery.policy.phase == PCIERR_PHASE_IDLE;
	sev = aer_read_severity(s, false, u->addr);
	ev.aer_frozen = idle ? sev != AER_SEV_NONFATAL : sev == AER_SEV_FATAL;
	news.frozen = idle ? ev.aer_frozen : s->recovery.policy.kernel_frozen || ev.aer_frozen;

	/* the kernel names the bridge it recovered below: the whole slot */
	news.whole = strcmp(u->addr, s->addr) == 0;
	news.first = idle;
	ev.device = news.whole ? NULL : u->addr;
	feed_then(s, &ev, aer_fanout, &news);
	s = manager_find_slot_for(m, u->addr);
	if (s)
		manager_schedule_refresh(m, s);
}

void recovery_on_device_removed(struct manager *m, const char *addr)
{
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		if (s->recovery.n_udev_pending == 0)
			continue;
		for (size_t j = 0; j < s->recovery.n_udev_pending; j++)
			if (strcmp(s->recovery.udev_pending[j], addr) == 0) {
				memmove(&s->recovery.udev_pending[j], &s->recovery.udev_pending[j + 1],
					(s->recovery.n_udev_pending - j - 1) * sizeof(*s->recovery.udev_pending));
				s->recovery.n_udev_pending--;
				break;
			}
		if (s->recovery.waiting_udev && s->recovery.n_udev_pending == 0) {
			struct pcierr_policy_event ev = {
				.type = PCIERR_POLICY_EV_WAIT_DONE,
				.now = now_realtime_usec(),
				.mono = now_boottime_usec(),
			};
			pcierr_usec_t took = now_monotonic_usec() - s->recovery.step_started_mono;

			s->recovery.waiting_udev = false;
			disarm(s);
			log_info("Slot %s: wait_udev: ok (%llu ms)", s->addr,
				 (unsigned long long)(took / 1000));
			report_step(s, "wait_udev", "ok", took);
			history(s, NULL, PCIERR_HISTORY_STEP, "wait_udev", "ok", "", took, 0, "", NULL);
			feed(s, &ev);
			return;	/* feed() may have changed the slots */
		}
	}
}

/*
 * A hot-unplug recovery cut short by a restart of pcierrd (scenario 30):
 * the kernel's state tells where it was. The PE emptied by REMOVE (state
 * removed), or emptied with a RESET as its last operation (state reset, no
 * card): the recovery is finished as the policy would have gone on,
 * reset (if the PE still needs one: after REMOVE) and rescan, with its
 * RecoveryStarted/Finished and history. Acted on but maybe not written:
 * nothing; the freeze was counted by the pcierrd that began the recovery
 * (its devices are gone from the kernel's dump, so none is counted here).
 * True when it took the slot over.
 */
static bool resume_hotplug(struct slot *s)
{
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
	};
	size_t cards = 0;

	for (size_t i = 0; i < s->n_devices; i++)
		if (!is_head(s, s->devices[i]))
			cards++;
	if (s->state == PCIERR_PE_STATE_REMOVED)
		ev.op = PCIERR_CMD_REMOVE;
	else if (s->state == PCIERR_PE_STATE_RESET && cards == 0 &&
		 s->last_op.op_id != 0 && s->last_op.done && s->last_op.op == PCIERR_CMD_RESET)
		ev.op = PCIERR_CMD_RESET;
	else
		return false;
	if (s->last_op.op_id != 0 && s->last_op.done && s->last_op.op == ev.op)
		ev.error = -s->last_op.error;
	if (pcierr_policy_resume_hotplug(&s->recovery.policy, ev.op, ev.now, ev.mono) < 0)
		return false;
	log_notice("Slot %s found %s with no card by a resync: a hot-unplug recovery was cut short (pcierrd restarted after its %s); finishing it.",
		   s->addr, pcierr_pe_state_to_string(s->state) ?: "?",
		   pcierr_op_to_string(ev.op) ?: "?");
	emit_started(s);
	history(s, NULL, PCIERR_HISTORY_STEP, pcierr_op_to_string(ev.op) ?: "?",
		ev.error ? "failed" : "ok", "", 0, ev.error, "found by a resync after a restart",
		NULL);
	feed(s, &ev);
	return true;
}

/*
 * pcierrd SIGKILLed while the kernel ran a RECOVER it had sent, and the
 * RECOVER ended before this pcierrd started (scenario 31): the kernel
 * kept its steps (GET_PE's last operation); they go through the policy as
 * their completion would have (recover_done(): RecoveryStarted, each
 * step's signal and history, and from the last step the policy's choice:
 * RecoveryFinished when it recovered, the next command when it stopped
 * short). The freeze was counted by the pcierrd that sent it (its count
 * was queued before the "recover started" entry that brought us here).
 */
static bool take_up_recover(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_recover_done rd = { 0 };
	bool took;
	int r;

	if (!m->kops->last_recover || !m->kernel)
		return false;
	r = m->kops->last_recover(m->kernel, s->addr, &rd);
	if (r < 0 || rd.op_id != s->last_op.op_id) {
		if (r < 0)
			log_debug_errno(r, "Slot %s: cannot read back recover %" PRIu64 ": %m",
					s->addr, s->last_op.op_id);
		pcierr_recover_done_clear(&rd);
		return false;
	}
	log_notice("Slot %s: recover %" PRIu64 " (sent before pcierrd restarted) ended while no pcierrd ran; the history has no end for it: recording its %zu steps and going on from the last.",
		   s->addr, rd.op_id, rd.n_steps);
	took = recover_done(m, &rd, true);
	pcierr_recover_done_clear(&rd);
	return took;
}

/*
 * pcierrd SIGKILLed during the DISABLE that ends a recovery: the identity
 * was disabled (its "disable" entry and mark are in the store), the
 * kernel finished the DISABLE, nobody recorded the recovery's end. It is
 * recorded now, as the DISABLE's completion would have: RecoveryStarted
 * and Finished "disabled", PermanentlyDisabled, the "recovery" entry. The
 * identity is not disabled again, no freeze counted again.
 */
static bool take_up_disable(struct slot *s)
{
	struct manager *m = s->manager;
	_cleanup_free_ struct pcierr_disabled *dis = NULL;
	struct pcierr_policy_output out = {
		.action = PCIERR_ACTION_DONE,
		.reason = PCIERR_REASON_TOO_MANY_FREEZES,
		.duration_usec = s->last_op.duration_ns / 1000,
	};
	size_t n = 0;

	s->recovery.disabled_device[0] = 0;
	if (pcierr_state_find_disabled(m->state, s->addr, &dis, &n) >= 0 && n > 0) {
		/* the newest */
		size_t k = 0;

		for (size_t i = 1; i < n; i++)
			if (dis[i].since_usec > dis[k].since_usec)
				k = i;
		if (dis[k].reason >= PCIERR_REASON_TOO_MANY_FREEZES &&
		    dis[k].reason < PCIERR_REASON_OP_FAILED)
			out.reason = dis[k].reason;
		snprintf(out.message, sizeof(out.message), "%.*s", (int)sizeof(out.message) - 1,
			 dis[k].message);
		snprintf(s->recovery.disabled_device, sizeof(s->recovery.disabled_device), "%s", dis[k].device);
	}
	log_notice("Slot %s: disable %" PRIu64 " (sent before pcierrd restarted) is done; the history has no end for its recovery: recording it.",
		   s->addr, s->last_op.op_id);
	emit_started(s);
	/* the step, as its OP_DONE would have told it (without the
	 * per-device answers: GET_PE keeps none) */
	report_step(s, "disable", s->last_op.error ? "failed" : "ok", out.duration_usec);
	history(s, NULL, PCIERR_HISTORY_STEP, "disable", s->last_op.error ? "failed" : "ok", "",
		out.duration_usec, -s->last_op.error,
		s->last_op.error ? strerror(s->last_op.error) : "", NULL);
	finish(s, &out);
	return true;
}

static bool recovery_resync_lost_end(struct slot *s)
{
	struct manager *m = s->manager;
	enum pcierr_history_kind kind;
	uint64_t marked = 0;
	int r;

	if (slot_recovery_busy(&s->recovery) || admin_pending(s) || !m->kernel_connected || !m->state ||
	    (s->flags & PCIERR_PE_F_BUSY) || s->last_op.op_id == 0 || !s->last_op.done ||
	    s->last_op.op_id == s->recovery.end_checked)
		return false;
	if (s->last_op.op != PCIERR_CMD_RECOVER &&
	    !(s->last_op.op == PCIERR_CMD_DISABLE && s->state == PCIERR_PE_STATE_DISABLED))
		return false;
	/* once per operation (the history is read back at most once each) */
	s->recovery.end_checked = s->last_op.op_id;
	r = pcierr_state_last_recovery_mark(m->state, s->addr, &kind, &marked);
	if (r < 0) {
		log_warning_errno(r, "Slot %s: cannot read its history back: %m", s->addr);
		return false;
	}
	if (r == 0)
		return false;
	if (s->last_op.op == PCIERR_CMD_RECOVER) {
		/* that very RECOVER began the newest recovery, none ended it */
		if (kind != PCIERR_HISTORY_STEP || marked != s->last_op.op_id)
			return false;
		return take_up_recover(s);
	}
	/* an identity disabled, no recovery ended after it */
	if (kind != PCIERR_HISTORY_DISABLE)
		return false;
	return take_up_disable(s);
}

static void recovery_resync_slot(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_FREEZE,
		.now = now_realtime_usec(),
		.mono = now_boottime_usec(),
		.state = PCIERR_STATE_FROZEN,
		.freeze_kind = PCIERR_FREEZE_COUNTED,
	};
	const struct device *named = NULL;
	uint64_t op_id;
	int r;

	if (slot_recovery_busy(&s->recovery) || !m->kernel_connected)
		return;
	/* nothing to recover until an administrator's Enable (a DISABLE
	 * someone else finished comes here from its OP_DONE) */
	if (s->state == PCIERR_PE_STATE_DISABLED)
		return;
	if (admin_pending(s)) {
		/* the freeze of an administrator's Reset: its event comes
		 * (until its deadline; then this slot is recovered as found) */
		log_debug("Slot %s: a Reset is pending; its event decides.", s->addr);
		return;
	}
	s->recovery.admin_reset = false;
	if ((s->flags & PCIERR_PE_F_BUSY) && s->recovery.armed && s->last_op.op_id != 0 &&
	    s->last_op.op == PCIERR_CMD_RECOVER && !s->last_op.done) {
		/* the RECOVER the shim started on its own (armed) for a freeze
		 * whose EVENT was lost: the freeze counted, its RECOVER awaited */
		log_notice("Slot %s: the shim recovers a freeze whose event was lost (recover %" PRIu64 ", armed); taking it up.",
			   s->addr, s->last_op.op_id);
		s->recovery.armed = false;
		s->recovery.auto_op_id = s->last_op.op_id;
	} else if (s->flags & PCIERR_PE_F_BUSY) {
		/* its OP_DONE will tell (recovery_on_op_done) */
		log_info("Slot %s: an operation started before is still running; waiting for it.",
			 s->addr);
		return;
	}
	if (!s->recovery.auto_op_id && resume_hotplug(s))
		return;
	if (!s->recovery.auto_op_id && s->state == PCIERR_PE_STATE_REMOVED) {
		log_notice("Slot %s was left hot-unplugged; rescanning.", s->addr);
		r = m->kops->rescan(m->kernel, s->addr, s->pe_id, &op_id);
		if (r < 0) {
			log_error_errno(r, "Slot %s: rescan failed: %m", s->addr);
			return;
		}
		s->recovery.outside_policy = true;
		started(s, PCIERR_CMD_RESCAN, op_id, step_timeout(s));
		return;
	}

	for (size_t i = 0; i < s->n_devices; i++) {
		const struct device *d = s->devices[i];

		if (d->state == PCIERR_STATE_PERM_FAILURE)
			ev.state = PCIERR_STATE_PERM_FAILURE;
		if (d->state != PCIERR_STATE_NORMAL && d->state != PCIERR_STATE_UNSPEC) {
			if (!named)
				named = d;
			/* an error the store has not counted: count it now */
			if (!counted_before(d, d->error_gen)) {
				named = d;
				ev.freeze_kind = PCIERR_FREEZE_DETECTED;
			}
		}
	}
	if (named)
		ev.device = named->addr;
	log_notice("Slot %s found %s by a resync (%s); recovering.", s->addr,
		   pcierr_pe_state_to_string(s->state) ?: "?",
		   ev.freeze_kind == PCIERR_FREEZE_DETECTED ? "a freeze not counted yet" :
		   named ? "counted before" : "a disabled card is back");
	ev.slot_empty = ev.state == PCIERR_STATE_PERM_FAILURE &&
			slot_empty(s, named ? named->addr : NULL);
	feed(s, &ev);
	auto_not_taken(s);
}

void recovery_kernel_gone(struct manager *m)
{
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		m->arm_unsupported = false;	/* another module may come */
		s->recovery.admin_reset = false;
		s->recovery.armed = false;	/* the arms went with the shim */
		s->recovery.auto_op_id = 0;
		if (!slot_recovery_busy(&s->recovery))
			continue;
		abandon(s);
	}
}

static int request_reset(struct slot *s, enum pcierr_reset_type type,
			 char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	const struct device *d = NULL;
	uint64_t seq;
	int r;

	if (type == PCIERR_RESET_UNSPEC)
		type = PCIERR_RESET_HOT;
	if (slot_recovery_busy(&s->recovery) || admin_pending(s)) {
		snprintf(msg, msg_size, "Slot %s is recovering; try again when it is done", s->addr);
		return -EBUSY;
	}
	if (s->state == PCIERR_PE_STATE_DISABLED) {
		snprintf(msg, msg_size, "Slot %s is permanently disabled: enable it first (pcierrctl enable %s)",
			 s->addr, s->addr);
		return -EINVAL;
	}
	if (!(s->reset_types & (1U << type))) {
		snprintf(msg, msg_size, "Slot %s cannot do a %s reset", s->addr,
			 pcierr_reset_type_to_string(type) ?: "?");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < s->n_devices && !d; i++)
		if (!is_head(s, s->devices[i]))
			d = s->devices[i];
	if (!d) {
		snprintf(msg, msg_size, "Slot %s holds no device to reset", s->addr);
		return -EINVAL;
	}
	/* not recovered by the shim on its own: the administrator's reset */
	if (s->recovery.armed)
		send_arm(s, false, PCIERR_RESET_UNSPEC);
	/* cut the slot off as for an error, then recover it by a reset */
	r = m->kops->inject(m->kernel, d->addr, s->pe_id, PCIERR_STATE_FROZEN, 0, &seq);
	if (r < 0) {
		const char *why = m->kops->last_error_message(m->kernel);

		snprintf(msg, msg_size, "The kernel refused to freeze %s: %s", d->addr,
			 why ? why : strerror(-r));
		return r == -EPROTONOSUPPORT ? -ENOTCONN : r;
	}
	s->recovery.admin_reset = true;
	s->recovery.admin_seq = seq;
	s->recovery.admin_type = type;
	/* its event is expected within the PE's step timeout (U6); a lost
	 * one must not keep the flag (review M3) */
	s->recovery.admin_deadline = now_monotonic_usec() + step_timeout(s);
	log_info("Slot %s: %s reset requested.", s->addr, pcierr_reset_type_to_string(type));
	return 0;
}

/*
 * Enable: the kernel first (a refused ENABLE changes nothing), then every
 * disabled mark and freeze record of the slot, queued together (review
 * L13).
 */
static int enable_slot(struct slot *s, char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	_cleanup_free_ struct pcierr_disabled *dis = NULL;
	size_t n = 0, enabled = 0;
	uint64_t op_id = 0;
	bool kernel = s->state == PCIERR_PE_STATE_DISABLED;
	int r;

	if (slot_recovery_busy(&s->recovery)) {
		snprintf(msg, msg_size, "Slot %s is recovering; try again when it is done", s->addr);
		return -EBUSY;
	}
	if (m->state) {
		r = pcierr_state_find_disabled(m->state, s->addr, &dis, &n);
		if (r < 0) {
			snprintf(msg, msg_size, "Failed to read the state store: %s", strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < s->n_devices; i++)
		if (s->devices[i]->history.disabled)
			enabled++;
	if (!kernel && enabled == 0 && n == 0) {
		snprintf(msg, msg_size, "Slot %s is not disabled", s->addr);
		return -EINVAL;
	}

	if (kernel) {
		if (!m->kernel_connected || !m->kernel) {
			snprintf(msg, msg_size, "The kernel shim is not loaded (modprobe pcierr_shim)");
			return -ENOTCONN;
		}
		r = m->kops->enable(m->kernel, s->addr, s->pe_id, &op_id);
		if (r < 0) {
			const char *why = m->kops->last_error_message(m->kernel);

			snprintf(msg, msg_size, "The kernel refused to enable %s: %s", s->addr,
				 why ? why : strerror(-r));
			return r;
		}
	}

	for (size_t i = 0; i < n; i++) {
		if (m->writer) {
			(void)state_writer_enable(m->writer, dis[i].key);
			(void)state_writer_clear_freeze(m->writer, dis[i].key, 0, 0);
		}
		history(s, dis[i].device, PCIERR_HISTORY_ENABLE, "", "enabled", "", 0, 0,
			"enabled by the administrator", NULL);
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		struct device *d = s->devices[i];
		char *empty;

		if (!d->history.disabled)
			continue;
		if (m->writer) {
			(void)state_writer_enable(m->writer, d->key);
			(void)state_writer_clear_freeze(m->writer, d->key, d->error_gen,
						      m->shim_load_id);
		}
		d->history = (struct pcierr_freeze_record) {
			.error_gen = d->error_gen, .load_id = m->shim_load_id,
		};
		empty = strdup("");
		if (empty) {
			free(d->disabled_reason);
			d->disabled_reason = empty;
		}
		observe_device_changed(d);
	}

	/* the card comes back soon and its record is read again: what was
	 * just queued is written first (an admin's call; bounded) */
	if (m->writer && state_writer_flush(m->writer, 2 * PCIERR_USEC_PER_SEC) < 0)
		log_warning("Slot %s: the state store is slow; the enabling is written later.", s->addr);
	if (kernel) {
		s->recovery.outside_policy = true;
		started(s, PCIERR_CMD_ENABLE, op_id, step_timeout(s));
	}
	s->status = (struct slot_status) { 0 };
	log_notice("Slot %s enabled by the administrator.", s->addr);
	observe_slot_changed(s);
	return 0;
}

static void recovery_slot_done(struct slot *s)
{
	disarm(s);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	drop_held(s);
	clear_queues(s);
	verify_slot_free(&s->recovery.verify);
}

int recovery_reset(struct manager *m, const char *addr,
		   enum pcierr_reset_type type, char *msg, size_t msg_size)
{
	struct slot *s = manager_find_slot_for(m, addr);

	if (!m->kernel || !m->kernel_connected) {
		snprintf(msg, msg_size, "The kernel shim is not loaded (modprobe pcierr_shim)");
		return -ENOTCONN;
	}
	if (!s) {
		snprintf(msg, msg_size, "No PCI device or slot %s is known to pcierr", addr);
		return -ENODEV;
	}
	return request_reset(s, type, msg, msg_size);
}

int recovery_enable(struct manager *m, const char *addr,
		    char *msg, size_t msg_size)
{
	struct slot *s = manager_find_slot_for(m, addr);
	char a[PCIERR_ADDR_MAX];

	if (pcierr_addr_normalize(addr, a) < 0) {
		snprintf(msg, msg_size, "Invalid PCI address '%s'", addr);
		return -EINVAL;
	}
	if (!s && m->state) {
		if (m->writer)
			(void)state_writer_flush(m->writer, 2 * PCIERR_USEC_PER_SEC);
		/* a former device of a disabled slot: the store knows where
		 * (once what is queued is written; an admin's call may wait
		 * for that a little, a recovery never does) */
		_cleanup_free_ struct pcierr_disabled *dis = NULL;
		size_t n = 0;

		if (pcierr_state_find_disabled(m->state, a, &dis, &n) >= 0 && n > 0)
			s = manager_find_slot(m, dis[0].pe);
	}
	if (!s) {
		snprintf(msg, msg_size, "No PCI device or slot %s is known to pcierr", a);
		return -ENODEV;
	}
	return enable_slot(s, msg, msg_size);
}

/* ---------------------------------------------------------------------- */
/* The manager's news (observer.h) */

static void on_slot_synced(struct slot *s, enum slot_sync how)
{
	struct manager *m = s->manager;
	char addr[PCIERR_ADDR_MAX];

	/* what a recovery has to bring back (issue 25) */
	if (!slot_recovery_busy(&s->recovery) && s->state == PCIERR_PE_STATE_NORMAL &&
	    !slot_unhealthy(s))
		verify_slot_remember(s, &s->recovery.verify);
	/* the kernel's AER counts of new devices, before any error of theirs */
	recovery_aer_baseline(s);

	switch (how) {
	case SLOT_SYNC_RESYNC:
		/* a recovery whose end a killed pcierrd did not record; once
		 * recorded, a PE frozen again since is recovered as found */
		snprintf(addr, sizeof(addr), "%s", s->addr);
		if (recovery_resync_lost_end(s) && manager_find_slot(m, addr) != s)
			return;
		if (!slot_recovery_busy(&s->recovery) && slot_unhealthy(s))
			recovery_resync_slot(s);
		else
			recovery_update_arm(s);	/* issue 12: PCIERR_CMD_ARM */
		break;
	case SLOT_SYNC_REFRESH:
		recovery_update_arm(s);	/* a new PE id re-arms */
		break;
	case SLOT_SYNC_DEVICE:
		/* U1: a bind, unbind, add or remove changes what the next
		 * freeze calls for: the arm follows before it can be used */
		if (!slot_recovery_busy(&s->recovery) && slot_unhealthy(s))
			recovery_resync_slot(s);
		else
			recovery_update_arm(s);
		break;
	}
}

static const struct manager_observer recovery_observer = {
	.slot_synced = on_slot_synced,
	.slot_op_idle = recovery_op_maybe_lost,
	.slot_freeing = recovery_slot_done,
};

int recovery_setup(struct manager *m)
{
	return manager_add_observer(m, &recovery_observer);
}

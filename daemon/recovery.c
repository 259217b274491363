// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recovery of one slot at a time, every slot on its own: each input (a
 * freeze, an AER uevent, an OP_DONE, a timer, udev done removing) goes
 * through pcierr_policy_step(); its effects are committed to the state
 * store before its action is carried out (design §6, daemon/policy.h).
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

#include "bus.h"
#include "log.h"
#include "recovery.h"
#include "../kernel/pcierr_shim/pseries-rtas.h"

/* inputs a single input may lead to at once (a command failing at once,
 * a wait already over): more would be a loop */
#define FOLLOW_UPS_MAX	32

#define ADVICE	"please try reseating or replacing the card, then run: pcierrctl enable "

struct follow_up {
	bool pending;
	struct pcierr_policy_event ev;
};

static void feed(struct slot *s, const struct pcierr_policy_event *ev);

bool recovery_busy(const struct slot *s)
{
	return s->rec.phase != PCIERR_PHASE_IDLE || s->op_id != 0;
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

static bool is_head(const struct slot *s, const struct device *d)
{
	return strcmp(s->addr, d->addr) == 0;
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

	if (!m->state)
		return;
	r = pcierr_state_append_history(m->state, &e, ret_id);
	if (r < 0)
		log_warning_errno(r, "Failed to record history of %s: %m", s->addr);
}

/* ---------------------------------------------------------------------- */
/* Timers */

static int on_timer(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct slot *s = userdata;
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_TIMEOUT,
		.now = now_realtime_usec(),
	};

	s->timer = sd_event_source_unref(s->timer);
	if (s->rec.phase == PCIERR_PHASE_WAIT_UDEV || s->rec.phase == PCIERR_PHASE_WAIT) {
		bool udev = s->rec.phase == PCIERR_PHASE_WAIT_UDEV;
		const char *step = udev ? "wait_udev" : "wait";
		const char *result = udev ? "timeout" : "ok";
		pcierr_usec_t took = now_monotonic_usec() - s->step_started_mono;

		if (udev) {
			log_warning("Slot %s: udev did not report every removal within %llu s; going on.",
				    s->addr, PCIERR_POLICY_UDEV_SETTLE_USEC / PCIERR_USEC_PER_SEC);
			s->waiting_udev = false;
		}
		bus_emit_recovery_step(s->manager, s->addr, step, result, took);
		history(s, NULL, PCIERR_HISTORY_STEP, step, result, "", took, 0, "", NULL);
	}
	feed(s, &ev);
	return 0;
}

static void disarm(struct slot *s)
{
	s->timer = sd_event_source_disable_unref(s->timer);
}

static void arm(struct slot *s, pcierr_usec_t usec)
{
	int r;

	disarm(s);
	if (usec == 0)
		return;
	r = sd_event_add_time_relative(s->manager->event, &s->timer, CLOCK_MONOTONIC,
				       usec, 0, on_timer, s);
	if (r < 0)
		log_error_errno(r, "Slot %s: failed to arm a timer: %m", s->addr);
}

/* ---------------------------------------------------------------------- */
/* Effects */

static void persist(struct slot *s, const struct pcierr_policy_event *ev,
		    const struct pcierr_policy_output *out)
{
	struct manager *m = s->manager;
	bool tx = false;
	int r;

	if (out->n_effects == 0)
		return;
	if (m->state) {
		r = pcierr_state_begin(m->state);
		if (r < 0)
			log_error_errno(r, "Failed to begin a state transaction: %m");
		tx = r >= 0;
	}

	for (size_t i = 0; i < out->n_effects; i++) {
		const struct pcierr_policy_effect *e = &out->effects[i];
		struct device *d;

		if (e->device >= s->n_devices)
			continue;
		d = s->devices[e->device];

		switch (e->type) {
		case PCIERR_EFFECT_FREEZE_RECORDED: {
			struct pcierr_freeze_record rec = e->record;

			/* this error generation is counted now */
			rec.error_gen = d->error_gen;
			r = manager_save_history(m, d, &rec);
			if (r < 0)
				log_error_errno(r, "Failed to save the freeze count of %s: %m", d->addr);
			d->last_error_usec = ev->now;
			break;
		}
		case PCIERR_EFFECT_IDENTITY_DISABLED: {
			const char *why = out->message[0] ? out->message :
				s->rec.message[0] ? s->rec.message :
				pcierr_policy_reason_to_string(e->reason);

			d->history.disabled = true;
			free(d->disabled_reason);
			d->disabled_reason = strdup(why);
			if (m->state) {
				r = pcierr_state_disable(m->state, d->key, e->reason, why,
							 ev->now, s->addr, d->addr);
				if (r < 0)
					log_error_errno(r, "Failed to save the disabling of %s: %m",
							d->addr);
			}
			history(s, d->addr, PCIERR_HISTORY_DISABLE, "", "disabled", "", 0, 0,
				why, NULL);
			break;
		}
		}
		bus_device_changed(d);
	}

	if (tx) {
		r = pcierr_state_commit(m->state);
		if (r < 0) {
			log_error_errno(r, "Failed to commit the state: %s",
					pcierr_state_errmsg(m->state));
			(void)pcierr_state_rollback(m->state);
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Actions */

static void op_failed_now(struct slot *s, enum pcierr_cmd op, enum pcierr_step step,
			  int error, struct follow_up *next)
{
	const char *why = s->manager->kernel ? pcierr_last_error_message(s->manager->kernel) : NULL;

	if (why)
		log_warning_errno(error, "Slot %s: %s failed: %s", s->addr,
				  pcierr_op_to_string(op), why);
	else
		log_warning_errno(error, "Slot %s: %s failed: %m", s->addr,
				  pcierr_op_to_string(op));
	next->pending = true;
	next->ev = (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = now_realtime_usec(),
		.op = op,
		.step = step,
		.error = error,
	};
}

static void started(struct slot *s, enum pcierr_cmd op, uint64_t op_id,
		    pcierr_usec_t timeout_usec)
{
	s->op = op;
	s->op_id = op_id;
	s->step_started_mono = now_monotonic_usec();
	arm(s, timeout_usec);
}

static int issue_remove_next(struct slot *s, uint64_t *op_id)
{
	return pcierr_remove_device(s->manager->kernel, s->addr, s->pe_id, s->remove_queue[0],
				    op_id);
}

static void add_udev_pending(struct slot *s, const char *addr)
{
	char (*a)[PCIERR_ADDR_MAX];

	a = realloc(s->udev_pending, (s->n_udev_pending + 1) * sizeof(*a));
	if (!a)
		return;	/* then the wait is bounded by its timeout */
	s->udev_pending = a;
	snprintf(a[s->n_udev_pending++], PCIERR_ADDR_MAX, "%s", addr);
}

static void do_remove(struct slot *s, const struct pcierr_policy_output *out,
		      struct follow_up *next)
{
	struct manager *m = s->manager;
	uint64_t op_id = 0;
	int r;

	free(s->udev_pending);
	s->udev_pending = NULL;
	s->n_udev_pending = 0;
	free(s->remove_queue);
	s->remove_queue = NULL;
	s->n_remove_queue = 0;
	s->remove_error = 0;

	if (out->all_devices) {
		for (size_t i = 0; i < s->n_devices; i++)
			if (!is_head(s, s->devices[i]))
				add_udev_pending(s, s->devices[i]->addr);
		r = pcierr_remove(m->kernel, s->addr, s->pe_id, &op_id);
	} else {
		s->remove_queue = calloc(out->n_devices ? out->n_devices : 1,
					 sizeof(*s->remove_queue));
		if (!s->remove_queue)
			return op_failed_now(s, PCIERR_CMD_REMOVE, 0, -ENOMEM, next);
		for (size_t i = 0; i < out->n_devices; i++) {
			unsigned int idx = out->devices[i];

			if (idx >= s->n_devices)
				continue;
			snprintf(s->remove_queue[s->n_remove_queue++], PCIERR_ADDR_MAX, "%s",
				 s->devices[idx]->addr);
			add_udev_pending(s, s->devices[idx]->addr);
		}
		if (s->n_remove_queue == 0)
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
	const char *mode = mode_name(&s->rec);

	s->mode = mode;
	m->counters.recoveries_started++;
	bus_emit_recovery_started(m, s->addr, mode);
	bus_manager_changed(m);
	log_info("Slot %s: recovery started (%s).", s->addr, mode);
	if (s->rec.phase != PCIERR_PHASE_KERNEL && s->rec.mode != PCIERR_MODE_CALLBACKS) {
		m->counters.hotplug_fallbacks++;
		log_struct(LOG_NOTICE, PCIERR_MESSAGE_HOTPLUG_FALLBACK, s->addr, NULL, NULL,
			   "Slot %s: %s; recovering by %s.", s->addr,
			   s->rec.mode == PCIERR_MODE_FULL_HOTPLUG ?
			   "no driver has recovery callbacks" :
			   "some drivers lack recovery callbacks",
			   s->rec.mode == PCIERR_MODE_FULL_HOTPLUG ?
			   "hot-unplug, reset and rescan" :
			   "removing those devices, recovering the rest, and a rescan");
	}
}

/* the card to name when disabling: one whose identity is disabled */
static const char *first_disabled_device(const struct slot *s)
{
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
			out->reason != PCIERR_REASON_OP_FAILED;
	const char *why = out->message[0] ? out->message :
			  pcierr_policy_reason_to_string(out->reason);
	char duration[32];

	disarm(s);
	s->waiting_udev = false;
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

	if (out->recovered) {
		const char *extra[] = { duration, NULL };

		m->counters.recoveries_succeeded++;
		log_struct(LOG_NOTICE, PCIERR_MESSAGE_RECOVERED, s->addr, NULL, extra,
			   "Slot %s recovered in %llu ms (%s).", s->addr,
			   (unsigned long long)(out->duration_usec / 1000),
			   s->mode ? s->mode : mode_name(&s->rec));
	} else {
		const char *extra[] = { duration, NULL };

		m->counters.recoveries_failed++;
		log_struct(LOG_ERR, PCIERR_MESSAGE_RECOVERY_FAILED, s->addr, NULL, extra,
			   "Slot %s was not recovered (%s): %s.", s->addr, result,
			   why ? why : "");
	}
	history(s, NULL, PCIERR_HISTORY_RECOVERY, s->mode ? s->mode : mode_name(&s->rec), result, "",
		out->duration_usec, 0, why, NULL);
	bus_emit_recovery_finished(m, s->addr, result, out->duration_usec);

	if (disabled) {
		char reason[512];
		const char *dev = s->disabled_device;

		if (why && strstr(why, "reseat"))
			snprintf(reason, sizeof(reason), "%s; then run: pcierrctl enable %s",
				 why, dev[0] ? dev : s->addr);
		else
			snprintf(reason, sizeof(reason), "%s; " ADVICE "%s", why ? why : "",
				 dev[0] ? dev : s->addr);
		m->counters.permanent_disables++;
		log_struct(LOG_CRIT, PCIERR_MESSAGE_DISABLED, s->addr, dev, NULL,
			   "Slot %s permanently disabled: %s", s->addr, reason);
		bus_emit_permanently_disabled(m, s->addr, dev, reason);
		snprintf(s->status.message, sizeof(s->status.message), "%s", reason);
	}
	free(s->udev_pending);
	s->udev_pending = NULL;
	s->n_udev_pending = 0;
	(void)manager_refresh_slot(m, s);
	bus_manager_changed(m);
	manager_schedule_metrics(m);
}

static void carry_out(struct slot *s, const struct pcierr_policy_output *out,
		      struct follow_up *next)
{
	struct manager *m = s->manager;
	struct pcierr_ctx *k = m->kernel;
	uint64_t op_id = 0;
	int r;

	switch (out->action) {
	case PCIERR_ACTION_NOTHING:
		switch (out->reason) {
		case PCIERR_REASON_FALSE_ALARM:
			log_info("Slot %s: permanent failure on an empty slot: a false alarm.", s->addr);
			break;
		case PCIERR_REASON_RECOVER_OFF:
			log_notice("Slot %s: Recover=no: the freeze is recorded, nothing done.", s->addr);
			break;
		case PCIERR_REASON_FOLDED:
			log_info("Slot %s: froze again during its recovery; folded in.", s->addr);
			break;
		default:
			break;
		}
		if (out->timeout_usec > 0)
			arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_REPORT:
		r = k ? pcierr_report(k, s->addr, s->pe_id, out->step, out->state, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_REPORT, out->step, r, next);
		return started(s, PCIERR_CMD_REPORT, op_id, out->timeout_usec);
	case PCIERR_ACTION_ENABLE_IO:
		r = k ? pcierr_enable_io(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_ENABLE_IO, 0, r, next);
		return started(s, PCIERR_CMD_ENABLE_IO, op_id, out->timeout_usec);
	case PCIERR_ACTION_RESET:
		r = k ? pcierr_reset(k, s->addr, s->pe_id, out->reset_type, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_RESET, 0, r, next);
		return started(s, PCIERR_CMD_RESET, op_id, out->timeout_usec);
	case PCIERR_ACTION_REMOVE:
		if (!k)
			return op_failed_now(s, PCIERR_CMD_REMOVE, 0, -ENOTCONN, next);
		return do_remove(s, out, next);
	case PCIERR_ACTION_WAIT_UDEV:
		if (s->n_udev_pending == 0) {
			next->pending = true;
			next->ev = (struct pcierr_policy_event) {
				.type = PCIERR_POLICY_EV_WAIT_DONE,
				.now = now_realtime_usec(),
			};
			log_info("Slot %s: wait_udev: ok (0 ms, udev was done already)", s->addr);
			bus_emit_recovery_step(m, s->addr, "wait_udev", "ok", 0);
			history(s, NULL, PCIERR_HISTORY_STEP, "wait_udev", "ok", "", 0, 0, "", NULL);
			return;
		}
		s->waiting_udev = true;
		s->step_started_mono = now_monotonic_usec();
		arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_WAIT:
		log_info("Slot %s: unavailable for %llu ms; waiting before recovering.", s->addr,
			 (unsigned long long)(out->timeout_usec / 1000));
		s->step_started_mono = now_monotonic_usec();
		arm(s, out->timeout_usec);
		return;
	case PCIERR_ACTION_RESCAN:
		r = k ? pcierr_rescan(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_RESCAN, 0, r, next);
		return started(s, PCIERR_CMD_RESCAN, op_id, out->timeout_usec);
	case PCIERR_ACTION_DISABLE:
		/* the devices are gone once it is done: name one now */
		snprintf(s->disabled_device, sizeof(s->disabled_device), "%s",
			 first_disabled_device(s));
		log_warning("Slot %s: disabling: %s", s->addr,
			    out->message[0] ? out->message : pcierr_policy_reason_to_string(out->reason));
		r = k ? pcierr_disable(k, s->addr, s->pe_id, &op_id) : -ENOTCONN;
		if (r < 0)
			return op_failed_now(s, PCIERR_CMD_DISABLE, 0, r, next);
		return started(s, PCIERR_CMD_DISABLE, op_id, out->timeout_usec);
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
		devs[i].history = d->history;
	}
	*pe = (struct pcierr_policy_pe) {
		.reset_types = s->reset_types,
		.devices = devs,
		.n_devices = n,
	};
	snprintf(pe->addr, sizeof(pe->addr), "%s", s->addr);
	*ret = devs;
	return 0;
}

/* One input through the policy, and what follows from it at once */
static void feed(struct slot *s, const struct pcierr_policy_event *first)
{
	_cleanup_free_ struct pcierr_policy_output *out = calloc(1, sizeof(*out));
	struct follow_up next = { .pending = true, .ev = *first };

	if (!out) {
		log_error("Slot %s: out of memory; input dropped.", s->addr);
		return;
	}

	for (int i = 0; next.pending && i < FOLLOW_UPS_MAX; i++) {
		_cleanup_free_ struct pcierr_policy_device *devs = NULL;
		struct pcierr_policy_event ev = next.ev;
		struct pcierr_policy_pe pe;
		bool was_idle = s->rec.phase == PCIERR_PHASE_IDLE;
		int r;

		next.pending = false;
		r = build_pe(s, &pe, &devs);
		if (r < 0) {
			log_error_errno(r, "Slot %s: %m", s->addr);
			return;
		}
		r = pcierr_policy_step(&s->manager->config, &pe, &s->rec, &ev, out);
		if (r < 0) {
			log_error_errno(r, "Slot %s: the policy refused an input: %m", s->addr);
			return;
		}
		log_debug("Slot %s: %s -> %s (%s), phase %s.", s->addr,
			  ev.type == PCIERR_POLICY_EV_OP_DONE ? pcierr_op_to_string(ev.op) : "input",
			  pcierr_policy_action_to_string(out->action),
			  pcierr_policy_reason_to_string(out->reason),
			  pcierr_recovery_phase_to_string(s->rec.phase));

		persist(s, &ev, out);
		if (was_idle && s->rec.phase != PCIERR_PHASE_IDLE)
			emit_started(s);
		carry_out(s, out, &next);
		bus_slot_changed(s);
	}
	if (next.pending)
		log_error("Slot %s: the recovery kept deciding without waiting; stopped.", s->addr);
}

/* ---------------------------------------------------------------------- */
/* Inputs */

static bool device_present_in_sysfs(const char *addr)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", addr);
	return access(path, F_OK) == 0;
}

static bool slot_empty(const struct slot *s, const char *dev)
{
	size_t cards = 0;

	for (size_t i = 0; i < s->n_devices; i++)
		if (!is_head(s, s->devices[i]))
			cards++;
	return cards == 0 || (dev && dev[0] && !device_present_in_sysfs(dev));
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

void recovery_on_event(struct manager *m, const struct pcierr_event *e)
{
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_FREEZE,
		.now = now_realtime_usec(),
		.device = e->dev,
		.state = e->state,
		.time_unavail_ms = e->time_unavail_ms,
	};
	const char *source = pcierr_source_to_string(e->source);
	struct slot *s = manager_find_slot(m, e->pe);
	const struct device *d;
	char message[192], detail[64];

	if (s)
		(void)manager_refresh_slot(m, s);
	else
		(void)manager_refresh_by_device(m, e->dev, false);
	s = manager_find_slot(m, e->pe);
	if (!s) {
		log_warning("Error event for %s in unknown slot %s; ignored.", e->dev, e->pe);
		return;
	}
	/* act on the PE the error was detected in: if it changed since (a
	 * card swapped), the shim refuses our commands with ESTALE */
	if (s->op_id == 0 && e->pe_id)
		s->pe_id = e->pe_id;

	d = manager_find_device(m, e->dev);
	if (d && recovery_busy(s) && e->error_gen != 0 &&
	    d->history.error_gen == e->error_gen) {
		/* a resync already found and counted this one */
		log_debug("Slot %s: event seq %" PRIu64 " already handled by a resync.",
			  s->addr, e->seq);
		return;
	}

	if (s->admin_reset && e->seq == s->admin_seq) {
		s->admin_reset = false;
		ev.freeze_kind = PCIERR_FREEZE_ADMIN;
		ev.reset_type = s->admin_type;
		source = "admin";
	}
	ev.slot_empty = e->state == PCIERR_STATE_PERM_FAILURE && slot_empty(s, e->dev);

	log_struct(LOG_WARNING, PCIERR_MESSAGE_ERROR_DETECTED, s->addr, e->dev, NULL,
		   "PCI error detected on %s (slot %s): %s, source %s%s.", e->dev, s->addr,
		   pcierr_state_to_string(e->state) ?: "?", source ?: "?",
		   e->state == PCIERR_STATE_PERM_FAILURE ? ", permanent failure reported" : "");
	bus_emit_error_detected(m, s->addr, e->dev, pcierr_state_to_string(e->state) ?: "",
				e->time_unavail_ms, source ?: "");
	log_error_detail(s->addr, e->dev, &e->detail, detail, sizeof(detail));
	snprintf(message, sizeof(message), "source %s, unavailable %u ms, seq %" PRIu64 "%s",
		 source ?: "?", e->time_unavail_ms, e->seq, detail);
	history(s, e->dev, PCIERR_HISTORY_EVENT, pcierr_state_to_string(e->state), "", "",
		0, 0, message, &s->history_id);
	feed(s, &ev);
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

static const char *step_name(const struct slot *s, const struct pcierr_op_done *d)
{
	if (d->op == PCIERR_CMD_REPORT)
		return pcierr_step_to_string(d->step) ?: "report";
	return pcierr_op_to_string(d->op) ?: "?";
}

void recovery_on_op_done(struct manager *m, const struct pcierr_op_done *d)
{
	_cleanup_free_ struct pcierr_policy_result *res = NULL;
	struct slot *s = manager_find_slot(m, d->pe);
	char results[1024];
	const char *result;
	struct pcierr_policy_event ev;

	if (!s)
		return;
	/* the PE as the operation left it: what the next command names */
	if (s->op_id == d->op_id && d->pe_id)
		s->pe_id = d->pe_id;
	if (s->op_id == 0 || s->op_id != d->op_id) {
		if (s->op_id == 0 && !recovery_busy(s)) {
			/* someone else's operation (a pcierrd before a
			 * restart, a tool): look at the slot now */
			(void)manager_refresh_slot(m, s);
			s = manager_find_slot(m, d->pe);
			if (s && !recovery_busy(s) && !(s->flags & PCIERR_PE_F_BUSY))
				recovery_resync_slot(s);
		}
		return;
	}
	s->op_id = 0;
	disarm(s);
	if (d->detail.severity != PCIERR_DETAIL_UNSPEC) {	/* DISABLE on pseries */
		char dh[64];

		log_error_detail(s->addr, NULL, &d->detail, dh, sizeof(dh));
	}

	if (s->outside_policy) {
		s->outside_policy = false;
		if (d->error)
			log_error("Slot %s: %s failed: %s", s->addr, pcierr_op_to_string(d->op),
				  strerror(d->error));
		else
			log_info("Slot %s: %s done.", s->addr, pcierr_op_to_string(d->op));
		(void)manager_refresh_slot(m, s);
		return;
	}

	if (s->n_remove_queue > 0) {
		uint64_t op_id;
		int r;

		if (d->error && !s->remove_error)
			s->remove_error = -(int)d->error;
		memmove(&s->remove_queue[0], &s->remove_queue[1],
			(s->n_remove_queue - 1) * sizeof(*s->remove_queue));
		if (--s->n_remove_queue > 0) {
			r = issue_remove_next(s, &op_id);
			if (r == 0) {
				started(s, PCIERR_CMD_REMOVE, op_id,
					(pcierr_usec_t)m->config.defaults.step_timeout_sec *
					PCIERR_USEC_PER_SEC);
				return;
			}
			if (!s->remove_error)
				s->remove_error = r;
		}
	}

	(void)manager_refresh_slot(m, s);
	s = manager_find_slot(m, d->pe);
	if (!s)
		return;

	format_results(d, results, sizeof(results));
	result = d->error ? "failed" : d->op == PCIERR_CMD_REPORT ?
		 (pcierr_result_to_string(d->result) ?: "none") : "ok";
	bus_emit_recovery_step(m, s->addr, step_name(s, d), result, d->duration_ns / 1000);
	history(s, NULL, PCIERR_HISTORY_STEP, step_name(s, d), result, results,
		d->duration_ns / 1000, -(int)d->error, d->error ? strerror(d->error) : "", NULL);
	log_info("Slot %s: %s: %s (%llu ms)%s%s", s->addr, step_name(s, d), result,
		 (unsigned long long)(d->duration_ns / 1000000),
		 results[0] ? " " : "", results);

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
		.op = d->op,
		.step = d->step,
		.error = d->error ? -(int)d->error : s->remove_error,
		.results = res,
		.n_results = d->n_results,
	};
	s->remove_error = 0;
	feed(s, &ev);
}

void recovery_on_aer(struct manager *m, const struct pcierr_uevent *u)
{
	static const char *const names[] = {
		[PCIERR_POLICY_AER_BEGIN] = "begin",
		[PCIERR_POLICY_AER_SUCCESSFUL] = "successful",
		[PCIERR_POLICY_AER_FAILED] = "failed",
	};
	struct slot *s = manager_find_slot_for(m, u->addr);
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_AER,
		.now = now_realtime_usec(),
		.aer = u->aer,
	};
	char message[128];
	bool whole;

	if (!s) {
		log_debug("AER recovery event for %s outside any slot; ignored.", u->addr);
		return;
	}
	if (s->state == PCIERR_PE_STATE_DISABLED)
		return;
	(void)manager_refresh_slot(m, s);
	s = manager_find_slot_for(m, u->addr);
	if (!s)
		return;

	/* the kernel names the bridge it recovered below: the whole slot */
	whole = strcmp(u->addr, s->addr) == 0;
	ev.device = whole ? NULL : u->addr;

	snprintf(message, sizeof(message), "kernel AER recovery %s", names[u->aer]);
	if (u->aer == PCIERR_POLICY_AER_BEGIN || s->rec.phase == PCIERR_PHASE_IDLE) {
		log_struct(LOG_WARNING, PCIERR_MESSAGE_ERROR_DETECTED, s->addr, u->addr, NULL,
			   "PCI error on %s (slot %s): the kernel's AER recovery %s.", u->addr,
			   s->addr, u->aer == PCIERR_POLICY_AER_BEGIN ? "began" :
			   u->aer == PCIERR_POLICY_AER_SUCCESSFUL ? "succeeded" : "failed");
		bus_emit_error_detected(m, s->addr, whole ? "" : u->addr, "frozen", 0, "aer");
		history(s, whole ? NULL : u->addr, PCIERR_HISTORY_EVENT, "aer", names[u->aer],
			"", 0, 0, message, NULL);
	} else {
		log_info("Slot %s: %s (%s).", s->addr, message, u->addr);
		history(s, whole ? NULL : u->addr, PCIERR_HISTORY_STEP, "aer", names[u->aer],
			"", 0, 0, message, NULL);
	}
	feed(s, &ev);
}

void recovery_on_device_removed(struct manager *m, const char *addr)
{
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		for (size_t j = 0; j < s->n_udev_pending; j++)
			if (strcmp(s->udev_pending[j], addr) == 0) {
				memmove(&s->udev_pending[j], &s->udev_pending[j + 1],
					(s->n_udev_pending - j - 1) * sizeof(*s->udev_pending));
				s->n_udev_pending--;
				break;
			}
		if (s->waiting_udev && s->n_udev_pending == 0) {
			struct pcierr_policy_event ev = {
				.type = PCIERR_POLICY_EV_WAIT_DONE,
				.now = now_realtime_usec(),
			};

			pcierr_usec_t took = now_monotonic_usec() - s->step_started_mono;

			s->waiting_udev = false;
			disarm(s);
			log_info("Slot %s: wait_udev: ok (%llu ms)", s->addr,
				 (unsigned long long)(took / 1000));
			bus_emit_recovery_step(m, s->addr, "wait_udev", "ok", took);
			history(s, NULL, PCIERR_HISTORY_STEP, "wait_udev", "ok", "", took, 0, "", NULL);
			feed(s, &ev);
			return;	/* feed() may have changed the slots */
		}
	}
}

void recovery_resync_slot(struct slot *s)
{
	struct manager *m = s->manager;
	struct pcierr_policy_event ev = {
		.type = PCIERR_POLICY_EV_FREEZE,
		.now = now_realtime_usec(),
		.state = PCIERR_STATE_FROZEN,
		.freeze_kind = PCIERR_FREEZE_COUNTED,
	};
	const struct device *named = NULL;
	uint64_t op_id;
	int r;

	if (recovery_busy(s) || !m->kernel_connected)
		return;
	if (s->flags & PCIERR_PE_F_BUSY) {
		/* its OP_DONE will tell (recovery_on_op_done) */
		log_info("Slot %s: an operation started before is still running; waiting for it.",
			 s->addr);
		return;
	}
	if (s->state == PCIERR_PE_STATE_REMOVED) {
		log_notice("Slot %s was left hot-unplugged; rescanning.", s->addr);
		r = pcierr_rescan(m->kernel, s->addr, s->pe_id, &op_id);
		if (r < 0) {
			log_error_errno(r, "Slot %s: rescan failed: %m", s->addr);
			return;
		}
		s->outside_policy = true;
		started(s, PCIERR_CMD_RESCAN, op_id,
			(pcierr_usec_t)m->config.defaults.step_timeout_sec * PCIERR_USEC_PER_SEC);
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
			if (d->error_gen != d->history.error_gen) {
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
}

void recovery_kernel_gone(struct manager *m)
{
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		if (!recovery_busy(s))
			continue;
		log_warning("Slot %s: the kernel shim went away during the recovery; "
			    "it resumes when the shim is back.", s->addr);
		disarm(s);
		s->rec = PCIERR_RECOVERY_INIT;
		s->op_id = 0;
		s->outside_policy = false;
		s->waiting_udev = false;
		s->admin_reset = false;
		s->n_remove_queue = 0;
		s->n_udev_pending = 0;
		bus_slot_changed(s);
	}
}

int recovery_request_reset(struct slot *s, enum pcierr_reset_type type,
			   char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	const struct device *d = NULL;
	uint64_t seq;
	int r;

	if (type == PCIERR_RESET_UNSPEC)
		type = PCIERR_RESET_HOT;
	if (recovery_busy(s) || s->admin_reset) {
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
	/* cut the slot off as for an error, then recover it by a reset */
	r = pcierr_inject(m->kernel, d->addr, s->pe_id, PCIERR_STATE_FROZEN, 0, &seq);
	if (r < 0) {
		const char *why = pcierr_last_error_message(m->kernel);

		snprintf(msg, msg_size, "The kernel refused to freeze %s: %s", d->addr,
			 why ? why : strerror(-r));
		return r == -EPROTONOSUPPORT ? -ENOTCONN : r;
	}
	s->admin_reset = true;
	s->admin_seq = seq;
	s->admin_type = type;
	log_info("Slot %s: %s reset requested.", s->addr, pcierr_reset_type_to_string(type));
	return 0;
}

int recovery_enable(struct slot *s, char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	_cleanup_free_ struct pcierr_disabled *dis = NULL;
	size_t n = 0, enabled = 0;
	uint64_t op_id;
	int r;

	if (recovery_busy(s)) {
		snprintf(msg, msg_size, "Slot %s is recovering; try again when it is done", s->addr);
		return -EBUSY;
	}
	if (m->state) {
		r = pcierr_state_find_disabled(m->state, s->addr, &dis, &n);
		if (r < 0) {
			snprintf(msg, msg_size, "Failed to read the state store: %s", strerror(-r));
			return r;
		}
		for (size_t i = 0; i < n; i++) {
			if (pcierr_state_enable(m->state, dis[i].key) > 0)
				enabled++;
			(void)pcierr_state_clear_freeze(m->state, dis[i].key);
			history(s, dis[i].device, PCIERR_HISTORY_ENABLE, "", "enabled", "", 0, 0,
				"enabled by the administrator", NULL);
		}
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		struct device *d = s->devices[i];

		if (!d->history.disabled)
			continue;
		if (m->state) {
			(void)pcierr_state_enable(m->state, d->key);
			(void)pcierr_state_clear_freeze(m->state, d->key);
		}
		d->history = (struct pcierr_freeze_record) { 0 };
		free(d->disabled_reason);
		d->disabled_reason = strdup("");
		enabled++;
		bus_device_changed(d);
	}

	if (s->state == PCIERR_PE_STATE_DISABLED) {
		if (!m->kernel_connected) {
			snprintf(msg, msg_size, "The kernel shim is not loaded (modprobe pcierr_shim)");
			return -ENOTCONN;
		}
		r = pcierr_enable(m->kernel, s->addr, s->pe_id, &op_id);
		if (r < 0) {
			const char *why = pcierr_last_error_message(m->kernel);

			snprintf(msg, msg_size, "The kernel refused to enable %s: %s", s->addr,
				 why ? why : strerror(-r));
			return r;
		}
		s->outside_policy = true;
		started(s, PCIERR_CMD_ENABLE, op_id,
			(pcierr_usec_t)m->config.defaults.step_timeout_sec * PCIERR_USEC_PER_SEC);
	} else if (enabled == 0) {
		snprintf(msg, msg_size, "Slot %s is not disabled", s->addr);
		return -EINVAL;
	}
	s->status = (struct slot_status) { 0 };
	log_notice("Slot %s enabled by the administrator.", s->addr);
	bus_slot_changed(s);
	manager_schedule_metrics(m);
	return 0;
}

void recovery_slot_done(struct slot *s)
{
	disarm(s);
	free(s->udev_pending);
	s->udev_pending = NULL;
	s->n_udev_pending = 0;
	free(s->remove_queue);
	s->remove_queue = NULL;
	s->n_remove_queue = 0;
}

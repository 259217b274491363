// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the world hears of a recovery: the journal (structured, with the
 * catalog's message ids), the Manager's signals (observer.h), the
 * history rows (queued to the state writer) and the counters behind the
 * metrics. Each input's news is a fanout function, called once its
 * command is sent (recovery-exec.c, feed_then()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"
#include "rtas-log.h"

static void folded_summary(struct slot *s);

#define ADVICE	"please try reseating or replacing the card, then run: pcierrctl enable "

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

void report_step(struct slot *s, const char *step, const char *result,
		 uint64_t duration_usec)
{
	observe_report(s->manager, &(struct recovery_report) {
		.type = REPORT_STEP, .slot = s->addr, .step = step, .result = result,
		.duration_usec = duration_usec, .recovery = s->recovery.id,
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

void history(struct slot *s, const char *device, enum pcierr_history_kind kind,
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

void emit_started(struct slot *s)
{
	struct manager *m = s->manager;
	const char *mode = mode_name(&s->recovery.policy);

	bool fallback = s->recovery.policy.phase != PCIERR_PHASE_KERNEL &&
			s->recovery.policy.mode != PCIERR_MODE_CALLBACKS;

	s->recovery.folded = 0;
	s->recovery.mode = mode;
	/* a Reset's id for the recovery its freeze starts (in time) */
	s->recovery.id = s->recovery.admin_id && now_monotonic_usec() < s->recovery.admin_deadline ?
			 s->recovery.admin_id : ++m->recovery_ids;
	s->recovery.admin_id = 0;
	/* the counters change before they are announced (review M9) */
	m->counters.recoveries_started++;
	if (fallback)
		m->counters.hotplug_fallbacks++;
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_STARTED, .slot = s->addr, .mode = mode, .recovery = s->recovery.id,
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
const char *first_disabled_device(const struct slot *s)
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

void finish(struct slot *s, const struct pcierr_policy_output *out)
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
	char duration[32], reason[512] = "";
	const char *dev = s->recovery.disabled_device;

	disarm(s);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	s->recovery.retries = 0;
	if (s->recovery.disable_failed)
		undo_held(s);
	drop_held(s);
	s->recovery.disable_failed = false;
	exec_set(s, SLOT_EXEC_IDLE);
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
	/* U9: the end and its reason in one signal (the advice of a
	 * disable included: PermanentlyDisabled repeats it) */
	if (disabled && !again) {
		if (why && strstr(why, "reseat"))
			snprintf(reason, sizeof(reason), "%s; then run: pcierrctl enable %s",
				 why, dev[0] ? dev : s->addr);
		else
			snprintf(reason, sizeof(reason), "%s; " ADVICE "%s", why ? why : "",
				 dev[0] ? dev : s->addr);
	} else if (!out->recovered) {
		snprintf(reason, sizeof(reason), "%s", why ? why : "");
	}
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_FINISHED, .slot = s->addr, .result = result,
		.duration_usec = out->duration_usec, .reason = reason,
		.recovery = s->recovery.id,
	});

	if (disabled && again) {
		log_notice("Slot %s kept disabled: %s", s->addr, why ? why : "");
	} else if (disabled) {
		m->counters.permanent_disables++;
		log_struct(LOG_CRIT, PCIERR_MESSAGE_DISABLED, s->addr, dev, NULL,
			   "Slot %s permanently disabled: %s", s->addr, reason);
		observe_report(m, &(struct recovery_report) {
			.type = REPORT_DISABLED, .slot = s->addr, .device = dev, .reason = reason,
			.recovery = s->recovery.id,
		});
		snprintf(s->status.message, sizeof(s->status.message), "%s", reason);
	}
	s->recovery.id = 0;
	free(s->recovery.udev_pending);
	s->recovery.udev_pending = NULL;
	s->recovery.n_udev_pending = 0;
	manager_schedule_refresh(m, s);
	observe_manager_changed(m);
}

void folded_fanout(struct slot *s, void *userdata)
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

void event_fanout(struct slot *s, void *userdata)
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

/* the most of a platform error log put in one journal field, as hex */
#define DETAIL_HEX_MAX	1000

/*
 * The platform's error detail (pseries: ibm,slot-error-detail; the
 * shim's EVENT, or OP_DONE of DISABLE) to the journal: raw bytes as hex
 * in PCIERR_DETAIL_DATA, the RTAS log header decoded in the message.
 * @hist gets a short form for the history.
 */
void log_error_detail(const char *slot, const char *dev,
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

const char *step_name(const struct pcierr_op_done *d)
{
	if (d->op == PCIERR_CMD_REPORT)
		return pcierr_step_to_string(d->step) ?: "report";
	return pcierr_op_to_string(d->op) ?: "?";
}

void op_done_fanout(struct slot *s, void *userdata)
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

const char *rstep_name(const struct pcierr_recover_step *st)
{
	if (st->op == PCIERR_CMD_REPORT)
		return pcierr_step_to_string(st->step) ?: "report";
	return pcierr_op_to_string(st->op) ?: "?";
}

/* each step's news, in order: what a step at a time would have said */
void recover_fanout(struct slot *s, void *userdata)
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

static const char *const aer_names[] = {
	[PCIERR_POLICY_AER_BEGIN] = "begin",
	[PCIERR_POLICY_AER_SUCCESSFUL] = "successful",
	[PCIERR_POLICY_AER_FAILED] = "failed",
};

void aer_fanout(struct slot *s, void *userdata)
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

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One owner of a frozen PE (hold.h; the uapi header's PCIERR_CMD_HOLD and
 * PCIERR_CMD_OWNER_RECOVER; docs/shim-mechanism.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hold.h"
#include "log.h"
#include "observer.h"
#include "state-writer.h"

static bool frozen(enum pcierr_pe_state st)
{
	return st == PCIERR_PE_STATE_FROZEN || st == PCIERR_PE_STATE_MMIO_ENABLED ||
	       st == PCIERR_PE_STATE_RESET;
}

bool hold_wanted(const struct slot *s)
{
	if (!frozen(s->state))
		return false;
	if (s->hold.recover_off || slot_recovery_busy(&s->recovery) || s->recovery.admin_reset)
		return true;
	for (size_t i = 0; i < s->n_devices; i++)
		if (s->devices[i]->history.disabled)
			return true;
	return false;
}

void hold_note_recover_off(struct slot *s)
{
	s->hold.recover_off = true;
	hold_update(s);
}

void hold_update(struct slot *s)
{
	struct manager *m = s->manager;
	bool want;
	int r;

	if (!frozen(s->state))
		s->hold.recover_off = false;
	want = hold_wanted(s);
	if (!want && !s->hold.held)
		return;
	if (!m->kernel || !m->kernel_connected || !m->kops->hold || m->hold_unsupported) {
		s->hold.held = false;
		return;
	}
	/* a hold for an older PE id is void in the shim already */
	if (!want && s->hold.held_pe_id != s->pe_id) {
		s->hold.held = false;
		return;
	}
	r = m->kops->hold(m->kernel, s->addr, s->pe_id, want ? HOLD_LEASE_MSEC : 0);
	if (r == -EOPNOTSUPP) {
		m->hold_unsupported = true;
		log_warning("The kernel shim has no PCIERR_CMD_HOLD: a PE pcierrd keeps frozen on purpose is recovered by the shim's owner timeout.");
		s->hold.held = false;
		return;
	}
	if (r < 0) {
		/* ESTALE: the refresh brings the new id, the next renewal
		 * names it; ENODEV: the slot goes */
		log_debug_errno(r, "Slot %s: hold %s: %m", s->addr, want ? "renewal" : "end");
		s->hold.held = false;
		return;
	}
	if (want && !s->hold.held)
		log_info("Slot %s is kept frozen on purpose: held, the kernel shim leaves it alone.",
			 s->addr);
	s->hold.held = want;
	s->hold.held_pe_id = s->pe_id;
}

/* ---------------------------------------------------------------------- */
/* The shim's own recoveries */

struct owner_find {
	const char *mark;
	bool found;
};

static int find_mark(const struct pcierr_history_entry *e, void *userdata)
{
	struct owner_find *f = userdata;

	if (e->kind == PCIERR_HISTORY_RECOVERY && e->message && strstr(e->message, f->mark)) {
		f->found = true;
		return 1;
	}
	return 0;
}

/* Is that OWNER_RECOVER in the history already (a pcierrd before this one
 * recorded it)? Only entries since the boot: a shim's operation ids and
 * load id belong to it. */
static bool owner_recorded(struct manager *m, const struct slot *s, const char *mark)
{
	struct owner_find f = { .mark = mark };
	struct pcierr_history_filter filter = {
		.since_usec = now_realtime_usec() - now_boottime_usec(),
		.pe = s->addr,
	};
	int r;

	if (!m->state)
		return false;
	r = pcierr_state_query_history(m->state, &filter, find_mark, &f);
	if (r < 0)
		log_warning_errno(r, "Slot %s: cannot read its history back: %m", s->addr);
	return f.found;
}

static void owner_record(struct slot *s)
{
	struct manager *m = s->manager;
	const struct pcierr_last_op *op = &s->last_op;
	bool ok = !op->error && op->pe_state == PCIERR_PE_STATE_NORMAL;
	const char *result = ok ? "recovered" : "failed";
	uint64_t duration_usec = op->duration_ns / 1000;
	char mark[96], message[256], duration[32];
	const char *extra[] = { duration, NULL };

	snprintf(mark, sizeof(mark), "(operation %" PRIu64 ", shim load %016" PRIx64 ")",
		 op->op_id, m->shim_load_id);
	if (s->hold.owner_seen == 0 && owner_recorded(m, s, mark)) {
		s->hold.owner_seen = op->op_id;
		return;
	}
	s->hold.owner_seen = op->op_id;
	snprintf(message, sizeof(message),
		 "the kernel shim's owner timeout %s the PE: nobody recovered or held it %s%s%s",
		 ok ? "recovered" : "did not recover", mark, op->error ? ": " : "",
		 op->error ? strerror(op->error) : "");
	snprintf(duration, sizeof(duration), "DURATION_USEC=%" PRIu64, duration_usec);
	if (ok)
		log_struct(LOG_NOTICE, PCIERR_MESSAGE_RECOVERED, s->addr, NULL, extra,
			   "Slot %s recovered in %" PRIu64 " ms by the kernel shim's owner timeout.",
			   s->addr, duration_usec / 1000);
	else
		log_struct(LOG_ERR, PCIERR_MESSAGE_RECOVERY_FAILED, s->addr, NULL, extra,
			   "Slot %s was not recovered by the kernel shim's owner timeout (%s).",
			   s->addr, pcierr_pe_state_to_string(op->pe_state) ?: "?");
	if (m->writer) {
		struct pcierr_history_entry e = {
			.time_usec = now_realtime_usec(),
			.pe = s->addr,
			.kind = PCIERR_HISTORY_RECOVERY,
			.step = "owner-timeout",
			.result = result,
			.results = "",
			.duration_usec = duration_usec,
			.error = -op->error,
			.message = message,
		};
		int r = state_writer_history(m->writer, &e);

		if (r < 0)
			log_warning_errno(r, "Failed to record history of %s: %m", s->addr);
	}
	snprintf(s->status.last_result, sizeof(s->status.last_result), "%s", result);
	snprintf(s->status.message, sizeof(s->status.message), "%s", message);
	s->status.last_duration_usec = duration_usec;
	s->status.last_finished_usec = now_realtime_usec();
	if (m->quiet)
		return;
	++m->recovery_ids;
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_STARTED, .slot = s->addr, .mode = "owner-timeout",
		.recovery = m->recovery_ids,
	});
	observe_report(m, &(struct recovery_report) {
		.type = REPORT_FINISHED, .slot = s->addr, .result = result,
		.duration_usec = duration_usec, .reason = ok ? "" : message,
		.recovery = m->recovery_ids,
	});
	observe_slot_changed(s);
}

static void on_slot_synced(struct slot *s, enum slot_sync how)
{
	if (s->last_op.op == PCIERR_CMD_OWNER_RECOVER && s->last_op.done &&
	    s->last_op.op_id != 0 && s->last_op.op_id != s->hold.owner_seen)
		owner_record(s);
	hold_update(s);
}

static const struct manager_observer hold_observer = {
	.slot_synced = on_slot_synced,
};

static int on_renew(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	for (size_t i = 0; i < m->n_slots; i++)
		hold_update(m->slots[i]);
	(void)sd_event_source_set_time_relative(src, HOLD_RENEW_USEC);
	return sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
}

int hold_setup(struct manager *m)
{
	int r = manager_add_observer(m, &hold_observer);

	if (r < 0)
		return r;
	if (!m->event || m->hold_timer)
		return 0;
	return sd_event_add_time_relative(m->event, &m->hold_timer, CLOCK_MONOTONIC,
					  HOLD_RENEW_USEC, 0, on_renew, m);
}

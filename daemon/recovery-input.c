// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Input translation: what the kernel and udev say, made the policy's
 * inputs (policy.h): a shim EVENT (a freeze), an OP_DONE, a kernel AER
 * uevent (frozen or not, from the kernel's AER counters: U3), udev done
 * removing a device (the end of a WAIT_UDEV).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

/* No card in the slot, or the device named is not one of ours any more:
 * from the model alone (no sysfs probe on the way to the first command) */
bool slot_empty(const struct slot *s, const char *dev)
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

/*
 * The shim started a RECOVER on its own that the policy did not take up
 * (its decision changed between the ARM and the freeze: pcierrd disarms
 * as soon as it does, so only a freeze in between). A policy that left
 * the slot idle (Recover=no since) waits for it as for an operation
 * started outside the policy; one that went on (a command, refused with
 * EBUSY while the RECOVER runs; a wait) goes on its own way, and the
 * RECOVER's completion is ignored.
 */
void auto_not_taken(struct slot *s)
{
	if (s->recovery.auto_op_id == 0)
		return;
	log_warning("Slot %s: the shim started recover %" PRIu64 " on its own (armed), but the policy chose otherwise.",
		    s->addr, s->recovery.auto_op_id);
	if (!slot_recovery_busy(&s->recovery)) {
		exec_set(s, SLOT_EXEC_OUTSIDE);
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
void op_done(struct manager *m, const struct pcierr_op_done *d, bool lost,
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

	if (s->recovery.exec == SLOT_EXEC_OUTSIDE) {
		exec_set(s, SLOT_EXEC_IDLE);
		if (d->error)
			log_error("Slot %s: %s failed: %s", s->addr, pcierr_op_to_string(d->op),
				  strerror(d->error));
		else
			log_info("Slot %s: %s done.", s->addr, pcierr_op_to_string(d->op));
		(void)manager_refresh_slot(m, s);
		return;
	}
	/* the policy's command is over */
	exec_set(s, SLOT_EXEC_IDLE);

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
		if (s->recovery.exec == SLOT_EXEC_UDEV && s->recovery.n_udev_pending == 0) {
			struct pcierr_policy_event ev = {
				.type = PCIERR_POLICY_EV_WAIT_DONE,
				.now = now_realtime_usec(),
				.mono = now_boottime_usec(),
			};
			pcierr_usec_t took = now_monotonic_usec() - s->recovery.step_started_mono;

			exec_set(s, SLOT_EXEC_IDLE);
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

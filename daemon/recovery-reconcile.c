// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reconciliation: where pcierrd and the kernel disagree about a slot.
 *   - No wait without an end (H1): a command's step timeout asks the
 *     kernel where the PE is; what a lost OP_DONE means is the policy's
 *     (pcierr_policy_plan()'s LOST); an operation the kernel still runs
 *     is asked after again, at growing intervals.
 *   - After a restart: a recovery a killed pcierrd left half done (a
 *     hot-unplug, a RECOVER, a DISABLE) is finished or recorded; a slot
 *     found frozen is recovered as found (counted once).
 *   - The shim went away: the recoveries resume when it is back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

/* a resync saw the operation over: its OP_DONE may still be queued on
 * our socket; ask the kernel once more after this */
#define OP_LOST_GRACE_USEC	(1 * PCIERR_USEC_PER_SEC)

/* an operation the kernel still runs after its timeout: asked after again
 * at StepTimeoutSec, doubled each time, at most this */
#define OP_RECHECK_MAX_USEC	(300 * PCIERR_USEC_PER_SEC)

/* Not as a recovery left it: a freeze missed while pcierrd was down, or
 * an identity disabled earlier that came back */
bool slot_unhealthy(const struct slot *s)
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
void check_op(struct slot *s)
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

void recovery_op_maybe_lost(struct slot *s)
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

bool recovery_resync_lost_end(struct slot *s)
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

void recovery_resync_slot(struct slot *s)
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
		exec_set(s, SLOT_EXEC_OUTSIDE);
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

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RECOVER and ARM (issue 12): the kernel running a callback recovery as
 * one operation, asked for (try_recover()) or started by the shim itself
 * on a freeze of an armed PE. The policy decides when (its output's
 * recover, pcierr_policy_plan()'s ARM); here the RECOVER is sent or
 * awaited, its steps go back through the policy as if each had been
 * asked for, and the arm follows the policy's plan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

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
bool try_recover(struct slot *s, const struct pcierr_policy_output *out)
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

void send_arm(struct slot *s, bool on, enum pcierr_reset_type type)
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

void recovery_update_arm(struct slot *s)
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
bool recover_done(struct manager *m, const struct pcierr_recover_done *rd, bool lost)
{
	_cleanup_free_ struct pcierr_policy_output *out = calloc(1, sizeof(*out));
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
	if (s->recovery.exec == SLOT_EXEC_OUTSIDE) {
		/* an automatic RECOVER the policy did not take up */
		exec_set(s, SLOT_EXEC_IDLE);
		log_info("Slot %s: recover %" PRIu64 " (started by the shim) ended: %s.", s->addr,
			 rd->op_id, pcierr_recover_stop_to_string(rd->stop) ?: "?");
		(void)manager_refresh_slot(m, s);
		return false;
	}
	exec_set(s, SLOT_EXEC_IDLE);
	if (!out) {
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

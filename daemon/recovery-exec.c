// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The executor: one input of a slot through pcierr_policy_step(), and its
 * action carried out at once (a shim command, a wait, a VERIFY, the
 * end). What it keeps per slot is struct slot_recovery
 * (slot-recovery.h): the operation in flight and its timer, the udev and
 * REMOVE queues, the retries of a command refused for a reason about the
 * command (U1, U2), the identities held for a DISABLE.
 *
 * Act first, persist after (issue 10 point 2, review H2): between a
 * detection and the command the policy asks for, only the policy runs:
 * the slot is known from the model (no GET_PE, no sysfs probe, no write).
 * The policy's effects update the model in memory before the command;
 * the journal entry, the D-Bus signals, the state writes (queued to the
 * writer thread, state-writer.h) and the metrics fan out after it
 * (recovery-report.c). The slot is refreshed from the shim afterwards (a
 * deferred refresh) -- except after a REMOVE, RESCAN, DISABLE or ENABLE,
 * whose next decision needs the new device list.
 *
 * A shim command that fails at once comes back as the OP_DONE of that
 * command with the error, so the policy sees one kind of answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

static void verify_poll(struct slot *s, struct follow_up *next);
static void schedule_retry(struct slot *s);

static const char *const exec_names[__SLOT_EXEC_MAX] = {
	[SLOT_EXEC_IDLE] = "idle",
	[SLOT_EXEC_COMMAND] = "command",
	[SLOT_EXEC_OUTSIDE] = "outside",
	[SLOT_EXEC_RETRY] = "retry",
	[SLOT_EXEC_UDEV] = "udev",
};

void exec_set(struct slot *s, enum slot_exec to)
{
	if (s->recovery.exec == to)
		return;
	log_debug("Slot %s: executor %s -> %s.", s->addr, exec_names[s->recovery.exec],
		  exec_names[to]);
	s->recovery.exec = to;
}

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
			exec_set(s, SLOT_EXEC_IDLE);
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

void disarm(struct slot *s)
{
	s->recovery.timer = sd_event_source_disable_unref(s->recovery.timer);
}

void arm(struct slot *s, pcierr_usec_t usec)
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
void undo_held(struct slot *s)
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

void drop_held(struct slot *s)
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
bool sort_error(struct slot *s, enum pcierr_cmd op, int error)
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

void started_step(struct slot *s, enum pcierr_cmd op, enum pcierr_step step,
		  uint64_t op_id, pcierr_usec_t timeout_usec)
{
	if (s->recovery.exec != SLOT_EXEC_OUTSIDE)
		exec_set(s, SLOT_EXEC_COMMAND);
	s->recovery.op = op;
	s->recovery.op_step = step;
	s->recovery.op_id = op_id;
	s->recovery.op_checks = 0;
	/* its end is ours to record, never looked for after a resync */
	s->recovery.end_checked = op_id;
	s->recovery.step_started_mono = now_monotonic_usec();
	arm(s, timeout_usec);
}

void started(struct slot *s, enum pcierr_cmd op, uint64_t op_id,
	     pcierr_usec_t timeout_usec)
{
	started_step(s, op, PCIERR_STEP_UNSPEC, op_id, timeout_usec);
}

int issue_remove_next(struct slot *s, uint64_t *op_id)
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
void clear_queues(struct slot *s)
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
	bool ok, gone = false;

	ok = verify_slot_check(s->recovery.verify, final, missing, sizeof(missing));
	if (!ok)
		gone = verify_slot_gone(s->recovery.verify);
	if (!ok && !final && !gone) {
		arm(s, VERIFY_POLL_USEC);
		return;
	}
	if (ok) {
		log_info("Slot %s: verify: the function is back (%llu ms).", s->addr,
			 (unsigned long long)(took / 1000));
	} else if (gone) {
		log_info("Slot %s: verify: its devices left the system (%llu ms).", s->addr,
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
		.gone = gone,
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
		exec_set(s, SLOT_EXEC_UDEV);
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
	exec_set(s, SLOT_EXEC_IDLE);
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
	exec_set(s, SLOT_EXEC_RETRY);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	r = sd_event_add_time_relative(s->manager->event, &s->recovery.retry_timer, CLOCK_BOOTTIME,
				       delay, 0, on_retry, s);
	if (r < 0)
		log_error_errno(r, "Slot %s: failed to arm a retry timer: %m", s->addr);
}

/* The shim is gone for this slot's recovery (ENOTCONN): as when it goes
 * away, the recovery resumes from a resync when it is back */
void abandon(struct slot *s)
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
	exec_set(s, SLOT_EXEC_IDLE);
	s->recovery.n_remove_queue = 0;
	s->recovery.n_udev_pending = 0;
	observe_slot_changed(s);
}

int build_pe(struct slot *s, struct pcierr_policy_pe *pe,
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

/* What the policy plans for @s now (pcierr_policy_plan()); false: no answer */
bool plan(struct slot *s, const struct pcierr_policy_query *q, struct pcierr_policy_plan *p)
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
pcierr_usec_t step_timeout(struct slot *s)
{
	struct pcierr_policy_query q = { .question = PCIERR_PLAN_BOUNDS };
	struct pcierr_policy_plan p;

	if (!plan(s, &q, &p))
		return (pcierr_usec_t)s->manager->config.defaults.step_timeout_sec * PCIERR_USEC_PER_SEC;
	return p.step_timeout_usec;
}

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
void feed_then(struct slot *s, const struct pcierr_policy_event *first,
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

void feed(struct slot *s, const struct pcierr_policy_event *ev)
{
	feed_then(s, ev, NULL, NULL);
}

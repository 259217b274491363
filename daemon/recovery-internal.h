/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parts of the recovery (recovery.c names them and the data's way
 * through them), to each other; nothing outside recovery*.c includes it.
 * What a slot's recovery keeps: slot-recovery.h.
 */
#ifndef PCIERRD_RECOVERY_INTERNAL_H
#define PCIERRD_RECOVERY_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include "aer-stats.h"
#include "hold.h"
#include "log.h"
#include "policy.h"
#include "recovery.h"
#include "state-writer.h"
#include "verify-slot.h"

struct follow_up {
	bool pending;
	struct pcierr_policy_event ev;
};

/* What an input tells the world, once its command is sent */
typedef void (*fanout_fn)(struct slot *s, void *userdata);

struct event_news {
	const struct pcierr_event *e;
	const char *source;
};

struct op_news {
	const struct pcierr_op_done *d;
	bool lost;
};

struct recover_news {
	const struct pcierr_recover_done *rd;
	bool lost;
};

struct aer_news {
	const struct pcierr_uevent *u;
	bool whole;
	bool first;		/* BEGIN, or news of an idle slot */
	bool frozen;		/* the channel was frozen */
};

/*
 * The store counted this error generation of this device already. A
 * generation alone is not enough: the shim's start again at 1 at each load
 * (a reboot, a reload), so the one stored counts only under the same load.
 */
static inline bool counted_before(const struct device *d, uint32_t error_gen)
{
	return d->history.error_gen == error_gen &&
	       d->history.load_id == d->slot->manager->shim_load_id;
}

static inline bool is_head(const struct slot *s, const struct device *d)
{
	return strcmp(s->addr, d->addr) == 0;
}

static inline bool admin_pending(const struct slot *s)
{
	return s->recovery.admin_reset && now_monotonic_usec() < s->recovery.admin_deadline;
}

/* recovery-exec.c */
void exec_set(struct slot *s, enum slot_exec to);
void disarm(struct slot *s);
void arm(struct slot *s, pcierr_usec_t usec);
void undo_held(struct slot *s);
void drop_held(struct slot *s);
bool sort_error(struct slot *s, enum pcierr_cmd op, int error);
void started_step(struct slot *s, enum pcierr_cmd op, enum pcierr_step step,
		  uint64_t op_id, pcierr_usec_t timeout_usec);
void started(struct slot *s, enum pcierr_cmd op, uint64_t op_id,
	     pcierr_usec_t timeout_usec);
int issue_remove_next(struct slot *s, uint64_t *op_id);
void clear_queues(struct slot *s);
void abandon(struct slot *s);
int build_pe(struct slot *s, struct pcierr_policy_pe *pe,
	     struct pcierr_policy_device **ret);
bool plan(struct slot *s, const struct pcierr_policy_query *q, struct pcierr_policy_plan *p);
pcierr_usec_t step_timeout(struct slot *s);
void feed_then(struct slot *s, const struct pcierr_policy_event *first,
	       fanout_fn fanout, void *userdata);
void feed(struct slot *s, const struct pcierr_policy_event *ev);

/* recovery-report.c */
void report_step(struct slot *s, const char *step, const char *result,
		 uint64_t duration_usec);
void history(struct slot *s, const char *device, enum pcierr_history_kind kind,
	     const char *step, const char *result, const char *results,
	     pcierr_usec_t duration_usec, int error, const char *message,
	     int64_t *ret_id);
void emit_started(struct slot *s);
const char *first_disabled_device(const struct slot *s);
void finish(struct slot *s, const struct pcierr_policy_output *out);
/* a freeze event's news (the journal, ErrorDetected, the history) */
void event_fanout(struct slot *s, void *userdata);
/*
 * A freeze of a PE that is recovering (issue 11 point 10): the policy
 * counts it (freeze count, escalation) as always, but past the first one
 * it costs no journal entry, signal or history row of its own, and no
 * refresh: a counter (EventsFolded, s->recovery.folded) and one history entry
 * "N further freeze events folded" when the recovery ends.
 */
void folded_fanout(struct slot *s, void *userdata);
void log_error_detail(const char *slot, const char *dev,
		      const struct pcierr_error_detail *d, char *hist, size_t hsize);
const char *step_name(const struct pcierr_op_done *d);
void op_done_fanout(struct slot *s, void *userdata);
const char *rstep_name(const struct pcierr_recover_step *st);
void recover_fanout(struct slot *s, void *userdata);
void aer_fanout(struct slot *s, void *userdata);

/* recovery-input.c */
bool slot_empty(const struct slot *s, const char *dev);
void auto_not_taken(struct slot *s);
void op_done(struct manager *m, const struct pcierr_op_done *d, bool lost,
	     enum pcierr_result kept);

/* recovery-recover.c */
bool try_recover(struct slot *s, const struct pcierr_policy_output *out);
void send_arm(struct slot *s, bool on, enum pcierr_reset_type type);
void recovery_update_arm(struct slot *s);
bool recover_done(struct manager *m, const struct pcierr_recover_done *rd, bool lost);

/* recovery-reconcile.c */
bool slot_unhealthy(const struct slot *s);
void check_op(struct slot *s);
void recovery_op_maybe_lost(struct slot *s);
/*
 * A resync (or a completion of an operation some other pcierrd started)
 * found the PE's last operation done, one this pcierrd did not start: if
 * it was a RECOVER or a DISABLE whose recovery the history leaves open
 * (pcierrd was SIGKILLed while it ran), its end is recorded now (its
 * steps, RecoveryStarted/Finished, the history's "recovery" entry), or the
 * recovery goes on from its last step. True when it took the slot up.
 */
bool recovery_resync_lost_end(struct slot *s);
/* A resync found the slot not healthy while pcierrd thought it idle: a
 * freeze missed while pcierrd was down, or an identity disabled earlier
 * that came back */
void recovery_resync_slot(struct slot *s);

#endif /* PCIERRD_RECOVERY_INTERNAL_H */

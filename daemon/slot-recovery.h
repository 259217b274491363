/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One slot's recovery as recovery*.c carry it out: the policy's value
 * (policy.h, what the policy decided so far), the executor's state
 * (enum slot_exec) and what carrying it out needs (the shim operation in flight, its timer, the devices udev has
 * still to remove, a pending administrator's Reset, the arm). One value
 * per slot, owned and changed by recovery*.c only; manager.c allocates it
 * with the slot and reads no more than slot_recovery_busy().
 */
#ifndef PCIERRD_SLOT_RECOVERY_H
#define PCIERRD_SLOT_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include <pcierr/pcierr.h>

#include "policy.h"
#include "state.h"

/*
 * What the executor is carrying out (U11): its own state beside the
 * policy's (policy.phase). Changed by exec_set() only (recovery-exec.c,
 * logged at debug level).
 */
enum slot_exec {
	SLOT_EXEC_IDLE,		/* nothing in flight (a WAIT, a VERIFY or
				 * phase KERNEL may run on the timer) */
	SLOT_EXEC_COMMAND,	/* the policy's command: op_id, op, op_step */
	SLOT_EXEC_OUTSIDE,	/* an operation outside the policy (a resync's
				 * RESCAN, an ENABLE, a RECOVER the shim
				 * started that the policy did not take up):
				 * its end is logged and the slot read again */
	SLOT_EXEC_RETRY,	/* a command refused for a reason about the
				 * command: sent again at retry_timer */
	SLOT_EXEC_UDEV,		/* WAIT_UDEV: udev's removals of udev_pending */
	__SLOT_EXEC_MAX
};

struct slot_recovery {
	struct pcierr_recovery policy;	/* policy.c's value */
	enum slot_exec exec;		/* the executor's */
	sd_event_source *timer;		/* step timeout or wait */
	uint64_t op_id;			/* of the operation in flight; 0: none */
	enum pcierr_cmd op;		/* ... and its command */
	enum pcierr_step op_step;	/* ... and its step (REPORT) */
	unsigned int op_checks;		/* the kernel asked after it (H1) */
	pcierr_usec_t step_started_mono;	/* CLOCK_MONOTONIC */
	const char *mode;		/* of the recovery under way (static) */
	int64_t history_id;		/* of the recovery's EVENT entry */
	char disabled_device[PCIERR_ADDR_MAX];	/* named when disabling */
	/* freeze events folded into the recovery under way, not yet
	 * written to the history (one "N further" entry at its end) */
	uint64_t folded;

	/* devices removed by REMOVE whose udev removal is not seen yet */
	char (*udev_pending)[PCIERR_ADDR_MAX];
	size_t n_udev_pending;
	/* a partial REMOVE: one shim operation per device, in turn */
	char (*remove_queue)[PCIERR_ADDR_MAX];
	size_t n_remove_queue;
	int remove_error;		/* the first error among them */

	/* the recovery under way's id (its Recovery* signals'); 0: none */
	uint64_t id;
	/* a Reset's id, returned to its caller: the recovery that starts
	 * next takes it (its freeze's, or the resync's after a lost one) */
	uint64_t admin_id;
	bool admin_reset;		/* the next freeze event is a Reset call */
	uint64_t admin_seq;		/* ... with this seq */
	pcierr_usec_t admin_deadline;	/* ... expected until (monotonic) */
	enum pcierr_reset_type admin_type;

	/* a RECOVER just sent: its "recover started" history entry is
	 * queued after the input's effects (recovery-exec.c, feed_then()) */
	uint64_t recover_mark;
	/* the last operation whose end this pcierrd saw to, or looked for
	 * in the history after a restart (recovery_resync_lost_end()) */
	uint64_t end_checked;

	/* pre-authorised automatic recovery (PCIERR_CMD_ARM): armed for
	 * the PE id armed_pe_id, no EVENT of the PE seen since */
	bool armed;
	uint64_t armed_pe_id;
	enum pcierr_reset_type armed_type;
	/* the RECOVER the shim started on its own for the freeze being
	 * handled (its EVENT's auto_op_id): awaited, not sent */
	uint64_t auto_op_id;

	/* the devices' function while healthy, and the check after a
	 * recovery (verify-slot.h, issue 25) */
	struct verify_slot *verify;
	/*
	 * Errors sorted from verdicts (U1, U2): a command refused for a
	 * reason that says nothing about the hardware (ESTALE, EBUSY,
	 * ENOMEM; any error of a DISABLE) is sent again after the PE is
	 * read again, at most RETRY_MAX times with a growing backoff
	 */
	unsigned int retries;
	sd_event_source *retry_timer;
	enum pcierr_cmd retry_op;
	enum pcierr_step retry_step;
	enum pcierr_channel_state retry_state;
	enum pcierr_reset_type retry_reset;
	bool retry_all;			/* REMOVE: the whole PE */
	pcierr_usec_t retry_timeout;	/* the step's bound, as the policy said */
	/* identities to mark disabled once the DISABLE is done (never for
	 * a DISABLE that failed: the card is not disabled) */
	struct held_disable *held;
	size_t n_held;
	bool disable_failed;
};

struct held_disable {
	char key[PCIERR_IDENTITY_KEY_MAX];
	char addr[PCIERR_ADDR_MAX];
	enum pcierr_policy_reason reason;
	pcierr_usec_t now;
	char why[256];
};

#define SLOT_RECOVERY_INIT ((struct slot_recovery) { .policy = PCIERR_RECOVERY_INIT })

/* A recovery is under way or an operation of ours is in flight: the slot
 * is not to be freed, nor acted on again */
static inline bool slot_recovery_busy(const struct slot_recovery *r)
{
	return r->policy.phase != PCIERR_PHASE_IDLE || r->op_id != 0;
}

#endif /* PCIERRD_SLOT_RECOVERY_H */

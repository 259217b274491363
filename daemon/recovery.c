// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recovery of one slot at a time, every slot on its own. The data's way:
 *
 *   detect   kernel-source.c, udev-source.c (shim EVENT, OP_DONE, AER
 *            uevents, udev)
 *   inputs   recovery-input.c: made the policy's inputs (policy.h)
 *   decide   policy.c: pcierr_policy_step() per input,
 *            pcierr_policy_plan() for the arm, a lost OP_DONE, the bounds
 *   act      recovery-exec.c: the action carried out (the shim command,
 *            a wait, the effects persisted); recovery-recover.c: RECOVER
 *            and ARM
 *   tell     recovery-report.c: journal, signals, history, counters
 *   mend     recovery-reconcile.c: a lost completion, a restart, the
 *            shim gone
 *   ask      recovery-admin.c: Reset and Enable
 *
 * This file: the manager's news (observer.h) to those parts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

static void recovery_slot_done(struct slot *s)
{
	disarm(s);
	s->recovery.retry_timer = sd_event_source_disable_unref(s->recovery.retry_timer);
	drop_held(s);
	clear_queues(s);
	verify_slot_free(&s->recovery.verify);
}

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

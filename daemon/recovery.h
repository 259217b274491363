/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recovery: feeds daemon/policy.c one input at a time per slot and carries
 * out its answer (a shim command, a wait, a disable, the end), persisting
 * the policy's effects first and telling the bus and the journal.
 */
#ifndef PCIERRD_RECOVERY_H
#define PCIERRD_RECOVERY_H

#include <pcierr/pcierr.h>

#include "manager.h"
#include "uevent.h"

/* A shim EVENT (the PE is frozen) */
void recovery_on_event(struct manager *m, const struct pcierr_event *e);
/* A shim OP_DONE */
void recovery_on_op_done(struct manager *m, const struct pcierr_op_done *d);
/* the OP_DONE of a RECOVER: its steps through the policy, then the next
 * command, then the per-step signals, journal and history */
void recovery_on_recover_done(struct manager *m, const struct pcierr_recover_done *rd);
/* A kernel-native AER ERROR_EVENT uevent */
void recovery_on_aer(struct manager *m, const struct pcierr_uevent *u);
/* udev processed the removal of a device (for WAIT_UDEV) */
void recovery_on_device_removed(struct manager *m, const char *addr);

/* A resync found the slot not healthy while pcierrd thought it idle: a
 * freeze missed while pcierrd was down, or an identity disabled earlier
 * that came back. */
void recovery_resync_slot(struct slot *s);

/*
 * A resync (or a completion of an operation some other pcierrd started)
 * found the PE's last operation done, one this pcierrd did not start: if
 * it was a RECOVER or a DISABLE whose recovery the history leaves open
 * (pcierrd was SIGKILLed while it ran), its end is recorded now (its
 * steps, RecoveryStarted/Finished, the history's "recovery" entry), or the
 * recovery goes on from its last step. True when it took the slot up.
 */
bool recovery_resync_lost_end(struct slot *s);

/* A resync found the PE no longer busy while s waits for an OP_DONE:
 * ask the kernel again shortly, then go on without it (H1) */
void recovery_op_maybe_lost(struct slot *s);

/* The shim went away: every operation in flight is lost */
void recovery_kernel_gone(struct manager *m);

/* Reset and Enable (manager_reset/manager_enable) */
int recovery_request_reset(struct slot *s, enum pcierr_reset_type type,
			   char *msg, size_t msg_size);
int recovery_enable(struct slot *s, char *msg, size_t msg_size);

/* Timers and memory of a slot about to be freed */
void recovery_slot_done(struct slot *s);

bool recovery_busy(const struct slot *s);

/* Arm or disarm the slot's PE (PCIERR_CMD_ARM) as [Policy] AutoRecover=
 * and the policy say: armed only while the next freeze would start a
 * RECOVER; a no-op when nothing changed */
void recovery_update_arm(struct slot *s);

#endif /* PCIERRD_RECOVERY_H */

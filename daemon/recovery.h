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
/* take in the kernel's AER counters of the slot's devices not read yet */
void recovery_aer_baseline(struct slot *s);
/* udev processed the removal of a device (for WAIT_UDEV) */
void recovery_on_device_removed(struct manager *m, const char *addr);

/* The shim went away: every operation in flight is lost */
void recovery_kernel_gone(struct manager *m);

/*
 * The Reset and Enable methods (bus-manager.c), by address: 0 or a negative
 * errno with words for the caller in msg, as manager.h's methods. Reset's
 * *ret_id: the id the recovery it asks for carries in its Recovery*
 * signals (U9).
 */
int recovery_reset(struct manager *m, const char *addr,
		   enum pcierr_reset_type type, uint64_t *ret_id, char *msg, size_t msg_size);
int recovery_enable(struct manager *m, const char *addr,
		    char *msg, size_t msg_size);

/*
 * Install the recovery as an observer of m (observer.h): a resync or a
 * refresh that finds a slot not healthy while pcierrd thought it idle (a
 * freeze missed while pcierrd was down, an identity disabled earlier that
 * came back, a recovery whose end a killed pcierrd did not record) is acted
 * on; an operation the shim no longer runs is asked after (H1); the arm
 * follows the policy (PCIERR_CMD_ARM); a freed slot's timers go with it.
 */
int recovery_setup(struct manager *m);

#endif /* PCIERRD_RECOVERY_H */

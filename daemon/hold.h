/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One owner of a frozen PE (issue 21 point 4). While pcierrd keeps a PE
 * frozen on purpose, it holds it in the shim (PCIERR_CMD_HOLD, a lease
 * renewed from the event loop), so that the shim's owner timeout leaves it
 * alone; when pcierrd dies or wedges the lease ends and the shim recovers
 * the PE by itself. That recovery (an OWNER_RECOVER operation) is recorded
 * here: history, journal, the slot's D-Bus state, also when it happened
 * while pcierrd was not running (its LAST_OP, at the next resync).
 */
#ifndef PCIERRD_HOLD_H
#define PCIERRD_HOLD_H

#include <stdbool.h>

#include "manager.h"

/* The lease pcierrd asks for, and how often it renews it */
#define HOLD_LEASE_MSEC		30000U
#define HOLD_RENEW_USEC		(10 * PCIERR_USEC_PER_SEC)

/*
 * Does pcierrd keep s's PE frozen on purpose? The PE is frozen (FROZEN,
 * MMIO_ENABLED or RESET) and: the policy decided to do nothing about it
 * (Recover=no), or pcierrd's own recovery of it is under way (waiting out
 * a platform's time_unavail included), or an administrator's Reset is
 * pending, or a device of it is disabled in the database.
 */
bool hold_wanted(const struct slot *s);

/* recovery-exec.c: the policy's NOTHING (Recover=no) for s's freeze */
void hold_note_recover_off(struct slot *s);

/* Hold, renew or let go of s's PE as hold_wanted() says now */
void hold_update(struct slot *s);

/* The observer (slot syncs: the shim's own recoveries) and the renewal
 * timer */
int hold_setup(struct manager *m);

#endif /* PCIERRD_HOLD_H */

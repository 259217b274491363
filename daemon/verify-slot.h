/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery, per slot (issue 25): the function of each device of
 * a slot while it is healthy (verify.h's snapshots), kept by address
 * across the hot-unplug and rescan of a hotplug path, and the check after
 * a recovery. recovery-exec.c owns the value (struct slot_recovery.verify) and
 * calls these; the policy decides what a failed check means.
 */
#ifndef PCIERRD_VERIFY_SLOT_H
#define PCIERRD_VERIFY_SLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "manager.h"
#include "policy.h"

struct verify_slot;

/* sysfs as the snapshots are read from; tests point it at a tree */
extern const char *verify_sysfs_root;

void verify_slot_free(struct verify_slot **v);

/*
 * The slot is idle and healthy: its devices' function now is what a
 * recovery must bring back. Except after a check that failed: then what
 * is remembered stays until the function is back (a snapshot of the
 * damage is no yardstick). Bridges are not looked at.
 */
void verify_slot_remember(struct slot *s, struct verify_slot **v);

/* Begin a check that ends at deadline (CLOCK_MONOTONIC, usec) */
void verify_slot_begin(struct verify_slot **v, pcierr_usec_t deadline);
pcierr_usec_t verify_slot_deadline(const struct verify_slot *v);

/*
 * Is every remembered device's function back? missing gets the words for
 * what is not (verify_compare()). A failed check is remembered (see
 * verify_slot_remember()) when final.
 */
bool verify_slot_check(struct verify_slot *v, bool final, char *missing, size_t size);

/* Have all the remembered devices that existed left the system (none of
 * them in sysfs now)? false when nothing is remembered */
bool verify_slot_gone(const struct verify_slot *v);

/* what the latest final check found missing ("" when it passed) */
const char *verify_slot_missing(const struct verify_slot *v);

#endif /* PCIERRD_VERIFY_SLOT_H */

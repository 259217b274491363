/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One slot's claim on its frozen PE (hold.c): whether pcierrd keeps it
 * frozen on purpose, whether the shim knows (PCIERR_CMD_HOLD), and the
 * shim's own recovery last looked at. Owned and changed by hold.c only,
 * but for hold_note_recover_off() from recovery-exec.c.
 */
#ifndef PCIERRD_SLOT_HOLD_H
#define PCIERRD_SLOT_HOLD_H

#include <stdbool.h>
#include <stdint.h>

struct slot_hold {
	/* the policy left this freeze alone (Recover=no): until the PE is
	 * seen out of its freeze */
	bool recover_off;
	bool held;			/* a HOLD of ours is in force */
	uint64_t held_pe_id;		/* ... for this PE id */
	/* the last OWNER_RECOVER of the shim looked at (LAST_OP, OP_DONE) */
	uint64_t owner_seen;
};

#endif /* PCIERRD_SLOT_HOLD_H */

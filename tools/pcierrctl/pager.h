/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pager, as systemctl has it: when stdout is a terminal, the output
 * goes through $PCIERRCTL_PAGER or $PAGER (default less, with LESS=FRXMK
 * unless set); an empty one or "cat", or --no-pager, means none.
 *
 * Secure mode (review M8, as systemd's $SYSTEMD_PAGERSECURE): when
 * pcierrctl runs privileged (the effective or real uid is root, or they
 * differ: sudo, setuid) the pager is started with LESSSECURE=1, so that
 * less offers no shell, editor or file commands; and, unless
 * $PCIERRCTL_PAGERSECURE is set, a $PCIERRCTL_PAGER/$PAGER other than less
 * (which alone implements the secure mode) is ignored for less.
 * $PCIERRCTL_PAGERSECURE=1 forces the secure mode, =0 turns it off; in
 * both cases the configured pager is used as it is.
 */
#ifndef PCIERRCTL_PAGER_H
#define PCIERRCTL_PAGER_H

#include <stdbool.h>

/* Start the pager (if stdout is a terminal and paging is wanted) */
void pager_open(bool no_pager);

/* Wait for the pager to finish (after all output) */
void pager_close(void);

bool pager_have(void);

/* What pager_open() runs, decided from the environment (pure, for tests) */
struct pager_plan {
	const char *command;	/* NULL: less (then more, when not secure) */
	bool none;		/* no pager at all */
	bool secure;		/* LESSSECURE=1 */
};

/*
 * pager: $PCIERRCTL_PAGER, else $PAGER (NULL: unset); secure_env:
 * $PCIERRCTL_PAGERSECURE (NULL: unset); privileged: see above. Returns 0,
 * or -EINVAL for a $PCIERRCTL_PAGERSECURE that is not a boolean (then the
 * secure mode is on).
 */
int pager_plan(const char *pager, const char *secure_env, bool privileged,
	       struct pager_plan *ret);

#endif /* PCIERRCTL_PAGER_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pager, as systemctl has it: when stdout is a terminal, the output
 * goes through $PAGER (default less, with LESS=FRXMK unless set); an
 * empty $PAGER or "cat", or --no-pager, means none.
 */
#ifndef PCIERRCTL_PAGER_H
#define PCIERRCTL_PAGER_H

#include <stdbool.h>

/* Start the pager (if stdout is a terminal and paging is wanted) */
void pager_open(bool no_pager);

/* Wait for the pager to finish (after all output) */
void pager_close(void);

bool pager_have(void);

#endif /* PCIERRCTL_PAGER_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's parts put together: the recovery acts on the manager's news,
 * udev and the shim feed both.
 */
#ifndef PCIERRD_START_H
#define PCIERRD_START_H

#include "manager.h"

/* After manager_prepare() (and bus_setup()): the recovery's observer, the
 * udev monitor (unless m->no_udev), the shim (pcierrd serves and waits
 * for it when it is missing) and the first resync, quiet: no
 * InterfacesAdded before the bus name is ours (clients start with
 * GetManagedObjects). */
int pcierrd_start(struct manager *m);

#endif /* PCIERRD_START_H */

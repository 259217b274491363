/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * udev as an event source: PCI devices coming and going, drivers binding,
 * and the kernel's own AER/DPC recovery (ERROR_EVENT uevents).
 */
#ifndef PCIERRD_UDEV_SOURCE_H
#define PCIERRD_UDEV_SOURCE_H

#include "manager.h"

struct pcierr_uevent;

/* The monitor (what it holds, manager_free() releases) */
int udev_source_start(struct manager *m);
/* One parsed uevent, as if the monitor had delivered it (tests too) */
void udev_source_dispatch(struct manager *m, const struct pcierr_uevent *u);
/* Act on the uevents read so far (the slots they name read once) */
void udev_source_flush(struct manager *m);
/* The monitor's socket overran: uevents were lost */
void udev_source_overrun(struct manager *m);

#endif /* PCIERRD_UDEV_SOURCE_H */

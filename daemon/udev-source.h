/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * udev as an event source: PCI devices coming and going, drivers binding,
 * and the kernel's own AER/DPC recovery (ERROR_EVENT uevents).
 */
#ifndef PCIERRD_UDEV_SOURCE_H
#define PCIERRD_UDEV_SOURCE_H

#include "manager.h"

int udev_source_start(struct manager *m);
void udev_source_stop(struct manager *m);

#endif /* PCIERRD_UDEV_SOURCE_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shim as an event source: its notifications on the sd-event loop,
 * sequence numbers checked, the family followed through rmmod/insmod.
 */
#ifndef PCIERRD_KERNEL_SOURCE_H
#define PCIERRD_KERNEL_SOURCE_H

#include "manager.h"

/* Connects when the shim is there; otherwise retries until it is (what
 * it holds, manager_free() releases) */
int kernel_source_start(struct manager *m);

#endif /* PCIERRD_KERNEL_SOURCE_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metrics file kept current by an observer of the model (observer.h).
 */
#ifndef PCIERRD_METRICS_OBSERVER_H
#define PCIERRD_METRICS_OBSERVER_H

#include "manager.h"

/* With [Manager] MetricsPath= set: observe m, and write the file once
 * soon; without: nothing */
int metrics_observer_setup(struct manager *m);

#endif /* PCIERRD_METRICS_OBSERVER_H */

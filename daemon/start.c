// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrd's parts put together (start.h).
 */
#include "hold.h"
#include "kernel-source.h"
#include "log.h"
#include "metrics-observer.h"
#include "recovery.h"
#include "start.h"
#include "udev-source.h"

int pcierrd_start(struct manager *m)
{
	int r;

	r = recovery_setup(m);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the recovery: %m");
	r = metrics_observer_setup(m);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the metrics: %m");
	r = hold_setup(m);
	if (r < 0)
		return log_error_errno(r, "Failed to set up the holds: %m");
	if (!m->no_udev) {
		r = udev_source_start(m);
		if (r < 0)
			return r;
	}

	m->quiet = true;
	r = kernel_source_start(m);
	if (r >= 0 && m->kernel)
		(void)manager_resync(m, "start");
	m->quiet = false;
	return r < 0 ? r : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Following pcierrd's signals: `pcierrctl monitor`, and the wait of
 * reset and inject for the end of the recovery they started.
 *
 * A wait subscribes to the signals before the method is called, so that
 * nothing is missed; it takes the RecoveryFinished of its slot that comes
 * after an ErrorDetected or RecoveryStarted of that slot (so the end of
 * a recovery that ran before does not count).
 */
#ifndef PCIERRCTL_CTL_WAIT_H
#define PCIERRCTL_CTL_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "format.h"
#include "output.h"

/* Follow the signals, one line (or JSON object) each, until SIGINT or
 * SIGTERM. Returns 0, or a negative errno (logged). */
int ctl_monitor(sd_bus *bus, const struct ctl_style *st, bool json, bool legend);

struct ctl_wait;

/* Subscribe to the signals of slot. show: print them as they come. */
int ctl_wait_new(sd_bus *bus, const char *slot, const struct ctl_style *st, bool show,
		 struct ctl_wait **ret);
struct ctl_wait *ctl_wait_free(struct ctl_wait *w);

/*
 * Wait until the recovery finished (timeout_usec: at most that long; 0:
 * no limit), or pcierrd went away. Returns 0 when it finished (the
 * result in ctl_wait_recovery), -ETIMEDOUT, -ESHUTDOWN (pcierrd stopped),
 * or another negative errno; logs all but the first two.
 */
int ctl_wait_run(struct ctl_wait *w, uint64_t timeout_usec);

/* What the wait saw (valid until ctl_wait_free) */
void ctl_wait_recovery(const struct ctl_wait *w, struct ctl_recovery *ret);

/* a signal message into sig; tmp holds what sig points to and must be
 * freed. -EINVAL for one of no interest. */
int ctl_signal_from_message(sd_bus_message *m, struct ctl_signal *sig, char **tmp);

#endif /* PCIERRCTL_CTL_WAIT_H */

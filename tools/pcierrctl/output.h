/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's output, text and JSON, from plain data (model.h): nothing
 * here talks to the bus, so the unit tests render hand-built models.
 *
 * The JSON shapes (man/pcierrctl.8 documents them):
 *   manager object   the org.pcierr1.Manager properties by their D-Bus names
 *   slot object      the org.pcierr1.Slot properties by their D-Bus names;
 *                    "Devices" holds addresses, not object paths
 *   device object    the org.pcierr1.Device properties by their D-Bus
 *                    names; "Slot" holds the slot's address
 *   status           {"manager": manager, "slots": [slot], "devices": [device]}
 *   list             [device]
 *   show             {"slot": slot|null, "device": device|null}
 *   stats            manager
 *   history          [{"time_usec","slot","device","kind","step","result",
 *                      "results","duration_usec","error","message"}]
 *   monitor          one object a line: {"time_usec", "signal", and the
 *                    signal's arguments by their D-Bus names}
 *   reset, inject    {"slot", "seq", "result", "duration_usec", "steps":
 *                     [{"step","result","duration_usec"}], "reason"}
 */
#ifndef PCIERRCTL_OUTPUT_H
#define PCIERRCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "model.h"

/* All return 0, or a negative errno (-ENOMEM, -EIO). */

/*
 * The tree of slots and their devices, as `lspci -tv` draws a bus: one
 * line a slot (state, step, last recovery), one a device (address,
 * driver, state, freezes x/max, names). only_slot: that slot alone
 * (NULL: all). legend: a summary line first.
 */
int ctl_render_status(FILE *f, const struct ctl_style *st, const struct ctl_model *m,
		      const char *only_slot, bool legend, uint64_t now_usec);
int ctl_json_status(FILE *f, bool pretty, const struct ctl_model *m, const char *only_slot);

/* One line a device; legend: a header and a count */
int ctl_render_list(FILE *f, const struct ctl_style *st, const struct ctl_model *m,
		    bool legend);
int ctl_json_list(FILE *f, bool pretty, const struct ctl_model *m);

/* Every property, Name=Value, of the slot and/or the device (either NULL) */
int ctl_render_show(FILE *f, const struct ctl_slot *s, const struct ctl_device *d);
int ctl_json_show(FILE *f, bool pretty, const struct ctl_slot *s, const struct ctl_device *d);

/* The Manager's properties; legend: where the kernel's counters are */
int ctl_render_stats(FILE *f, const struct ctl_style *st, const struct ctl_manager *m,
		     bool legend);
int ctl_json_stats(FILE *f, bool pretty, const struct ctl_manager *m);

int ctl_render_history(FILE *f, const struct ctl_style *st,
		       const struct ctl_history_entry *e, size_t n, bool legend);
int ctl_json_history(FILE *f, bool pretty, const struct ctl_history_entry *e, size_t n);

/* A signal of org.pcierr1 (or of the bus about it), as monitor shows it */
enum ctl_signal_kind {
	CTL_SIGNAL_ERROR_DETECTED,
	CTL_SIGNAL_RECOVERY_STARTED,
	CTL_SIGNAL_RECOVERY_STEP,
	CTL_SIGNAL_RECOVERY_FINISHED,
	CTL_SIGNAL_PERMANENTLY_DISABLED,
	CTL_SIGNAL_INTERFACES_ADDED,	/* address, object ("slot"/"device") */
	CTL_SIGNAL_INTERFACES_REMOVED,
	CTL_SIGNAL_NAME_OWNER_CHANGED,	/* running */
	_CTL_SIGNAL_MAX,
};

struct ctl_signal {
	enum ctl_signal_kind kind;
	uint64_t time_usec;		/* when it came (wall clock); 0: not shown */
	const char *slot;
	const char *device;
	const char *state;
	uint32_t unavailable_ms;
	const char *source;
	const char *mode;
	const char *step;
	const char *result;
	uint64_t duration_usec;
	const char *reason;
	const char *path;		/* InterfacesAdded/Removed */
	const char *object;		/* "slot", "device" */
	const char *address;
	bool running;			/* NameOwnerChanged: pcierrd is there now */
};

const char *ctl_signal_name(enum ctl_signal_kind k);

/* one line; with time_usec, a "HH:MM:SS.mmm " prefix */
int ctl_render_signal(FILE *f, const struct ctl_style *st, const struct ctl_signal *sig);
int ctl_json_signal(FILE *f, const struct ctl_signal *sig);

/* What reset and inject waited for */
struct ctl_step {
	char *step;
	char *result;
	uint64_t duration_usec;
};

struct ctl_recovery {
	const char *slot;
	bool has_seq;
	uint64_t seq;
	const char *result;		/* NULL: not waited for */
	bool has_duration;
	uint64_t duration_usec;
	const struct ctl_step *steps;
	size_t n_steps;
	const char *reason;		/* PermanentlyDisabled's, or NULL */
};

int ctl_json_recovery(FILE *f, bool pretty, const struct ctl_recovery *r);

#endif /* PCIERRCTL_OUTPUT_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the world hears of pcierrd's model (issue 10 point 12): manager.c,
 * recovery.c and the sources report every change through one small
 * observer interface, never by calling the bus. The D-Bus side is one
 * observer (bus_setup() installs it), the tests install a recording one;
 * with none (--no-bus) nothing is told.
 *
 *   source -> policy -> command -> report (journal is logged by the caller;
 *   the observer fans out: D-Bus signals and properties)
 *
 * So the includes go one way: bus-*.c include manager.h, never the
 * reverse.
 */
#ifndef PCIERRD_OBSERVER_H
#define PCIERRD_OBSERVER_H

#include <stdint.h>

struct manager;
struct slot;
struct device;

/* One step of a recovery, as the Manager's signals carry it */
enum recovery_report_type {
	REPORT_ERROR_DETECTED,	/* slot, device, state, unavailable_ms, source */
	REPORT_STARTED,		/* slot, mode */
	REPORT_STEP,		/* slot, step, result, duration_usec */
	REPORT_FINISHED,	/* slot, result, duration_usec */
	REPORT_DISABLED,	/* slot, device, reason */
};

struct recovery_report {
	enum recovery_report_type type;
	const char *slot;
	const char *device;
	const char *state;
	const char *source;
	const char *mode;
	const char *step;
	const char *result;
	const char *reason;
	uint32_t unavailable_ms;
	uint64_t duration_usec;
};

/* NULL members: nothing to do */
struct manager_observer {
	void (*slot_added)(struct slot *s);	/* before its devices */
	void (*slot_removed)(struct slot *s);	/* after its devices */
	void (*slot_changed)(struct slot *s);
	void (*device_added)(struct device *d);
	void (*device_removed)(struct device *d);
	void (*device_changed)(struct device *d);
	void (*manager_changed)(struct manager *m);	/* counters, connection */
	void (*report)(struct manager *m, const struct recovery_report *r);
};

void observe_slot_added(struct slot *s);
void observe_slot_removed(struct slot *s);
void observe_slot_changed(struct slot *s);
void observe_device_added(struct device *d);
void observe_device_removed(struct device *d);
void observe_device_changed(struct device *d);
void observe_manager_changed(struct manager *m);
void observe_report(struct manager *m, const struct recovery_report *r);

#endif /* PCIERRD_OBSERVER_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the world hears of pcierrd's model (issue 10 point 12): manager.c,
 * recovery.c and the sources report every change through one small
 * observer interface, never by calling the bus or the recovery. The D-Bus
 * side is one observer (bus_setup()), the recovery another (recovery_setup():
 * it acts on slots a resync or refresh finds unhealthy), the tests add a
 * recording one; with none nothing is told.
 *
 *   source -> policy -> command -> report (journal is logged by the caller;
 *   the observers fan out: D-Bus signals and properties)
 *
 * So the includes go one way: bus-*.c and recovery.c include manager.h,
 * never the reverse.
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
	REPORT_STARTED,		/* slot, mode, recovery */
	REPORT_STEP,		/* slot, step, result, duration_usec, recovery */
	REPORT_FINISHED,	/* slot, result, duration_usec, reason, recovery */
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
	/* the recovery's id (U9: Reset returns it, every Recovery* signal
	 * carries it); 0: none */
	uint64_t recovery;
};

/* Why a slot was looked at again (slot_synced) */
enum slot_sync {
	SLOT_SYNC_RESYNC,	/* a resync dumped every PE */
	SLOT_SYNC_REFRESH,	/* this PE was read again (after an operation) */
	SLOT_SYNC_DEVICE,	/* a device of it was added or bound */
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

	/* The model's news for whoever acts on it (recovery.c's observer):
	 * s as the shim shows it now; the shim runs no operation of s's PE
	 * (or the PE is gone: an operation s waits for will not end by
	 * itself); s is about to be freed */
	void (*slot_synced)(struct slot *s, enum slot_sync how);
	void (*slot_op_idle)(struct slot *s);
	void (*slot_freeing)(struct slot *s);
};

/* Observers are told in the order they were added; -ENOSPC past
 * MANAGER_OBSERVERS_MAX, 0 for one added already */
#define MANAGER_OBSERVERS_MAX 6
int manager_add_observer(struct manager *m, const struct manager_observer *o);

void observe_slot_added(struct slot *s);
void observe_slot_removed(struct slot *s);
void observe_slot_changed(struct slot *s);
void observe_device_added(struct device *d);
void observe_device_removed(struct device *d);
void observe_device_changed(struct device *d);
void observe_manager_changed(struct manager *m);
void observe_report(struct manager *m, const struct recovery_report *r);
void observe_slot_synced(struct slot *s, enum slot_sync how);
void observe_slot_op_idle(struct slot *s);
void observe_slot_freeing(struct slot *s);

#endif /* PCIERRD_OBSERVER_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd on D-Bus: org.pcierr1 (design §7, docs/dbus.md).
 *
 *   /org/pcierr1                 org.pcierr1.Manager + ObjectManager
 *   /org/pcierr1/slot/<addr>     org.pcierr1.Slot    (one per PE)
 *   /org/pcierr1/device/<addr>   org.pcierr1.Device  (one per device)
 *
 * <addr> is the address escaped with sd_bus_path_encode(). The
 * introspection of each interface is dbus/org.pcierr1.<Interface>.xml,
 * byte for byte (tests compare them).
 *
 * All bus_* functions do nothing and return 0 when m->bus is NULL.
 */
#ifndef PCIERRD_BUS_H
#define PCIERRD_BUS_H

#include "manager.h"

#define PCIERR_BUS_NAME			"org.pcierr1"
#define PCIERR_BUS_PATH			"/org/pcierr1"
#define PCIERR_BUS_SLOT_PREFIX		"/org/pcierr1/slot"
#define PCIERR_BUS_DEVICE_PREFIX	"/org/pcierr1/device"
#define PCIERR_BUS_MANAGER_IFACE	"org.pcierr1.Manager"
#define PCIERR_BUS_SLOT_IFACE		"org.pcierr1.Slot"
#define PCIERR_BUS_DEVICE_IFACE		"org.pcierr1.Device"

#define PCIERR_BUS_ERROR_BUSY		"org.pcierr1.Error.Busy"
#define PCIERR_BUS_ERROR_KERNEL		"org.pcierr1.Error.KernelDisconnected"
#define PCIERR_BUS_ERROR_NOT_SUPPORTED	"org.pcierr1.Error.NotSupported"
#define PCIERR_BUS_ERROR_FAILED		"org.pcierr1.Error.Failed"
#define PCIERR_BUS_ERROR_NO_SUCH_DEVICE	"org.pcierr1.Error.NoSuchDevice"
/* state conflicts (U9): the call is well formed, the slot is not in a
 * state it applies to */
#define PCIERR_BUS_ERROR_DISABLED	"org.pcierr1.Error.Disabled"
#define PCIERR_BUS_ERROR_NOT_DISABLED	"org.pcierr1.Error.NotDisabled"
#define PCIERR_BUS_ERROR_SLOT_EMPTY	"org.pcierr1.Error.SlotEmpty"

/* GetHistory: a limit of 0 means this many (the newest), and no call
 * returns more than the maximum (review M6) */
#define PCIERR_BUS_HISTORY_DEFAULT	1000U
#define PCIERR_BUS_HISTORY_MAX		10000U

/* Register the vtables, the object manager and the enumerators on m->bus
 * (already connected) and become the manager's observer (observer.h);
 * does not request the name. */
int bus_setup(struct manager *m);

/* Drop what the bus side holds (GetHistory calls waiting for the state
 * writer); before the loop and the bus go */
void bus_manager_flush(void);
/* how long GetHistory waits for the state writer at most (tests set it) */
extern uint64_t bus_history_wait_usec;
/* how long Enable's and ClearFreezeCount's replies wait for the writer */
extern uint64_t bus_written_wait_usec;

/* Request PCIERR_BUS_NAME (after bus_setup and the first resync) */
int bus_request_name(struct manager *m);

/* Object paths (allocated into *ret) */
int bus_slot_path(const char *addr, char **ret);
int bus_device_path(const char *addr, char **ret);

/* Lifetime of objects: InterfacesAdded / InterfacesRemoved */
int bus_slot_added(struct slot *s);
int bus_slot_removed(struct slot *s);
int bus_device_added(struct device *d);
int bus_device_removed(struct device *d);

/* PropertiesChanged for every emits-change property of the object */
int bus_manager_changed(struct manager *m);
int bus_slot_changed(struct slot *s);
int bus_device_changed(struct device *d);

/* Signals of org.pcierr1.Manager */
int bus_emit_error_detected(struct manager *m, const char *slot,
			    const char *device, const char *state,
			    uint32_t time_unavail_ms, const char *source);
/* recovery: the recovery's id (Reset's reply); the slot's object path
 * is added from the address */
int bus_emit_recovery_started(struct manager *m, const char *slot,
			      const char *mode, uint64_t recovery);
int bus_emit_recovery_step(struct manager *m, const char *slot,
			   const char *step, const char *result,
			   uint64_t duration_usec, uint64_t recovery);
int bus_emit_recovery_finished(struct manager *m, const char *slot,
			       const char *result, uint64_t duration_usec,
			       const char *reason, uint64_t recovery);
int bus_emit_permanently_disabled(struct manager *m, const char *slot,
				  const char *device, const char *reason);

#endif /* PCIERRD_BUS_H */

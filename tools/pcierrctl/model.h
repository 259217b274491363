/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What pcierrctl knows of pcierrd: the Manager's properties, every slot
 * and every device (docs/dbus.md), as plain data. ctl-bus.c fills it
 * from the bus (GetStatus, or GetManagedObjects); output.c renders it; the unit tests
 * build it by hand. Object paths are turned into addresses when read.
 */
#ifndef PCIERRCTL_MODEL_H
#define PCIERRCTL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl-macro.h"

/* org.pcierr1.Manager */
struct ctl_manager {
	char *version;
	uint32_t max_freezes;
	uint64_t freeze_window_usec;
	uint64_t max_wait_usec;
	uint64_t step_timeout_usec;
	bool kernel_connected;
	uint64_t events_received;
	uint64_t events_lost;
	uint64_t recoveries_started;
	uint64_t recoveries_succeeded;
	uint64_t recoveries_failed;
	uint64_t hotplug_fallbacks;
	uint64_t permanent_disables;
	uint64_t resyncs;
};

/* org.pcierr1.Slot */
struct ctl_slot {
	char *address;
	char **reset_types;		/* NULL-terminated (or NULL) */
	char *state;
	char *step;
	bool stuck;
	char **devices;			/* the devices' addresses, in bus order */
	char *last_result;
	uint64_t last_duration_usec;
	uint64_t last_recovery_usec;
	char *last_message;
	bool disabled;
	char *backend;			/* generic, pseries-rtas, kernel-eeh */
};

/* org.pcierr1.Device */
struct ctl_device {
	char *address;
	char *slot;			/* the slot's address */
	uint16_t vendor_id;
	uint16_t device_id;
	uint16_t subsystem_vendor_id;
	uint16_t subsystem_id;
	uint32_t class;
	char *vendor_name;
	char *device_name;
	char *identity;
	char *driver;
	char **handlers;
	char *state;
	uint32_t error_generation;
	uint32_t freeze_count;
	uint32_t max_freezes;
	uint64_t last_error_usec;
	bool disabled;
	char *disabled_reason;
};

struct ctl_model {
	struct ctl_manager manager;
	struct ctl_slot *slots;
	size_t n_slots;
	struct ctl_device *devices;
	size_t n_devices;
};

/* One entry of GetHistory, a(tsssssstis) */
struct ctl_history_entry {
	uint64_t time_usec;
	char *slot;
	char *device;
	char *kind;
	char *step;
	char *result;
	char *results;
	uint64_t duration_usec;
	int32_t error;
	char *message;
};

/* Free what the members point to (not the structs themselves) */
void ctl_manager_done(struct ctl_manager *m);
void ctl_slot_done(struct ctl_slot *s);
void ctl_device_done(struct ctl_device *d);
void ctl_model_done(struct ctl_model *m);
void ctl_history_free(struct ctl_history_entry *e, size_t n);

/* Sort the slots and devices by address (bus order), for the finders */
void ctl_model_sort(struct ctl_model *m);

/* Lookups by canonical address, after ctl_model_sort(); NULL if none */
const struct ctl_slot *ctl_model_find_slot(const struct ctl_model *m, const char *addr);
const struct ctl_device *ctl_model_find_device(const struct ctl_model *m, const char *addr);
/* the slot of that address: the slot itself, or the slot of that device */
const struct ctl_slot *ctl_model_find_slot_for(const struct ctl_model *m, const char *addr);

/* the number of entries of a NULL-terminated list */
size_t ctl_strv_length(char *const *l);

#endif /* PCIERRCTL_MODEL_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * org.pcierr1.Slot at /org/pcierr1/slot/<escaped address>, one per PE
 * (docs/dbus.md): a fallback vtable whose objects are found in m->slots.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bus.h"
#include "bus-util.h"

int bus_slot_find(sd_bus *bus, const char *path, const char *interface,
		  void *userdata, void **found, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_free_ char *addr = NULL;
	struct slot *s;
	int r;

	/* only the canonical spelling names an object (bus_path_address()),
	 * checked against the object found rather than by normalising the
	 * address twice on every call */
	r = sd_bus_path_decode(path, PCIERR_BUS_SLOT_PREFIX, &addr);
	if (r <= 0)
		return r;
	s = manager_find_slot(m, addr);
	if (!s || strcmp(s->addr, addr) != 0)
		return 0;
	*found = s;
	return 1;
}

int bus_slot_enumerate(sd_bus *bus, const char *prefix, void *userdata,
		       char ***nodes, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_strv_free_ char **l = NULL;
	size_t n = 0;
	int r;

	l = calloc(m->n_slots + 1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_slots; i++) {
		r = bus_slot_path(m->slots[i]->addr, &l[n]);
		if (r < 0)
			return r;
		n++;
	}
	*nodes = TAKE_PTR(l);
	return 0;
}

int bus_append_reset_types(sd_bus_message *reply, const struct slot *s)
{
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	if (r < 0)
		return r;
	for (unsigned int t = 0; t < 32; t++) {
		const char *name;

		if (!(s->reset_types & (1U << t)))
			continue;
		name = pcierr_reset_type_to_string((enum pcierr_reset_type)t);
		if (!name)
			continue;
		r = sd_bus_message_append_basic(reply, 's', name);
		if (r < 0)
			return r;
	}
	return sd_bus_message_close_container(reply);
}

static int property_get_reset_types(sd_bus *bus, const char *path,
				    const char *interface,
				    const char *property,
				    sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	return bus_append_reset_types(reply, userdata);
}

/* Who recovers the slot: "generic" (the PCI core's resets, the shim's
 * software freeze), "pseries-rtas" (firmware), "kernel-eeh" (the
 * kernel's own EEH; pcierr only observes), "" if the shim did not say. */
const char *bus_slot_backend_name(const struct slot *s)
{
	switch (s->backend) {
	case PCIERR_BACKEND_GENERIC:
		return "generic";
	case PCIERR_BACKEND_RTAS:
		return "pseries-rtas";
	case PCIERR_BACKEND_EEH:
		return "kernel-eeh";
	default:
		return "";
	}
}

static int property_get_backend(sd_bus *bus, const char *path,
				const char *interface, const char *property,
				sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	return sd_bus_message_append_basic(reply, 's', bus_slot_backend_name(userdata));
}

static int property_get_state(sd_bus *bus, const char *path,
			      const char *interface, const char *property,
			      sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct slot *s = userdata;

	return sd_bus_message_append(reply, "s",
				     bus_strempty(pcierr_pe_state_to_string(s->state)));
}

static int property_get_step(sd_bus *bus, const char *path,
			     const char *interface, const char *property,
			     sd_bus_message *reply, void *userdata,
			     sd_bus_error *error)
{
	struct slot *s = userdata;

	return sd_bus_message_append(reply, "s",
				     bus_strempty(pcierr_recovery_phase_to_string(s->recovery.policy.phase)));
}

static int property_get_stuck(sd_bus *bus, const char *path,
			      const char *interface, const char *property,
			      sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct slot *s = userdata;

	return sd_bus_message_append(reply, "b", (int)s->recovery.policy.stuck);
}

static int property_get_devices(sd_bus *bus, const char *path,
				const char *interface, const char *property,
				sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	struct slot *s = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "o");
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_devices; i++) {
		_cleanup_free_ char *tmp = NULL;
		const char *p = bus_device_object_path(s->devices[i], &tmp);

		if (!p)
			return -ENOMEM;
		r = sd_bus_message_append_basic(reply, 'o', p);
		if (r < 0)
			return r;
	}
	return sd_bus_message_close_container(reply);
}

bool bus_slot_disabled(const struct slot *s)
{
	return (s->flags & PCIERR_PE_F_DISABLED) || s->state == PCIERR_PE_STATE_DISABLED;
}

static int property_get_disabled(sd_bus *bus, const char *path,
				 const char *interface, const char *property,
				 sd_bus_message *reply, void *userdata,
				 sd_bus_error *error)
{
	return sd_bus_message_append(reply, "b", (int)bus_slot_disabled(userdata));
}

#define EMITS	SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST	SD_BUS_VTABLE_PROPERTY_CONST

const sd_bus_vtable bus_slot_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Address", "s", bus_property_get_chars,
			offsetof(struct slot, addr), CONST),
	SD_BUS_PROPERTY("ResetTypes", "as", property_get_reset_types, 0, EMITS),
	SD_BUS_PROPERTY("State", "s", property_get_state, 0, EMITS),
	SD_BUS_PROPERTY("Step", "s", property_get_step, 0, EMITS),
	SD_BUS_PROPERTY("Stuck", "b", property_get_stuck, 0, EMITS),
	SD_BUS_PROPERTY("Devices", "ao", property_get_devices, 0, EMITS),
	SD_BUS_PROPERTY("LastResult", "s", bus_property_get_chars,
			offsetof(struct slot, status.last_result), EMITS),
	SD_BUS_PROPERTY("LastDurationUSec", "t", NULL,
			offsetof(struct slot, status.last_duration_usec), EMITS),
	SD_BUS_PROPERTY("LastRecoveryUSec", "t", NULL,
			offsetof(struct slot, status.last_finished_usec), EMITS),
	SD_BUS_PROPERTY("LastMessage", "s", bus_property_get_chars,
			offsetof(struct slot, status.message), EMITS),
	SD_BUS_PROPERTY("Disabled", "b", property_get_disabled, 0, EMITS),
	SD_BUS_PROPERTY("Backend", "s", property_get_backend, 0, EMITS),
	SD_BUS_VTABLE_END
};

static int slot_emit(struct slot *s, enum bus_object_event ev)
{
	_cleanup_free_ char *tmp = NULL;
	sd_bus *bus = s && s->manager ? s->manager->bus : NULL;

	if (!bus)
		return 0;
	return bus_object_emit(bus, bus_slot_object_path(s, &tmp), PCIERR_BUS_SLOT_IFACE, ev);
}

int bus_slot_added(struct slot *s)
{
	return slot_emit(s, BUS_OBJECT_ADDED);
}

int bus_slot_removed(struct slot *s)
{
	return slot_emit(s, BUS_OBJECT_REMOVED);
}

int bus_slot_changed(struct slot *s)
{
	return slot_emit(s, BUS_OBJECT_CHANGED);
}

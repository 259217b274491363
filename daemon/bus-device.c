/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * org.pcierr1.Device at /org/pcierr1/device/<escaped address>, one per
 * device of every slot (docs/dbus.md): a fallback vtable whose objects
 * are found through manager_find_device().
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bus.h"
#include "bus-util.h"

int bus_device_find(sd_bus *bus, const char *path, const char *interface,
		    void *userdata, void **found, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_free_ char *addr = NULL;
	struct device *d;
	int r;

	/* only the canonical spelling names an object (bus_path_address()),
	 * checked against the object found rather than by normalising the
	 * address twice on every call */
	r = sd_bus_path_decode(path, PCIERR_BUS_DEVICE_PREFIX, &addr);
	if (r <= 0)
		return r;
	d = manager_find_device(m, addr);
	if (!d || strcmp(d->addr, addr) != 0)
		return 0;
	*found = d;
	return 1;
}

int bus_device_enumerate(sd_bus *bus, const char *prefix, void *userdata,
			 char ***nodes, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_strv_free_ char **l = NULL;
	size_t n = 0, total = 0;
	int r;

	for (size_t i = 0; i < m->n_slots; i++)
		total += m->slots[i]->n_devices;
	l = calloc(total + 1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_slots; i++)
		for (size_t j = 0; j < m->slots[i]->n_devices; j++) {
			r = bus_device_path(m->slots[i]->devices[j]->addr, &l[n]);
			if (r < 0)
				return r;
			n++;
		}
	*nodes = TAKE_PTR(l);
	return 0;
}

static int property_get_slot(sd_bus *bus, const char *path,
			     const char *interface, const char *property,
			     sd_bus_message *reply, void *userdata,
			     sd_bus_error *error)
{
	struct device *d = userdata;
	_cleanup_free_ char *tmp = NULL;
	const char *p = "/";

	if (d->slot) {
		p = bus_slot_object_path(d->slot, &tmp);
		if (!p)
			return -ENOMEM;
	}
	return sd_bus_message_append_basic(reply, 'o', p);
}

int bus_append_handlers(sd_bus_message *reply, const struct device *d)
{
	char buf[512];
	char *p, *saveptr = NULL;
	int r;

	r = pcierr_handlers_to_string(d->handlers, buf, sizeof(buf));
	if (r < 0)
		return r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	if (r < 0)
		return r;
	for (p = strtok_r(buf, ",", &saveptr); p; p = strtok_r(NULL, ",", &saveptr)) {
		r = sd_bus_message_append_basic(reply, 's', p);
		if (r < 0)
			return r;
	}
	return sd_bus_message_close_container(reply);
}

static int property_get_handlers(sd_bus *bus, const char *path,
				 const char *interface, const char *property,
				 sd_bus_message *reply, void *userdata,
				 sd_bus_error *error)
{
	return bus_append_handlers(reply, userdata);
}

static int property_get_state(sd_bus *bus, const char *path,
			      const char *interface, const char *property,
			      sd_bus_message *reply, void *userdata,
			      sd_bus_error *error)
{
	struct device *d = userdata;

	return sd_bus_message_append(reply, "s",
				     bus_strempty(pcierr_state_to_string(d->state)));
}

void bus_device_settings(const struct device *d, struct pcierr_settings *ret)
{
	/* as the policy resolves it: a [Driver NAME] section counts too */
	pcierr_config_resolve_driver(&d->manager->config, d->addr, true, d->vendor,
				     d->device, d->driver && d->driver[0] ? d->driver : NULL, ret);
}

/* the count of the current window only (the rule of policy.h): a window
 * is over when more than FreezeWindowSec passed since its first freeze;
 * a clock gone backwards counts as inside */
uint32_t bus_device_freeze_count(const struct device *d,
				 const struct pcierr_settings *set,
				 pcierr_usec_t now)
{
	pcierr_usec_t window = (pcierr_usec_t)set->freeze_window_sec * PCIERR_USEC_PER_SEC;

	if (d->history.count > 0 && now >= d->history.first_usec &&
	    now - d->history.first_usec > window)
		return 0;
	return d->history.count;
}

static int property_get_freeze_count(sd_bus *bus, const char *path,
				     const char *interface,
				     const char *property,
				     sd_bus_message *reply, void *userdata,
				     sd_bus_error *error)
{
	struct device *d = userdata;
	struct pcierr_settings set;
	uint32_t count = 0;

	if (d->history.count > 0) {
		bus_device_settings(d, &set);
		count = bus_device_freeze_count(d, &set, now_realtime_usec());
	}
	return sd_bus_message_append_basic(reply, 'u', &count);
}

static int property_get_max_freezes(sd_bus *bus, const char *path,
				    const char *interface,
				    const char *property,
				    sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	struct device *d = userdata;
	struct pcierr_settings set;
	uint32_t v;

	bus_device_settings(d, &set);
	v = set.max_freezes;
	return sd_bus_message_append_basic(reply, 'u', &v);
}

static int property_get_disabled(sd_bus *bus, const char *path,
				 const char *interface, const char *property,
				 sd_bus_message *reply, void *userdata,
				 sd_bus_error *error)
{
	struct device *d = userdata;

	return sd_bus_message_append(reply, "b", (int)d->history.disabled);
}

#define EMITS	SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CONST	SD_BUS_VTABLE_PROPERTY_CONST

const sd_bus_vtable bus_device_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Address", "s", bus_property_get_chars,
			offsetof(struct device, addr), CONST),
	SD_BUS_PROPERTY("Slot", "o", property_get_slot, 0, CONST),
	SD_BUS_PROPERTY("VendorId", "q", NULL,
			offsetof(struct device, vendor), CONST),
	SD_BUS_PROPERTY("DeviceId", "q", NULL,
			offsetof(struct device, device), CONST),
	SD_BUS_PROPERTY("SubsystemVendorId", "q", NULL,
			offsetof(struct device, subvendor), CONST),
	SD_BUS_PROPERTY("SubsystemId", "q", NULL,
			offsetof(struct device, subdevice), CONST),
	SD_BUS_PROPERTY("Class", "u", NULL,
			offsetof(struct device, class), CONST),
	SD_BUS_PROPERTY("VendorName", "s", NULL,
			offsetof(struct device, vendor_name), CONST),
	SD_BUS_PROPERTY("DeviceName", "s", NULL,
			offsetof(struct device, device_name), CONST),
	SD_BUS_PROPERTY("Identity", "s", bus_property_get_chars,
			offsetof(struct device, key), CONST),
	SD_BUS_PROPERTY("Driver", "s", NULL,
			offsetof(struct device, driver), EMITS),
	SD_BUS_PROPERTY("Handlers", "as", property_get_handlers, 0, EMITS),
	SD_BUS_PROPERTY("State", "s", property_get_state, 0, EMITS),
	SD_BUS_PROPERTY("ErrorGeneration", "u", NULL,
			offsetof(struct device, error_gen), EMITS),
	/* derived from the wall clock (the window ends without an event):
	 * no PropertiesChanged promised, read it (review M9) */
	SD_BUS_PROPERTY("FreezeCount", "u", property_get_freeze_count, 0, 0),
	SD_BUS_PROPERTY("MaxFreezes", "u", property_get_max_freezes, 0, EMITS),
	SD_BUS_PROPERTY("LastErrorUSec", "t", NULL,
			offsetof(struct device, last_error_usec), EMITS),
	SD_BUS_PROPERTY("NonFatalErrors", "t", NULL,
			offsetof(struct device, nonfatal_errors), EMITS),
	SD_BUS_PROPERTY("Disabled", "b", property_get_disabled, 0, EMITS),
	SD_BUS_PROPERTY("DisabledReason", "s", NULL,
			offsetof(struct device, disabled_reason), EMITS),
	SD_BUS_VTABLE_END
};

static int device_emit(struct device *d, enum bus_object_event ev)
{
	_cleanup_free_ char *tmp = NULL;
	sd_bus *bus = d && d->manager ? d->manager->bus : NULL;

	if (!bus)
		return 0;
	return bus_object_emit(bus, bus_device_object_path(d, &tmp), PCIERR_BUS_DEVICE_IFACE, ev);
}

int bus_device_added(struct device *d)
{
	return device_emit(d, BUS_OBJECT_ADDED);
}

int bus_device_removed(struct device *d)
{
	return device_emit(d, BUS_OBJECT_REMOVED);
}

int bus_device_changed(struct device *d)
{
	return device_emit(d, BUS_OBJECT_CHANGED);
}

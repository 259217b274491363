/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inside of pcierrd's D-Bus layer (bus-manager.c, bus-slot.c,
 * bus-device.c): argument checks, the caller's privilege, errno to D-Bus
 * error names (docs/dbus.md "Errors"), and the vtables each file exports
 * to bus_setup().
 */
#ifndef PCIERRD_BUS_UTIL_H
#define PCIERRD_BUS_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>

#include "manager.h"

static inline const char *bus_strempty(const char *s)
{
	return s ? s : "";
}

static inline bool bus_isempty(const char *s)
{
	return !s || !*s;
}

/*
 * A caller's string as an error message quotes it: at most BUS_QUOTE_BYTES
 * bytes, cut at a UTF-8 character's start, "..." appended when cut. Any
 * caller may send a 1 MiB argument; the error must not send it back (nor
 * cost pcierrd and the bus a copy of it each time).
 */
#define BUS_QUOTE_BYTES 64
const char *bus_quote(const char *s, char buf[static BUS_QUOTE_BYTES + 4]);

/*
 * A PCI address from a caller ("DDDD:BB:DD.F" or "BB:DD.F", hex, any
 * case) into its normalised form. Returns 0, or sets InvalidArgs
 * ("Invalid PCI address '...': expected DDDD:BB:DD.F or BB:DD.F") and
 * returns its negative errno.
 */
int bus_parse_address(const char *s, char ret[PCIERR_ADDR_MAX],
		      sd_bus_error *error);

/*
 * The uid treated as root by bus-polkit.c: 0. Only the unit tests change it, to
 * exercise both the refused and the accepted path whoever runs them.
 */
extern uid_t bus_privileged_uid;

/*
 * A negative errno of a manager_*() method and its words (msg, may be
 * empty; what names the object the call was about, for a default
 * message) to the D-Bus error of docs/dbus.md:
 *   -EINVAL -ENODEV  InvalidArgs        -EBUSY       org.pcierr1.Error.Busy
 *   -ENOTCONN        ...KernelDisconnected  -EOPNOTSUPP ...NotSupported
 *   -EPERM -EACCES   AccessDenied       anything else org.pcierr1.Error.Failed
 * Returns the negative errno sd-bus derives from the error.
 */
int bus_error_from_errno(sd_bus_error *error, int r, const char *msg,
			 const char *what);

static inline void bus_error_freep(sd_bus_error *e)
{
	sd_bus_error_free(e);
}
#define _cleanup_bus_error_free_	_cleanup_(bus_error_freep)

/* The object path of a slot / device: its own, else derived (into *tmp) */
const char *bus_slot_object_path(const struct slot *s, char **tmp);
const char *bus_device_object_path(const struct device *d, char **tmp);

/*
 * The address an object path under prefix names: 1 and ret filled for the
 * canonical spelling only, 0 for anything else (not ours, not canonical),
 * or a negative errno.
 */
int bus_path_address(const char *path, const char *prefix,
		     char ret[PCIERR_ADDR_MAX]);

/* An object's life on the bus: InterfacesAdded/Removed, PropertiesChanged */
enum bus_object_event {
	BUS_OBJECT_ADDED,
	BUS_OBJECT_REMOVED,
	BUS_OBJECT_CHANGED,
};

/* Announce ev for the object at path (NULL: out of memory) on bus (NULL:
 * no bus, nothing to do) */
int bus_object_emit(sd_bus *bus, const char *path, const char *iface,
		    enum bus_object_event ev);

/* For bus_setup() (bus-manager.c) */
extern const sd_bus_vtable bus_manager_vtable[];
extern const sd_bus_vtable bus_slot_vtable[];
extern const sd_bus_vtable bus_device_vtable[];

int bus_slot_find(sd_bus *bus, const char *path, const char *interface,
		  void *userdata, void **found, sd_bus_error *error);
int bus_slot_enumerate(sd_bus *bus, const char *prefix, void *userdata,
		       char ***nodes, sd_bus_error *error);
int bus_device_find(sd_bus *bus, const char *path, const char *interface,
		    void *userdata, void **found, sd_bus_error *error);
int bus_device_enumerate(sd_bus *bus, const char *prefix, void *userdata,
			 char ***nodes, sd_bus_error *error);

/* Common property getters: a bool / a char array at the offset */
int bus_property_get_bool(sd_bus *bus, const char *path,
			  const char *interface, const char *property,
			  sd_bus_message *reply, void *userdata,
			  sd_bus_error *error);
int bus_property_get_chars(sd_bus *bus, const char *path,
			   const char *interface, const char *property,
			   sd_bus_message *reply, void *userdata,
			   sd_bus_error *error);

/*
 * What the getters of Slot and Device and GetStatus (bus-status.c) both
 * say, written once: the slot's ResetTypes (as), Backend and Disabled;
 * the device's Handlers (as), its settings (resolved from the
 * configuration), and its FreezeCount at now (the current window only).
 */
int bus_append_reset_types(sd_bus_message *reply, const struct slot *s);
const char *bus_slot_backend_name(const struct slot *s);
bool bus_slot_disabled(const struct slot *s);
int bus_append_handlers(sd_bus_message *reply, const struct device *d);
void bus_device_settings(const struct device *d, struct pcierr_settings *ret);
uint32_t bus_device_freeze_count(const struct device *d,
				 const struct pcierr_settings *set,
				 pcierr_usec_t now);

/* org.pcierr1.Manager.GetStatus() (bus-status.c) */
int bus_method_get_status(sd_bus_message *message, void *userdata,
			  sd_bus_error *error);
#define BUS_STATUS_SLOT_SIG	"(sasssbassttsbs)"
#define BUS_STATUS_DEVICE_SIG	"(ssqqqqussssassuuutbs)"

#endif /* PCIERRD_BUS_UTIL_H */

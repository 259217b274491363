/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd on D-Bus: what bus-manager.c, bus-slot.c and bus-device.c share.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bus.h"
#include "bus-util.h"

uid_t bus_privileged_uid = 0;

const char *bus_quote(const char *s, char buf[static BUS_QUOTE_BYTES + 4])
{
	size_t n;

	s = bus_strempty(s);
	n = strnlen(s, BUS_QUOTE_BYTES + 1);
	if (n <= BUS_QUOTE_BYTES)
		return s;
	n = BUS_QUOTE_BYTES;
	/* sd-bus refuses a message that is not UTF-8 */
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	memcpy(buf + n, "...", 4);
	return buf;
}

int bus_parse_address(const char *s, char ret[PCIERR_ADDR_MAX],
		      sd_bus_error *error)
{
	char q[BUS_QUOTE_BYTES + 4];

	if (pcierr_addr_normalize(s, ret) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid PCI address '%s': expected DDDD:BB:DD.F or BB:DD.F",
					 bus_quote(s, q));
	return 0;
}

int bus_error_from_errno(sd_bus_error *error, int r, const char *msg,
			 const char *what)
{
	const char *name;
	char def[PCIERR_ADDR_MAX + 64];

	switch (r) {
	case -EINVAL:
		name = SD_BUS_ERROR_INVALID_ARGS;
		snprintf(def, sizeof(def), "Invalid argument for '%s'",
			 bus_strempty(what));
		break;
	case -ENODEV:
		/* a dedicated error, as systemd's NoSuchUnit (review L9) */
		name = PCIERR_BUS_ERROR_NO_SUCH_DEVICE;
		snprintf(def, sizeof(def), "No PCI device or slot '%s'",
			 bus_strempty(what));
		break;
	case -EBUSY:
		name = PCIERR_BUS_ERROR_BUSY;
		snprintf(def, sizeof(def), "The slot of '%s' is recovering",
			 bus_strempty(what));
		break;
	case -ENOTCONN:
		name = PCIERR_BUS_ERROR_KERNEL;
		snprintf(def, sizeof(def),
			 "The kernel module pcierr_shim is not loaded");
		break;
	case -EHOSTDOWN:
		name = PCIERR_BUS_ERROR_DISABLED;
		snprintf(def, sizeof(def), "The slot of '%s' is permanently disabled",
			 bus_strempty(what));
		break;
	case -EALREADY:
		name = PCIERR_BUS_ERROR_NOT_DISABLED;
		snprintf(def, sizeof(def), "The slot of '%s' is not disabled",
			 bus_strempty(what));
		break;
	case -ENOMEDIUM:
		name = PCIERR_BUS_ERROR_SLOT_EMPTY;
		snprintf(def, sizeof(def), "The slot of '%s' holds no device",
			 bus_strempty(what));
		break;
	case -EOPNOTSUPP:
		name = PCIERR_BUS_ERROR_NOT_SUPPORTED;
		snprintf(def, sizeof(def),
			 "The slot of '%s' does not support this",
			 bus_strempty(what));
		break;
	case -EPERM:
	case -EACCES:
		name = SD_BUS_ERROR_ACCESS_DENIED;
		snprintf(def, sizeof(def), "Permission denied");
		break;
	default:
		name = PCIERR_BUS_ERROR_FAILED;
		snprintf(def, sizeof(def), "%s", strerror(r < 0 ? -r : EIO));
		break;
	}

	return sd_bus_error_setf(error, name, "%s", bus_isempty(msg) ? def : msg);
}

int bus_slot_path(const char *addr, char **ret)
{
	if (!addr || !ret)
		return -EINVAL;
	return sd_bus_path_encode(PCIERR_BUS_SLOT_PREFIX, addr, ret);
}

int bus_device_path(const char *addr, char **ret)
{
	if (!addr || !ret)
		return -EINVAL;
	return sd_bus_path_encode(PCIERR_BUS_DEVICE_PREFIX, addr, ret);
}

const char *bus_slot_object_path(const struct slot *s, char **tmp)
{
	*tmp = NULL;
	if (bus_slot_path(s->addr, tmp) < 0)
		return NULL;
	return *tmp;
}

const char *bus_device_object_path(const struct device *d, char **tmp)
{
	*tmp = NULL;
	if (bus_device_path(d->addr, tmp) < 0)
		return NULL;
	return *tmp;
}

int bus_property_get_bool(sd_bus *bus, const char *path,
			  const char *interface, const char *property,
			  sd_bus_message *reply, void *userdata,
			  sd_bus_error *error)
{
	int b = *(const bool *)userdata;

	return sd_bus_message_append_basic(reply, 'b', &b);
}

int bus_property_get_chars(sd_bus *bus, const char *path,
			   const char *interface, const char *property,
			   sd_bus_message *reply, void *userdata,
			   sd_bus_error *error)
{
	return sd_bus_message_append_basic(reply, 's', (const char *)userdata);
}

int bus_object_emit(sd_bus *bus, const char *path, const char *iface,
		    enum bus_object_event ev)
{
	if (!bus)
		return 0;
	if (!path)
		return -ENOMEM;
	switch (ev) {
	case BUS_OBJECT_ADDED:
		return sd_bus_emit_interfaces_added(bus, path, iface, NULL);
	case BUS_OBJECT_REMOVED:
		return sd_bus_emit_interfaces_removed(bus, path, iface, NULL);
	case BUS_OBJECT_CHANGED:
		/* NULL: every property that emits change */
		return sd_bus_emit_properties_changed_strv(bus, path, iface, NULL);
	}
	return -EINVAL;
}

int bus_path_address(const char *path, const char *prefix,
		     char ret[PCIERR_ADDR_MAX])
{
	_cleanup_free_ char *addr = NULL;
	int r;

	r = sd_bus_path_decode(path, prefix, &addr);
	if (r <= 0)
		return r;
	/* only the canonical spelling names an object */
	if (pcierr_addr_normalize(addr, ret) < 0 || strcmp(ret, addr) != 0)
		return 0;
	return 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's side of org.pcierr1 (docs/dbus.md): connecting (locally,
 * to a remote host over SSH, or to a container), reading the objects into
 * the plain model (model.h), and turning a failed call into words that
 * say what failed and what to do.
 */
#ifndef PCIERRCTL_CTL_BUS_H
#define PCIERRCTL_CTL_BUS_H

#include <stdint.h>

#include <systemd/sd-bus.h>

#include "model.h"

#define CTL_BUS_NAME		"org.pcierr1"
#define CTL_BUS_PATH		"/org/pcierr1"
#define CTL_BUS_SLOT_PREFIX	"/org/pcierr1/slot"
#define CTL_BUS_DEVICE_PREFIX	"/org/pcierr1/device"
#define CTL_BUS_MANAGER_IFACE	"org.pcierr1.Manager"
#define CTL_BUS_SLOT_IFACE	"org.pcierr1.Slot"
#define CTL_BUS_DEVICE_IFACE	"org.pcierr1.Device"

#define CTL_BUS_ERROR_BUSY		"org.pcierr1.Error.Busy"
#define CTL_BUS_ERROR_KERNEL		"org.pcierr1.Error.KernelDisconnected"
#define CTL_BUS_ERROR_NOT_SUPPORTED	"org.pcierr1.Error.NotSupported"
#define CTL_BUS_ERROR_FAILED		"org.pcierr1.Error.Failed"
#define CTL_BUS_ERROR_INTERACTIVE_AUTH	"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

/* The system bus: of host ("[USER@]HOST", over SSH), of a container
 * (machine), or the local one. Logs what failed. */
int ctl_bus_connect(const char *host, const char *machine, sd_bus **ret);

/*
 * Log why a call failed (error set, or r < 0 without it) and return a
 * negative errno. what: the failed action in words ("reset 0000:01:00.0");
 * privileged: what needs authorisation ("reset slots"), for AccessDenied
 * (pcierrd's reason and "Try sudo") and InteractiveAuthorizationRequired.
 */
int ctl_log_bus_error(const sd_bus_error *error, int r, const char *what,
		      const char *privileged);

/* The words for a D-Bus error, without the "Failed to ...: " part */
const char *ctl_bus_error_words(const sd_bus_error *error, int r,
				const char *privileged, char *buf, size_t size);

/* Every slot and device (GetManagedObjects) and the Manager (GetAll),
 * sorted by address */
int ctl_load_model(sd_bus *bus, struct ctl_model *ret, sd_bus_error *error);
int ctl_load_manager(sd_bus *bus, struct ctl_manager *ret, sd_bus_error *error);
/* The same model for status: the Manager (GetAll) and GetStatus, one
 * reply of every slot and device (returns 1); from a pcierrd without
 * GetStatus (UnknownMethod, or the bus's AccessDenied of its older
 * policy), ctl_load_model() (returns 0) */
int ctl_load_status(sd_bus *bus, struct ctl_model *ret, sd_bus_error *error);

/* GetHistory(since, address or "", limit) */
int ctl_get_history(sd_bus *bus, uint64_t since_usec, const char *addr, uint32_t limit,
		    struct ctl_history_entry **ret, size_t *ret_n, sd_bus_error *error);

/* The address of the slot of addr (a slot's or a device's): GetSlot */
int ctl_get_slot_address(sd_bus *bus, const char *addr, char **ret, sd_bus_error *error);

/* the address an object path of org.pcierr1 stands for (prefix: the
 * slot's or device's); NULL when path is not below prefix */
char *ctl_path_to_address(const char *path, const char *prefix);

/*
 * The polkit agent, as systemctl starts it: when asking is allowed, we
 * are not root and stdin is a terminal, run pkttyagent (--notify-fd,
 * --fallback) and wait until it is registered, so that polkit can ask
 * for a password on this terminal. ctl_polkit_agent_close() ends it.
 * Failing to start it is not an error (polkit then refuses).
 */
void ctl_polkit_agent_open(void);
void ctl_polkit_agent_close(void);

/* The bus's local Disconnected: log that the bus went away and leave the
 * event loop with -ECONNRESET (install with sd_bus_add_filter(), userdata
 * a pointer to the sd_event * the bus is attached to) */
int ctl_on_bus_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error);

#endif /* PCIERRCTL_CTL_BUS_H */

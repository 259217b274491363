/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd uevent translation: one udev event of the "pci" subsystem, as
 * its ACTION, sysname and properties, into what the daemon acts on. Pure:
 * no libudev, no I/O, no printing. The daemon's libudev monitor feeds
 * udev_device_get_action() / _get_sysname() / _get_property_value() in
 * through a lookup callback (or an array of "KEY=VALUE" strings).
 *
 * What the kernel sends (drivers/pci/pci-driver.c):
 *   every event of a PCI device carries pci_uevent()'s variables:
 *     PCI_CLASS=%04X  PCI_ID=%04X:%04X  PCI_SUBSYS_ID=%04X:%04X
 *     PCI_SLOT_NAME=<pci_name()>  MODALIAS=...
 *   plus DRIVER=<name> from the driver core while a driver is bound (so
 *   on "bind", not on "unbind": the driver is cleared before that event).
 *   pci_uevent_ers() (AER, DPC, EEH, s390) sends ACTION=change with
 *     ERROR_EVENT=BEGIN_RECOVERY       DEVICE_ONLINE=0
 *         (error_detected() gave NONE, CAN_RECOVER or, since 2025,
 *          NEED_RESET)
 *     ERROR_EVENT=SUCCESSFUL_RECOVERY  DEVICE_ONLINE=1
 *     ERROR_EVENT=FAILED_RECOVERY      DEVICE_ONLINE=0
 *   DEVICE_ONLINE is reported as sent (has_online/online); a pairing other
 *   than the above is not rejected.
 *
 * Results:
 *   add, remove, bind, unbind  -> ADD / REMOVE / BIND / UNBIND
 *   change with ERROR_EVENT    -> AER
 *   change without ERROR_EVENT, any other action (move, online, offline,
 *   ...), another subsystem    -> IGNORED (return 0; nothing else is read)
 *   malformed                  -> -EINVAL, *ret untouched: no ACTION; no
 *     or a bad PCI_SLOT_NAME; a sysname that is not the same address; a
 *     bad PCI_ID / PCI_SUBSYS_ID (must be exactly XXXX:XXXX, hex); an
 *     unknown ERROR_EVENT; DEVICE_ONLINE not "0"/"1"; a bad DRIVER; any
 *     value read of PCIERR_UEVENT_VALUE_MAX bytes or more.
 */
#ifndef PCIERRD_UEVENT_H
#define PCIERRD_UEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pcierr.h>

#include "policy.h"

/* a DRIVER name, NUL included (the kernel's are far shorter) */
#define PCIERR_UEVENT_DRIVER_MAX	64
/* any property value read, NUL included */
#define PCIERR_UEVENT_VALUE_MAX		256

enum pcierr_uevent_type {
	PCIERR_UEVENT_IGNORED,
	PCIERR_UEVENT_ADD,
	PCIERR_UEVENT_REMOVE,
	PCIERR_UEVENT_BIND,
	PCIERR_UEVENT_UNBIND,
	PCIERR_UEVENT_AER,
	__PCIERR_UEVENT_MAX
};

struct pcierr_uevent {
	enum pcierr_uevent_type type;

	/* all but IGNORED: normalised "dddd:bb:dd.f" */
	char addr[PCIERR_ADDR_MAX];

	/* from PCI_ID / PCI_SUBSYS_ID, when sent */
	bool has_ids;
	uint16_t vendor, device;
	bool has_subsys;
	uint16_t subvendor, subdevice;

	/* DRIVER, "" when none was sent */
	char driver[PCIERR_UEVENT_DRIVER_MAX];

	/* AER only */
	enum pcierr_policy_aer aer;
	bool has_online;		/* DEVICE_ONLINE was sent */
	bool online;			/* DEVICE_ONLINE=1 */
};

/* the value of property key, or NULL when the event has none */
typedef const char *(*pcierr_uevent_get_t)(const char *key, void *userdata);

/*
 * Translate one event. subsystem may be NULL when the caller's monitor
 * already filters on "pci"; sysname may be NULL (else it must name the
 * same device as PCI_SLOT_NAME). Returns 0 (ret->type says what, IGNORED
 * included) or -EINVAL.
 */
int pcierr_uevent_parse(const char *subsystem, const char *action,
			const char *sysname, pcierr_uevent_get_t get,
			void *userdata, struct pcierr_uevent *ret);

/* The same over n "KEY=VALUE" strings (NULL entries skipped; the first
 * of a repeated key wins). */
int pcierr_uevent_parse_env(const char *subsystem, const char *action,
			    const char *sysname, const char *const *env,
			    size_t n, struct pcierr_uevent *ret);

/* "add", "remove", "bind", "unbind", "aer", "ignored"; NULL if invalid */
const char *pcierr_uevent_type_to_string(enum pcierr_uevent_type t);

#endif /* PCIERRD_UEVENT_H */

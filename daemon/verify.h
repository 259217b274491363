/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery (issue 25): what a PCI device's function is, while it
 * is healthy, and whether it is back after a recovery.
 *
 * A device's function is its bound driver and its class devices: the
 * udev children below it in sysfs, counted per kind, never by name (an
 * eth0 that comes back as eth1 is back). The kinds that count:
 *   net                 every network interface
 *   block               whole disks (DEVTYPE=disk; partitions follow the
 *                       medium, not the device)
 *   tty                 serial ports and other ttys
 *   sound               sound cards (card*, not their PCM/control nodes)
 *   watchdog            watchdog devices
 *   drm                 graphics cards (card*)
 *   input               input devices (input*, not their event nodes)
 *   hwmon, mmc_host, scsi_host, nvme, rtc
 *                       as they are
 *   usb                 USB devices (DEVTYPE=usb_device: root hubs and
 *                       what is plugged in)
 *   virtio:DRIVER       a virtio device and the driver bound to it
 *                       (virtio_rng: the hwrng, virtio_net, ...)
 * Other children (PCI functions below a bridge, queues, msi_irqs, ...)
 * are not the device's function and are not counted.
 *
 * verify.c is pure (no I/O); verify-sysfs.c reads a device's snapshot.
 */
#ifndef PCIERRD_VERIFY_H
#define PCIERRD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/pcierr.h>

#define VERIFY_KEY_MAX		48
#define VERIFY_DRIVER_MAX	64
#define VERIFY_KINDS_MAX	16

struct verify_kind {
	char key[VERIFY_KEY_MAX];	/* "net", "virtio:virtio_rng", ... */
	unsigned int count;
};

/* One device's function, as seen at one moment */
struct verify_snapshot {
	char addr[PCIERR_ADDR_MAX];
	bool present;			/* the PCI device exists */
	char driver[VERIFY_DRIVER_MAX];	/* "": none bound */
	size_t n_kinds;
	struct verify_kind kinds[VERIFY_KINDS_MAX];
};

/*
 * The kind a child counts as (the list above), into key; false when it
 * does not count. subsystem: its subsystem; devtype: DEVTYPE= of its
 * uevent (NULL: none); sysname: its directory's name; driver: the driver
 * bound to it (NULL: none).
 */
bool verify_class_key(const char *subsystem, const char *devtype, const char *sysname,
		      const char *driver, char *key, size_t size);

/* A class device whose subtree the walk does not enter (its children are
 * not counted: partitions, queues, PCM nodes) */
bool verify_class_leaf(const char *subsystem);

/* One more child of this kind (a full table drops it: 16 kinds is far
 * more than any device has) */
void verify_snapshot_add(struct verify_snapshot *s, const char *key);

/* How many children of this kind */
unsigned int verify_snapshot_count(const struct verify_snapshot *s, const char *key);

/*
 * Is the function of before back in now? Back means: the device is there,
 * the same driver is bound (when one was), and of each kind at least as
 * many class devices as before (more is fine: a USB disk plugged in
 * meanwhile). Otherwise false, with what is missing in words in missing
 * (e.g. "0000:01:00.0: tty 0 of 1"), '; '-separated; missing may be NULL.
 * A before that knows nothing (not present) verifies trivially.
 */
bool verify_compare(const struct verify_snapshot *before, const struct verify_snapshot *now,
		    char *missing, size_t size);

/*
 * Read the snapshot of the PCI device addr from sysfs below root ("/sys"
 * normally; a test's tree): its driver and its children's kinds. Reads
 * only; the walk does not enter other PCI devices (a bridge's
 * subordinates are theirs) and goes at most 8 levels deep. Returns 0 (a
 * device that does not exist: 0, present false) or a negative errno.
 */
int verify_read_sysfs(const char *root, const char *addr, struct verify_snapshot *ret);

/*
 * Is the PCI driver registered (root/bus/pci/drivers/NAME exists)? A
 * driver unloaded meanwhile (its module removed, e.g. to end a callback
 * that hangs) cannot bind again, nor bring its class devices back: that is
 * the administrator's doing, not a recovery that failed.
 */
bool verify_driver_loaded(const char *root, const char *driver);

#endif /* PCIERRD_VERIFY_H */

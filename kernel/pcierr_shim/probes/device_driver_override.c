// SPDX-License-Identifier: GPL-2.0
/*
 * The driver core's generic driver_override (dev->driver_override.name
 * under dev->driver_override.lock) in place of pci_dev->driver_override
 * under device_lock(). A backport in a stable series may bring it (Debian's
 * 6.12.91 and later), so this is probed, never read off the version.
 */
#include <linux/device.h>

bool pcierr_probe(struct device *dev);
bool pcierr_probe(struct device *dev)
{
	bool set;

	spin_lock(&dev->driver_override.lock);
	set = dev->driver_override.name;
	spin_unlock(&dev->driver_override.lock);
	return set && device_has_driver_override(dev);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr_shim: a device's driver_override on either kernel (compat.h).
 * Until 6.12.90 PCI keeps it in pci_dev->driver_override under
 * device_lock(); from 6.12.91 (and wherever a backport brings it) the
 * driver core keeps it in dev->driver_override.name under its own
 * spinlock. Every function here runs in process context: the only
 * spinlock_t the module takes is that one, and make module-rt-check holds
 * any other import of rt_spin_lock (a sleeping lock on PREEMPT_RT) to be
 * a fault (docs/kernels.md).
 */
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"

/* Set @pdev's override to @name ("" clears it). */
int pcierr_override_set(struct pci_dev *pdev, const char *name)
{
	might_sleep();
#ifdef PCIERR_HAVE_DEVICE_DRIVER_OVERRIDE
	return __device_set_driver_override(&pdev->dev, name, strlen(name));
#else
	return driver_set_override(&pdev->dev, &pdev->driver_override, name,
				   strlen(name));
#endif
}

/*
 * Has @pdev any override? For a device scanned but not added: it has no
 * sysfs file yet, so only the lock the driver core's own readers take
 * (none on the old field, which nothing else can write now).
 */
bool pcierr_override_any(struct pci_dev *pdev)
{
#ifdef PCIERR_HAVE_DEVICE_DRIVER_OVERRIDE
	struct device *dev = &pdev->dev;
	bool any;

	might_sleep();
	spin_lock(&dev->driver_override.lock);
	any = dev->driver_override.name;
	spin_unlock(&dev->driver_override.lock);
	return any;
#else
	return READ_ONCE(pdev->driver_override);
#endif
}

/*
 * Clear @pdev's override if it is @name, in one critical section under the
 * lock the kernel's own writers take (review R7): an administrator's
 * override (driverctl, libvirt) written at any moment stays. True if it
 * was @name and is now cleared.
 */
bool pcierr_override_clear_if(struct pci_dev *pdev, const char *name)
{
	const char *old = NULL;
#ifdef PCIERR_HAVE_DEVICE_DRIVER_OVERRIDE
	struct device *dev = &pdev->dev;

	might_sleep();
	spin_lock(&dev->driver_override.lock);
	if (dev->driver_override.name &&
	    !strcmp(dev->driver_override.name, name)) {
		old = dev->driver_override.name;
		dev->driver_override.name = NULL;
	}
	spin_unlock(&dev->driver_override.lock);
#else
	device_lock(&pdev->dev);
	if (pdev->driver_override && !strcmp(pdev->driver_override, name)) {
		old = pdev->driver_override;
		pdev->driver_override = NULL;
	}
	device_unlock(&pdev->dev);
#endif
	kfree(old);
	return old;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr presence watchdog: per PE, every interval, read each device's
 * vendor id; a device that no longer answers raises a PERM_FAILURE event
 * with source WATCHDOG (once per device until it answers again). Devices
 * asleep (runtime suspended, D3cold) read all ones and are not checked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pm_runtime.h>

#include "internal.h"

int pcierr_watch_set(struct pcierr_pe *pe, unsigned int ms)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->dead) {
		raw_spin_unlock_irqrestore(&pe->lock, flags);
		return -ENODEV;
	}
	pe->watch_ms = ms;
	/* Queued under the lock: pcierr_pe_kill() sees it or we see dead. */
	if (ms)
		mod_delayed_work(pcierr_wq, &pe->watch_work,
				 msecs_to_jiffies(ms));
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (!ms)
		cancel_delayed_work_sync(&pe->watch_work);
	return 0;
}

/* Does the device answer config reads? (not its error_state) */
bool pcierr_present(struct pci_dev *pdev)
{
	u32 id;

	/* Not pci_device_is_present(): it believes error_state. */
	if (pci_bus_read_config_dword(pdev->bus, pdev->devfn,
				      pcierr_id_reg(pdev), &id))
		return false;
	return id != ~0U && id != 0 && id != 0xffff0001;
}

void pcierr_watch_fn(struct work_struct *work)
{
	struct pcierr_pe *pe = container_of(to_delayed_work(work),
					    struct pcierr_pe, watch_work);
	struct pcierr_dev **devs;
	unsigned long flags;
	int i, n;

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n >= 0) {
		for (i = 0; i < n; i++) {
			struct pcierr_dev *dev = devs[i];

			if (READ_ONCE(dev->removed) ||
			    pm_runtime_suspended(&dev->pdev->dev) ||
			    dev->pdev->current_state == PCI_D3cold)
				continue;
			if (pcierr_present(dev->pdev)) {
				/* back (reset, resume): watched again (D21) */
				dev->gone_reported = false;
				continue;
			}
			if (dev->gone_reported)
				continue;
			dev->gone_reported = true;
			pci_warn(dev->pdev, "pcierr: device vanished\n");
			pcierr_detect(dev, pci_channel_io_perm_failure, 0,
				      PCIERR_SOURCE_WATCHDOG, NULL);
		}
		pcierr_snapshot_put(devs, n);
	}

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->watch_ms && !pe->dead && !READ_ONCE(pcierr_exiting))
		queue_delayed_work(pcierr_wq, &pe->watch_work,
				   msecs_to_jiffies(pe->watch_ms));
	raw_spin_unlock_irqrestore(&pe->lock, flags);
}

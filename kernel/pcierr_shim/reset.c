// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr RESET: a hot reset of the PE through the PCI core's own entry
 * points, then the config space saved while the devices were healthy.
 *
 * A bridge's PE gets pci_reset_bus() on a device of its secondary bus:
 * the core picks the hotplug slot's reset when there is one (pciehp then
 * masks the link change instead of taking it for a surprise removal) and
 * a secondary bus reset of the bridge otherwise; it locks, saves and
 * restores every device below the bridge and calls the drivers'
 * reset_prepare/reset_done. A bridge whose bus is empty (everything
 * hot-unplugged) gets a plain secondary bus reset. A lone device on a root
 * bus gets a function level reset. A fundamental reset has no generic entry point on x86.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>

#include "internal.h"
#include "platform.h"

/* pci_reset_bus() only trylocks the devices: retry for a while. */
#define PCIERR_RESET_TRIES	50
#define PCIERR_RESET_RETRY_MS	100

static int pcierr_reset_bus(struct pcierr_pe *pe, struct pcierr_dev **devs,
			    int n)
{
	struct pci_dev *pdev = NULL;
	int i, ret;

	/* Any device on the secondary bus (a root port lists itself). */
	for (i = 0; i < n; i++) {
		if (devs[i]->pdev != pe->head && !READ_ONCE(devs[i]->removed)) {
			pdev = devs[i]->pdev;
			break;
		}
	}
	/*
	 * Nothing left on the bus (a full hotplug fallback removed it all):
	 * reset the link through the bridge itself, so that the rescan
	 * finds the cards fresh.
	 */
	if (!pdev)
		return pe->head && pe->head->subordinate ?
		       pci_bridge_secondary_bus_reset(pe->head) : -ENODEV;

	for (i = 0; ; i++) {
		ret = pci_reset_bus(pdev);
		if (ret != -EAGAIN || i >= PCIERR_RESET_TRIES)
			break;
		msleep(PCIERR_RESET_RETRY_MS);
	}
	return ret;
}

static int pcierr_reset_flr(struct pcierr_dev **devs, int n)
{
	struct pci_dev *pdev;
	int ret;

	if (n < 1 || READ_ONCE(devs[0]->removed))
		return -ENODEV;
	pdev = devs[0]->pdev;
	pci_dev_lock(pdev);
	ret = pcie_reset_flr(pdev, PCI_RESET_DO_RESET);
	pci_dev_unlock(pdev);
	return ret;
}

static void pcierr_restore_healthy(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	if (dev->bridge)
		return;
	mutex_lock(&dev->state_lock);
	if (!READ_ONCE(dev->removed) && dev->healthy &&
	    !pci_load_saved_state(pdev, dev->healthy))
		pci_restore_state(pdev);
	else if (!READ_ONCE(dev->removed))
		pci_warn(pdev, "pcierr: no healthy config space to restore\n");
	dev->hw_frozen = false;
	mutex_unlock(&dev->state_lock);
}

void pcierr_op_reset(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	int i, n, ret;

	/* the platform's (pseries RTAS) first: platform.h */
	ret = pcierr_platform_reset(pe, op->reset_type);
	if (ret != -ENOTTY && ret) {
		op->err = ret;
		return;
	}
	if (ret && op->reset_type != PCIERR_RESET_HOT) {
		op->err = -EOPNOTSUPP;
		return;
	}
	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0) {
		op->err = n;
		return;
	}

	if (ret)
		ret = pe->root_single ? pcierr_reset_flr(devs, n) :
					pcierr_reset_bus(pe, devs, n);
	if (!ret) {
		for (i = 0; i < n; i++)
			pcierr_restore_healthy(devs[i]);
		pcierr_pe_set_state(pe, PCIERR_PE_STATE_RESET);
		pcierr_stat_inc(PCIERR_STAT_RESETS);
	} else {
		pr_warn("PE %s: hot reset failed: %d\n", pe->name, ret);
	}
	op->err = ret;
	pcierr_snapshot_put(devs, n);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr RESET: reset the PE as drivers/pci/pcie/err.c does during
 * recovery, then put back the config space saved while the devices were
 * healthy, before any slot_reset callback runs.
 *
 * No function-reset wrapper is used (pci_reset_bus(), pci_reset_function()):
 * those call the drivers' reset_prepare()/reset_done() and save and
 * restore the frozen config space. As err.c's pci_bus_error_reset(), a
 * bridge's PE gets the reset of the hotplug slot on its secondary bus when
 * it has one (pciehp masks the link change instead of taking it for a
 * surprise removal, and powers nothing off), a secondary bus reset of the
 * bridge otherwise. A lone device on a root bus gets the first reset
 * method the PCI core has for it (FLR, AF FLR, the PM D3hot->D0 reset,
 * ...), without reset_prepare()/reset_done() either. Both kinds look the
 * same to drivers: only slot_reset (a REPORT step) follows.
 *
 * Every device of the subtree below the bridge is reset, bridges
 * included; each gets its healthy config space back, bridges first, under
 * its device lock. A device without one (never seen healthy in D0) makes
 * RESET fail with ENODATA before anything is reset: it stays frozen.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>

#include "internal.h"
#include "platform.h"

#include <linux/pci_hotplug.h>	/* after linux/pci.h */

/*
 * What the core's bus reset holds (pci_bus_lock(), pci_slot_lock(); 6.12
 * locks the bridge too): pci_dev_lock() of every device below @bus, so
 * that none is probed, unbound, removed by a driver or reset through
 * sysfs while the bus is in reset. Taken as pci_reset_bus() takes it,
 * with trylocks: the caller retries. Never waiting for a device lock
 * here rules out a deadlock with whoever holds one and waits for us
 * (pciehp drops its reset_lock around driver (un)binding for that
 * reason; a driver's remove() may wait for an operation on its PE).
 */
static void pcierr_bus_unlock(struct pci_bus *bus)
{
	struct pci_dev *dev;

	list_for_each_entry(dev, &bus->devices, bus_list) {
		if (dev->subordinate)
			pcierr_bus_unlock(dev->subordinate);
		pci_dev_unlock(dev);
	}
}

static bool pcierr_bus_trylock(struct pci_bus *bus)
{
	struct pci_dev *dev;

	list_for_each_entry(dev, &bus->devices, bus_list) {
		if (!pci_dev_trylock(dev))
			goto unlock;
		if (dev->subordinate && !pcierr_bus_trylock(dev->subordinate)) {
			pci_dev_unlock(dev);
			goto unlock;
		}
	}
	return true;

unlock:
	list_for_each_entry_continue_reverse(dev, &bus->devices, bus_list) {
		if (dev->subordinate)
			pcierr_bus_unlock(dev->subordinate);
		pci_dev_unlock(dev);
	}
	return false;
}

/* How long a RESET waits for the devices' locks (a probe, an unbind). */
#define PCIERR_RESET_LOCK_MS	10000

/* The bridge and everything below it, or -EBUSY after a while. */
static int pcierr_lock_below(struct pcierr_pe *pe, struct pci_dev *bridge)
{
	unsigned long end = jiffies + msecs_to_jiffies(PCIERR_RESET_LOCK_MS);

	for (;;) {
		if (pci_dev_trylock(bridge)) {
			if (!bridge->subordinate ||
			    pcierr_bus_trylock(bridge->subordinate))
				return 0;
			pci_dev_unlock(bridge);
		}
		if (time_after(jiffies, end)) {
			pcierr_pe_info(pe, "devices busy (a probe or unbind) for %u ms: not reset\n",
				       PCIERR_RESET_LOCK_MS);
			return -EBUSY;
		}
		msleep(20);
	}
}

static void pcierr_unlock_below(struct pci_dev *bridge)
{
	if (bridge->subordinate)
		pcierr_bus_unlock(bridge->subordinate);
	pci_dev_unlock(bridge);
}

/*
 * As pci_bus_error_reset(): the hotplug slot's reset when the bridge's
 * secondary bus has a slot with one, a secondary bus reset otherwise.
 * Under pci_dev_lock() of the bridge and of every device below (above).
 * While the port driver stays bound (its device lock) the bus, its
 * hotplug slot and pciehp's controller cannot go away: they go in the
 * port driver's remove(). The core reads the slot list under
 * pci_slot_mutex, which is not exported: a slot another driver
 * (acpiphp, pci_slot) adds or removes on this bus at the same time is
 * the one gap left (docs/review-answers.md, R8). Not under
 * pci_lock_rescan_remove(): pciehp takes its reset_lock before that
 * lock, and a removal elsewhere (a driver stuck in remove()) must not
 * hold this reset up.
 */
static int pcierr_reset_bridge(struct pcierr_pe *pe, struct pci_dev *bridge)
{
	struct hotplug_slot *hp = NULL;
#ifdef CONFIG_HOTPLUG_PCI
	struct pci_slot *slot;
#endif
	int ret;

	ret = pcierr_lock_below(pe, bridge);
	if (ret)
		return ret;
#ifdef CONFIG_HOTPLUG_PCI
	if (bridge->dev.driver && bridge->subordinate) {
		list_for_each_entry(slot, &bridge->subordinate->slots, list) {
			if (slot->hotplug && slot->hotplug->ops &&
			    slot->hotplug->ops->reset_slot) {
				hp = slot->hotplug;
				break;
			}
		}
	}
#endif
	if (hp) {
		pcierr_pe_info(pe, "resetting the hotplug slot\n");
		ret = hp->ops->reset_slot(hp, false);
	} else {
		pcierr_pe_info(pe, "secondary bus reset\n");
		ret = pci_bridge_secondary_bus_reset(bridge);
	}
	pcierr_unlock_below(bridge);
	return ret;
}

/* A lone device on a root bus: whatever reset the core has for it. */
static int pcierr_reset_function(struct pcierr_pe *pe, struct pci_dev *pdev)
{
	int ret;

	pci_dev_lock(pdev);
	ret = __pci_reset_function_locked(pdev);
	pci_dev_unlock(pdev);
	if (!ret)
		pcierr_pe_info(pe, "function reset\n");
	return ret;
}

/*
 * Put the healthy config space back, keeping the saved state of the PM
 * core or the driver (their slot_reset may restore their own), except a
 * bridge's: the kernel saves that at enumeration (6.12's
 * pci_bus_add_device()) or at the port driver's probe, before
 * pci_enable_bridge() turned bus mastering on for a device below, and
 * pcieport's slot_reset restores it; the healthy snapshot, taken since,
 * becomes it. Bus mastering only if the driver still wants it (D31).
 */
static void pcierr_restore_healthy(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct pci_saved_state *prev;
	bool was, loaded;
	u16 cmd;

	device_lock(&pdev->dev);
	mutex_lock(&dev->state_lock);
	if (READ_ONCE(dev->removed) || !dev->healthy)
		goto out;
	was = pdev->state_saved;
	prev = pci_store_saved_state(pdev);
	loaded = !pci_load_saved_state(pdev, dev->healthy);
	if (loaded)
		pci_restore_state(pdev);
	if (loaded && pci_is_bridge(pdev)) {
		/* pci_restore_state() cleared it; the buffers still hold it */
		pdev->state_saved = true;
	} else {
		pci_load_saved_state(pdev, prev);
		pdev->state_saved = was;
	}
	kfree(prev);
	if (!pci_is_bridge(pdev) && !pdev->is_busmaster) {
		pci_bus_read_config_word(pdev->bus, pdev->devfn, PCI_COMMAND,
					 &cmd);
		if (cmd != 0xffff && (cmd & PCI_COMMAND_MASTER))
			pci_bus_write_config_word(pdev->bus, pdev->devfn,
						  PCI_COMMAND,
						  cmd & ~PCI_COMMAND_MASTER);
	}
	/* The reset and the restore lifted the freeze: nothing to undo. */
	dev->hw_frozen = false;
	dev->cmd_saved = false;
	dev->msix_saved = false;
	dev->decode_thawed = false;
out:
	mutex_unlock(&dev->state_lock);
	device_unlock(&pdev->dev);
}

/* Every device the reset reaches has a healthy snapshot, or -ENODATA. */
static int pcierr_reset_check(struct pcierr_pe *pe, struct pcierr_dev **devs,
			      int n)
{
	int i, ret = 0;
	bool have;

	for (i = 0; i < n; i++) {
		mutex_lock(&devs[i]->state_lock);
		have = devs[i]->healthy || READ_ONCE(devs[i]->removed);
		mutex_unlock(&devs[i]->state_lock);
		if (!have) {
			pci_err(devs[i]->pdev,
				"pcierr: no healthy config space saved: PE %s not reset, stays frozen\n",
				pe->name);
			ret = -ENODATA;
		}
	}
	return ret;
}

/* The generic reset: FLR (or what the core has) or the bridge's. */
static int pcierr_reset_generic(struct pcierr_pe *pe, u32 type)
{
	struct pci_dev *head;
	int ret;

	if (type != PCIERR_RESET_HOT)
		return -EOPNOTSUPP;
	head = pcierr_pe_head(pe);
	if (!head)
		return -ENODEV;
	if (pe->root_single)
		ret = pcierr_reset_function(pe, head);
	else
		ret = pcierr_reset_bridge(pe, head);
	pci_dev_put(head);
	return ret;
}

void pcierr_op_reset(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	int i, n, ret;

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0) {
		op->err = n;
		return;
	}
	ret = pcierr_reset_check(pe, devs, n);
	if (ret)
		goto out;
	/* The platform's reset (pseries RTAS) where it has one: platform.h */
	ret = pcierr_platform_reset(pe, op->reset_type);
	if (ret == -ENOTTY)
		ret = pcierr_reset_generic(pe, op->reset_type);
	if (ret) {
		pcierr_pe_info(pe, "reset failed: %d\n", ret);
		goto out;
	}
	/* Bus order: a bridge before the devices behind it. */
	for (i = 0; i < n; i++)
		pcierr_restore_healthy(devs[i]);
	pcierr_pe_info(pe, "reset done, config space of %d devices restored\n",
		       n);
	if (!pcierr_pe_set_state_if(pe, PCIERR_PE_STATE_RESET,
				    op->freeze_req))
		pcierr_pe_refreeze(pe);
	pcierr_stat_inc(PCIERR_STAT_RESETS);
out:
	op->err = ret;
	pcierr_snapshot_put(devs, n);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr REMOVE, RESCAN, DISABLE and ENABLE: hot-unplug and rescan of a
 * PE under pci_lock_rescan_remove(), and keeping a disabled PE's devices
 * away: a device that reappears on it gets a driver_override naming no
 * driver (so nothing binds) and is removed again from work context.
 *
 * Removing a frozen device is a surprise removal, as pciehp's for a card
 * that is gone: every device of the subtree is first marked disconnected
 * (error_state perm_failure, which pci_dev_set_disconnected() sets), so
 * that pci_device_is_present(), pci_channel_offline() and the config
 * accessors tell its driver that the hardware is gone and its remove()
 * skips the teardown. The rescan/remove lock is held for the removal
 * only. A PE in normal state is removed in order (drivers talk to their
 * working devices).
 *
 * Not every driver looks (megaraid_sas in 6.1 flushes its cache and shuts
 * its firmware down in remove() and waits 180 s for each command a frozen
 * card cannot hear). So a marked device that still answers config reads
 * (the link is up: only the shim's software freeze cuts it off) gets its
 * decode, bus mastering and MSI-X back for the teardown: its driver's
 * last commands complete, and the removal takes what a normal one takes.
 * A device that does not answer stays cut off; its driver sees all ones.
 *
 * Even so a driver may wait in remove() for minutes (megaraid_sas with
 * a command lost in the freeze waits for its own timeouts in
 * scsi_remove_host()). So the drivers are detached first, deepest
 * devices first as pci_stop_bus_device() does, without the rescan/remove
 * lock, as a sysfs unbind does: a driver that waits holds up its own PE,
 * not every other PE's REMOVE and RESCAN behind that global lock. What
 * is left under the lock (no driver bound) is quick.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

struct pcierr_kick {
	struct work_struct work;
	struct pcierr_dev *dev;		/* reference */
};

static bool pcierr_pe_disabled(struct pcierr_pe *pe)
{
	unsigned long flags;
	bool disabled;

	raw_spin_lock_irqsave(&pe->lock, flags);
	disabled = pe->disabled;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return disabled;
}

/*
 * What @pdev hangs from, for the removal order: a VF from its PF (which
 * takes it down), anything else from the bridge above it, NULL at the
 * top. A VF may sit on a virtual bus of its own (routing IDs beyond its
 * PF's bus: virtfn_add_bus()), whose ->self is NULL: never walk through
 * bus->self blindly.
 */
static struct pci_dev *pcierr_parent(struct pci_dev *pdev)
{
	if (pdev->is_virtfn)
		return pci_physfn(pdev);
	if (pci_is_root_bus(pdev->bus))
		return NULL;
	return pdev->bus->self;
}

/* Is @pdev @only, or below it? (No @only: the whole PE.) */
static bool pcierr_below(struct pci_dev *pdev, struct pcierr_dev *only)
{
	struct pci_dev *up;

	if (!only)
		return true;
	for (up = pdev; up && up != only->pdev; up = pcierr_parent(up))
		;
	return up;
}

static unsigned int pcierr_depth(struct pci_dev *pdev)
{
	unsigned int depth = 0;

	while ((pdev = pcierr_parent(pdev)))
		depth++;
	return depth;
}

/*
 * A PF about to be removed gives up its VFs first, as a PF driver's
 * remove() should: nvme's (pci_sriov_configure_simple()) does not, and
 * a PF released with VFs still counted hits BUG_ON(num_VFs) in
 * sriov_release(). Its driver is detached already; the VFs (at a
 * greater depth) went before it. Without the rescan/remove lock, under
 * the PF's device lock, as a sysfs sriov_numvfs write does.
 */
static void pcierr_drop_vfs(struct pci_dev *pdev)
{
	if (!pdev->is_physfn)
		return;
	device_lock(&pdev->dev);
	if (pci_num_vf(pdev)) {
		pci_info(pdev, "pcierr: disabling its %d VFs before the removal\n",
			 pci_num_vf(pdev));
		pci_disable_sriov(pdev);
	}
	device_unlock(&pdev->dev);
}

/*
 * Detach the drivers of the devices about to be removed (@only and what
 * sits below it, or the whole subtree), deepest first and, at one depth,
 * in the reverse of the bus order, as the removal itself would. Without
 * the rescan/remove lock: see the top of this file.
 */
static void pcierr_detach_drivers(struct pcierr_pe *pe,
				  struct pcierr_dev *only)
{
	struct pcierr_dev **devs;
	unsigned int deepest = 0, d;
	int i, n;

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0)
		return;		/* the removal under the lock does it all */
	for (i = 0; i < n; i++)
		deepest = max(deepest, pcierr_depth(devs[i]->pdev));
	for (d = deepest + 1; d-- > 0;) {
		for (i = n - 1; i >= 0; i--) {
			struct pci_dev *pdev = devs[i]->pdev;

			if (pcierr_depth(pdev) != d ||
			    !pcierr_below(pdev, only) ||
			    READ_ONCE(devs[i]->removed))
				continue;
			device_release_driver(&pdev->dev);
			pcierr_drop_vfs(pdev);
		}
	}
	pcierr_snapshot_put(devs, n);
}

/*
 * Mark the frozen devices about to be removed disconnected: all of the
 * subtree when the PE is not in normal state, the frozen ones otherwise
 * (@only: that device and what sits below it). Without locks, as pciehp.
 * Then lift the freeze of those that still answer, for their teardown.
 */
static int pcierr_disconnect(struct pcierr_pe *pe, struct pcierr_dev *only)
{
	bool all = pcierr_pe_get_state(pe) != PCIERR_PE_STATE_NORMAL;
	struct pcierr_dev **devs;
	struct pci_dev *pdev;
	int i, n, marked = 0, thawed = 0;

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		pdev = devs[i]->pdev;
		if (!pcierr_below(pdev, only))
			continue;
		if (!all && !devs[i]->hw_frozen &&
		    READ_ONCE(pdev->error_state) == pci_channel_io_normal)
			continue;
		pcierr_set_io_state(pdev, pci_channel_io_perm_failure);
		marked++;
		if (devs[i]->hw_frozen && pcierr_present(pdev)) {
			pcierr_unfreeze_dev(devs[i], true);
			thawed++;
		}
		pcierr_fail_lost_io(pdev);
	}
	pcierr_snapshot_put(devs, n);
	if (thawed)
		pcierr_pe_info(pe, "%d of them still answer: freeze lifted for their drivers' teardown\n",
			       thawed);
	return marked;
}

/* Caller holds pci_lock_rescan_remove(). Returns how many were removed. */
static int pcierr_remove_devices(struct pcierr_pe *pe)
{
	struct pci_dev *head, *pdev, *tmp;
	int n = 0;

	head = pcierr_pe_head(pe);
	if (!head)
		return 0;
	if (pe->root_single) {
		pci_stop_and_remove_bus_device(head);
		n = 1;
	} else if (head->subordinate) {
		list_for_each_entry_safe_reverse(pdev, tmp,
						 &head->subordinate->devices,
						 bus_list) {
			pci_dev_get(pdev);
			pci_stop_and_remove_bus_device(pdev);
			pci_dev_put(pdev);
			n++;
		}
	}
	pci_dev_put(head);
	return n;
}

/*
 * The devices a RESCAN or ENABLE adds, probed only once the rescan/remove
 * lock is released: pci_bus_add_device() probes their drivers
 * (drivers/pci/bus.c), and a probe that waits (a half-working card's
 * firmware) would hold every other PE's REMOVE and RESCAN behind that
 * global lock, as a remove() did (pcierr_detach_drivers()). Before they
 * are added they get an override naming no driver, so that adding them
 * probes nothing; afterwards the override is taken off and each device
 * attached, in bus order: a bridge before what sits below it.
 */
#define PCIERR_HOLD_OVERRIDE	"pcierr-rescan-hold"

struct pcierr_held {
	struct list_head node;
	struct pci_dev *pdev;		/* a reference */
};

/*
 * pci_walk_bus() callback, and for a lone device: scanned, not added yet,
 * no override of anyone's (a disabled PE's devices have theirs). Only
 * collected here: the override is set outside pci_bus_sem.
 */
static int pcierr_hold_one(struct pci_dev *pdev, void *data)
{
	struct list_head *held = data;
	struct pcierr_held *h;

	if (pdev->match_driver || pcierr_override_any(pdev))
		return 0;
	h = kmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return 0;	/* probed when added, under the lock */
	h->pdev = pci_dev_get(pdev);
	list_add_tail(&h->node, held);
	return 0;
}

/* Caller holds pci_lock_rescan_remove(); @pdev alone, or @bus's subtree */
static void pcierr_hold_probes(struct pci_dev *pdev, struct pci_bus *bus,
			       struct list_head *held)
{
	struct pcierr_held *h, *tmp;

	if (pdev)
		pcierr_hold_one(pdev, held);
	else
		pci_walk_bus(bus, pcierr_hold_one, held);
	list_for_each_entry_safe(h, tmp, held, node) {
		if (pcierr_override_set(h->pdev, PCIERR_HOLD_OVERRIDE)) {
			/* probed when added */
			list_del(&h->node);
			pci_dev_put(h->pdev);
			kfree(h);
		}
	}
}

/* Without the rescan/remove lock: the held devices' drivers, in order */
static void pcierr_attach_held(struct pcierr_pe *pe, struct list_head *held)
{
	bool away = pcierr_pe_disabled(pe);
	struct pcierr_held *h, *tmp;
	struct pci_dev *pdev;
	int ret;

	list_for_each_entry_safe(h, tmp, held, node) {
		pdev = h->pdev;
		/* a sysfs driver_override written meanwhile stays (R7) */
		if (pcierr_override_clear_if(pdev, PCIERR_HOLD_OVERRIDE)) {
			if (!away) {
				ret = device_attach(&pdev->dev);
				if (ret < 0 && ret != -EPROBE_DEFER)
					pci_warn(pdev, "pcierr: device attach failed (%d)\n",
						 ret);
			}
		}
		list_del(&h->node);
		pci_dev_put(pdev);
		kfree(h);
	}
}

/* Caller holds pci_lock_rescan_remove(). */
static int pcierr_rescan_devices(struct pcierr_pe *pe, struct list_head *held)
{
	struct pci_dev *head;
	struct pci_bus *bus;
	int ret = 0;

	if (pe->root_single) {
		/* That function alone, not the whole root bus (D8). */
		bus = pci_find_bus(pe->domain, pe->busnr);
		if (!bus)
			return -ENODEV;
		head = pci_get_slot(bus, pe->devfn);
		if (head) {		/* still (or already) there */
			pci_dev_put(head);
			return 0;
		}
		head = pci_scan_single_device(bus, pe->devfn);
		if (!head)
			return -ENODEV;
		pci_assign_unassigned_bus_resources(bus);
		pcierr_hold_probes(head, NULL, held);
		pci_bus_add_device(head);
		return 0;
	}
	head = pcierr_pe_head(pe);
	if (head && head->subordinate) {
		/* As pci_rescan_bus_bridge_resize() (not exported) does. */
		bus = head->subordinate;
		pci_scan_child_bus(bus);
		pci_assign_unassigned_bridge_resources(head);
		pcierr_hold_probes(NULL, bus, held);
		pci_bus_add_devices(bus);
	} else {
		ret = -ENODEV;
	}
	pci_dev_put(head);
	return ret;
}

/*
 * REMOVE with PCIERR_A_DEVICE: that device alone (with whatever sits
 * below it, if it is a bridge). The PE keeps its other devices and its
 * state; RESCAN brings the device back. The netlink side made sure it
 * is not the PE's head (a lone root-bus device is removed as the PE).
 */
static void pcierr_op_remove_one(struct pcierr_op *op)
{
	struct pcierr_dev *dev = op->dev;
	struct pci_dev *pdev;

	pci_lock_rescan_remove();
	/* Gone meanwhile (removed by someone else): the op fails, ENODEV. */
	if (READ_ONCE(dev->removed)) {
		op->err = -ENODEV;
	} else {
		pdev = pci_dev_get(dev->pdev);
		pci_stop_and_remove_bus_device(pdev);
		pci_dev_put(pdev);
	}
	pci_unlock_rescan_remove();
	pcierr_stat_inc(PCIERR_STAT_HOTPLUGS);
}

void pcierr_op_remove(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	int marked, n;

	marked = pcierr_disconnect(pe, op->dev);
	if (marked > 0)
		pcierr_pe_info(pe, "%d frozen devices marked disconnected\n",
			       marked);
	pcierr_detach_drivers(pe, op->dev);
	if (op->dev) {
		pcierr_pe_info(pe, "removing %s\n", op->dev->name);
		pcierr_op_remove_one(op);
		return;
	}
	pci_lock_rescan_remove();
	n = pcierr_remove_devices(pe);
	pci_unlock_rescan_remove();
	pcierr_pe_info(pe, "removed %d devices\n", n);
	if (!pcierr_pe_disabled(pe))
		pcierr_pe_set_state(pe, PCIERR_PE_STATE_REMOVED);
	pcierr_stat_inc(PCIERR_STAT_HOTPLUGS);
}

void pcierr_op_rescan(struct pcierr_op *op)
{
	LIST_HEAD(held);
	struct pcierr_pe *pe = op->pe;
	bool disabled;

	pci_lock_rescan_remove();
	op->err = pcierr_rescan_devices(pe, &held);
	/* A disabled PE keeps its devices away: no need to wait for it. */
	disabled = pcierr_pe_disabled(pe);
	if (disabled)
		pcierr_remove_devices(pe);
	pci_unlock_rescan_remove();
	pcierr_attach_held(pe, &held);
	if (!op->err && !disabled) {
		/* What came back is healthy: its snapshot, now (D2). */
		pcierr_save_healthy_pe(pe);
		if (pcierr_pe_set_state_if(pe, PCIERR_PE_STATE_NORMAL,
					   op->freeze_req)) {
			pcierr_pe_info(pe, "rescanned\n");
		} else {
			/* A detection during the rescan: cut them off (R4). */
			pcierr_pe_info(pe, "rescanned, frozen again meanwhile\n");
			pcierr_pe_refreeze(pe);
		}
	}
	pcierr_stat_inc(PCIERR_STAT_HOTPLUGS);
}

void pcierr_op_disable(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	unsigned long flags;
	struct pcierr_answer r;
	int i, n;

	/* First, so that nothing comes back while we work. */
	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->disabled = true;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	n = pcierr_pe_snapshot(pe, true, &devs);
	if (n >= 0) {
		op->err = pcierr_op_alloc_results(op, n);
		for (i = 0; i < n; i++) {
			r = pcierr_report_one(devs[i],
					      PCIERR_STEP_PERM_FAILURE, 0);
			if (!op->err)
				pcierr_op_add_result(op, devs[i], r);
		}
		pcierr_snapshot_put(devs, n);
	} else {
		op->err = n;	/* D22: the removal goes on, but say so */
	}

	pcierr_disconnect(pe, NULL);
	pcierr_detach_drivers(pe, NULL);
	pci_lock_rescan_remove();
	pcierr_remove_devices(pe);
	pci_unlock_rescan_remove();
	pcierr_pe_set_state(pe, PCIERR_PE_STATE_DISABLED);
	pcierr_stat_inc(PCIERR_STAT_HOTPLUGS);
	pr_info("PE %s permanently disabled\n", pe->name);
}

void pcierr_op_enable(struct pcierr_op *op)
{
	LIST_HEAD(held);
	struct pcierr_pe *pe = op->pe;
	unsigned long flags;
	bool was;

	raw_spin_lock_irqsave(&pe->lock, flags);
	was = pe->disabled;
	pe->disabled = false;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	pci_lock_rescan_remove();
	/* Devices still kept away carry our override: start afresh. */
	if (was)
		pcierr_remove_devices(pe);
	op->err = pcierr_rescan_devices(pe, &held);
	pci_unlock_rescan_remove();
	pcierr_attach_held(pe, &held);
	pcierr_save_healthy_pe(pe);
	pcierr_pe_set_state(pe, PCIERR_PE_STATE_NORMAL);
	pcierr_stat_inc(PCIERR_STAT_HOTPLUGS);
	if (was)
		pr_info("PE %s enabled again\n", pe->name);
}

static void pcierr_kick_fn(struct work_struct *work)
{
	struct pcierr_kick *kick = container_of(work, struct pcierr_kick,
						work);
	struct pcierr_dev *dev = kick->dev;

	pci_lock_rescan_remove();
	if (pcierr_pe_disabled(dev->pe) && !READ_ONCE(dev->removed))
		pci_stop_and_remove_bus_device(dev->pdev);
	pci_unlock_rescan_remove();
	pcierr_dev_put(dev);
	kfree(kick);
}

/* From the bus notifier (ADD_DEVICE), without pcierr_topo_lock. */
void pcierr_keep_away(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct pcierr_kick *kick;
	int ret;

	ret = pcierr_override_set(pdev, PCIERR_DISABLED_OVERRIDE);
	if (ret)
		pci_warn(pdev, "pcierr: cannot keep device away: %d\n", ret);
	pci_info(pdev, "pcierr: PE %s is disabled: device kept away\n",
		 dev->pe->name);

	if (READ_ONCE(pcierr_exiting))
		return;
	kick = kzalloc(sizeof(*kick), GFP_KERNEL);
	if (!kick)
		return;
	kref_get(&dev->kref);
	kick->dev = dev;
	INIT_WORK(&kick->work, pcierr_kick_fn);
	queue_work(pcierr_hotplug_wq, &kick->work);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The software freeze for platforms without hardware isolation (x86):
 * every device of the PE's subtree (the devices below its bridge, those
 * behind switches included) gets memory and I/O decode and bus mastering
 * switched off, INTx disabled and MSI-X masked (with bus mastering off a
 * device cannot signal MSI either), and its error_state set. Bridges keep
 * forwarding: their config space is the way back. Each device is held
 * awake (a runtime-PM reference, as err.c takes) until it is recovered or
 * removed, so that a runtime resume cannot restore decode behind us.
 *
 * Config space is written with the pci_bus_* accessors, which still reach
 * a device whose error_state is perm_failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pm_runtime.h>
#include <linux/slab.h>

#include "internal.h"

#define PCIERR_CMD_DECODE	(PCI_COMMAND_MEMORY | PCI_COMMAND_IO)

/* As the PCI core's pci_dev_set_io_state(): perm_failure is final. */
bool pcierr_set_io_state(struct pci_dev *pdev, pci_channel_state_t state)
{
	pci_channel_state_t old;

	if (state == pci_channel_io_perm_failure) {
		xchg(&pdev->error_state, pci_channel_io_perm_failure);
		return true;
	}
	if (state == pci_channel_io_frozen) {
		old = cmpxchg(&pdev->error_state, pci_channel_io_normal,
			      pci_channel_io_frozen);
		return old != pci_channel_io_perm_failure;
	}
	if (state == pci_channel_io_normal) {
		old = cmpxchg(&pdev->error_state, pci_channel_io_frozen,
			      pci_channel_io_normal);
		return old != pci_channel_io_perm_failure;
	}
	return false;
}

u32 pcierr_channel_state(pci_channel_state_t state)
{
	if (state == pci_channel_io_normal)
		return PCIERR_STATE_NORMAL;
	if (state == pci_channel_io_frozen)
		return PCIERR_STATE_FROZEN;
	if (state == pci_channel_io_perm_failure)
		return PCIERR_STATE_PERM_FAILURE;
	return PCIERR_STATE_UNSPEC;
}

pci_channel_state_t pcierr_pci_state(u32 state)
{
	switch (state) {
	case PCIERR_STATE_FROZEN:
		return pci_channel_io_frozen;
	case PCIERR_STATE_PERM_FAILURE:
		return pci_channel_io_perm_failure;
	default:
		return pci_channel_io_normal;
	}
}

/*
 * Cut @dev off; false if it already was (or is gone). The device is held
 * awake first (err.c's pm_runtime_get_sync()), outside dev->state_lock: a
 * resume calls its driver. Without @wake (INJECT's doit, under genl's
 * cb_lock: R12) nothing is resumed: a device that is not active is left
 * for the event work (*@later), which freezes it with @wake.
 */
static bool pcierr_freeze_dev(struct pcierr_dev *dev, bool wake, bool *later)
{
	struct pci_dev *pdev = dev->pdev;
	struct pci_bus *bus = pdev->bus;
	unsigned int devfn = pdev->devfn;
	bool cut = false, held, ref = false, extra = false;
	u16 cmd, flags;
	int r;

	if (READ_ONCE(dev->removed))
		return false;

	mutex_lock(&dev->state_lock);
	held = dev->rpm_held;
	mutex_unlock(&dev->state_lock);
	if (!held) {
		ref = true;
		if (wake) {
			pm_runtime_get_sync(&pdev->dev);
		} else {
			r = pcierr_rpm_get_if_active(&pdev->dev);
			if (!r) {
				*later = true;
				return false;
			}
			if (r < 0)	/* runtime PM disabled: it stays as is */
				pm_runtime_get_noresume(&pdev->dev);
		}
	}

	mutex_lock(&dev->state_lock);
	if (ref) {
		extra = dev->rpm_held;	/* somebody else's came first */
		dev->rpm_held = true;
		cut = !extra;
	}
	if (!dev->hw_frozen) {
		cut = true;
		pci_bus_read_config_word(bus, devfn, PCI_COMMAND, &cmd);
		if (cmd != 0xffff) {
			dev->frozen_cmd = cmd;
			dev->cmd_saved = true;
			cmd &= ~(PCIERR_CMD_DECODE | PCI_COMMAND_MASTER);
			cmd |= PCI_COMMAND_INTX_DISABLE;
			pci_bus_write_config_word(bus, devfn, PCI_COMMAND, cmd);
		}
		if (pdev->msix_cap) {
			pci_bus_read_config_word(bus, devfn,
						 pdev->msix_cap + PCI_MSIX_FLAGS,
						 &flags);
			if (flags != 0xffff) {
				dev->frozen_msix = flags;
				dev->msix_saved = true;
				pci_bus_write_config_word(bus, devfn,
							  pdev->msix_cap +
							  PCI_MSIX_FLAGS,
							  flags |
							  PCI_MSIX_FLAGS_MASKALL);
			}
		}
		/* Only what was written needs undoing (D14). */
		dev->hw_frozen = dev->cmd_saved || dev->msix_saved;
	} else if (dev->decode_thawed) {
		/*
		 * Frozen again while ENABLE_IO had decode back on (during
		 * mmio_enabled, say): cut decode again. What it was before
		 * the first freeze (frozen_cmd) stays what RESUME restores;
		 * bus mastering and MSI-X were never given back.
		 */
		cut = true;
		pci_bus_read_config_word(bus, devfn, PCI_COMMAND, &cmd);
		if (cmd != 0xffff)
			pci_bus_write_config_word(bus, devfn, PCI_COMMAND,
						  cmd & ~PCIERR_CMD_DECODE);
	}
	dev->decode_thawed = false;
	mutex_unlock(&dev->state_lock);
	if (extra)
		pm_runtime_put(&pdev->dev);
	pcierr_set_io_state(pdev, pci_channel_io_frozen);
	return cut;
}

/*
 * Apply the freezes detections asked for since the last call. Logged only
 * when it cut a device off: a storm of detections on a PE already frozen
 * (INJECT after INJECT) does not flood the kernel log.
 */
void pcierr_pe_apply_freeze(struct pcierr_pe *pe, bool wake)
{
	struct pcierr_dev **devs;
	unsigned long flags;
	unsigned long req;
	int i, n, cut = 0;
	bool pending, later = false;

	/*
	 * Every freeze asked for is applied already: return without waiting
	 * for freeze_lock (the event work after an INJECT that applied its
	 * own). freeze_done only moves up to a freeze_req that was applied.
	 */
	raw_spin_lock_irqsave(&pe->lock, flags);
	pending = pe->freeze_req != pe->freeze_done;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (!pending)
		return;

	mutex_lock(&pe->freeze_lock);
	raw_spin_lock_irqsave(&pe->lock, flags);
	req = pe->freeze_req;
	pending = req != pe->freeze_done;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (!pending)
		goto out;

	n = pcierr_pe_snapshot(pe, true, &devs);
	if (n < 0) {
		pr_err("PE %s: cannot freeze: out of memory\n", pe->name);
		goto out;
	}
	for (i = 0; i < n; i++)
		cut += pcierr_freeze_dev(devs[i], wake, &later);
	pcierr_snapshot_put(devs, n);
	if (cut)
		pcierr_pe_info(pe, "PE frozen (%d devices)%s\n", n,
			       later ? ", the sleeping ones next" : "");

	/* A device left asleep: the event work (queued) finishes the job. */
	if (!later) {
		raw_spin_lock_irqsave(&pe->lock, flags);
		pe->freeze_done = req;
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
out:
	mutex_unlock(&pe->freeze_lock);
}

/*
 * Freeze again whatever an operation may have lifted after a detection
 * that came in while it ran (D11).
 */
void pcierr_pe_refreeze(struct pcierr_pe *pe)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->freeze_done = pe->freeze_req - 1;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	pcierr_pe_apply_freeze(pe, true);
}

/*
 * Lift the freeze of one device: decode on again (ENABLE_IO), and with
 * @dma also bus mastering (if the driver still wants it), INTx and MSI-X
 * as they were (RESUME). A reset clears the freeze by restoring the
 * healthy config space instead.
 */
void pcierr_unfreeze_dev(struct pcierr_dev *dev, bool dma)
{
	struct pci_dev *pdev = dev->pdev;
	struct pci_bus *bus = pdev->bus;
	unsigned int devfn = pdev->devfn;
	u16 cmd, flags;

	mutex_lock(&dev->state_lock);
	if (!dev->hw_frozen || READ_ONCE(dev->removed))
		goto out;

	pci_bus_read_config_word(bus, devfn, PCI_COMMAND, &cmd);
	if (dev->cmd_saved && cmd != 0xffff) {
		cmd |= dev->frozen_cmd & PCIERR_CMD_DECODE;
		if (dma) {
			if ((dev->frozen_cmd & PCI_COMMAND_MASTER) &&
			    pdev->is_busmaster)
				cmd |= PCI_COMMAND_MASTER;
			cmd &= ~PCI_COMMAND_INTX_DISABLE;
			cmd |= dev->frozen_cmd & PCI_COMMAND_INTX_DISABLE;
		}
		pci_bus_write_config_word(bus, devfn, PCI_COMMAND, cmd);
		/* Still frozen: a detection now must cut decode again. */
		dev->decode_thawed = !dma;
	}
	if (dma && pdev->msix_cap && dev->msix_saved &&
	    !(dev->frozen_msix & PCI_MSIX_FLAGS_MASKALL)) {
		pci_bus_read_config_word(bus, devfn,
					 pdev->msix_cap + PCI_MSIX_FLAGS,
					 &flags);
		if (flags != 0xffff)
			pci_bus_write_config_word(bus, devfn,
						  pdev->msix_cap +
						  PCI_MSIX_FLAGS,
						  flags &
						  ~PCI_MSIX_FLAGS_MASKALL);
	}
	if (dma) {
		dev->hw_frozen = false;
		dev->cmd_saved = false;
		dev->msix_saved = false;
		dev->decode_thawed = false;
	}
out:
	mutex_unlock(&dev->state_lock);
}

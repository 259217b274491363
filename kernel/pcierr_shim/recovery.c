// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr REPORT and ENABLE_IO: driver recovery callbacks, called as the
 * PCI core's own drivers/pci/pcie/err.c calls them (under device_lock, one
 * device at a time, in bus order), from the PE's ordered work queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>

#include "internal.h"

static u32 pcierr_ers(pci_ers_result_t r)
{
	if (r == PCI_ERS_RESULT_CAN_RECOVER)
		return PCIERR_RESULT_CAN_RECOVER;
	if (r == PCI_ERS_RESULT_NEED_RESET)
		return PCIERR_RESULT_NEED_RESET;
	if (r == PCI_ERS_RESULT_DISCONNECT)
		return PCIERR_RESULT_DISCONNECT;
	if (r == PCI_ERS_RESULT_RECOVERED)
		return PCIERR_RESULT_RECOVERED;
	return PCIERR_RESULT_NONE;
}

static unsigned int pcierr_rank(u32 result)
{
	switch (result) {
	case PCIERR_RESULT_RECOVERED:
		return 1;
	case PCIERR_RESULT_CAN_RECOVER:
		return 2;
	case PCIERR_RESULT_DISCONNECT:
		return 3;
	case PCIERR_RESULT_NEED_RESET:
		return 4;
	default:	/* NONE, NO_DRIVER, GONE: no opinion */
		return 0;
	}
}

/*
 * NEED_RESET > DISCONNECT > CAN_RECOVER > RECOVERED, as merge_result() in
 * drivers/pci/pcie/err.c: a reset may still save a device that asked to
 * be disconnected. NONE, NO_DRIVER and GONE never change the merge, which
 * starts (and may stay) NONE.
 */
u32 pcierr_merge(u32 merged, u32 result)
{
	return pcierr_rank(result) > pcierr_rank(merged) ? result : merged;
}

/* One callback of one device. Runs in process context, may sleep. */
u32 pcierr_report_one(struct pcierr_dev *dev, u32 step, u32 state)
{
	struct pci_dev *pdev = dev->pdev;
	const struct pci_error_handlers *eh = NULL;
	pci_channel_state_t st = pci_channel_io_normal;
	u32 res = PCIERR_RESULT_NONE;

	if (READ_ONCE(dev->removed))
		return PCIERR_RESULT_GONE;

	device_lock(&pdev->dev);
	if (READ_ONCE(dev->removed)) {
		res = PCIERR_RESULT_GONE;
		goto out;
	}

	switch (step) {
	case PCIERR_STEP_ERROR_DETECTED:
	case PCIERR_STEP_PERM_FAILURE:
		st = step == PCIERR_STEP_PERM_FAILURE ?
		     pci_channel_io_perm_failure : pcierr_pci_state(state);
		if (!pcierr_set_io_state(pdev, st)) {
			/* perm_failure is final: it cannot be recovered */
			res = PCIERR_RESULT_DISCONNECT;
			goto out;
		}
		break;
	case PCIERR_STEP_RESUME:
		if (!pcierr_set_io_state(pdev, pci_channel_io_normal)) {
			res = PCIERR_RESULT_DISCONNECT;
			goto out;
		}
		break;
	}

	if (!pdev->dev.driver) {
		res = PCIERR_RESULT_NO_DRIVER;
		goto out;
	}
	eh = to_pci_driver(pdev->dev.driver)->err_handler;
	if (!eh)
		goto out;

	switch (step) {
	case PCIERR_STEP_ERROR_DETECTED:
	case PCIERR_STEP_PERM_FAILURE:
		if (eh->error_detected)
			res = pcierr_ers(eh->error_detected(pdev, st));
		break;
	case PCIERR_STEP_MMIO_ENABLED:
		if (eh->mmio_enabled)
			res = pcierr_ers(eh->mmio_enabled(pdev));
		break;
	case PCIERR_STEP_SLOT_RESET:
		if (eh->slot_reset)
			res = pcierr_ers(eh->slot_reset(pdev));
		break;
	case PCIERR_STEP_RESUME:
		if (eh->resume) {
			eh->resume(pdev);
			res = PCIERR_RESULT_RECOVERED;
		}
		break;
	}
out:
	device_unlock(&pdev->dev);
	return res;
}

static const char * const pcierr_step_names[] = {
	[PCIERR_STEP_ERROR_DETECTED] = "error_detected",
	[PCIERR_STEP_MMIO_ENABLED] = "mmio_enabled",
	[PCIERR_STEP_SLOT_RESET] = "slot_reset",
	[PCIERR_STEP_RESUME] = "resume",
	[PCIERR_STEP_PERM_FAILURE] = "perm_failure",
};

static const char *pcierr_step_name(u32 step)
{
	if (step < ARRAY_SIZE(pcierr_step_names) && pcierr_step_names[step])
		return pcierr_step_names[step];
	return "?";
}

/* Lift a device's freeze under its device lock (D15). */
static void pcierr_unfreeze_locked(struct pcierr_dev *dev, bool dma)
{
	device_lock(&dev->pdev->dev);
	pcierr_unfreeze_dev(dev, dma);
	device_unlock(&dev->pdev->dev);
}

/* ERROR_DETECTED with state normal while decode is off: no (D25). */
static bool pcierr_any_frozen(struct pcierr_dev **devs, int n)
{
	bool frozen = false;
	int i;

	for (i = 0; i < n && !frozen; i++) {
		mutex_lock(&devs[i]->state_lock);
		frozen = devs[i]->hw_frozen;
		mutex_unlock(&devs[i]->state_lock);
	}
	return frozen;
}

void pcierr_op_report(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	u32 merged = PCIERR_RESULT_NONE;
	int i, n;
	u32 r;

	n = pcierr_pe_snapshot(pe, true, &devs);
	if (n < 0) {
		op->err = n;
		return;
	}
	if (op->step == PCIERR_STEP_ERROR_DETECTED &&
	    op->state == PCIERR_STATE_NORMAL && pcierr_any_frozen(devs, n)) {
		pcierr_pe_info(pe, "error_detected(normal) refused: the PE is frozen\n");
		op->err = -EINVAL;
		goto out;
	}
	op->err = pcierr_op_alloc_results(op, n);
	if (op->err)
		goto out;

	pcierr_pe_info(pe, "broadcast %s message\n", pcierr_step_name(op->step));
	/* The freeze is lifted before the drivers restart their I/O. */
	if (op->step == PCIERR_STEP_RESUME)
		for (i = 0; i < n; i++)
			pcierr_unfreeze_locked(devs[i], true);

	for (i = 0; i < n; i++) {
		r = pcierr_report_one(devs[i], op->step, op->state);
		pcierr_op_add_result(op, devs[i]->name, r);
		merged = pcierr_merge(merged, r);
	}
	op->merged = merged;

	if (op->step == PCIERR_STEP_RESUME) {
		enum pcierr_pe_state st = pcierr_pe_get_state(pe);

		if (st == PCIERR_PE_STATE_FROZEN ||
		    st == PCIERR_PE_STATE_MMIO_ENABLED ||
		    st == PCIERR_PE_STATE_RESET) {
			if (pcierr_pe_set_state_if(pe, PCIERR_PE_STATE_NORMAL,
						   op->freeze_req)) {
				pcierr_pe_info(pe, "device recovery successful\n");
			} else {
				pcierr_pe_info(pe, "frozen again during resume\n");
				pcierr_pe_refreeze(pe);
			}
		}
		/* Recovered: the devices may sleep again, as after err.c. */
		for (i = 0; i < n; i++)
			if (!devs[i]->hw_frozen)
				pcierr_rpm_put(devs[i]);
	}
out:
	pcierr_snapshot_put(devs, n);
}

void pcierr_op_enable_io(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	unsigned long flags;
	int i, n;

	n = pcierr_pe_snapshot(pe, true, &devs);
	if (n < 0) {
		op->err = n;
		return;
	}
	for (i = 0; i < n; i++)
		pcierr_unfreeze_locked(devs[i], false);
	pcierr_snapshot_put(devs, n);
	pcierr_pe_info(pe, "MMIO enabled\n");

	spin_lock_irqsave(&pe->lock, flags);
	if (pe->state == PCIERR_PE_STATE_FROZEN &&
	    pe->freeze_req == op->freeze_req)
		pe->state = PCIERR_PE_STATE_MMIO_ENABLED;
	spin_unlock_irqrestore(&pe->lock, flags);
}

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

void pcierr_op_report(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	u32 merged = PCIERR_RESULT_NONE;
	unsigned long flags;
	int i, n;
	u32 r;

	n = pcierr_pe_snapshot(pe, true, &devs);
	if (n < 0) {
		op->err = n;
		return;
	}
	op->err = pcierr_op_alloc_results(op, n);
	if (op->err)
		goto out;

	/* The freeze is lifted before the drivers restart their I/O. */
	if (op->step == PCIERR_STEP_RESUME)
		for (i = 0; i < n; i++)
			pcierr_unfreeze_dev(devs[i], true);

	for (i = 0; i < n; i++) {
		r = pcierr_report_one(devs[i], op->step, op->state);
		pcierr_op_add_result(op, devs[i]->name, r);
		merged = pcierr_merge(merged, r);
	}
	op->merged = merged;

	if (op->step == PCIERR_STEP_RESUME) {
		spin_lock_irqsave(&pe->lock, flags);
		if (pe->state == PCIERR_PE_STATE_FROZEN ||
		    pe->state == PCIERR_PE_STATE_MMIO_ENABLED ||
		    pe->state == PCIERR_PE_STATE_RESET)
			pe->state = PCIERR_PE_STATE_NORMAL;
		spin_unlock_irqrestore(&pe->lock, flags);
		/* Recovered: this is the new healthy config space. */
		for (i = 0; i < n; i++)
			pcierr_save_healthy(devs[i]);
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
		pcierr_unfreeze_dev(devs[i], false);
	pcierr_snapshot_put(devs, n);

	spin_lock_irqsave(&pe->lock, flags);
	if (pe->state == PCIERR_PE_STATE_FROZEN)
		pe->state = PCIERR_PE_STATE_MMIO_ENABLED;
	spin_unlock_irqrestore(&pe->lock, flags);
}

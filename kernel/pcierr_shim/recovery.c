// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr REPORT and ENABLE_IO: driver recovery callbacks, called as the
 * PCI core's own drivers/pci/pcie/err.c calls them (under device_lock, one
 * device at a time, in bus order), from the PE's ordered work queue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * A driver's answer as the merges take it: anything but the four answers
 * (a driver's garbage, or the PCI core's own NO_AER_DRIVER) is no opinion.
 */
static pci_ers_result_t pcierr_vote(pci_ers_result_t r)
{
	if (r == PCI_ERS_RESULT_CAN_RECOVER ||
	    r == PCI_ERS_RESULT_NEED_RESET ||
	    r == PCI_ERS_RESULT_DISCONNECT ||
	    r == PCI_ERS_RESULT_RECOVERED)
		return r;
	return PCI_ERS_RESULT_NONE;
}

static unsigned int pcierr_rank(pci_ers_result_t r)
{
	if (r == PCI_ERS_RESULT_RECOVERED)
		return 1;
	if (r == PCI_ERS_RESULT_CAN_RECOVER)
		return 2;
	if (r == PCI_ERS_RESULT_DISCONNECT)
		return 3;
	if (r == PCI_ERS_RESULT_NEED_RESET)
		return 4;
	return 0;	/* NONE (no callback, no driver, gone): no opinion */
}

/*
 * A REPORT's merged answer (the uapi header's "Merging results"), in
 * EEH's priority order (eeh_result_priority()): NEED_RESET > DISCONNECT >
 * CAN_RECOVER > RECOVERED. NONE never changes the merge, which starts
 * (and may stay) NONE.
 */
static pci_ers_result_t pcierr_merge(pci_ers_result_t merged,
				     pci_ers_result_t r)
{
	return pcierr_rank(r) > pcierr_rank(merged) ? r : merged;
}

/* One callback of one device. Runs in process context, may sleep. */
struct pcierr_answer pcierr_report_one(struct pcierr_dev *dev, u32 step,
				       u32 state)
{
	struct pci_dev *pdev = dev->pdev;
	const struct pci_error_handlers *eh = NULL;
	pci_channel_state_t st = pci_channel_io_normal;
	pci_ers_result_t res = PCI_ERS_RESULT_NONE;
	enum pcierr_reason reason = PCIERR_REASON_NONE;

	if (READ_ONCE(dev->removed))
		return pcierr_no_answer(PCIERR_REASON_GONE);

	device_lock(&pdev->dev);
	if (READ_ONCE(dev->removed)) {
		reason = PCIERR_REASON_GONE;
		goto out;
	}

	switch (step) {
	case PCIERR_STEP_ERROR_DETECTED:
	case PCIERR_STEP_PERM_FAILURE:
		st = step == PCIERR_STEP_PERM_FAILURE ?
		     pci_channel_io_perm_failure : pcierr_pci_state(state);
		if (!pcierr_set_io_state(pdev, st)) {
			/* perm_failure is final: it cannot be recovered */
			res = PCI_ERS_RESULT_DISCONNECT;
			goto out;
		}
		break;
	case PCIERR_STEP_SLOT_RESET:
		/*
		 * As the kernel's err.c built alongside does (R10): from 6.12
		 * slot_reset sees the channel back to normal (the reset is
		 * done), and a disconnected device is not called at all.
		 */
		if (PCIERR_SLOT_RESET_NORMAL &&
		    !pcierr_set_io_state(pdev, pci_channel_io_normal)) {
			res = PCI_ERS_RESULT_DISCONNECT;
			goto out;
		}
		break;
	case PCIERR_STEP_RESUME:
		if (!pcierr_set_io_state(pdev, pci_channel_io_normal)) {
			res = PCI_ERS_RESULT_DISCONNECT;
			goto out;
		}
		break;
	}

	if (!pdev->dev.driver) {
		reason = PCIERR_REASON_NO_DRIVER;
		goto out;
	}
	eh = to_pci_driver(pdev->dev.driver)->err_handler;
	if (!eh)
		goto out;

	switch (step) {
	case PCIERR_STEP_ERROR_DETECTED:
	case PCIERR_STEP_PERM_FAILURE:
		if (eh->error_detected)
			res = pcierr_vote(eh->error_detected(pdev, st));
		break;
	case PCIERR_STEP_MMIO_ENABLED:
		if (eh->mmio_enabled)
			res = pcierr_vote(eh->mmio_enabled(pdev));
		break;
	case PCIERR_STEP_SLOT_RESET:
		if (eh->slot_reset)
			res = pcierr_vote(eh->slot_reset(pdev));
		break;
	case PCIERR_STEP_RESUME:
		if (eh->resume) {
			eh->resume(pdev);
			res = PCI_ERS_RESULT_RECOVERED;
		}
		break;
	}
out:
	device_unlock(&pdev->dev);
	if (reason != PCIERR_REASON_NONE)
		return pcierr_no_answer(reason);
	return pcierr_driver_answer(res);
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

/*
 * A detection that names a bridge sets the bridge's own channel state.
 * REPORT walks the subtree below the PE's head, as err.c's
 * pci_walk_bridge() does, so the head itself is not reported to: on
 * recovery it (and any bridge a REPORT could not reach) goes back to
 * normal here, as after err.c's resume walk. perm_failure stays.
 */
static void pcierr_thaw_bridge(struct pci_dev *pdev)
{
	device_lock(&pdev->dev);
	pcierr_set_io_state(pdev, pci_channel_io_normal);
	device_unlock(&pdev->dev);
}

static void pcierr_thaw_bridges(struct pcierr_pe *pe)
{
	struct pcierr_dev **devs;
	struct pci_dev *head;
	int i, n;

	/* the bridge heading the PE is a member of the PE above it */
	mutex_lock(&pcierr_topo_lock);
	head = pe->head && pci_is_bridge(pe->head) ? pci_dev_get(pe->head) : NULL;
	mutex_unlock(&pcierr_topo_lock);
	if (head) {
		pcierr_thaw_bridge(head);
		pci_dev_put(head);
	}

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0)
		return;
	for (i = 0; i < n; i++)
		if (pci_is_bridge(devs[i]->pdev) && !READ_ONCE(devs[i]->removed))
			pcierr_thaw_bridge(devs[i]->pdev);
	pcierr_snapshot_put(devs, n);
}

void pcierr_op_report(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	struct pcierr_dev **devs;
	pci_ers_result_t merged = PCI_ERS_RESULT_NONE;
	struct pcierr_answer r;
	int i, n;

	/*
	 * Bridges below the head too, each before what sits below it, as
	 * err.c's walk: a switch's ports get their port driver's callbacks,
	 * and pcieport's slot_reset lets pciehp ignore the link change the
	 * reset caused on a hotplug port below (pciehp_slot_reset()).
	 */
	n = pcierr_pe_snapshot(pe, false, &devs);
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
		pcierr_op_add_result(op, devs[i], r);
		merged = pcierr_merge(merged, r.ers);
	}
	op->merged = pcierr_driver_answer(merged);

	if (op->step == PCIERR_STEP_RESUME) {
		enum pcierr_pe_state st = pcierr_pe_get_state(pe);

		if (st == PCIERR_PE_STATE_FROZEN ||
		    st == PCIERR_PE_STATE_MMIO_ENABLED ||
		    st == PCIERR_PE_STATE_RESET) {
			if (pcierr_pe_set_state_if(pe, PCIERR_PE_STATE_NORMAL,
						   op->freeze_req)) {
				pcierr_thaw_bridges(pe);
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
	bool again;
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

	raw_spin_lock_irqsave(&pe->lock, flags);
	again = pe->freeze_req != op->freeze_req;
	if (pe->state == PCIERR_PE_STATE_FROZEN && !again)
		pe->state = PCIERR_PE_STATE_MMIO_ENABLED;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	/* A detection while decode went back on: cut it again (D11, R4). */
	if (again) {
		pcierr_pe_info(pe, "frozen again during ENABLE_IO\n");
		pcierr_pe_refreeze(pe);
	}
}

/*
 * RECOVER: the callback recovery as one operation (issue 12). It runs
 * the single steps above and reset.c's RESET one after the other, in the
 * order the daemon's policy would ask for them, and stops where err.c
 * would give up or the policy has something to decide; the daemon goes
 * on from there with the single-step commands.
 */

/*
 * drivers/pci/pcie/err.c's merge_result(). NONE (no callback, no driver,
 * gone) has no vote: a missing callback stops a RECOVER at
 * error_detected before any merge counts (err.c's NO_AER_DRIVER).
 */
static pci_ers_result_t pcierr_merge_errc(pci_ers_result_t orig,
					  pci_ers_result_t r)
{
	if (r == PCI_ERS_RESULT_NONE)
		return orig;
	if (orig == PCI_ERS_RESULT_CAN_RECOVER ||
	    orig == PCI_ERS_RESULT_RECOVERED)
		return r;
	if (orig == PCI_ERS_RESULT_DISCONNECT &&
	    r == PCI_ERS_RESULT_NEED_RESET)
		return r;
	return orig;
}

/* A detection since the operation started (its sampled freeze_req)? */
static bool pcierr_frozen_again(struct pcierr_op *op)
{
	unsigned long flags;
	bool again;

	raw_spin_lock_irqsave(&op->pe->lock, flags);
	again = op->pe->freeze_req != op->freeze_req;
	raw_spin_unlock_irqrestore(&op->pe->lock, flags);
	return again;
}

void pcierr_op_free_steps(struct pcierr_op *op)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op->step_res); i++) {
		kfree(op->step_res[i]);
		op->step_res[i] = NULL;
		op->step_nres[i] = 0;
	}
}

/*
 * The step in @st (the op's current one) has ended: its errno, its time
 * since @start, and the per-device results it gathered move to the op's
 * step record.
 */
void pcierr_op_step_close(struct pcierr_op *op, struct pcierr_step_status *st,
			  ktime_t start)
{
	st->err = op->err;
	st->duration_ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	op->step_res[op->nsteps] = op->res;
	op->step_nres[op->nsteps] = op->nres;
	op->res = NULL;
	op->nres = 0;
}

/*
 * One step of a RECOVER by the single-step code, its results kept in
 * op->step_res[]. NULL when the RECOVER stops here (op->stop set).
 */
static const struct pcierr_step_status *
pcierr_recover_step(struct pcierr_op *op, u8 cmd, u32 step)
{
	struct pcierr_step_status *st;
	pci_ers_result_t merged;
	unsigned int i;
	ktime_t start;

	if (op->nsteps && pcierr_frozen_again(op)) {
		pcierr_pe_info(op->pe, "frozen again during the recovery: stopped before %s\n",
			       cmd == PCIERR_CMD_REPORT ? pcierr_step_name(step) :
			       cmd == PCIERR_CMD_RESET ? "the reset" : "MMIO enable");
		op->stop = PCIERR_RECOVER_STOP_FROZEN_AGAIN;
		return NULL;
	}
	if (op->nsteps >= PCIERR_RECOVER_STEPS) {
		op->stop = PCIERR_RECOVER_STOP_FAILED;
		op->err = -E2BIG;
		return NULL;
	}
	st = &op->steps[op->nsteps];
	*st = (struct pcierr_step_status) { .cmd = cmd };
	if (cmd == PCIERR_CMD_REPORT)
		st->step = step;
	if (cmd == PCIERR_CMD_RESET)
		st->reset_type = op->reset_type;

	start = ktime_get();
	op->err = 0;
	op->res = NULL;
	op->nres = 0;
	op->step = step;
	switch (cmd) {
	case PCIERR_CMD_REPORT:
		pcierr_op_report(op);
		break;
	case PCIERR_CMD_ENABLE_IO:
		pcierr_op_enable_io(op);
		break;
	case PCIERR_CMD_RESET:
		pcierr_op_reset(op);
		break;
	}
	pcierr_op_step_close(op, st, start);
	op->step = 0;
	if (cmd == PCIERR_CMD_REPORT) {
		merged = step == PCIERR_STEP_ERROR_DETECTED ?
			 PCI_ERS_RESULT_CAN_RECOVER : PCI_ERS_RESULT_RECOVERED;
		for (i = 0; i < op->step_nres[op->nsteps]; i++)
			merged = pcierr_merge_errc(merged,
						   op->step_res[op->nsteps][i].answer.ers);
		st->merged = pcierr_driver_answer(merged);
	}
	op->nsteps++;
	if (st->err) {
		op->stop = PCIERR_RECOVER_STOP_FAILED;
		return NULL;
	}
	return st;
}

/*
 * Did the last REPORT find every device of the PE gone (none left, or
 * each answering GONE)? Bridges count: a switch whose cards are gone is
 * frozen with them, and its ports' answers recover it for a card added
 * later.
 */
static bool pcierr_recover_all_gone(struct pcierr_op *op)
{
	const struct pcierr_dev_result *res = op->step_res[op->nsteps - 1];
	unsigned int i, n = op->step_nres[op->nsteps - 1];

	for (i = 0; i < n; i++)
		if (res[i].answer.reason != PCIERR_REASON_GONE)
			return false;
	return true;
}

/* After a REPORT: stop where the policy would not go on by itself. */
static bool pcierr_recover_stops(struct pcierr_op *op,
				 const struct pcierr_step_status *st)
{
	const struct pcierr_dev_result *res = op->step_res[op->nsteps - 1];
	unsigned int i, n = op->step_nres[op->nsteps - 1];
	bool nohandler = false;

	pci_ers_result_t merged = st->merged.ers;

	for (i = 0; i < n; i++) {
		/* err.c: a bridge without a port driver votes NONE */
		if (res[i].bridge)
			continue;
		if (pcierr_no_callback(res[i].answer) ||
		    res[i].answer.reason == PCIERR_REASON_NO_DRIVER)
			nohandler = true;
	}
	if (pcierr_recover_all_gone(op))
		op->stop = PCIERR_RECOVER_STOP_GONE;
	else if (merged == PCI_ERS_RESULT_DISCONNECT)
		op->stop = PCIERR_RECOVER_STOP_DISCONNECT;
	else if (st->step == PCIERR_STEP_ERROR_DETECTED && nohandler)
		op->stop = PCIERR_RECOVER_STOP_NO_HANDLER;
	else if (st->step == PCIERR_STEP_SLOT_RESET &&
		 merged != PCI_ERS_RESULT_RECOVERED)
		op->stop = PCIERR_RECOVER_STOP_NOT_RECOVERED;
	else if (st->step == PCIERR_STEP_MMIO_ENABLED &&
		 merged != PCI_ERS_RESULT_RECOVERED &&
		 merged != PCI_ERS_RESULT_NEED_RESET)
		op->stop = PCIERR_RECOVER_STOP_NOT_RECOVERED;
	return op->stop != PCIERR_RECOVER_STOP_UNSPEC;
}

void pcierr_op_recover(struct pcierr_op *op)
{
	const struct pcierr_step_status *st;
	pci_ers_result_t r;

	op->stop = PCIERR_RECOVER_STOP_UNSPEC;
	st = pcierr_recover_step(op, PCIERR_CMD_REPORT,
				 PCIERR_STEP_ERROR_DETECTED);
	if (!st || pcierr_recover_stops(op, st))
		goto out;
	r = st->merged.ers;
	/* The policy's path, not err.c's: no reset unless a driver asks. */
	if (r != PCI_ERS_RESULT_NEED_RESET) {
		if (!pcierr_recover_step(op, PCIERR_CMD_ENABLE_IO, 0))
			goto out;
		st = pcierr_recover_step(op, PCIERR_CMD_REPORT,
					 PCIERR_STEP_MMIO_ENABLED);
		if (!st || pcierr_recover_stops(op, st))
			goto out;
		r = st->merged.ers;
	}
	if (r == PCI_ERS_RESULT_NEED_RESET) {
		if (!pcierr_recover_step(op, PCIERR_CMD_RESET, 0))
			goto out;
		st = pcierr_recover_step(op, PCIERR_CMD_REPORT,
					 PCIERR_STEP_SLOT_RESET);
		if (!st || pcierr_recover_stops(op, st))
			goto out;
	}
	if (!pcierr_recover_step(op, PCIERR_CMD_REPORT, PCIERR_STEP_RESUME))
		goto out;
	/*
	 * A hot-unplug racing the RECOVER (pciehp lets go of its reset_lock
	 * while it unbinds and deletes the devices) may take the last of
	 * them between slot_reset and resume: that PE is gone, not
	 * recovered (pcierr_pe_emptied_locked() made it REMOVED).
	 */
	op->stop = pcierr_recover_all_gone(op) ? PCIERR_RECOVER_STOP_GONE :
		   PCIERR_RECOVER_STOP_RECOVERED;
out:
	/* The OP_DONE's errno: the last step's (or why none ran) */
	if (op->stop == PCIERR_RECOVER_STOP_FROZEN_AGAIN)
		op->err = 0;
	else if (op->nsteps && op->err != -E2BIG)
		op->err = op->steps[op->nsteps - 1].err;
	if (op->stop == PCIERR_RECOVER_STOP_UNSPEC)
		op->stop = PCIERR_RECOVER_STOP_FAILED;
	pcierr_pe_info(op->pe, "recovery %s (steps run: %u)\n",
		       op->stop == PCIERR_RECOVER_STOP_RECOVERED ? "complete" :
		       "stopped", op->nsteps);
}

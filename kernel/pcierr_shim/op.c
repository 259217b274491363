// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr operations: one at a time per PE, run from the PE's own ordered
 * work queue (an armed RECOVER from pcierr_recover_wq; both WQ_MEM_RECLAIM;
 * those that add or delete devices from pcierr_hotplug_wq: main.c), never
 * under a netlink lock, completed by an OP_DONE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

static atomic64_t pcierr_op_ids = ATOMIC64_INIT(0);

int pcierr_op_alloc_results(struct pcierr_op *op, unsigned int n)
{
	op->nres = 0;
	op->res = kcalloc(n ? n : 1, sizeof(*op->res), GFP_KERNEL);
	return op->res ? 0 : -ENOMEM;
}

/* Capacity was allocated by pcierr_op_alloc_results(). */
void pcierr_op_add_result(struct pcierr_op *op, const struct pcierr_dev *dev,
			  struct pcierr_answer answer)
{
	strscpy(op->res[op->nres].name, dev->name, sizeof(op->res[0].name));
	op->res[op->nres].answer = answer;
	op->res[op->nres].bridge = pci_is_bridge(dev->pdev);
	op->nres++;
}

static void pcierr_op_work(struct work_struct *work)
{
	struct pcierr_op *op = container_of(work, struct pcierr_op, work);
	/* No allocation in here may wait for the frozen disk (main.c). */
	unsigned int noio = memalloc_noio_save();
	struct pcierr_pe *pe = op->pe;
	unsigned long flags;

	op->start_ns = ktime_get_ns();

	/* An armed RECOVER may run before the event work applies the freeze. */
	if (op->event_seq)
		pcierr_pe_apply_freeze(pe, true);
	pcierr_pe_op_begin(op);
	switch (op->cmd) {
	case PCIERR_CMD_REPORT:
		pcierr_op_report(op);
		break;
	case PCIERR_CMD_ENABLE_IO:
		pcierr_op_enable_io(op);
		break;
	case PCIERR_CMD_RESET:
		pcierr_op_reset(op);
		break;
	case PCIERR_CMD_REMOVE:
		pcierr_op_remove(op);
		break;
	case PCIERR_CMD_RESCAN:
		pcierr_op_rescan(op);
		break;
	case PCIERR_CMD_DISABLE:
		pcierr_op_disable(op);
		break;
	case PCIERR_CMD_ENABLE:
		pcierr_op_enable(op);
		break;
	case PCIERR_CMD_RECOVER:
		pcierr_op_recover(op);
		break;
	case PCIERR_CMD_OWNER_RECOVER:
		pcierr_owner_recover(op);
		break;
	default:
		op->err = -EOPNOTSUPP;
		break;
	}
	pcierr_pe_op_end(op);
	op->duration_ns = ktime_get_ns() - op->start_ns;
	pcierr_stat_inc(PCIERR_STAT_OPS);
	if (op->err)
		pcierr_stat_inc(PCIERR_STAT_OPS_FAILED);
	/* Its EVENT first: the end of a recovery never precedes its start. */
	if (op->event_seq)
		pcierr_event_wait_delivered(op->event_seq);

	raw_spin_lock_irqsave(&pe->lock, flags);
	op->pe_state = pe->state;
	op->pe_id = pe->id;
	/* What OP_DONE says, for whoever lost it (D18). */
	if (pe->last_op.id == op->id) {
		pe->last_op.done = true;
		pe->last_op.merged = op->merged;
		pe->last_op.err = op->err;
		pe->last_op.duration_ns = op->duration_ns;
		pe->last_op.pe_state = op->pe_state;
		pe->last_op.stop = op->stop;
		pe->last_op.nsteps = op->nsteps;
		memcpy(pe->last_op.steps, op->steps, sizeof(op->steps));
	}
	/* Free before OP_DONE: its listener may send the next one at once. */
	pe->busy = false;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	pcierr_nl_op_done(op);
	pcierr_dev_put(op->dev);
	pcierr_op_free_steps(op);
	kfree(op->res);
	kfree(op);
	pcierr_pe_put(pe);
	memalloc_noio_restore(noio);
}

/*
 * Accept @op on @pe if @pe_id is still @pe's id (else -ESTALE) and no
 * other operation is in flight (else -EBUSY; -ENODEV if the PE is gone):
 * the PE is marked busy and @op gets its id. Caller holds pe->lock, then
 * calls pcierr_op_attach().
 */
int __pcierr_op_claim(struct pcierr_pe *pe, struct pcierr_op *op, u64 pe_id)
{
	lockdep_assert_held(&pe->lock);
	if (pe->dead)
		return -ENODEV;
	if (pe->id != pe_id)
		return -ESTALE;
	if (pe->busy)
		return -EBUSY;
	pe->busy = true;
	op->id = atomic64_inc_return(&pcierr_op_ids);
	pe->last_op = (struct pcierr_op_status) {
		.id = op->id,
		.cmd = op->cmd,
		.step = op->step,
	};
	return 0;
}

/* A claimed @op holds a reference to @pe; any context. */
void pcierr_op_attach(struct pcierr_pe *pe, struct pcierr_op *op)
{
	pcierr_pe_get(pe);
	op->pe = pe;
	INIT_WORK(&op->work, pcierr_op_work);
}

/*
 * __pcierr_op_claim() and pcierr_op_attach(). The caller replies, then
 * calls pcierr_op_start(), which takes @op over.
 */
int pcierr_op_claim(struct pcierr_pe *pe, struct pcierr_op *op, u64 pe_id)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&pe->lock, flags);
	ret = __pcierr_op_claim(pe, op, pe_id);
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (!ret)
		pcierr_op_attach(pe, op);
	return ret;
}

/*
 * Run a claimed operation on its PE's work queue, or, where it adds or
 * deletes devices, on pcierr_hotplug_wq (main.c).
 */
void pcierr_op_start(struct pcierr_op *op)
{
	switch (op->cmd) {
	case PCIERR_CMD_REMOVE:
	case PCIERR_CMD_RESCAN:
	case PCIERR_CMD_DISABLE:
	case PCIERR_CMD_ENABLE:
	case PCIERR_CMD_OWNER_RECOVER:
		queue_work(pcierr_hotplug_wq, &op->work);
		break;
	default:
		queue_work(op->pe->wq, &op->work);
		break;
	}
}

/* Run an armed RECOVER on its own queue (main.c); any context. */
void pcierr_op_start_armed(struct pcierr_op *op)
{
	queue_work(pcierr_recover_wq, &op->work);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr_shim: PCI error recovery, the kernel half. It detects and
 * contains PCI errors (a software freeze on x86) and carries out recovery
 * steps on command over generic netlink. It decides on its own only when
 * nobody else does: a PE left frozen for owner_timeout_ms with no
 * operation on it is recovered as the kernel's AER recovery would
 * (error_detected, reset, slot_reset, resume), and removed and rescanned
 * if a driver cannot take part in that or the reset fails.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "internal.h"
#include "platform.h"

unsigned int pcierr_event_queue_len = 256;
static unsigned int pcierr_owner_timeout_ms = 60000;
module_param_named(owner_timeout_ms, pcierr_owner_timeout_ms, uint, 0644);
MODULE_PARM_DESC(owner_timeout_ms,
		 "A frozen PE nobody acts on for this long is recovered by the shim itself (ms, default 60000, 0: never)");
module_param_named(event_queue_len, pcierr_event_queue_len, uint, 0444);
MODULE_PARM_DESC(event_queue_len,
		 "Bounded event queue length, overflow marker included (2-65536, default 256)");

/*
 * Where things run (docs/shim-mechanism.md, "Where each step runs"). A
 * recovery may be what frees memory: the disk it brings back may hold
 * swap or the dirty pages reclaim waits for. So every queue a recovery
 * step runs on is WQ_MEM_RECLAIM (a rescuer thread runs its work when no
 * new worker can be created), and every operation body runs with
 * memalloc_noio_save(): its allocations never start I/O to the frozen
 * disk. err.c has neither concern: it runs in AER's existing IRQ thread.
 *
 * pcierr_wq: event delivery (and the freezes it applies), watchdogs,
 * owner timeouts, releases. Unbound.
 */
struct workqueue_struct *pcierr_wq;
/*
 * Armed RECOVERs (auto.c): unbound, so that they follow
 * wq_unbound_cpumask (never an isolated or nohz_full CPU that happened to
 * take the interrupt) and never hold a CPU's per-CPU high-priority pool
 * (kblockd's) while a callback busy-waits; high priority, so the first
 * callback does not queue behind ordinary work. One operation per PE
 * still holds (pe->busy); the PE's ordered queue has the others.
 */
struct workqueue_struct *pcierr_recover_wq;
bool pcierr_exiting;

/*
 * (Re)start the owner timeout of a PE: called when its freeze is applied
 * (@listeners: somebody is subscribed to the events) and when an
 * operation on it ends.
 */
void pcierr_owner_arm(struct pcierr_pe *pe, bool listeners)
{
	unsigned int ms = READ_ONCE(pcierr_owner_timeout_ms);
	unsigned long flags;
	bool armed = false;

	if (!ms || READ_ONCE(pcierr_exiting))
		return;
	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->owner_stamp = jiffies;
	if (!pe->dead && pe->state != PCIERR_PE_STATE_NORMAL &&
	    pe->state != PCIERR_PE_STATE_REMOVED &&
	    pe->state != PCIERR_PE_STATE_DISABLED) {
		mod_delayed_work(pcierr_wq, &pe->owner_work,
				 msecs_to_jiffies(ms));
		armed = true;
	}
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (armed && !listeners)
		pcierr_pe_info(pe, "nobody listens to pcierr events: recovering the PE in %u ms unless somebody does\n",
			       ms);
}

void pcierr_owner_fn(struct work_struct *work)
{
	struct pcierr_pe *pe = container_of(to_delayed_work(work),
					    struct pcierr_pe, owner_work);
	unsigned long flags;
	bool go;

	if (READ_ONCE(pcierr_exiting))
		return;
	raw_spin_lock_irqsave(&pe->lock, flags);
	go = !pe->dead && !pe->busy &&
	     (pe->state == PCIERR_PE_STATE_FROZEN ||
	      pe->state == PCIERR_PE_STATE_MMIO_ENABLED ||
	      pe->state == PCIERR_PE_STATE_RESET);
	if (go)
		pcierr_pe_get(pe);
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	/* An operation in flight ends by re-arming it. */
	if (go && !queue_work(pe->wq, &pe->fallback_work))
		pcierr_pe_put(pe);
}

static bool pcierr_fb_report(struct pcierr_op *op, u32 step)
{
	bool ok;
	unsigned int i;

	op->cmd = PCIERR_CMD_REPORT;
	op->step = step;
	op->state = PCIERR_STATE_FROZEN;
	op->err = 0;
	pcierr_op_report(op);
	ok = !op->err && op->merged.ers != PCI_ERS_RESULT_DISCONNECT;
	/* A bound driver without the callback cannot recover: err.c's rule */
	for (i = 0; ok && i < op->nres; i++)
		if (pcierr_no_callback(op->res[i].answer))
			ok = false;
	kfree(op->res);
	op->res = NULL;
	op->nres = 0;
	return ok;
}

/* The safe action when nobody recovers a frozen PE (on its work queue). */
void pcierr_fallback_fn(struct work_struct *work)
{
	struct pcierr_pe *pe = container_of(work, struct pcierr_pe,
					    fallback_work);
	unsigned int noio = memalloc_noio_save();	/* see the top */
	struct pcierr_op *op;
	unsigned long flags;
	bool go;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	raw_spin_lock_irqsave(&pe->lock, flags);
	/* Somebody acted since the timer fired: not ours to recover. */
	go = op && !pe->dead && !pe->busy &&
	     time_after_eq(jiffies, pe->owner_stamp +
			   msecs_to_jiffies(READ_ONCE(pcierr_owner_timeout_ms))) &&
	     (pe->state == PCIERR_PE_STATE_FROZEN ||
	      pe->state == PCIERR_PE_STATE_MMIO_ENABLED ||
	      pe->state == PCIERR_PE_STATE_RESET);
	if (go)
		pe->busy = true;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (!go)
		goto out;

	op->pe = pe;
	pcierr_pe_op_begin(op);
	pcierr_pe_info(pe, "nobody recovered the PE in %u ms%s: recovering it as AER would\n",
		       READ_ONCE(pcierr_owner_timeout_ms),
		       pcierr_nl_has_listeners() ? "" :
		       " (nobody listens to pcierr events)");
	if (!pcierr_fb_report(op, PCIERR_STEP_ERROR_DETECTED))
		goto hotplug;
	op->cmd = PCIERR_CMD_RESET;
	op->reset_type = PCIERR_RESET_HOT;
	op->err = 0;
	pcierr_op_reset(op);
	if (op->err ||
	    !pcierr_fb_report(op, PCIERR_STEP_SLOT_RESET) ||
	    !pcierr_fb_report(op, PCIERR_STEP_RESUME))
		goto hotplug;
	pcierr_pe_info(pe, "recovered by the shim itself\n");
	goto done;

hotplug:
	pcierr_pe_info(pe, "drivers cannot recover: removing and rescanning the PE\n");
	op->cmd = PCIERR_CMD_REMOVE;
	op->err = 0;
	pcierr_op_remove(op);
	if (!pe->root_single) {
		op->reset_type = PCIERR_RESET_HOT;
		pcierr_op_reset(op);
	}
	op->err = 0;
	pcierr_op_rescan(op);
	pcierr_pe_info(pe, "rescanned by the shim itself: %s\n",
		       op->err ? "failed" : "done");
done:
	pcierr_stat_inc(PCIERR_STAT_OPS);
	pcierr_pe_op_end(op);
	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->busy = false;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
out:
	kfree(op);
	pcierr_pe_put(pe);
	memalloc_noio_restore(noio);
}

static void pcierr_stop(void)
{
	/* No detection starts after this; those under way have queued. */
	WRITE_ONCE(pcierr_exiting, true);
	synchronize_rcu();
	pcierr_pe_quiesce();	/* watchdogs off, operations finished */
	flush_workqueue(pcierr_recover_wq);	/* armed ones too */
	flush_workqueue(pcierr_wq);	/* pending freezes applied */
	pcierr_pe_thaw_all();	/* and lifted: not left to nobody */
	pcierr_pe_exit();	/* notifier off, PEs and devices released */
}

static int __init pcierr_init(void)
{
	int ret;

	pcierr_wq = alloc_workqueue("pcierr", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!pcierr_wq)
		return -ENOMEM;
	pcierr_recover_wq = alloc_workqueue("pcierr_recover",
					    WQ_UNBOUND | WQ_HIGHPRI |
					    WQ_MEM_RECLAIM, 0);
	if (!pcierr_recover_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}
	pcierr_platform_init();
	ret = pcierr_event_init();
	if (ret)
		goto err_wq;
	ret = pcierr_pe_init();
	if (ret)
		goto err_event;
	ret = pcierr_nl_init();
	if (ret)
		goto err_pe;
	pr_info("PCI error recovery shim loaded (event queue %u)\n",
		pcierr_event_queue_len);
	return 0;

err_pe:
	pcierr_stop();
err_event:
	pcierr_event_exit();
err_wq:
	rcu_barrier();
	if (pcierr_recover_wq)
		destroy_workqueue(pcierr_recover_wq);
	destroy_workqueue(pcierr_wq);
	return ret;
}

static void __exit pcierr_exit(void)
{
	pcierr_nl_exit();	/* no new commands, no more multicast */
	pcierr_stop();
	pcierr_event_exit();
	rcu_barrier();		/* device records freed after grace periods */
	destroy_workqueue(pcierr_recover_wq);
	destroy_workqueue(pcierr_wq);
	pr_info("unloaded\n");
}

module_init(pcierr_init);
module_exit(pcierr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PCI error recovery shim: detection, containment, recovery mechanism");
MODULE_AUTHOR("pcierr project");

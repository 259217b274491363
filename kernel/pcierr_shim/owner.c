// SPDX-License-Identifier: GPL-2.0
/*
 * The owner timeout: the shim recovers a PE by itself only when nobody
 * else does (issue 22 point 2, issue 21 point 4).
 *
 * A PE left frozen with no operation for owner_timeout_ms gets the same
 * RECOVER a daemon would send, as an operation of its own
 * (PCIERR_CMD_OWNER_RECOVER: an id, LAST_OP, an OP_DONE), so its rules are
 * err.c's and a listener hears of it. Only a RECOVER that stops where
 * err.c would fail goes on to REMOVE and RESCAN. A budget per PE stops a
 * card that fails every time from being replugged forever.
 *
 * A listener that keeps a PE frozen on purpose holds it (PCIERR_CMD_HOLD):
 * a lease it renews, which ends when the holding socket closes, so a dead
 * or wedged holder gives the PE back to the owner timeout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "internal.h"

static unsigned int pcierr_owner_timeout_ms = 60000;
module_param_named(owner_timeout_ms, pcierr_owner_timeout_ms, uint, 0644);
MODULE_PARM_DESC(owner_timeout_ms,
		 "A frozen PE nobody acts on or holds for this long is recovered by the shim itself (ms, default 60000, 0: never)");
static unsigned int pcierr_owner_budget = 3;
module_param_named(owner_budget, pcierr_owner_budget, uint, 0644);
MODULE_PARM_DESC(owner_budget,
		 "At most this many owner-timeout recoveries per PE within an hour from the first (default 3, 0: no limit, none counted)");

#define PCIERR_OWNER_WINDOW	(3600 * HZ)

/*
 * PEs held now: a hint that lets socket closes skip the walk of the PEs
 * when nobody holds any. Exact but for PEs freed while held (never
 * counted down: only a slower path).
 */
static atomic_t pcierr_hold_count = ATOMIC_INIT(0);

static bool pcierr_owner_state(struct pcierr_pe *pe)
{
	return pe->state == PCIERR_PE_STATE_FROZEN ||
	       pe->state == PCIERR_PE_STATE_MMIO_ENABLED ||
	       pe->state == PCIERR_PE_STATE_RESET;
}

/* Does a hold keep the owner timeout away? (the HELD flag of GET_PE) */
bool pcierr_owner_held_locked(struct pcierr_pe *pe)
{
	lockdep_assert_held(&pe->lock);
	return pe->hold_active && pe->hold_pe_id == pe->id &&
	       time_before(jiffies, pe->hold_until);
}

/* pe->lock held */
static void pcierr_hold_end_locked(struct pcierr_pe *pe)
{
	lockdep_assert_held(&pe->lock);
	if (pe->hold_active)
		atomic_dec(&pcierr_hold_count);
	pe->hold_active = false;
}

/*
 * (Re)start the owner timeout of a PE: called when its freeze is applied
 * (@listeners: somebody is subscribed to the events), when an operation
 * on it ends and when a hold ends.
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

enum pcierr_owner_verdict {
	PCIERR_OWNER_IDLE,	/* not frozen, busy, gone, or not yet */
	PCIERR_OWNER_HELD,
	PCIERR_OWNER_SPENT,	/* the budget is used up */
	PCIERR_OWNER_GO,
};

/*
 * What the owner timeout does now, under pe->lock: claims @op (GO), or
 * re-arms itself for when that may change. An operation in flight ends by
 * re-arming it.
 */
static enum pcierr_owner_verdict
pcierr_owner_decide(struct pcierr_pe *pe, struct pcierr_op *op,
		    unsigned long timeout, u32 budget, bool *say, bool *lapsed)
{
	unsigned long now = jiffies, from = pe->owner_stamp;

	lockdep_assert_held(&pe->lock);
	if (pe->dead || pe->busy || !pcierr_owner_state(pe))
		return PCIERR_OWNER_IDLE;
	if (pcierr_owner_held_locked(pe)) {
		/* from the end of the lease on, if it is not renewed */
		pe->owner_stamp = pe->hold_until;
		mod_delayed_work(pcierr_wq, &pe->owner_work,
				 pe->hold_until - now + timeout);
		return PCIERR_OWNER_HELD;
	}
	/* a lapsed lease: the timeout counts from its end */
	if (pe->hold_active && pe->hold_pe_id == pe->id &&
	    time_after(pe->hold_until, from))
		from = pe->hold_until;
	if (time_before(now, from + timeout)) {
		mod_delayed_work(pcierr_wq, &pe->owner_work, from + timeout - now);
		return PCIERR_OWNER_IDLE;
	}
	if (pe->owner_used &&
	    time_after_eq(now, pe->owner_window + PCIERR_OWNER_WINDOW)) {
		pe->owner_used = 0;
		pe->owner_said = false;
	}
	if (budget && pe->owner_used >= budget) {
		*say = !pe->owner_said;
		pe->owner_said = true;
		/* the window's end may let it try again */
		mod_delayed_work(pcierr_wq, &pe->owner_work,
				 pe->owner_window + PCIERR_OWNER_WINDOW - now + 1);
		return PCIERR_OWNER_SPENT;
	}
	if (__pcierr_op_claim(pe, op, pe->id))
		return PCIERR_OWNER_IDLE;
	/* without a budget nothing is counted */
	if (budget && !pe->owner_used)
		pe->owner_window = now;
	if (budget)
		pe->owner_used++;
	*lapsed = pe->hold_active;
	pcierr_hold_end_locked(pe);
	return PCIERR_OWNER_GO;
}

void pcierr_owner_fn(struct work_struct *work)
{
	struct pcierr_pe *pe = container_of(to_delayed_work(work),
					    struct pcierr_pe, owner_work);
	unsigned int ms = READ_ONCE(pcierr_owner_timeout_ms);
	u32 budget = READ_ONCE(pcierr_owner_budget);
	enum pcierr_owner_verdict v;
	bool say = false, lapsed = false;
	char quota[48] = "";
	struct pcierr_op *op;
	unsigned long flags;
	u32 used;

	if (READ_ONCE(pcierr_exiting) || !ms)
		return;
	/* never I/O to the frozen disk to get it (main.c, "Where things run") */
	op = kzalloc(sizeof(*op), GFP_NOIO);
	if (!op) {
		pcierr_owner_arm(pe, true);	/* try again later */
		return;
	}
	op->cmd = PCIERR_CMD_OWNER_RECOVER;
	op->state = PCIERR_STATE_FROZEN;
	op->reset_type = PCIERR_RESET_HOT;
	raw_spin_lock_irqsave(&pe->lock, flags);
	v = pcierr_owner_decide(pe, op, msecs_to_jiffies(ms), budget, &say,
				&lapsed);
	used = pe->owner_used;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	if (say)
		pcierr_pe_info(pe, "nobody recovered the PE in %u ms, but the shim already recovered it %u times within an hour (owner_budget): it stays frozen; recover, remove or disable it by hand\n",
			       ms, used);
	if (v != PCIERR_OWNER_GO) {
		kfree(op);
		return;
	}
	pcierr_op_attach(pe, op);
	if (lapsed)
		pcierr_pe_info(pe, "the hold on the PE lapsed: its holder neither renewed nor ended it\n");
	if (budget)
		snprintf(quota, sizeof(quota), " (%u of %u within an hour)",
			 used, budget);
	pcierr_pe_info(pe, "nobody recovered the PE in %u ms%s: recovering it as AER would%s\n",
		       ms, pcierr_nl_has_listeners() ? "" :
		       " (nobody listens to pcierr events)", quota);
	pcierr_op_start(op);
}

/* One REMOVE, RESET or RESCAN step of an OWNER_RECOVER, recorded. */
static int pcierr_owner_step(struct pcierr_op *op, u8 cmd,
			     void (*fn)(struct pcierr_op *op))
{
	struct pcierr_step_status *st;
	ktime_t start;

	if (op->nsteps >= PCIERR_OP_STEPS)
		return -E2BIG;
	st = &op->steps[op->nsteps];
	*st = (struct pcierr_step_status) { .cmd = cmd };
	if (cmd == PCIERR_CMD_RESET)
		st->reset_type = op->reset_type;
	start = ktime_get();
	op->err = 0;
	fn(op);
	pcierr_op_step_close(op, st, start);
	op->nsteps++;
	return st->err;
}

/* Is the bridge heading @pe still there to be reset? */
static bool pcierr_owner_head_present(struct pcierr_pe *pe)
{
	struct pci_dev *head = pcierr_pe_head(pe);
	bool present;

	present = head && device_is_registered(&head->dev) &&
		  pcierr_present(head);
	pci_dev_put(head);
	return present;
}

static const char *pcierr_owner_stop_name(u32 stop)
{
	switch (stop) {
	case PCIERR_RECOVER_STOP_DISCONNECT:
		return "a driver answered disconnect";
	case PCIERR_RECOVER_STOP_NO_HANDLER:
		return "a device without a driver or error_detected";
	case PCIERR_RECOVER_STOP_NOT_RECOVERED:
		return "not recovered after the reset";
	default:
		return "a step failed";
	}
}

/* The OWNER_RECOVER operation itself (op.c runs it on the PE's queue). */
void pcierr_owner_recover(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	int err;

	pcierr_op_recover(op);
	switch (op->stop) {
	case PCIERR_RECOVER_STOP_RECOVERED:
		pcierr_pe_info(pe, "recovered by the shim itself\n");
		return;
	case PCIERR_RECOVER_STOP_GONE:
	case PCIERR_RECOVER_STOP_FROZEN_AGAIN:
		/* nothing left to replug; a new freeze has its own timeout */
		return;
	}
	pcierr_pe_info(pe, "drivers cannot recover: removing and rescanning the PE (%s)\n",
		       pcierr_owner_stop_name(op->stop));
	pcierr_owner_step(op, PCIERR_CMD_REMOVE, pcierr_op_remove);
	if (pe->root_single)
		;	/* the device itself is gone: nothing to reset */
	else if (!pcierr_owner_head_present(pe))
		pcierr_pe_info(pe, "the PE's bridge is gone: not reset\n");
	else
		pcierr_owner_step(op, PCIERR_CMD_RESET, pcierr_op_reset);
	err = pcierr_owner_step(op, PCIERR_CMD_RESCAN, pcierr_op_rescan);
	op->err = err;
	pcierr_pe_info(pe, "rescanned by the shim itself: %s\n",
		       err ? "failed" : "done");
}

/*
 * PCIERR_CMD_HOLD: @ms of lease for the socket @portid on @pe (if @pe_id
 * is its id), or the hold ended (@ms 0). Return: 0, -ESTALE, -ENODEV.
 */
int pcierr_owner_hold(struct pcierr_pe *pe, u64 pe_id, u32 ms, u32 portid)
{
	bool began = false, ended = false;
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->dead) {
		ret = -ENODEV;
	} else if (pe->id != pe_id) {
		ret = -ESTALE;
	} else if (ms) {
		began = !pcierr_owner_held_locked(pe);
		if (!pe->hold_active)
			atomic_inc(&pcierr_hold_count);
		pe->hold_active = true;
		pe->hold_pe_id = pe_id;
		pe->hold_portid = portid;
		pe->hold_until = jiffies + msecs_to_jiffies(ms);
	} else {
		ended = pe->hold_active;
		pcierr_hold_end_locked(pe);
	}
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (began)
		pcierr_pe_info(pe, "held frozen on purpose by netlink socket %u: the owner timeout waits\n",
			       portid);
	if (ended) {
		pcierr_pe_info(pe, "hold ended by its holder\n");
		pcierr_owner_arm(pe, true);
	}
	return ret;
}

/* The holding socket closed (its holder died): its holds end. */
static int pcierr_owner_urelease(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct pcierr_pe *pe, **ended = NULL;
	unsigned int i, cnt = 0, max;
	unsigned long flags;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;
	max = atomic_read(&pcierr_hold_count);
	if (!max)
		return NOTIFY_DONE;
	/*
	 * Not under pcierr_topo_lock. A PE beyond @max (held meanwhile) or
	 * without the memory is not re-armed now: its owner timeout, set for
	 * the end of the lease, still comes.
	 */
	ended = kcalloc(max, sizeof(*ended), GFP_KERNEL);
	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry(pe, &pcierr_pes, node) {
		raw_spin_lock_irqsave(&pe->lock, flags);
		if (pe->hold_active && pe->hold_portid == n->portid) {
			pcierr_hold_end_locked(pe);
			if (ended && cnt < max) {
				pcierr_pe_get(pe);
				ended[cnt++] = pe;
			}
		}
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
	mutex_unlock(&pcierr_topo_lock);
	/* The owner timeout counts from now, as after any other act. */
	for (i = 0; i < cnt; i++) {
		pcierr_pe_info(ended[i], "hold ended: its holder's socket closed\n");
		pcierr_owner_arm(ended[i], true);
		pcierr_pe_put(ended[i]);
	}
	kfree(ended);
	return NOTIFY_DONE;
}

static struct notifier_block pcierr_owner_nb = {
	.notifier_call = pcierr_owner_urelease,
};

int pcierr_owner_init(void)
{
	return netlink_register_notifier(&pcierr_owner_nb);
}

void pcierr_owner_exit(void)
{
	netlink_unregister_notifier(&pcierr_owner_nb);
}

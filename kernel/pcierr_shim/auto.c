// SPDX-License-Identifier: GPL-2.0
/*
 * Pre-authorised automatic recovery (PCIERR_CMD_ARM, issue 12).
 *
 * The daemon arms a PE when its policy says that the next freeze would be
 * recovered by the callback path. The first FROZEN detection after the
 * ARM then starts the same RECOVER the daemon would have sent, without
 * the round trip through the daemon: the detection itself claims it,
 * under the PE's lock, and queues it beside the event work (which runs
 * on pcierr_wq), not after it, on a queue of its own: pcierr_recover_wq,
 * unbound, high priority, WQ_MEM_RECLAIM (main.c). The detection may be
 * atomic, so the operation
 * is allocated at ARM time and kept with the PE (pe->auto_op) until a
 * detection claims it or the PE goes.
 *
 * The operation applies the pending freeze itself before its first
 * callback (it may run before the event work does), and its OP_DONE waits
 * until its EVENT has been delivered (pcierr_event_wait_delivered()), so
 * that a listener never hears of the end of a recovery before its start.
 *
 * The arm belongs to the socket that sent ARM: a NETLINK_URELEASE of that
 * socket disarms (the daemon died or closed its context), and so does the
 * family going away (module unload, pcierr_auto_exit()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "internal.h"

/*
 * How many PEs have a budget: a hint that lets socket closes skip the
 * walk of the PEs when nobody armed anything. A PE that dies armed is
 * counted down too (pcierr_auto_drop_locked()).
 */
static atomic_t pcierr_auto_count = ATOMIC_INIT(0);

/*
 * Set by pcierr_auto_exit() before it disarms: genl_unregister_family()
 * waits only for doits already running, so an ARM racing the unload
 * must not arm a PE the disarm has passed. Read under each PE's lock,
 * which the disarm takes after setting it.
 */
static bool pcierr_auto_closed;

/* pe->lock held */
static void pcierr_auto_set(struct pcierr_pe *pe, u32 budget)
{
	lockdep_assert_held(&pe->lock);
	if (!pe->auto_budget && budget)
		atomic_inc(&pcierr_auto_count);
	else if (pe->auto_budget && !budget)
		atomic_dec(&pcierr_auto_count);
	pe->auto_budget = budget;
}

/* Does the arm still hold? (the ARMED flag of GET_PE) */
bool pcierr_auto_armed_locked(struct pcierr_pe *pe)
{
	lockdep_assert_held(&pe->lock);
	return pe->auto_budget && pe->auto_pe_id == pe->id &&
	       pe->auto_freeze_req == pe->freeze_req;
}

/*
 * Arm @pe (@budget 1) or disarm it (0) for the socket @portid, if @pe_id
 * is its id. Return: 0, -ESTALE, -ENODEV (the PE went away), -ENOMEM.
 */
int pcierr_auto_arm(struct pcierr_pe *pe, u64 pe_id, u32 budget,
		    u32 reset_type, u32 portid)
{
	struct pcierr_op *op = NULL, *old = NULL;
	unsigned long flags;
	int ret = 0;

	if (budget) {
		op = kzalloc(sizeof(*op), GFP_KERNEL);
		if (!op)
			return -ENOMEM;
	}
	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->dead || (budget && READ_ONCE(pcierr_auto_closed))) {
		ret = -ENODEV;
	} else if (pe->id != pe_id) {
		ret = -ESTALE;
	} else {
		pcierr_auto_set(pe, budget);
		pe->auto_reset_type = reset_type;
		pe->auto_portid = portid;
		pe->auto_pe_id = pe_id;
		pe->auto_freeze_req = pe->freeze_req;
		if (budget && !pe->auto_op)
			swap(pe->auto_op, op);
		else if (!budget)
			swap(pe->auto_op, old);
	}
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	kfree(op);
	kfree(old);
	return ret;
}

/*
 * The detection that just marked @pe frozen (pe->lock held, any context)
 * uses the arm: the RECOVER it starts, claimed (an id, the PE busy), or
 * NULL. The budget is used up either way: the arm is for the first
 * detection after it, this one or one before it. Nothing is started when
 * the PE is busy, disabled or not FROZEN, when @pe_id is not the armed
 * id, or when another detection came since the ARM.
 */
struct pcierr_op *pcierr_auto_claim_locked(struct pcierr_pe *pe, u64 pe_id)
{
	struct pcierr_op *op = pe->auto_op;

	lockdep_assert_held(&pe->lock);
	if (!pe->auto_budget || pe->auto_pe_id != pe_id)
		return NULL;
	pcierr_auto_set(pe, 0);
	if (!op || pe->auto_freeze_req + 1 != pe->freeze_req ||
	    pe->disabled || pe->state != PCIERR_PE_STATE_FROZEN ||
	    READ_ONCE(pcierr_exiting))
		return NULL;
	op->cmd = PCIERR_CMD_RECOVER;
	op->state = PCIERR_STATE_FROZEN;
	op->reset_type = pe->auto_reset_type;
	if (__pcierr_op_claim(pe, op, pe_id))
		return NULL;
	pe->auto_op = NULL;
	return op;
}

/* @pe goes away (pe->lock held): an arm left is counted down. */
void pcierr_auto_drop_locked(struct pcierr_pe *pe)
{
	lockdep_assert_held(&pe->lock);
	pcierr_auto_set(pe, 0);
}

/* Disarm every PE armed by @portid, or all of them (@all). */
static void pcierr_auto_disarm(u32 portid, bool all)
{
	struct pcierr_pe *pe;
	unsigned long flags;

	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry(pe, &pcierr_pes, node) {
		raw_spin_lock_irqsave(&pe->lock, flags);
		if (pe->auto_budget && (all || pe->auto_portid == portid))
			pcierr_auto_set(pe, 0);
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
	mutex_unlock(&pcierr_topo_lock);
}

/* The arming socket closed: its arms go. */
static int pcierr_auto_urelease(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net) || !atomic_read(&pcierr_auto_count))
		return NOTIFY_DONE;
	pcierr_auto_disarm(n->portid, false);
	return NOTIFY_DONE;
}

static struct notifier_block pcierr_auto_nb = {
	.notifier_call = pcierr_auto_urelease,
};

int pcierr_auto_init(void)
{
	return netlink_register_notifier(&pcierr_auto_nb);
}

/* The family goes (pcierr_nl_exit()): no claim after this returns. */
void pcierr_auto_exit(void)
{
	WRITE_ONCE(pcierr_auto_closed, true);
	netlink_unregister_notifier(&pcierr_auto_nb);
	pcierr_auto_disarm(0, true);
}

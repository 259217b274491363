// SPDX-License-Identifier: GPL-2.0
/*
 * Pre-authorised automatic recovery (PCIERR_CMD_ARM, issue 12).
 *
 * The daemon arms a PE when its policy says that the next freeze would be
 * recovered by the callback path. The first FROZEN detection after the
 * ARM then starts the same RECOVER the daemon would have sent, without
 * the round trip through the daemon: the event work claims it before it
 * multicasts the EVENT (which names the operation) and queues it after.
 * Nothing here runs in the detection path itself (which may be atomic):
 * pcierr_auto_prepare() and pcierr_auto_claim() run in the event work.
 *
 * The arm belongs to the socket that sent ARM: a NETLINK_URELEASE of that
 * socket disarms (the daemon died or closed its context). Module unload
 * needs nothing: no claim after pcierr_nl_exit() (netlink.c), and the
 * arms go with the PEs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "internal.h"

/*
 * How many PEs have a budget: a hint that lets events and socket closes
 * skip the PE lookup when nobody armed anything. Exact but for PEs freed
 * while armed (never counted down: only a slower path).
 */
static atomic_t pcierr_auto_count = ATOMIC_INIT(0);

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
 * is its id. Return: 0, -ESTALE, -ENODEV (the PE went away).
 */
int pcierr_auto_arm(struct pcierr_pe *pe, u64 pe_id, u32 budget,
		    u32 reset_type, u32 portid)
{
	unsigned long flags;
	int ret = 0;

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->dead) {
		ret = -ENODEV;
	} else if (pe->id != pe_id) {
		ret = -ESTALE;
	} else {
		pcierr_auto_set(pe, budget);
		pe->auto_reset_type = reset_type;
		pe->auto_portid = portid;
		pe->auto_pe_id = pe_id;
		pe->auto_freeze_req = pe->freeze_req;
	}
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return ret;
}

/*
 * For the EVENT @ev (the event work, process context): a RECOVER ready to
 * be claimed if @ev's PE looks armed, else NULL. It holds a reference to
 * the PE; pcierr_auto_claim() or pcierr_auto_discard() next.
 */
struct pcierr_op *pcierr_auto_prepare(const struct pcierr_event_info *ev)
{
	struct pcierr_pe *pe;
	struct pcierr_op *op;
	unsigned long flags;
	bool armed;

	if (ev->state != pci_channel_io_frozen ||
	    !atomic_read(&pcierr_auto_count))
		return NULL;
	pe = pcierr_pe_lookup(ev->pe);
	if (!pe)
		return NULL;
	raw_spin_lock_irqsave(&pe->lock, flags);
	armed = pe->auto_budget && pe->auto_pe_id == ev->pe_id;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	op = armed ? kzalloc(sizeof(*op), GFP_KERNEL) : NULL;
	if (!op) {
		pcierr_pe_put(pe);
		return NULL;
	}
	op->cmd = PCIERR_CMD_RECOVER;
	op->state = PCIERR_STATE_FROZEN;
	op->pe = pe;
	return op;
}

void pcierr_auto_discard(struct pcierr_op *op)
{
	if (!op)
		return;
	pcierr_pe_put(op->pe);
	kfree(op);
}

/*
 * Use the arm of @op's PE for @ev: 0 and @op claimed (an id, the PE
 * busy; the caller sends the EVENT, then pcierr_op_start()), or an errno
 * (the caller discards @op). The budget is used up either way: the arm
 * is for the first detection after it, this one or one before it.
 */
int pcierr_auto_claim(struct pcierr_op *op, const struct pcierr_event_info *ev)
{
	struct pcierr_pe *pe = op->pe;
	unsigned long flags;
	int ret = -EAGAIN;

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->auto_budget && pe->auto_pe_id == ev->pe_id &&
	    pe->auto_freeze_req + 1 == pe->freeze_req && !pe->disabled &&
	    pe->state == PCIERR_PE_STATE_FROZEN &&
	    !READ_ONCE(pcierr_exiting)) {
		op->reset_type = pe->auto_reset_type;
		ret = __pcierr_op_claim(pe, op, ev->pe_id);
	}
	if (pe->auto_budget && pe->auto_pe_id == ev->pe_id)
		pcierr_auto_set(pe, 0);
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (ret)
		return ret;
	/* the op's own reference; the lookup's goes */
	op->pe = NULL;
	pcierr_op_attach(pe, op);
	pcierr_pe_put(pe);
	return 0;
}

/* The arming socket closed: its arms go. */
static int pcierr_auto_urelease(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct pcierr_pe *pe;
	unsigned long flags;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net) || !atomic_read(&pcierr_auto_count))
		return NOTIFY_DONE;
	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry(pe, &pcierr_pes, node) {
		raw_spin_lock_irqsave(&pe->lock, flags);
		if (pe->auto_budget && pe->auto_portid == n->portid)
			pcierr_auto_set(pe, 0);
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
	mutex_unlock(&pcierr_topo_lock);
	return NOTIFY_DONE;
}

static struct notifier_block pcierr_auto_nb = {
	.notifier_call = pcierr_auto_urelease,
};

int pcierr_auto_init(void)
{
	return netlink_register_notifier(&pcierr_auto_nb);
}

void pcierr_auto_exit(void)
{
	netlink_unregister_notifier(&pcierr_auto_nb);
}

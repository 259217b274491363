// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr detection and event delivery.
 *
 * A detection (any context) bumps the device's error generation, marks its
 * PE frozen, asks for the hardware freeze and queues an event in a bounded
 * ring, with its sequence number assigned at once. One work item applies
 * the pending freezes and then delivers the queued events, in order, to
 * the in-kernel notifier chain and the netlink multicast group. A full
 * ring drops events (their sequence numbers stay used) and the drop is
 * announced by an OVERFLOW marker queued where the gap is. A detection on
 * an armed PE also starts its RECOVER (auto.c), whose OP_DONE waits until
 * the EVENT has been delivered or dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/notifier.h>
#include <linux/pm_runtime.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "internal.h"
#include "platform.h"

enum pcierr_ev_type {
	PCIERR_EV_EVENT,
	PCIERR_EV_OVERFLOW,
};

struct pcierr_ev {
	enum pcierr_ev_type type;
	u64 seq;		/* EVENT: its number; OVERFLOW: the next one */
	u64 dropped;		/* OVERFLOW */
	u64 ts;
	struct pci_dev *pdev;	/* EVENT: reference */
	char pe[PCIERR_ADDR_MAX];
	u64 pe_id;
	char dev[PCIERR_ADDR_MAX];
	pci_channel_state_t state;
	u32 time_unavail_ms;
	u32 source;
	u32 error_gen;
	u64 auto_op_id;		/* EVENT: the RECOVER it started, or 0 */
};

static DEFINE_RAW_SPINLOCK(pcierr_ev_lock);
static struct pcierr_ev *pcierr_ring;
static unsigned int pcierr_ring_size;
static unsigned int pcierr_ring_head;
static unsigned int pcierr_ring_count;
static u64 pcierr_next_seq = 1;
static u64 pcierr_delivered_seq;	/* every event up to it is out */
static DECLARE_WAIT_QUEUE_HEAD(pcierr_delivered_wq);
static LIST_HEAD(pcierr_freeze_list);

static BLOCKING_NOTIFIER_HEAD(pcierr_chain);

DEFINE_PER_CPU(struct pcierr_stats, pcierr_stats);

/*
 * A counter's value: the sum of its per-CPU parts. this_cpu_inc() is
 * safe against interrupts on its own CPU; a sum read while others count
 * is as good as any atomic read taken a moment earlier or later.
 */
/*
 * PCIERR_STAT_LOAD_ID: error generations restart with each load, so a
 * listener that keeps them across loads needs to tell the loads apart.
 * Random rather than a clock: a reboot must not repeat it. 63 bits, so that
 * userspace can keep it in a signed 64-bit column.
 */
static u64 pcierr_load_id;

u64 pcierr_stat_read(enum pcierr_stat s)
{
	u64 sum = 0;
	int cpu;

	if (s == PCIERR_STAT_LOAD_ID)
		return pcierr_load_id;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(pcierr_stats, cpu).v[s]);
	return sum;
}

static void pcierr_event_work_fn(struct work_struct *work);
static DECLARE_WORK(pcierr_event_work, pcierr_event_work_fn);

static struct pcierr_ev *pcierr_ring_slot(unsigned int i)
{
	return &pcierr_ring[(pcierr_ring_head + i) % pcierr_ring_size];
}

int pcierr_detect(struct pcierr_dev *dev, pci_channel_state_t state,
		  unsigned int time_unavail_ms, enum pcierr_source source,
		  u64 *seqp)
{
	/* A failing bridge takes down what is below it: the PE it heads. */
	struct pcierr_pe *pe = dev->headed ?: dev->pe;
	struct pcierr_op *op = NULL;
	struct pcierr_ev *ev, *tail;
	unsigned long flags;
	u64 seq, ts, pe_id;
	u32 gen;

	if (READ_ONCE(pcierr_exiting))
		return -ESHUTDOWN;

	ts = ktime_get_ns();
	gen = (u32)atomic_inc_return(&dev->error_gen);
	/*
	 * A perm_failure that names a time of unavailability may still be
	 * recovered once that time has passed (the daemon decides): until
	 * then the device is frozen. perm_failure itself is final.
	 */
	if (state == pci_channel_io_perm_failure && time_unavail_ms > 0)
		pcierr_set_io_state(dev->pdev, pci_channel_io_frozen);
	else
		pcierr_set_io_state(dev->pdev, state);

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->state != PCIERR_PE_STATE_REMOVED &&
	    pe->state != PCIERR_PE_STATE_DISABLED)
		pe->state = PCIERR_PE_STATE_FROZEN;
	pe->freeze_req++;
	pe->loop_checks = 0;
	pe_id = pe->id;
	if (state == pci_channel_io_frozen)
		op = pcierr_auto_claim_locked(pe, pe_id);
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	pcierr_stat_inc(PCIERR_STAT_FREEZES);

	raw_spin_lock_irqsave(&pcierr_ev_lock, flags);
	if (list_empty(&pe->freeze_node)) {
		pcierr_pe_get(pe);
		list_add_tail(&pe->freeze_node, &pcierr_freeze_list);
	}
	seq = pcierr_next_seq++;
	if (pcierr_ring_count < pcierr_ring_size - 1) {
		ev = pcierr_ring_slot(pcierr_ring_count++);
		ev->type = PCIERR_EV_EVENT;
		ev->seq = seq;
		ev->ts = ts;
		ev->pdev = pci_dev_get(dev->pdev);
		memcpy(ev->pe, pe->name, sizeof(ev->pe));
		ev->pe_id = pe_id;
		memcpy(ev->dev, dev->name, sizeof(ev->dev));
		ev->state = state;
		ev->time_unavail_ms = time_unavail_ms;
		ev->source = source;
		ev->error_gen = gen;
		ev->auto_op_id = op ? op->id : 0;
	} else {
		/* The last slot is kept for the overflow marker. */
		tail = pcierr_ring_count ?
		       pcierr_ring_slot(pcierr_ring_count - 1) : NULL;
		if (!tail || tail->type != PCIERR_EV_OVERFLOW) {
			tail = pcierr_ring_slot(pcierr_ring_count++);
			tail->type = PCIERR_EV_OVERFLOW;
			tail->dropped = 0;
			tail->pdev = NULL;
		}
		tail->dropped++;
		tail->seq = seq + 1;
		pcierr_stat_inc(PCIERR_STAT_EVENTS_DROPPED);
	}
	raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);

	queue_work(pcierr_wq, &pcierr_event_work);
	if (op) {
		/* Beside the event work, not behind it (auto.c) */
		op->event_seq = seq;
		pcierr_op_attach(pe, op);
		pcierr_op_start_armed(op);
	}
	if (seqp)
		*seqp = seq;
	return 0;
}

static bool pcierr_event_delivered(u64 seq)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&pcierr_ev_lock, flags);
	ret = pcierr_delivered_seq >= seq;
	raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);
	return ret;
}

/*
 * Wait until the event numbered @seq has been delivered (or dropped and
 * its OVERFLOW delivered): an operation it started says it is done only
 * after that. Process context.
 */
void pcierr_event_wait_delivered(u64 seq)
{
	wait_event(pcierr_delivered_wq, pcierr_event_delivered(seq));
}

static void pcierr_event_deliver(struct pcierr_ev *ev)
{
	struct pcierr_overflow_info ov;
	struct pcierr_event_info info;
	bool live = !READ_ONCE(pcierr_exiting);

	if (ev->type == PCIERR_EV_OVERFLOW) {
		ov.dropped = ev->dropped;
		ov.next_seq = ev->seq;
		if (live) {
			pcierr_nl_overflow(&ov);
			blocking_notifier_call_chain(&pcierr_chain,
						     PCIERR_NOTIFY_OVERFLOW,
						     &ov);
		}
		return;
	}

	info.pdev = ev->pdev;
	info.pe = ev->pe;
	info.pe_id = ev->pe_id;
	info.device = ev->dev;
	info.state = ev->state;
	info.time_unavail_ms = ev->time_unavail_ms;
	info.source = ev->source;
	info.seq = ev->seq;
	info.timestamp_ns = ev->ts;
	info.error_gen = ev->error_gen;
	info.auto_op_id = ev->auto_op_id;
	if (live) {
		pcierr_nl_event(&info);
		blocking_notifier_call_chain(&pcierr_chain, PCIERR_NOTIFY_EVENT,
					     &info);
		pcierr_stat_inc(PCIERR_STAT_EVENTS_SENT);
	}
	pci_dev_put(ev->pdev);
}

static void pcierr_event_work_fn(struct work_struct *work)
{
	/* Recoveries wait for this delivery: no I/O from its allocations. */
	unsigned int noio = memalloc_noio_save();
	struct pcierr_pe *pe;
	struct pcierr_ev ev;
	unsigned long flags;

	for (;;) {
		raw_spin_lock_irqsave(&pcierr_ev_lock, flags);
		/* Freezes first: an event means "the PE is frozen". */
		pe = list_first_entry_or_null(&pcierr_freeze_list,
					      struct pcierr_pe, freeze_node);
		if (pe) {
			list_del_init(&pe->freeze_node);
			raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);
			pcierr_pe_apply_freeze(pe, true);
			pcierr_owner_arm(pe, pcierr_nl_has_listeners());
			pcierr_pe_put(pe);
			continue;
		}
		if (!pcierr_ring_count) {
			raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);
			break;
		}
		ev = *pcierr_ring_slot(0);
		pcierr_ring_head = (pcierr_ring_head + 1) % pcierr_ring_size;
		pcierr_ring_count--;
		raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);

		pcierr_event_deliver(&ev);
		raw_spin_lock_irqsave(&pcierr_ev_lock, flags);
		pcierr_delivered_seq = ev.type == PCIERR_EV_EVENT ?
				       ev.seq : ev.seq - 1;
		raw_spin_unlock_irqrestore(&pcierr_ev_lock, flags);
		if (wq_has_sleeper(&pcierr_delivered_wq))
			wake_up_all(&pcierr_delivered_wq);
		cond_resched();
	}
	memalloc_noio_restore(noio);
}

int pcierr_event_init(void)
{
	pcierr_load_id = get_random_u64() >> 1 ?: 1;
	pcierr_ring_size = clamp(pcierr_event_queue_len, 2U, 65536U);
	/* 65536 entries are more than kmalloc gives (D20) */
	pcierr_ring = kvcalloc(pcierr_ring_size, sizeof(*pcierr_ring),
			       GFP_KERNEL);
	return pcierr_ring ? 0 : -ENOMEM;
}

void pcierr_event_exit(void)
{
	/* pcierr_exiting is set: the work only releases what is queued. */
	flush_work(&pcierr_event_work);
	pcierr_event_work_fn(NULL);
	kvfree(pcierr_ring);
	pcierr_ring = NULL;
}

/* The exported API (namespace PCIERR): see pcierr.h. */

/**
 * pcierr_report_failure() - report a detected failure of a device
 * @pdev: the device
 * @state: pci_channel_io_frozen or pci_channel_io_perm_failure
 * @time_unavail_ms: how long the device is expected to be unavailable
 * @source: who detected it (enum pcierr_source)
 *
 * Bumps the device's error generation, marks its PE frozen and queues an
 * event; the freeze itself is applied from process context before the
 * event is delivered. Any context, including hard interrupts.
 *
 * Return: 0; -EINVAL for a bad @state or @source; -ENODEV if pcierr does
 * not know @pdev; -ESHUTDOWN while the module unloads.
 */
int pcierr_report_failure(struct pci_dev *pdev, pci_channel_state_t state,
			  unsigned int time_unavail_ms,
			  enum pcierr_source source)
{
	struct pcierr_dev *dev;
	int ret;

	if (state != pci_channel_io_frozen &&
	    state != pci_channel_io_perm_failure)
		return -EINVAL;
	if (source <= PCIERR_SOURCE_UNSPEC || source > PCIERR_SOURCE_MAX)
		return -EINVAL;

	rcu_read_lock();
	dev = pcierr_dev_find_rcu(pdev);
	ret = dev ? pcierr_detect(dev, state, time_unavail_ms, source, NULL) :
		    -ENODEV;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(pcierr_report_failure, PCIERR);

static int pcierr_check(struct pci_dev *pdev)
{
	struct pcierr_dev *dev;
	unsigned long loop = 0;
	struct pcierr_pe *pe;
	unsigned long flags;
	bool frozen;
	int ret = 0;
	u32 id;

	pcierr_stat_inc(PCIERR_STAT_ALL_ONES);
	rcu_read_lock();
	dev = pcierr_dev_find_rcu(pdev);
	if (!dev)
		goto out;
	pe = dev->pe;

	raw_spin_lock_irqsave(&pe->lock, flags);
	frozen = pe->state != PCIERR_PE_STATE_NORMAL ||
		 pci_channel_offline(pdev);
	if (frozen)
		loop = ++pe->loop_checks;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	if (frozen) {
		pcierr_stat_inc(PCIERR_STAT_IGNORED);
		if (loop == PCIERR_LOOP_CHECKS)
			pci_warn(pdev, "pcierr: driver keeps reading its frozen device (%u all-ones reads since the freeze): a driver bug\n",
				 PCIERR_LOOP_CHECKS);
		ret = 1;
		goto out;
	}

	/* A sleeping device reads all ones: that is no failure (D10). */
	if (pm_runtime_suspended(&pdev->dev) ||
	    pdev->current_state == PCI_D3cold) {
		pcierr_stat_inc(PCIERR_STAT_FALSE_POSITIVES);
		goto out;
	}
	/* The platform confirms (pseries: the PE's reset state): platform.h */
	ret = pcierr_platform_check(dev);
	if (ret != -ENOTTY)
		goto out;
	ret = 0;
	/* Config space bypassing the disconnected check: is it there? */
	if (pci_bus_read_config_dword(pdev->bus, pdev->devfn,
				      pcierr_id_reg(pdev), &id) ||
	    id == ~0U || id == 0) {
		pcierr_detect(dev, pci_channel_io_frozen, 0,
			      PCIERR_SOURCE_CHECK, NULL);
		ret = 1;
	} else {
		pcierr_stat_inc(PCIERR_STAT_FALSE_POSITIVES);
	}
out:
	rcu_read_unlock();
	return ret;
}

/**
 * pcierr_check_failure() - check a device that returned all ones
 * @pdev: the device a read returned all ones from
 *
 * If the device's PE is already frozen the check is counted as ignored.
 * Otherwise the device's vendor/device id is read: all ones (or zero)
 * means it is unreachable and a failure is reported (source
 * PCIERR_SOURCE_CHECK); else the value was genuine (a false positive).
 * Any context.
 *
 * Return: 1 if the device is (now) frozen, 0 if it is healthy.
 */
int pcierr_check_failure(struct pci_dev *pdev)
{
	pcierr_stat_inc(PCIERR_STAT_CHECKS);
	return pcierr_check(pdev);
}
EXPORT_SYMBOL_NS_GPL(pcierr_check_failure, PCIERR);

/**
 * pcierr_check_value() - check a value read from a device
 * @pdev: the device
 * @val: a 32-bit value read from it
 *
 * Only an all-ones @val leads to pcierr_check_failure()'s check. Any
 * context.
 *
 * Return: as pcierr_check_failure(); 0 for any other value.
 */
int pcierr_check_value(struct pci_dev *pdev, u32 val)
{
	pcierr_stat_inc(PCIERR_STAT_CHECKS);
	if (val != ~0U)
		return 0;
	return pcierr_check(pdev);
}
EXPORT_SYMBOL_NS_GPL(pcierr_check_value, PCIERR);

/**
 * pcierr_register_notifier() - be told of events, as the netlink group is
 * @nb: the notifier; called in process context with PCIERR_NOTIFY_EVENT
 *      (struct pcierr_event_info *) or PCIERR_NOTIFY_OVERFLOW
 *      (struct pcierr_overflow_info *)
 *
 * Return: 0 or a negative errno.
 */
int pcierr_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&pcierr_chain, nb);
}
EXPORT_SYMBOL_NS_GPL(pcierr_register_notifier, PCIERR);

/**
 * pcierr_unregister_notifier() - undo pcierr_register_notifier()
 * @nb: the notifier
 *
 * Return: 0 or -ENOENT.
 */
int pcierr_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&pcierr_chain, nb);
}
EXPORT_SYMBOL_NS_GPL(pcierr_unregister_notifier, PCIERR);

/**
 * pcierr_error_gen() - a device's error generation
 * @pdev: the device
 *
 * The count of failures detected on @pdev, as netlink reports it.
 *
 * Return: the generation, 0 if pcierr does not know @pdev.
 */
u32 pcierr_error_gen(struct pci_dev *pdev)
{
	struct pcierr_dev *dev;
	u32 gen = 0;

	rcu_read_lock();
	dev = pcierr_dev_find_rcu(pdev);
	if (dev)
		gen = atomic_read(&dev->error_gen);
	rcu_read_unlock();
	return gen;
}
EXPORT_SYMBOL_NS_GPL(pcierr_error_gen, PCIERR);

/**
 * pcierr_iochk_clear() - start watching a device for errors
 * @cookie: filled in
 * @pdev: the device
 *
 * Any context. See pcierr_iochk_read().
 */
void pcierr_iochk_clear(struct pcierr_iochk_cookie *cookie,
			struct pci_dev *pdev)
{
	struct pcierr_dev *dev;

	cookie->pdev = pdev;
	rcu_read_lock();
	dev = pcierr_dev_find_rcu(pdev);
	cookie->valid = dev;
	cookie->error_gen = dev ? atomic_read(&dev->error_gen) : 0;
	rcu_read_unlock();
}
EXPORT_SYMBOL_NS_GPL(pcierr_iochk_clear, PCIERR);

/**
 * pcierr_iochk_read() - errors since pcierr_iochk_clear()
 * @cookie: as filled in by pcierr_iochk_clear()
 *
 * Any context.
 *
 * Return: non-zero if an error was detected on the device since
 * pcierr_iochk_clear() (its error generation moved), if the device is not
 * in the normal channel state, or if pcierr does not know it; else 0.
 */
int pcierr_iochk_read(struct pcierr_iochk_cookie *cookie)
{
	struct pcierr_dev *dev;
	int ret = 1;

	if (!cookie->valid)
		return 1;
	rcu_read_lock();
	dev = pcierr_dev_find_rcu(cookie->pdev);
	if (dev)
		ret = (u32)atomic_read(&dev->error_gen) != cookie->error_gen ||
		      pci_channel_offline(cookie->pdev);
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_NS_GPL(pcierr_iochk_read, PCIERR);

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr PE topology: every PCI device belongs to exactly one PE, the
 * secondary bus of a bridge or a lone device on a root bus. Discovered at
 * load, kept current by a PCI bus notifier (add, delete, bind, unbind).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/pm_runtime.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "internal.h"

/* The PE list, PE membership and cached device data (see internal.h). */
DEFINE_MUTEX(pcierr_topo_lock);
LIST_HEAD(pcierr_pes);
static DEFINE_HASHTABLE(pcierr_dev_hash, 8);
static atomic_t pcierr_topo_generation = ATOMIC_INIT(1);
/* PE ids: counted up from the boot time (ns) at load, so never reused */
static atomic64_t pcierr_pe_ids;

u32 pcierr_topo_gen(void)
{
	return atomic_read(&pcierr_topo_generation);
}

/* The generation is never 0: netlink dumps treat 0 as "not checked". */
static void pcierr_topo_changed(void)
{
	if (atomic_inc_return(&pcierr_topo_generation) == 0)
		atomic_inc(&pcierr_topo_generation);
}

/* A new identity: at creation and whenever a device joins or leaves. */
static void pcierr_pe_new_id(struct pcierr_pe *pe)
{
	u64 id = atomic64_inc_return(&pcierr_pe_ids);
	unsigned long flags;

	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->id = id;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
}

u64 pcierr_pe_id(struct pcierr_pe *pe)
{
	unsigned long flags;
	u64 id;

	raw_spin_lock_irqsave(&pe->lock, flags);
	id = pe->id;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return id;
}

static void pcierr_pe_release_work(struct work_struct *work)
{
	struct pcierr_pe *pe = container_of(work, struct pcierr_pe,
					    release_work);

	destroy_workqueue(pe->wq);
	pci_dev_put(pe->head);
	kfree(pe->auto_op);	/* an arm never claimed */
	kfree(pe);
}

static void pcierr_pe_release(struct kref *kref)
{
	struct pcierr_pe *pe = container_of(kref, struct pcierr_pe, kref);

	/* Never destroy the PE's work queue from one of its own works. */
	queue_work(pcierr_wq, &pe->release_work);
}

void pcierr_pe_get(struct pcierr_pe *pe)
{
	kref_get(&pe->kref);
}

void pcierr_pe_put(struct pcierr_pe *pe)
{
	if (pe)
		kref_put(&pe->kref, pcierr_pe_release);
}

static void pcierr_dev_free_work(struct work_struct *work)
{
	struct pcierr_dev *dev = container_of(to_rcu_work(work),
					      struct pcierr_dev, free_rwork);

	kfree(dev->healthy);
	kfree(dev->driver);
	pcierr_pe_put(dev->headed);
	pci_dev_put(dev->pdev);
	pcierr_pe_put(dev->pe);
	kfree(dev);
}

static void pcierr_dev_release(struct kref *kref)
{
	struct pcierr_dev *dev = container_of(kref, struct pcierr_dev, kref);

	/* Readers in atomic context may still see it until a grace period. */
	INIT_RCU_WORK(&dev->free_rwork, pcierr_dev_free_work);
	queue_rcu_work(pcierr_wq, &dev->free_rwork);
}

void pcierr_dev_put(struct pcierr_dev *dev)
{
	if (dev)
		kref_put(&dev->kref, pcierr_dev_release);
}

/* Caller holds rcu_read_lock() (or pcierr_topo_lock). */
struct pcierr_dev *pcierr_dev_find_rcu(struct pci_dev *pdev)
{
	struct pcierr_dev *dev;

	hash_for_each_possible_rcu(pcierr_dev_hash, dev, hnode,
				   (unsigned long)pdev,
				   lockdep_is_held(&pcierr_topo_lock))
		if (dev->pdev == pdev)
			return dev;
	return NULL;
}

static struct pcierr_pe *pcierr_pe_find_locked(const char *name)
{
	struct pcierr_pe *pe;

	list_for_each_entry(pe, &pcierr_pes, node)
		if (!strcmp(pe->name, name))
			return pe;
	return NULL;
}

struct pcierr_pe *pcierr_pe_lookup(const char *name)
{
	struct pcierr_pe *pe;

	mutex_lock(&pcierr_topo_lock);
	pe = pcierr_pe_find_locked(name);
	if (pe)
		pcierr_pe_get(pe);
	mutex_unlock(&pcierr_topo_lock);
	return pe;
}

struct pcierr_dev *pcierr_dev_lookup(const char *name)
{
	struct pcierr_dev *dev;
	struct pcierr_pe *pe;

	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry(pe, &pcierr_pes, node) {
		list_for_each_entry(dev, &pe->devs, pe_node) {
			if (!strcmp(dev->name, name)) {
				kref_get(&dev->kref);
				mutex_unlock(&pcierr_topo_lock);
				return dev;
			}
		}
	}
	mutex_unlock(&pcierr_topo_lock);
	return NULL;
}

static struct pcierr_pe *pcierr_pe_create_locked(const char *name,
						 bool root_single,
						 struct pci_dev *head)
{
	struct pcierr_pe *pe, *pos;

	pe = kzalloc(sizeof(*pe), GFP_KERNEL);
	if (!pe)
		return NULL;
	strscpy(pe->name, name, sizeof(pe->name));
	/* A recovery runs here: WQ_MEM_RECLAIM (main.c). */
	pe->wq = alloc_ordered_workqueue("pcierr/%s", WQ_MEM_RECLAIM, name);
	if (!pe->wq) {
		kfree(pe);
		return NULL;
	}
	kref_init(&pe->kref);		/* the list's reference */
	INIT_LIST_HEAD(&pe->devs);
	INIT_LIST_HEAD(&pe->freeze_node);
	INIT_DELAYED_WORK(&pe->watch_work, pcierr_watch_fn);
	INIT_WORK(&pe->release_work, pcierr_pe_release_work);
	mutex_init(&pe->freeze_lock);
	mutex_init(&pe->op_lock);
	INIT_DELAYED_WORK(&pe->owner_work, pcierr_owner_fn);
	raw_spin_lock_init(&pe->lock);
	pe->state = PCIERR_PE_STATE_NORMAL;
	pe->root_single = root_single;
	pe->domain = pci_domain_nr(head->bus);
	pe->busnr = head->bus->number;
	pe->devfn = head->devfn;
	pe->head = pci_dev_get(head);
	pcierr_pe_new_id(pe);

	/* Keep the list sorted by address: dumps come out in bus order. */
	list_for_each_entry(pos, &pcierr_pes, node)
		if (strcmp(pos->name, name) > 0)
			break;
	list_add_tail(&pe->node, &pos->node);
	pcierr_topo_changed();
	return pe;
}

/* The PE headed by @bridge (its secondary bus). */
static struct pcierr_pe *pcierr_pe_for_bridge_locked(struct pci_dev *bridge)
{
	struct pcierr_pe *pe = pcierr_pe_find_locked(pci_name(bridge));

	if (pe)
		return pe;
	return pcierr_pe_create_locked(pci_name(bridge), false, bridge);
}

/* The PE @pdev is a member of. */
static struct pcierr_pe *pcierr_pe_for_dev_locked(struct pci_dev *pdev)
{
	struct pcierr_pe *pe;
	unsigned long flags;

	/* A VF belongs with its PF: a reset of the PF takes it down too. */
	if (pdev->is_virtfn)
		pdev = pci_physfn(pdev);
	if (!pci_is_root_bus(pdev->bus))
		return pcierr_pe_for_bridge_locked(pdev->bus->self);
	/* On a root bus: a bridge is listed in the PE it heads. */
	if (pci_is_bridge(pdev))
		return pcierr_pe_for_bridge_locked(pdev);

	pe = pcierr_pe_find_locked(pci_name(pdev));
	if (!pe)
		return pcierr_pe_create_locked(pci_name(pdev), true, pdev);
	/* A lone device coming back to its remembered PE. */
	if (!pe->head) {
		pe->head = pci_dev_get(pdev);
		raw_spin_lock_irqsave(&pe->lock, flags);
		if (pe->state == PCIERR_PE_STATE_REMOVED)
			pe->state = PCIERR_PE_STATE_NORMAL;
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
	return pe;
}

static void pcierr_dev_set_driver_locked(struct pcierr_dev *dev,
					 struct device_driver *drv)
{
	kfree(dev->driver);
	dev->driver = drv ? kstrdup(drv->name, GFP_KERNEL) : NULL;
	dev->drv = drv ? to_pci_driver(drv) : NULL;
}

/*
 * Which recovery callbacks the bound driver has now (a driver may change
 * its err_handler at run time). Caller holds pcierr_topo_lock: dev->drv is
 * cleared under it before the driver is unbound, so the driver (and its
 * err_handler) cannot go away under us.
 */
u32 pcierr_dev_handlers(struct pcierr_dev *dev)
{
	const struct pci_error_handlers *eh;
	u32 h = 0;

	lockdep_assert_held(&pcierr_topo_lock);
	if (!dev->drv)
		return 0;
	eh = READ_ONCE(dev->drv->err_handler);
	if (!eh)
		return 0;
	if (eh->error_detected)
		h |= BIT(PCIERR_HANDLER_ERROR_DETECTED);
	if (eh->mmio_enabled)
		h |= BIT(PCIERR_HANDLER_MMIO_ENABLED);
	if (eh->slot_reset)
		h |= BIT(PCIERR_HANDLER_SLOT_RESET);
	if (eh->resume)
		h |= BIT(PCIERR_HANDLER_RESUME);
	if (eh->reset_prepare)
		h |= BIT(PCIERR_HANDLER_RESET_PREPARE);
	if (eh->reset_done)
		h |= BIT(PCIERR_HANDLER_RESET_DONE);
	return h;
}

static void pcierr_dev_insert_locked(struct pcierr_pe *pe,
				     struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct pcierr_dev *pos;

	/* Bus order: by bus number, then devfn. */
	list_for_each_entry(pos, &pe->devs, pe_node) {
		if (pos->pdev->bus->number > pdev->bus->number ||
		    (pos->pdev->bus->number == pdev->bus->number &&
		     pos->pdev->devfn > pdev->devfn))
			break;
	}
	list_add_tail(&dev->pe_node, &pos->pe_node);
}

static struct pcierr_dev *pcierr_dev_add_locked(struct pci_dev *pdev,
						bool *keep_away)
{
	struct pcierr_pe *pe, *headed;
	struct pcierr_dev *dev;
	unsigned long flags;

	*keep_away = false;
	dev = pcierr_dev_find_rcu(pdev);
	if (dev)
		return dev;

	pe = pcierr_pe_for_dev_locked(pdev);
	if (!pe)
		return NULL;
	/* A bridge below a root bus heads a PE of its own, even empty. */
	headed = NULL;
	if (pci_is_bridge(pdev) && !pci_is_root_bus(pdev->bus)) {
		headed = pcierr_pe_for_bridge_locked(pdev);
		if (!headed)
			return NULL;
	}
	/* Devices back in a PE someone removed, by whatever path (D12). */
	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->state == PCIERR_PE_STATE_REMOVED)
		pe->state = PCIERR_PE_STATE_NORMAL;
	pe->unplugged = false;
	raw_spin_unlock_irqrestore(&pe->lock, flags);

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	if (headed) {
		pcierr_pe_get(headed);
		dev->headed = headed;
	}
	kref_init(&dev->kref);		/* the hash's and list's reference */
	mutex_init(&dev->state_lock);
	atomic_set(&dev->error_gen, 0);
	dev->pdev = pci_dev_get(pdev);
	pcierr_pe_get(pe);
	dev->pe = pe;
	strscpy(dev->name, pci_name(pdev), sizeof(dev->name));
	dev->dsn = pci_get_dsn(pdev);

	pcierr_dev_insert_locked(pe, dev);
	pcierr_pe_new_id(pe);
	hash_add_rcu(pcierr_dev_hash, &dev->hnode, (unsigned long)pdev);
	pcierr_topo_changed();

	raw_spin_lock_irqsave(&pe->lock, flags);
	*keep_away = pe->disabled;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return dev;
}

/* Unlink a PE; the caller then calls pcierr_pe_kill() unlocked. */
static void pcierr_pe_unlink_locked(struct pcierr_pe *pe)
{
	struct pcierr_dev *dev, *tmp;
	unsigned long flags;

	list_for_each_entry_safe(dev, tmp, &pe->devs, pe_node) {
		WRITE_ONCE(dev->removed, true);
		list_del_init(&dev->pe_node);
		hash_del_rcu(&dev->hnode);
		pcierr_rpm_put(dev);	/* a frozen device at unload */
		pcierr_dev_put(dev);
	}
	list_del_init(&pe->node);
	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->dead = true;
	pe->watch_ms = 0;
	pcierr_auto_drop_locked(pe);
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	pcierr_topo_changed();
}

static void pcierr_pe_kill(struct pcierr_pe *pe)
{
	cancel_delayed_work_sync(&pe->watch_work);
	cancel_delayed_work_sync(&pe->owner_work);
	pcierr_pe_put(pe);		/* the list's reference */
}

/*
 * Whether a bridge's PE has no device left below its bridge (the bridge
 * listed in its own PE does not count). Caller holds pcierr_topo_lock.
 */
static bool pcierr_pe_empty_locked(struct pcierr_pe *pe)
{
	struct pcierr_dev *dev;

	list_for_each_entry(dev, &pe->devs, pe_node)
		if (pe->root_single || dev->pdev != pe->head)
			return false;
	return true;
}

/*
 * The last device of a frozen PE went away (pciehp, a surprise removal):
 * nothing is frozen any more, the PE is REMOVED as after a REMOVE, and a
 * device added later makes it NORMAL with a new id (pcierr_dev_add_locked)
 * instead of joining a frozen PE. An operation in flight (a RESET that
 * ran as the card went) does not stamp a frozen state over it
 * (pcierr_pe_set_state_if()); the next explicit state (REMOVE, DISABLE,
 * ...) or device clears that. Caller holds pcierr_topo_lock.
 */
static void pcierr_pe_emptied_locked(struct pcierr_pe *pe)
{
	enum pcierr_pe_state old;
	unsigned long flags;
	bool thawed = false;

	if (pe->root_single || !pcierr_pe_empty_locked(pe))
		return;
	raw_spin_lock_irqsave(&pe->lock, flags);
	old = pe->state;
	if (old == PCIERR_PE_STATE_FROZEN ||
	    old == PCIERR_PE_STATE_MMIO_ENABLED ||
	    old == PCIERR_PE_STATE_RESET) {
		pe->state = PCIERR_PE_STATE_REMOVED;
		pe->freeze_done = pe->freeze_req;	/* nothing to freeze */
		pe->unplugged = true;
		thawed = true;
	}
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (thawed && pe->head)
		pci_info(pe->head, "pcierr: every device of the frozen PE is gone: PE removed\n");
}

/* Returns a PE headed by the removed bridge, to kill once unlocked. */
static struct pcierr_pe *pcierr_dev_del_locked(struct pci_dev *pdev)
{
	struct pcierr_pe *pe, *headed = NULL;
	struct pcierr_dev *dev;
	unsigned long flags;

	dev = pcierr_dev_find_rcu(pdev);
	if (!dev)
		return NULL;
	pe = dev->pe;
	WRITE_ONCE(dev->removed, true);
	list_del_init(&dev->pe_node);
	hash_del_rcu(&dev->hnode);
	pcierr_rpm_put(dev);
	pcierr_pe_new_id(pe);

	if (pe->root_single && pe->head == pdev) {
		/* Remembered: REMOVE, DISABLE and RESCAN still name it. */
		pci_dev_put(pe->head);
		pe->head = NULL;
		raw_spin_lock_irqsave(&pe->lock, flags);
		if (pe->state != PCIERR_PE_STATE_DISABLED)
			pe->state = PCIERR_PE_STATE_REMOVED;
		raw_spin_unlock_irqrestore(&pe->lock, flags);
	}
	if (pci_is_bridge(dev->pdev)) {
		headed = pcierr_pe_find_locked(dev->name);
		if (headed && (headed->root_single || headed->head != pdev))
			headed = NULL;
		if (headed)
			pcierr_pe_unlink_locked(headed);
	}
	pcierr_pe_emptied_locked(pe);
	pcierr_topo_changed();
	pcierr_dev_put(dev);
	return headed;
}

/*
 * The healthy snapshot: the config space of a device that works, in D0,
 * not frozen, kept in our own buffer. The PM core's (or the driver's)
 * saved state in the pci_dev is put back as it was, flag included.
 * Caller holds dev->state_lock and keeps the device from runtime
 * suspending (a runtime-PM reference, or runtime PM disabled).
 */
static void __pcierr_save_healthy(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct pci_saved_state *prev, *st;
	bool was;

	if (READ_ONCE(dev->removed) || dev->hw_frozen ||
	    READ_ONCE(pdev->error_state) != pci_channel_io_normal ||
	    pdev->current_state != PCI_D0)
		return;
	was = pdev->state_saved;
	prev = pci_store_saved_state(pdev);
	if (was && !prev)
		return;		/* out of memory: leave theirs alone */
	pci_save_state(pdev);
	/* A device that did not answer is no healthy config space. */
	st = pdev->saved_config_space[pcierr_id_reg(pdev) / 4] != ~0U ?
	     pci_store_saved_state(pdev) : NULL;
	pci_load_saved_state(pdev, prev);
	pdev->state_saved = was;
	kfree(prev);
	if (st) {
		kfree(dev->healthy);
		dev->healthy = st;
	}
}

/*
 * The snapshot of a runtime-suspended device, which is not woken up for
 * it (D1, D10): the PCI core saved its config space as it suspended it
 * (pci_pm_runtime_suspend(): in D0, working, what its runtime resume
 * restores), so that saved state is copied. Our usage count keeps it from
 * suspending again (a suspend is the only writer of that state besides
 * its driver); pm_runtime_barrier() waits for a transition in flight (and
 * carries out a resume somebody else requested); a resume only reads that
 * state. A device not suspended then, or without a saved state, gets no
 * snapshot here.
 */
static void pcierr_save_suspended(struct pcierr_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	struct device *d = &pdev->dev;
	struct pci_saved_state *st = NULL;
	bool suspended;

	pm_runtime_get_noresume(d);
	/* under the PM lock: a suspend after it sees our count */
	pm_runtime_barrier(d);
	suspended = pm_runtime_status_suspended(d);
	mutex_lock(&dev->state_lock);
	if (suspended && pdev->state_saved && !READ_ONCE(dev->removed) &&
	    !dev->hw_frozen &&
	    READ_ONCE(pdev->error_state) == pci_channel_io_normal &&
	    pdev->saved_config_space[pcierr_id_reg(pdev) / 4] != ~0U)
		st = pci_store_saved_state(pdev);
	if (st) {
		kfree(dev->healthy);
		dev->healthy = st;
	}
	mutex_unlock(&dev->state_lock);
	pm_runtime_put(d);
	if (st)
		pci_info(pdev, "pcierr: runtime suspended: healthy snapshot taken from the state saved at its suspend\n");
}

/* Snapshot @dev if it is healthy; never wakes it up. */
void pcierr_save_healthy(struct pcierr_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	int rpm;

	/* 0: suspended; < 0: runtime PM off, it stays as it is */
	rpm = pcierr_rpm_get_if_active(d);
	if (!rpm) {
		pcierr_save_suspended(dev);
		return;
	}
	mutex_lock(&dev->state_lock);
	__pcierr_save_healthy(dev);
	mutex_unlock(&dev->state_lock);
	if (rpm > 0)
		pm_runtime_put(d);
}

/* Drop the runtime-PM reference the freeze took, if any. */
void pcierr_rpm_put(struct pcierr_dev *dev)
{
	bool held;

	mutex_lock(&dev->state_lock);
	held = dev->rpm_held;
	dev->rpm_held = false;
	mutex_unlock(&dev->state_lock);
	if (held)
		pm_runtime_put(&dev->pdev->dev);
}

/* After RESCAN or ENABLE: snapshot what came back (under device_lock). */
void pcierr_save_healthy_pe(struct pcierr_pe *pe)
{
	struct pcierr_dev **devs;
	int i, n;

	n = pcierr_pe_snapshot(pe, false, &devs);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		device_lock(&devs[i]->pdev->dev);
		pcierr_save_healthy(devs[i]);
		device_unlock(&devs[i]->pdev->dev);
	}
	pcierr_snapshot_put(devs, n);
}

static int pcierr_bus_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	struct pcierr_pe *dead = NULL;
	struct pcierr_dev *dev;
	bool keep_away = false;

	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
		mutex_lock(&pcierr_topo_lock);
		dev = pcierr_dev_add_locked(pdev, &keep_away);
		if (dev && keep_away)
			kref_get(&dev->kref);
		mutex_unlock(&pcierr_topo_lock);
		if (dev && keep_away) {
			pcierr_keep_away(dev);
			pcierr_dev_put(dev);
		}
		break;
	case BUS_NOTIFY_DEL_DEVICE:
		mutex_lock(&pcierr_topo_lock);
		dead = pcierr_dev_del_locked(pdev);
		mutex_unlock(&pcierr_topo_lock);
		if (dead)
			pcierr_pe_kill(dead);
		break;
	case BUS_NOTIFY_BOUND_DRIVER:
		mutex_lock(&pcierr_topo_lock);
		dev = pcierr_dev_add_locked(pdev, &keep_away);
		if (dev) {
			pcierr_dev_set_driver_locked(dev, pdev->dev.driver);
			kref_get(&dev->kref);
			pcierr_topo_changed();
		}
		mutex_unlock(&pcierr_topo_lock);
		/* The device's own state decides (D2), not the PE's. */
		if (dev) {
			pcierr_save_healthy(dev);
			pcierr_dev_put(dev);
		}
		break;
	case BUS_NOTIFY_UNBIND_DRIVER:
	case BUS_NOTIFY_UNBOUND_DRIVER:
	case BUS_NOTIFY_DRIVER_NOT_BOUND:
		mutex_lock(&pcierr_topo_lock);
		dev = pcierr_dev_find_rcu(pdev);
		if (dev) {
			pcierr_dev_set_driver_locked(dev, NULL);
			pcierr_topo_changed();
		}
		mutex_unlock(&pcierr_topo_lock);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block pcierr_bus_nb = {
	.notifier_call = pcierr_bus_notify,
};

/* The PE headed by bridge @dev, if it is one (not @pe itself). */
static struct pcierr_pe *pcierr_headed_locked(struct pcierr_pe *pe,
					      struct pcierr_dev *dev)
{
	if (!pci_is_bridge(dev->pdev) || dev->pdev == pe->head)
		return NULL;
	return dev->headed;
}

#define PCIERR_MAX_DEPTH	64

/*
 * The PE's subtree, in bus order with each bridge before what sits below
 * it: the PE's own devices and, for each bridge among them, the PE it
 * heads, and so on down (D4). A root port listed in its own PE is not
 * part of the subtree. Caller holds pcierr_topo_lock.
 */
static unsigned int pcierr_subtree_locked(struct pcierr_pe *pe,
					  bool skip_bridges,
					  struct pcierr_dev **devs,
					  unsigned int max, unsigned int depth)
{
	struct pcierr_pe *below;
	struct pcierr_dev *dev;
	unsigned int n = 0;

	if (depth > PCIERR_MAX_DEPTH)
		return 0;
	list_for_each_entry(dev, &pe->devs, pe_node) {
		if (dev->pdev == pe->head && !pe->root_single)
			continue;
		if (!skip_bridges || !pci_is_bridge(dev->pdev)) {
			if (devs && n < max) {
				kref_get(&dev->kref);
				devs[n] = dev;
			}
			n++;
		}
		below = pcierr_headed_locked(pe, dev);
		if (below)
			n += pcierr_subtree_locked(below, skip_bridges,
						   devs ? devs + min(n, max) :
						   NULL,
						   max - min(n, max),
						   depth + 1);
	}
	return n;
}

/*
 * Every device of the PE's subtree, referenced (pcierr_snapshot_put()).
 * With @skip_bridges only the endpoints. Returns how many, or -ENOMEM.
 */
int pcierr_pe_snapshot(struct pcierr_pe *pe, bool skip_bridges,
		       struct pcierr_dev ***out)
{
	struct pcierr_dev **devs;
	unsigned int n;

	mutex_lock(&pcierr_topo_lock);
	n = pcierr_subtree_locked(pe, skip_bridges, NULL, 0, 0);
	devs = kmalloc_array(n ? n : 1, sizeof(*devs), GFP_KERNEL);
	if (!devs) {
		mutex_unlock(&pcierr_topo_lock);
		return -ENOMEM;
	}
	n = min(n, pcierr_subtree_locked(pe, skip_bridges, devs, n, 0));
	mutex_unlock(&pcierr_topo_lock);
	*out = devs;
	return n;
}

/*
 * The PE at the top of @pe's hierarchy (headed by a device on a root
 * bus), referenced. Operations hold its op_lock (D30).
 */
struct pcierr_pe *pcierr_pe_top(struct pcierr_pe *pe)
{
	struct pcierr_pe *top = pe, *up;
	struct pcierr_dev *dev;
	struct pci_dev *head;
	int depth = 0;

	mutex_lock(&pcierr_topo_lock);
	while (!top->root_single && depth++ < PCIERR_MAX_DEPTH) {
		head = top->head;
		if (!head || pci_is_root_bus(head->bus))
			break;
		dev = pcierr_dev_find_rcu(head);
		up = dev ? dev->pe : NULL;
		if (!up || up == top)
			break;
		top = up;
	}
	pcierr_pe_get(top);
	mutex_unlock(&pcierr_topo_lock);
	return top;
}

void pcierr_snapshot_put(struct pcierr_dev **devs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pcierr_dev_put(devs[i]);
	kfree(devs);
}

/* Caller holds pcierr_topo_lock. */
u32 pcierr_pe_reset_types(struct pcierr_pe *pe)
{
	struct pci_dev *head = pe->head;

	if (!head)
		return 0;
	/* Any method the core has: FLR, AF FLR, PM D3hot->D0, ... */
	if (pe->root_single)
		return head->reset_methods[0] ? BIT(PCIERR_RESET_HOT) : 0;
	if (head->dev_flags & PCI_DEV_FLAGS_NO_BUS_RESET)
		return 0;
	return BIT(PCIERR_RESET_HOT);
}

u32 pcierr_pe_flags(struct pcierr_pe *pe)
{
	unsigned long flags;
	u32 f = 0;

	raw_spin_lock_irqsave(&pe->lock, flags);
	if (pe->busy)
		f |= PCIERR_PE_F_BUSY;
	if (pe->disabled)
		f |= PCIERR_PE_F_DISABLED;
	if (pcierr_auto_armed_locked(pe))
		f |= PCIERR_PE_F_ARMED;
	if (pcierr_owner_held_locked(pe))
		f |= PCIERR_PE_F_HELD;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	if (pe->root_single)
		f |= PCIERR_PE_F_ROOT_BUS;
	return f;
}

enum pcierr_pe_state pcierr_pe_get_state(struct pcierr_pe *pe)
{
	enum pcierr_pe_state state;
	unsigned long flags;

	raw_spin_lock_irqsave(&pe->lock, flags);
	state = pe->state;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return state;
}

void pcierr_pe_set_state(struct pcierr_pe *pe, enum pcierr_pe_state state)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pe->lock, flags);
	pe->state = state;
	pe->unplugged = false;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
}

/*
 * Set the state an operation leads to, unless a detection came in since
 * @freeze_req was sampled (D11): then the PE stays (or is again) frozen.
 * Returns whether the state was set. A PE emptied while frozen stays
 * REMOVED unless @state is NORMAL (true is returned: nothing to refreeze).
 */
bool pcierr_pe_set_state_if(struct pcierr_pe *pe, enum pcierr_pe_state state,
			    unsigned long freeze_req)
{
	unsigned long flags;
	bool set;

	raw_spin_lock_irqsave(&pe->lock, flags);
	/* Emptied while frozen: nothing left to be frozen or reset. */
	if (pe->unplugged && state != PCIERR_PE_STATE_NORMAL) {
		raw_spin_unlock_irqrestore(&pe->lock, flags);
		return true;
	}
	pe->unplugged = false;
	set = pe->freeze_req == freeze_req;
	if (set)
		pe->state = state;
	else if (pe->state != PCIERR_PE_STATE_DISABLED &&
		 pe->state != PCIERR_PE_STATE_REMOVED)
		pe->state = PCIERR_PE_STATE_FROZEN;
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	return set;
}

/* An operation starts: sample the freezes, serialise with the family. */
void pcierr_pe_op_begin(struct pcierr_op *op)
{
	struct pcierr_pe *pe = op->pe;
	unsigned long flags;

	op->top = pcierr_pe_top(pe);
	mutex_lock(&op->top->op_lock);
	raw_spin_lock_irqsave(&pe->lock, flags);
	op->freeze_req = pe->freeze_req;
	pe->owner_stamp = jiffies;	/* somebody acts */
	raw_spin_unlock_irqrestore(&pe->lock, flags);
	cancel_delayed_work(&pe->owner_work);
}

void pcierr_pe_op_end(struct pcierr_op *op)
{
	mutex_unlock(&op->top->op_lock);
	pcierr_pe_put(op->top);
	op->top = NULL;
	/* Someone acts: the owner timeout counts from now. */
	pcierr_owner_arm(op->pe, true);
}

int pcierr_pe_init(void)
{
	struct pci_dev *pdev = NULL;
	struct pcierr_dev *dev;
	bool keep_away;
	int ret;

	atomic64_set(&pcierr_pe_ids, ktime_get_boottime_ns());
	ret = bus_register_notifier(&pci_bus_type, &pcierr_bus_nb);
	if (ret)
		return ret;

	pci_lock_rescan_remove();
	for_each_pci_dev(pdev) {
		device_lock(&pdev->dev);
		mutex_lock(&pcierr_topo_lock);
		dev = pcierr_dev_add_locked(pdev, &keep_away);
		if (dev) {
			pcierr_dev_set_driver_locked(dev, pdev->dev.driver);
			kref_get(&dev->kref);
		}
		mutex_unlock(&pcierr_topo_lock);
		device_unlock(&pdev->dev);
		if (!dev) {
			pci_warn(pdev, "pcierr: cannot track device\n");
			continue;
		}
		pcierr_save_healthy(dev);
		pcierr_dev_put(dev);
	}
	pci_unlock_rescan_remove();
	return 0;
}

/* The PE's head (bridge or lone device), referenced; NULL if gone. */
struct pci_dev *pcierr_pe_head(struct pcierr_pe *pe)
{
	struct pci_dev *head;

	mutex_lock(&pcierr_topo_lock);
	head = pci_dev_get(pe->head);
	mutex_unlock(&pcierr_topo_lock);
	return head;
}

/* A recovery step, logged on the PE's bridge as err.c logs its own. */
void pcierr_pe_info(struct pcierr_pe *pe, const char *fmt, ...)
{
	struct pci_dev *head = pcierr_pe_head(pe);
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (head)
		pci_info(head, "pcierr: %pV", &vaf);
	else
		pr_info("PE %s: %pV", pe->name, &vaf);
	va_end(args);
	pci_dev_put(head);
}

/* The first PE (in address order) after @after, referenced; NULL at end. */
static struct pcierr_pe *pcierr_pe_next(const char *after)
{
	struct pcierr_pe *pe;

	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry(pe, &pcierr_pes, node) {
		if (strcmp(pe->name, after) > 0) {
			pcierr_pe_get(pe);
			mutex_unlock(&pcierr_topo_lock);
			return pe;
		}
	}
	mutex_unlock(&pcierr_topo_lock);
	return NULL;
}

/* Stop watchdogs and let every PE's operations finish. */
void pcierr_pe_quiesce(void)
{
	char last[PCIERR_ADDR_MAX] = "";
	struct pcierr_pe *pe;
	unsigned long flags;

	while ((pe = pcierr_pe_next(last))) {
		strscpy(last, pe->name, sizeof(last));
		raw_spin_lock_irqsave(&pe->lock, flags);
		pe->watch_ms = 0;
		raw_spin_unlock_irqrestore(&pe->lock, flags);
		cancel_delayed_work_sync(&pe->watch_work);
		cancel_delayed_work_sync(&pe->owner_work);
		flush_workqueue(pe->wq);
		pcierr_pe_put(pe);
	}
	flush_workqueue(pcierr_hotplug_wq);	/* those that add or delete devices */
}

/*
 * Module unload: a freeze the shim applied is not left behind by a module
 * that no longer exists, nor a device whose recovery the unload cut left
 * with a frozen channel. Every device still frozen gets its decode, bus
 * mastering (if its driver still wants it), INTx and MSI-X back as the
 * freeze found them, and its channel state normal; its PE is normal. No
 * driver is called: the recovery is not finished, a daemon that resyncs
 * with the next shim finds a working PE. Called once the operations have
 * finished and the pending freezes are applied, with the bus notifier
 * still on, under the rescan lock so that no device goes away meanwhile.
 */
void pcierr_pe_thaw_all(void)
{
	char last[PCIERR_ADDR_MAX] = "";
	struct pcierr_dev **devs;
	struct pcierr_pe *pe;
	enum pcierr_pe_state st;
	struct pci_dev *pdev;
	unsigned long flags;
	int i, n, thawed;
	bool frozen;

	pci_lock_rescan_remove();
	while ((pe = pcierr_pe_next(last))) {
		strscpy(last, pe->name, sizeof(last));
		mutex_lock(&pe->freeze_lock);
		n = pcierr_pe_snapshot(pe, true, &devs);
		thawed = 0;
		for (i = 0; i < n; i++) {
			pdev = devs[i]->pdev;
			if (READ_ONCE(devs[i]->removed))
				continue;
			mutex_lock(&devs[i]->state_lock);
			frozen = devs[i]->hw_frozen;
			mutex_unlock(&devs[i]->state_lock);
			if (frozen)
				pcierr_unfreeze_dev(devs[i], true);
			if (READ_ONCE(pdev->error_state) ==
			    pci_channel_io_frozen)
				frozen = true;
			pcierr_set_io_state(pdev, pci_channel_io_normal);
			if (frozen)
				thawed++;
		}
		if (n > 0)
			pcierr_snapshot_put(devs, n);
		raw_spin_lock_irqsave(&pe->lock, flags);
		st = pe->state;
		if (st == PCIERR_PE_STATE_FROZEN ||
		    st == PCIERR_PE_STATE_MMIO_ENABLED ||
		    st == PCIERR_PE_STATE_RESET)
			pe->state = PCIERR_PE_STATE_NORMAL;
		pe->freeze_done = pe->freeze_req;
		raw_spin_unlock_irqrestore(&pe->lock, flags);
		mutex_unlock(&pe->freeze_lock);
		if (thawed)
			pcierr_pe_info(pe, "module unload: freeze of %d devices lifted, recovery not finished\n",
				       thawed);
		pcierr_pe_put(pe);
	}
	pci_unlock_rescan_remove();
}

void pcierr_pe_exit(void)
{
	struct pcierr_pe *pe, *tmp;
	LIST_HEAD(dead);

	bus_unregister_notifier(&pci_bus_type, &pcierr_bus_nb);
	/* Pending keep-away removals and events. */
	flush_workqueue(pcierr_hotplug_wq);
	flush_workqueue(pcierr_wq);

	mutex_lock(&pcierr_topo_lock);
	list_for_each_entry_safe(pe, tmp, &pcierr_pes, node) {
		pcierr_pe_unlink_locked(pe);
		list_add_tail(&pe->node, &dead);
	}
	mutex_unlock(&pcierr_topo_lock);

	list_for_each_entry_safe(pe, tmp, &dead, node) {
		list_del_init(&pe->node);
		pcierr_pe_kill(pe);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr_shim: PCI error recovery, the kernel half. It detects and
 * contains PCI errors (a software freeze on x86) and carries out recovery
 * steps on command over generic netlink. It decides on its own only when
 * nobody else does: a PE left frozen for owner_timeout_ms with no
 * operation on it and not held is recovered as the kernel's AER recovery
 * would (owner.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "internal.h"
#include "platform.h"

unsigned int pcierr_event_queue_len = 256;
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
 * What adds or deletes devices through the driver core: REMOVE, RESCAN,
 * DISABLE, ENABLE, the owner-timeout fallback, a disabled PE's devices
 * kicked out. device_del() flushes the device's runtime-PM work, on pm_wq,
 * and drivers' remove() and probe() flush queues of their own: none of
 * them WQ_MEM_RECLAIM, so a rescuer could not promise progress there, and
 * a WQ_MEM_RECLAIM worker flushing them is a WARNING (seen: "WQ_MEM_RECLAIM
 * pcierr/... is flushing !WQ_MEM_RECLAIM pm:pm_runtime_work", from
 * sd_remove() in a REMOVE). So these run on a plain unbound queue, as
 * pciehp removes devices from its IRQ thread, never a reclaim worker; one
 * operation per PE still holds (pe->busy).
 */
struct workqueue_struct *pcierr_hotplug_wq;
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
	pcierr_hotplug_wq = alloc_workqueue("pcierr_hotplug", WQ_UNBOUND, 0);
	if (!pcierr_recover_wq || !pcierr_hotplug_wq) {
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
	if (pcierr_hotplug_wq)
		destroy_workqueue(pcierr_hotplug_wq);
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
	destroy_workqueue(pcierr_hotplug_wq);
	destroy_workqueue(pcierr_recover_wq);
	destroy_workqueue(pcierr_wq);
	pr_info("unloaded\n");
}

module_init(pcierr_init);
module_exit(pcierr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PCI error recovery shim: detection, containment, recovery mechanism");
MODULE_AUTHOR("pcierr project");

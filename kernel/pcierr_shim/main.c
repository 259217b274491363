// SPDX-License-Identifier: GPL-2.0
/*
 * pcierr_shim: PCI error recovery, the kernel half. It detects and
 * contains PCI errors (a software freeze on x86) and carries out recovery
 * steps on command over generic netlink; it decides nothing on its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>

#include "internal.h"
#include "platform.h"

unsigned int event_queue_len = 256;
module_param(event_queue_len, uint, 0444);
MODULE_PARM_DESC(event_queue_len,
		 "Bounded event queue length, overflow marker included (2-65536, default 256)");

struct workqueue_struct *pcierr_wq;
bool pcierr_exiting;
atomic64_t pcierr_stats[__PCIERR_STAT_MAX];

static void pcierr_stop(void)
{
	/* No detection starts after this; those under way have queued. */
	WRITE_ONCE(pcierr_exiting, true);
	synchronize_rcu();
	pcierr_pe_quiesce();	/* watchdogs off, operations finished */
	pcierr_pe_exit();	/* notifier off, PEs and devices released */
}

static int __init pcierr_init(void)
{
	int ret;

	pcierr_wq = alloc_workqueue("pcierr", WQ_UNBOUND, 0);
	if (!pcierr_wq)
		return -ENOMEM;
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
		event_queue_len);
	return 0;

err_pe:
	pcierr_stop();
err_event:
	pcierr_event_exit();
err_wq:
	rcu_barrier();
	destroy_workqueue(pcierr_wq);
	return ret;
}

static void __exit pcierr_exit(void)
{
	pcierr_nl_exit();	/* no new commands, no more multicast */
	pcierr_stop();
	pcierr_event_exit();
	rcu_barrier();		/* device records freed after grace periods */
	destroy_workqueue(pcierr_wq);
	pr_info("unloaded\n");
}

module_init(pcierr_init);
module_exit(pcierr_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PCI error recovery shim: detection, containment, recovery mechanism");
MODULE_AUTHOR("pcierr project");

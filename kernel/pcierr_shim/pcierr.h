/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcierr: the in-kernel API of pcierr_shim, for drivers and platform code.
 * All symbols are EXPORT_SYMBOL_NS_GPL(..., PCIERR), documented (kernel-doc)
 * where they are defined. Build a user module with
 *   ccflags-y += -I<pcierr_shim>/ -I<pcierr_shim>/uapi
 *   KBUILD_EXTRA_SYMBOLS += <pcierr_shim>/Module.symvers
 * and MODULE_IMPORT_NS(PCIERR) in it.
 *
 * Detection (any context, including hard interrupts, PREEMPT_RT too: only
 * raw spinlocks are taken on this path):
 *
 *   pcierr_report_failure(pdev, state, time_unavail_ms, source)
 *	A failure of @pdev was detected. The device's error generation is
 *	bumped at once, its PE is marked frozen, an event is queued (with its
 *	sequence number assigned now) and the freeze itself (decode and bus
 *	mastering off, INTx disabled, MSI-X masked) is applied from process
 *	context before the event is delivered. @state is
 *	pci_channel_io_frozen or pci_channel_io_perm_failure. Returns 0,
 *	-EINVAL for a bad state or source, -ENODEV if pcierr does not know
 *	the device, -ESHUTDOWN while the module unloads.
 *
 *   pcierr_check_failure(pdev)
 *	Call when a read from @pdev returned all ones. If the PE is already
 *	frozen the check is counted as ignored and 1 is returned. Otherwise
 *	the device's config space is read: if the vendor/device id reads all
 *	ones (or zero) the device is unreachable, a failure is reported with
 *	source PCIERR_SOURCE_CHECK and 1 is returned; else the all-ones value
 *	was genuine, a false positive is counted and 0 is returned.
 *	On pseries the platform decides first (docs/pseries.md): a PE the
 *	kernel's EEH owns goes to eeh_dev_check_failure(); a PE firmware
 *	knows is judged by ibm,read-slot-reset-state2 (stopped: frozen;
 *	unavailable: perm_failure with firmware's time; an empty slot's
 *	perm_failure and a healthy state: false positives).
 *   pcierr_check_value(pdev, val)
 *	The same for any 32-bit value read from @pdev: only an all-ones value
 *	leads to the check above. Both count PCIERR_STAT_CHECKS; only
 *	all-ones values count PCIERR_STAT_ALL_ONES.
 *
 * Notification (process context, from pcierr's event work):
 *
 *   pcierr_register_notifier(nb) / pcierr_unregister_notifier(nb)
 *	A blocking notifier chain. Actions: PCIERR_NOTIFY_EVENT with a
 *	struct pcierr_event_info *, PCIERR_NOTIFY_OVERFLOW with a
 *	struct pcierr_overflow_info *. The chain sees exactly what the
 *	netlink multicast group "events" sees, in the same order.
 *
 * IOCHK (synchronous, driver-driven; any context):
 *
 *   pcierr_iochk_clear(&cookie, pdev); ... I/O ...;
 *   if (pcierr_iochk_read(&cookie)) ...
 *	pcierr_iochk_read() returns non-zero if an error was detected on the device
 *	since pcierr_iochk_clear() (its error generation moved), if the device is
 *	not in the normal channel state, or if pcierr does not know it.
 *	This is the same error generation that netlink reports.
 */
#ifndef _PCIERR_SHIM_H
#define _PCIERR_SHIM_H

#include <linux/notifier.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/pcierr.h>

enum pcierr_notify_action {
	PCIERR_NOTIFY_EVENT = 1,	/* data: struct pcierr_event_info * */
	PCIERR_NOTIFY_OVERFLOW,		/* data: struct pcierr_overflow_info * */
};

struct pcierr_event_info {
	struct pci_dev *pdev;		/* valid during the call only */
	const char *pe;			/* PE address */
	u64 pe_id;			/* PE id at the detection */
	const char *device;		/* device address */
	pci_channel_state_t state;
	unsigned int time_unavail_ms;
	enum pcierr_source source;
	u64 seq;
	u64 timestamp_ns;		/* CLOCK_MONOTONIC, at detection */
	u32 error_gen;			/* device error generation after it */
	u64 auto_op_id;			/* the RECOVER it started (armed), or 0 */
};

struct pcierr_overflow_info {
	u64 dropped;			/* events lost since the last overflow */
	u64 next_seq;			/* sequence number after the gap */
};

struct pcierr_iochk_cookie {
	struct pci_dev *pdev;
	u32 error_gen;
	bool valid;
};

int pcierr_report_failure(struct pci_dev *pdev, pci_channel_state_t state,
			  unsigned int time_unavail_ms,
			  enum pcierr_source source);
int pcierr_check_failure(struct pci_dev *pdev);
int pcierr_check_value(struct pci_dev *pdev, u32 val);

int pcierr_register_notifier(struct notifier_block *nb);
int pcierr_unregister_notifier(struct notifier_block *nb);

void pcierr_iochk_clear(struct pcierr_iochk_cookie *cookie,
			struct pci_dev *pdev);
int pcierr_iochk_read(struct pcierr_iochk_cookie *cookie);

/* The device's current error generation (0 if pcierr does not know it). */
u32 pcierr_error_gen(struct pci_dev *pdev);

#endif /* _PCIERR_SHIM_H */

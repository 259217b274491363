/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcierr_shim: what differs between the kernels it builds against
 * (docs/kernels.md). The features come from pcierr-features.h, which Kbuild
 * generates by compiling each probes/NAME.c against the target kernel's
 * headers: never from the version number where a backport can move an API.
 */
#ifndef PCIERR_COMPAT_H
#define PCIERR_COMPAT_H

#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <net/genetlink.h>

#include "pcierr-features.h"

/* The op a genl family's pre_doit gets (a split op since 6.2). */
#ifdef PCIERR_HAVE_GENL_SPLIT_OPS
#define pcierr_genl_op genl_split_ops
#else
#define pcierr_genl_op genl_ops
#endif

/*
 * A runtime-PM reference if @dev is active, ignoring the usage count: 1
 * taken, 0 suspended, < 0 runtime PM disabled.
 */
static inline int pcierr_rpm_get_if_active(struct device *dev)
{
#ifdef PCIERR_HAVE_RPM_GET_IF_ACTIVE_1ARG
	return pm_runtime_get_if_active(dev);
#else
	return pm_runtime_get_if_active(dev, true);
#endif
}

/*
 * err.c calls slot_reset with the error state back to normal, and not at
 * all on a disconnected device (review R10; probes/err_slot_reset_normal.c).
 */
#ifdef PCIERR_HAVE_ERR_SLOT_RESET_NORMAL
#define PCIERR_SLOT_RESET_NORMAL	true
#else
#define PCIERR_SLOT_RESET_NORMAL	false
#endif

/*
 * A device's driver_override, wherever the kernel keeps it (compat.c).
 * Process context: on PREEMPT_RT the driver core's override lock sleeps.
 */
int pcierr_override_set(struct pci_dev *pdev, const char *name);
bool pcierr_override_any(struct pci_dev *pdev);
bool pcierr_override_clear_if(struct pci_dev *pdev, const char *name);

#endif /* PCIERR_COMPAT_H */

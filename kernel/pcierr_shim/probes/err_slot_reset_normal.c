// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own AER recovery (drivers/pci/pcie/err.c) sets a device's
 * error state back to normal before slot_reset and skips slot_reset for a
 * disconnected device (6.12's report_slot_reset()); Debian's 6.1 does
 * neither. err.c is not among the headers a module builds against, so
 * this one behaviour is read off the version (docs/kernels.md): the first
 * series known here to do it.
 */
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#error "err.c calls slot_reset with the error state it had"
#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's AER error counters of a PCI device (Linux 5.0+,
 * drivers/pci/pcie/aer.c): the TOTAL_ERR_* lines of sysfs aer_dev_fatal,
 * aer_dev_nonfatal and aer_dev_correctable. aer_print_error() (and
 * cper_print_aer() for firmware-first) counts an error on its source
 * device BEFORE pcie_do_recovery() sends the first uevent, so a change
 * seen at a recovery's first uevent tells its severity (docs/pcierrd.conf.md,
 * "Kernel AER recoveries").
 */
#ifndef PCIERRD_AER_STATS_H
#define PCIERRD_AER_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define PCIERR_SYSFS_PCI_DEVICES	"/sys/bus/pci/devices"

struct aer_stats {
	bool present;		/* the files exist (an AER-capable device) */
	uint64_t fatal, nonfatal, correctable;
	/* a root port's: the ERR_FATAL/ERR_NONFATAL messages it received
	 * from below (aer_rootport_total_err_fatal, _nonfatal) */
	uint64_t rp_fatal, rp_nonfatal;
};

/* Read addr's counters below root (PCIERR_SYSFS_PCI_DEVICES, or a test
 * directory). Absent files leave present false and the counts 0. */
void aer_stats_read(const char *root, const char *addr, struct aer_stats *ret);

/* Parse one aer_dev_* file's text: the value of its "TOTAL_<what> N" line */
int aer_stats_parse_total(const char *text, const char *total, uint64_t *ret);

#endif /* PCIERRD_AER_STATS_H */

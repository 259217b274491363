/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Vendor and device names, as lspci and udev show them, from udev's
 * hardware database (hwdb.bin, built from pci.ids by systemd's
 * 20-pci-vendor-model.hwdb). A missing hwdb only means no names; nothing
 * here can end the process.
 */
#ifndef PCIERRD_PCI_NAMES_H
#define PCIERRD_PCI_NAMES_H

#include <stdint.h>

struct pci_names;

/* Open the hwdb (none: a handle that finds no names). 0 or -ENOMEM */
int pci_names_open(struct pci_names **ret);
struct pci_names *pci_names_close(struct pci_names *n);

/* Allocated strings, "" when unknown (never NULL on success); n may be
 * NULL */
int pci_names_lookup(struct pci_names *n, uint16_t vendor, uint16_t device,
		     char **ret_vendor, char **ret_device);

#endif /* PCIERRD_PCI_NAMES_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Vendor and device names from pci.ids through libpci, as lspci shows
 * them. A missing pci.ids only means no names.
 */
#ifndef PCIERRD_PCI_NAMES_H
#define PCIERRD_PCI_NAMES_H

#include <stdint.h>

struct pci_access;

int pci_names_open(struct pci_access **ret);
struct pci_access *pci_names_close(struct pci_access *pa);

/* Allocated strings, "" when unknown (never NULL on success) */
int pci_names_lookup(struct pci_access *pa, uint16_t vendor, uint16_t device,
		     char **ret_vendor, char **ret_device);

#endif /* PCIERRD_PCI_NAMES_H */

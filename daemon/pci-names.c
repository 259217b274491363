// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libpci name lookup. Only the ids database is used: pci_init() (bus
 * access) is never called, the shim tells us what is on the bus.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "macro.h"
#include "pci-names.h"

/* libpci's warnings (e.g. pci.ids missing) would go to stderr */
static void quiet(char *msg _unused_, ...)
{
}

int pci_names_open(struct pci_access **ret)
{
	struct pci_access *pa = pci_alloc();

	if (!pa)
		return -ENOMEM;
	pa->warning = quiet;
	pa->debug = quiet;
	*ret = pa;
	return 0;
}

struct pci_access *pci_names_close(struct pci_access *pa)
{
	if (pa)
		pci_cleanup(pa);
	return NULL;
}

int pci_names_lookup(struct pci_access *pa, uint16_t vendor, uint16_t device,
		     char **ret_vendor, char **ret_device)
{
	char vbuf[256], dbuf[256];
	const char *v = NULL, *d = NULL;
	_cleanup_free_ char *vs = NULL;
	char *ds;

	if (pa) {
		v = pci_lookup_name(pa, vbuf, sizeof(vbuf),
				    PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, vendor);
		d = pci_lookup_name(pa, dbuf, sizeof(dbuf),
				    PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
				    vendor, device);
	}
	vs = strdup(v ? v : "");
	ds = strdup(d ? d : "");
	if (!vs || !ds) {
		free(ds);
		return -ENOMEM;
	}
	*ret_vendor = TAKE_PTR(vs);
	*ret_device = ds;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Vendor and device names from udev's hardware database (see
 * pci-names.h), as systemd-udevd's hwdb builtin gives them for PCI
 * devices (ID_VENDOR_FROM_DATABASE, ID_MODEL_FROM_DATABASE). No libpci:
 * its default error handler exit()s the process on a malformed pci.ids
 * (review L12), and the hwdb is a compiled, checked index.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-hwdb.h>

#include "macro.h"
#include "pci-names.h"

struct pci_names {
	sd_hwdb *hwdb;
};

int pci_names_open(struct pci_names **ret)
{
	struct pci_names *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	/* no hwdb (a minimal system): no names, not an error */
	if (sd_hwdb_new(&n->hwdb) < 0)
		n->hwdb = NULL;
	*ret = n;
	return 0;
}

struct pci_names *pci_names_close(struct pci_names *n)
{
	if (n) {
		sd_hwdb_unref(n->hwdb);
		free(n);
	}
	return NULL;
}

/* key's value for the modalias, or NULL */
static const char *lookup(sd_hwdb *hwdb, const char *modalias, const char *key)
{
	const char *v = NULL;

	if (!hwdb || sd_hwdb_get(hwdb, modalias, key, &v) < 0)
		return NULL;
	return v;
}

int pci_names_lookup(struct pci_names *n, uint16_t vendor, uint16_t device,
		     char **ret_vendor, char **ret_device)
{
	/* the hwdb's PCI keys: "pci:v0000VVVV*" and "pci:v0000VVVVd0000DDDD*" */
	char alias[64];
	const char *v, *d;
	_cleanup_free_ char *vs = NULL;
	char *ds;

	snprintf(alias, sizeof(alias), "pci:v%08Xd%08X", vendor, device);
	v = n ? lookup(n->hwdb, alias, "ID_VENDOR_FROM_DATABASE") : NULL;
	d = n ? lookup(n->hwdb, alias, "ID_MODEL_FROM_DATABASE") : NULL;
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

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the PCI address parsers. The input, cut at its first
 * NUL, goes to libpcierr's pcierr_addr_normalize() (names.c: what the
 * library, pcierrctl and pcierrd's D-Bus methods take) and to pcierrd's
 * pcierr_parse_pci_address() (config.c: [Device ...] sections and udev's
 * PCI_SLOT_NAME), and to the name tables' *_from_string(). Checked:
 *   - an accepted address comes out canonical ("%04x:%02x:%02x.%x"),
 *     shorter than PCIERR_ADDR_MAX, and normalising it again gives it
 *     back unchanged (both parsers);
 *   - where both parsers accept an input they agree on its meaning;
 *   - a name found by *_from_string() maps back to the same string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcierr/pcierr.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void canonical(const char *a)
{
	char again[PCIERR_ADDR_MAX];
	size_t n = strnlen(a, PCIERR_ADDR_MAX);

	if (n >= PCIERR_ADDR_MAX || n < 12)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!((a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'f') ||
		      a[i] == ':' || a[i] == '.'))
			abort();
	if (pcierr_addr_normalize(a, again) < 0 || strcmp(a, again) != 0)
		abort();
	if (pcierr_parse_pci_address(a, again) < 0 || strcmp(a, again) != 0)
		abort();
}

#define NAME_ROUNDTRIP(name)							\
	do {									\
		int v = pcierr_##name##_from_string(s);				\
		if (v >= 0) {							\
			const char *back = pcierr_##name##_to_string(v);	\
			if (!back || strcmp(back, s) != 0)			\
				abort();					\
		}								\
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char lib[PCIERR_ADDR_STRLEN], cfg[PCIERR_ADDR_MAX];
	char *s = malloc(size + 1);
	int rl, rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;

	rl = pcierr_addr_normalize(s, lib);
	rc = pcierr_parse_pci_address(s, cfg);
	if (rl == 0)
		canonical(lib);
	if (rc == 0)
		canonical(cfg);
	if (rl == 0 && rc == 0 && strcmp(lib, cfg) != 0)
		abort();

	NAME_ROUNDTRIP(step);
	NAME_ROUNDTRIP(result);
	NAME_ROUNDTRIP(state);
	NAME_ROUNDTRIP(pe_state);
	NAME_ROUNDTRIP(source);
	NAME_ROUNDTRIP(reset_type);
	NAME_ROUNDTRIP(handler);
	NAME_ROUNDTRIP(op);
	NAME_ROUNDTRIP(stat);
	free(s);
	return 0;
}

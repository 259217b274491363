// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: pcierrd's uevent translator (daemon/uevent.c). The
 * input is a uevent as lines ('\n'): SUBSYSTEM, ACTION, sysname, then
 * KEY=VALUE properties; a line "-" in one of the first three places
 * stands for NULL (no subsystem, no action, no sysname). Checked: a
 * translation that succeeds names a known type; anything but IGNORED
 * carries a canonical address that is also the sysname's, a DRIVER that
 * fits; IGNORED carries nothing; a failure is -EINVAL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *lines[MAX_LINES];
	const char *subsystem, *action, *sysname;
	struct pcierr_uevent ev, untouched;
	size_t n = 0;
	char *buf, *p;
	int r;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	/* strsep keeps empty lines: an empty value is a value */
	p = buf;
	while (p && n < MAX_LINES)
		lines[n++] = strsep(&p, "\n");

	subsystem = n > 0 && strcmp(lines[0], "-") != 0 ? lines[0] : NULL;
	action = n > 1 && strcmp(lines[1], "-") != 0 ? lines[1] : NULL;
	sysname = n > 2 && strcmp(lines[2], "-") != 0 ? lines[2] : NULL;

	memset(&ev, 0x5a, sizeof(ev));
	untouched = ev;
	r = pcierr_uevent_parse_env(subsystem, action, sysname,
				    n > 3 ? lines + 3 : NULL, n > 3 ? n - 3 : 0, &ev);
	if (r < 0) {
		if (r != -EINVAL || memcmp(&ev, &untouched, sizeof(ev)) != 0)
			abort();
	} else {
		if (r != 0 || ev.type >= __PCIERR_UEVENT_MAX ||
		    !pcierr_uevent_type_to_string(ev.type))
			abort();
		if (ev.type == PCIERR_UEVENT_IGNORED) {
			/* fields, not memcmp(): padding is unspecified */
			if (ev.addr[0] || ev.driver[0] || ev.has_ids || ev.has_subsys ||
			    ev.has_online || ev.vendor || ev.device)
				abort();
		} else {
			char a[PCIERR_ADDR_MAX];

			if (strnlen(ev.addr, sizeof(ev.addr)) >= sizeof(ev.addr) ||
			    pcierr_parse_pci_address(ev.addr, a) < 0 || strcmp(a, ev.addr) != 0)
				abort();
			if (sysname && (pcierr_parse_pci_address(sysname, a) < 0 ||
					strcmp(a, ev.addr) != 0))
				abort();
			if (strnlen(ev.driver, sizeof(ev.driver)) >= sizeof(ev.driver))
				abort();
			if (ev.type != PCIERR_UEVENT_AER && ev.has_online)
				abort();
		}
	}
	free(buf);
	return 0;
}

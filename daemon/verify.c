/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery: the pure part (verify.h). No I/O.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "verify.h"

/* subsystems whose every child counts */
static const char *const plain[] = {
	"net", "tty", "watchdog", "hwmon", "mmc_host", "scsi_host", "nvme", "rtc",
};

/* class devices whose own children are no more of the function (a disk's
 * partitions and queues, a card's PCM nodes, an interface's queues) */
static const char *const leaves[] = {
	"block", "net", "tty", "sound", "watchdog", "hwmon", "input", "drm", "rtc",
};

bool verify_class_leaf(const char *subsystem)
{
	for (size_t i = 0; subsystem && i < ELEMENTSOF(leaves); i++)
		if (strcmp(subsystem, leaves[i]) == 0)
			return true;
	return false;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool verify_class_key(const char *subsystem, const char *devtype, const char *sysname,
		      const char *driver, char *key, size_t size)
{
	if (!subsystem || !*subsystem || !sysname)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(plain); i++)
		if (strcmp(subsystem, plain[i]) == 0) {
			snprintf(key, size, "%s", subsystem);
			return true;
		}
	if (strcmp(subsystem, "block") == 0) {
		if (!devtype || strcmp(devtype, "disk") != 0)
			return false;
	} else if (strcmp(subsystem, "input") == 0) {
		/* the device, not its event and mouse nodes */
		if (!starts_with(sysname, "input"))
			return false;
	} else if (strcmp(subsystem, "sound") == 0 || strcmp(subsystem, "drm") == 0) {
		/* the card, not its nodes (pcmC0D0p, controlC0, card0-DP-1) */
		if (!starts_with(sysname, "card") || strchr(sysname, '-'))
			return false;
	} else if (strcmp(subsystem, "usb") == 0) {
		if (!devtype || strcmp(devtype, "usb_device") != 0)
			return false;
	} else if (strcmp(subsystem, "virtio") == 0) {
		snprintf(key, size, "virtio:%s", driver && *driver ? driver : "(no driver)");
		return true;
	} else {
		return false;
	}
	snprintf(key, size, "%s", subsystem);
	return true;
}

static struct verify_kind *find_kind(const struct verify_snapshot *s, const char *key)
{
	for (size_t i = 0; i < s->n_kinds; i++)
		if (strcmp(s->kinds[i].key, key) == 0)
			return (struct verify_kind *)&s->kinds[i];
	return NULL;
}

void verify_snapshot_add(struct verify_snapshot *s, const char *key)
{
	struct verify_kind *k = find_kind(s, key);

	if (!k) {
		if (s->n_kinds >= ELEMENTSOF(s->kinds))
			return;
		k = &s->kinds[s->n_kinds++];
		snprintf(k->key, sizeof(k->key), "%s", key);
		k->count = 0;
	}
	k->count++;
}

unsigned int verify_snapshot_count(const struct verify_snapshot *s, const char *key)
{
	const struct verify_kind *k = find_kind(s, key);

	return k ? k->count : 0;
}

_printf_(3, 4)
static void add_missing(char *buf, size_t size, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!buf || size == 0)
		return;
	len = strnlen(buf, size);
	if (len > 0 && len + 2 < size) {
		memcpy(buf + len, "; ", 3);
		len += 2;
	}
	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

bool verify_compare(const struct verify_snapshot *before, const struct verify_snapshot *now,
		    char *missing, size_t size)
{
	bool ok = true;

	if (missing && size > 0)
		missing[0] = '\0';
	if (!before->present)
		return true;
	if (!now->present) {
		add_missing(missing, size, "%s: the device is gone", before->addr);
		return false;
	}
	if (before->driver[0] && strcmp(before->driver, now->driver) != 0) {
		if (now->driver[0])
			add_missing(missing, size, "%s: driver %s bound, not %s", before->addr,
				    now->driver, before->driver);
		else
			add_missing(missing, size, "%s: driver %s not bound", before->addr,
				    before->driver);
		ok = false;
	}
	for (size_t i = 0; i < before->n_kinds; i++) {
		const struct verify_kind *k = &before->kinds[i];
		unsigned int n = verify_snapshot_count(now, k->key);

		if (n >= k->count)
			continue;
		add_missing(missing, size, "%s: %s %u of %u", before->addr, k->key, n, k->count);
		ok = false;
	}
	return ok;
}

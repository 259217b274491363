/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery, per slot: see verify-slot.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "verify.h"
#include "verify-slot.h"

const char *verify_sysfs_root = "/sys";

struct verify_slot {
	struct verify_snapshot *snaps;	/* one per endpoint, by address */
	size_t n_snaps;
	bool failed;			/* the latest final check failed */
	char missing[512];		/* ... and what it missed */
	pcierr_usec_t deadline;
};

void verify_slot_free(struct verify_slot **v)
{
	if (!*v)
		return;
	free((*v)->snaps);
	free(*v);
	*v = NULL;
}

static struct verify_slot *get(struct verify_slot **v)
{
	if (!*v)
		*v = calloc(1, sizeof(**v));
	return *v;
}

void verify_slot_remember(struct slot *s, struct verify_slot **v)
{
	struct verify_snapshot *snaps = NULL;
	struct verify_slot *vs;
	size_t n = 0;

	if (*v && (*v)->failed && !verify_slot_check(*v, false, NULL, 0))
		return;
	for (size_t i = 0; i < s->n_devices; i++) {
		const struct device *d = s->devices[i];
		struct verify_snapshot snap, *more;
		int r;

		if (d->flags & PCIERR_DEV_F_BRIDGE)
			continue;
		r = verify_read_sysfs(verify_sysfs_root, d->addr, &snap);
		if (r < 0)
			log_debug_errno(r, "Device %s: reading its function failed: %m", d->addr);
		if (r < 0 || !snap.present)
			continue;
		more = reallocarray(snaps, n + 1, sizeof(*snaps));
		if (!more) {
			free(snaps);
			return;
		}
		snaps = more;
		snaps[n++] = snap;
	}
	/* nothing known (no such device in sysfs): no state either */
	if (n == 0 && !*v)
		return;
	vs = get(v);
	if (!vs) {
		log_warning("Slot %s: out of memory; its function is not remembered.", s->addr);
		free(snaps);
		return;
	}
	vs->failed = false;
	free(vs->snaps);
	vs->snaps = snaps;
	vs->n_snaps = n;
}

void verify_slot_begin(struct verify_slot **v, pcierr_usec_t deadline)
{
	if (get(v))
		(*v)->deadline = deadline;
}

pcierr_usec_t verify_slot_deadline(const struct verify_slot *v)
{
	return v ? v->deadline : 0;
}

bool verify_slot_check(struct verify_slot *v, bool final, char *missing, size_t size)
{
	bool ok = true;

	if (missing && size > 0)
		missing[0] = '\0';
	if (!v)
		return true;
	for (size_t i = 0; i < v->n_snaps; i++) {
		struct verify_snapshot now;
		char one[256];
		size_t len;

		if (verify_read_sysfs(verify_sysfs_root, v->snaps[i].addr, &now) < 0)
			now.present = false;
		if (verify_compare(&v->snaps[i], &now, one, sizeof(one)))
			continue;
		/* its driver was unloaded meanwhile: nothing to expect back */
		if (v->snaps[i].driver[0] &&
		    !verify_driver_loaded(verify_sysfs_root, v->snaps[i].driver))
			continue;
		ok = false;
		if (!missing || size == 0)
			continue;
		len = strlen(missing);
		if (len > 0 && len + 2 < size) {
			memcpy(missing + len, "; ", 3);
			len += 2;
		}
		if (len + 1 < size)
			snprintf(missing + len, size - len, "%s", one);
	}
	if (final) {
		v->failed = !ok;
		snprintf(v->missing, sizeof(v->missing), "%s", ok || !missing ? "" : missing);
	}
	return ok;
}

bool verify_slot_gone(const struct verify_slot *v)
{
	size_t n = 0;

	if (!v)
		return false;
	for (size_t i = 0; i < v->n_snaps; i++) {
		struct verify_snapshot now;

		if (!v->snaps[i].present)
			continue;
		if (verify_read_sysfs(verify_sysfs_root, v->snaps[i].addr, &now) >= 0 &&
		    now.present)
			return false;
		n++;
	}
	return n > 0;
}

const char *verify_slot_missing(const struct verify_slot *v)
{
	return v ? v->missing : "";
}

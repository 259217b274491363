// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plain data pcierrctl shows (see model.h).
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

size_t ctl_strv_length(char *const *l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

void ctl_manager_done(struct ctl_manager *m)
{
	free(m->version);
	*m = (struct ctl_manager) {};
}

void ctl_slot_done(struct ctl_slot *s)
{
	free(s->address);
	strv_free(s->reset_types);
	free(s->state);
	free(s->step);
	strv_free(s->devices);
	free(s->last_result);
	free(s->last_message);
	free(s->backend);
	*s = (struct ctl_slot) {};
}

void ctl_device_done(struct ctl_device *d)
{
	free(d->address);
	free(d->slot);
	free(d->vendor_name);
	free(d->device_name);
	free(d->identity);
	free(d->driver);
	strv_free(d->handlers);
	free(d->state);
	free(d->disabled_reason);
	*d = (struct ctl_device) {};
}

void ctl_model_done(struct ctl_model *m)
{
	ctl_manager_done(&m->manager);
	for (size_t i = 0; i < m->n_slots; i++)
		ctl_slot_done(&m->slots[i]);
	free(m->slots);
	for (size_t i = 0; i < m->n_devices; i++)
		ctl_device_done(&m->devices[i]);
	free(m->devices);
	*m = (struct ctl_model) {};
}

void ctl_history_free(struct ctl_history_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].slot);
		free(e[i].device);
		free(e[i].kind);
		free(e[i].step);
		free(e[i].result);
		free(e[i].results);
		free(e[i].message);
	}
	free(e);
}

static int addr_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int slot_cmp(const void *a, const void *b)
{
	return addr_cmp(((const struct ctl_slot *)a)->address,
			((const struct ctl_slot *)b)->address);
}

static int device_cmp(const void *a, const void *b)
{
	return addr_cmp(((const struct ctl_device *)a)->address,
			((const struct ctl_device *)b)->address);
}

void ctl_model_sort(struct ctl_model *m)
{
	if (m->n_slots > 1)
		qsort(m->slots, m->n_slots, sizeof(m->slots[0]), slot_cmp);
	if (m->n_devices > 1)
		qsort(m->devices, m->n_devices, sizeof(m->devices[0]), device_cmp);
}

const struct ctl_slot *ctl_model_find_slot(const struct ctl_model *m, const char *addr)
{
	struct ctl_slot key = { .address = (char *)addr };

	if (!addr || m->n_slots == 0)
		return NULL;
	return bsearch(&key, m->slots, m->n_slots, sizeof(m->slots[0]), slot_cmp);
}

const struct ctl_device *ctl_model_find_device(const struct ctl_model *m, const char *addr)
{
	struct ctl_device key = { .address = (char *)addr };

	if (!addr || m->n_devices == 0)
		return NULL;
	return bsearch(&key, m->devices, m->n_devices, sizeof(m->devices[0]), device_cmp);
}

const struct ctl_slot *ctl_model_find_slot_for(const struct ctl_model *m, const char *addr)
{
	const struct ctl_slot *s = ctl_model_find_slot(m, addr);
	const struct ctl_device *d;

	if (s)
		return s;
	d = ctl_model_find_device(m, addr);
	return d ? ctl_model_find_slot(m, d->slot) : NULL;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.pcierr1.Manager.GetStatus() (docs/dbus.md): every slot and every
 * device with the properties pcierrctl status shows, in one reply built
 * in one pass over the manager's own arrays (issue 12, benchmark 5).
 * GetManagedObjects says the same through one getter call, one
 * variant and one dict entry per property and one object lookup per
 * object; this writes two arrays of structs. The values are the
 * getters' own (the helpers of bus-util.h), so both agree.
 *
 * Read-only: anyone may call it, as anyone may read the properties.
 */
#include <errno.h>

#include "bus.h"
#include "bus-util.h"

static int append_slot(sd_bus_message *reply, const struct slot *s)
{
	int r;

	r = sd_bus_message_open_container(reply, 'r', "sasssbassttsbs");
	if (r < 0)
		return r;
	r = sd_bus_message_append_basic(reply, 's', s->addr);
	if (r < 0)
		return r;
	r = bus_append_reset_types(reply, s);
	if (r < 0)
		return r;
	r = sd_bus_message_append(reply, "ssb",
				  bus_strempty(pcierr_pe_state_to_string(s->state)),
				  bus_strempty(pcierr_recovery_phase_to_string(s->recovery.policy.phase)),
				  (int)s->recovery.policy.stuck);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "s");
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n_devices; i++) {
		r = sd_bus_message_append_basic(reply, 's', s->devices[i]->addr);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	r = sd_bus_message_append(reply, "sttsbs", s->status.last_result,
				  (uint64_t)s->status.last_duration_usec,
				  (uint64_t)s->status.last_finished_usec,
				  s->status.message, (int)bus_slot_disabled(s),
				  bus_slot_backend_name(s));
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

static int append_device(sd_bus_message *reply, const struct device *d,
			 pcierr_usec_t now)
{
	struct pcierr_settings set;
	int r;

	/* one resolution for both FreezeCount and MaxFreezes */
	bus_device_settings(d, &set);
	r = sd_bus_message_open_container(reply, 'r', "ssqqqqussssassuuutbs");
	if (r < 0)
		return r;
	r = sd_bus_message_append(reply, "ssqqqqussss", d->addr,
				  d->slot ? d->slot->addr : "",
				  d->vendor, d->device, d->subvendor, d->subdevice,
				  d->class, bus_strempty(d->vendor_name),
				  bus_strempty(d->device_name), d->key,
				  bus_strempty(d->driver));
	if (r < 0)
		return r;
	r = bus_append_handlers(reply, d);
	if (r < 0)
		return r;
	r = sd_bus_message_append(reply, "suuutbs",
				  bus_strempty(pcierr_state_to_string(d->state)),
				  d->error_gen, bus_device_freeze_count(d, &set, now),
				  (uint32_t)set.max_freezes, (uint64_t)d->last_error_usec,
				  (int)d->history.disabled, bus_strempty(d->disabled_reason));
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

int bus_method_get_status(sd_bus_message *message, void *userdata,
			  sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	pcierr_usec_t now = now_realtime_usec();
	int r;

	r = sd_bus_message_new_method_return(message, &reply);
	if (r < 0)
		return r;

	r = sd_bus_message_open_container(reply, 'a', BUS_STATUS_SLOT_SIG);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_slots; i++) {
		r = append_slot(reply, m->slots[i]);
		if (r < 0)
			return r;
	}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;

	r = sd_bus_message_open_container(reply, 'a', BUS_STATUS_DEVICE_SIG);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->n_slots; i++)
		for (size_t j = 0; j < m->slots[i]->n_devices; j++) {
			r = append_device(reply, m->slots[i]->devices[j], now);
			if (r < 0)
				return r;
		}
	r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;

	return sd_bus_message_send(reply);
}

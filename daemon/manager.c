// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The manager: slots and devices as the shim reports them, kept current
 * by resyncs and per-slot refreshes, with their freeze history from the
 * state store and their names from the hwdb; and the methods the bus calls.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libudev.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "log.h"
#include "manager.h"
#include "metrics-writer.h"
#include "pci-names.h"
#include "state-writer.h"

/* a failed resync is tried again after 1 s, 2 s, 4 s ... at most 60 s */
#define RESYNC_RETRY_MIN_USEC	(1 * PCIERR_USEC_PER_SEC)
#define RESYNC_RETRY_MAX_USEC	(60 * PCIERR_USEC_PER_SEC)
/* resyncs asked for by lost events: at most one per 200 ms */
#define RESYNC_MIN_INTERVAL_USEC	(200 * 1000)

pcierr_usec_t now_realtime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (pcierr_usec_t)ts.tv_sec * PCIERR_USEC_PER_SEC +
	       (pcierr_usec_t)ts.tv_nsec / 1000;
}

pcierr_usec_t now_boottime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (pcierr_usec_t)ts.tv_sec * PCIERR_USEC_PER_SEC +
	       (pcierr_usec_t)ts.tv_nsec / 1000;
}

pcierr_usec_t now_monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (pcierr_usec_t)ts.tv_sec * PCIERR_USEC_PER_SEC +
	       (pcierr_usec_t)ts.tv_nsec / 1000;
}

/* ---------------------------------------------------------------------- */
/* Devices */

static struct device *device_free(struct device *d)
{
	if (!d)
		return NULL;
	/* only if the map still names this one (an address that moved to
	 * another slot is already the other's) */
	addrmap_remove(&d->manager->device_map, d->addr, d);
	free(d->driver);
	free(d->vendor_name);
	free(d->device_name);
	free(d->disabled_reason);
	free(d);
	return NULL;
}

/* Names by vendor:device, looked up in the hwdb once per pair: 10,000
 * devices are mostly a few models (start-up stays linear and cheap) */
struct name_entry {
	char key[10];
	char *vendor_name, *device_name;
};

static int lookup_names(struct manager *m, uint16_t vendor, uint16_t device,
			char **ret_vendor, char **ret_device)
{
	char key[10];
	struct name_entry *e;
	char *vn, *dn;
	int r;

	snprintf(key, sizeof(key), "%04x:%04x", vendor, device);
	e = addrmap_get(&m->name_map, key);
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		memcpy(e->key, key, sizeof(key));
		r = pci_names_lookup(m->pci, vendor, device, &e->vendor_name, &e->device_name);
		if (r >= 0)
			r = addrmap_put(&m->name_map, e->key, e);
		if (r < 0) {
			free(e->vendor_name);
			free(e->device_name);
			free(e);
			return r;
		}
	}
	vn = strdup(e->vendor_name);
	dn = strdup(e->device_name);
	if (!vn || !dn) {
		free(vn);
		free(dn);
		return -ENOMEM;
	}
	*ret_vendor = vn;
	*ret_device = dn;
	return 0;
}

static void names_clear(struct manager *m)
{
	for (size_t i = 0; i < m->name_map.cap; i++) {
		struct name_entry *e = m->name_map.e[i].key ? m->name_map.e[i].value : NULL;

		if (e) {
			free(e->vendor_name);
			free(e->device_name);
			free(e);
		}
	}
	addrmap_clear(&m->name_map);
}

static int set_string(char **p, const char *v)
{
	char *n;

	if (*p && strcmp(*p, v ? v : "") == 0)
		return 0;
	n = strdup(v ? v : "");
	if (!n)
		return -ENOMEM;
	free(*p);
	*p = n;
	return 1;
}

/* The identity's record and disabled mark from the state store */
static void device_load_history(struct manager *m, struct device *d)
{
	struct pcierr_disabled dis;
	int r;

	d->history = (struct pcierr_freeze_record) { 0 };
	set_string(&d->disabled_reason, "");
	if (!m->state)
		return;
	if (m->writer) {
		/* with what is queued and not yet committed: a device a rescan
		 * brings back right after its recovery keeps its freezes */
		bool disabled;

		r = state_writer_load(m->writer, m->state, d->key, &d->history,
				      &dis, &disabled);
		if (r < 0) {
			log_warning_errno(r, "Failed to load the freeze record of %s: %m",
					  d->addr);
			d->history = (struct pcierr_freeze_record) { 0 };
			return;
		}
		d->last_error_usec = d->history.last_usec;
		if (disabled) {
			d->history.disabled = true;
			set_string(&d->disabled_reason, dis.message);
		}
		return;
	}
	r = pcierr_state_load_freeze(m->state, d->key, &d->history);
	if (r < 0) {
		log_warning_errno(r, "Failed to load the freeze record of %s: %m", d->addr);
		return;
	}
	d->last_error_usec = d->history.last_usec;
	r = pcierr_state_is_disabled(m->state, d->key, &dis);
	if (r > 0) {
		d->history.disabled = true;
		set_string(&d->disabled_reason, dis.message);
	}
}

static int device_update(struct manager *m, struct device *d,
			 const struct pcierr_device *k, bool *changed)
{
	char key[PCIERR_IDENTITY_KEY_MAX];
	bool ids_changed;
	int r;

	ids_changed = d->vendor != k->vendor || d->device != k->device ||
		      !d->vendor_name;
	d->vendor = k->vendor;
	d->device = k->device;
	d->subvendor = k->subvendor;
	d->subdevice = k->subdevice;
	d->class = k->class;
	d->dsn = k->dsn;
	d->has_dsn = k->has_dsn;

	if (ids_changed) {
		char *vn = NULL, *dn = NULL;

		r = lookup_names(m, k->vendor, k->device, &vn, &dn);
		if (r < 0)
			return r;
		free(d->vendor_name);
		free(d->device_name);
		d->vendor_name = vn;
		d->device_name = dn;
	}

	r = set_string(&d->driver, k->driver);
	if (r < 0)
		return r;
	if (r > 0)
		*changed = true;
	if (d->handlers != k->handlers || d->state != k->state ||
	    d->error_gen != k->error_gen || d->flags != k->flags)
		*changed = true;
	d->handlers = k->handlers;
	d->state = k->state;
	d->error_gen = k->error_gen;
	d->flags = k->flags;

	r = pcierr_identity_key(k->vendor, k->device, k->subvendor, k->subdevice,
				k->has_dsn, k->dsn, k->addr, key, sizeof(key));
	if (r < 0)
		return r;
	if (strcmp(key, d->key) != 0) {
		/* another card in this place: its own history; and its own
		 * object: the old one's CONST ids are not rewritten under a
		 * client (review M9) */
		if (d->key[0] && d->announced && !m->quiet && d->slot->announced) {
			observe_device_removed(d);
			d->announced = false;
		}
		snprintf(d->key, sizeof(d->key), "%s", key);
		device_load_history(m, d);
		*changed = true;
	}
	return 0;
}

static int device_new(struct manager *m, struct slot *s,
		      const struct pcierr_device *k, struct device **ret)
{
	struct device *d = calloc(1, sizeof(*d));
	bool changed = false;
	int r;

	if (!d)
		return -ENOMEM;
	d->manager = m;
	d->slot = s;
	snprintf(d->addr, sizeof(d->addr), "%s", k->addr);
	if (set_string(&d->disabled_reason, "") < 0) {
		device_free(d);
		return -ENOMEM;
	}
	r = device_update(m, d, k, &changed);
	if (r >= 0)
		r = addrmap_put(&m->device_map, d->addr, d);
	if (r < 0) {
		device_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

int manager_save_history(struct manager *m, struct device *d,
			 const struct pcierr_freeze_record *rec)
{
	bool disabled = d->history.disabled;
	int r = 0;

	d->history = *rec;
	d->history.disabled = disabled || rec->disabled;
	if (m->writer)
		r = state_writer_save_freeze(m->writer, d->key, rec);
	return r;
}

/* ---------------------------------------------------------------------- */
/* Slots */

static struct slot *slot_free(struct slot *s)
{
	if (!s)
		return NULL;
	addrmap_remove(&s->manager->slot_map, s->addr, s);
	observe_slot_freeing(s);
	for (size_t i = 0; i < s->n_devices; i++)
		device_free(s->devices[i]);
	free(s->devices);
	free(s);
	return NULL;
}

static int slot_new(struct manager *m, const char *addr, struct slot **ret)
{
	struct slot *s;
	int r;

	if (m->n_slots == m->slots_cap) {
		size_t cap = m->slots_cap ? m->slots_cap * 2 : 16;
		struct slot **a = realloc(m->slots, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		m->slots = a;
		m->slots_cap = cap;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->manager = m;
	snprintf(s->addr, sizeof(s->addr), "%s", addr);
	s->recovery = SLOT_RECOVERY_INIT;
	r = addrmap_put(&m->slot_map, s->addr, s);
	if (r < 0) {
		free(s);
		return r;
	}
	m->slots[m->n_slots++] = s;
	*ret = s;
	return 0;
}

/*
 * Bring s in line with the shim's pe: devices come, go, change. The bus
 * hears of it only once s->devices is whole again (its lookups walk it).
 */
static int slot_update(struct manager *m, struct slot *s, const struct pcierr_pe *pe)
{
	_cleanup_free_ struct device **devs = NULL;
	_cleanup_free_ bool *changed = NULL;
	struct device **gone = s->devices;
	size_t n_gone = s->n_devices, n = 0;
	bool slot_changed = false;
	int r;

	devs = calloc(pe->n_devices + 1, sizeof(*devs));
	changed = calloc(pe->n_devices + 1, sizeof(*changed));
	if (!devs || !changed)
		return -ENOMEM;

	for (size_t i = 0; i < pe->n_devices; i++) {
		const struct pcierr_device *k = &pe->devices[i];
		/* by the map, not a walk of the old list: a PE of many
		 * functions (an SR-IOV PF's VFs) stays linear (U8) */
		struct device *d = addrmap_get(&m->device_map, k->addr);

		if (d && d->slot == s && d->kept) {
			log_warning("Slot %s: the kernel named %s twice; ignoring the second.",
				    s->addr, k->addr);
			continue;
		}
		if (d && d->slot != s) {
			/* the address belongs to another slot still: that one
			 * lets go of it first (its removal is announced
			 * before this one's addition, review L15) */
			manager_drop_device(m, d);
			d = NULL;
		}
		if (d) {
			d->kept = true;
			r = device_update(m, d, k, &changed[n]);
			if (r < 0)
				log_warning_errno(r, "Failed to update device %s: %m", k->addr);
		} else {
			r = device_new(m, s, k, &d);
			if (r < 0) {
				log_error_errno(r, "Failed to add device %s: %m", k->addr);
				continue;
			}
			d->kept = true;
			slot_changed = true;
		}
		devs[n++] = d;
	}

	s->devices = TAKE_PTR(devs);
	s->n_devices = n;

	/* what is left went away */
	for (size_t j = 0; j < n_gone; j++) {
		if (gone[j]->kept)
			continue;
		if (gone[j]->announced)
			observe_device_removed(gone[j]);
		device_free(gone[j]);
		slot_changed = true;
	}
	free(gone);
	for (size_t i = 0; i < s->n_devices; i++)
		s->devices[i]->kept = false;

	for (size_t i = 0; i < s->n_devices; i++) {
		struct device *d = s->devices[i];

		if (!d->announced) {
			/* the slot is announced first (review L11); at the
			 * start, nobody is told before the name is ours */
			if (!m->quiet && s->announced)
				observe_device_added(d);
			d->announced = true;
		} else if (changed[i] && !m->quiet)
			observe_device_changed(d);
	}

	if (s->state != pe->state || s->flags != pe->flags ||
	    s->reset_types != pe->reset_types || s->generation != pe->generation ||
	    s->backend != pe->backend)
		slot_changed = true;
	s->backend = pe->backend;
	s->state = pe->state;
	s->flags = pe->flags;
	s->last_op = pe->last_op;
	s->reset_types = pe->reset_types;
	s->generation = pe->generation;
	s->pe_id = pe->id;
	if (slot_changed && !m->quiet && s->announced)
		observe_slot_changed(s);
	return 0;
}

/* Announce a slot found now, then its devices */
static void slot_announce(struct manager *m, struct slot *s)
{
	if (s->announced)
		return;
	s->announced = true;
	if (m->quiet)
		return;
	observe_slot_added(s);
	for (size_t i = 0; i < s->n_devices; i++)
		observe_device_added(s->devices[i]);
}

/* A device that now belongs elsewhere (or nowhere): out of its slot now */
void manager_drop_device(struct manager *m, struct device *d)
{
	struct slot *s = d->slot;

	for (size_t i = 0; i < s->n_devices; i++)
		if (s->devices[i] == d) {
			memmove(&s->devices[i], &s->devices[i + 1],
				(s->n_devices - i - 1) * sizeof(*s->devices));
			s->n_devices--;
			break;
		}
	if (d->announced && !m->quiet)
		observe_device_removed(d);
	device_free(d);
	if (!m->quiet && s->announced)
		observe_slot_changed(s);
}

struct slot *manager_find_slot(struct manager *m, const char *addr)
{
	char a[PCIERR_ADDR_MAX];

	if (!addr || pcierr_addr_normalize(addr, a) < 0)
		return NULL;
	return addrmap_get(&m->slot_map, a);
}

struct device *manager_find_device(struct manager *m, const char *addr)
{
	char a[PCIERR_ADDR_MAX];

	if (!addr || pcierr_addr_normalize(addr, a) < 0)
		return NULL;
	return addrmap_get(&m->device_map, a);
}

struct slot *manager_find_slot_for(struct manager *m, const char *addr)
{
	struct slot *s = manager_find_slot(m, addr);
	struct device *d;

	if (s)
		return s;
	d = manager_find_device(m, addr);
	return d ? d->slot : NULL;
}

/* A slot that is not healthy, for a resync to act on */
static void resync_retry(struct manager *m, const char *why);

/*
 * Linear in the devices: one dump, each PE found by hash, each device by
 * hash; slots that went away are swept in one pass.
 */
static int resync(struct manager *m, const char *why)
{
	struct pcierr_pe_list list = { 0 };
	size_t kept = 0;
	int r;

	if (!m->kernel || !m->kernel_connected)
		return -ENOTCONN;
	/* before the dump: the generations it gives belong to this load */
	{
		struct pcierr_stats st;

		r = m->kops->stats_get(m->kernel, &st);
		if (r < 0)
			return log_error_errno(r, "Failed to read the shim's statistics (%s): %m", why);
		if (st.counter[PCIERR_STAT_LOAD_ID] != m->shim_load_id)
			log_debug("Shim load %" PRIu64 " (was %" PRIu64 ").",
				  (uint64_t) st.counter[PCIERR_STAT_LOAD_ID], m->shim_load_id);
		m->shim_load_id = st.counter[PCIERR_STAT_LOAD_ID];
	}
	r = m->kops->pe_dump(m->kernel, &list);
	if (r < 0) {
		const char *msg = m->kops->last_error_message(m->kernel);

		return log_error_errno(r, "Failed to dump the PEs (%s): %s", why,
				       msg && *msg ? msg : strerror(-r));
	}

	for (size_t i = 0; i < m->n_slots; i++)
		m->slots[i]->seen = false;

	for (size_t i = 0; i < list.n_pes; i++) {
		const struct pcierr_pe *pe = &list.pes[i];
		struct slot *s = manager_find_slot(m, pe->addr);

		if (!s) {
			r = slot_new(m, pe->addr, &s);
			if (r < 0) {
				log_error_errno(r, "Failed to add slot %s: %m", pe->addr);
				continue;
			}
		}
		s->seen = true;
		r = slot_update(m, s, pe);
		if (r < 0)
			log_warning_errno(r, "Failed to update slot %s: %m", pe->addr);
		slot_announce(m, s);
		/* an operation the shim finished whose OP_DONE did not come
		 * (yet) is asked after again (H1) */
		if (!(pe->flags & PCIERR_PE_F_BUSY))
			observe_slot_op_idle(s);
	}
	pcierr_pe_list_clear(&list);

	/* sweep what went away, keeping the order of the rest */
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		if (!s->seen && !slot_recovery_busy(&s->recovery)) {
			for (size_t j = 0; j < s->n_devices; j++)
				if (s->devices[j]->announced && !m->quiet)
					observe_device_removed(s->devices[j]);
			if (s->announced && !m->quiet)
				observe_slot_removed(s);
			slot_free(s);
			continue;
		}
		if (!s->seen)
			observe_slot_op_idle(s);
		m->slots[kept++] = s;
	}
	m->n_slots = kept;

	m->counters.resyncs++;
	log_debug("Resynchronised with the kernel (%s): %zu slots.", why, m->n_slots);

	/* what is not healthy is acted on (recovery.c); the slots array
	 * may change meanwhile: by index */
	for (size_t i = 0; i < m->n_slots; i++)
		observe_slot_synced(m->slots[i], SLOT_SYNC_RESYNC);
	return 0;
}

int manager_resync(struct manager *m, const char *why)
{
	int r;

	m->resync_last_usec = now_monotonic_usec();
	r = resync(m, why);

	if (r < 0 && r != -ENOTCONN) {
		m->resync_failed = true;
		resync_retry(m, why);
	} else if (r >= 0) {
		m->resync_failed = false;
		m->resync_backoff = 0;
		m->resync_timer = sd_event_source_disable_unref(m->resync_timer);
	}
	if (!m->quiet)
		observe_manager_changed(m);
	return r;
}

static int on_resync(sd_event_source *es, void *userdata)
{
	struct manager *m = userdata;

	m->resync_source = sd_event_source_disable_unref(m->resync_source);
	manager_resync(m, "events lost");
	return 0;
}

static int on_resync_retry(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->resync_timer = sd_event_source_disable_unref(m->resync_timer);
	manager_resync(m, "retry");
	return 0;
}

/* A resync that failed (the dump was interrupted again and again, the
 * socket overran, ...) is tried again with a growing delay (review M4) */
static void resync_retry(struct manager *m, const char *why)
{
	int r;

	if (m->resync_timer || !m->event)
		return;
	m->resync_backoff = m->resync_backoff ?
		MIN(m->resync_backoff * 2, RESYNC_RETRY_MAX_USEC) : RESYNC_RETRY_MIN_USEC;
	r = sd_event_add_time_relative(m->event, &m->resync_timer, CLOCK_MONOTONIC,
				       m->resync_backoff, 0, on_resync_retry, m);
	if (r < 0) {
		log_error_errno(r, "Failed to arm the resync retry (%s): %m", why);
		return;
	}
	log_warning("Resync (%s) failed; trying again in %llu s.", why,
		    (unsigned long long)(m->resync_backoff / PCIERR_USEC_PER_SEC));
}

static int on_resync_due(sd_event_source *es, uint64_t usec, void *userdata)
{
	return on_resync(es, userdata);
}

/*
 * At most one resync per RESYNC_MIN_INTERVAL_USEC: under an event storm
 * the shim's queue overflows again and again, and each OVERFLOW asks for
 * a resync (a dump of every PE); one soon after the last covers them all
 * (issue 11 point 10). The first after a quiet time runs at once.
 */
void manager_schedule_resync(struct manager *m, const char *why)
{
	uint64_t now, due;
	int r;

	if (m->resync_source)
		return;
	now = now_monotonic_usec();
	due = m->resync_last_usec + RESYNC_MIN_INTERVAL_USEC;
	if (m->resync_last_usec != 0 && now < due)
		r = sd_event_add_time(m->event, &m->resync_source, CLOCK_MONOTONIC, due, 1000,
				      on_resync_due, m);
	else
		r = sd_event_add_defer(m->event, &m->resync_source, on_resync, m);
	if (r < 0) {
		log_error_errno(r, "Failed to schedule a resync (%s): %m", why);
		resync_retry(m, why);
	}
}

static int on_refresh(sd_event_source *es, void *userdata)
{
	struct manager *m = userdata;

	m->refresh_source = sd_event_source_disable_unref(m->refresh_source);
	/* a refresh may start a resync or free a slot: one at a time, by
	 * index, and look again */
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		if (!s->refresh_pending)
			continue;
		s->refresh_pending = false;
		(void)manager_refresh_slot(m, s);
	}
	return 0;
}

void manager_schedule_refresh(struct manager *m, struct slot *s)
{
	int r;

	s->refresh_pending = true;
	if (m->refresh_source || !m->event)
		return;
	r = sd_event_add_defer(m->event, &m->refresh_source, on_refresh, m);
	if (r >= 0)
		(void)sd_event_source_set_priority(m->refresh_source, SD_EVENT_PRIORITY_IDLE);
	else
		log_warning_errno(r, "Failed to schedule a refresh of %s: %m", s->addr);
}

int manager_refresh_slot(struct manager *m, struct slot *s)
{
	return manager_sync_slot(m, s, SLOT_SYNC_REFRESH);
}

int manager_sync_slot(struct manager *m, struct slot *s, enum slot_sync how)
{
	struct pcierr_pe pe = { 0 };
	int r;

	if (!m->kernel || !m->kernel_connected)
		return -ENOTCONN;
	s->refresh_pending = false;
	r = m->kops->pe_get(m->kernel, s->addr, &pe);
	if (r == -ENODEV) {
		/* the PE went away: its devices at once, the slot itself by a
		 * resync (callers still hold s) */
		struct pcierr_pe none = { .state = s->state, .flags = s->flags,
					  .reset_types = s->reset_types,
					  .generation = s->generation, .id = s->pe_id };

		(void)slot_update(m, s, &none);
		manager_schedule_resync(m, "slot gone");
		return r;
	}
	if (r < 0)
		return r;
	r = slot_update(m, s, &pe);
	pcierr_pe_clear(&pe);
	if (r >= 0)
		observe_slot_synced(s, how);
	return r;
}

int manager_refresh_by_device(struct manager *m, const char *addr, bool act)
{
	struct pcierr_pe pe = { 0 };
	struct slot *s;
	bool is_new = false;
	int r;

	if (!m->kernel || !m->kernel_connected)
		return -ENOTCONN;
	r = m->kops->pe_get_by_device(m->kernel, addr, &pe);
	if (r < 0)
		return r;
	s = manager_find_slot(m, pe.addr);
	if (!s) {
		r = slot_new(m, pe.addr, &s);
		if (r < 0)
			goto out;
		is_new = true;
	}
	r = slot_update(m, s, &pe);
	if (is_new)
		slot_announce(m, s);
	/* a card whose identity was disabled came back: it is taken down
	 * again */
	if (act)
		observe_slot_synced(s, SLOT_SYNC_DEVICE);
out:
	pcierr_pe_clear(&pe);
	return r;
}

void manager_set_kernel_connected(struct manager *m, bool connected)
{
	if (m->kernel_connected == connected)
		return;
	m->kernel_connected = connected;
	if (connected)
		log_info("Kernel shim connected.");
	else
		log_warning("Kernel shim disconnected (pcierr_shim unloaded); waiting for it to come back.");
	sd_notifyf(false, "STATUS=%s", connected ? "Watching PCI slots." :
		   "Kernel shim not loaded; waiting for it.");
	observe_manager_changed(m);
}

/* ---------------------------------------------------------------------- */
/* Methods */

#define MSG(...)	snprintf(msg, msg_size, __VA_ARGS__)

static int kernel_error(struct manager *m, int r, char *msg, size_t msg_size)
{
	const char *why = m->kernel ? m->kops->last_error_message(m->kernel) : NULL;

	if (r == -ENOTCONN || r == -ENOENT) {
		MSG("The kernel shim is not loaded (modprobe pcierr_shim)");
		return -ENOTCONN;
	}
	MSG("The kernel refused: %s", why && *why ? why : strerror(-r));
	return r;
}

int manager_inject(struct manager *m, const char *addr,
		   enum pcierr_channel_state state, uint32_t time_unavail_ms,
		   uint64_t *ret_seq, char *msg, size_t msg_size)
{
	struct device *d = manager_find_device(m, addr);
	int r;

	if (!m->kernel || !m->kernel_connected) {
		MSG("The kernel shim is not loaded (modprobe pcierr_shim)");
		return -ENOTCONN;
	}
	if (!d) {
		MSG("No PCI device %s is known to pcierr", addr);
		return -ENODEV;
	}
	if (state != PCIERR_STATE_FROZEN && state != PCIERR_STATE_PERM_FAILURE) {
		MSG("Invalid state: expected frozen or perm_failure");
		return -EINVAL;
	}
	if (d->slot->state == PCIERR_PE_STATE_DISABLED) {
		MSG("Slot %s is permanently disabled (pcierrctl enable %s)",
		    d->slot->addr, d->slot->addr);
		return -EHOSTDOWN;
	}
	r = m->kops->inject(m->kernel, d->addr, d->slot->pe_id, state, time_unavail_ms, ret_seq);
	if (r < 0)
		return kernel_error(m, r, msg, msg_size);
	log_info("Injected a %s error on %s (seq %llu).", pcierr_state_to_string(state),
		 d->addr, (unsigned long long)*ret_seq);
	return 0;
}

int manager_clear_freeze_count(struct manager *m, const char *addr,
			       char *msg, size_t msg_size)
{
	struct device *d = manager_find_device(m, addr);
	int r;

	if (!d) {
		MSG("No PCI device %s is known to pcierr", addr);
		return -ENODEV;
	}
	if (m->writer) {
		r = state_writer_clear_freeze(m->writer, d->key, d->history.error_gen,
					      d->history.load_id);
		if (r < 0) {
			MSG("Failed to update the state store: %s", strerror(-r));
			return r;
		}
	}
	d->history.count = 0;
	d->history.first_usec = 0;
	d->history.last_usec = 0;
	/* the reply waits for the commit, off the loop (U7, bus-manager.c) */
	log_info("Freeze count of %s cleared.", d->addr);
	observe_device_changed(d);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Life */

int manager_new(struct manager **ret)
{
	struct manager *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	pcierr_config_init(&m->config);
	m->kops = &kernel_ops_libpcierr;
	*ret = m;
	return 0;
}

struct manager *manager_free(struct manager *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_slots; i++)
		slot_free(m->slots[i]);
	free(m->slots);
	addrmap_clear(&m->slot_map);
	addrmap_clear(&m->device_map);
	names_clear(m);
	for (size_t i = 0; i < ELEMENTSOF(m->bus_slots); i++)
		sd_bus_slot_unref(m->bus_slots[i]);
	sd_bus_flush_close_unref(m->bus);
	sd_event_source_disable_unref(m->resync_source);
	sd_event_source_disable_unref(m->resync_timer);
	sd_event_source_disable_unref(m->refresh_source);
	sd_event_source_disable_unref(m->metrics_source);
	m->metrics_writer = metrics_writer_free(m->metrics_writer);
	sd_event_source_disable_unref(m->bus_flush_source);
	sd_event_source_disable_unref(m->sighup_source);
	sd_event_source_disable_unref(m->hold_timer);
	sd_event_source_unref(m->watchdog_source);
	/* the sources' (kernel-source.c, udev-source.c) */
	sd_event_source_disable_unref(m->reconnect_timer);
	sd_event_source_disable_unref(m->kernel_source);
	if (m->kernel)
		m->kops->ctx_free(m->kernel);
	sd_event_source_disable_unref(m->udev_source);
	sd_event_source_disable_unref(m->udev_flush_source);
	free(m->udev_new);
	free(m->udev_removed);
	udev_monitor_unref(m->udev_monitor);
	udev_unref(m->udev);
	/* what is queued is written before the end */
	state_writer_free(m->writer);
	pcierr_state_close(m->state);
	pci_names_close(m->pci);
	pcierr_config_done(&m->config);
	free(m->state_path);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

static int on_sighup(sd_event_source *es, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	/* no reload: the configuration is read at the start only (restart
	 * to change it); a SIGHUP looks at the kernel again (review L10) */
	log_info("SIGHUP: resynchronising with the kernel (the configuration is read at start; restart pcierrd to change it).");
	if (m->kernel)
		manager_schedule_resync(m, "SIGHUP");
	return 0;
}

int manager_prepare(struct manager *m, bool use_bus)
{
	static const int exit_signals[] = { SIGTERM, SIGINT };
	int r;

	if (!m->event) {
		r = sd_event_default(&m->event);
		if (r < 0)
			return log_error_errno(r, "Failed to allocate the event loop: %m");
	}
	for (size_t i = 0; i < ELEMENTSOF(exit_signals); i++) {
		r = sd_event_add_signal(m->event, NULL, exit_signals[i] | SD_EVENT_SIGNAL_PROCMASK,
					NULL, NULL);
		if (r < 0)
			return log_error_errno(r, "Failed to watch signal %d: %m", exit_signals[i]);
	}
	r = sd_event_add_signal(m->event, &m->sighup_source, SIGHUP | SD_EVENT_SIGNAL_PROCMASK,
				on_sighup, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch SIGHUP: %m");
	/* WATCHDOG=1 as often as the service manager wants it */
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog: %m");

	if (!m->pci) {
		r = pci_names_open(&m->pci);
		if (r < 0)
			log_warning_errno(r, "Failed to open the PCI name database, no names: %m");
	}

	if (use_bus) {
		r = sd_bus_open_system(&m->bus);
		if (r < 0)
			return log_error_errno(r, "Failed to connect to the system bus: %m");
		/* a lost bus ends the loop with a failure: systemd restarts
		 * pcierrd (Restart=on-failure), no half-alive daemon (L1) */
		r = sd_bus_set_exit_on_disconnect(m->bus, true);
		if (r < 0)
			return log_error_errno(r, "Failed to set exit-on-disconnect: %m");
		r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
		if (r < 0)
			return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
	}
	return 0;
}

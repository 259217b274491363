// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The udev monitor on the pci subsystem. With systemd-udevd running the
 * events come after udev processed them (what a hotplug fallback waits
 * for); without it (a minimal system, the test VM) straight from the
 * kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libudev.h>

#include "log.h"
#include "macro.h"
#include "recovery.h"
#include "udev-source.h"
#include "uevent.h"

static const char *get_property(const char *key, void *userdata)
{
	return udev_device_get_property_value(userdata, key);
}

/*
 * A burst of uevents (the VFs an SR-IOV enable adds, a rescan below a
 * switch) is read in one go and acted on together (review U8): each slot
 * named is read from the shim once, and a device no slot holds yet is
 * looked up only if no earlier read of the batch found it. At most
 * UDEV_BATCH_GETS such lookups per batch (and UDEV_BATCH_MAX devices
 * queued); beyond, one resync reads every PE instead. An AER uevent sees
 * the slots as the uevents before it left them: the batch is acted on
 * first.
 */
#define UDEV_BATCH_GETS	32
#define UDEV_BATCH_MAX	1024

static int on_udev_flush(sd_event_source *es, void *userdata)
{
	udev_source_flush(userdata);
	return 0;
}

static void batch_schedule(struct manager *m)
{
	int r;

	if (m->udev_flush_source)
		return;
	if (!m->event) {
		udev_source_flush(m);
		return;
	}
	r = sd_event_add_defer(m->event, &m->udev_flush_source, on_udev_flush, m);
	if (r < 0) {
		log_warning_errno(r, "Failed to defer the udev batch: %m");
		udev_source_flush(m);
	}
}

static int batch_append(char (**list)[PCIERR_ADDR_MAX], size_t *n, const char *addr)
{
	char (*l)[PCIERR_ADDR_MAX];

	/* the same device named twice in a row (its add, then its bind) */
	if (*n > 0 && strcmp((*list)[*n - 1], addr) == 0)
		return 0;
	if (*n >= UDEV_BATCH_MAX)
		return -ENOBUFS;
	l = reallocarray(*list, *n + 1, sizeof(**list));
	if (!l)
		return -ENOMEM;
	*list = l;
	snprintf(l[(*n)++], sizeof(*l), "%s", addr);
	return 0;
}

static void batch_device(struct manager *m, const char *addr, bool removed)
{
	struct device *d = manager_find_device(m, addr);

	if (d) {
		if (removed)
			d->slot->udev_refresh_pending = true;
		else
			d->slot->udev_device_pending = true;
	} else if (!removed && !m->udev_new_overflow &&
		   batch_append(&m->udev_new, &m->n_udev_new, addr) < 0) {
		m->udev_new_overflow = true;
		m->n_udev_new = 0;
	}
	/* the recovery waiting for it hears of it after the reads */
	if (removed && batch_append(&m->udev_removed, &m->n_udev_removed, addr) < 0) {
		udev_source_flush(m);
		recovery_on_device_removed(m, addr);
		return;
	}
	batch_schedule(m);
}

static void batch_resync(struct manager *m)
{
	log_debug("A burst of uevents named more new devices than a batch reads: resynchronising.");
	/* every slot is read and acted on: the marks are covered */
	for (size_t i = 0; i < m->n_slots; i++)
		m->slots[i]->udev_device_pending = m->slots[i]->udev_refresh_pending = false;
	(void)manager_resync(m, "udev burst");
}

void udev_source_flush(struct manager *m)
{
	_cleanup_free_ char (*removed)[PCIERR_ADDR_MAX] = TAKE_PTR(m->udev_removed);
	size_t n_removed = m->n_udev_removed;
	unsigned int gets = 0;
	int r;

	m->udev_flush_source = sd_event_source_disable_unref(m->udev_flush_source);
	m->n_udev_removed = 0;

	if (m->udev_new_overflow) {
		m->udev_new_overflow = false;
		m->n_udev_new = 0;
		batch_resync(m);
	}

	/* a read may act and change the slots: by index, look again */
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];
		enum slot_sync how;

		if (!s->udev_device_pending && !s->udev_refresh_pending)
			continue;
		how = s->udev_device_pending ? SLOT_SYNC_DEVICE : SLOT_SYNC_REFRESH;
		s->udev_device_pending = s->udev_refresh_pending = false;
		r = manager_sync_slot(m, s, how);
		if (r < 0 && r != -ENOTCONN && r != -ENODEV)
			log_debug_errno(r, "Failed to refresh slot %s: %m", s->addr);
	}

	for (size_t i = 0; i < m->n_udev_new; i++) {
		const char *addr = m->udev_new[i];

		/* a read of this batch found it already */
		if (manager_find_device(m, addr))
			continue;
		if (gets++ == UDEV_BATCH_GETS) {
			batch_resync(m);
			break;
		}
		r = manager_refresh_by_device(m, addr, true);
		if (r < 0 && r != -ENOTCONN && r != -ENODEV)
			log_debug_errno(r, "Failed to refresh the slot of %s: %m", addr);
	}
	m->n_udev_new = 0;

	for (size_t i = 0; i < n_removed; i++)
		recovery_on_device_removed(m, removed[i]);
}

void udev_source_dispatch(struct manager *m, const struct pcierr_uevent *uev)
{
	const struct pcierr_uevent u = *uev;

	switch (u.type) {
	case PCIERR_UEVENT_ADD:
	case PCIERR_UEVENT_BIND:
	case PCIERR_UEVENT_UNBIND:
		batch_device(m, u.addr, false);
		break;
	case PCIERR_UEVENT_REMOVE:
		batch_device(m, u.addr, true);
		break;
	case PCIERR_UEVENT_AER:
		udev_source_flush(m);
		recovery_on_aer(m, &u);
		break;
	default:
		break;
	}
}

static void on_uevent(struct manager *m, struct udev_device *dev)
{
	struct pcierr_uevent u;
	int r;

	r = pcierr_uevent_parse(udev_device_get_subsystem(dev),
				udev_device_get_action(dev),
				udev_device_get_sysname(dev),
				get_property, dev, &u);
	if (r < 0) {
		log_debug_errno(r, "Ignoring a malformed uevent of %s: %m",
				udev_device_get_sysname(dev));
		return;
	}
	udev_source_dispatch(m, &u);
}

void udev_source_overrun(struct manager *m)
{
	/* add, remove and AER uevents were lost: the kernel still knows
	 * the topology; a waiting WAIT_UDEV ends by its bound (review L2) */
	log_warning("The udev monitor overran (ENOBUFS): uevents were lost; resynchronising.");
	if (m->kernel)
		manager_schedule_resync(m, "udev overrun");
}

static int on_udev_io(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;

	for (;;) {
		struct udev_device *dev;

		errno = 0;
		dev = udev_monitor_receive_device(m->udev_monitor);
		if (!dev) {
			if (errno == ENOBUFS)
				udev_source_overrun(m);
			break;
		}
		on_uevent(m, dev);
		udev_device_unref(dev);
	}
	return 0;
}

int udev_source_start(struct manager *m)
{
	const char *source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel";
	int r;

	m->udev = udev_new();
	if (!m->udev)
		return log_error_errno(ENOMEM, "Failed to create the udev context: %m");
	m->udev_monitor = udev_monitor_new_from_netlink(m->udev, source);
	if (!m->udev_monitor)
		return log_error_errno(errno ? errno : ENOMEM,
				       "Failed to create the udev monitor: %m");
	r = udev_monitor_filter_add_match_subsystem_devtype(m->udev_monitor, "pci", NULL);
	if (r < 0)
		return log_error_errno(r, "Failed to filter the udev monitor: %m");
	/* a storm of uevents must not be lost to a small buffer */
	(void)udev_monitor_set_receive_buffer_size(m->udev_monitor, 8 * 1024 * 1024);
	r = udev_monitor_enable_receiving(m->udev_monitor);
	if (r < 0)
		return log_error_errno(r, "Failed to start the udev monitor: %m");
	r = sd_event_add_io(m->event, &m->udev_source,
			    udev_monitor_get_fd(m->udev_monitor), EPOLLIN, on_udev_io, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the udev monitor: %m");
	log_debug("Watching %s events of the pci subsystem.", source);
	return 0;
}

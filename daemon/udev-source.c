// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The udev monitor on the pci subsystem. With systemd-udevd running the
 * events come after udev processed them (what a hotplug fallback waits
 * for); without it (a minimal system, the test VM) straight from the
 * kernel.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <libudev.h>

#include "log.h"
#include "recovery.h"
#include "udev-source.h"
#include "uevent.h"

static const char *get_property(const char *key, void *userdata)
{
	return udev_device_get_property_value(userdata, key);
}

void udev_source_dispatch(struct manager *m, const struct pcierr_uevent *uev)
{
	const struct pcierr_uevent u = *uev;
	int r;

	switch (u.type) {
	case PCIERR_UEVENT_ADD:
	case PCIERR_UEVENT_BIND:
	case PCIERR_UEVENT_UNBIND:
		r = manager_refresh_by_device(m, u.addr, true);
		if (r < 0 && r != -ENOTCONN && r != -ENODEV)
			log_debug_errno(r, "Failed to refresh the slot of %s: %m", u.addr);
		break;
	case PCIERR_UEVENT_REMOVE: {
		struct device *d = manager_find_device(m, u.addr);

		if (d)
			(void)manager_refresh_slot(m, d->slot);
		recovery_on_device_removed(m, u.addr);
		break;
	}
	case PCIERR_UEVENT_AER:
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

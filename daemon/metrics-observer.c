// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metrics file ([Manager] MetricsPath=, metrics.h) as an observer of
 * pcierrd's model (observer.h): any change it hears of schedules one
 * snapshot, after everything else the loop has to do (a recovery's command
 * and its signals go first; a burst of changes is one snapshot). The loop
 * only formats it in memory; the file is written by the metrics writer's
 * thread (metrics-writer.h), so a hung disk never stops the loop.
 */
#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "metrics.h"
#include "metrics-observer.h"
#include "metrics-writer.h"
#include "observer.h"

static int on_metrics(sd_event_source *es, void *userdata)
{
	struct manager *m = userdata;
	_cleanup_free_ struct pcierr_metrics_device *devs = NULL;
	_cleanup_free_ struct pcierr_metrics_pe *pes = NULL;
	struct pcierr_metrics mt = { 0 };
	struct pcierr_stats st;
	size_t n = 0;
	int r;

	m->metrics_source = sd_event_source_unref(m->metrics_source);
	if (!m->config.metrics_path)
		return 0;

	for (size_t i = 0; i < m->n_slots; i++)
		n += m->slots[i]->n_devices;
	devs = calloc(n ? n : 1, sizeof(*devs));
	pes = calloc(m->n_slots ? m->n_slots : 1, sizeof(*pes));
	if (!devs || !pes)
		return log_error_errno(ENOMEM, "Failed to write the metrics: %m");

	mt.kernel_connected = m->kernel_connected;
	if (m->kernel && m->kops->stats_get(m->kernel, &st) == 0)
		for (size_t i = 0; i < __PCIERR_STAT_MAX && i < PCIERR_STATS_CAPACITY; i++)
			mt.kernel[i] = st.counter[i];
	mt.recoveries_started = m->counters.recoveries_started;
	mt.recoveries_succeeded = m->counters.recoveries_succeeded;
	mt.recoveries_failed = m->counters.recoveries_failed;
	mt.hotplug_fallbacks = m->counters.hotplug_fallbacks;
	mt.permanent_disables = m->counters.permanent_disables;
	mt.resyncs = m->counters.resyncs;
	mt.verify_failures = m->counters.verify_failures;
	mt.nonfatal_errors = m->counters.nonfatal_errors;

	n = 0;
	for (size_t i = 0; i < m->n_slots; i++) {
		struct slot *s = m->slots[i];

		pes[i].address = s->addr;
		pes[i].state = s->state;
		for (size_t j = 0; j < s->n_devices; j++) {
			struct device *d = s->devices[j];

			devs[n].address = d->addr;
			devs[n].has_ids = true;
			devs[n].vendor = d->vendor;
			devs[n].device = d->device;
			devs[n].driver = d->driver;
			devs[n].freeze_count = d->history.count;
			devs[n].disabled = d->history.disabled;
			n++;
		}
	}
	mt.devices = devs;
	mt.n_devices = n;
	mt.pes = pes;
	mt.n_pes = m->n_slots;

	{
		char *text = NULL;
		size_t size = 0;

		r = pcierr_metrics_to_text(&mt, &text, &size);
		if (r >= 0)
			r = metrics_writer_submit(m->metrics_writer, m->config.metrics_path,
						  text, size);
	}
	if (r < 0)
		log_warning_errno(r, "Failed to write the metrics to %s: %m",
				  m->config.metrics_path);
	return 0;
}

static void schedule_write(struct manager *m)
{
	int r;

	if (!m->config.metrics_path || m->metrics_source || !m->event || !m->metrics_writer)
		return;
	r = sd_event_add_defer(m->event, &m->metrics_source, on_metrics, m);
	if (r < 0)
		log_warning_errno(r, "Failed to schedule the metrics: %m");
	else	/* after everything else the loop has to do */
		(void)sd_event_source_set_priority(m->metrics_source, SD_EVENT_PRIORITY_IDLE);
}

static void on_slot(struct slot *s) { schedule_write(s->manager); }
static void on_device(struct device *d) { schedule_write(d->manager); }
static void on_manager(struct manager *m) { schedule_write(m); }
static void on_report(struct manager *m, const struct recovery_report *r) { schedule_write(m); }
static void on_synced(struct slot *s, enum slot_sync how) { schedule_write(s->manager); }

static const struct manager_observer metrics_observer = {
	.slot_added = on_slot,
	.slot_removed = on_slot,
	.slot_changed = on_slot,
	.device_added = on_device,
	.device_removed = on_device,
	.device_changed = on_device,
	.manager_changed = on_manager,
	.report = on_report,
	.slot_synced = on_synced,
};

int metrics_observer_setup(struct manager *m)
{
	int r;

	if (!m->config.metrics_path)
		return 0;
	if (!m->metrics_writer) {
		r = metrics_writer_new(&m->metrics_writer);
		if (r < 0)
			return r;
	}
	r = manager_add_observer(m, &metrics_observer);
	if (r < 0)
		return r;
	/* the first write, whatever the start finds (no PE at all, too) */
	schedule_write(m);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's manager: the daemon's one picture of the world and the glue
 * between its sources and its sinks.
 *
 *   kernel-source.c   shim EVENT/OP_DONE/OVERFLOW/family  ┐
 *   udev-source.c     add/remove/bind/unbind, AER uevents ├→ manager.c
 *                                                         │   (slots, devices,
 *                                                         │    resync)
 *   recovery.c        policy_step() per slot, carries out ←┘
 *                     its action, persists its effects
 *   bus-*.c           org.pcierr1 objects, signals, methods
 *   state.c metrics.c log.c
 *
 * A slot is one PE of the shim (named by its address); its devices are the
 * shim's devices of that PE. Everything runs on the one sd-event loop:
 * nothing here needs a lock.
 */
#ifndef PCIERRD_MANAGER_H
#define PCIERRD_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include <pcierr/pcierr.h>

#include "addrmap.h"
#include "config.h"
#include "kernel-ops.h"
#include "macro.h"
#include "observer.h"
#include "policy.h"
#include "state.h"

struct state_writer;
struct udev;
struct udev_monitor;
struct pci_names;
struct manager;

struct device {
	struct manager *manager;
	struct slot *slot;
	char addr[PCIERR_ADDR_MAX];
	char *path;			/* D-Bus object path */

	uint16_t vendor, device, subvendor, subdevice;
	uint32_t class;			/* class << 8 | prog-if */
	uint64_t dsn;
	bool has_dsn;
	char *driver;			/* "" when none, never NULL */
	uint32_t handlers;		/* 1 << enum pcierr_handler */
	enum pcierr_channel_state state;
	uint32_t error_gen;
	uint32_t flags;			/* PCIERR_DEV_F_* */

	char *vendor_name;		/* udev hwdb; "" if unknown, never NULL */
	char *device_name;

	char key[PCIERR_IDENTITY_KEY_MAX];	/* identity (state.h) */
	struct pcierr_freeze_record history;	/* of that identity */
	char *disabled_reason;		/* "" unless history.disabled */
	pcierr_usec_t last_error_usec;	/* wall clock; 0: never */

	bool announced;			/* InterfacesAdded sent */
	bool bus_dirty;			/* a PropertiesChanged is due (bus-manager.c) */
};

/* What a slot's recovery looks like from outside (D-Bus, pcierrctl) */
struct slot_status {
	char last_result[32];		/* "", recovered, failed, disabled, gone */
	pcierr_usec_t last_duration_usec;
	pcierr_usec_t last_finished_usec;	/* wall clock */
	char message[768];		/* human words for the last result */
};

struct slot {
	struct manager *manager;
	char addr[PCIERR_ADDR_MAX];
	char *path;			/* D-Bus object path */

	enum pcierr_pe_state state;	/* the shim's */
	uint32_t flags;			/* PCIERR_PE_F_* */
	struct pcierr_last_op last_op;	/* the shim's, as last seen (op_id 0: none) */
	uint32_t reset_types;
	uint32_t generation;
	uint64_t pe_id;			/* the shim's PE id last seen: named in
					 * every command (ESTALE if it changed) */
	enum pcierr_backend backend;	/* who recovers it (docs/pseries.md) */

	struct device **devices;	/* in bus order */
	size_t n_devices;

	/* recovery (recovery.c) */
	struct pcierr_recovery rec;
	sd_event_source *timer;		/* step timeout or wait */
	uint64_t op_id;			/* of the operation in flight; 0: none */
	enum pcierr_cmd op;		/* ... and its command */
	enum pcierr_step op_step;	/* ... and its step (REPORT) */
	unsigned int op_checks;		/* the kernel asked after it (H1) */
	bool waiting_udev;		/* WAIT_UDEV in progress */
	/* devices removed by REMOVE whose udev removal is not seen yet */
	char (*udev_pending)[PCIERR_ADDR_MAX];
	size_t n_udev_pending;
	/* a partial REMOVE: one shim operation per device, in turn */
	char (*remove_queue)[PCIERR_ADDR_MAX];
	size_t n_remove_queue;
	int remove_error;		/* the first error among them */
	bool admin_reset;		/* the next freeze event is a Reset call */
	uint64_t admin_seq;		/* ... with this seq */
	pcierr_usec_t admin_deadline;	/* ... expected until (monotonic) */
	enum pcierr_reset_type admin_type;
	bool outside_policy;		/* op_id is a resync RESCAN or an ENABLE */
	const char *mode;		/* of the recovery under way (static) */
	char disabled_device[PCIERR_ADDR_MAX];	/* named when disabling */
	int64_t history_id;		/* of the recovery's EVENT entry */
	/* a RECOVER just sent: its "recover started" history entry is
	 * queued after the input's effects (recovery.c, feed_then()) */
	uint64_t recover_mark;
	/* the last operation whose end this pcierrd saw to, or looked for
	 * in the history after a restart (recovery_resync_lost_end()) */
	uint64_t end_checked;
	pcierr_usec_t step_started_mono;	/* CLOCK_MONOTONIC */
	struct slot_status status;

	bool announced;			/* InterfacesAdded sent */
	bool seen;			/* mark-and-sweep during a resync */
	bool refresh_pending;		/* a deferred refresh is asked for */
	bool bus_dirty;			/* a PropertiesChanged is due (bus-manager.c) */
	/* freeze events folded into the recovery under way, not yet
	 * written to the history (one "N further" entry at its end) */
	uint64_t folded;
	/* pre-authorised automatic recovery (recovery.c, PCIERR_CMD_ARM):
	 * armed for the PE id armed_pe_id, no EVENT of the PE seen since */
	bool armed;
	uint64_t armed_pe_id;
	enum pcierr_reset_type armed_type;
	/* the RECOVER the shim started on its own for the freeze being
	 * handled (its EVENT's auto_op_id): awaited, not sent */
	uint64_t auto_op_id;
};

struct manager_counters {
	uint64_t events_received;
	uint64_t events_lost;
	/* events for a PE already recovering, folded into that recovery
	 * (a counter, no refresh, no signal, no history row of their own):
	 * every event received is processed or folded; every one the kernel
	 * could not deliver is in events_lost */
	uint64_t events_folded;
	uint64_t recoveries_started;
	uint64_t recoveries_succeeded;
	uint64_t recoveries_failed;
	uint64_t hotplug_fallbacks;
	uint64_t permanent_disables;
	uint64_t resyncs;
};

struct manager {
	sd_event *event;
	bool arm_unsupported;		/* the shim refused PCIERR_CMD_ARM (older) */
	const struct kernel_ops *kops;	/* libpcierr, or a test's double */
	sd_bus *bus;			/* NULL: --no-bus */
	const struct manager_observer *observer;	/* NULL: nobody */
	void *observer_data;		/* for the observer's own use */
	sd_bus_slot *bus_slots[8];

	struct pcierr_config config;
	char *state_path;
	struct pcierr_state *state;	/* reads (the loop's connection) */
	struct state_writer *writer;	/* writes (state-writer.h) */

	struct pcierr_ctx *kernel;	/* NULL while the shim is away */
	sd_event_source *kernel_source;
	bool kernel_connected;
	/* PCIERR_STAT_LOAD_ID of the shim connected (0: it does not say):
	 * which load the devices' error generations belong to */
	uint64_t shim_load_id;
	uint64_t next_seq;		/* the seq expected next; 0: any */
	unsigned int kernel_read_errors;	/* in a row */
	sd_event_source *resync_source;	/* a deferred resync */
	sd_event_source *resync_timer;	/* a failed resync tried again */
	pcierr_usec_t resync_backoff;	/* its next delay; 0: none failed */
	bool resync_failed;		/* the latest resync failed */
	uint64_t resync_last_usec;	/* CLOCK_MONOTONIC; 0: none yet */
	sd_event_source *refresh_source;	/* deferred slot refreshes */
	sd_event_source *reconnect_timer;

	struct udev *udev;
	struct udev_monitor *udev_monitor;
	sd_event_source *udev_source;

	struct pci_names *pci;		/* hwdb names; NULL if unavailable */

	struct slot **slots;		/* in the order they were found */
	size_t n_slots, slots_cap;
	struct addrmap slot_map;	/* addr -> struct slot * */
	struct addrmap device_map;	/* addr -> struct device * */
	struct addrmap name_map;	/* "vvvv:dddd" -> its names (cache) */
	bool no_udev;			/* tests: no udev monitor */
	bool quiet;			/* the start: no InterfacesAdded before
					 * the name is ours */

	struct manager_counters counters;
	sd_event_source *metrics_source;	/* deferred metrics write */
	/* coalesced PropertiesChanged (bus-manager.c) */
	sd_event_source *bus_flush_source;
	bool bus_manager_dirty, bus_objects_dirty;
	uint64_t bus_flushed_usec;	/* CLOCK_MONOTONIC */
	sd_event_source *watchdog_source;
	sd_event_source *sighup_source;
};

int manager_new(struct manager **ret);
struct manager *manager_free(struct manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct manager *, manager_free);

/*
 * The start, in four steps (config and state are set by main() before):
 *   manager_prepare(m, use_bus)   event loop, signals, names, bus connection
 *   bus_setup(m)                  (bus.h: vtables, installs its observer)
 *   manager_start(m)              udev, the shim, the first (quiet) resync
 *   bus_request_name(m)           (bus.h)
 */
int manager_prepare(struct manager *m, bool use_bus);
int manager_start(struct manager *m);

/* Dump every PE from the shim, update slots and devices, act on PEs that
 * are not healthy (a freeze missed while pcierrd was down or events were
 * lost). Announces changes on the bus. */
int manager_resync(struct manager *m, const char *why);
/* ... on the next loop iteration (from inside callbacks) */
void manager_schedule_resync(struct manager *m, const char *why);

/* Update one slot from the shim (after an operation, on udev add/remove) */
int manager_refresh_slot(struct manager *m, struct slot *s);
/* act: a slot found not healthy (a disabled card back) is acted on */
int manager_refresh_by_device(struct manager *m, const char *addr, bool act);

struct slot *manager_find_slot(struct manager *m, const char *addr);
struct device *manager_find_device(struct manager *m, const char *addr);
/* the slot whose address is addr, or which holds the device addr */
struct slot *manager_find_slot_for(struct manager *m, const char *addr);

/* Refresh s from the shim soon (after the loop's current work: the
 * recovery has acted) */
void manager_schedule_refresh(struct manager *m, struct slot *s);

/* A device that belongs to no slot of ours any more */
void manager_drop_device(struct manager *m, struct device *d);

void manager_set_kernel_connected(struct manager *m, bool connected);

/* Persist the device's freeze record; updates d->history */
int manager_save_history(struct manager *m, struct device *d,
			 const struct pcierr_freeze_record *rec);

/* Write the metrics file soon (when MetricsPath= is set) */
void manager_schedule_metrics(struct manager *m);

/*
 * Methods (used by the D-Bus side). They return 0 or a negative errno and
 * fill msg (at most msg_size bytes) with words for the caller on error:
 *   -EINVAL   bad argument            -ENODEV  no such device or slot
 *   -EBUSY    a recovery is running   -ENOTCONN the shim is not loaded
 *   -EOPNOTSUPP the slot lacks that reset type
 */
int manager_inject(struct manager *m, const char *addr,
		   enum pcierr_channel_state state, uint32_t time_unavail_ms,
		   uint64_t *ret_seq, char *msg, size_t msg_size);
int manager_reset(struct manager *m, const char *addr,
		  enum pcierr_reset_type type, char *msg, size_t msg_size);
int manager_enable(struct manager *m, const char *addr,
		   char *msg, size_t msg_size);
int manager_clear_freeze_count(struct manager *m, const char *addr,
			       char *msg, size_t msg_size);

/* Wall clock and monotonic clock, in µs */
pcierr_usec_t now_realtime_usec(void);
pcierr_usec_t now_monotonic_usec(void);
/* durations of recoveries (it counts a suspend too, L4) */
pcierr_usec_t now_boottime_usec(void);

#endif /* PCIERRD_MANAGER_H */

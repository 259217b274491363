/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's manager: the daemon's one picture of the world, kept current
 * by its sources, told to its observers.
 *
 *   kernel-source.c   shim EVENT/OP_DONE/OVERFLOW/family  ┐
 *   udev-source.c     add/remove/bind/unbind, AER uevents ├→ manager.c (slots,
 *                                                         │   devices, resync)
 *                                                         └→ recovery*.c
 *   observers (observer.h), told by manager.c and recovery*.c:
 *     recovery.c        acts on slots a resync finds unhealthy, lost ends
 *                       (recovery.c names the parts of the recovery)
 *     bus-*.c           org.pcierr1 objects, signals, methods
 *     metrics-observer.c the metrics file
 *   start.c puts them together; state.c log.c below them all.
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
#include "slot-recovery.h"
#include "slot-hold.h"
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
	/* the kernel's non-fatal AER recoveries of this device that pcierrd
	 * followed (recorded, never counted as freezes: U3) */
	uint64_t nonfatal_errors;
	/* the kernel's AER counters as last read (aer-stats.h): a kernel
	 * recovery's severity is what changed since */
	uint64_t aer_fatal_seen, aer_nonfatal_seen;
	uint64_t aer_rp_fatal_seen, aer_rp_nonfatal_seen;	/* a root port's */
	bool aer_known;			/* ... read at least once */

	bool announced;			/* InterfacesAdded sent */
	bool bus_dirty;			/* a PropertiesChanged is due (bus-manager.c) */
	bool kept;			/* mark-and-sweep during slot_update() */
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

	struct slot_recovery recovery;	/* recovery*.c's (slot-recovery.h) */
	struct slot_hold hold;		/* hold.c's (slot-hold.h) */
	struct slot_status status;
	/* the PE's own freezes (EEH's pe->freeze_count), in memory as EEH
	 * keeps it; the cards' counts are the persisted ones */
	struct pcierr_freeze_record pe_history;

	bool announced;			/* InterfacesAdded sent */
	bool seen;			/* mark-and-sweep during a resync */
	bool refresh_pending;		/* a deferred refresh is asked for */
	/* udev events of its devices wait for the batch's one read (U8):
	 * an add, bind or unbind (SLOT_SYNC_DEVICE), a removal (a refresh) */
	bool udev_device_pending, udev_refresh_pending;
	bool bus_dirty;			/* a PropertiesChanged is due (bus-manager.c) */
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
	/* the kernel's non-fatal AER recoveries followed (never freezes) */
	uint64_t nonfatal_errors;
	uint64_t resyncs;
	/* checks after a recovery that found the function not back (each
	 * one, whether it escalated or ended the recovery failed) */
	uint64_t verify_failures;
};

struct manager {
	sd_event *event;
	bool arm_unsupported;		/* the shim refused PCIERR_CMD_ARM (older) */
	uint64_t recovery_ids;		/* the last recovery id given (U9) */
	bool hold_unsupported;		/* ... PCIERR_CMD_HOLD (older) */
	sd_event_source *hold_timer;	/* hold.c: lease renewals */
	const struct kernel_ops *kops;	/* libpcierr, or a test's double */
	sd_bus *bus;			/* NULL: --no-bus */
	const struct manager_observer *observers[MANAGER_OBSERVERS_MAX];
	size_t n_observers;
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
	/* lost kernel events not in the journal yet: one warning a second
	 * at most under a storm (kernel-source.c, count_lost()) */
	struct {
		pcierr_usec_t logged;	/* CLOCK_MONOTONIC; 0: never */
		uint64_t events, times;
	} lost_unlogged;
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
	/* the uevents read in one go, acted on together (udev-source.c, U8):
	 * devices no slot holds yet, devices removed (in order) */
	sd_event_source *udev_flush_source;
	char (*udev_new)[PCIERR_ADDR_MAX];
	size_t n_udev_new;
	bool udev_new_overflow;		/* more than fit: one resync instead */
	char (*udev_removed)[PCIERR_ADDR_MAX];
	size_t n_udev_removed;

	struct pci_names *pci;		/* hwdb names; NULL if unavailable */

	struct slot **slots;		/* in the order they were found */
	size_t n_slots, slots_cap;
	struct addrmap slot_map;	/* addr -> struct slot * */
	struct addrmap device_map;	/* addr -> struct device * */
	struct addrmap name_map;	/* "vvvv:dddd" -> its names (cache) */
	bool no_udev;			/* tests: no udev monitor */
	const char *sysfs_pci;		/* tests: NULL = /sys/bus/pci/devices */
	bool quiet;			/* the start: no InterfacesAdded before
					 * the name is ours */

	struct manager_counters counters;
	sd_event_source *metrics_source;	/* deferred metrics write */
	struct metrics_writer *metrics_writer;	/* its thread (metrics-writer.h) */
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
 *   pcierrd_start(m)              (start.h: the recovery, udev, the shim,
 *                                 the first quiet resync)
 *   bus_request_name(m)           (bus.h)
 * manager_free() releases what the sources hold (the shim's context, the
 * udev monitor) with the rest.
 */
int manager_prepare(struct manager *m, bool use_bus);

/* Dump every PE from the shim, update slots and devices, act on PEs that
 * are not healthy (a freeze missed while pcierrd was down or events were
 * lost). Announces changes on the bus. */
int manager_resync(struct manager *m, const char *why);
/* ... on the next loop iteration (from inside callbacks) */
void manager_schedule_resync(struct manager *m, const char *why);

/* Update one slot from the shim (after an operation, on udev add/remove) */
int manager_refresh_slot(struct manager *m, struct slot *s);
/* ... telling the observers why it was read (observer.h) */
int manager_sync_slot(struct manager *m, struct slot *s, enum slot_sync how);
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

/*
 * Methods (used by the D-Bus side; Reset and Enable are recovery.h's). They
 * return 0 or a negative errno and
 * fill msg (at most msg_size bytes) with words for the caller on error:
 *   -EINVAL   bad argument            -ENODEV  no such device or slot
 *   -EBUSY    a recovery is running   -ENOTCONN the shim is not loaded
 *   -EOPNOTSUPP the slot lacks that reset type
 */
int manager_inject(struct manager *m, const char *addr,
		   enum pcierr_channel_state state, uint32_t time_unavail_ms,
		   uint64_t *ret_seq, char *msg, size_t msg_size);
int manager_clear_freeze_count(struct manager *m, const char *addr,
			       char *msg, size_t msg_size);

/* Wall clock and monotonic clock, in µs */
pcierr_usec_t now_realtime_usec(void);
pcierr_usec_t now_monotonic_usec(void);
/* durations of recoveries (it counts a suspend too, L4) */
pcierr_usec_t now_boottime_usec(void);

#endif /* PCIERRD_MANAGER_H */

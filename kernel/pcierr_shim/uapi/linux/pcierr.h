/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * pcierr: PCI error recovery, the kernel ABI.
 *
 * This header is the whole contract between the pcierr_shim kernel module
 * and userspace (libpcierr, pcierrd, tests). Everything here is append-only:
 * enums keep their values, new values go before the __*_MAX sentinel,
 * _UNSPEC is always 0 and never sent.
 *
 * Transport: generic netlink family PCIERR_GENL_NAME, version
 * PCIERR_GENL_VERSION, multicast group PCIERR_MCGRP_EVENTS.
 *
 * Naming
 *   A PE ("partitionable endpoint", the unit of isolation and reset) is all
 *   devices on the secondary bus of one bridge (a root port, a downstream
 *   port, a PCI bridge), or a single device on a root bus. A PE is named by
 *   the address of that bridge (or of that single device). Every PCI device
 *   of the system belongs to exactly one PE; bridges belong to the PE of the
 *   bus they sit on. Addresses are strings in the kernel's pci_name() form,
 *   "DDDD:BB:DD.F" (hex), at most PCIERR_ADDR_MAX bytes with the NUL.
 *
 * Commands (request -> reply). Every command that changes state requires
 * CAP_NET_ADMIN (GENL_ADMIN_PERM) and fails with EPERM otherwise.
 * Attributes are validated strictly: unknown attributes, wrong types and
 * out-of-range values fail with EINVAL and an extack message.
 *
 *   PCIERR_CMD_GET_PE         doit: PCIERR_A_PE or PCIERR_A_DEVICE (the PE
 *                             holding that device) -> one PE message.
 *                             dump: every PE, one message each. Dumps are
 *                             checked against the topology generation
 *                             (NLM_F_DUMP_INTR is set if the topology
 *                             changed while dumping: retry).
 *       PE message: PCIERR_A_PE, PCIERR_A_PE_STATE, PCIERR_A_PE_FLAGS,
 *       PCIERR_A_RESET_TYPES, PCIERR_A_GENERATION, PCIERR_A_WATCH_INTERVAL_MS,
 *       PCIERR_A_PE_DEVICES (nest; each entry, of type PCIERR_A_PE_DEVICES_ENTRY,
 *       is a nest of PCIERR_DEV_A_*: address, ids, driver, handlers, channel
 *       state, error generation).
 *
 *   PCIERR_CMD_GET_STATS      -> PCIERR_A_STATS (nest of PCIERR_STAT_* u64).
 *
 *   PCIERR_CMD_INJECT   [A]   PCIERR_A_DEVICE, optional PCIERR_A_STATE
 *                             (FROZEN, the default, or PERM_FAILURE),
 *                             optional PCIERR_A_TIME_UNAVAIL_MS.
 *                             A software detection: the device's PE is
 *                             frozen (memory and I/O decode and bus
 *                             mastering off, INTx disabled, MSI-X masked,
 *                             every device's error_state set) and an EVENT
 *                             is raised exactly as a real detection would.
 *                             Reply: PCIERR_A_SEQ of the queued event.
 *
 * Asynchronous recovery operations. Each is queued on the PE's own ordered
 * work queue and replied to at once with PCIERR_A_OP_ID; its completion is
 * the multicast OP_DONE with the same id. One operation per PE at a time:
 * a second one fails with EBUSY. Driver callbacks, resets and hotplug run
 * from that work queue, never under a netlink lock, so a driver that
 * sleeps stalls only its own PE.
 *
 *   PCIERR_CMD_REPORT   [A]   PCIERR_A_PE, PCIERR_A_STEP (ERROR_DETECTED
 *                             with PCIERR_A_STATE, MMIO_ENABLED, LINK_RESET,
 *                             SLOT_RESET, RESUME, PERM_FAILURE). Calls that
 *                             callback of the driver of every device of the
 *                             PE, in bus order. A device whose driver lacks
 *                             the callback answers PCIERR_RESULT_NONE, one
 *                             with no driver PCIERR_RESULT_NO_DRIVER.
 *                             ERROR_DETECTED and PERM_FAILURE set each
 *                             device's channel state first; RESUME sets it
 *                             back to normal and lifts the freeze (bus
 *                             mastering on again).
 *   PCIERR_CMD_ENABLE_IO [A]  PCIERR_A_PE: memory and I/O decode on again,
 *                             bus mastering (DMA) stays off. PE state
 *                             becomes MMIO_ENABLED.
 *   PCIERR_CMD_RESET    [A]   PCIERR_A_PE, PCIERR_A_RESET_TYPE (HOT or
 *                             FUNDAMENTAL): HOT is a secondary bus reset of
 *                             the PE's bridge (a function level reset for a
 *                             single device on a root bus); then the config
 *                             space saved while the device was healthy is
 *                             restored. EOPNOTSUPP when the PE's
 *                             PCIERR_A_RESET_TYPES lacks the type.
 *   PCIERR_CMD_REMOVE   [A]   PCIERR_A_PE: unbind and remove every device
 *                             of the PE (hot-unplug). With the optional
 *                             PCIERR_A_DEVICE (partial hotplug, e.g. of
 *                             the devices whose drivers lack the recovery
 *                             callbacks): only that device (and, for a
 *                             bridge, what sits below it) is unbound and
 *                             removed; the PE keeps its other devices and
 *                             its state, and RESCAN brings the device
 *                             back. The device must belong to the PE
 *                             (EINVAL with an extack message otherwise,
 *                             also for the bridge heading the PE; the
 *                             lone device of a root-bus PE removes the
 *                             PE); ENODEV if it does not exist.
 *   PCIERR_CMD_RESCAN   [A]   PCIERR_A_PE: rescan the PE's bus; devices come
 *                             back and drivers bind.
 *   PCIERR_CMD_DISABLE  [A]   PCIERR_A_PE: permanent failure: perm_failure
 *                             reported to every driver, every device
 *                             removed, and kept away (a device that
 *                             reappears on the PE's bus by a rescan is
 *                             kept from binding and removed again) until
 *                             PCIERR_CMD_ENABLE.
 *   PCIERR_CMD_ENABLE   [A]   PCIERR_A_PE: undo DISABLE and rescan.
 *
 *   PCIERR_CMD_WATCH    [A]   PCIERR_A_PE, PCIERR_A_WATCH_INTERVAL_MS
 *                             (0 stops it): the presence watchdog. Every
 *                             interval, each device of the PE is checked
 *                             for presence; a device that vanished raises
 *                             an EVENT with state PERM_FAILURE and source
 *                             WATCHDOG. Synchronous, no OP_DONE.
 *
 * Notifications on the PCIERR_MCGRP_EVENTS group (anyone may listen):
 *
 *   PCIERR_CMD_EVENT          an error was detected: PCIERR_A_PE,
 *                             PCIERR_A_DEVICE, PCIERR_A_STATE,
 *                             PCIERR_A_TIME_UNAVAIL_MS, PCIERR_A_SOURCE,
 *                             PCIERR_A_SEQ, PCIERR_A_TIMESTAMP_NS,
 *                             PCIERR_A_ERROR_GEN. The PE is already frozen
 *                             when this is sent.
 *   PCIERR_CMD_OP_DONE        an operation finished: PCIERR_A_OP_ID,
 *                             PCIERR_A_OP (the command), PCIERR_A_PE,
 *                             PCIERR_A_STEP (REPORT only), PCIERR_A_RESULT
 *                             (the merged result, REPORT only),
 *                             PCIERR_A_RESULTS (nest of
 *                             PCIERR_A_RESULTS_ENTRY nests: PCIERR_DEV_A_ADDR,
 *                             PCIERR_DEV_A_RESULT), PCIERR_A_DURATION_NS,
 *                             PCIERR_A_ERRNO (0 or a positive errno),
 *                             PCIERR_A_PE_STATE (after the operation).
 *   PCIERR_CMD_OVERFLOW       events were lost because the bounded event
 *                             queue was full: PCIERR_A_DROPPED (how many
 *                             since the last OVERFLOW), PCIERR_A_SEQ (the
 *                             next sequence number to be sent). Lost events
 *                             still used up their sequence numbers.
 *
 * Sequence numbers (PCIERR_A_SEQ) count events from 1, per module load,
 * with no gaps except for dropped events; a listener that sees a gap or an
 * OVERFLOW must resynchronise by dumping PCIERR_CMD_GET_PE. Time stamps are
 * CLOCK_MONOTONIC in nanoseconds.
 *
 * Merging results (PCIERR_A_RESULT of REPORT), as drivers/pci/pcie/err.c:
 * NEED_RESET wins over DISCONNECT, which wins over CAN_RECOVER and
 * RECOVERED; NONE and NO_DRIVER never change the merge unless every device
 * answered one of them, in which case the merge is NONE.
 */
#ifndef _UAPI_LINUX_PCIERR_H
#define _UAPI_LINUX_PCIERR_H

#define PCIERR_GENL_NAME	"pcierr"
#define PCIERR_GENL_VERSION	1
#define PCIERR_MCGRP_EVENTS	"events"

/* "DDDD:BB:DD.F" with a domain of up to 8 hex digits, plus the NUL */
#define PCIERR_ADDR_MAX		20

enum pcierr_cmd {
	PCIERR_CMD_UNSPEC,
	PCIERR_CMD_GET_PE,
	PCIERR_CMD_GET_STATS,
	PCIERR_CMD_INJECT,
	PCIERR_CMD_REPORT,
	PCIERR_CMD_ENABLE_IO,
	PCIERR_CMD_RESET,
	PCIERR_CMD_REMOVE,
	PCIERR_CMD_RESCAN,
	PCIERR_CMD_DISABLE,
	PCIERR_CMD_ENABLE,
	PCIERR_CMD_WATCH,
	PCIERR_CMD_EVENT,
	PCIERR_CMD_OP_DONE,
	PCIERR_CMD_OVERFLOW,
	__PCIERR_CMD_MAX
};
#define PCIERR_CMD_MAX (__PCIERR_CMD_MAX - 1)

enum pcierr_attr {
	PCIERR_A_UNSPEC,
	PCIERR_A_PE,			/* string: PE address */
	PCIERR_A_DEVICE,		/* string: device address */
	PCIERR_A_PE_STATE,		/* u32: enum pcierr_pe_state */
	PCIERR_A_PE_FLAGS,		/* u32: PCIERR_PE_F_* */
	PCIERR_A_RESET_TYPES,		/* u32: bit (1 << enum pcierr_reset_type) */
	PCIERR_A_GENERATION,		/* u32: topology generation */
	PCIERR_A_PE_DEVICES,		/* nest of PCIERR_A_PE_DEVICES_ENTRY */
	PCIERR_A_STATE,			/* u32: enum pcierr_channel_state */
	PCIERR_A_TIME_UNAVAIL_MS,	/* u32: expected unavailability */
	PCIERR_A_SOURCE,		/* u32: enum pcierr_source */
	PCIERR_A_SEQ,			/* u64: event sequence number */
	PCIERR_A_TIMESTAMP_NS,		/* u64: CLOCK_MONOTONIC */
	PCIERR_A_ERROR_GEN,		/* u32: device error generation */
	PCIERR_A_STEP,			/* u32: enum pcierr_step */
	PCIERR_A_RESET_TYPE,		/* u32: enum pcierr_reset_type */
	PCIERR_A_OP_ID,			/* u64: operation id */
	PCIERR_A_OP,			/* u32: enum pcierr_cmd that started it */
	PCIERR_A_RESULT,		/* u32: enum pcierr_result, merged */
	PCIERR_A_RESULTS,		/* nest of PCIERR_A_RESULTS_ENTRY */
	PCIERR_A_DURATION_NS,		/* u64 */
	PCIERR_A_ERRNO,			/* u32: 0 or a positive errno */
	PCIERR_A_DROPPED,		/* u64 */
	PCIERR_A_STATS,			/* nest of PCIERR_STAT_* u64 */
	PCIERR_A_WATCH_INTERVAL_MS,	/* u32: 0 = off */
	PCIERR_A_PAD,			/* alignment padding for u64 */
	PCIERR_A_BACKEND,		/* u32: enum pcierr_backend (GET_PE) */
	PCIERR_A_ERROR_DETAIL,		/* binary: the platform's error log */
	PCIERR_A_ERROR_DETAIL_STATUS,	/* s32: the platform call's status */
	PCIERR_A_ERROR_DETAIL_SEVERITY,	/* u32: enum pcierr_detail_severity */
	__PCIERR_A_MAX
};
#define PCIERR_A_MAX (__PCIERR_A_MAX - 1)

/* The type of each element nested in PCIERR_A_PE_DEVICES/PCIERR_A_RESULTS */
#define PCIERR_A_PE_DEVICES_ENTRY	1
#define PCIERR_A_RESULTS_ENTRY		1

enum pcierr_dev_attr {
	PCIERR_DEV_A_UNSPEC,
	PCIERR_DEV_A_ADDR,		/* string */
	PCIERR_DEV_A_VENDOR,		/* u16 */
	PCIERR_DEV_A_DEVICE,		/* u16 */
	PCIERR_DEV_A_SUBVENDOR,		/* u16 */
	PCIERR_DEV_A_SUBDEVICE,		/* u16 */
	PCIERR_DEV_A_CLASS,		/* u32: class << 8 | prog-if */
	PCIERR_DEV_A_DSN,		/* u64: PCIe Device Serial Number, if any */
	PCIERR_DEV_A_DRIVER,		/* string: bound driver, absent if none */
	PCIERR_DEV_A_HANDLERS,		/* u32: bit (1 << enum pcierr_handler) */
	PCIERR_DEV_A_STATE,		/* u32: enum pcierr_channel_state */
	PCIERR_DEV_A_ERROR_GEN,		/* u32: error generation */
	PCIERR_DEV_A_RESULT,		/* u32: enum pcierr_result (OP_DONE) */
	PCIERR_DEV_A_FLAGS,		/* u32: PCIERR_DEV_F_* */
	PCIERR_DEV_A_PAD,
	__PCIERR_DEV_A_MAX
};
#define PCIERR_DEV_A_MAX (__PCIERR_DEV_A_MAX - 1)

/* PCIERR_DEV_A_FLAGS */
#define PCIERR_DEV_F_BRIDGE	(1U << 0)	/* the device is a bridge */

/* PCIERR_A_PE_FLAGS */
#define PCIERR_PE_F_BUSY	(1U << 0)	/* an operation is in flight */
#define PCIERR_PE_F_ROOT_BUS	(1U << 1)	/* a single device on a root bus */
#define PCIERR_PE_F_DISABLED	(1U << 2)	/* kept away until ENABLE */

/* The channel state of a device, as enum pci_channel_state. */
enum pcierr_channel_state {
	PCIERR_STATE_UNSPEC,
	PCIERR_STATE_NORMAL,
	PCIERR_STATE_FROZEN,
	PCIERR_STATE_PERM_FAILURE,
	__PCIERR_STATE_MAX
};
#define PCIERR_STATE_MAX (__PCIERR_STATE_MAX - 1)

/* Where a PE is in its life; the daemon decides what comes next. */
enum pcierr_pe_state {
	PCIERR_PE_STATE_UNSPEC,
	PCIERR_PE_STATE_NORMAL,		/* healthy */
	PCIERR_PE_STATE_FROZEN,		/* isolated: no MMIO, no DMA */
	PCIERR_PE_STATE_MMIO_ENABLED,	/* ENABLE_IO done: MMIO, no DMA */
	PCIERR_PE_STATE_RESET,		/* reset done, config restored */
	PCIERR_PE_STATE_REMOVED,	/* REMOVE done: no devices */
	PCIERR_PE_STATE_DISABLED,	/* DISABLE done: kept away */
	__PCIERR_PE_STATE_MAX
};
#define PCIERR_PE_STATE_MAX (__PCIERR_PE_STATE_MAX - 1)

enum pcierr_source {
	PCIERR_SOURCE_UNSPEC,
	PCIERR_SOURCE_INJECT,		/* PCIERR_CMD_INJECT */
	PCIERR_SOURCE_CHECK,		/* pcierr_check_failure(): all-ones */
	PCIERR_SOURCE_WATCHDOG,		/* presence watchdog */
	PCIERR_SOURCE_DRIVER,		/* pcierr_report_failure() */
	PCIERR_SOURCE_PLATFORM,		/* platform (RTAS) detection */
	__PCIERR_SOURCE_MAX
};
#define PCIERR_SOURCE_MAX (__PCIERR_SOURCE_MAX - 1)

/* Recovery steps: driver callbacks for REPORT */
enum pcierr_step {
	PCIERR_STEP_UNSPEC,
	PCIERR_STEP_ERROR_DETECTED,	/* error_detected(dev, PCIERR_A_STATE) */
	PCIERR_STEP_MMIO_ENABLED,
	PCIERR_STEP_LINK_RESET,		/* not in this kernel: all answer NONE */
	PCIERR_STEP_SLOT_RESET,
	PCIERR_STEP_RESUME,
	PCIERR_STEP_PERM_FAILURE,	/* error_detected(dev, perm_failure) */
	__PCIERR_STEP_MAX
};
#define PCIERR_STEP_MAX (__PCIERR_STEP_MAX - 1)

/* Which callbacks a driver has (PCIERR_DEV_A_HANDLERS bits) */
enum pcierr_handler {
	PCIERR_HANDLER_ERROR_DETECTED,
	PCIERR_HANDLER_MMIO_ENABLED,
	PCIERR_HANDLER_LINK_RESET,
	PCIERR_HANDLER_SLOT_RESET,
	PCIERR_HANDLER_RESUME,
	PCIERR_HANDLER_RESET_PREPARE,
	PCIERR_HANDLER_RESET_DONE,
	PCIERR_HANDLER_COR_ERROR_DETECTED,
	__PCIERR_HANDLER_MAX
};

/* A driver's answer, as enum pci_ers_result, plus what the shim knows. */
enum pcierr_result {
	PCIERR_RESULT_UNSPEC,
	PCIERR_RESULT_NONE,		/* no such callback, or no opinion */
	PCIERR_RESULT_CAN_RECOVER,
	PCIERR_RESULT_NEED_RESET,
	PCIERR_RESULT_DISCONNECT,
	PCIERR_RESULT_RECOVERED,
	PCIERR_RESULT_NO_DRIVER,	/* no driver bound */
	PCIERR_RESULT_GONE,		/* the device was removed meanwhile */
	__PCIERR_RESULT_MAX
};
#define PCIERR_RESULT_MAX (__PCIERR_RESULT_MAX - 1)

enum pcierr_reset_type {
	PCIERR_RESET_UNSPEC,
	PCIERR_RESET_HOT,		/* secondary bus reset, or FLR */
	PCIERR_RESET_FUNDAMENTAL,	/* PERST#/power, where the platform has it */
	__PCIERR_RESET_MAX
};
#define PCIERR_RESET_MAX (__PCIERR_RESET_MAX - 1)

/* Counters in PCIERR_A_STATS, all u64, since the module was loaded. */
enum pcierr_stat {
	PCIERR_STAT_UNSPEC,
	PCIERR_STAT_CHECKS,		/* pcierr_check_failure() calls */
	PCIERR_STAT_ALL_ONES,		/* ... that were given an all-ones read */
	PCIERR_STAT_FALSE_POSITIVES,	/* ... whose device was healthy */
	PCIERR_STAT_IGNORED,		/* ... on a PE already frozen */
	PCIERR_STAT_FREEZES,		/* detections: PEs frozen */
	PCIERR_STAT_EVENTS_SENT,
	PCIERR_STAT_EVENTS_DROPPED,
	PCIERR_STAT_RESETS,
	PCIERR_STAT_HOTPLUGS,		/* REMOVE, RESCAN, DISABLE, ENABLE */
	PCIERR_STAT_OPS,		/* operations completed */
	PCIERR_STAT_OPS_FAILED,		/* ... with a non-zero errno */
	PCIERR_STAT_PAD,
	__PCIERR_STAT_MAX
};
#define PCIERR_STAT_MAX (__PCIERR_STAT_MAX - 1)

/*
 * Which mechanism recovers a PE (PCIERR_A_BACKEND of GET_PE):
 * GENERIC is the PCI core's secondary bus reset / FLR with the software
 * freeze; RTAS is pseries firmware (ibm,set-slot-reset and friends); EEH
 * means the kernel's own EEH owns the PE and recovers it itself: pcierr
 * only observes it (PCIERR_A_RESET_TYPES is 0, so RESET fails with
 * EOPNOTSUPP; INJECT fails with EBUSY; an all-ones check goes to the
 * kernel's EEH).
 * On pseries a GENERIC PE also lists FUNDAMENTAL: only firmware can do
 * one there, so it is asked, and its refusal is the RESET's errno
 * (ENXIO for "no EEH on this PE"). docs/pseries.md.
 */
enum pcierr_backend {
	PCIERR_BACKEND_UNSPEC,
	PCIERR_BACKEND_GENERIC,
	PCIERR_BACKEND_RTAS,
	PCIERR_BACKEND_EEH,
	__PCIERR_BACKEND_MAX
};
#define PCIERR_BACKEND_MAX (__PCIERR_BACKEND_MAX - 1)

/*
 * Platform error detail (pseries: ibm,slot-error-detail), in EVENT (a
 * FROZEN event asks for the temporary log, a PERM_FAILURE one for the
 * permanent log) and in OP_DONE of DISABLE (permanent):
 * PCIERR_A_ERROR_DETAIL_SEVERITY says which was asked for,
 * PCIERR_A_ERROR_DETAIL_STATUS is the firmware's status (0 success, 1 no
 * error log, negative: refused, e.g. -3 for a PE without EEH), and
 * PCIERR_A_ERROR_DETAIL the raw log (an RTAS error log: 8-byte header,
 * big-endian) when there was one. Absent where the platform has no such
 * call.
 */
enum pcierr_detail_severity {
	PCIERR_DETAIL_UNSPEC,
	PCIERR_DETAIL_TEMPORARY,
	PCIERR_DETAIL_PERMANENT,
	__PCIERR_DETAIL_MAX
};

/*
 * Details settled by pcierr_shim (version 1), in addition to the above:
 *
 * - A bridge on a root bus (a root port) is not a PE of its own: it is
 *   listed, with PCIERR_DEV_F_BRIDGE, in the PE it heads. Any other bridge
 *   is listed in the PE of the bus it sits on and heads a PE of its own.
 *   A lone root-bus device's PE is remembered when its device is removed
 *   (PE state REMOVED, no devices), so that RESCAN and ENABLE can name it.
 * - Bridges are listed but never frozen, reported to or restored: freeze,
 *   REPORT, ENABLE_IO and DISABLE's perm_failure act on the PE's other
 *   devices. Devices on buses further down belong to other PEs; REMOVE and
 *   DISABLE remove them with their bridge, and a hot reset resets them
 *   too (the PCI core saves and restores their config space around it).
 * - A well-formed address naming no PE or device fails with ENODEV; a
 *   malformed one (not "DDDD:BB:DD.F", domain 4-8 hex digits) with
 *   EINVAL. An operation on a PE that went away fails with ENODEV.
 * - INJECT replies only once the freeze is in effect. PCIERR_A_STATE
 *   defaults to FROZEN for INJECT and for REPORT ERROR_DETECTED;
 *   PCIERR_A_RESET_TYPE defaults to HOT.
 * - A PERM_FAILURE detection with a PCIERR_A_TIME_UNAVAIL_MS above 0 is
 *   "unavailable for that long": the event says PERM_FAILURE, the devices'
 *   channel state becomes FROZEN, and whether it is permanent is the
 *   daemon's decision (it recovers, or DISABLE reports perm_failure). With
 *   no time the channel state becomes PERM_FAILURE at once.
 * - REPORT results: RESUME answers RECOVERED for a device whose driver has
 *   a resume callback; a device in PERM_FAILURE answers DISCONNECT to
 *   ERROR_DETECTED and RESUME without its driver being called (the
 *   channel state perm_failure is final, as in the PCI core). In the
 *   merge, CAN_RECOVER wins over RECOVERED.
 * - OP_DONE of DISABLE also carries PCIERR_A_RESULTS (the perm_failure
 *   answers). The OP_DONE may arrive before the request's own reply.
 * - RESET HOT on a bridge's PE uses the PCI core's pci_reset_bus() (the
 *   hotplug slot's reset where there is one), which also calls the
 *   drivers' reset_prepare/reset_done; then the healthy config space is
 *   restored and the freeze is lifted; channel states stay as they are
 *   until RESUME. FUNDAMENTAL is not available on x86 (EOPNOTSUPP).
 * - pseries (docs/pseries.md): RESET of an RTAS PE is ibm,set-slot-reset
 *   (fundamental falls back to hot where firmware has none), held and
 *   settled (module parameters pseries_reset_hold_ms, 250, and
 *   pseries_reset_settle_ms, 1800), the wait until firmware reports the
 *   PE available, ibm,configure-pe, then the healthy config space. A
 *   firmware status that is not success is the OP_DONE's errno: -3
 *   (parameter error: no EEH on this PE) ENXIO, -8 (no such reset)
 *   EOPNOTSUPP, -1 EIO, busy beyond 5 s EBUSY; "unavailable for good"
 *   ENODEV; not available within pseries_avail_max_ms ETIMEDOUT.
 * - WATCH: the interval is 0 or 10 to 3600000 ms. The watchdog reads each
 *   device's vendor id; a device that stops answering raises one event.
 * - The event queue (module parameter event_queue_len, default 256) holds
 *   that many entries including one kept for the OVERFLOW marker.
 * - When the module unloads, the family goes away (the generic netlink
 *   controller announces CTRL_CMD_DELFAMILY on its "notify" group):
 *   listeners learn it there, the events group itself just falls silent.
 */

#endif /* _UAPI_LINUX_PCIERR_H */

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * pcierr: PCI error recovery, the kernel ABI, version 2.
 *
 * This header is the whole contract between the pcierr_shim kernel module
 * and userspace (libpcierr, pcierrd, tests). From version 2 on it is
 * append-only: enums keep their values, new values go before the __*_MAX
 * sentinel, _UNSPEC is always 0 and never sent. A receiver must carry an
 * enum value it does not know (a newer module's) as "unknown", not fail.
 *
 * Transport: generic netlink family PCIERR_GENL_NAME, version
 * PCIERR_GENL_VERSION, multicast group PCIERR_MCGRP_EVENTS. Each command
 * has its own attribute policy: CTRL_CMD_GETPOLICY (genl-ctrl-list -d, or
 * "genl ctrl policy name pcierr") tells which attributes and ranges each
 * accepts. Unknown attributes, wrong types and out-of-range values fail
 * with EINVAL (ERANGE for a value outside a policy range) and an extack
 * message naming the attribute.
 *
 * Naming
 *   A PE ("partitionable endpoint", the unit of isolation and reset) is all
 *   devices on the secondary bus of one bridge (a root port, a downstream
 *   port, a PCI bridge), or a single device on a root bus. A PE is named by
 *   the address of that bridge (or of that single device). Every PCI device
 *   of the system belongs to exactly one PE. A PE's freeze and operations
 *   cover its whole subtree: the devices of the PEs headed by the bridges
 *   below it too (REPORT results name them as well); see
 *   docs/shim-mechanism.md. Addresses are strings
 *   "DDDD:BB:DD.F" (hex, the domain 4 to 8 digits, device at most 1f,
 *   function at most 7), at most PCIERR_ADDR_MAX bytes with the NUL; the
 *   kernel sends them in pci_name()'s lower case and matches them by
 *   value (any case).
 *
 * Identity (PCIERR_A_PE_ID)
 *   Each PE has an id, a u64 that is never 0 and never reused while the
 *   system runs (also across reloads of the module). It is assigned when
 *   the PE is created and assigned anew whenever a device joins or leaves
 *   the PE (hot-add, hot-remove, REMOVE, RESCAN, a card swapped at the
 *   same address). GET_PE, EVENT and OP_DONE report the current id. Every
 *   command that changes state names its target by address AND by the id
 *   it expects (required); if the PE's id is different now, the command
 *   fails with ESTALE and does nothing: the caller's view is out of date
 *   (read the PE again with GET_PE and decide again). An operation's own
 *   OP_DONE carries the id after the operation (REMOVE and RESCAN change
 *   it), which is the one to name next.
 *
 * Access
 *   Every command that changes state (marked [A]) requires CAP_SYS_ADMIN
 *   and CAP_NET_ADMIN in the initial user namespace, and fails with EPERM
 *   otherwise. GET_PE and GET_STATS are open to anyone, but the device
 *   serial number (PCIERR_DEV_A_DSN) is sent only to CAP_SYS_ADMIN
 *   callers. Joining the events group requires CAP_NET_ADMIN (on kernels
 *   with GENL_MCAST_CAP_NET_ADMIN; elsewhere it is open).
 *
 * Commands (request -> reply)
 *
 *   PCIERR_CMD_GET_PE         doit: PCIERR_A_PE or PCIERR_A_DEVICE (the PE
 *                             holding that device) -> one PE message
 *                             (EMSGSIZE for a PE larger than 64 KiB: dump).
 *                             dump: every PE, in address order. Dumps are
 *                             checked against the topology generation
 *                             (NLM_F_DUMP_INTR is set if the topology
 *                             changed while dumping: retry).
 *       PE message: PCIERR_A_PE, PCIERR_A_PE_ID, PCIERR_A_PE_STATE,
 *       PCIERR_A_PE_FLAGS, PCIERR_A_RESET_TYPES, PCIERR_A_GENERATION,
 *       PCIERR_A_WATCH_INTERVAL_MS, PCIERR_A_LAST_OP (if an operation was
 *       ever started on the PE), PCIERR_A_PE_DEVICES (nest; each entry,
 *       of type PCIERR_A_PE_DEVICES_ENTRY, is a nest of PCIERR_DEV_A_*:
 *       address, ids, driver, handlers, channel state, error generation).
 *       Splitting: a PE whose devices do not fit in one dump message is
 *       sent as several consecutive messages, each with all the PE
 *       attributes above (the same PCIERR_A_PE and PCIERR_A_PE_ID) and the
 *       next devices in bus order. A message whose PCIERR_A_PE_ID equals
 *       the previous message's continues that PE: append its devices. A PE
 *       is split only if it does not fit in an empty message.
 *       PCIERR_A_LAST_OP (D18): a nest of PCIERR_A_OP_ID, PCIERR_A_OP,
 *       PCIERR_A_STEP and PCIERR_A_RESULT (REPORT only) and, once it
 *       finished, PCIERR_A_ERRNO, PCIERR_A_DURATION_NS and PCIERR_A_PE_STATE:
 *       the same values as its OP_DONE (without the per-device results).
 *       For a RECOVER, once done, also PCIERR_A_RECOVER_STOP and
 *       PCIERR_A_RECOVER_STEPS (its entries without RESULTS).
 *       Without PCIERR_A_ERRNO the operation is still in flight
 *       (PCIERR_PE_F_BUSY). A listener that lost an OP_DONE (OVERFLOW,
 *       ENOBUFS) reads the outcome here.
 *
 *   PCIERR_CMD_GET_STATS      -> PCIERR_A_STATS (nest of PCIERR_STAT_* u64;
 *                                PCIERR_STAT_LOAD_ID tells this load of the
 *                                module from others).
 *
 *   PCIERR_CMD_INJECT   [A]   PCIERR_A_DEVICE, PCIERR_A_PE_ID (of the
 *                             device's PE), optional PCIERR_A_STATE
 *                             (FROZEN, the default, or PERM_FAILURE),
 *                             optional PCIERR_A_TIME_UNAVAIL_MS.
 *                             A software detection: the device's PE is
 *                             frozen (memory and I/O decode and bus
 *                             mastering off, INTx disabled, MSI-X masked,
 *                             every device's error_state set) and an EVENT
 *                             is raised exactly as a real detection would.
 *                             Bridges refuse (EINVAL). Replies once the
 *                             freeze is in effect (on a runtime-suspended
 *                             device: moments later, once the event work
 *                             has woken it, as no driver runs under the
 *                             request): PCIERR_A_SEQ of the queued event.
 *
 * Asynchronous recovery operations. Each names PCIERR_A_PE and
 * PCIERR_A_PE_ID. It is accepted (the PE marked busy, an id assigned),
 * replied to with PCIERR_A_OP_ID, and only then queued on the PE's own
 * ordered work queue: the reply always comes before the OP_DONE with the
 * same id. One operation per PE at a time: a second one fails with EBUSY.
 * Driver callbacks, resets and hotplug run from that work queue, never
 * under a netlink lock, so a driver that sleeps stalls only its own PE.
 * Operations on a PE and on a PE above or below it run one after the
 * other.
 *
 * The owner timeout: a PE left frozen (FROZEN, MMIO_ENABLED or RESET) with
 * no operation on it for the module parameter owner_timeout_ms (default
 * 60 s, 0: never) and not held (PCIERR_CMD_HOLD) is recovered by the shim
 * itself, as one operation of the kind PCIERR_CMD_OWNER_RECOVER: it is
 * claimed as any other (an id, PCIERR_PE_F_BUSY, GET_PE's
 * PCIERR_A_LAST_OP; meanwhile other operations fail with EBUSY), and ends
 * with an OP_DONE shaped as a RECOVER's. It runs the RECOVER above (state
 * FROZEN, reset HOT): the same rules, so a PE whose drivers recover is
 * never removed. Only when that RECOVER stops with NO_HANDLER,
 * DISCONNECT, NOT_RECOVERED or FAILED does it go on, as more steps of the
 * same operation: REMOVE, RESET (skipped when the PE's head bridge is
 * gone, or for a lone root-bus device), RESCAN. A RECOVER stopped by
 * GONE or FROZEN_AGAIN ends there (a new freeze starts its own timeout).
 * At most owner_budget (module parameter, default 3, 0: no limit) such
 * operations run per PE within an hour from the first; then the shim
 * leaves the PE frozen and says so in the kernel log.
 *
 *   PCIERR_CMD_OWNER_RECOVER  never a request (EOPNOTSUPP): the PCIERR_A_OP
 *                             of the owner timeout's operation, in its
 *                             OP_DONE and in PCIERR_A_LAST_OP, which carry
 *                             PCIERR_A_RECOVER_STOP (where its RECOVER
 *                             part stopped) and PCIERR_A_RECOVER_STEPS
 *                             (those steps, then its REMOVE, RESET,
 *                             RESCAN steps, if any: RSTEP_A_OP says
 *                             which). No PCIERR_A_AUTO_OP_ID announces it:
 *                             a listener learns of it by its OP_DONE.
 *   PCIERR_CMD_HOLD     [A]   PCIERR_A_PE, PCIERR_A_PE_ID,
 *                             PCIERR_A_HOLD_MS (0, or a lease of
 *                             PCIERR_HOLD_MIN_MS to PCIERR_HOLD_MAX_MS):
 *                             the caller keeps this PE frozen on purpose
 *                             (an administrator's decision, a platform's
 *                             time_unavail, a policy that recovers
 *                             nothing): the owner timeout leaves it alone
 *                             for the lease, from now. Renew it (send
 *                             HOLD again) before it runs out; 0 ends it.
 *                             It also ends when the holding socket closes
 *                             (the holder died), and it holds only for
 *                             this PE id (a device joining or leaving ends
 *                             it). When it ends or lapses, the owner
 *                             timeout counts from then: a dead or wedged
 *                             holder does not keep a PE frozen forever.
 *                             Operations are not affected. Synchronous, no
 *                             OP_DONE; GET_PE reports PCIERR_PE_F_HELD
 *                             while it holds.
 *
 *   PCIERR_CMD_REPORT   [A]   PCIERR_A_STEP (ERROR_DETECTED with optional
 *                             PCIERR_A_STATE, default FROZEN;
 *                             MMIO_ENABLED, SLOT_RESET, RESUME,
 *                             PERM_FAILURE). Calls that callback of the
 *                             driver of every device of the PE's subtree,
 *                             bridges below the PE's own bridge included
 *                             (err.c's walk: a switch's ports get their
 *                             port driver's callbacks), in bus order, each
 *                             bridge before what sits below it, under the
 *                             device lock. A device whose
 *                             driver lacks the callback answers
 *                             PCIERR_RESULT_NONE, one with no driver
 *                             PCIERR_RESULT_NO_DRIVER, one removed
 *                             meanwhile PCIERR_RESULT_GONE.
 *                             ERROR_DETECTED and PERM_FAILURE set each
 *                             device's channel state first; RESUME sets it
 *                             back to normal and lifts the freeze (bus
 *                             mastering on again). A device already in
 *                             perm_failure answers DISCONNECT to
 *                             ERROR_DETECTED and RESUME without its driver
 *                             being called (perm_failure is final).
 *   PCIERR_CMD_ENABLE_IO [A]  memory and I/O decode on again, bus
 *                             mastering (DMA) stays off. PE state becomes
 *                             MMIO_ENABLED.
 *   PCIERR_CMD_RESET    [A]   optional PCIERR_A_RESET_TYPE (HOT, the
 *                             default, or FUNDAMENTAL): reset the PE's
 *                             devices, then restore the config space saved
 *                             while they were healthy. EOPNOTSUPP when the
 *                             PE's PCIERR_A_RESET_TYPES lacks the type;
 *                             ENODATA (nothing reset, the PE stays frozen)
 *                             when a device has no healthy snapshot. No
 *                             driver's reset_prepare/reset_done is called.
 *   PCIERR_CMD_REMOVE   [A]   unbind and remove every device of the PE
 *                             (hot-unplug; of a PE not in normal state a
 *                             surprise removal: its devices are marked
 *                             disconnected first). With the optional
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
 *   PCIERR_CMD_RESCAN   [A]   rescan the PE's bus; devices come back and
 *                             drivers bind.
 *   PCIERR_CMD_DISABLE  [A]   permanent failure: perm_failure reported to
 *                             every driver, every device removed, and kept
 *                             away (a device that reappears on the PE's
 *                             bus by a rescan is kept from binding and
 *                             removed again) until PCIERR_CMD_ENABLE.
 *                             OP_DONE carries PCIERR_A_RESULTS (the
 *                             perm_failure answers).
 *   PCIERR_CMD_ENABLE   [A]   undo DISABLE and rescan.
 *
 *   PCIERR_CMD_RECOVER  [A]   optional PCIERR_A_STATE (FROZEN, the default,
 *                             or NORMAL), optional PCIERR_A_RESET_TYPE
 *                             (HOT, the default; EOPNOTSUPP if the PE
 *                             lacks it): the callback recovery of
 *                             drivers/pci/pcie/err.c as one operation,
 *                             from the existing steps: REPORT
 *                             ERROR_DETECTED; if the merged answer is
 *                             CAN_RECOVER, ENABLE_IO and REPORT
 *                             MMIO_ENABLED; if NEED_RESET (from either),
 *                             RESET and REPORT SLOT_RESET; once RECOVERED,
 *                             REPORT RESUME. It stops after the first
 *                             step after which err.c would give up or
 *                             the policy has a choice to make (see enum
 *                             pcierr_recover_stop), without calling
 *                             anything more: the daemon goes on from
 *                             there with the single-step commands. Also
 *                             stops (FROZEN_AGAIN) before a step when a
 *                             detection came in since it started. One
 *                             OP_DONE: PCIERR_A_RECOVER_STEPS (each step
 *                             with its own results, errno and duration),
 *                             PCIERR_A_RECOVER_STOP, PCIERR_A_ERRNO (the
 *                             last step's, or the reason no step ran),
 *                             PCIERR_A_DURATION_NS (all of it).
 *   PCIERR_CMD_ARM      [A]   PCIERR_A_PE, PCIERR_A_PE_ID,
 *                             PCIERR_A_AUTO_BUDGET (0 or 1), optional
 *                             PCIERR_A_RESET_TYPE (HOT, the default;
 *                             EOPNOTSUPP if the PE lacks it, as for
 *                             RECOVER): pre-authorised automatic
 *                             recovery. With a budget of 1 the PE is
 *                             armed: the first FROZEN detection on it
 *                             after the ARM starts, without waiting for
 *                             anyone, the same RECOVER (state FROZEN,
 *                             that reset type) a RECOVER command would,
 *                             with its own operation id, reply-less, and
 *                             its OP_DONE as any RECOVER's. The EVENT of
 *                             that detection carries PCIERR_A_AUTO_OP_ID
 *                             (the RECOVER's id; its OP_DONE is sent only
 *                             after the EVENT, so the EVENT comes
 *                             first): the listener accounts for the
 *                             freeze and awaits that OP_DONE instead of
 *                             sending RECOVER. The budget is used up by
 *                             that detection whatever happens: it starts
 *                             nothing if the PE is busy, disabled, not
 *                             FROZEN, its id is not the armed one, the
 *                             detection was not the first since the ARM
 *                             or it was a PERM_FAILURE;
 *                             then its EVENT has no PCIERR_A_AUTO_OP_ID.
 *                             A budget of 0 disarms. The arm belongs to
 *                             the socket that sent ARM: closed, the PE is
 *                             disarmed; a new ARM replaces it.
 *                             GET_PE reports PCIERR_PE_F_ARMED while it
 *                             holds. Synchronous, no OP_DONE. A listener
 *                             that lost the EVENT finds the RECOVER in
 *                             GET_PE's PCIERR_A_LAST_OP (BUSY, no ERRNO).
 *   PCIERR_CMD_WATCH    [A]   PCIERR_A_PE, PCIERR_A_PE_ID, optional
 *                             PCIERR_A_WATCH_INTERVAL_MS (10 to 3600000;
 *                             absent stops the watchdog): the presence
 *                             watchdog. Every interval, each device of the
 *                             PE is checked for presence; a device that
 *                             vanished raises an EVENT with state
 *                             PERM_FAILURE and source WATCHDOG.
 *                             Synchronous, no OP_DONE.
 *
 * A well-formed address naming no PE or device fails with ENODEV, a PE
 * whose id is not PCIERR_A_PE_ID with ESTALE, an operation on a PE that
 * went away meanwhile with ENODEV.
 *
 * Notifications on the PCIERR_MCGRP_EVENTS group:
 *
 *   PCIERR_CMD_EVENT          an error was detected: PCIERR_A_PE,
 *                             PCIERR_A_PE_ID (at the detection),
 *                             PCIERR_A_DEVICE, PCIERR_A_STATE,
 *                             PCIERR_A_TIME_UNAVAIL_MS, PCIERR_A_SOURCE,
 *                             PCIERR_A_SEQ, PCIERR_A_TIMESTAMP_NS,
 *                             PCIERR_A_ERROR_GEN; PCIERR_A_AUTO_OP_ID
 *                             when the PE was armed and this detection
 *                             started a RECOVER (PCIERR_CMD_ARM). The PE
 *                             is already frozen when this is sent. A PERM_FAILURE detection
 *                             with a PCIERR_A_TIME_UNAVAIL_MS above 0
 *                             leaves the channel state FROZEN (whether it
 *                             is permanent is the daemon's decision); with
 *                             no time it becomes PERM_FAILURE at once.
 *   PCIERR_CMD_OP_DONE        an operation finished: PCIERR_A_OP_ID,
 *                             PCIERR_A_OP (the command), PCIERR_A_PE,
 *                             PCIERR_A_PE_ID (after the operation),
 *                             PCIERR_A_STEP (REPORT only), PCIERR_A_RESULT
 *                             (the merged result, REPORT only),
 *                             PCIERR_A_RESULTS (nest of
 *                             PCIERR_A_RESULTS_ENTRY nests: PCIERR_DEV_A_ADDR,
 *                             PCIERR_DEV_A_RESULT), PCIERR_A_DURATION_NS,
 *                             PCIERR_A_ERRNO (0 or a positive errno),
 *                             PCIERR_A_PE_STATE (after the operation),
 *                             PCIERR_A_START_NS (CLOCK_MONOTONIC when it
 *                             began to run, the clock of the EVENT's
 *                             PCIERR_A_TIMESTAMP_NS: START_NS plus
 *                             DURATION_NS is when it ended, whenever the
 *                             OP_DONE is read);
 *                             of RECOVER: PCIERR_A_RECOVER_STEPS and
 *                             PCIERR_A_RECOVER_STOP instead of the
 *                             STEP/RESULT/RESULTS.
 *   PCIERR_CMD_OVERFLOW       events were lost because the bounded event
 *                             queue was full: PCIERR_A_DROPPED (how many
 *                             since the last OVERFLOW), PCIERR_A_SEQ (the
 *                             next sequence number to be sent). Lost events
 *                             still used up their sequence numbers.
 *
 * Sequence numbers (PCIERR_A_SEQ) count events from 1, per module load,
 * with no gaps except for dropped events; a listener that sees a gap or an
 * OVERFLOW must resynchronise by dumping PCIERR_CMD_GET_PE. Time stamps are
 * CLOCK_MONOTONIC in nanoseconds. When the module unloads, the family goes
 * away (the generic netlink controller announces CTRL_CMD_DELFAMILY on its
 * "notify" group); the events group itself just falls silent.
 *
 * Merging results (PCIERR_A_RESULT of REPORT): the priority order of
 * EEH (arch/powerpc/kernel/eeh_driver.c, eeh_result_priority()), not
 * drivers/pci/pcie/err.c's merge_result(): NEED_RESET > DISCONNECT >
 * CAN_RECOVER > RECOVERED; NONE, NO_DRIVER and GONE have no vote, and
 * the merge is NONE if every device answered one of them. Unlike err.c,
 * a device without a driver or without callbacks does not fail the whole
 * PE (err.c's sticky NO_AER_DRIVER): the per-device results tell the
 * daemon which devices lack callbacks, and it removes those (partial
 * hotplug, as EEH does) or falls back to a full hotplug. The order does
 * not depend on the order the devices were asked in.
 */
#ifndef _UAPI_LINUX_PCIERR_H
#define _UAPI_LINUX_PCIERR_H

#define PCIERR_GENL_NAME	"pcierr"
#define PCIERR_GENL_VERSION	2
#define PCIERR_MCGRP_EVENTS	"events"

/* "DDDD:BB:DD.F" with a domain of up to 8 hex digits, plus the NUL */
#define PCIERR_ADDR_MAX		20

/* PCIERR_A_WATCH_INTERVAL_MS bounds */
#define PCIERR_WATCH_MIN_MS	10
#define PCIERR_WATCH_MAX_MS	3600000

/* PCIERR_A_HOLD_MS bounds (a lease other than 0) */
#define PCIERR_HOLD_MIN_MS	1000
#define PCIERR_HOLD_MAX_MS	3600000

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
	PCIERR_CMD_RECOVER,		/* [A] a chained callback recovery */
	PCIERR_CMD_ARM,			/* [A] pre-authorise one RECOVER */
	PCIERR_CMD_OWNER_RECOVER,	/* no request: the owner timeout's op */
	PCIERR_CMD_HOLD,		/* [A] keep the owner timeout away */
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
	PCIERR_A_WATCH_INTERVAL_MS,	/* u32: 0 = off (GET_PE) */
	PCIERR_A_PAD,			/* alignment padding for u64 */
	PCIERR_A_PE_ID,			/* u64: the PE's identity, never 0 */
	PCIERR_A_LAST_OP,		/* nest of PCIERR_A_*: the last operation */
	PCIERR_A_BACKEND,		/* u32: enum pcierr_backend (GET_PE) */
	PCIERR_A_ERROR_DETAIL,		/* binary: the platform's error log */
	PCIERR_A_ERROR_DETAIL_STATUS,	/* s32: the platform call's status */
	PCIERR_A_ERROR_DETAIL_SEVERITY,	/* u32: enum pcierr_detail_severity */
	PCIERR_A_RECOVER_STEPS,		/* nest of PCIERR_A_RECOVER_STEPS_ENTRY */
	PCIERR_A_RECOVER_STOP,		/* u32: enum pcierr_recover_stop */
	PCIERR_A_AUTO_BUDGET,		/* u32: ARM: automatic RECOVERs, 0 or 1 */
	PCIERR_A_AUTO_OP_ID,		/* u64: EVENT: the RECOVER the shim started */
	PCIERR_A_START_NS,		/* u64: OP_DONE: CLOCK_MONOTONIC, began */
	PCIERR_A_HOLD_MS,		/* u32: HOLD: the lease, 0 ends it */
	__PCIERR_A_MAX
};
#define PCIERR_A_MAX (__PCIERR_A_MAX - 1)

/* The type of each element nested in PCIERR_A_PE_DEVICES/PCIERR_A_RESULTS */
#define PCIERR_A_PE_DEVICES_ENTRY	1
#define PCIERR_A_RESULTS_ENTRY		1
#define PCIERR_A_RECOVER_STEPS_ENTRY	1	/* a nest of PCIERR_RSTEP_A_* */

enum pcierr_dev_attr {
	PCIERR_DEV_A_UNSPEC,
	PCIERR_DEV_A_ADDR,		/* string */
	PCIERR_DEV_A_VENDOR,		/* u16 */
	PCIERR_DEV_A_DEVICE,		/* u16 */
	PCIERR_DEV_A_SUBVENDOR,		/* u16 */
	PCIERR_DEV_A_SUBDEVICE,		/* u16 */
	PCIERR_DEV_A_CLASS,		/* u32: class << 8 | prog-if */
	PCIERR_DEV_A_DSN,		/* u64: DSN, if any (CAP_SYS_ADMIN) */
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

/*
 * One step of a RECOVER (PCIERR_A_RECOVER_STEPS entries), in the order
 * they ran. OP is PCIERR_CMD_REPORT (with STEP, RESULT: the drivers'
 * answers merged as drivers/pci/pcie/err.c's merge_result() does, and
 * RESULTS: per device, as a REPORT's OP_DONE), PCIERR_CMD_ENABLE_IO or
 * PCIERR_CMD_RESET (with RESET_TYPE); in an OWNER_RECOVER's also
 * PCIERR_CMD_REMOVE and PCIERR_CMD_RESCAN. ERRNO and DURATION_NS as a
 * single operation's OP_DONE. In GET_PE's PCIERR_A_LAST_OP the entries
 * come without RESULTS.
 */
enum pcierr_rstep_attr {
	PCIERR_RSTEP_A_UNSPEC,
	PCIERR_RSTEP_A_OP,		/* u32: enum pcierr_cmd */
	PCIERR_RSTEP_A_STEP,		/* u32: enum pcierr_step (REPORT) */
	PCIERR_RSTEP_A_RESULT,		/* u32: enum pcierr_result (REPORT) */
	PCIERR_RSTEP_A_RESULTS,		/* nest of PCIERR_A_RESULTS_ENTRY */
	PCIERR_RSTEP_A_RESET_TYPE,	/* u32: enum pcierr_reset_type (RESET) */
	PCIERR_RSTEP_A_ERRNO,		/* u32: 0 or a positive errno */
	PCIERR_RSTEP_A_DURATION_NS,	/* u64 */
	PCIERR_RSTEP_A_PAD,
	__PCIERR_RSTEP_A_MAX
};
#define PCIERR_RSTEP_A_MAX (__PCIERR_RSTEP_A_MAX - 1)

/*
 * Where a RECOVER stopped (PCIERR_A_RECOVER_STOP): RECOVERED, resume
 * was reported (the recovery is complete); every other value is a point
 * where drivers/pci/pcie/err.c would give up or the policy has something
 * to decide, and the daemon goes on from the last step listed.
 * NO_HANDLER is err.c's NO_AER_DRIVER: a device other than a bridge
 * without a driver or without error_detected (a bridge's silence has no
 * vote, as in err.c). NOT_RECOVERED: mmio_enabled answered neither
 * RECOVERED nor NEED_RESET, or slot_reset did not answer RECOVERED.
 * FAILED: a step failed (its ERRNO: a failed reset, ENODATA for a device
 * without a healthy snapshot, ...).
 */
enum pcierr_recover_stop {
	PCIERR_RECOVER_STOP_UNSPEC,
	PCIERR_RECOVER_STOP_RECOVERED,	/* resume done */
	PCIERR_RECOVER_STOP_DISCONNECT,	/* the merged answer: DISCONNECT */
	PCIERR_RECOVER_STOP_NO_HANDLER,	/* error_detected: NONE, NO_DRIVER */
	/*
	 * every device of the subtree answered GONE, its bridges included: a
	 * switch whose cards are gone is still recovered (its ports answer).
	 * At any REPORT, resume included: a hot-unplug that took the last
	 * device while the RECOVER ran ends it GONE, not RECOVERED.
	 */
	PCIERR_RECOVER_STOP_GONE,
	PCIERR_RECOVER_STOP_NOT_RECOVERED, /* see below */
	PCIERR_RECOVER_STOP_FAILED,	/* the last step's ERRNO is not 0 */
	PCIERR_RECOVER_STOP_FROZEN_AGAIN, /* a detection came in meanwhile */
	__PCIERR_RECOVER_STOP_MAX
};
#define PCIERR_RECOVER_STOP_MAX (__PCIERR_RECOVER_STOP_MAX - 1)

/* PCIERR_DEV_A_FLAGS */
#define PCIERR_DEV_F_BRIDGE	(1U << 0)	/* the device is a bridge */

/* PCIERR_A_PE_FLAGS */
#define PCIERR_PE_F_BUSY	(1U << 0)	/* an operation is in flight */
#define PCIERR_PE_F_ROOT_BUS	(1U << 1)	/* a single device on a root bus */
#define PCIERR_PE_F_DISABLED	(1U << 2)	/* kept away until ENABLE */
#define PCIERR_PE_F_ARMED	(1U << 3)	/* ARM: the next freeze starts a RECOVER */
#define PCIERR_PE_F_HELD	(1U << 4)	/* HOLD: the owner timeout waits */

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
	__PCIERR_SOURCE_MAX
};
#define PCIERR_SOURCE_MAX (__PCIERR_SOURCE_MAX - 1)

/* Recovery steps: the struct pci_error_handlers callbacks for REPORT */
enum pcierr_step {
	PCIERR_STEP_UNSPEC,
	PCIERR_STEP_ERROR_DETECTED,	/* error_detected(dev, PCIERR_A_STATE) */
	PCIERR_STEP_MMIO_ENABLED,
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
	PCIERR_HANDLER_SLOT_RESET,
	PCIERR_HANDLER_RESUME,
	PCIERR_HANDLER_RESET_PREPARE,
	PCIERR_HANDLER_RESET_DONE,
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
	PCIERR_RESET_HOT,		/* bus/slot reset, or a function reset */
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
	/*
	 * Not a counter: a random value the module chose at load, never 0.
	 * Error generations (PCIERR_A_ERROR_GEN) start again at each load, so
	 * a generation means something only together with the load it came
	 * from: a listener that keeps generations across a reload or a reboot
	 * keeps this with them.
	 */
	PCIERR_STAT_LOAD_ID,
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
 * (ENXIO for "no EEH on this PE"). RESET of an RTAS PE is
 * ibm,set-slot-reset (fundamental falls back to hot where firmware has
 * none), held and settled (module parameters pseries_reset_hold_ms, 250,
 * and pseries_reset_settle_ms, 1800), the wait until firmware reports the
 * PE available, ibm,configure-pe, then the healthy config space. A
 * firmware status that is not success is the OP_DONE's errno: -3
 * (parameter error: no EEH on this PE) ENXIO, -8 (no such reset)
 * EOPNOTSUPP, -1 EIO, busy beyond 5 s EBUSY; "unavailable for good"
 * ENODEV; not available within pseries_avail_max_ms ETIMEDOUT.
 * docs/pseries.md.
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
#define PCIERR_DETAIL_SEVERITY_MAX (__PCIERR_DETAIL_MAX - 1)

#endif /* _UAPI_LINUX_PCIERR_H */

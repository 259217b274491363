/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd policy: the per-PE recovery state machine and the freeze
 * accounting, as pure functions. No I/O, no clocks, no printing: time is an
 * input, the PE's state is a value the caller keeps, and the output is the
 * next action plus the effects to persist.
 *
 * How the daemon drives it, per PE:
 *
 *   struct pcierr_recovery rec = PCIERR_RECOVERY_INIT;
 *   on every input (shim EVENT, AER uevent, OP_DONE, timer, udev):
 *       pcierr_policy_step(cfg, &pe, &rec, &ev, &out);
 *       persist out.effects (freeze records, disabled identities);
 *       carry out out.action (one genl command, a wait, a report ...);
 *       arm a timer of out.timeout_usec for commands and waits.
 *
 * Freeze accounting (per card and per PE, as EEH keeps it):
 *   A freeze counts against the card the event names -- every function of
 *   the named device's physical device (same domain:bus:slot), one card
 *   -- or, when it names none, the PE's head or a device not in the PE,
 *   against every device of the PE; and once against the PE itself
 *   (pe->history, EEH's pe->freeze_count). The count restarts when the
 *   freeze comes more than FreezeWindowSec after the FIRST freeze of the
 *   window, as eeh_pe_update_time_stamp() (arch/powerpc/kernel/eeh_pe.c)
 *   keeps it: with first = the window's first freeze, d = now - first,
 *       d <= window  -> inside: count + 1
 *       d >  window  -> a new window: count = 1, first = now
 *   A clock that went backwards (now < first) counts as inside. A count
 *   above MaxFreezes (the named device's, else the PE address's) --
 *   the card's or the PE's -- disables the PE and marks the card to blame
 *   (the named card; every card when none is named): with the default 5,
 *   the 5th freeze is still recovered and the 6th disables ("please try
 *   reseating or replacing it"). The message names the card with all its
 *   functions.
 *
 * Recovery (design §2, drivers/pci/pcie/err.c). Devices of the PE are
 * "aware" when a driver is bound that has both error_detected and
 * slot_reset; bridges are neither aware nor unaware; all others are unaware.
 *   - no unaware device: callbacks only:
 *       REPORT error_detected(frozen)
 *         DISCONNECT (none NEED_RESET)  -> DISABLE
 *         NEED_RESET                    -> RESET, REPORT slot_reset
 *         CAN_RECOVER                   -> ENABLE_IO, REPORT mmio_enabled
 *                                          RECOVERED -> REPORT resume
 *                                          NEED_RESET -> RESET ...
 *                                          DISCONNECT -> DISABLE
 *       RESET is HOT first (FUNDAMENTAL when the PE has only that); after a
 *       slot_reset still not RECOVERED the next hammer is FUNDAMENTAL (when
 *       the PE supports it), then DISABLE. REPORT resume -> DONE(recovered).
 *   - unaware and aware devices: partial hotplug: REPORT error_detected,
 *     REMOVE the unaware ones, WAIT_UDEV for their remove events (at most
 *     5 s), then the callback path from RESET on (a reset is always done so
 *     that the removed devices come back clean), REPORT resume, RESCAN,
 *     DONE(recovered).
 *   - only unaware devices: full hotplug: REMOVE all, WAIT_UDEV, RESET,
 *     RESCAN, DONE(recovered).
 *   Results are merged as merge_result() of drivers/pci/pcie/err.c, over the
 *   aware devices only (NEED_RESET beats DISCONNECT there, so a reset is
 *   tried whenever any driver asks for one); see "Merging" below. A DISABLE ends in
 *   DONE(failed) when the shim reports it done.
 *
 * A freeze of a PE that is already recovering is counted and folded in
 * (escalation), never started again in parallel (in phase KERNEL the
 * shim's freezes count once for the kernel's recovery, none when the
 * kernel's own freeze was counted): at the next decision the
 * recovery goes (on) to a reset; a freeze seen after a reset or resume makes
 * the next reset one hammer bigger (or the biggest again); after a RESCAN it
 * starts the recovery over. A count over the limit during a recovery
 * disables the PE at the next decision (an operation in flight is never
 * overtaken: the shim allows one per PE).
 *
 * A step that does not complete within StepTimeoutSec makes the PE STUCK
 * (reported once); its late completion resumes the recovery. (The daemon
 * asks the kernel then: an operation the shim no longer runs comes back
 * as an OP_DONE with -ETIMEDOUT: pcierr_policy_plan()'s LOST,
 * daemon/recovery-reconcile.c.) Phase KERNEL has
 * its own bound, KernelTimeoutSec (see "Kernel-native AER/DPC" below).
 *
 * First decisions on a freeze of an idle PE, in this order: perm_failure on
 * an empty slot (or a PE without devices) -> NOTHING(false alarm), not
 * counted; count the freeze; Recover=no -> NOTHING(recover-off), nothing
 * else (no disable either); an identity disabled earlier -> DISABLE; count
 * above the limit -> DISABLE; perm_failure with time_unavail <= 0 or above
 * MaxWaitSec -> DISABLE, else the drivers are told first (REPORT
 * error_detected, as EEH reports before eeh_wait_state()), then WAIT
 * time_unavail, then the recovery goes on from their answer (a PE of
 * unaware devices only: WAIT, then the full hotplug).
 *
 * Freeze kinds (ev->freeze_kind, FREEZE only):
 *   DETECTED  a new detection: everything above (the default, 0).
 *   COUNTED   a PE found frozen by a resync after pcierrd restarted: the
 *             freeze was counted before the restart, so no freeze is
 *             recorded (no FREEZE_RECORDED effect) and the limit is checked
 *             against the persisted count as it is: a device (the named
 *             one, else every device) whose count is already above its
 *             MaxFreezes -> DISABLE(too-many-freezes), with its
 *             IDENTITY_DISABLED effect. Otherwise as DETECTED, in the same
 *             order (false alarm, Recover=no, disabled identity,
 *             perm_failure; the recovery's clock starts at ev->now).
 *   ADMIN     an administrator's Reset: not counted, no limit check, and
 *             Recover=no does not stop it (the administrator asked; the
 *             channel state is not looked at either). An identity disabled
 *             earlier -> DISABLE as usual; else the recovery starts and is
 *             forced through a reset: the callbacks go error_detected ->
 *             reset -> slot_reset -> resume even when every driver answers
 *             CAN_RECOVER; the hotplug paths are as usual. The first reset
 *             is ev->reset_type when the PE has it (UNSPEC, or one the PE
 *             lacks: the smallest it has); later hammers as above. The
 *             first action's message says "reset requested".
 *   On a PE that is not idle, COUNTED and ADMIN are NOTHING(ignored): a
 *   resync of a recovering PE is not a new freeze, and the daemon refuses
 *   a Reset of a busy PE before asking.
 *
 * Kernel-native AER/DPC (uevents, drivers/pci/pcie/err.c): err.c sends
 * BEGIN per device from report_error_detected (for the votes NONE,
 * CAN_RECOVER, NEED_RESET; a DISCONNECT vote sends FAILED), then either
 * SUCCESSFUL per device from report_resume, or FAILED per device from
 * report_perm_failure_detected. The first of these on an idle PE starts
 * phase KERNEL: one kernel recovery of the PE, however many functions it
 * names. ev->aer_frozen (the caller reads it from the kernel, see
 * docs/pcierrd.conf.md) says whether the channel was frozen (a fatal
 * error, DPC, a surprise down): only then is one freeze counted, for the
 * recovery, against the card named first; a non-fatal recovery
 * (pci_channel_io_normal) counts nothing and never disables. The phase
 * ends when every device of the PE but its head last sent the same end:
 * all SUCCESSFUL -> DONE(recovered) (or DISABLE when the count passed the
 * limit, or pcierr's own recovery when the shim froze the PE meanwhile);
 * all FAILED -> pcierr's fallback, the full hotplug sequence. The
 * phase's bound is KernelTimeoutSec (not StepTimeoutSec); at its end the
 * caller passes the devices' channel states as the kernel has them now
 * (pcierr_policy_device.state): all normal -> DONE(recovered) (the
 * uevents were lost), else the fallback.
 *
 * Method (issue 25): a device whose settings say Method=hotplug (an
 * administrator's, or the shipped list of drivers whose callbacks are known
 * broken) counts as unaware whatever handlers its driver has: alone, or
 * with other unaware devices, the PE goes the full hotplug path; with aware
 * ones, the partial one. Its callbacks are never called.
 *
 * Verification (issue 25): where a recovery would end DONE(recovered)
 * (resume, the rescan of a hotplug path, the kernel's AER SUCCESSFUL) and
 * the PE's VerifySec is above 0 (the longest of its endpoints': bridges
 * have no function of their own to check), it goes to
 * VERIFY first (timeout_usec = VerifySec): the caller checks that each
 * device's function is back (its driver bound, its class devices present)
 * and feeds VERIFIED (verified, missing = words for what is not back).
 * Verified -> DONE(recovered). Not verified -> once per recovery, when
 * VerifyEscalate holds for every endpoint of the PE, the full hotplug path
 * (REMOVE all, reason NOT_VERIFIED: a fresh driver instance), and VERIFY
 * again at its end; else DONE(failed, NOT_VERIFIED) with the missing words
 * (no identity is disabled: the card answered, its driver did not come
 * back). A TIMEOUT during VERIFY counts as not verified. A freeze during
 * VERIFY is folded in: at VERIFIED the recovery starts over.
 *
 * Contract with the caller: persist out.effects before carrying out the
 * action; arm the PE's timer when out.timeout_usec > 0 (a TIMEOUT during a
 * WAIT or WAIT_UDEV is the end of that wait: send WAIT_DONE earlier when
 * udev is done); a new action replaces a wait in progress; DONE ends it all.
 * The PE and device lists are passed as they are now at every call: device
 * indices in the output refer to this call's pe->devices.
 */
#ifndef PCIERRD_POLICY_H
#define PCIERRD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pcierr.h>

#include "config.h"

typedef uint64_t pcierr_usec_t;
#define PCIERR_USEC_PER_SEC	1000000ULL
#define PCIERR_USEC_PER_MSEC	1000ULL

/* How long to wait for udev to process remove events (design §6) */
#define PCIERR_POLICY_UDEV_SETTLE_USEC	(5 * PCIERR_USEC_PER_SEC)

/* Devices of one PE the policy looks at: one bus */
#define PCIERR_POLICY_MAX_DEVICES	256

/* The persisted freeze history of one identity */
struct pcierr_freeze_record {
	unsigned int count;		/* freezes in the current window */
	pcierr_usec_t first_usec;	/* first freeze of the window */
	pcierr_usec_t last_usec;	/* latest freeze */
	bool disabled;			/* permanently disabled until Enable */
	/* the device's error generation when this identity's last freeze was
	 * counted; kept by pcierrd (the policy copies it unchanged) */
	uint32_t error_gen;
	/* ... and the shim's load it came from (PCIERR_STAT_LOAD_ID; 0: a
	 * shim that does not say): generations restart at each load */
	uint64_t load_id;
};

struct pcierr_policy_device {
	char addr[PCIERR_ADDR_MAX];
	uint16_t vendor, device, subvendor, subdevice;
	uint64_t dsn;
	bool has_dsn;
	uint32_t flags;			/* PCIERR_DEV_F_* */
	bool driver_bound;
	uint32_t handlers;		/* 1 << enum pcierr_handler */
	const char *driver;		/* bound driver's name; NULL: unknown */
	struct pcierr_freeze_record history;	/* of this identity */
	/* the channel state the kernel reports (TIMEOUT in phase KERNEL);
	 * UNSPEC: not known */
	enum pcierr_channel_state state;
};

struct pcierr_policy_pe {
	char addr[PCIERR_ADDR_MAX];
	uint32_t reset_types;		/* 1 << enum pcierr_reset_type */
	/* as the shim last said (GET_PE); for pcierr_policy_plan()'s ARM.
	 * 0 (UNSPEC): not known */
	enum pcierr_pe_state state;
	uint32_t flags;			/* PCIERR_PE_F_* */
	enum pcierr_backend backend;
	const struct pcierr_policy_device *devices;
	size_t n_devices;		/* at most PCIERR_POLICY_MAX_DEVICES */
	/* the PE's own freezes (EEH's pe->freeze_count): kept by the
	 * caller from PE_FREEZE_RECORDED effects */
	struct pcierr_freeze_record history;
};

enum pcierr_policy_event_type {
	PCIERR_POLICY_EV_FREEZE,	/* shim EVENT */
	PCIERR_POLICY_EV_AER,		/* kernel-native ERROR_EVENT uevent */
	PCIERR_POLICY_EV_OP_DONE,	/* shim OP_DONE */
	PCIERR_POLICY_EV_WAIT_DONE,	/* a WAIT or WAIT_UDEV is over */
	PCIERR_POLICY_EV_TIMEOUT,	/* out.timeout_usec passed */
	PCIERR_POLICY_EV_SLOT_EMPTY,	/* the slot holds no card any more */
	PCIERR_POLICY_EV_VERIFIED,	/* the VERIFY is over (verified, missing) */
	__PCIERR_POLICY_EV_MAX
};

enum pcierr_policy_aer {
	PCIERR_POLICY_AER_BEGIN,	/* ERROR_EVENT=BEGIN_RECOVERY */
	PCIERR_POLICY_AER_SUCCESSFUL,	/* ERROR_EVENT=SUCCESSFUL_RECOVERY */
	PCIERR_POLICY_AER_FAILED,	/* ERROR_EVENT=FAILED_RECOVERY */
};

/* What a FREEZE stands for (see "Freeze kinds" above) */
enum pcierr_policy_freeze_kind {
	PCIERR_FREEZE_DETECTED,	/* a new detection: counted (the default, 0) */
	PCIERR_FREEZE_COUNTED,	/* found frozen by a resync after pcierrd
				 * restarted; counted before */
	PCIERR_FREEZE_ADMIN,	/* an administrator's Reset: not counted,
				 * straight to a reset */
	__PCIERR_FREEZE_KIND_MAX
};

/* One device's answer in an OP_DONE */
struct pcierr_policy_result {
	char addr[PCIERR_ADDR_MAX];
	enum pcierr_result result;
};

struct pcierr_policy_event {
	enum pcierr_policy_event_type type;
	/* when it happened, on the clock of the freeze records (wall clock
	 * recommended: the records survive reboots) */
	pcierr_usec_t now;
	/* the same moment on a monotonic clock (CLOCK_BOOTTIME recommended),
	 * for durations; 0: durations from now */
	pcierr_usec_t mono;

	/* FREEZE, AER: the device named, NULL/"" for the whole PE */
	const char *device;

	/* FREEZE */
	enum pcierr_channel_state state;	/* FROZEN or PERM_FAILURE */
	int64_t time_unavail_ms;
	bool slot_empty;	/* the daemon found no card in the slot */
	enum pcierr_policy_freeze_kind freeze_kind;
	enum pcierr_reset_type reset_type;	/* ADMIN: HOT or FUNDAMENTAL;
						 * UNSPEC = the smallest the PE has */

	/* AER */
	enum pcierr_policy_aer aer;
	bool aer_frozen;	/* the channel was frozen: a fatal error, DPC */

	/* OP_DONE */
	enum pcierr_cmd op;		/* REPORT, ENABLE_IO, RESET, ... */
	enum pcierr_step step;		/* REPORT */
	int error;			/* 0 or a negative errno */
	const struct pcierr_policy_result *results;
	size_t n_results;
	/* a REPORT whose per-device answers are lost (a lost OP_DONE: only
	 * the shim's merge was kept, see pcierr_policy_plan()'s LOST):
	 * that merge, read by the one merge rule as "Merging" above says;
	 * UNSPEC: results hold the answers */
	enum pcierr_result merged;

	/* VERIFIED */
	bool verified;
	const char *missing;	/* what is not back, in words; NULL: "" */
	/* not verified because every device checked left the system (a
	 * surprise removal after resume): the recovery ends "gone" */
	bool gone;
};

enum pcierr_policy_action {
	PCIERR_ACTION_NOTHING,		/* see reason */
	PCIERR_ACTION_REPORT,		/* CMD_REPORT step (+ state) */
	PCIERR_ACTION_ENABLE_IO,	/* CMD_ENABLE_IO */
	PCIERR_ACTION_RESET,		/* CMD_RESET reset_type */
	PCIERR_ACTION_REMOVE,		/* CMD_REMOVE: all, or the listed */
	PCIERR_ACTION_WAIT_UDEV,	/* until udev processed the removes
					 * of the listed devices (all: every
					 * device), at most timeout_usec */
	PCIERR_ACTION_WAIT,		/* timer: timeout_usec */
	PCIERR_ACTION_RESCAN,		/* CMD_RESCAN */
	PCIERR_ACTION_DISABLE,		/* CMD_DISABLE, reason */
	PCIERR_ACTION_DONE,		/* recovery over: recovered or not */
	PCIERR_ACTION_STUCK,		/* the step in flight is overdue */
	PCIERR_ACTION_VERIFY,		/* check the function is back, at most
					 * timeout_usec; then feed VERIFIED */
	__PCIERR_ACTION_MAX
};

enum pcierr_policy_reason {
	PCIERR_REASON_NONE,
	/* NOTHING */
	PCIERR_REASON_FALSE_ALARM,	/* perm_failure on an empty slot */
	PCIERR_REASON_RECOVER_OFF,	/* Recover=no: recorded only */
	PCIERR_REASON_FOLDED,		/* freeze folded into a recovery */
	PCIERR_REASON_KERNEL,		/* the kernel's AER is recovering */
	PCIERR_REASON_WAITING,		/* waiting for an operation */
	PCIERR_REASON_IGNORED,		/* stale or irrelevant input */
	/* DONE */
	PCIERR_REASON_RECOVERED,
	PCIERR_REASON_GONE,		/* the card or PE went away */
	/* DISABLE, and DONE after it */
	PCIERR_REASON_TOO_MANY_FREEZES,	/* reseat or replace */
	PCIERR_REASON_PERM_FAILURE,	/* time_unavail <= 0 or > MaxWaitSec */
	PCIERR_REASON_DISCONNECT,	/* a driver answered DISCONNECT */
	PCIERR_REASON_RESET_FAILED,	/* still failing after the last reset */
	PCIERR_REASON_NO_RESET,		/* the PE supports no reset */
	PCIERR_REASON_IDENTITY_DISABLED, /* disabled earlier, not enabled */
	PCIERR_REASON_OP_FAILED,	/* an operation failed (errno) */
	/* REMOVE (escalation), DONE: the function did not come back */
	PCIERR_REASON_NOT_VERIFIED,
	/* REMOVE, WAIT_UDEV...: the path is Method=hotplug's */
	PCIERR_REASON_METHOD,
	__PCIERR_REASON_MAX
};

enum pcierr_policy_effect_type {
	PCIERR_EFFECT_FREEZE_RECORDED,	/* persist record for the device */
	PCIERR_EFFECT_IDENTITY_DISABLED, /* persist: disabled, reason */
	PCIERR_EFFECT_PE_FREEZE_RECORDED, /* the PE's record (device: 0) */
};

struct pcierr_policy_effect {
	enum pcierr_policy_effect_type type;
	unsigned int device;		/* index into pe->devices */
	struct pcierr_freeze_record record;	/* the new record */
	enum pcierr_policy_reason reason;	/* IDENTITY_DISABLED */
};

#define PCIERR_POLICY_MAX_EFFECTS	(2 * PCIERR_POLICY_MAX_DEVICES + 1)

struct pcierr_policy_output {
	enum pcierr_policy_action action;
	enum pcierr_step step;			/* REPORT */
	enum pcierr_channel_state state;	/* REPORT error_detected */
	enum pcierr_reset_type reset_type;	/* RESET; REPORT with recover */
	/* REPORT error_detected: nothing is left to decide until resume
	 * (a callback path, no freeze folded in, no administrator's reset,
	 * no wait after the report, the PE has a reset): the kernel may run
	 * error_detected, reset_type, slot_reset and resume as one RECOVER,
	 * whose steps then come back through the policy one by one */
	bool recover;
	bool all_devices;			/* REMOVE, WAIT_UDEV */
	size_t n_devices;			/* ... or these (indices) */
	unsigned int devices[PCIERR_POLICY_MAX_DEVICES];
	pcierr_usec_t timeout_usec;	/* commands: step timeout; waits */
	enum pcierr_policy_reason reason;	/* NOTHING, DISABLE, DONE */
	bool recovered;				/* DONE */
	pcierr_usec_t duration_usec;		/* DONE: since the freeze */
	char message[256];	/* human words for reason (DISABLE, DONE) */

	size_t n_effects;
	struct pcierr_policy_effect effects[PCIERR_POLICY_MAX_EFFECTS];
};

enum pcierr_recovery_phase {
	PCIERR_PHASE_IDLE,
	PCIERR_PHASE_WAIT,		/* time_unavail of a perm_failure */
	PCIERR_PHASE_ERROR_DETECTED,
	PCIERR_PHASE_ENABLE_IO,
	PCIERR_PHASE_MMIO_ENABLED,
	PCIERR_PHASE_RESET,
	PCIERR_PHASE_SLOT_RESET,
	PCIERR_PHASE_RESUME,
	PCIERR_PHASE_REMOVE,
	PCIERR_PHASE_WAIT_UDEV,
	PCIERR_PHASE_RESCAN,
	PCIERR_PHASE_DISABLE,
	PCIERR_PHASE_KERNEL,		/* the kernel's AER recovery runs */
	PCIERR_PHASE_VERIFY,		/* is the function back? */
	__PCIERR_PHASE_MAX
};

enum pcierr_recovery_mode {
	PCIERR_MODE_CALLBACKS,
	PCIERR_MODE_PARTIAL_HOTPLUG,
	PCIERR_MODE_FULL_HOTPLUG,
};

/* The state of one PE's recovery: kept by the caller, a plain value. */
struct pcierr_recovery {
	enum pcierr_recovery_phase phase;
	enum pcierr_recovery_mode mode;
	bool stuck;
	bool escalate;			/* a freeze was folded in */
	bool gone;			/* the slot emptied meanwhile */
	enum pcierr_policy_reason pending_disable;	/* NONE or why */
	enum pcierr_reset_type last_reset;	/* the latest issued; UNSPEC: none */
	bool reset_requested;		/* ADMIN: a reset is done even if no
					 * driver asks for one */
	enum pcierr_reset_type requested_reset;	/* ... and the first one is
						 * this; UNSPEC: the smallest */
	unsigned int freezes;		/* freezes counted in this recovery */
	/* phase KERNEL: the channel was frozen; the devices (indices) whose
	 * last end err.c sent was SUCCESSFUL, and those whose was FAILED */
	bool kernel_frozen;
	/* a perm_failure's time_unavail, waited out once the drivers have
	 * heard error_detected (U5, as EEH: eeh_wait_state() after the
	 * report); 0: none. detected: their merged answer, kept for after */
	pcierr_usec_t wait_after_detect;
	bool waited_after_detect;
	enum pcierr_result detected;
	uint64_t kernel_ended[PCIERR_POLICY_MAX_DEVICES / 64];
	uint64_t kernel_failed[PCIERR_POLICY_MAX_DEVICES / 64];
	pcierr_usec_t started_usec;
	pcierr_usec_t started_mono;	/* ev->mono then; 0: none */
	char message[256];		/* words for pending_disable */
	bool verify_escalated;		/* a failed VERIFY went to hotplug */
	bool by_method;			/* Method=hotplug chose the path */
};

#define PCIERR_RECOVERY_INIT ((struct pcierr_recovery) { .phase = PCIERR_PHASE_IDLE })

/*
 * A full-hotplug recovery that a pcierrd before a restart was carrying out
 * and that the kernel's state shows half done (docs/reliability.md,
 * scenario 30): rec becomes that recovery with done_op (REMOVE or RESET)
 * in flight, as if this pcierrd had issued it; the caller then feeds that
 * operation's OP_DONE, and the policy goes on (after REMOVE: wait for udev,
 * reset, rescan; after RESET: rescan). No freeze is counted: the pcierrd
 * that began the recovery counted it. Returns 0, or -EINVAL (rec untouched)
 * for another op or a rec that is not idle. done_op RECOVER: a callback
 * recovery whose one RECOVER (error_detected first) the kernel finished;
 * its steps are then fed as recovery-recover.c feeds any RECOVER's.
 */
int pcierr_policy_resume_hotplug(struct pcierr_recovery *rec, enum pcierr_cmd done_op,
				 pcierr_usec_t now, pcierr_usec_t mono);

/*
 * Feed one input. cfg: the configuration (settings are resolved per
 * device and PE); pe: the PE as it is now; rec: its recovery state, updated;
 * out: filled in completely. Returns 0, or -EINVAL for a bad input (rec
 * and out then untouched / NOTHING); a FREEZE's freeze_kind and reset_type
 * must be in range.
 */
int pcierr_policy_step(const struct pcierr_config *cfg,
		       const struct pcierr_policy_pe *pe,
		       struct pcierr_recovery *rec,
		       const struct pcierr_policy_event *ev,
		       struct pcierr_policy_output *out);

/*
 * The decisions pcierrd takes outside an input (pcierr_policy_plan()),
 * from the same rules as pcierr_policy_step():
 *
 *   BOUNDS The PE's StepTimeoutSec (every answer carries it): the bound
 *         of what pcierrd does to the PE outside a recovery (an
 *         administrator's Reset waiting for its freeze, ENABLE) and of
 *         asking the kernel again after an overdue step (U6).
 *   ARM   May the shim recover the PE's next freeze at once (issue 12,
 *         PCIERR_CMD_ARM)? Yes when a freeze named by any card of the PE
 *         would now start a REPORT error_detected with recover (above),
 *         AutoRecover=yes, the PE idle (rec), present and not disabled
 *         or busy in the shim, on the generic backend (RTAS and EEH are
 *         not proven with RECOVER: pcierrd asks). arm_reset: the
 *         RECOVER's reset.
 *   LOST  The operation in flight (op, step; a RECOVER: op RECOVER)
 *         ended and its OP_DONE never came (H1). kept: the shim's
 *         GET_PE kept its end (error, and a REPORT's merged answer).
 *         plan->lost is the input that stands for it:
 *           not kept            OP_DONE(op, step, -ETIMEDOUT): as if it
 *                               failed (a RECOVER: as error_detected
 *                               failing, so the policy resets)
 *           kept, not a REPORT  OP_DONE(op, kept error)
 *           kept REPORT         OP_DONE(step, kept error, merged = the
 *                               kept answer): no per-device answers
 *           kept RECOVER        replay: the caller feeds the steps the
 *                               shim kept (their merged answers, each
 *                               step an OP_DONE with merged); lost is
 *                               what to feed when it cannot read them
 *
 * Merging (one rule): drivers' answers are merged as err.c's
 * merge_result() over the PE's members (aware endpoints; bridges and
 * hot-unplugged devices have no vote), in the order given. A kept
 * answer (ev->merged, a lost OP_DONE) is the shim's merge over every
 * device in EEH's order (uapi "Merging results"); it is one vote,
 * except a DISCONNECT that a non-member (a bound unaware endpoint)
 * may have cast: not known, no vote. Where the orders differ
 * (CAN_RECOVER against RECOVERED) the kept answer is CAN_RECOVER: a
 * reset where err.c's order might have resumed, never a disable. A
 * kept answer never means "gone".
 */
enum pcierr_policy_question {
	PCIERR_PLAN_BOUNDS,	/* only what every answer carries */
	PCIERR_PLAN_ARM,
	PCIERR_PLAN_LOST,
	__PCIERR_PLAN_MAX
};

struct pcierr_policy_query {
	enum pcierr_policy_question question;
	pcierr_usec_t now, mono;	/* as an event's */
	/* LOST */
	enum pcierr_cmd op;
	enum pcierr_step step;		/* REPORT */
	bool kept;
	int error;			/* kept: 0 or a negative errno */
	enum pcierr_result result;	/* kept REPORT: the merged answer */
};

struct pcierr_policy_plan {
	/* every answer: the PE's StepTimeoutSec, as a step would get it */
	pcierr_usec_t step_timeout_usec;
	/* ARM */
	bool arm;
	enum pcierr_reset_type arm_reset;
	/* LOST */
	bool replay;			/* a kept RECOVER: feed its steps */
	struct pcierr_policy_event lost;
};

/*
 * Answer q about the PE as it is now (rec is not changed). Returns 0, or
 * -EINVAL for a bad query.
 */
int pcierr_policy_plan(const struct pcierr_config *cfg,
		       const struct pcierr_policy_pe *pe,
		       const struct pcierr_recovery *rec,
		       const struct pcierr_policy_query *q,
		       struct pcierr_policy_plan *plan);

/* merge_result() of drivers/pci/pcie/err.c on the ABI's results */
enum pcierr_result pcierr_policy_merge(enum pcierr_result orig,
				       enum pcierr_result new_result);

/* a bound driver with error_detected and slot_reset */
bool pcierr_policy_device_aware(const struct pcierr_policy_device *d);

/*
 * Count one freeze at now into *r (the rule above). Returns true when the
 * count is now above max_freezes.
 */
bool pcierr_policy_count_freeze(struct pcierr_freeze_record *r,
				pcierr_usec_t now,
				const struct pcierr_settings *s);

const char *pcierr_policy_action_to_string(enum pcierr_policy_action a);
const char *pcierr_policy_reason_to_string(enum pcierr_policy_reason r);
const char *pcierr_recovery_phase_to_string(enum pcierr_recovery_phase p);

#endif /* PCIERRD_POLICY_H */

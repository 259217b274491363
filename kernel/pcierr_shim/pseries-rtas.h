/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The pure part of pcierr's pseries backend: what the RTAS answers mean.
 * No firmware, no kernel: this file and pseries-rtas.c also build in
 * userspace for the unit tests (tests/unit/cksuite-pseries.c).
 *
 * ibm,read-slot-reset-state2 returns (PAPR): rets[0] the PE state,
 * rets[1] whether the PE supports EEH (0: not), rets[2] for state 5 the
 * milliseconds the PE is expected to stay unavailable (0: for good).
 */
#ifndef _PCIERR_PSERIES_RTAS_H
#define _PCIERR_PSERIES_RTAS_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <linux/types.h>
#include <stdbool.h>
typedef __u8 u8;
typedef __u32 u32;
#endif

/* PE states of ibm,read-slot-reset-state2 */
#define PSERIES_STATE_NORMAL		0	/* MMIO and DMA enabled */
#define PSERIES_STATE_RESET		1	/* reset asserted */
#define PSERIES_STATE_STOPPED		2	/* MMIO and DMA stopped */
#define PSERIES_STATE_MMIO		4	/* MMIO enabled, DMA stopped */
#define PSERIES_STATE_UNAVAIL		5	/* temporarily or for good */

/* ibm,set-slot-reset options */
#define PSERIES_RESET_DEACTIVATE	0
#define PSERIES_RESET_HOT		1
#define PSERIES_RESET_FUNDAMENTAL	3

/* ibm,slot-error-detail severities (as the kernel's EEH_LOG_*) */
#define PSERIES_LOG_TEMPORARY		1
#define PSERIES_LOG_PERMANENT		2

/* RTAS statuses */
#define PSERIES_RTAS_HW_ERROR		(-1)
#define PSERIES_RTAS_BUSY		(-2)
#define PSERIES_RTAS_PARAM_ERROR	(-3)
#define PSERIES_RTAS_NOT_SUPPORTED	(-8)	/* set-slot-reset: no fundamental */
#define PSERIES_RTAS_DELAY_MIN		9900
#define PSERIES_RTAS_DELAY_MAX		9905

/* The seeds: time_unavail above 15 s, or none, is a permanent failure. */
#define PSERIES_MAX_UNAVAIL_MS		15000
/* poll interval while the reset is still asserted */
#define PSERIES_RESET_POLL_MS		50

/* What an all-ones read means once the slot's reset state is known. */
enum pseries_verdict {
	PSERIES_V_CALL_FAILED,		/* the call failed: a false positive */
	PSERIES_V_NO_EEH,		/* no EEH on the PE (or -3): no opinion */
	PSERIES_V_HEALTHY,		/* state 0/1: the all-ones was genuine */
	PSERIES_V_EMPTY_SLOT,		/* perm_failure of an empty slot: false alarm */
	PSERIES_V_FROZEN,		/* state 2/4, or 5 with a short time */
	PSERIES_V_PERM_FAILURE,		/* state 5 for good, or too long */
};

/*
 * @rc: rtas_call()'s status; @rets: its outputs; @slot_empty: the checked
 * device is a bridge with nothing below it. For FROZEN and PERM_FAILURE,
 * *time_ms is the time of unavailability to report (0: none, or for good).
 */
enum pseries_verdict pseries_check_verdict(int rc, const int rets[3],
					   bool slot_empty, u32 *time_ms);

/* The availability loop after a reset. */
enum pseries_wait {
	PSERIES_W_AVAILABLE,		/* go on (configure-pe) */
	PSERIES_W_SLEEP,		/* sleep *sleep_ms, then ask again */
	PSERIES_W_PERMANENT,		/* firmware: unavailable for good */
	PSERIES_W_TIMEOUT,		/* not available within max_ms */
	PSERIES_W_ERROR,		/* the call failed or an unknown state */
};

/*
 * One step: @rc and @rets of ibm,read-slot-reset-state2, @waited_ms so
 * far, @max_ms the bound. Firmware's wait (rets[2]) is honoured up to
 * what is left of @max_ms; a wait longer than PSERIES_MAX_UNAVAIL_MS or
 * none at all is a permanent failure.
 */
enum pseries_wait pseries_wait_step(int rc, const int rets[3],
				    unsigned int waited_ms,
				    unsigned int max_ms,
				    unsigned int *sleep_ms);

/*
 * An RTAS "busy" status (-2 or 9900..9905) -> the milliseconds to wait
 * before calling again (9900+n: 10^n ms, capped at @cap_ms); -1 if @rc
 * is not a busy status.
 */
int pseries_busy_ms(int rc, unsigned int cap_ms);

/* An RTAS status that is not success -> a negative errno (0 for 0). */
int pseries_errno(int rc);

/* The header of an RTAS error log (struct rtas_error_log, big-endian). */
struct pseries_log_header {
	u8 version;
	u8 severity;		/* 0 none .. 5 fatal (PAPR) */
	u8 disposition;
	bool extended;
	u8 initiator;
	u8 target;
	u8 type;
	u32 ext_len;		/* bytes after the header (extended only) */
};

#define PSERIES_LOG_HEADER_LEN	8

/*
 * Decode the header of @len bytes at @buf; returns the log's total
 * length (header plus extended part, at most @len), or -1 if @len is
 * shorter than a header.
 */
int pseries_log_decode(const u8 *buf, unsigned int len,
		       struct pseries_log_header *h);
const char *pseries_log_severity_name(unsigned int severity);

#endif /* _PCIERR_PSERIES_RTAS_H */

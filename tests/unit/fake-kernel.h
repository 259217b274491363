/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An in-process double of the pcierr shim behind pcierrd's kernel ops
 * (daemon/kernel-ops.h): PEs and devices in memory, commands recorded and
 * completed with OP_DONE notifications through an eventfd the daemon's
 * loop watches, as libpcierr's event fd. Tests lose, reorder and delay
 * what they like (issue 10 point 5).
 */
#ifndef FAKE_KERNEL_H
#define FAKE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcierr/pcierr.h>

#include "kernel-ops.h"

#define FAKE_MAX_CMDS	256
#define FAKE_READ_BATCH	256	/* notifications per event_read, as libpcierr */

struct fake_cmd {
	enum pcierr_cmd op;
	enum pcierr_step step;
	enum pcierr_reset_type reset_type;
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t op_id;
	/* synchronous requests (GET_PE, dump, stats) made since the last
	 * EVENT was delivered, when this command was sent */
	unsigned int sync_since_event;
};

struct fake_op {
	uint64_t op_id;
	enum pcierr_cmd op;
	enum pcierr_step step;
	char pe[PCIERR_ADDR_STRLEN];
};

struct fake_kernel {
	int efd;
	struct pcierr_pe *pes;
	size_t n_pes, cap;
	struct pcierr_notification *queue;
	size_t n_queue, queue_cap;
	size_t queue_head;	/* queue[queue_head..n_queue) is pending */
	uint64_t next_op_id, next_seq;
	int family_id;

	/* what the daemon sent */
	struct fake_cmd cmds[FAKE_MAX_CMDS];
	size_t n_cmds;
	unsigned int sync_since_event;
	unsigned int n_dumps, n_gets;

	/* the operation in flight per PE is completed by fake_complete(),
	 * or at once when auto_complete */
	bool auto_complete;
	struct fake_op inflight[64];
	size_t n_inflight;
	/* the next OP_DONE of this op (0: none) is done but lost */
	enum pcierr_cmd drop_op;
	enum pcierr_step drop_step;
	bool drop_next_event;	/* the next EVENT is lost */
	bool no_last_op;	/* as ABI v1: GET_PE tells no last operation */
	int fail_dumps;		/* that many dumps fail with -EAGAIN */
	bool gone;		/* the shim is unloaded */
	uint64_t load_id;	/* GET_STATS' PCIERR_STAT_LOAD_ID (0: none) */
	/* answers to REPORT, per step: every aware device answers this */
	enum pcierr_result answer[__PCIERR_STEP_MAX];

	/* refuse_op is refused with refuse_error (a negative errno) the
	 * next refuse_count times it is sent (U1, U2) */
	enum pcierr_cmd refuse_op;
	int refuse_error;
	unsigned int refuse_count, n_refused;

	/* RECOVER: refused with EOPNOTSUPP (an older module) unless set */
	bool recover;
	int reset_error;	/* a RESET within a RECOVER fails with this */
	/* the last RECOVER's completion, kept as GET_PE's last operation
	 * keeps it (steps without results) */
	struct pcierr_recover_done last_recover;
	/* REMOVE takes the PE's devices (but the head) out of the dumps and
	 * leaves it "removed", RESET leaves it "reset", RESCAN brings the
	 * devices back; off: those change nothing (the older tests) */
	bool model_hotplug;
	size_t removed_devices[64];	/* per PE index: the count hidden */

	/* ARM (issue 12): refused with EOPNOTSUPP (an older module) unless
	 * set; an armed PE's next FROZEN event starts a RECOVER itself (not
	 * in cmds: n_auto counts them), any event disarms */
	bool arm;
	unsigned int n_arms, n_disarms, n_auto;
	uint64_t armed_id[64];		/* per PE index: the id armed for, 0: not */
	enum pcierr_reset_type armed_type[64];
	uint64_t last_auto_op_id;

	/* HOLD (issue 21 point 4): refused with EOPNOTSUPP (an older module)
	 * unless set; not in cmds */
	bool hold;
	unsigned int n_holds, n_unholds;	/* leases given, holds ended */
	uint64_t held_id[64];		/* per PE index: the id held, 0: not */
	uint32_t held_lease_ms[64];	/* ... and the last lease */
};

extern const struct kernel_ops fake_kernel_ops;
/* the instance the ops work on (one per test) */
extern struct fake_kernel *fake;

struct fake_kernel *fake_kernel_new(void);
void fake_kernel_free(struct fake_kernel *k);

/* A PE (bridge head addr) with n functions 0..n-1 of bus `bus`, each
 * with an aware driver (error_detected, slot_reset, resume, mmio_enabled) */
struct pcierr_pe *fake_add_pe(struct fake_kernel *k, const char *addr, unsigned int bus,
			      unsigned int n);
struct pcierr_pe *fake_pe(struct fake_kernel *k, const char *addr);
/* "report:error_detected=need_reset reset:hot ..." of the last RECOVER */
void fake_recover_string(const struct fake_kernel *k, char *buf, size_t size);

/* Queue notifications */
void fake_event(struct fake_kernel *k, const char *dev, enum pcierr_channel_state state);
void fake_overflow(struct fake_kernel *k, enum pcierr_overflow_reason reason);
void fake_family(struct fake_kernel *k, bool added);
void fake_raw_op_done(struct fake_kernel *k, uint64_t op_id, enum pcierr_cmd op,
		      enum pcierr_step step, const char *pe, int error);
/* Complete the operation in flight on pe (its OP_DONE queued unless
 * dropped); returns false when none */
bool fake_complete(struct fake_kernel *k, const char *pe);

/* The shim's owner timeout recovered pe by itself (ok: back to normal,
 * else left frozen with EIO): its LAST_OP and OP_DONE (op OWNER_RECOVER) */
void fake_owner_recover(struct fake_kernel *k, const char *pe, bool ok);

/* Is the PE armed (PCIERR_PE_F_ARMED)? */
bool fake_armed(struct fake_kernel *k, const char *pe);

/* The commands sent, as "report:error_detected reset:hot ..." */
void fake_cmds_string(const struct fake_kernel *k, char *buf, size_t size);

#endif /* FAKE_KERNEL_H */

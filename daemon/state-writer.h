/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's state writes, off the event loop (review H2, issue 10 point 2).
 *
 * The recovery acts first and persists after: every write to the state
 * store (freeze records, disabled marks, history) is queued here in
 * memory (no I/O, one mutex) and a worker thread with its own SQLite
 * connection commits what has queued up, in order, one transaction per
 * batch. A batch holding freeze records or disabled marks is committed
 * with synchronous=FULL, one of history only with NORMAL. The state
 * directory may sit on the very device whose PE is frozen: then only the
 * worker waits for it, never the recovery that would unfreeze it.
 *
 * The crash invariant: what pcierrd acted on but the worker had not yet
 * committed when pcierrd died is re-derived from the kernel at the next
 * start's resync: a PE still frozen is recovered again, and a freeze whose
 * error generation the store has not counted (the device's error_gen is
 * not the record's) is counted then, once (policy FREEZE_DETECTED); one
 * that the store counted already is not counted again (FREEZE_COUNTED).
 * The one freeze that can go uncounted is one whose whole recovery ended
 * before a crash that also lost its batch (milliseconds; the history rows
 * of that window are lost too).
 *
 * A transaction that cannot begin or commit (the disk locked, failing or
 * hung) loses nothing: its freeze records and disabled marks are queued
 * again (unless a later write of the same identity and table supersedes
 * them) and retried after 1 s, 2 s, ... 30 s. The queue is bounded: one
 * pending record and one pending mark per identity (a later write takes
 * the earlier one's place), and at most 4096 history rows (beyond, rows are
 * dropped and counted in history_dropped). So an event storm against a hung
 * disk costs memory and time per identity, not per event.
 *
 * Reads stay on the loop's own connection (WAL: readers never wait for
 * the writer); what must see every queued write first waits off the loop
 * (state_writer_fd(), state_writer_reached(): GetHistory, and the replies
 * of Enable and ClearFreezeCount, bus-manager.c).
 */
#ifndef PCIERRD_STATE_WRITER_H
#define PCIERRD_STATE_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

struct state_writer;

struct state_writer_stats {
	uint64_t queued;		/* writes queued */
	uint64_t committed;		/* writes committed */
	uint64_t failed;		/* writes lost to errors */
	uint64_t batches;		/* transactions */
	uint64_t pruned;		/* history entries deleted by retention */
	uint64_t coalesced;		/* records or marks that replaced a queued one */
	uint64_t history_dropped;	/* history rows dropped: HISTORY_QUEUE_MAX queued */
	uint64_t retries;		/* transactions that failed and were tried again */
};

/*
 * Open path a second time for the worker and start it. history_max
 * (entries, 0: unlimited) and history_max_age_usec (0: unlimited) are the
 * retention, applied by the worker after a batch now and then.
 */
int state_writer_new(const char *path, uint64_t history_max,
		     uint64_t history_max_age_usec, struct state_writer **ret);
/* Commit what is queued, stop and join the worker (NULL is fine) */
struct state_writer *state_writer_free(struct state_writer *w);

/* Queue a write (the arguments are copied); 0 or -ENOMEM */
int state_writer_save_freeze(struct state_writer *w, const char *key,
			     const struct pcierr_freeze_record *rec);
/* the count and times go; error_gen (the generation counted last) and the
 * shim's load_id it belongs to stay */
int state_writer_clear_freeze(struct state_writer *w, const char *key, uint32_t error_gen,
			      uint64_t load_id);
int state_writer_disable(struct state_writer *w, const char *key,
			 enum pcierr_policy_reason reason, const char *message,
			 pcierr_usec_t since_usec, const char *pe, const char *device);
int state_writer_enable(struct state_writer *w, const char *key);
int state_writer_history(struct state_writer *w, const struct pcierr_history_entry *e);

/*
 * The identity's freeze record and disabled mark as they stand once all
 * that is queued is committed: the store's (read on db, the caller's
 * connection) with the queued writes for key applied. A device that comes
 * back (a rescan) right after its recovery sees its freezes. 0 or a
 * negative errno from the store.
 */
int state_writer_load(struct state_writer *w, struct pcierr_state *db, const char *key,
		      struct pcierr_freeze_record *rec, struct pcierr_disabled *dis,
		      bool *disabled);

/* Wait until everything queued so far is committed (or failed), at most
 * timeout_usec: 0, or -ETIMEDOUT */
int state_writer_flush(struct state_writer *w, uint64_t timeout_usec);

void state_writer_get_stats(struct state_writer *w, struct state_writer_stats *ret);

/*
 * Waiting without blocking the loop: an eventfd (non-blocking) the worker
 * writes after each batch, for the loop to watch; the jobs queued so far
 * as a target; whether the target is committed (or failed).
 */
int state_writer_fd(struct state_writer *w);
uint64_t state_writer_target(struct state_writer *w);
bool state_writer_reached(struct state_writer *w, uint64_t target);

#endif /* PCIERRD_STATE_WRITER_H */

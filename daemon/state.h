/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's state store: what survives a restart, a reboot or a kill -9
 * (issue 3 "State that survives", design §4/§6). One SQLite 3 database,
 * normally /var/lib/pcierr/state.db, holding
 *   - the freeze record of every device identity (count, first, last,
 *     the device's error generation),
 *   - the identities disabled until `pcierrctl enable` (reason, message,
 *     the PE and device address they had then),
 *   - a history of events, recoveries and their steps.
 *
 * Durability: WAL journal with synchronous=FULL by default: once a write
 * function or pcierr_state_commit() has returned 0 the change is on disk
 * and survives a kill -9 of the daemon and a power loss
 * (pcierr_state_set_synchronous() trades the power-loss part for speed).
 * pcierrd itself writes only from its state writer thread
 * (daemon/state-writer.h), never on its event loop. Consistency: every write runs
 * in a transaction (its own, or a savepoint inside the caller's
 * pcierr_state_begin()); when anything fails it is rolled back and the
 * database is left as it was. Invalid arguments give -EINVAL before
 * anything is written.
 *
 * No printing: functions return 0 (or a documented positive value) or a
 * negative errno:
 *   -EINVAL   bad argument (NULL, over-long or empty string, out of range)
 *   -EPROTO   the database's schema is newer than this code knows
 *   -EBADMSG  the file is not a database, or the database is corrupt
 *   -EBUSY    locked by another connection beyond the busy timeout
 *   -ENOMEM   out of memory
 *   -ENOSPC   disk full;  -EROFS  read-only;  -EIO  anything else
 *   open only: the system's errno when the file cannot be opened at all
 *   (-ENOENT: no such directory, -EACCES: the file, or the directory it
 *   would be created in, is not writable, -EROFS, -EISDIR); the path must
 *   not be a symlink (SQLITE_OPEN_NOFOLLOW: refused, -ELOOP); the errmsg
 *   then says which
 * SQLite's own message for the last failure is kept: pcierr_state_errmsg().
 *
 * One connection is not thread-safe; use one per thread.
 */
#ifndef PCIERRD_STATE_H
#define PCIERRD_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "policy.h"

/* The schema version this code writes (PRAGMA user_version) */
#define PCIERR_STATE_SCHEMA_VERSION	3

/* Size limits, with the NUL */
#define PCIERR_IDENTITY_KEY_MAX		64
#define PCIERR_STATE_NAME_MAX		64	/* history step, result */
#define PCIERR_STATE_MESSAGE_MAX	1024	/* messages */
#define PCIERR_STATE_RESULTS_MAX	8192	/* per-device results text */

/* How long a statement waits for another connection's lock */
#define PCIERR_STATE_BUSY_TIMEOUT_MSEC	5000

struct pcierr_state;

/*
 * The identity of a device, as the key of its freeze record and of its
 * disabled mark:
 *   with a DSN:    "vvvv:dddd:ssss:uuuu:dsn:0123456789abcdef"
 *   without one:   "vvvv:dddd:ssss:uuuu:addr:DDDD:BB:DD.F"
 * (vendor:device:subvendor:subdevice, lower-case hex).
 *
 * A Device Serial Number names the card itself: its record follows it to
 * another slot or machine, and an identical card in the same slot starts
 * afresh, which is what "reseat or replace it" needs. Without a DSN two
 * cards of one model are indistinguishable by their ids: keying by the ids
 * alone would let one flaky card's freezes disable all its healthy
 * siblings, so the location is added; the record then belongs to the
 * "card of this model in this slot" (it survives rescans and reboots, a
 * move to another slot starts afresh). A DSN of 0 or all-ones is what
 * broken firmware reports, not a serial number: such devices are keyed by
 * address as if they had none.
 *
 * addr: the kernel's "DDDD:BB:DD.F" (hex digits, ':' and '.', upper case
 * is folded), required without a usable DSN, ignored (may be NULL) with
 * one. Returns 0, -EINVAL on a bad argument, -ENOBUFS when size is too
 * small (PCIERR_IDENTITY_KEY_MAX is always enough).
 */
int pcierr_identity_key(uint16_t vendor, uint16_t device,
			uint16_t subvendor, uint16_t subdevice,
			bool has_dsn, uint64_t dsn, const char *addr,
			char *buf, size_t size);

/*
 * Open (and create) the database at path (":memory:" for tests), set WAL,
 * synchronous=FULL, foreign_keys=ON and the busy timeout, and migrate the
 * schema step by step up to PCIERR_STATE_SCHEMA_VERSION, one transaction
 * per step. A database of a newer schema is refused with -EPROTO and left
 * untouched (a downgraded daemon must not scribble over it).
 */
int pcierr_state_open(const char *path, struct pcierr_state **ret);
/* Close (NULL is fine); a transaction still open is rolled back. */
struct pcierr_state *pcierr_state_close(struct pcierr_state *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct pcierr_state *, pcierr_state_close);
#define _cleanup_state_	_cleanup_(pcierr_state_closep)

/*
 * SQLite's message of the last failure on s ("" when none). With s NULL:
 * that of the last pcierr_state_open() of this thread that failed.
 */
const char *pcierr_state_errmsg(const struct pcierr_state *s);

/*
 * Whether the journal mode is WAL (it stays the rollback journal on a
 * filesystem without shared memory, and "memory" for ":memory:").
 */
bool pcierr_state_is_wal(const struct pcierr_state *s);
/* how many prepared statements the connection keeps (tests) */
size_t pcierr_state_cached_statements(const struct pcierr_state *s);

/*
 * Durability of the following commits: full (fsync at every commit, the
 * default) or normal (WAL: durable at the next checkpoint; a crash of
 * pcierrd loses nothing, a power loss the last commits, never
 * consistency). Not inside a transaction (-EINVAL).
 */
int pcierr_state_set_synchronous(struct pcierr_state *s, bool full);

/* PRAGMA quick_check: 0, -EBADMSG when the database is damaged */
int pcierr_state_check(struct pcierr_state *s);

/*
 * History retention: delete all but the newest max_entries entries (0: no
 * limit) and those older than before_usec (0: no age limit), in one
 * transaction. Returns the number of entries deleted.
 */
int pcierr_state_prune_history(struct pcierr_state *s, uint64_t max_entries,
			       pcierr_usec_t before_usec);

/* The schema version of the open database (PRAGMA user_version) */
int pcierr_state_schema_version(struct pcierr_state *s);

/*
 * An explicit transaction, so the daemon can persist all of a policy step's
 * effects atomically before acting on them: begin (BEGIN IMMEDIATE: the
 * write lock is taken now), the write functions, commit. Not nested: begin
 * inside a transaction is -EBUSY. A failed write inside it rolls back only
 * itself; the caller decides whether to commit the rest. A failed commit
 * rolls the whole transaction back. rollback without a transaction is a
 * no-op returning 0 (so it can be used for cleanup); commit without one is
 * -EINVAL.
 */
int pcierr_state_begin(struct pcierr_state *s);
int pcierr_state_commit(struct pcierr_state *s);
int pcierr_state_rollback(struct pcierr_state *s);
bool pcierr_state_in_transaction(const struct pcierr_state *s);

/*
 * Freeze records, by identity key. load: 1 and *ret filled when a record
 * exists, 0 and *ret zeroed when not; ret->disabled is whether the identity
 * is disabled (from the disabled table, also when there is no record).
 * save: insert or replace count/first_usec/last_usec/error_gen;
 * rec->disabled is not stored (use pcierr_state_disable()). count above INT32_MAX or times above
 * INT64_MAX (a negative value cast) are -EINVAL.
 * clear: forget the record (ClearFreezeCount): 1 when there was one, else 0.
 */
int pcierr_state_load_freeze(struct pcierr_state *s, const char *key,
			     struct pcierr_freeze_record *ret);
int pcierr_state_save_freeze(struct pcierr_state *s, const char *key,
			     const struct pcierr_freeze_record *rec);
int pcierr_state_clear_freeze(struct pcierr_state *s, const char *key);

/* A disabled identity */
struct pcierr_disabled {
	char key[PCIERR_IDENTITY_KEY_MAX];
	enum pcierr_policy_reason reason;
	char message[PCIERR_STATE_MESSAGE_MAX];
	pcierr_usec_t since_usec;
	char pe[PCIERR_ADDR_MAX];	/* the PE's address when disabled */
	char device[PCIERR_ADDR_MAX];	/* the device's; "" when unknown */
};

/*
 * disable: mark (or re-mark: reason, message, time, pe and device
 * replaced) the identity disabled; message may be NULL (""); pe and device
 * are the addresses of the PE and of the device when it was disabled
 * (normalised lower-case "DDDD:BB:DD.F", < PCIERR_ADDR_MAX; NULL: "").
 * enable: remove the mark, 1 when there was one, else 0 (the freeze record
 * is kept: clear it separately). is_disabled: 1 (and *ret filled when ret
 * is not NULL) or 0. list: all of them ordered by since_usec then key, in
 * one array to free() (*ret NULL when *n is 0).
 * find: like list, only those whose pe or device is addr (compared
 * case-insensitively; addr must not be empty), so that Enable(address)
 * finds what was disabled at an address that has no device any more.
 */
int pcierr_state_disable(struct pcierr_state *s, const char *key,
			 enum pcierr_policy_reason reason, const char *message,
			 pcierr_usec_t since_usec, const char *pe, const char *device);
int pcierr_state_enable(struct pcierr_state *s, const char *key);
int pcierr_state_is_disabled(struct pcierr_state *s, const char *key,
			     struct pcierr_disabled *ret);
int pcierr_state_list_disabled(struct pcierr_state *s,
			       struct pcierr_disabled **ret, size_t *n);
int pcierr_state_find_disabled(struct pcierr_state *s, const char *addr,
			       struct pcierr_disabled **ret, size_t *n);

enum pcierr_history_kind {
	PCIERR_HISTORY_EVENT,		/* an error was detected */
	PCIERR_HISTORY_RECOVERY,	/* a recovery finished */
	PCIERR_HISTORY_STEP,		/* one step of a recovery */
	PCIERR_HISTORY_DISABLE,		/* an identity was disabled */
	PCIERR_HISTORY_ENABLE,		/* ... and enabled again */
	__PCIERR_HISTORY_KIND_MAX
};

/* "event", "recovery", "step", "disable", "enable"; NULL when out of range */
const char *pcierr_history_kind_to_string(enum pcierr_history_kind k);
/* the kind, or -EINVAL */
int pcierr_history_kind_from_string(const char *str);

/*
 * One history entry. Strings other than pe may be NULL (absent). On
 * append, id is ignored; error is 0 or a negative errno.
 */
struct pcierr_history_entry {
	int64_t id;			/* increasing, assigned on append */
	pcierr_usec_t time_usec;
	const char *pe;			/* < PCIERR_ADDR_MAX, required */
	const char *device;		/* < PCIERR_ADDR_MAX */
	enum pcierr_history_kind kind;
	const char *step;		/* < PCIERR_STATE_NAME_MAX */
	const char *result;		/* < PCIERR_STATE_NAME_MAX */
	const char *results;		/* < PCIERR_STATE_RESULTS_MAX */
	pcierr_usec_t duration_usec;
	int error;			/* 0 or -errno */
	const char *message;		/* < PCIERR_STATE_MESSAGE_MAX */
};

/* Append; *ret_id (when not NULL) gets the new entry's id. */
int pcierr_state_append_history(struct pcierr_state *s,
				const struct pcierr_history_entry *e,
				int64_t *ret_id);

/*
 * Which entries a query returns: time_usec >= since_usec, and, for each of
 * pe, device and address that is not NULL (all must hold): pe is pe,
 * device is device (both exact), pe or device is address (compared
 * case-insensitively: the history of a slot or a device by one address).
 * limit 0: all; else the newest limit entries. Entries always come oldest
 * first (time_usec, then id).
 */
struct pcierr_history_filter {
	pcierr_usec_t since_usec;
	const char *pe;
	const char *device;
	size_t limit;
	const char *address;		/* either pe or device equals it */
};

/*
 * Call cb for each entry (its strings valid during the call only). cb
 * returns 0 to go on, > 0 to stop, < 0 to stop and have the query return
 * that. Returns the number of entries passed to cb, or a negative errno.
 */
typedef int (*pcierr_history_cb)(const struct pcierr_history_entry *e,
				 void *userdata);
int pcierr_state_query_history(struct pcierr_state *s,
			       const struct pcierr_history_filter *f,
			       pcierr_history_cb cb, void *userdata);
/*
 * The same into an array that the caller owns, strings included: free it
 * with pcierr_history_free(*ret, *n). *ret is NULL when *n is 0.
 */
int pcierr_state_get_history(struct pcierr_state *s,
			     const struct pcierr_history_filter *f,
			     struct pcierr_history_entry **ret, size_t *n);
void pcierr_history_free(struct pcierr_history_entry *e, size_t n);

/*
 * Where the history of pe leaves its last recovery (issue 11 point 7: a
 * pcierrd restarted after a SIGKILL asks whether the end of what the one
 * before began was recorded). The newest entry of pe that begins or ends
 * one: a "recovery" entry (its end), a "disable" entry (an identity
 * disabled: its DISABLE runs next), or a step "recover" with result
 * "started" (a RECOVER sent; its message "operation N"). *ret_kind gets its
 * kind, *ret_op_id N for that step (0 otherwise). Returns 1 when found, 0
 * when pe has none, or a negative errno.
 */
#define PCIERR_HISTORY_RECOVER_STEP	"recover"
#define PCIERR_HISTORY_RECOVER_STARTED	"started"
int pcierr_state_last_recovery_mark(struct pcierr_state *s, const char *pe,
				    enum pcierr_history_kind *ret_kind,
				    uint64_t *ret_op_id);

#endif /* PCIERRD_STATE_H */

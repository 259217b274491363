/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's state store on SQLite 3; see state.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state.h"

/*
 * Prepared statements are kept for the connection's life (L14): compiling
 * the SQL again on every freeze record and history row costs more than
 * running it. The cache is keyed by the SQL text; a statement still being
 * stepped (a caller's callback that queries again) gets a second entry, so
 * the cache is bounded by the distinct statements in this file times the
 * nesting depth.
 */
struct stmt_cache_entry {
	const char *sql;
	sqlite3_stmt *st;
};

struct pcierr_state {
	sqlite3 *db;
	bool in_tx;			/* pcierr_state_begin() is active */
	bool wal;			/* the journal mode is WAL */
	struct stmt_cache_entry *cache;
	size_t n_cache;
	char errmsg[256];
};

static __thread char open_errmsg[256];

/*
 * A statement from prepare() goes back to the cache when its variable goes
 * out of scope: reset (which also ends a read transaction it held) and its
 * bindings cleared, so no caller's string is referenced afterwards.
 */
static void stmt_releasep(sqlite3_stmt **st)
{
	if (!*st)
		return;
	(void) sqlite3_reset(*st);
	(void) sqlite3_clear_bindings(*st);
}

#define _cleanup_stmt_	_cleanup_(stmt_releasep)

/*
 * The schema, one entry per version: migrations[i] takes a database of
 * user_version i to i + 1. Version 3 is one more entry here and
 * PCIERR_STATE_SCHEMA_VERSION 3; never edit an entry once released.
 */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE freeze ("
	"  identity TEXT PRIMARY KEY NOT NULL,"
	"  count INTEGER NOT NULL CHECK (count >= 0),"
	"  first_usec INTEGER NOT NULL CHECK (first_usec >= 0),"
	"  last_usec INTEGER NOT NULL CHECK (last_usec >= 0)"
	");"
	"CREATE TABLE disabled ("
	"  identity TEXT PRIMARY KEY NOT NULL,"
	"  reason INTEGER NOT NULL CHECK (reason >= 0),"
	"  message TEXT NOT NULL DEFAULT '',"
	"  since_usec INTEGER NOT NULL CHECK (since_usec >= 0)"
	");"
	"CREATE TABLE history ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT,"
	"  time_usec INTEGER NOT NULL CHECK (time_usec >= 0),"
	"  pe TEXT NOT NULL,"
	"  device TEXT,"
	"  kind TEXT NOT NULL CHECK (kind IN"
	"    ('event', 'recovery', 'step', 'disable', 'enable')),"
	"  step TEXT,"
	"  result TEXT,"
	"  results TEXT,"
	"  duration_usec INTEGER NOT NULL DEFAULT 0 CHECK (duration_usec >= 0),"
	"  errno INTEGER NOT NULL DEFAULT 0,"
	"  message TEXT"
	");"
	"CREATE INDEX history_time ON history (time_usec, id);"
	"CREATE INDEX history_pe ON history (pe, time_usec);"
	"CREATE INDEX history_device ON history (device, time_usec);",

	/* 1 -> 2: the error generation of a freeze; where a disabled
	 * identity was (Enable and GetHistory by an address) */
	"ALTER TABLE freeze ADD COLUMN"
	"  error_gen INTEGER NOT NULL DEFAULT 0"
	"  CHECK (error_gen BETWEEN 0 AND 4294967295);"
	"ALTER TABLE disabled ADD COLUMN pe TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE disabled ADD COLUMN device TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX disabled_pe ON disabled (pe COLLATE NOCASE);"
	"CREATE INDEX disabled_device ON disabled (device COLLATE NOCASE);",

	/* 2 -> 3: the shim's load the error generation belongs to (a
	 * generation restarts at each load of the shim); 0: unknown */
	"ALTER TABLE freeze ADD COLUMN"
	"  load_id INTEGER NOT NULL DEFAULT 0 CHECK (load_id >= 0);",
};

_Static_assert(ELEMENTSOF(migrations) == PCIERR_STATE_SCHEMA_VERSION,
	       "one migration per schema version");
/* disabled.reason holds enum pcierr_policy_reason by value */
_Static_assert(PCIERR_REASON_TOO_MANY_FREEZES == 9 && PCIERR_REASON_OP_FAILED == 15,
	       "reasons are stored by value: add new ones at the end only");

static int map_rc(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_IOERR:
	default:
		return -EIO;
	}
}

/* keep SQLite's message of a failure; returns the errno */
static int fail(struct pcierr_state *s, int rc)
{
	const char *m = sqlite3_errmsg(s->db);

	/* a step that "failed" with a row or with no row is a caller's
	 * unexpected answer, never a success (review L5) */
	if ((rc & 0xff) == SQLITE_ROW || (rc & 0xff) == SQLITE_DONE || rc == SQLITE_OK) {
		snprintf(s->errmsg, sizeof(s->errmsg), "unexpected answer %d from SQLite", rc);
		return -EIO;
	}

	snprintf(s->errmsg, sizeof(s->errmsg), "%s", m ? m : sqlite3_errstr(rc));
	return map_rc(rc);
}

static int exec(struct pcierr_state *s, const char *sql)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(s, rc);
}

/* sql must outlive s: every caller passes a string literal */
static int prepare(struct pcierr_state *s, const char *sql, sqlite3_stmt **ret)
{
	struct stmt_cache_entry *c;
	sqlite3_stmt *st;
	int rc;

	for (size_t i = 0; i < s->n_cache; i++) {
		c = &s->cache[i];
		if ((c->sql == sql || strcmp(c->sql, sql) == 0) && !sqlite3_stmt_busy(c->st)) {
			*ret = c->st;
			return 0;
		}
	}

	c = reallocarray(s->cache, s->n_cache + 1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->cache = c;
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc);
	s->cache[s->n_cache++] = (struct stmt_cache_entry) { .sql = sql, .st = st };
	*ret = st;
	return 0;
}

size_t pcierr_state_cached_statements(const struct pcierr_state *s)
{
	return s ? s->n_cache : 0;
}

/* step a statement that returns no row */
static int step_done(struct pcierr_state *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	return rc == SQLITE_DONE ? 0 : fail(s, rc == SQLITE_ROW ? SQLITE_MISUSE : rc);
}

/*
 * Write transactions: a transaction of its own, or a savepoint within the
 * caller's. write_end() commits (releases) on r >= 0, rolls back otherwise,
 * and returns r or the commit's error.
 */
static int write_begin(struct pcierr_state *s)
{
	return exec(s, s->in_tx ? "SAVEPOINT pcierr_write" : "BEGIN IMMEDIATE");
}

static int write_end(struct pcierr_state *s, int r)
{
	if (r >= 0) {
		int k = exec(s, s->in_tx ? "RELEASE pcierr_write" : "COMMIT");

		if (k >= 0)
			return r;
		r = k;
	}
	/* the error message is already kept: don't let the rollback's
	 * (normally none) replace it */
	if (s->in_tx)
		(void) sqlite3_exec(s->db, "ROLLBACK TO pcierr_write; RELEASE pcierr_write",
				    NULL, NULL, NULL);
	else if (!sqlite3_get_autocommit(s->db))
		(void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static bool str_ok(const char *str, size_t max, bool allow_empty)
{
	size_t l;

	if (!str)
		return false;
	l = strnlen(str, max);
	return l < max && (allow_empty || l > 0);
}

static bool opt_str_ok(const char *str, size_t max)
{
	return !str || str_ok(str, max, true);
}

static bool key_ok(const char *key)
{
	return str_ok(key, PCIERR_IDENTITY_KEY_MAX, false);
}

static bool usec_ok(pcierr_usec_t t)
{
	return t <= (pcierr_usec_t) INT64_MAX;
}

static bool addr_ok(const char *a)
{
	return str_ok(a, PCIERR_ADDR_MAX, false);
}

static int bind_opt_text(sqlite3_stmt *st, int i, const char *str)
{
	return str ? sqlite3_bind_text(st, i, str, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

int pcierr_identity_key(uint16_t vendor, uint16_t device,
			uint16_t subvendor, uint16_t subdevice,
			bool has_dsn, uint64_t dsn, const char *addr,
			char *buf, size_t size)
{
	char a[PCIERR_ADDR_MAX];
	int n;

	if (!buf || size == 0)
		return -EINVAL;

	if (has_dsn && dsn != 0 && dsn != UINT64_MAX)
		n = snprintf(buf, size, "%04x:%04x:%04x:%04x:dsn:%016" PRIx64,
			     vendor, device, subvendor, subdevice, dsn);
	else {
		size_t l;

		if (!str_ok(addr, sizeof(a), false))
			return -EINVAL;
		l = strlen(addr);
		for (size_t i = 0; i < l; i++) {
			char c = addr[i];

			if (c >= 'A' && c <= 'F')
				c = (char) (c - 'A' + 'a');
			else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				   c == ':' || c == '.'))
				return -EINVAL;
			a[i] = c;
		}
		a[l] = 0;
		n = snprintf(buf, size, "%04x:%04x:%04x:%04x:addr:%s",
			     vendor, device, subvendor, subdevice, a);
	}
	if (n < 0)
		return -EINVAL;
	if ((size_t) n >= size) {
		buf[0] = 0;
		return -ENOBUFS;
	}
	return 0;
}

static int get_user_version(struct pcierr_state *s, int *ret)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r, rc;

	r = prepare(s, "PRAGMA user_version", &st);
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	*ret = sqlite3_column_int(st, 0);
	return 0;
}

int pcierr_state_schema_version(struct pcierr_state *s)
{
	int v, r;

	if (!s)
		return -EINVAL;
	r = get_user_version(s, &v);
	return r < 0 ? r : v;
}

static int migrate(struct pcierr_state *s)
{
	for (;;) {
		char sql[64];
		int v, r;

		r = get_user_version(s, &v);
		if (r < 0)
			return r;
		if (v > PCIERR_STATE_SCHEMA_VERSION) {
			snprintf(s->errmsg, sizeof(s->errmsg),
				 "schema version %d is newer than %d", v,
				 PCIERR_STATE_SCHEMA_VERSION);
			return -EPROTO;
		}
		if (v == PCIERR_STATE_SCHEMA_VERSION)
			return 0;
		if (v < 0)
			return -EBADMSG;

		r = exec(s, "BEGIN IMMEDIATE");
		if (r < 0)
			return r;
		/* another pcierrd may have migrated meanwhile: look again
		 * under the write lock */
		r = get_user_version(s, &v);
		if (r >= 0 && v < PCIERR_STATE_SCHEMA_VERSION && v >= 0) {
			r = exec(s, migrations[v]);
			if (r >= 0) {
				snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
				r = exec(s, sql);
			}
		}
		r = write_end(s, r);
		if (r < 0)
			return r;
	}
}

static int configure(struct pcierr_state *s)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r, rc;

	rc = sqlite3_busy_timeout(s->db, PCIERR_STATE_BUSY_TIMEOUT_MSEC);
	if (rc != SQLITE_OK)
		return fail(s, rc);
	/* the first statement reading the file: a non-database fails here */
	r = prepare(s, "PRAGMA journal_mode = WAL", &st);
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	{
		const unsigned char *mode = sqlite3_column_text(st, 0);

		/* ":memory:" answers "memory"; a filesystem without shared
		 * memory keeps the rollback journal (review L14) */
		s->wal = mode && strcmp((const char *) mode, "wal") == 0;
	}
	r = exec(s, "PRAGMA synchronous = FULL");
	if (r < 0)
		return r;
	return exec(s, "PRAGMA foreign_keys = ON");
}

/*
 * Why SQLite could not open path at all (SQLITE_CANTOPEN): its
 * sqlite3_system_errno() is that of its last system call, often a probe
 * of a -journal or -wal file (ENOENT) rather than the cause. Look for
 * the cause: a symlink (refused: NOFOLLOW), a directory, a file we may
 * not open, a directory we may not create it in. 0 when none is found.
 * (Found by tests/fuzz/abuse-check: a non-writable state directory said
 * "No such file or directory".)
 */
static int cantopen_cause(const char *path, char *msg, size_t size)
{
	char dir[PATH_MAX];
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			snprintf(msg, size, "pcierrd does not follow a symbolic link there");
			return -ELOOP;
		}
		if (S_ISDIR(st.st_mode)) {
			snprintf(msg, size, "a directory, not a database file");
			return -EISDIR;
		}
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			snprintf(msg, size, "cannot open it read-write: %s", strerror(errno));
			return -errno;
		}
		close(fd);
		return 0;
	}
	if (errno != ENOENT)
		return -errno;
	snprintf(dir, sizeof(dir), "%s", path);
	if (access(dirname(dir), W_OK | X_OK) < 0) {
		int e = errno;

		snprintf(msg, size, "cannot create it in %.160s: %s", dir, strerror(e));
		return -e;
	}
	return 0;
}

int pcierr_state_open(const char *path, struct pcierr_state **ret)
{
	_cleanup_state_ struct pcierr_state *s = NULL;
	int r, rc;

	if (!path || !*path || !ret)
		return -EINVAL;

	open_errmsg[0] = 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;

	rc = sqlite3_open_v2(path, &s->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		if (!s->db)
			return -ENOMEM;
		r = fail(s, rc);
		if ((rc & 0xff) == SQLITE_CANTOPEN) {
			int cause = cantopen_cause(path, s->errmsg, sizeof(s->errmsg));

			if (cause < 0)
				r = cause;
			else if (sqlite3_system_errno(s->db) > 0)
				r = -sqlite3_system_errno(s->db);
		}
		goto err;
	}
	(void) sqlite3_extended_result_codes(s->db, 1);

	r = configure(s);
	if (r < 0)
		goto err;
	r = migrate(s);
	if (r < 0)
		goto err;

	*ret = TAKE_PTR(s);
	return 0;
err:
	snprintf(open_errmsg, sizeof(open_errmsg), "%s", s->errmsg);
	return r;
}

struct pcierr_state *pcierr_state_close(struct pcierr_state *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_cache; i++)
		(void) sqlite3_finalize(s->cache[i].st);
	free(s->cache);
	if (s->db) {
		if (!sqlite3_get_autocommit(s->db))
			(void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		(void) sqlite3_close_v2(s->db);
	}
	free(s);
	return NULL;
}

const char *pcierr_state_errmsg(const struct pcierr_state *s)
{
	return s ? s->errmsg : open_errmsg;
}

bool pcierr_state_is_wal(const struct pcierr_state *s)
{
	return s && s->wal;
}

int pcierr_state_set_synchronous(struct pcierr_state *s, bool full)
{
	if (!s || s->in_tx)
		return -EINVAL;
	return exec(s, full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
}

int pcierr_state_check(struct pcierr_state *s)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	const unsigned char *t;
	int r, rc;

	if (!s)
		return -EINVAL;
	r = prepare(s, "PRAGMA quick_check(1)", &st);
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	t = sqlite3_column_text(st, 0);
	if (!t || strcmp((const char *) t, "ok") != 0) {
		snprintf(s->errmsg, sizeof(s->errmsg), "integrity check: %s",
			 t ? (const char *) t : "no answer");
		return -EBADMSG;
	}
	return 0;
}

int pcierr_state_prune_history(struct pcierr_state *s, uint64_t max_entries,
			       pcierr_usec_t before_usec)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r, n = 0;

	if (!s || max_entries > (uint64_t) INT64_MAX || !usec_ok(before_usec))
		return -EINVAL;
	r = write_begin(s);
	if (r < 0)
		return r;
	if (max_entries > 0) {
		r = prepare(s, "DELETE FROM history WHERE id <= "
			    "(SELECT id FROM history ORDER BY id DESC LIMIT 1 OFFSET ?1)", &st);
		if (r >= 0 && sqlite3_bind_int64(st, 1, (sqlite3_int64) max_entries) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		if (r >= 0)
			r = step_done(s, st);
		if (r >= 0)
			n += sqlite3_changes(s->db);
		stmt_releasep(&st);
		st = NULL;
	}
	if (r >= 0 && before_usec > 0) {
		r = prepare(s, "DELETE FROM history WHERE time_usec < ?1", &st);
		if (r >= 0 && sqlite3_bind_int64(st, 1, (sqlite3_int64) before_usec) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		if (r >= 0)
			r = step_done(s, st);
		if (r >= 0)
			n += sqlite3_changes(s->db);
	}
	r = write_end(s, r);
	return r < 0 ? r : n;
}

int pcierr_state_begin(struct pcierr_state *s)
{
	int r;

	if (!s)
		return -EINVAL;
	if (s->in_tx)
		return -EBUSY;
	r = exec(s, "BEGIN IMMEDIATE");
	if (r < 0)
		return r;
	s->in_tx = true;
	return 0;
}

int pcierr_state_commit(struct pcierr_state *s)
{
	int r;

	if (!s || !s->in_tx)
		return -EINVAL;
	r = exec(s, "COMMIT");
	if (r < 0 && !sqlite3_get_autocommit(s->db))
		(void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_tx = false;
	return r;
}

int pcierr_state_rollback(struct pcierr_state *s)
{
	int r = 0;

	if (!s)
		return -EINVAL;
	if (!s->in_tx)
		return 0;
	if (!sqlite3_get_autocommit(s->db))
		r = exec(s, "ROLLBACK");
	s->in_tx = false;
	return r;
}

bool pcierr_state_in_transaction(const struct pcierr_state *s)
{
	return s && s->in_tx;
}

/* ------------------------------------------------------------------ */
/* Freeze records and disabled identities */

#define DISABLED_COLUMNS "identity, reason, message, since_usec, pe, device"

static void copy_col(char *buf, size_t size, sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(buf, size, "%s", t ? (const char *) t : "");
}

/* a row of SELECT DISABLED_COLUMNS */
static void read_disabled(sqlite3_stmt *st, struct pcierr_disabled *d)
{
	memset(d, 0, sizeof(*d));
	copy_col(d->key, sizeof(d->key), st, 0);
	d->reason = (enum pcierr_policy_reason) sqlite3_column_int(st, 1);
	copy_col(d->message, sizeof(d->message), st, 2);
	d->since_usec = (pcierr_usec_t) sqlite3_column_int64(st, 3);
	copy_col(d->pe, sizeof(d->pe), st, 4);
	copy_col(d->device, sizeof(d->device), st, 5);
}

int pcierr_state_is_disabled(struct pcierr_state *s, const char *key,
			     struct pcierr_disabled *ret)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r, rc;

	if (!s || !key_ok(key))
		return -EINVAL;
	r = prepare(s, "SELECT " DISABLED_COLUMNS " FROM disabled WHERE identity = ?1", &st);
	if (r < 0)
		return r;
	if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	if (ret)
		read_disabled(st, ret);
	return 1;
}

int pcierr_state_load_freeze(struct pcierr_state *s, const char *key,
			     struct pcierr_freeze_record *ret)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	struct pcierr_freeze_record rec = {};
	int r, rc, found = 0;

	if (!s || !key_ok(key) || !ret)
		return -EINVAL;
	r = prepare(s, "SELECT count, first_usec, last_usec, error_gen, load_id FROM freeze "
		    "WHERE identity = ?1", &st);
	if (r < 0)
		return r;
	if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rec.count = (unsigned int) sqlite3_column_int(st, 0);
		rec.first_usec = (pcierr_usec_t) sqlite3_column_int64(st, 1);
		rec.last_usec = (pcierr_usec_t) sqlite3_column_int64(st, 2);
		rec.error_gen = (uint32_t) sqlite3_column_int64(st, 3);
		rec.load_id = (uint64_t) sqlite3_column_int64(st, 4);
		found = 1;
	} else if (rc != SQLITE_DONE)
		return fail(s, rc);

	r = pcierr_state_is_disabled(s, key, NULL);
	if (r < 0)
		return r;
	rec.disabled = r > 0;
	*ret = rec;
	return found;
}

int pcierr_state_save_freeze(struct pcierr_state *s, const char *key,
			     const struct pcierr_freeze_record *rec)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r;

	if (!s || !key_ok(key) || !rec || rec->count > INT32_MAX || rec->load_id > INT64_MAX ||
	    !usec_ok(rec->first_usec) || !usec_ok(rec->last_usec))
		return -EINVAL;

	r = write_begin(s);
	if (r < 0)
		return r;
	r = prepare(s, "INSERT INTO freeze (identity, count, first_usec, last_usec, error_gen, "
		    "load_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (identity) DO UPDATE SET "
		    "count = excluded.count, first_usec = excluded.first_usec, "
		    "last_usec = excluded.last_usec, error_gen = excluded.error_gen, "
		    "load_id = excluded.load_id", &st);
	if (r >= 0) {
		if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 2, rec->count) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 3, (sqlite3_int64) rec->first_usec) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 4, (sqlite3_int64) rec->last_usec) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 5, (sqlite3_int64) rec->error_gen) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 6, (sqlite3_int64) rec->load_id) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		else
			r = step_done(s, st);
	}
	return write_end(s, r);
}

/* DELETE ... WHERE identity = key: 1 when a row went, 0 when none */
static int delete_key(struct pcierr_state *s, const char *sql, const char *key)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r;

	if (!s || !key_ok(key))
		return -EINVAL;
	r = write_begin(s);
	if (r < 0)
		return r;
	r = prepare(s, sql, &st);
	if (r >= 0) {
		if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		else
			r = step_done(s, st);
		if (r >= 0)
			r = sqlite3_changes(s->db) > 0;
	}
	return write_end(s, r);
}

int pcierr_state_clear_freeze(struct pcierr_state *s, const char *key)
{
	return delete_key(s, "DELETE FROM freeze WHERE identity = ?1", key);
}

int pcierr_state_enable(struct pcierr_state *s, const char *key)
{
	return delete_key(s, "DELETE FROM disabled WHERE identity = ?1", key);
}

int pcierr_state_disable(struct pcierr_state *s, const char *key,
			 enum pcierr_policy_reason reason, const char *message,
			 pcierr_usec_t since_usec, const char *pe, const char *device)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r;

	if (!s || !key_ok(key) || (int) reason < 0 || reason >= __PCIERR_REASON_MAX ||
	    !opt_str_ok(message, PCIERR_STATE_MESSAGE_MAX) || !usec_ok(since_usec) ||
	    !opt_str_ok(pe, PCIERR_ADDR_MAX) || !opt_str_ok(device, PCIERR_ADDR_MAX))
		return -EINVAL;

	r = write_begin(s);
	if (r < 0)
		return r;
	r = prepare(s, "INSERT INTO disabled (identity, reason, message, since_usec, pe, device) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (identity) DO UPDATE SET "
		    "reason = excluded.reason, message = excluded.message, "
		    "since_usec = excluded.since_usec, pe = excluded.pe, "
		    "device = excluded.device", &st);
	if (r >= 0) {
		if (sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_int(st, 2, (int) reason) != SQLITE_OK ||
		    sqlite3_bind_text(st, 3, message ? message : "", -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 4, (sqlite3_int64) since_usec) != SQLITE_OK ||
		    sqlite3_bind_text(st, 5, pe ? pe : "", -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_bind_text(st, 6, device ? device : "", -1, SQLITE_STATIC) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		else
			r = step_done(s, st);
	}
	return write_end(s, r);
}

/* list (addr NULL) or find (addr) */
static int get_disabled(struct pcierr_state *s, const char *addr,
			struct pcierr_disabled **ret, size_t *n)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	_cleanup_free_ struct pcierr_disabled *a = NULL;
	size_t len = 0, cap = 0;
	int r, rc;

	r = prepare(s, "SELECT " DISABLED_COLUMNS " FROM disabled "
		    "WHERE ?1 IS NULL OR pe = ?1 COLLATE NOCASE OR device = ?1 COLLATE NOCASE "
		    "ORDER BY since_usec, identity", &st);
	if (r < 0)
		return r;
	if (bind_opt_text(st, 1, addr) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct pcierr_disabled *na = reallocarray(a, ncap, sizeof(*a));

			if (!na)
				return -ENOMEM;
			a = na;
			cap = ncap;
		}
		read_disabled(st, &a[len++]);
	}
	if (rc != SQLITE_DONE)
		return fail(s, rc);

	*ret = len ? TAKE_PTR(a) : NULL;
	*n = len;
	return 0;
}

int pcierr_state_list_disabled(struct pcierr_state *s,
			       struct pcierr_disabled **ret, size_t *n)
{
	if (!s || !ret || !n)
		return -EINVAL;
	return get_disabled(s, NULL, ret, n);
}

int pcierr_state_find_disabled(struct pcierr_state *s, const char *addr,
			       struct pcierr_disabled **ret, size_t *n)
{
	if (!s || !addr_ok(addr) || !ret || !n)
		return -EINVAL;
	return get_disabled(s, addr, ret, n);
}

/* ------------------------------------------------------------------ */
/* History */

static const char *const kind_names[__PCIERR_HISTORY_KIND_MAX] = {
	[PCIERR_HISTORY_EVENT] = "event",
	[PCIERR_HISTORY_RECOVERY] = "recovery",
	[PCIERR_HISTORY_STEP] = "step",
	[PCIERR_HISTORY_DISABLE] = "disable",
	[PCIERR_HISTORY_ENABLE] = "enable",
};

const char *pcierr_history_kind_to_string(enum pcierr_history_kind k)
{
	if ((int) k < 0 || k >= __PCIERR_HISTORY_KIND_MAX)
		return NULL;
	return kind_names[k];
}

int pcierr_history_kind_from_string(const char *str)
{
	if (!str)
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(kind_names); i++)
		if (strcmp(str, kind_names[i]) == 0)
			return (int) i;
	return -EINVAL;
}

int pcierr_state_append_history(struct pcierr_state *s,
				const struct pcierr_history_entry *e,
				int64_t *ret_id)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r;

	if (!s || !e || !usec_ok(e->time_usec) || !addr_ok(e->pe) ||
	    (e->device && !addr_ok(e->device)) ||
	    !pcierr_history_kind_to_string(e->kind) ||
	    !opt_str_ok(e->step, PCIERR_STATE_NAME_MAX) ||
	    !opt_str_ok(e->result, PCIERR_STATE_NAME_MAX) ||
	    !opt_str_ok(e->results, PCIERR_STATE_RESULTS_MAX) ||
	    !usec_ok(e->duration_usec) || e->error > 0 || e->error < -4095 ||
	    !opt_str_ok(e->message, PCIERR_STATE_MESSAGE_MAX))
		return -EINVAL;

	r = write_begin(s);
	if (r < 0)
		return r;
	r = prepare(s, "INSERT INTO history (time_usec, pe, device, kind, step, result, "
		    "results, duration_usec, errno, message) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", &st);
	if (r >= 0) {
		if (sqlite3_bind_int64(st, 1, (sqlite3_int64) e->time_usec) != SQLITE_OK ||
		    sqlite3_bind_text(st, 2, e->pe, -1, SQLITE_STATIC) != SQLITE_OK ||
		    bind_opt_text(st, 3, e->device) != SQLITE_OK ||
		    sqlite3_bind_text(st, 4, kind_names[e->kind], -1, SQLITE_STATIC) != SQLITE_OK ||
		    bind_opt_text(st, 5, e->step) != SQLITE_OK ||
		    bind_opt_text(st, 6, e->result) != SQLITE_OK ||
		    bind_opt_text(st, 7, e->results) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 8, (sqlite3_int64) e->duration_usec) != SQLITE_OK ||
		    sqlite3_bind_int(st, 9, e->error) != SQLITE_OK ||
		    bind_opt_text(st, 10, e->message) != SQLITE_OK)
			r = fail(s, SQLITE_ERROR);
		else
			r = step_done(s, st);
		if (r >= 0 && ret_id)
			*ret_id = sqlite3_last_insert_rowid(s->db);
	}
	return write_end(s, r);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *) sqlite3_column_text(st, i);
}

int pcierr_state_query_history(struct pcierr_state *s,
			       const struct pcierr_history_filter *f,
			       pcierr_history_cb cb, void *userdata)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	int r, rc, count = 0;

	if (!s || !f || !cb || !usec_ok(f->since_usec) ||
	    (f->pe && !addr_ok(f->pe)) || (f->device && !addr_ok(f->device)) ||
	    (f->address && !addr_ok(f->address)) || f->limit > (size_t) INT64_MAX)
		return -EINVAL;

	/* the newest `limit` matching, given back oldest first */
	r = prepare(s, "SELECT * FROM ("
		    "  SELECT id, time_usec, pe, device, kind, step, result, results,"
		    "         duration_usec, errno, message FROM history"
		    "  WHERE time_usec >= ?1 AND (?2 IS NULL OR pe = ?2)"
		    "    AND (?3 IS NULL OR device = ?3)"
		    "    AND (?5 IS NULL OR pe = ?5 COLLATE NOCASE"
		    "         OR device = ?5 COLLATE NOCASE)"
		    "  ORDER BY time_usec DESC, id DESC LIMIT ?4"
		    ") ORDER BY time_usec, id", &st);
	if (r < 0)
		return r;
	if (sqlite3_bind_int64(st, 1, (sqlite3_int64) f->since_usec) != SQLITE_OK ||
	    bind_opt_text(st, 2, f->pe) != SQLITE_OK ||
	    bind_opt_text(st, 3, f->device) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 4, f->limit ? (sqlite3_int64) f->limit : -1) != SQLITE_OK ||
	    bind_opt_text(st, 5, f->address) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct pcierr_history_entry e = {
			.id = sqlite3_column_int64(st, 0),
			.time_usec = (pcierr_usec_t) sqlite3_column_int64(st, 1),
			.pe = col_text(st, 2),
			.device = col_text(st, 3),
			.step = col_text(st, 5),
			.result = col_text(st, 6),
			.results = col_text(st, 7),
			.duration_usec = (pcierr_usec_t) sqlite3_column_int64(st, 8),
			.error = sqlite3_column_int(st, 9),
			.message = col_text(st, 10),
		};
		int k = pcierr_history_kind_from_string(col_text(st, 4));

		if (k < 0 || !e.pe) {
			snprintf(s->errmsg, sizeof(s->errmsg), "bad history row %" PRId64, e.id);
			return -EBADMSG;
		}
		e.kind = (enum pcierr_history_kind) k;
		count++;
		r = cb(&e, userdata);
		if (r < 0)
			return r;
		if (r > 0)
			return count;
	}
	if (rc != SQLITE_DONE)
		return fail(s, rc);
	return count;
}

int pcierr_state_last_recovery_mark(struct pcierr_state *s, const char *pe,
				    enum pcierr_history_kind *ret_kind,
				    uint64_t *ret_op_id)
{
	_cleanup_stmt_ sqlite3_stmt *st = NULL;
	const char *message;
	uint64_t op_id = 0;
	int r, rc, k;

	if (!s || !addr_ok(pe) || !ret_kind || !ret_op_id)
		return -EINVAL;
	/* by the history_pe index; id is the order they were queued in */
	r = prepare(s, "SELECT kind, message FROM history"
		    "  WHERE pe = ?1 AND (kind IN ('recovery', 'disable')"
		    "    OR (kind = 'step' AND step = '" PCIERR_HISTORY_RECOVER_STEP "'"
		    "        AND result = '" PCIERR_HISTORY_RECOVER_STARTED "'))"
		    "  ORDER BY id DESC LIMIT 1", &st);
	if (r < 0)
		return r;
	if (sqlite3_bind_text(st, 1, pe, -1, SQLITE_STATIC) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	k = pcierr_history_kind_from_string(col_text(st, 0));
	if (k < 0) {
		snprintf(s->errmsg, sizeof(s->errmsg), "bad history kind of %s", pe);
		return -EBADMSG;
	}
	message = col_text(st, 1);
	if (k == PCIERR_HISTORY_STEP &&
	    (!message || sscanf(message, "operation %" SCNu64, &op_id) != 1))
		op_id = 0;
	*ret_kind = (enum pcierr_history_kind) k;
	*ret_op_id = op_id;
	return 1;
}

void pcierr_history_free(struct pcierr_history_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++) {
		free((char *) e[i].pe);
		free((char *) e[i].device);
		free((char *) e[i].step);
		free((char *) e[i].result);
		free((char *) e[i].results);
		free((char *) e[i].message);
	}
	free(e);
}

struct history_array {
	struct pcierr_history_entry *a;
	size_t n, cap;
};

static int dup_opt(const char *in, const char **out)
{
	if (!in) {
		*out = NULL;
		return 0;
	}
	*out = strdup(in);
	return *out ? 0 : -ENOMEM;
}

static int collect(const struct pcierr_history_entry *e, void *userdata)
{
	struct history_array *h = userdata;
	struct pcierr_history_entry *c;

	if (h->n == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 16;
		struct pcierr_history_entry *na = reallocarray(h->a, ncap, sizeof(*na));

		if (!na)
			return -ENOMEM;
		h->a = na;
		h->cap = ncap;
	}
	c = &h->a[h->n];
	*c = (struct pcierr_history_entry) {
		.id = e->id,
		.time_usec = e->time_usec,
		.kind = e->kind,
		.duration_usec = e->duration_usec,
		.error = e->error,
	};
	h->n++;		/* counted now, so that a partial copy is freed */
	if (dup_opt(e->pe, &c->pe) < 0 || dup_opt(e->device, &c->device) < 0 ||
	    dup_opt(e->step, &c->step) < 0 || dup_opt(e->result, &c->result) < 0 ||
	    dup_opt(e->results, &c->results) < 0 || dup_opt(e->message, &c->message) < 0)
		return -ENOMEM;
	return 0;
}

int pcierr_state_get_history(struct pcierr_state *s,
			     const struct pcierr_history_filter *f,
			     struct pcierr_history_entry **ret, size_t *n)
{
	struct history_array h = {};
	int r;

	if (!ret || !n)
		return -EINVAL;
	r = pcierr_state_query_history(s, f, collect, &h);
	if (r < 0) {
		pcierr_history_free(h.a, h.n);
		return r;
	}
	if (h.n == 0) {
		free(h.a);
		h.a = NULL;
	}
	*ret = h.a;
	*n = h.n;
	return 0;
}

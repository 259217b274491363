/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state store (daemon/state.c): every test works on a fresh database
 * file in its own mkdtemp directory, removed afterwards.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../../daemon/state-writer.h"
#include "../../daemon/state.h"
#include "cksuites.h"


#define T0	((pcierr_usec_t) 1700000000 * PCIERR_USEC_PER_SEC)
#define KEY_A	"8086:10d3:8086:a01f:dsn:0011223344556677"
#define KEY_B	"1af4:1000:1af4:0001:addr:0000:01:00.1"
#define KEY_C	"10ec:8139:10ec:8139:addr:0000:03:00.0"

static char tmpdir[64];
static char dbpath[128];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cksuite-state.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(dbpath, sizeof(dbpath), "%s/state.db", tmpdir);
}

static void teardown(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char p[512];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(tmpdir);
}

/* run SQL on the file directly, as another program would */
static void raw_exec(const char *sql)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK,
		      "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
}

static sqlite3_int64 raw_int(const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3_int64 v;

	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

#define ROWS_SQL "SELECT (SELECT count(*) FROM freeze) * 10000 + " \
		 "(SELECT count(*) FROM disabled) * 100 + (SELECT count(*) FROM history)"

static struct pcierr_state *open_db(void)
{
	struct pcierr_state *s = NULL;
	int r = pcierr_state_open(dbpath, &s);

	ck_assert_msg(r == 0, "open: %d %s", r, pcierr_state_errmsg(NULL));
	ck_assert_ptr_nonnull(s);
	return s;
}

static struct pcierr_freeze_record rec(unsigned int count, pcierr_usec_t first,
				       pcierr_usec_t last)
{
	return (struct pcierr_freeze_record) {
		.count = count, .first_usec = first, .last_usec = last,
	};
}

/* ------------------------------------------------------------------ */

START_TEST(test_open_create)
{
	_cleanup_state_ struct pcierr_state *s = NULL;
	_cleanup_state_ struct pcierr_state *m = NULL;

	ck_assert_int_eq(access(dbpath, F_OK), -1);
	s = open_db();
	ck_assert_int_eq(access(dbpath, F_OK), 0);
	ck_assert_int_eq(pcierr_state_schema_version(s), 3);
	ck_assert_int_eq(pcierr_state_schema_version(s), PCIERR_STATE_SCHEMA_VERSION);
	ck_assert_str_eq(pcierr_state_errmsg(s), "");
	ck_assert(!pcierr_state_in_transaction(s));
	s = pcierr_state_close(s);
	ck_assert_ptr_null(s);

	/* persistent settings, seen from outside */
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 3);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);

	/* opening again migrates nothing and keeps the version */
	s = open_db();
	ck_assert_int_eq(pcierr_state_schema_version(s), 3);

	ck_assert_int_eq(pcierr_state_open(":memory:", &m), 0);
	ck_assert_int_eq(pcierr_state_schema_version(m), 3);
}
END_TEST

START_TEST(test_reopen_keeps_data)
{
	struct pcierr_state *s = open_db();
	struct pcierr_freeze_record r0 = rec(3, T0, T0 + 42), got;
	struct pcierr_disabled d;
	struct pcierr_history_entry *h = NULL;
	size_t n = 0;
	int64_t id = 0;

	r0.error_gen = 17;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r0), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_B, PCIERR_REASON_TOO_MANY_FREEZES,
					      "reseat or replace it", T0 + 7,
					      "0000:00:02.0", "0000:01:00.1"), 0);
	ck_assert_int_eq(pcierr_state_append_history(s, &(struct pcierr_history_entry) {
		.time_usec = T0, .pe = "0000:00:02.0", .device = "0000:01:00.0",
		.kind = PCIERR_HISTORY_RECOVERY, .result = "recovered",
		.results = "0000:01:00.0=recovered", .duration_usec = 1234, .error = 0,
		.message = "ok" }, &id), 0);
	ck_assert_int_gt(id, 0);
	/* the daemon restarts */
	s = pcierr_state_close(s);
	s = open_db();

	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.count, 3);
	ck_assert_uint_eq(got.first_usec, T0);
	ck_assert_uint_eq(got.last_usec, T0 + 42);
	ck_assert_uint_eq(got.error_gen, 17);
	ck_assert(!got.disabled);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_B, &d), 1);
	ck_assert_str_eq(d.key, KEY_B);
	ck_assert_int_eq(d.reason, PCIERR_REASON_TOO_MANY_FREEZES);
	ck_assert_str_eq(d.message, "reseat or replace it");
	ck_assert_uint_eq(d.since_usec, T0 + 7);
	ck_assert_str_eq(d.pe, "0000:00:02.0");
	ck_assert_str_eq(d.device, "0000:01:00.1");
	ck_assert_int_eq(pcierr_state_get_history(s, &(struct pcierr_history_filter) {}, &h, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(h[0].id, id);
	ck_assert_int_eq(h[0].kind, PCIERR_HISTORY_RECOVERY);
	ck_assert_str_eq(h[0].pe, "0000:00:02.0");
	ck_assert_str_eq(h[0].device, "0000:01:00.0");
	ck_assert_ptr_null(h[0].step);
	ck_assert_str_eq(h[0].result, "recovered");
	ck_assert_str_eq(h[0].results, "0000:01:00.0=recovered");
	ck_assert_uint_eq(h[0].duration_usec, 1234);
	ck_assert_str_eq(h[0].message, "ok");
	pcierr_history_free(h, n);
	pcierr_state_close(s);
}
END_TEST

START_TEST(test_newer_refused)
{
	struct pcierr_state *s = NULL;

	raw_exec("CREATE TABLE future (x); PRAGMA user_version = 99");
	ck_assert_int_eq(pcierr_state_open(dbpath, &s), -EPROTO);
	ck_assert_ptr_null(s);
	ck_assert_str_ne(pcierr_state_errmsg(NULL), "");
	/* left as it was */
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 99);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM sqlite_master WHERE name = 'freeze'"), 0);
}
END_TEST

START_TEST(test_not_a_database)
{
	struct pcierr_state *s = NULL;
	char junk[4096];
	int fd;

	memset(junk, 'x', sizeof(junk));
	fd = open(dbpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t) sizeof(junk));
	close(fd);

	ck_assert_int_eq(pcierr_state_open(dbpath, &s), -EBADMSG);
	ck_assert_ptr_null(s);
	ck_assert_str_ne(pcierr_state_errmsg(NULL), "");
}
END_TEST

/*
 * A database as pcierrd with schema 1 left it: the schema of version 1,
 * verbatim (migrations[0] of that release), and some rows.
 */
static const char v1_schema[] =
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
	"CREATE INDEX history_device ON history (device, time_usec);"
	"PRAGMA user_version = 1;";

static const char v1_rows[] =
	"INSERT INTO freeze VALUES ('" KEY_A "', 3, 1700000000000000, 1700000000000042);"
	"INSERT INTO freeze VALUES ('" KEY_B "', 6, 1700000000000000, 1700000000000099);"
	"INSERT INTO disabled VALUES ('" KEY_B "', 9, 'reseat or replace it', 1700000000000099);"
	"INSERT INTO history (time_usec, pe, device, kind, message) VALUES"
	"  (1700000000000000, '0000:00:02.0', '0000:01:00.0', 'event', 'one'),"
	"  (1700000000000099, '0000:00:02.0', NULL, 'disable', 'two');";

START_TEST(test_migrate_v1)
{
	_cleanup_state_ struct pcierr_state *s = NULL;
	_cleanup_free_ struct pcierr_disabled *l = NULL;
	struct pcierr_freeze_record got;
	struct pcierr_history_entry *h = NULL;
	struct pcierr_disabled d;
	size_t n = 0;

	raw_exec(v1_schema);
	raw_exec(v1_rows);
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 1);

	s = open_db();
	ck_assert_int_eq(pcierr_state_schema_version(s), 3);

	/* the rows are intact, the new columns have their defaults */
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.count, 3);
	ck_assert_uint_eq(got.first_usec, T0);
	ck_assert_uint_eq(got.last_usec, T0 + 42);
	ck_assert_uint_eq(got.error_gen, 0);
	ck_assert_uint_eq(got.load_id, 0);
	ck_assert(!got.disabled);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
	ck_assert_uint_eq(got.count, 6);
	ck_assert_uint_eq(got.error_gen, 0);
	ck_assert(got.disabled);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_B, &d), 1);
	ck_assert_int_eq(d.reason, PCIERR_REASON_TOO_MANY_FREEZES);	/* 9: stored as such */
	ck_assert_str_eq(d.message, "reseat or replace it");
	ck_assert_uint_eq(d.since_usec, T0 + 99);
	ck_assert_str_eq(d.pe, "");
	ck_assert_str_eq(d.device, "");
	ck_assert_int_eq(pcierr_state_list_disabled(s, &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].key, KEY_B);
	ck_assert_str_eq(l[0].pe, "");
	free(TAKE_PTR(l));
	/* an identity disabled before schema 2 is found by no address */
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:02.0", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(l);
	ck_assert_int_eq(pcierr_state_get_history(s, &(struct pcierr_history_filter) {}, &h, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(h[0].kind, PCIERR_HISTORY_EVENT);
	ck_assert_str_eq(h[0].device, "0000:01:00.0");
	ck_assert_str_eq(h[0].message, "one");
	ck_assert_int_eq(h[1].kind, PCIERR_HISTORY_DISABLE);
	ck_assert_ptr_null(h[1].device);
	ck_assert_str_eq(h[1].message, "two");
	pcierr_history_free(h, n);

	/* and the new columns work on the old rows */
	got.error_gen = 5;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &got), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_B, PCIERR_REASON_TOO_MANY_FREEZES, NULL, T0,
					      "0000:00:02.0", "0000:01:00.0"), 0);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:01:00.0", &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	s = pcierr_state_close(s);

	ck_assert_int_eq(raw_int("PRAGMA user_version"), 3);
	ck_assert_int_eq(raw_int(ROWS_SQL), 20102);
	ck_assert_int_eq(raw_int("SELECT error_gen FROM freeze WHERE identity = '" KEY_B "'"), 5);
	ck_assert_int_eq(raw_int("SELECT error_gen FROM freeze WHERE identity = '" KEY_A "'"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_integrity_check "
				 "WHERE integrity_check = 'ok'"), 1);
}
END_TEST

/* the migration to 2 fails: the database stays at 1, as it was */
START_TEST(test_migrate_v1_fails)
{
	struct pcierr_state *s = NULL;

	raw_exec(v1_schema);
	raw_exec(v1_rows);
	/* something in the way of the migration's own index */
	raw_exec("CREATE INDEX disabled_pe ON disabled (identity)");

	ck_assert_int_eq(pcierr_state_open(dbpath, &s), -EIO);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(pcierr_state_errmsg(NULL), "disabled_pe"));
	ck_assert_int_eq(raw_int("PRAGMA user_version"), 1);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_table_info('freeze') "
				 "WHERE name = 'error_gen'"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_table_info('disabled') "
				 "WHERE name IN ('pe', 'device')"), 0);
	ck_assert_int_eq(raw_int(ROWS_SQL), 20102);

	/* out of the way: it goes through */
	raw_exec("DROP INDEX disabled_pe");
	s = open_db();
	ck_assert_int_eq(pcierr_state_schema_version(s), 3);
	pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 20102);
}
END_TEST

START_TEST(test_error_gen)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	struct pcierr_freeze_record r = rec(2, T0, T0 + 5), got;
	sqlite3 *db = NULL;

	/* a fresh record has none */
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.error_gen, 0);

	r.error_gen = 1;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.error_gen, 1);

	/* the full range of a u32, no sign trouble */
	r.error_gen = UINT32_MAX;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.error_gen, UINT32_MAX);
	ck_assert_uint_eq(got.count, 2);
	ck_assert_int_eq(raw_int("SELECT error_gen FROM freeze"), 4294967295LL);

	/* replaced by the next save, per identity */
	r.error_gen = 0x80000000U;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &r), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.error_gen, UINT32_MAX);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
	ck_assert_uint_eq(got.error_gen, 0x80000000U);

	/* the shim's load it belongs to: any non-negative int64 */
	r.load_id = INT64_MAX;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &r), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
	ck_assert_uint_eq(got.load_id, (uint64_t) INT64_MAX);
	ck_assert_uint_eq(got.error_gen, 0x80000000U);
	r.load_id = (uint64_t) INT64_MAX + 1;
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &r), -EINVAL);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.load_id, 0);

	/* gone with the record */
	ck_assert_int_eq(pcierr_state_clear_freeze(s, KEY_A), 1);
	memset(&got, 0xaa, sizeof(got));
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 0);
	ck_assert_uint_eq(got.error_gen, 0);
	ck_assert_uint_eq(got.load_id, 0);

	/* the database refuses what is not a u32 */
	s = pcierr_state_close(s);
	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(db, "UPDATE freeze SET error_gen = -1", NULL, NULL, NULL),
			 SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(db, "UPDATE freeze SET error_gen = 4294967296", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
}
END_TEST

START_TEST(test_find_disabled)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	_cleanup_free_ struct pcierr_disabled *l = NULL;
	struct pcierr_disabled d;
	size_t n = 99;

	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:1c.0", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(l);

	/* two devices of one PE, another PE, one without addresses */
	ck_assert_int_eq(pcierr_state_disable(s, KEY_B, PCIERR_REASON_DISCONNECT, "b", T0 + 2,
					      "0000:00:1c.0", "0000:01:00.1"), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_DISCONNECT, "a", T0 + 1,
					      "0000:00:1c.0", "0000:01:00.0"), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_C, PCIERR_REASON_RESET_FAILED, NULL, T0 + 3,
					      "0000:00:03.0", "0000:0A:00.0"), 0);
	ck_assert_int_eq(pcierr_state_disable(s, "key-d", PCIERR_REASON_PERM_FAILURE, NULL, T0,
					      NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_disable(s, "key-e", PCIERR_REASON_PERM_FAILURE, NULL, T0,
					      "0000:00:04.0", ""), 0);

	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_C, &d), 1);
	ck_assert_str_eq(d.pe, "0000:00:03.0");
	ck_assert_str_eq(d.device, "0000:0A:00.0");
	ck_assert_int_eq(pcierr_state_is_disabled(s, "key-d", &d), 1);
	ck_assert_str_eq(d.pe, "");
	ck_assert_str_eq(d.device, "");

	/* by the PE: both its devices, by time */
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:1c.0", &l, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(l[0].key, KEY_A);
	ck_assert_str_eq(l[0].message, "a");
	ck_assert_str_eq(l[0].pe, "0000:00:1c.0");
	ck_assert_str_eq(l[0].device, "0000:01:00.0");
	ck_assert_int_eq(l[0].reason, PCIERR_REASON_DISCONNECT);
	ck_assert_uint_eq(l[0].since_usec, T0 + 1);
	ck_assert_str_eq(l[1].key, KEY_B);
	free(TAKE_PTR(l));

	/* by a device */
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:01:00.1", &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].key, KEY_B);
	free(TAKE_PTR(l));
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:04.0", &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].key, "key-e");
	free(TAKE_PTR(l));

	/* case does not matter, either way */
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:0a:00.0", &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].key, KEY_C);
	free(TAKE_PTR(l));
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:1C.0", &l, &n), 0);
	ck_assert_uint_eq(n, 2);
	free(TAKE_PTR(l));

	/* no match: unrelated, a prefix, a longer one */
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:ff:00.0", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(l);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:01:00", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:01:00.10", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "%", &l, &n), 0);
	ck_assert_uint_eq(n, 0);

	/* marked again somewhere else: found there only */
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES, "moved",
					      T0 + 9, "0000:00:1d.0", "0000:05:00.0"), 0);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:01:00.0", &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:05:00.0", &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0].message, "moved");
	free(TAKE_PTR(l));

	/* enabled: gone */
	ck_assert_int_eq(pcierr_state_enable(s, KEY_B), 1);
	ck_assert_int_eq(pcierr_state_find_disabled(s, "0000:00:1c.0", &l, &n), 0);
	ck_assert_uint_eq(n, 0);

	/* list gives the addresses too */
	ck_assert_int_eq(pcierr_state_list_disabled(s, &l, &n), 0);
	ck_assert_uint_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i].key, KEY_A)) {
			ck_assert_str_eq(l[i].pe, "0000:00:1d.0");
			ck_assert_str_eq(l[i].device, "0000:05:00.0");
		}
}
END_TEST

START_TEST(test_freeze_record)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	struct pcierr_freeze_record got, r1 = rec(1, T0, T0), r2 = rec(4, T0, T0 + 99);

	memset(&got, 0xaa, sizeof(got));
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 0);
	ck_assert_uint_eq(got.count, 0);
	ck_assert_uint_eq(got.first_usec, 0);
	ck_assert_uint_eq(got.last_usec, 0);
	ck_assert(!got.disabled);

	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r1), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.count, 1);
	ck_assert_uint_eq(got.last_usec, T0);

	/* upsert: replaced, not added */
	r2.disabled = true;	/* not stored by save */
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r2), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert_uint_eq(got.count, 4);
	ck_assert_uint_eq(got.first_usec, T0);
	ck_assert_uint_eq(got.last_usec, T0 + 99);
	ck_assert(!got.disabled);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM freeze"), 1);

	/* the largest values survive */
	r1 = rec(INT32_MAX, 0, INT64_MAX);
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &r1), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
	ck_assert_uint_eq(got.count, INT32_MAX);
	ck_assert_uint_eq(got.last_usec, (pcierr_usec_t) INT64_MAX);

	/* disabled comes from the disabled table */
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES, NULL, T0, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	ck_assert(got.disabled);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_C, PCIERR_REASON_DISCONNECT, NULL, T0, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_C, &got), 0);
	ck_assert(got.disabled);

	/* ClearFreezeCount */
	ck_assert_int_eq(pcierr_state_clear_freeze(s, KEY_A), 1);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 0);
	ck_assert_uint_eq(got.count, 0);
	ck_assert(got.disabled);	/* clearing does not enable */
	ck_assert_int_eq(pcierr_state_clear_freeze(s, KEY_A), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
}
END_TEST

START_TEST(test_disabled)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	_cleanup_free_ struct pcierr_disabled *l = NULL;
	struct pcierr_disabled d;
	size_t n = 99;

	ck_assert_int_eq(pcierr_state_list_disabled(s, &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(l);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_A, NULL), 0);

	ck_assert_int_eq(pcierr_state_disable(s, KEY_B, PCIERR_REASON_DISCONNECT, "b", T0 + 2, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_PERM_FAILURE, "a", T0 + 1, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_C, PCIERR_REASON_RESET_FAILED, NULL, T0 + 2, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_A, NULL), 1);

	ck_assert_int_eq(pcierr_state_list_disabled(s, &l, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(l[0].key, KEY_A);	/* by time, then key */
	ck_assert_int_eq(l[0].reason, PCIERR_REASON_PERM_FAILURE);
	ck_assert_str_eq(l[0].message, "a");
	ck_assert_str_eq(l[1].key, KEY_C);
	ck_assert_str_eq(l[1].message, "");
	ck_assert_str_eq(l[2].key, KEY_B);
	free(TAKE_PTR(l));

	/* marked again: replaced */
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES, "again", T0 + 9, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_A, &d), 1);
	ck_assert_int_eq(d.reason, PCIERR_REASON_TOO_MANY_FREEZES);
	ck_assert_str_eq(d.message, "again");
	ck_assert_uint_eq(d.since_usec, T0 + 9);

	ck_assert_int_eq(pcierr_state_enable(s, KEY_A), 1);
	ck_assert_int_eq(pcierr_state_enable(s, KEY_A), 0);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_A, &d), 0);
	ck_assert_int_eq(pcierr_state_list_disabled(s, &l, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(l[0].key, KEY_C);
	ck_assert_str_eq(l[1].key, KEY_B);
}
END_TEST

/* history: pe, device, time offset (s) */
static const struct {
	const char *pe, *device;
	unsigned int t;
	enum pcierr_history_kind kind;
} hist[] = {
	{ "0000:00:02.0", "0000:01:00.0", 10, PCIERR_HISTORY_EVENT },	/* 1 */
	{ "0000:00:02.0", "0000:01:00.0", 11, PCIERR_HISTORY_STEP },	/* 2 */
	{ "0000:00:03.0", "0000:02:00.0", 11, PCIERR_HISTORY_EVENT },	/* 3 */
	{ "0000:00:02.0", "0000:01:00.1", 12, PCIERR_HISTORY_STEP },	/* 4 */
	{ "0000:00:02.0", NULL, 13, PCIERR_HISTORY_RECOVERY },		/* 5 */
	{ "0000:00:03.0", "0000:02:00.0", 20, PCIERR_HISTORY_DISABLE },	/* 6 */
	{ "0000:00:03.0", "0000:02:00.0", 5, PCIERR_HISTORY_ENABLE },	/* 7: clock went back */
};

/* filter -> ids expected (1-based order of hist[]), 0-terminated */
static const struct {
	struct pcierr_history_filter f;
	int ids[8];
} hq[] = {
	{ {}, { 7, 1, 2, 3, 4, 5, 6 } },
	{ { .since_usec = T0 + 11 * PCIERR_USEC_PER_SEC }, { 2, 3, 4, 5, 6 } },
	{ { .since_usec = T0 + 21 * PCIERR_USEC_PER_SEC }, { 0 } },
	{ { .pe = "0000:00:02.0" }, { 1, 2, 4, 5 } },
	{ { .pe = "0000:00:03.0" }, { 7, 3, 6 } },
	{ { .device = "0000:01:00.0" }, { 1, 2 } },
	{ { .pe = "0000:00:02.0", .device = "0000:01:00.1" }, { 4 } },
	{ { .pe = "0000:00:03.0", .device = "0000:01:00.1" }, { 0 } },
	{ { .limit = 3 }, { 4, 5, 6 } },	/* the newest 3, oldest first */
	{ { .limit = 1 }, { 6 } },
	{ { .limit = 100 }, { 7, 1, 2, 3, 4, 5, 6 } },
	{ { .pe = "0000:00:02.0", .limit = 2 }, { 4, 5 } },
	{ { .since_usec = T0 + 11 * PCIERR_USEC_PER_SEC, .limit = 2 }, { 5, 6 } },
	{ { .pe = "0000:ff:00.0" }, { 0 } },
};

static void fill_history(struct pcierr_state *s, int64_t ids[])
{
	for (size_t i = 0; i < ELEMENTSOF(hist); i++) {
		char msg[32];

		snprintf(msg, sizeof(msg), "entry %zu", i + 1);
		ck_assert_int_eq(pcierr_state_append_history(s, &(struct pcierr_history_entry) {
			.time_usec = T0 + hist[i].t * PCIERR_USEC_PER_SEC,
			.pe = hist[i].pe, .device = hist[i].device, .kind = hist[i].kind,
			.step = hist[i].kind == PCIERR_HISTORY_STEP ? "slot_reset" : NULL,
			.error = i == 5 ? -EIO : 0, .message = msg }, &ids[i]), 0);
		if (i > 0)
			ck_assert_int_gt(ids[i], ids[i - 1]);
	}
}

START_TEST(test_history_query)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	struct pcierr_history_entry *h = NULL;
	int64_t ids[ELEMENTSOF(hist)];
	size_t n = 0, want = 0;

	fill_history(s, ids);
	ck_assert_int_eq(pcierr_state_get_history(s, &hq[_i].f, &h, &n), 0);
	while (want < ELEMENTSOF(hq[_i].ids) && hq[_i].ids[want])
		want++;
	ck_assert_uint_eq(n, want);
	if (!n)
		ck_assert_ptr_null(h);
	for (size_t i = 0; i < n; i++) {
		int k = hq[_i].ids[i] - 1;
		char msg[32];

		snprintf(msg, sizeof(msg), "entry %d", k + 1);
		ck_assert_int_eq(h[i].id, ids[k]);
		ck_assert_str_eq(h[i].pe, hist[k].pe);
		if (hist[k].device)
			ck_assert_str_eq(h[i].device, hist[k].device);
		else
			ck_assert_ptr_null(h[i].device);
		ck_assert_int_eq(h[i].kind, hist[k].kind);
		ck_assert_uint_eq(h[i].time_usec, T0 + hist[k].t * PCIERR_USEC_PER_SEC);
		ck_assert_int_eq(h[i].error, k == 5 ? -EIO : 0);
		ck_assert_str_eq(h[i].message, msg);
	}
	pcierr_history_free(h, n);
}
END_TEST

/* Where a PE's history leaves its last recovery (a restart's question,
 * issue 11 point 7): the newest of recovery, disable, recover started */
static void mark(struct pcierr_state *s, const char *pe, enum pcierr_history_kind kind,
		 const char *step, const char *result, const char *message)
{
	static pcierr_usec_t t = T0;
	struct pcierr_history_entry e = {
		.time_usec = t++, .pe = pe, .kind = kind, .step = step, .result = result,
		.message = message,
	};

	ck_assert_int_eq(pcierr_state_append_history(s, &e, NULL), 0);
}

START_TEST(test_last_recovery_mark)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	enum pcierr_history_kind kind = __PCIERR_HISTORY_KIND_MAX;
	uint64_t op = 99;
	const char *pe = "0000:00:1c.0", *other = "0000:00:1c.1";

	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 0);
	mark(s, pe, PCIERR_HISTORY_EVENT, "frozen", "", "seq 1");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 0);
	mark(s, pe, PCIERR_HISTORY_STEP, "recover", "started", "operation 17");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_STEP);
	ck_assert_uint_eq(op, 17);
	/* steps of it, another PE's end: still open */
	mark(s, pe, PCIERR_HISTORY_STEP, "error_detected", "need_reset", "");
	mark(s, pe, PCIERR_HISTORY_STEP, "recover", "ok", "operation 5");
	mark(s, other, PCIERR_HISTORY_RECOVERY, "callbacks", "recovered", "");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_STEP);
	ck_assert_uint_eq(op, 17);
	mark(s, pe, PCIERR_HISTORY_RECOVERY, "callbacks", "recovered", "");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_RECOVERY);
	ck_assert_uint_eq(op, 0);
	mark(s, pe, PCIERR_HISTORY_DISABLE, "", "disabled", "froze 6 times");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_DISABLE);
	/* a mark without its number: no operation named */
	mark(s, pe, PCIERR_HISTORY_STEP, "recover", "started", "");
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, pe, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_STEP);
	ck_assert_uint_eq(op, 0);
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, other, &kind, &op), 1);
	ck_assert_int_eq(kind, PCIERR_HISTORY_RECOVERY);
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, "", &kind, &op), -EINVAL);
	ck_assert_int_eq(pcierr_state_last_recovery_mark(s, "0000:00:1c.0:way-too-long-for-an-address",
							 &kind, &op), -EINVAL);
	ck_assert_int_eq(pcierr_state_last_recovery_mark(NULL, pe, &kind, &op), -EINVAL);
}
END_TEST

/* GetHistory(address): a slot's or a device's history by one address */
static const struct {
	const char *pe, *device;
} hist_addr[] = {
	{ "0000:00:02.0", "0000:01:00.0" },	/* 1 */
	{ "0000:00:02.0", NULL },		/* 2 */
	{ "0000:00:03.0", "0000:00:02.0" },	/* 3: a device at a PE's address */
	{ "0000:00:03.0", "0000:0a:00.0" },	/* 4 */
	{ "0000:00:02.0", "0000:01:00.1" },	/* 5 */
	{ "0000:00:1C.0", "0000:0B:00.0" },	/* 6: stored upper case */
};

static const struct {
	struct pcierr_history_filter f;
	int ids[8];
} hqa[] = {
	{ { .address = "0000:00:02.0" }, { 1, 2, 3, 5 } },	/* as pe and as device */
	{ { .address = "0000:01:00.0" }, { 1 } },
	{ { .address = "0000:00:03.0" }, { 3, 4 } },
	{ { .address = "0000:0A:00.0" }, { 4 } },		/* case-insensitive */
	{ { .address = "0000:00:1c.0" }, { 6 } },
	{ { .address = "0000:0b:00.0" }, { 6 } },
	{ { .address = "0000:ff:00.0" }, { 0 } },
	{ { .address = "0000:00:02" }, { 0 } },			/* no prefix match */
	{ { .address = "0000:00:02.0", .pe = "0000:00:03.0" }, { 3 } },	/* AND */
	{ { .address = "0000:00:02.0", .device = "0000:01:00.1" }, { 5 } },
	{ { .address = "0000:00:02.0", .limit = 2 }, { 3, 5 } },
	{ { .address = "0000:00:02.0", .since_usec = T0 + 3 }, { 3, 5 } },
	{ { .address = "0000:00:03.0", .pe = "0000:00:02.0" }, { 0 } },
};

START_TEST(test_history_address)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	struct pcierr_history_entry *h = NULL;
	int64_t ids[ELEMENTSOF(hist_addr)];
	size_t n = 0, want = 0;

	for (size_t i = 0; i < ELEMENTSOF(hist_addr); i++)
		ck_assert_int_eq(pcierr_state_append_history(s, &(struct pcierr_history_entry) {
			.time_usec = T0 + i + 1, .pe = hist_addr[i].pe,
			.device = hist_addr[i].device, .kind = PCIERR_HISTORY_EVENT },
			&ids[i]), 0);
	ck_assert_int_eq(pcierr_state_get_history(s, &hqa[_i].f, &h, &n), 0);
	while (want < ELEMENTSOF(hqa[_i].ids) && hqa[_i].ids[want])
		want++;
	ck_assert_uint_eq(n, want);
	if (!n)
		ck_assert_ptr_null(h);
	for (size_t i = 0; i < n; i++) {
		int k = hqa[_i].ids[i] - 1;

		ck_assert_int_eq(h[i].id, ids[k]);
		ck_assert_str_eq(h[i].pe, hist_addr[k].pe);
	}
	pcierr_history_free(h, n);
}
END_TEST

static int cb_count(const struct pcierr_history_entry *e, void *userdata)
{
	int *c = userdata;

	(*c)++;
	return *c == 2 ? 1 : 0;
}

static int cb_fail(const struct pcierr_history_entry *e, void *userdata)
{
	return -ECANCELED;
}

START_TEST(test_history_callback)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	int64_t ids[ELEMENTSOF(hist)];
	int c = 0;

	fill_history(s, ids);
	ck_assert_int_eq(pcierr_state_query_history(s, &(struct pcierr_history_filter) {},
						    cb_count, &c), 2);
	ck_assert_int_eq(c, 2);
	ck_assert_int_eq(pcierr_state_query_history(s, &(struct pcierr_history_filter) {},
						    cb_fail, NULL), -ECANCELED);
	for (int k = 0; k < __PCIERR_HISTORY_KIND_MAX; k++)
		ck_assert_int_eq(pcierr_history_kind_from_string(pcierr_history_kind_to_string(k)), k);
	ck_assert_ptr_null(pcierr_history_kind_to_string(__PCIERR_HISTORY_KIND_MAX));
	ck_assert_int_eq(pcierr_history_kind_from_string("bogus"), -EINVAL);
}
END_TEST

/* L14: the statements are compiled once per connection, not per call */
START_TEST(test_statement_cache)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	struct pcierr_freeze_record got;
	size_t n;

	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &(struct pcierr_freeze_record) {
		.count = 1, .first_usec = T0, .last_usec = T0 }), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);
	n = pcierr_state_cached_statements(s);
	for (unsigned int i = 2; i < 200; i++) {
		struct pcierr_freeze_record r = rec(i, T0, T0 + i);

		ck_assert_int_eq(pcierr_state_save_freeze(s, i % 2 ? KEY_A : KEY_B, &r), 0);
		ck_assert_int_eq(pcierr_state_load_freeze(s, i % 2 ? KEY_A : KEY_B, &got), 1);
		ck_assert_uint_eq(got.count, i);
	}
	ck_assert_uint_eq(pcierr_state_cached_statements(s), n);
	/* a failed call leaves its statement reusable, bound to nothing */
	ck_assert_int_eq(pcierr_state_save_freeze(s, "", &got), -EINVAL);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_B, &got), 1);
	ck_assert_uint_eq(got.count, 198);
	ck_assert_uint_eq(pcierr_state_cached_statements(s), n);
}
END_TEST

/* a history callback that queries the history again while the outer
 * statement is still stepping gets a statement of its own */
struct nested {
	struct pcierr_state *s;
	int outer, inner;
};

static int cb_inner(const struct pcierr_history_entry *e, void *userdata)
{
	(void) e;
	((struct nested *) userdata)->inner++;
	return 0;
}

static int cb_outer(const struct pcierr_history_entry *e, void *userdata)
{
	struct nested *n = userdata;

	(void) e;
	n->outer++;
	return pcierr_state_query_history(n->s, &(struct pcierr_history_filter) {},
					  cb_inner, n) < 0 ? -EIO : 0;
}

START_TEST(test_statement_nested)
{
	_cleanup_state_ struct pcierr_state *s = open_db();
	int64_t ids[ELEMENTSOF(hist)];
	struct nested n = { .s = s };
	int total;

	fill_history(s, ids);
	total = pcierr_state_query_history(s, &(struct pcierr_history_filter) {}, cb_inner, &n);
	ck_assert_int_gt(total, 1);
	n.inner = 0;
	ck_assert_int_eq(pcierr_state_query_history(s, &(struct pcierr_history_filter) {},
						    cb_outer, &n), total);
	ck_assert_int_eq(n.outer, total);
	ck_assert_int_eq(n.inner, total * total);
	/* and again: both statements are back in the cache, none added */
	{
		size_t c = pcierr_state_cached_statements(s);

		n.outer = n.inner = 0;
		ck_assert_int_eq(pcierr_state_query_history(s, &(struct pcierr_history_filter) {},
							    cb_outer, &n), total);
		ck_assert_int_eq(n.inner, total * total);
		ck_assert_uint_eq(pcierr_state_cached_statements(s), c);
	}
}
END_TEST

START_TEST(test_transaction)
{
	struct pcierr_state *s = open_db();
	struct pcierr_freeze_record r1 = rec(2, T0, T0 + 1), got;

	ck_assert_int_eq(pcierr_state_commit(s), -EINVAL);
	ck_assert_int_eq(pcierr_state_rollback(s), 0);

	/* rolled back: nothing, also after a restart */
	ck_assert_int_eq(pcierr_state_begin(s), 0);
	ck_assert(pcierr_state_in_transaction(s));
	ck_assert_int_eq(pcierr_state_begin(s), -EBUSY);
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r1), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES, NULL, T0, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_append_history(s, &(struct pcierr_history_entry) {
		.time_usec = T0, .pe = "0000:00:02.0", .kind = PCIERR_HISTORY_DISABLE }, NULL), 0);
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 1);	/* seen inside */
	ck_assert(got.disabled);
	ck_assert_int_eq(pcierr_state_rollback(s), 0);
	ck_assert(!pcierr_state_in_transaction(s));
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 0);
	s = pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 0);
	s = open_db();
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &got), 0);
	ck_assert(!got.disabled);

	/* committed: all of it */
	ck_assert_int_eq(pcierr_state_begin(s), 0);
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r1), 0);
	ck_assert_int_eq(pcierr_state_disable(s, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES, NULL, T0, NULL, NULL), 0);
	ck_assert_int_eq(pcierr_state_commit(s), 0);
	ck_assert(!pcierr_state_in_transaction(s));
	s = pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 10100);

	/* closed with a transaction open: rolled back */
	s = open_db();
	ck_assert_int_eq(pcierr_state_begin(s), 0);
	ck_assert_int_eq(pcierr_state_clear_freeze(s, KEY_A), 1);
	s = pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 10100);
}
END_TEST

/* a statement that SQLite refuses: rolled back, the rest of the caller's
 * transaction is kept, and the message is there */
START_TEST(test_failed_statement)
{
	struct pcierr_state *s = open_db();
	struct pcierr_freeze_record r1 = rec(1, T0, T0);
	struct pcierr_history_entry bad = {
		.time_usec = T0, .pe = "0000:de:ad.0", .kind = PCIERR_HISTORY_EVENT,
	};

	s = pcierr_state_close(s);
	raw_exec("CREATE TRIGGER boom BEFORE INSERT ON history WHEN NEW.pe = '0000:de:ad.0' "
		 "BEGIN SELECT RAISE(ABORT, 'boom'); END");
	s = open_db();

	ck_assert_int_eq(pcierr_state_append_history(s, &bad, NULL), -EIO);
	ck_assert_ptr_nonnull(strstr(pcierr_state_errmsg(s), "boom"));
	ck_assert(!pcierr_state_in_transaction(s));

	ck_assert_int_eq(pcierr_state_begin(s), 0);
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_A, &r1), 0);
	ck_assert_int_eq(pcierr_state_append_history(s, &bad, NULL), -EIO);
	ck_assert(pcierr_state_in_transaction(s));
	bad.pe = "0000:00:02.0";
	ck_assert_int_eq(pcierr_state_append_history(s, &bad, NULL), 0);
	ck_assert_int_eq(pcierr_state_commit(s), 0);
	s = pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 10001);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM history WHERE pe = '0000:de:ad.0'"), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The identity key */

static const struct {
	uint16_t v, d, sv, sd;
	bool has_dsn;
	uint64_t dsn;
	const char *addr;
	const char *key;		/* NULL: -EINVAL */
} ids[] = {
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, 0x0011223344556677ULL, "0000:01:00.0",
	  "8086:10d3:8086:a01f:dsn:0011223344556677" },
	/* the same card in another slot: the same identity */
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, 0x0011223344556677ULL, "0000:05:00.0",
	  "8086:10d3:8086:a01f:dsn:0011223344556677" },
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, 0x0011223344556677ULL, NULL,
	  "8086:10d3:8086:a01f:dsn:0011223344556677" },
	/* another card of the model: another identity */
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, 0x0011223344556678ULL, "0000:01:00.0",
	  "8086:10d3:8086:a01f:dsn:0011223344556678" },
	/* without a DSN: the location */
	{ 0x1af4, 0x1000, 0x1af4, 0x0001, false, 0, "0000:01:00.0",
	  "1af4:1000:1af4:0001:addr:0000:01:00.0" },
	{ 0x1af4, 0x1000, 0x1af4, 0x0001, false, 0, "0000:05:00.0",
	  "1af4:1000:1af4:0001:addr:0000:05:00.0" },
	{ 0x1af4, 0x1000, 0x1af4, 0x0001, false, 0x1234, "0000:05:00.0",
	  "1af4:1000:1af4:0001:addr:0000:05:00.0" },	/* dsn ignored */
	{ 0xABCD, 0x1000, 0, 0, false, 0, "10000:E1:00.1",
	  "abcd:1000:0000:0000:addr:10000:e1:00.1" },
	{ 0xffff, 0xffff, 0xffff, 0xffff, false, 0, "ffffffff:ff:1f.7",
	  "ffff:ffff:ffff:ffff:addr:ffffffff:ff:1f.7" },
	/* broken firmware's DSNs: not serial numbers */
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, 0, "0000:01:00.0",
	  "8086:10d3:8086:a01f:addr:0000:01:00.0" },
	{ 0x8086, 0x10d3, 0x8086, 0xa01f, true, UINT64_MAX, "0000:01:00.0",
	  "8086:10d3:8086:a01f:addr:0000:01:00.0" },
	/* bad */
	{ 0x1af4, 0x1000, 0, 0, false, 0, NULL, NULL },
	{ 0x1af4, 0x1000, 0, 0, false, 0, "", NULL },
	{ 0x1af4, 0x1000, 0, 0, false, 0, "0000:01:00.0 ", NULL },
	{ 0x1af4, 0x1000, 0, 0, false, 0, "0000/01:00.0", NULL },
	{ 0x1af4, 0x1000, 0, 0, false, 0, "0000:01:00.0:0000:01:00", NULL },	/* too long */
	{ 0x8086, 0x10d3, 0, 0, true, 0, NULL, NULL },
};

START_TEST(test_identity_key)
{
	char buf[PCIERR_IDENTITY_KEY_MAX];
	int r;

	memset(buf, 'x', sizeof(buf));
	r = pcierr_identity_key(ids[_i].v, ids[_i].d, ids[_i].sv, ids[_i].sd,
				ids[_i].has_dsn, ids[_i].dsn, ids[_i].addr, buf, sizeof(buf));
	if (!ids[_i].key) {
		ck_assert_int_eq(r, -EINVAL);
		return;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(buf, ids[_i].key);
	ck_assert_uint_lt(strlen(buf), PCIERR_IDENTITY_KEY_MAX);

	/* exactly big enough, and one short */
	{
		size_t l = strlen(ids[_i].key);
		char small[PCIERR_IDENTITY_KEY_MAX];

		ck_assert_int_eq(pcierr_identity_key(ids[_i].v, ids[_i].d, ids[_i].sv, ids[_i].sd,
						     ids[_i].has_dsn, ids[_i].dsn, ids[_i].addr,
						     small, l + 1), 0);
		ck_assert_str_eq(small, ids[_i].key);
		ck_assert_int_eq(pcierr_identity_key(ids[_i].v, ids[_i].d, ids[_i].sv, ids[_i].sd,
						     ids[_i].has_dsn, ids[_i].dsn, ids[_i].addr,
						     small, l), -ENOBUFS);
	}
}
END_TEST

START_TEST(test_identity_key_null)
{
	char buf[PCIERR_IDENTITY_KEY_MAX];

	ck_assert_int_eq(pcierr_identity_key(1, 2, 3, 4, true, 5, NULL, NULL, 10), -EINVAL);
	ck_assert_int_eq(pcierr_identity_key(1, 2, 3, 4, true, 5, NULL, buf, 0), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad input: -EINVAL, and nothing written */

static char long_key[PCIERR_IDENTITY_KEY_MAX + 1];
static char long_msg[PCIERR_STATE_MESSAGE_MAX + 1];
static char long_name[PCIERR_STATE_NAME_MAX + 1];
static char long_results[PCIERR_STATE_RESULTS_MAX + 1];

static void fill_longs(void)
{
	memset(long_key, 'k', sizeof(long_key) - 1);
	memset(long_msg, 'm', sizeof(long_msg) - 1);
	memset(long_name, 'n', sizeof(long_name) - 1);
	memset(long_results, 'r', sizeof(long_results) - 1);
}

/* append a good entry but for one field */
#define HE(field, value) ({						\
	struct pcierr_history_entry _e = {				\
		.time_usec = T0, .pe = "0000:00:02.0",			\
		.kind = PCIERR_HISTORY_EVENT,				\
	};								\
	_e.field = (value);						\
	pcierr_state_append_history(s, &_e, NULL);			\
})
#define HF(...)	(&(struct pcierr_history_filter) { __VA_ARGS__ })

static int bad_call(struct pcierr_state *s, int i)
{
	struct pcierr_freeze_record r = rec(1, T0, T0), got;
	struct pcierr_disabled *l = NULL;
	struct pcierr_history_entry *h = NULL;
	size_t n;
	int c = 0;

	switch (i) {
	case 0: return pcierr_state_save_freeze(NULL, KEY_A, &r);
	case 1: return pcierr_state_save_freeze(s, NULL, &r);
	case 2: return pcierr_state_save_freeze(s, "", &r);
	case 3: return pcierr_state_save_freeze(s, long_key, &r);
	case 4: return pcierr_state_save_freeze(s, KEY_A, NULL);
	case 5: r.count = (unsigned int) -1; return pcierr_state_save_freeze(s, KEY_A, &r);
	case 6: r.first_usec = (pcierr_usec_t) -1; return pcierr_state_save_freeze(s, KEY_A, &r);
	case 7: r.last_usec = (pcierr_usec_t) INT64_MAX + 1; return pcierr_state_save_freeze(s, KEY_A, &r);
	case 8: return pcierr_state_load_freeze(s, KEY_A, NULL);
	case 9: return pcierr_state_load_freeze(s, long_key, &got);
	case 10: return pcierr_state_clear_freeze(s, NULL);
	case 11: return pcierr_state_clear_freeze(s, long_key);
	case 12: return pcierr_state_disable(s, NULL, PCIERR_REASON_DISCONNECT, NULL, T0, NULL, NULL);
	case 13: return pcierr_state_disable(s, long_key, PCIERR_REASON_DISCONNECT, NULL, T0, NULL, NULL);
	case 14: return pcierr_state_disable(s, KEY_A, __PCIERR_REASON_MAX, NULL, T0, NULL, NULL);
	case 15: return pcierr_state_disable(s, KEY_A, (enum pcierr_policy_reason) -1, NULL, T0, NULL, NULL);
	case 16: return pcierr_state_disable(s, KEY_A, PCIERR_REASON_DISCONNECT, long_msg, T0, NULL, NULL);
	case 17: return pcierr_state_disable(s, KEY_A, PCIERR_REASON_DISCONNECT, NULL, (pcierr_usec_t) -5, NULL, NULL);
	case 18: return pcierr_state_enable(s, "");
	case 19: return pcierr_state_is_disabled(s, NULL, NULL);
	case 20: return pcierr_state_list_disabled(s, NULL, &n);
	case 21: return pcierr_state_list_disabled(s, &l, NULL);
	case 22: return pcierr_state_append_history(s, NULL, NULL);
	case 23: return HE(pe, NULL);
	case 24: return HE(pe, "");
	case 25: return HE(pe, "0000:00:02.0:0000:00:02.0");
	case 26: return HE(device, "0000:00:02.0:0000:00:02.0");
	case 27: return HE(kind, __PCIERR_HISTORY_KIND_MAX);
	case 28: return HE(step, long_name);
	case 29: return HE(result, long_name);
	case 30: return HE(results, long_results);
	case 31: return HE(message, long_msg);
	case 32: return HE(error, EIO);
	case 33: return HE(duration_usec, (pcierr_usec_t) -1);
	case 34: return HE(time_usec, (pcierr_usec_t) -1);
	case 35: return pcierr_state_query_history(s, NULL, cb_count, &c);
	case 36: return pcierr_state_query_history(s, HF(), NULL, NULL);
	case 37: return pcierr_state_query_history(s, HF(.pe = ""), cb_count, &c);
	case 38: return pcierr_state_query_history(s, HF(.since_usec = (pcierr_usec_t) -1), cb_count, &c);
	case 39: return pcierr_state_get_history(s, HF(), NULL, &n);
	case 40: return pcierr_state_get_history(s, HF(), &h, NULL);
	case 41: return pcierr_state_get_history(NULL, HF(), &h, &n);
	case 42: return pcierr_state_begin(NULL);
	case 43: return pcierr_state_open(NULL, (struct pcierr_state **) &l);
	case 44: return pcierr_state_open(dbpath, NULL);
	case 45: return pcierr_state_schema_version(NULL);
	case 46: return pcierr_state_disable(s, KEY_A, PCIERR_REASON_DISCONNECT, NULL, T0,
					     "0000:00:02.0:0000:00:02.0", NULL);
	case 47: return pcierr_state_disable(s, KEY_A, PCIERR_REASON_DISCONNECT, NULL, T0,
					     NULL, "0000:00:02.0:0000:00:02.0");
	case 48: return pcierr_state_find_disabled(NULL, "0000:00:02.0", &l, &n);
	case 49: return pcierr_state_find_disabled(s, NULL, &l, &n);
	case 50: return pcierr_state_find_disabled(s, "", &l, &n);
	case 51: return pcierr_state_find_disabled(s, "0000:00:02.0:0000:00:02.0", &l, &n);
	case 52: return pcierr_state_find_disabled(s, "0000:00:02.0", NULL, &n);
	case 53: return pcierr_state_find_disabled(s, "0000:00:02.0", &l, NULL);
	case 54: return pcierr_state_query_history(s, HF(.address = ""), cb_count, &c);
	case 55: return pcierr_state_query_history(s, HF(.address = "0000:00:02.0:0000:00:02.0"),
						   cb_count, &c);
	case 56: return pcierr_state_get_history(s, HF(.address = ""), &h, &n);
	}
	return 1000;
}
#define N_BAD 57

START_TEST(test_bad_input)
{
	struct pcierr_state *s = open_db();
	struct pcierr_freeze_record r = rec(7, T0, T0 + 3);

	fill_longs();
	ck_assert_int_eq(pcierr_state_save_freeze(s, KEY_B, &r), 0);
	ck_assert_int_eq(HE(message, "x"), 0);
	/* both in autocommit mode and inside a transaction */
	ck_assert_int_eq(bad_call(s, _i), -EINVAL);
	ck_assert_int_eq(pcierr_state_begin(s), 0);
	ck_assert_int_eq(bad_call(s, _i), -EINVAL);
	ck_assert_int_eq(pcierr_state_commit(s), 0);
	s = pcierr_state_close(s);
	ck_assert_int_eq(raw_int(ROWS_SQL), 10001);
	ck_assert_int_eq(raw_int("SELECT count FROM freeze"), 7);
}
END_TEST

/* ------------------------------------------------------------------ */
/*
 * kill -9 after committing: nothing committed is lost. The parent kills
 * the child (a self-inflicted SIGKILL or an _exit() would leave the file
 * just the same, no SQLite close running either way, but under valgrind
 * the child would then report its unfreed connection as a leak).
 * Variant 0: killed while a transaction is open: it is lost.
 * Variant 1: killed in the middle of a stream of writes: each record
 * found is whole.
 */

#define CRASH_N 50

START_TEST(test_crash)
{
	int p[2], status;
	unsigned int done = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pcierr_state *s = NULL;
		unsigned int i;

		close(p[0]);
		if (pcierr_state_open(dbpath, &s) < 0)
			_exit(2);
		for (i = 0; i < CRASH_N; i++) {
			char key[PCIERR_IDENTITY_KEY_MAX];
			struct pcierr_freeze_record r = rec(i + 1, T0, T0 + i);

			snprintf(key, sizeof(key), "%s%u", KEY_B, i);
			if (pcierr_state_save_freeze(s, key, &r) < 0)
				break;
		}
		if (_i == 0 && pcierr_state_begin(s) == 0)
			(void) pcierr_state_save_freeze(s, "uncommitted", &(struct pcierr_freeze_record) {});
		if (write(p[1], &i, sizeof(i)) != sizeof(i))
			_exit(3);
		for (unsigned int k = 1; _i == 1; k++) {
			struct pcierr_freeze_record r = rec(k, T0, T0 + k);

			(void) pcierr_state_save_freeze(s, "late", &r);
			(void) pcierr_state_append_history(s, &(struct pcierr_history_entry) {
				.time_usec = T0 + k, .pe = "0000:00:02.0",
				.kind = PCIERR_HISTORY_STEP, .duration_usec = k }, NULL);
		}
		for (;;)
			pause();
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &done, sizeof(done)), (ssize_t) sizeof(done));
	close(p[0]);
	ck_assert_uint_eq(done, CRASH_N);
	if (_i == 1)
		usleep(50 * 1000);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	{
		_cleanup_state_ struct pcierr_state *s = open_db();
		struct pcierr_freeze_record got;

		for (unsigned int i = 0; i < CRASH_N; i++) {
			char key[PCIERR_IDENTITY_KEY_MAX];

			snprintf(key, sizeof(key), "%s%u", KEY_B, i);
			ck_assert_int_eq(pcierr_state_load_freeze(s, key, &got), 1);
			ck_assert_uint_eq(got.count, i + 1);
			ck_assert_uint_eq(got.last_usec, T0 + i);
		}
		ck_assert_int_eq(pcierr_state_load_freeze(s, "uncommitted", &got), 0);
		if (pcierr_state_load_freeze(s, "late", &got) == 1)
			ck_assert_uint_eq(got.last_usec, T0 + got.count);
	}
	ck_assert_int_eq(raw_int("SELECT count(*) FROM freeze WHERE identity != 'late'"), CRASH_N);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM history WHERE duration_usec != time_usec - "
				 "(SELECT min(time_usec) FROM history) + 1"), 0);
	ck_assert_int_eq(raw_int("SELECT count(*) FROM pragma_integrity_check "
				 "WHERE integrity_check = 'ok'"), 1);
}
END_TEST

/* M6 retention, L14 journal mode, M7 integrity check */
START_TEST(test_prune_and_check)
{
	_cleanup_state_ struct pcierr_state *m = NULL;
	struct pcierr_history_entry e = { .pe = "0000:00:1c.0", .kind = PCIERR_HISTORY_EVENT };
	struct pcierr_history_entry *h = NULL;
	size_t n = 0;

	ck_assert_int_eq(pcierr_state_open(":memory:", &m), 0);
	ck_assert(!pcierr_state_is_wal(m));	/* ":memory:" has no WAL */
	ck_assert_int_eq(pcierr_state_check(m), 0);
	for (int i = 1; i <= 10; i++) {
		e.time_usec = (pcierr_usec_t)i * 1000;
		ck_assert_int_eq(pcierr_state_append_history(m, &e, NULL), 0);
	}
	/* the newest 6 */
	ck_assert_int_eq(pcierr_state_prune_history(m, 6, 0), 4);
	/* and none older than t = 6000 */
	ck_assert_int_eq(pcierr_state_prune_history(m, 0, 6000), 1);
	ck_assert_int_eq(pcierr_state_prune_history(m, 0, 0), 0);
	ck_assert_int_eq(pcierr_state_get_history(m, &(struct pcierr_history_filter) { 0 }, &h, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(h[0].time_usec, 6000);
	ck_assert_uint_eq(h[4].time_usec, 10000);
	pcierr_history_free(h, n);
	ck_assert_int_eq(pcierr_state_set_synchronous(m, false), 0);
	ck_assert_int_eq(pcierr_state_begin(m), 0);
	ck_assert_int_eq(pcierr_state_set_synchronous(m, true), -EINVAL);
	ck_assert_int_eq(pcierr_state_rollback(m), 0);
}
END_TEST

/* why an open failed, not the errno of SQLite's last probe (issue 11) */
START_TEST(test_open_cause)
{
	struct pcierr_state *s = NULL;
	char other[128];

	/* a symlink (to a file that does not exist yet) */
	snprintf(other, sizeof(other), "%s/elsewhere.db", tmpdir);
	ck_assert_int_eq(symlink(other, dbpath), 0);
	ck_assert_int_eq(pcierr_state_open(dbpath, &s), -ELOOP);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(pcierr_state_errmsg(NULL), "symbolic link"));
	ck_assert_int_eq(access(other, F_OK), -1);
	ck_assert_int_eq(unlink(dbpath), 0);

	/* a directory */
	ck_assert_int_eq(mkdir(dbpath, 0755), 0);
	ck_assert_int_eq(pcierr_state_open(dbpath, &s), -EISDIR);
	ck_assert_ptr_nonnull(strstr(pcierr_state_errmsg(NULL), "directory"));
	ck_assert_int_eq(rmdir(dbpath), 0);

	/* a directory that does not exist */
	snprintf(other, sizeof(other), "%s/no/state.db", tmpdir);
	ck_assert_int_eq(pcierr_state_open(other, &s), -ENOENT);
}
END_TEST

/*
 * The writer against a locked disk (review U7): a transaction that cannot
 * begin loses nothing. The freeze record and the disabled mark queued
 * while another program holds the database are written once it lets go;
 * the history rows beyond the queue's bound are dropped and counted; the
 * queue does not grow with the events.
 */
static void wait_retries(struct state_writer *w, uint64_t n)
{
	struct state_writer_stats st;

	for (int i = 0; i < 300; i++) {
		state_writer_get_stats(w, &st);
		if (st.retries >= n)
			return;
		usleep(100 * 1000);
	}
	ck_abort_msg("the writer did not retry within 30 s");
}

START_TEST(test_writer_locked_disk)
{
	struct pcierr_freeze_record rec = { .count = 3, .first_usec = T0, .last_usec = T0,
					    .error_gen = 9 };
	struct pcierr_history_entry h = { .time_usec = T0, .pe = "0000:00:10.0",
					  .kind = PCIERR_HISTORY_EVENT, .message = "frozen" };
	struct state_writer *w = NULL;
	struct state_writer_stats st;
	struct pcierr_state *s = NULL;
	struct pcierr_disabled dis;
	sqlite3 *locker = NULL;

	ck_assert_int_eq(pcierr_state_open(dbpath, &s), 0);
	ck_assert_int_eq(state_writer_new(dbpath, 0, 0, &w), 0);
	ck_assert_int_eq(sqlite3_open(dbpath, &locker), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(locker, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);

	ck_assert_int_eq(state_writer_save_freeze(w, KEY_A, &rec), 0);
	ck_assert_int_eq(state_writer_disable(w, KEY_A, PCIERR_REASON_TOO_MANY_FREEZES,
					      "reseat", T0, "0000:00:10.0", "0000:01:00.0"), 0);
	/* the first transaction fails on the lock (busy timeout) */
	wait_retries(w, 1);
	/* an event storm meanwhile: one record per identity, rows bounded */
	for (unsigned int i = 0; i < 6000; i++) {
		rec.count = 4 + i % 2;
		ck_assert_int_eq(state_writer_save_freeze(w, KEY_A, &rec), 0);
		ck_assert_int_eq(state_writer_history(w, &h), 0);
	}
	state_writer_get_stats(w, &st);
	ck_assert_uint_ge(st.history_dropped, 6000 - 4096);
	ck_assert_uint_le(st.queued, 2 + 4096 + 2);
	ck_assert_uint_eq(st.failed, 0);

	ck_assert_int_eq(sqlite3_exec(locker, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(locker);
	ck_assert_int_eq(state_writer_flush(w, 40 * 1000000ULL), 0);
	/* on disk now, not only in the queue */
	ck_assert_int_eq(pcierr_state_load_freeze(s, KEY_A, &rec), 1);
	ck_assert_uint_eq(rec.count, 5);
	ck_assert_uint_eq(rec.error_gen, 9);
	ck_assert_int_eq(pcierr_state_is_disabled(s, KEY_A, &dis), 1);
	ck_assert_str_eq(dis.message, "reseat");
	ck_assert_int_ge(raw_int("SELECT COUNT(*) FROM history"), 4096);
	state_writer_get_stats(w, &st);
	ck_assert_uint_eq(st.failed, 0);
	state_writer_free(w);
	pcierr_state_close(s);
}
END_TEST

Suite *suite_state(void)
{
	Suite *s = suite_create("state");
	TCase *tc;

	tc = tcase_create("open");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_create);
	tcase_add_test(tc, test_reopen_keeps_data);
	tcase_add_test(tc, test_newer_refused);
	tcase_add_test(tc, test_not_a_database);
	tcase_add_test(tc, test_open_cause);
	tcase_add_test(tc, test_migrate_v1);
	tcase_add_test(tc, test_migrate_v1_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("records");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_freeze_record);
	tcase_add_test(tc, test_error_gen);
	tcase_add_test(tc, test_disabled);
	tcase_add_test(tc, test_find_disabled);
	tcase_add_loop_test(tc, test_history_query, 0, ELEMENTSOF(hq));
	tcase_add_loop_test(tc, test_history_address, 0, ELEMENTSOF(hqa));
	tcase_add_test(tc, test_history_callback);
	tcase_add_test(tc, test_last_recovery_mark);
	tcase_add_test(tc, test_statement_cache);
	tcase_add_test(tc, test_statement_nested);
	suite_add_tcase(s, tc);

	tc = tcase_create("consistency");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_transaction);
	tcase_add_test(tc, test_failed_statement);
	tcase_add_loop_test(tc, test_bad_input, 0, N_BAD);
	tcase_add_loop_test(tc, test_crash, 0, 2);
	tcase_add_test(tc, test_writer_locked_disk);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("identity");
	tcase_add_loop_test(tc, test_identity_key, 0, ELEMENTSOF(ids));
	tcase_add_test(tc, test_identity_key_null);
	tcase_add_test(tc, test_prune_and_check);
	suite_add_tcase(s, tc);

	return s;
}

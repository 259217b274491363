// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: pcierrd's state database loader (daemon/state.c).
 * The input is written as the database file (no -wal, no -shm) in a
 * private directory and opened with pcierr_state_open(), as pcierrd opens
 * /var/lib/pcierr/state.db at start; then everything pcierrd reads from
 * it at start and on D-Bus calls is read (freeze records, disabled marks,
 * the history), and one write of each kind is tried. Checked: open
 * fails with a negative errno and a message, or succeeds with the current
 * schema; whatever a read gives back is what the daemon can use (a
 * history entry has a PE and a known kind, strings are bounded and
 * terminated); nothing crashes or leaks, whatever the file holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* on tmpfs where there is one: synchronous=FULL fsyncs every write */
static char dir[64];
static char db[sizeof(dir) + 16], wal[sizeof(dir) + 16], shm[sizeof(dir) + 16];

static void cleanup(void)
{
	unlink(db);
	unlink(wal);
	unlink(shm);
	rmdir(dir);
}

static int setup(void)
{
	if (db[0])
		return 0;
	snprintf(dir, sizeof(dir), "/dev/shm/pcierr-fuzz-state.XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(dir, sizeof(dir), "/tmp/pcierr-fuzz-state.XXXXXX");
		if (!mkdtemp(dir))
			return -1;
	}
	snprintf(db, sizeof(db), "%s/state.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	snprintf(shm, sizeof(shm), "%s-shm", db);
	atexit(cleanup);
	return 0;
}

static const char *const keys[] = {
	"8086:10d3:8086:0000:addr:0000:01:00.0",
	"1b36:0005:1af4:1100:addr:0000:02:00.0",
	"8086:10d3:8086:0000:dsn:0123456789abcdef",
};

static void check_disabled(const struct pcierr_disabled *d)
{
	if (strnlen(d->key, sizeof(d->key)) >= sizeof(d->key) ||
	    strnlen(d->message, sizeof(d->message)) >= sizeof(d->message) ||
	    strnlen(d->pe, sizeof(d->pe)) >= sizeof(d->pe) ||
	    strnlen(d->device, sizeof(d->device)) >= sizeof(d->device))
		abort();
}

static int count_entry(const struct pcierr_history_entry *e, void *userdata)
{
	if (!e->pe || !pcierr_history_kind_to_string(e->kind))
		abort();
	return 0;
}

static void reads(struct pcierr_state *s)
{
	struct pcierr_history_filter all = {}, one = { .address = "0000:01:00.0", .limit = 3 };
	struct pcierr_history_entry *h = NULL;
	struct pcierr_disabled *dis = NULL, d;
	struct pcierr_freeze_record rec;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		(void)pcierr_state_load_freeze(s, keys[i], &rec);
		if (pcierr_state_is_disabled(s, keys[i], &d) > 0)
			check_disabled(&d);
	}
	if (pcierr_state_list_disabled(s, &dis, &n) == 0)
		for (size_t i = 0; i < n; i++)
			check_disabled(&dis[i]);
	free(dis);
	dis = NULL;
	n = 0;
	if (pcierr_state_find_disabled(s, "0000:01:00.0", &dis, &n) == 0)
		for (size_t i = 0; i < n; i++)
			check_disabled(&dis[i]);
	free(dis);
	n = 0;
	if (pcierr_state_get_history(s, &all, &h, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			(void)count_entry(&h[i], NULL);
		pcierr_history_free(h, n);
	}
	(void)pcierr_state_query_history(s, &one, count_entry, NULL);
}

static void writes(struct pcierr_state *s)
{
	struct pcierr_freeze_record rec = { .count = 2, .first_usec = 1, .last_usec = 2 };
	struct pcierr_history_entry e = {
		.time_usec = 3, .pe = "0000:00:10.0", .device = "0000:01:00.0",
		.kind = PCIERR_HISTORY_EVENT, .message = "fuzz",
	};

	(void)pcierr_state_save_freeze(s, keys[0], &rec);
	(void)pcierr_state_append_history(s, &e, NULL);
	if (pcierr_state_begin(s) == 0) {
		(void)pcierr_state_disable(s, keys[1], PCIERR_REASON_TOO_MANY_FREEZES,
					   "fuzz", 4, "0000:00:11.0", "0000:02:00.0");
		(void)pcierr_state_clear_freeze(s, keys[2]);
		if (pcierr_state_commit(s) < 0)
			(void)pcierr_state_rollback(s);
	}
	(void)pcierr_state_enable(s, keys[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcierr_state *s = NULL;
	int fd, r;

	if (setup() < 0)
		return 0;
	unlink(wal);
	unlink(shm);
	fd = open(db, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);

	r = pcierr_state_open(db, &s);
	if (r < 0) {
		if (s || r == -EINVAL)
			abort();
		/* a refusal says why */
		if (strnlen(pcierr_state_errmsg(NULL), 256) >= 256)
			abort();
		return 0;
	}
	if (pcierr_state_schema_version(s) != PCIERR_STATE_SCHEMA_VERSION)
		abort();
	reads(s);
	writes(s);
	reads(s);
	pcierr_state_close(s);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkseeds DIR: write the seed corpora that are built rather than typed:
 *   DIR/msg/    datagrams as pcierr_shim sends them (the unit tests'
 *               builders, tests/unit/ckutil.c): EVENT, OP_DONE of each
 *               operation, OVERFLOW, GET_PE parts, GET_STATS, an INJECT
 *               reply, acks and NLMSG_DONE with and without extack, the
 *               controller's DEL/NEWFAMILY, and a datagram of several;
 *   DIR/state/  databases as pcierrd leaves them (empty; with freeze
 *               records, a disabled identity and history), 512-byte pages
 *               so that they stay small.
 * Run by `make fuzz-seeds`; the output is committed under tests/fuzz/corpus/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <sqlite3.h>

#include "cksuite.h"
#include "state.h"

static const char *dir;

static void put(const char *sub, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "wbe");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void put_msg(const char *name, struct nl_msg *m)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	put("msg", name, nlh, nlh->nlmsg_len);
	nlmsg_free(m);
}

static struct nl_msg *ctrl_family(uint8_t cmd, uint16_t id)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, GENL_ID_CTRL, 0, 0, cmd, 2);
	nla_put_u16(m, CTRL_ATTR_FAMILY_ID, id);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, "pcierr");
	return m;
}

static struct nl_msg *u64_reply(int attr, uint64_t v)
{
	struct nl_msg *m = ck_genl_msg(PCIERR_CMD_INJECT, 5, 0);

	nla_put_u64(m, attr, v);
	return m;
}

static void msgs(void)
{
	static const uint32_t ops[] = {
		PCIERR_CMD_REPORT, PCIERR_CMD_ENABLE_IO, PCIERR_CMD_RESET, PCIERR_CMD_REMOVE,
		PCIERR_CMD_RESCAN, PCIERR_CMD_DISABLE, PCIERR_CMD_ENABLE,
	};
	char name[64], buf[16384];
	size_t off = 0;

	put_msg("event", ck_build_event(42));
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		snprintf(name, sizeof(name), "op-done-%u", ops[i]);
		put_msg(name, ck_build_op_done(7 + i, ops[i]));
	}
	put_msg("overflow", ck_build_overflow(3, 100));
	put_msg("pe-0", ck_build_pe("0000:00:02.0", 0, 1, NLM_F_MULTI));
	put_msg("pe-2", ck_build_pe("0000:00:02.0", 2, 1, NLM_F_MULTI));
	put_msg("pe-intr", ck_build_pe("0000:00:1c.0", 1, 1, NLM_F_MULTI | NLM_F_DUMP_INTR));
	put_msg("stats", ck_build_stats());
	put_msg("inject-reply", u64_reply(PCIERR_A_SEQ, 9));
	put_msg("op-reply", u64_reply(PCIERR_A_OP_ID, 10));
	put_msg("ack-ok", ck_build_error(1, 0, NULL, 1));
	put_msg("ack-einval-extack", ck_build_error(1, -EINVAL, "bad PCI address", 0));
	put_msg("ack-eperm-capped", ck_build_error(1, -EPERM, "not allowed", 1));
	put_msg("done", ck_build_done(1, 0, 0));
	put_msg("done-intr", ck_build_done(1, 0, NLM_F_DUMP_INTR));
	put_msg("ctrl-delfamily", ctrl_family(CTRL_CMD_DELFAMILY, CK_FAMILY));
	put_msg("ctrl-newfamily", ctrl_family(CTRL_CMD_NEWFAMILY, CK_FAMILY + 1));

	/* a dump of two parts and its end in one datagram */
	off = ck_append(buf, sizeof(buf), off, ck_build_pe("0000:00:02.0", 2, 1, NLM_F_MULTI));
	off = ck_append(buf, sizeof(buf), off, ck_build_pe("0000:00:1c.0", 1, 1, NLM_F_MULTI));
	off = ck_append(buf, sizeof(buf), off, ck_build_done(1, 0, 0));
	put("msg", "dump-datagram", buf, off);
	/* events and an overflow in one datagram */
	off = 0;
	off = ck_append(buf, sizeof(buf), off, ck_build_event(1));
	off = ck_append(buf, sizeof(buf), off, ck_build_overflow(2, 4));
	off = ck_append(buf, sizeof(buf), off, ck_build_op_done(1, PCIERR_CMD_DISABLE));
	put("msg", "event-datagram", buf, off);
}

static void copy_file(const char *from, const char *name)
{
	char buf[1 << 16];
	FILE *f = fopen(from, "rbe");
	size_t n;

	if (!f) {
		perror(from);
		exit(1);
	}
	n = fread(buf, 1, sizeof(buf), f);
	if (!feof(f)) {
		fprintf(stderr, "%s: larger than %zu bytes\n", from, sizeof(buf));
		exit(1);
	}
	fclose(f);
	put("state", name, buf, n);
}

/* a database as pcierr_state_open() makes it, then filled by fill(),
 * then checkpointed and vacuumed into 512-byte pages */
static void state_db(const char *name, void (*fill)(struct pcierr_state *s))
{
	char path[] = "/tmp/pcierr-mkseeds.XXXXXX", db[64], wal[80], shm[80];
	struct pcierr_state *s;
	sqlite3 *h;

	if (!mkdtemp(path)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(db, sizeof(db), "%s/state.db", path);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	snprintf(shm, sizeof(shm), "%s-shm", db);
	if (pcierr_state_open(db, &s) < 0) {
		fprintf(stderr, "pcierr_state_open: %s\n", pcierr_state_errmsg(NULL));
		exit(1);
	}
	if (fill)
		fill(s);
	pcierr_state_close(s);
	/* out of WAL mode: the whole database in the one file */
	if (sqlite3_open(db, &h) != SQLITE_OK ||
	    sqlite3_exec(h, "PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlite3: %s\n", sqlite3_errmsg(h));
		exit(1);
	}
	sqlite3_close(h);
	copy_file(db, name);
	unlink(db);
	unlink(wal);
	unlink(shm);
	rmdir(path);
}

static void fill(struct pcierr_state *s)
{
	struct pcierr_freeze_record rec = { .count = 3, .first_usec = 1000, .last_usec = 5000, .error_gen = 2 };
	struct pcierr_history_entry e = {
		.time_usec = 5000, .pe = "0000:00:10.0", .device = "0000:01:00.0",
		.kind = PCIERR_HISTORY_RECOVERY, .step = "resume", .result = "recovered",
		.results = "0000:01:00.0=recovered", .duration_usec = 1234, .message = "recovered",
	};

	if (pcierr_state_save_freeze(s, "8086:10d3:8086:0000:addr:0000:01:00.0", &rec) < 0 ||
	    pcierr_state_append_history(s, &e, NULL) < 0 ||
	    pcierr_state_disable(s, "1b36:0005:1af4:1100:addr:0000:02:00.0",
				 PCIERR_REASON_TOO_MANY_FREEZES, "6 freezes in 3600 s: reseat or replace",
				 6000, "0000:00:11.0", "0000:02:00.0") < 0) {
		fprintf(stderr, "filling the state failed\n");
		exit(1);
	}
	e.kind = PCIERR_HISTORY_DISABLE;
	e.device = "0000:02:00.0";
	e.pe = "0000:00:11.0";
	e.step = NULL;
	e.results = NULL;
	e.error = -EIO;
	if (pcierr_state_append_history(s, &e, NULL) < 0)
		exit(1);
}

/* the builders use Check's assertions, which want a running test */
START_TEST(write_seeds)
{
	msgs();
	state_db("empty.db", NULL);
	state_db("filled.db", fill);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *suite = suite_create("mkseeds");
	TCase *tc = tcase_create("seeds");
	SRunner *sr;
	int failed;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	dir = argv[1];
	tcase_add_test(tc, write_seeds);
	suite_add_tcase(suite, tc);
	sr = srunner_create(suite);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

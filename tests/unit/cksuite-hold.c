// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One owner of a frozen PE (issue 21 point 4, daemon/hold.c) against the
 * fake kernel side: which slots pcierrd holds (hold_wanted()), a Recover=no
 * freeze held and nothing done, the hold let go once the PE is out of its
 * freeze, and the shim's own recovery (OWNER_RECOVER) recorded in the
 * history and the slot's state, live and after a restart, once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <systemd/sd-event.h>

#include "fake-kernel.h"
#include "hold.h"
#include "manager.h"
#include "start.h"
#include "state-writer.h"

#define PE_A	"0000:00:1c.0"
#define DEV_A	"0000:01:00.0"

static struct manager *m;
static struct fake_kernel *k;

Suite *suite_hold(void);

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static bool run_until(bool (*cond)(void), uint64_t timeout_usec)
{
	uint64_t end = mono_usec() + timeout_usec;

	while (!cond()) {
		if (mono_usec() > end)
			return false;
		ck_assert_int_ge(sd_event_run(m->event, 50000), 0);
	}
	return true;
}

static struct slot *slot_a(void)
{
	struct slot *s = manager_find_slot(m, PE_A);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* a pcierrd with Recover= @recover, on the state at @path (NULL: none) */
static void start_on(const char *path, bool recover)
{
	ck_assert_int_eq(manager_new(&m), 0);
	m->kops = &fake_kernel_ops;
	m->no_udev = true;
	m->config.defaults.step_timeout_sec = 30;
	m->config.defaults.recover = recover;
	if (path) {
		ck_assert_int_eq(pcierr_state_open(path, &m->state), 0);
		ck_assert_int_eq(state_writer_new(path, 0, 0, &m->writer), 0);
	}
	ck_assert_int_eq(manager_prepare(m, false), 0);
	ck_assert_int_eq(pcierrd_start(m), 0);
}

static void stop(void)
{
	m = manager_free(m);
}

static void state_dir_remove(const char *dir)
{
	static const char *const files[] = { "state.db", "state.db-wal", "state.db-shm" };
	char path[128];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* the "owner-timeout" recovery entries of PE_A in the history at path */
static size_t owner_entries(const char *path, const char **result)
{
	struct pcierr_history_entry *h = NULL;
	struct pcierr_state *st = NULL;
	static char last[32];
	size_t n = 0, found = 0;

	ck_assert_int_eq(pcierr_state_open(path, &st), 0);
	ck_assert_int_eq(pcierr_state_get_history(st, &(struct pcierr_history_filter) { .pe = PE_A },
						  &h, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (h[i].kind == PCIERR_HISTORY_RECOVERY && h[i].step &&
		    strcmp(h[i].step, "owner-timeout") == 0) {
			found++;
			snprintf(last, sizeof(last), "%s", h[i].result ? h[i].result : "");
		}
	pcierr_history_free(h, n);
	pcierr_state_close(st);
	if (result)
		*result = last;
	return found;
}

static bool a_held(void)
{
	return k->held_id[0] != 0 && k->held_id[0] == fake_pe(k, PE_A)->id;
}

static bool a_recovered_by_owner(void)
{
	struct slot *s = manager_find_slot(m, PE_A);

	return s && s->state == PCIERR_PE_STATE_NORMAL &&
	       strcmp(s->status.last_result, "recovered") == 0;
}

/* Which slots are held: a frozen one the policy leaves alone, one being
 * recovered, one with a disabled device; never one out of its freeze */
START_TEST(hold_wanted_table)
{
	static const struct {
		enum pcierr_pe_state state;
		bool recover_off, busy, admin, disabled, want;
	} t[] = {
		{ PCIERR_PE_STATE_FROZEN,       true,  false, false, false, true },
		{ PCIERR_PE_STATE_MMIO_ENABLED, true,  false, false, false, true },
		{ PCIERR_PE_STATE_RESET,        false, true,  false, false, true },
		{ PCIERR_PE_STATE_FROZEN,       false, false, true,  false, true },
		{ PCIERR_PE_STATE_FROZEN,       false, false, false, true,  true },
		{ PCIERR_PE_STATE_FROZEN,       false, false, false, false, false },
		{ PCIERR_PE_STATE_NORMAL,       true,  true,  true,  true,  false },
		{ PCIERR_PE_STATE_REMOVED,      true,  false, false, false, false },
		{ PCIERR_PE_STATE_DISABLED,     false, false, false, true,  false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct device dev = { 0 };
		struct device *devs[] = { &dev };
		struct slot s = { .recovery = SLOT_RECOVERY_INIT };

		s.state = t[i].state;
		s.hold.recover_off = t[i].recover_off;
		if (t[i].busy)
			s.recovery.policy.phase = PCIERR_PHASE_WAIT;
		s.recovery.admin_reset = t[i].admin;
		dev.history.disabled = t[i].disabled;
		s.devices = devs;
		s.n_devices = 1;
		ck_assert_msg(hold_wanted(&s) == t[i].want, "row %zu", i);
	}
}
END_TEST

/* Recover=no: the freeze is held in the shim (its owner timeout leaves it
 * alone) and nothing else is sent; when the shim recovers it anyway (a
 * lapsed lease), that is recorded and the slot is no longer frozen */
START_TEST(recover_off_held_then_owner_recorded)
{
	char dir[] = "/tmp/pcierr-hold-XXXXXX", path[64], cmds[256];
	const char *result = NULL;
	uint64_t seq = 0;
	char msg[256];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	k = fake_kernel_new();
	k->hold = true;
	k->recover = true;
	fake_add_pe(k, PE_A, 0x0001, 1);
	start_on(path, false);
	ck_assert_int_eq(manager_inject(m, DEV_A, PCIERR_STATE_FROZEN, 0, &seq, msg, sizeof(msg)), 0);
	ck_assert(run_until(a_held, 5000000));
	ck_assert_uint_eq(k->held_lease_ms[0], HOLD_LEASE_MSEC);
	ck_assert(slot_a()->hold.held);
	fake_cmds_string(k, cmds, sizeof(cmds));
	ck_assert_str_eq(cmds, "");
	ck_assert_uint_eq(k->n_unholds, 0);

	fake_owner_recover(k, PE_A, true);
	ck_assert(run_until(a_recovered_by_owner, 5000000));
	ck_assert(!slot_a()->hold.held);
	ck_assert(!slot_a()->hold.recover_off);
	ck_assert_int_eq(state_writer_flush(m->writer, 5000000), 0);
	ck_assert_uint_eq(owner_entries(path, &result), 1);
	ck_assert_str_eq(result, "recovered");
	stop();
	fake_kernel_free(k);
	state_dir_remove(dir);
}
END_TEST

/* The shim recovered the PE while no pcierrd ran: the next one records it
 * from GET_PE's LAST_OP, and the one after does not record it again */
START_TEST(owner_recover_while_down_recorded_once)
{
	char dir[] = "/tmp/pcierr-hold-XXXXXX", path[64];
	const char *result = NULL;
	struct pcierr_pe *pe;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.db", dir);
	k = fake_kernel_new();
	k->hold = true;
	k->load_id = 0x1234;
	pe = fake_add_pe(k, PE_A, 0x0001, 1);
	pe->last_op = (struct pcierr_last_op) {
		.op_id = 7, .op = PCIERR_CMD_OWNER_RECOVER, .done = true,
		.duration_ns = 3000000, .pe_state = PCIERR_PE_STATE_NORMAL,
	};
	for (int i = 0; i < 2; i++) {
		start_on(path, true);
		ck_assert_str_eq(slot_a()->status.last_result, i == 0 ? "recovered" : "");
		ck_assert_int_eq(state_writer_flush(m->writer, 5000000), 0);
		stop();
		ck_assert_uint_eq(owner_entries(path, &result), 1);
		ck_assert_str_eq(result, "recovered");
	}
	fake_kernel_free(k);
	state_dir_remove(dir);
}
END_TEST

/* An older shim without HOLD: no hold, nothing else changes */
START_TEST(hold_unsupported)
{
	uint64_t seq = 0;
	char msg[256];

	k = fake_kernel_new();
	fake_add_pe(k, PE_A, 0x0001, 1);
	start_on(NULL, false);
	ck_assert_int_eq(manager_inject(m, DEV_A, PCIERR_STATE_FROZEN, 0, &seq, msg, sizeof(msg)), 0);
	for (int i = 0; i < 20; i++)
		ck_assert_int_ge(sd_event_run(m->event, 10000), 0);
	ck_assert(m->hold_unsupported);
	ck_assert(!slot_a()->hold.held);
	ck_assert_uint_eq(k->n_holds, 0);
	stop();
	fake_kernel_free(k);
}
END_TEST

Suite *suite_hold(void)
{
	Suite *s = suite_create("hold");
	TCase *tc = tcase_create("hold");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, hold_wanted_table);
	tcase_add_test(tc, recover_off_held_then_owner_recorded);
	tcase_add_test(tc, owner_recover_while_down_recorded_once);
	tcase_add_test(tc, hold_unsupported);
	suite_add_tcase(s, tc);
	return s;
}

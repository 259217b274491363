// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl status through org.pcierr1.Manager.GetStatus() and through
 * GetManagedObjects (the fallback for an older pcierrd) says the same:
 * pcierrd's real manager and bus on the fake kernel side, pcierrctl's own
 * loaders (tools/pcierrctl/ctl-bus.c) on a direct connection from a
 * client thread, every rendering of status (text with and without
 * colours, JSON compact and pretty, of all and of one slot) compared
 * byte for byte. The fallback against a pcierrd without GetStatus is
 * cksuite-ctl.c's "cli" case (its fake org.pcierr1 has none).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <check.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "ctl-bus.h"
#include "fake-kernel.h"
#include "format.h"
#include "manager.h"
#include "model.h"
#include "output.h"
#include "start.h"

#define PE_A	"0000:00:1c.0"
#define DEV_A0	"0000:01:00.0"
#define DEV_A1	"0000:01:00.1"
#define PE_B	"0000:00:1c.1"
#define PE_C	"0000:00:1d.0"
#define DEV_C0	"0000:03:00.0"

/* the renderings of one model, in this order */
enum { R_TEXT, R_TEXT_COLOR, R_JSON, R_JSON_PRETTY, R_TEXT_ONE, R_JSON_ONE, R_N };

struct client {
	int fd;
	int r_status, r_model;		/* the loaders' returns */
	size_t n_slots, n_devices;	/* of the GetStatus model */
	char *out[2][R_N];		/* [0] GetStatus, [1] GetManagedObjects */
	atomic_int done;
};

static char *render(const struct ctl_model *mo, int what)
{
	static const struct ctl_style plain = { .utf8 = false }, fancy = { .color = true, .utf8 = true };
	/* a fixed now: the relative times are the same */
	const uint64_t now = 1700000000ULL * 1000000ULL;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	switch (what) {
	case R_TEXT:
		ctl_render_status(f, &plain, mo, NULL, true, now);
		break;
	case R_TEXT_COLOR:
		ctl_render_status(f, &fancy, mo, NULL, true, now);
		break;
	case R_JSON:
		ctl_json_status(f, false, mo, NULL);
		break;
	case R_JSON_PRETTY:
		ctl_json_status(f, true, mo, NULL);
		break;
	case R_TEXT_ONE:
		ctl_render_status(f, &plain, mo, PE_A, true, now);
		break;
	case R_JSON_ONE:
		ctl_json_status(f, false, mo, PE_A);
		break;
	}
	fclose(f);
	return buf;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	sd_bus *bus = NULL;
	int r;

	r = sd_bus_new(&bus);
	if (r >= 0)
		r = sd_bus_set_fd(bus, c->fd, c->fd);
	if (r >= 0)
		r = sd_bus_set_anonymous(bus, 1);
	if (r >= 0)
		r = sd_bus_start(bus);
	c->r_status = c->r_model = r;
	if (r >= 0) {
		sd_bus_error error = SD_BUS_ERROR_NULL;
		struct ctl_model a = {}, b = {};

		c->r_status = ctl_load_status(bus, &a, &error);
		sd_bus_error_free(&error);
		c->r_model = ctl_load_model(bus, &b, &error);
		sd_bus_error_free(&error);
		c->n_slots = a.n_slots;
		c->n_devices = a.n_devices;
		for (int i = 0; i < R_N; i++) {
			c->out[0][i] = c->r_status >= 0 ? render(&a, i) : NULL;
			c->out[1][i] = c->r_model >= 0 ? render(&b, i) : NULL;
		}
		ctl_model_done(&a);
		ctl_model_done(&b);
	}
	sd_bus_flush_close_unref(bus);
	atomic_store(&c->done, 1);
	return NULL;
}

static void set_string(char **p, const char *s)
{
	free(*p);
	*p = strdup(s);
	ck_assert_ptr_nonnull(*p);
}

START_TEST(status_same_both_ways)
{
	struct fake_kernel *k = fake_kernel_new();
	struct manager *m = NULL;
	struct client c = {};
	struct device *d;
	struct slot *s;
	sd_bus *server = NULL;
	sd_id128_t id;
	pthread_t th;
	int fds[2];

	fake_add_pe(k, PE_A, 0x0001, 2);
	fake_add_pe(k, PE_B, 0x0002, 1);
	fake_add_pe(k, PE_C, 0x0003, 1);
	ck_assert_int_eq(manager_new(&m), 0);
	m->kops = &fake_kernel_ops;
	m->no_udev = true;
	m->config.defaults.max_freezes = 4;
	ck_assert_int_eq(manager_prepare(m, false), 0);
	ck_assert_int_eq(pcierrd_start(m), 0);
	ck_assert_uint_eq(m->n_slots, 3);

	/* what status shows besides the healthy: a slot with a failed last
	 * recovery, a device at its freeze limit and disabled, names,
	 * a driver, no driver */
	s = manager_find_slot(m, PE_A);
	ck_assert_ptr_nonnull(s);
	snprintf(s->status.last_result, sizeof(s->status.last_result), "failed");
	s->status.last_duration_usec = 1234567;
	s->status.last_finished_usec = 1700000000ULL * 1000000ULL - 90ULL * 1000000ULL;
	snprintf(s->status.message, sizeof(s->status.message), "slot_reset: \"disconnect\" by " DEV_A1);
	s->recovery.policy.stuck = true;
	d = manager_find_device(m, DEV_A1);
	ck_assert_ptr_nonnull(d);
	d->history.count = 4;
	d->history.last_usec = now_realtime_usec();
	d->history.first_usec = d->history.last_usec;
	d->history.disabled = true;
	set_string(&d->disabled_reason, "froze 4 times in 1h");
	set_string(&d->vendor_name, "Intel Corporation");
	set_string(&d->device_name, "82574L Gigabit \"Network\" Connection");
	set_string(&d->driver, "e1000e");
	d = manager_find_device(m, DEV_C0);
	ck_assert_ptr_nonnull(d);
	d->history.count = 1;
	d->history.last_usec = now_realtime_usec();
	d->history.first_usec = d->history.last_usec;
	set_string(&d->vendor_name, "Red Hat, Inc.");
	set_string(&d->driver, "");

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	c.fd = fds[1];
	ck_assert_int_eq(sd_id128_randomize(&id), 0);
	ck_assert_int_ge(sd_bus_new(&server), 0);
	ck_assert_int_ge(sd_bus_set_fd(server, fds[0], fds[0]), 0);
	ck_assert_int_ge(sd_bus_set_server(server, 1, id), 0);
	ck_assert_int_ge(sd_bus_set_anonymous(server, 1), 0);
	ck_assert_int_ge(sd_bus_attach_event(server, m->event, 0), 0);
	m->bus = server;
	ck_assert_int_ge(bus_setup(m), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, client_main, &c), 0);
	ck_assert_int_ge(sd_bus_start(server), 0);
	while (!atomic_load(&c.done))
		ck_assert_int_ge(sd_event_run(m->event, 100000), 0);
	pthread_join(th, NULL);

	/* GetStatus answered (1), not the fallback (0) */
	ck_assert_int_eq(c.r_status, 1);
	ck_assert_int_eq(c.r_model, 0);
	ck_assert_uint_eq(c.n_slots, 3);
	ck_assert_uint_eq(c.n_devices, 7);	/* each PE with its bridge */
	for (int i = 0; i < R_N; i++) {
		ck_assert_ptr_nonnull(c.out[0][i]);
		ck_assert_ptr_nonnull(c.out[1][i]);
		ck_assert_msg(strcmp(c.out[0][i], c.out[1][i]) == 0,
			      "rendering %d differs:\nGetStatus:\n%s\nGetManagedObjects:\n%s",
			      i, c.out[0][i], c.out[1][i]);
	}
	/* and they say what was set (not two equal empty answers) */
	ck_assert_ptr_nonnull(strstr(c.out[0][R_TEXT], "3 slots, 7 devices"));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_TEXT], "froze 4 times in 1h"));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_TEXT], "4/4"));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_TEXT], "1/4"));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_TEXT], "stuck"));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_JSON], "\"DeviceName\":\"82574L Gigabit \\\"Network\\\" Connection\""));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_JSON], "\"Backend\":"));
	ck_assert_ptr_null(strstr(c.out[0][R_JSON_ONE], PE_B));
	ck_assert_ptr_nonnull(strstr(c.out[0][R_JSON_ONE], DEV_A1));

	for (int i = 0; i < R_N; i++) {
		free(c.out[0][i]);
		free(c.out[1][i]);
	}
	manager_free(m);
	fake_kernel_free(k);
}
END_TEST

Suite *suite_status(void);
Suite *suite_status(void)
{
	Suite *s = suite_create("status");
	TCase *tc = tcase_create("fake-kernel");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, status_same_both_ways);
	suite_add_tcase(s, tc);
	return s;
}

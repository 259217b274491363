/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's polkit authorisation (daemon/bus-polkit.c) on a private
 * dbus-daemon, with a fake org.freedesktop.PolicyKit1 authority that
 * records each CheckAuthorization and answers as the test says. Three
 * connections (the daemon, the authority, the caller) on one sd-event loop
 * in this thread: the daemon's loop must go on while polkit thinks.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "../../daemon/bus-polkit.h"
#include "../../daemon/bus-util.h"
#include "cksuites.h"

#define PK_NAME		"org.freedesktop.PolicyKit1"
#define PK_PATH		"/org/freedesktop/PolicyKit1/Authority"
#define PK_IFACE	"org.freedesktop.PolicyKit1.Authority"

static char tmpdir[64];
static pid_t daemon_pid = -1;
static sd_event *event;
static sd_bus *server, *authority, *client;
static sd_bus_slot *server_slot, *authority_slot;

/* the fake authority: what it was asked, what it answers */
static struct {
	unsigned calls;
	char subject_kind[64], subject_name[64], action[64];
	uint32_t flags;
	char details[256];		/* "key=value;" for each detail */
	bool hold;			/* keep the call, answer later */
	sd_bus_message *held;		/* the last call kept */
	sd_bus_message *kept[32];	/* every call kept (hold) */
	unsigned n_kept;
	bool authorized, challenge;
	const char *error;		/* answer with this error instead */
} pk;

static unsigned done_calls;		/* the daemon's method ran to the end */

static int pk_check(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *kind, *key, *name, *action, *cancel, *k, *v;
	size_t len = 0;
	int r;

	pk.calls++;
	ck_assert_int_ge(sd_bus_message_enter_container(m, 'r', "sa{sv}"), 0);
	ck_assert_int_ge(sd_bus_message_read(m, "s", &kind), 0);
	ck_assert_int_ge(sd_bus_message_read(m, "a{sv}", 1, &key, "s", &name), 0);
	ck_assert_str_eq(key, "name");
	ck_assert_int_ge(sd_bus_message_exit_container(m), 0);
	ck_assert_int_ge(sd_bus_message_read(m, "s", &action), 0);
	pk.details[0] = '\0';
	ck_assert_int_ge(sd_bus_message_enter_container(m, 'a', "{ss}"), 0);
	while ((r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0)
		len += (size_t)snprintf(pk.details + len, sizeof(pk.details) - len, "%s=%s;", k, v);
	ck_assert_int_ge(r, 0);
	ck_assert_int_ge(sd_bus_message_exit_container(m), 0);
	ck_assert_int_ge(sd_bus_message_read(m, "us", &pk.flags, &cancel), 0);
	snprintf(pk.subject_kind, sizeof(pk.subject_kind), "%s", kind);
	snprintf(pk.subject_name, sizeof(pk.subject_name), "%s", name);
	snprintf(pk.action, sizeof(pk.action), "%s", action);

	if (pk.hold) {
		ck_assert_uint_lt(pk.n_kept, ELEMENTSOF(pk.kept));
		pk.kept[pk.n_kept++] = sd_bus_message_ref(m);
		pk.held = m;
		return 1;
	}
	if (pk.error)
		return sd_bus_error_set(error, pk.error, "the fake authority fails");
	r = sd_bus_reply_method_return(m, "(bba{ss})", pk.authorized, pk.challenge, 0);
	return r;
}

static const sd_bus_vtable pk_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CheckAuthorization", "(sa{sv})sa{ss}us", "(bba{ss})", pk_check,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

/* the daemon side: Do is authorised as org.pcierr1.inject, Ping is not */
static int method_do(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	int r = bus_verify_polkit_async(m, PCIERR_POLKIT_INJECT,
					POLKIT_DETAILS("address", "0000:01:00.0", "verb", "inject"),
					error);

	if (r != 0)
		return r;
	done_calls++;
	return sd_bus_reply_method_return(m, NULL);
}

static int method_ping(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable test_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("Do", "", "", method_do, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("Ping", "", "", method_ping, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END
};

static void start_dbus_daemon(char *address, size_t size)
{
	char conf[128], confarg[160];
	int pipefd[2];
	size_t len = 0;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/bus.conf", tmpdir);
	f = fopen(conf, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
		" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		"<busconfig><type>session</type><listen>unix:path=%s/bus</listen>\n"
		"<auth>EXTERNAL</auth><policy context=\"default\">\n"
		"<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>\n"
		"<allow own=\"*\"/></policy></busconfig>\n",
		tmpdir);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(confarg, sizeof(confarg), "--config-file=%s", conf);

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	daemon_pid = fork();
	ck_assert_int_ge(daemon_pid, 0);
	if (daemon_pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(pipefd[1], 3) < 0)
			_exit(127);
		execlp("dbus-daemon", "dbus-daemon", confarg, "--nofork", "--print-address=3",
		       (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (!strchr(address, '\n') && len < size - 1) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		ssize_t n;

		ck_assert_msg(poll(&p, 1, 10000) == 1, "dbus-daemon printed no address in 10 s");
		n = read(pipefd[0], address + len, size - 1 - len);
		ck_assert_msg(n > 0, "dbus-daemon did not start (scripts/install-deps)");
		len += (size_t)n;
		address[len] = 0;
	}
	close(pipefd[0]);
	address[strcspn(address, "\n")] = 0;
}

static sd_bus *connect_bus(const char *address)
{
	sd_bus *bus = NULL;

	ck_assert_int_ge(sd_bus_new(&bus), 0);
	ck_assert_int_ge(sd_bus_set_address(bus, address), 0);
	ck_assert_int_ge(sd_bus_set_bus_client(bus, 1), 0);
	ck_assert_int_ge(sd_bus_start(bus), 0);
	ck_assert_int_ge(sd_bus_attach_event(bus, event, 0), 0);
	return bus;
}

static void setup(void)
{
	char address[512] = "";

	memset(&pk, 0, sizeof(pk));
	done_calls = 0;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cksuite-polkit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	start_dbus_daemon(address, sizeof(address));
	ck_assert_int_ge(sd_event_new(&event), 0);
	server = connect_bus(address);
	authority = connect_bus(address);
	client = connect_bus(address);
	ck_assert_int_ge(sd_bus_add_object_vtable(server, &server_slot, "/t", "t.T",
						  test_vtable, NULL), 0);
	ck_assert_int_ge(sd_bus_add_object_vtable(authority, &authority_slot, PK_PATH,
						  PK_IFACE, pk_vtable, NULL), 0);
	/* root is someone else: the caller is "unprivileged" */
	bus_privileged_uid = geteuid() + 1;
}

static void teardown(void)
{
	char p[128];

	bus_polkit_flush();
	for (unsigned i = 0; i < pk.n_kept; i++)
		sd_bus_message_unref(pk.kept[i]);
	pk.n_kept = 0;
	pk.held = NULL;
	server_slot = sd_bus_slot_unref(server_slot);
	authority_slot = sd_bus_slot_unref(authority_slot);
	client = sd_bus_flush_close_unref(client);
	authority = sd_bus_flush_close_unref(authority);
	server = sd_bus_flush_close_unref(server);
	event = sd_event_unref(event);
	bus_privileged_uid = 0;
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		while (waitpid(daemon_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	daemon_pid = -1;
	snprintf(p, sizeof(p), "%s/bus.conf", tmpdir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/bus", tmpdir);
	unlink(p);
	rmdir(tmpdir);
}

static void own_polkit_name(void)
{
	ck_assert_int_ge(sd_bus_request_name(authority, PK_NAME, 0), 0);
}

struct call {
	bool done;
	sd_bus_error error;
};

static int call_done(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct call *c = userdata;

	c->done = true;
	if (sd_bus_message_is_method_error(m, NULL))
		sd_bus_error_copy(&c->error, sd_bus_message_get_error(m));
	return 0;
}

static void run_until(const bool *done)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!*done) {
		ck_assert_int_ge(sd_event_run(event, 100000), 0);
		clock_gettime(CLOCK_MONOTONIC, &now);
		ck_assert_msg(now.tv_sec - start.tv_sec < 10, "no answer in 10 s");
	}
}

/* Call Do on the server and wait for its answer */
static void call_do(struct call *c)
{
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
	const char *dest;

	*c = (struct call) { .error = SD_BUS_ERROR_NULL };
	ck_assert_int_ge(sd_bus_get_unique_name(server, &dest), 0);
	ck_assert_int_ge(sd_bus_call_method_async(client, &slot, dest, "/t", "t.T", "Do",
						  call_done, c, NULL), 0);
	run_until(&c->done);
}

static void assert_refused(struct call *c, const char *name, const char *part)
{
	ck_assert_msg(sd_bus_error_is_set(&c->error), "the call was not refused");
	ck_assert_msg(sd_bus_error_has_name(&c->error, name), "error %s (%s), expected %s",
		      c->error.name, c->error.message, name);
	ck_assert_msg(strstr(c->error.message, part), "message '%s' lacks '%s'",
		      c->error.message, part);
	sd_bus_error_free(&c->error);
}

START_TEST(test_root_needs_no_polkit)
{
	struct call c;

	own_polkit_name();
	bus_privileged_uid = geteuid();
	call_do(&c);
	ck_assert(!sd_bus_error_is_set(&c.error));
	ck_assert_uint_eq(done_calls, 1);
	ck_assert_uint_eq(pk.calls, 0);
}
END_TEST

START_TEST(test_polkit_yes)
{
	const char *me;
	struct call c;

	own_polkit_name();
	pk.authorized = true;
	call_do(&c);
	ck_assert_msg(!sd_bus_error_is_set(&c.error), "refused: %s", c.error.message);
	ck_assert_uint_eq(done_calls, 1);
	ck_assert_uint_eq(pk.calls, 1);
	ck_assert_str_eq(pk.action, "org.pcierr1.inject");
	ck_assert_str_eq(pk.subject_kind, "system-bus-name");
	ck_assert_int_ge(sd_bus_get_unique_name(client, &me), 0);
	ck_assert_str_eq(pk.subject_name, me);
	ck_assert_uint_eq(pk.flags, 0);		/* the caller allowed no interaction */
	/* what the call acts on, for a rules file (docs/dbus.md) */
	ck_assert_str_eq(pk.details, "address=0000:01:00.0;verb=inject;");
}
END_TEST

START_TEST(test_polkit_no)
{
	struct call c;

	own_polkit_name();
	call_do(&c);
	assert_refused(&c, SD_BUS_ERROR_ACCESS_DENIED,
		       "Not authorised to inject errors (polkit action org.pcierr1.inject).");
	ck_assert_uint_eq(done_calls, 0);
	ck_assert_uint_eq(pk.calls, 1);
}
END_TEST

START_TEST(test_polkit_challenge)
{
	struct call c;

	own_polkit_name();
	pk.challenge = true;
	call_do(&c);
	assert_refused(&c, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
		       "Authentication is required to inject errors");
	ck_assert_uint_eq(done_calls, 0);
	ck_assert_uint_eq(pk.flags, 0);

	/* the caller allows interaction: polkit is told so */
	ck_assert_int_ge(sd_bus_set_allow_interactive_authorization(client, 1), 0);
	pk.challenge = false;
	pk.authorized = true;
	call_do(&c);
	ck_assert_msg(!sd_bus_error_is_set(&c.error), "refused: %s", c.error.message);
	ck_assert_uint_eq(pk.flags, 1);		/* AllowUserInteraction */
	ck_assert_uint_eq(done_calls, 1);
}
END_TEST

START_TEST(test_no_polkit_root_only)
{
	struct call c;

	/* nobody owns org.freedesktop.PolicyKit1 */
	call_do(&c);
	assert_refused(&c, SD_BUS_ERROR_ACCESS_DENIED, "Only root may inject errors.");
	ck_assert_uint_eq(done_calls, 0);
	ck_assert_uint_eq(pk.calls, 0);
	ck_assert_uint_eq(bus_polkit_asked, 1);
	/* a flood of refused calls: polkit is not asked again for a second
	 * (issue 11 point 3), each is refused the same way at once */
	for (int i = 0; i < 50; i++) {
		call_do(&c);
		assert_refused(&c, SD_BUS_ERROR_ACCESS_DENIED, "Only root may inject errors.");
	}
	ck_assert_uint_eq(bus_polkit_asked, 1);
	ck_assert_uint_eq(done_calls, 0);
	/* a polkitd that appears is asked after that second */
	own_polkit_name();
	pk.authorized = true;
	usleep(1100 * 1000);
	call_do(&c);
	ck_assert_msg(!sd_bus_error_is_set(&c.error), "refused: %s", c.error.message);
	ck_assert_uint_eq(bus_polkit_asked, 2);
	ck_assert_uint_eq(pk.calls, 1);
	ck_assert_uint_eq(done_calls, 1);
	done_calls = 0;
	/* root still may */
	bus_privileged_uid = geteuid();
	call_do(&c);
	ck_assert(!sd_bus_error_is_set(&c.error));
	ck_assert_uint_eq(done_calls, 1);
}
END_TEST

START_TEST(test_polkit_fails)
{
	struct call c;

	own_polkit_name();
	pk.error = "org.freedesktop.PolicyKit1.Error.Failed";
	call_do(&c);
	assert_refused(&c, SD_BUS_ERROR_ACCESS_DENIED, "Could not ask polkit");
	ck_assert_uint_eq(done_calls, 0);

	/* polkitd could not be started by the bus: as if not installed */
	pk.error = "org.freedesktop.DBus.Error.Spawn.ChildExited";
	call_do(&c);
	assert_refused(&c, SD_BUS_ERROR_ACCESS_DENIED, "Only root may inject errors.");
	ck_assert_uint_eq(done_calls, 0);
}
END_TEST

/* the loop goes on while polkit thinks; then the answer lets the call in */
START_TEST(test_async)
{
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *s1 = NULL, *s2 = NULL;
	struct call c1 = { .error = SD_BUS_ERROR_NULL }, c2 = { .error = SD_BUS_ERROR_NULL };
	const char *dest;

	own_polkit_name();
	pk.hold = true;
	ck_assert_int_ge(sd_bus_get_unique_name(server, &dest), 0);
	ck_assert_int_ge(sd_bus_call_method_async(client, &s1, dest, "/t", "t.T", "Do",
						  call_done, &c1, NULL), 0);
	while (!pk.held)
		ck_assert_int_ge(sd_event_run(event, 100000), 0);
	ck_assert(!c1.done);

	/* the daemon answers others meanwhile */
	ck_assert_int_ge(sd_bus_call_method_async(client, &s2, dest, "/t", "t.T", "Ping",
						  call_done, &c2, NULL), 0);
	run_until(&c2.done);
	ck_assert(!sd_bus_error_is_set(&c2.error));
	ck_assert(!c1.done);
	ck_assert_uint_eq(done_calls, 0);

	/* polkit says yes: the held call runs */
	ck_assert_int_ge(sd_bus_reply_method_return(pk.held, "(bba{ss})", 1, 0, 0), 0);
	run_until(&c1.done);
	ck_assert_msg(!sd_bus_error_is_set(&c1.error), "refused: %s", c1.error.message);
	ck_assert_uint_eq(done_calls, 1);
	ck_assert_uint_eq(pk.calls, 1);
}
END_TEST

/* a question still open at shutdown is dropped without a leak */
START_TEST(test_flush_pending)
{
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *s = NULL;
	struct call c = { .error = SD_BUS_ERROR_NULL };
	const char *dest;

	own_polkit_name();
	pk.hold = true;
	ck_assert_int_ge(sd_bus_get_unique_name(server, &dest), 0);
	ck_assert_int_ge(sd_bus_call_method_async(client, &s, dest, "/t", "t.T", "Do",
						  call_done, &c, NULL), 0);
	while (!pk.held)
		ck_assert_int_ge(sd_event_run(event, 100000), 0);
	bus_polkit_flush();
	ck_assert_uint_eq(done_calls, 0);
}
END_TEST

/* one sender's pending questions are bounded: the 17th is refused at once */
START_TEST(test_pending_bounded)
{
	sd_bus_slot *slots[17] = { NULL };
	struct call c[17];
	const char *dest;

	own_polkit_name();
	pk.hold = true;
	ck_assert_int_ge(sd_bus_get_unique_name(server, &dest), 0);
	for (unsigned i = 0; i < ELEMENTSOF(c); i++) {
		c[i] = (struct call) { .error = SD_BUS_ERROR_NULL };
		ck_assert_int_ge(sd_bus_call_method_async(client, &slots[i], dest, "/t", "t.T",
							  "Do", call_done, &c[i], NULL), 0);
	}
	run_until(&c[16].done);
	assert_refused(&c[16], SD_BUS_ERROR_LIMITS_EXCEEDED, "Too many calls");
	while (pk.n_kept < 16)
		ck_assert_int_ge(sd_event_run(event, 100000), 0);
	ck_assert_uint_eq(pk.calls, 16);
	for (unsigned i = 0; i < 16; i++)
		ck_assert(!c[i].done);
	/* answered: room again */
	ck_assert_int_ge(sd_bus_reply_method_return(pk.kept[0], "(bba{ss})", 1, 0, 0), 0);
	run_until(&c[0].done);
	ck_assert(!sd_bus_error_is_set(&c[0].error));
	ck_assert_uint_eq(done_calls, 1);
	for (unsigned i = 0; i < ELEMENTSOF(slots); i++)
		sd_bus_slot_unref(slots[i]);
}
END_TEST

Suite *suite_polkit(void)
{
	Suite *s = suite_create("polkit");
	TCase *tc = tcase_create("polkit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_root_needs_no_polkit);
	tcase_add_test(tc, test_polkit_yes);
	tcase_add_test(tc, test_polkit_no);
	tcase_add_test(tc, test_polkit_challenge);
	tcase_add_test(tc, test_no_polkit_root_only);
	tcase_add_test(tc, test_polkit_fails);
	tcase_add_test(tc, test_async);
	tcase_add_test(tc, test_flush_pending);
	tcase_add_test(tc, test_pending_bounded);
	suite_add_tcase(s, tc);
	return s;
}

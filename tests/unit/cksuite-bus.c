/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's D-Bus layer (daemon/bus-*.c) against a real bus: every test
 * starts its own dbus-daemon (a private bus, config written to a mkdtemp
 * directory), puts a hand-built struct manager (two slots, three devices)
 * on it through bus_setup() + bus_request_name(), and talks to it from a
 * second connection. Both connections live in this one thread: a call is
 * sent asynchronously and both sides are pumped (sd_bus_process) until
 * its reply came, so everything happens in a fixed order.
 *
 * daemon/manager.c is not linked: the manager_*() functions the bus layer
 * calls are the fakes below, which record their arguments.
 *
 * The introspection of each org.pcierr1 interface must equal
 * dbus/org.pcierr1.<Interface>.xml byte for byte. The source tree is
 * CK_SRCDIR (compiled in), or $PCIERR_SRCDIR. After a deliberate API
 * change, CK_BUS_UPDATE_XML=1 writes the files from what sd-bus serves
 * (review the diff!).
 *
 * dbus-daemon missing is a failure, not a skip (scripts/install-deps).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "../../daemon/bus.h"
#include "../../daemon/bus-util.h"
#include "../../daemon/recovery.h"
#include "cksuites.h"

#ifndef CK_SRCDIR
#define CK_SRCDIR "."
#endif

/* what bus-manager.c serves as Version */
#ifdef PCIERR_VERSION
#define PCIERR_VERSION_EXPECTED PCIERR_VERSION
#else
#define PCIERR_VERSION_EXPECTED "0.1"
#endif

#define N_OF(x)	(sizeof(x) / sizeof((x)[0]))
#define T0	((pcierr_usec_t) 1700000000 * PCIERR_USEC_PER_SEC)
#define SEC	PCIERR_USEC_PER_SEC

#define SLOT_A	"0000:00:02.0"
#define DEV_A0	"0000:01:00.0"
#define DEV_A1	"0000:01:00.1"
#define SLOT_B	"0000:03:00.0"		/* a lone device on a root bus */
#define DEV_B0	"0000:03:00.0"

#define PATH_SLOT_A	"/org/pcierr1/slot/_30000_3a00_3a02_2e0"
#define PATH_SLOT_B	"/org/pcierr1/slot/_30000_3a03_3a00_2e0"
#define PATH_DEV_A0	"/org/pcierr1/device/_30000_3a01_3a00_2e0"
#define PATH_DEV_A1	"/org/pcierr1/device/_30000_3a01_3a00_2e1"
#define PATH_DEV_B0	"/org/pcierr1/device/_30000_3a03_3a00_2e0"

/* ------------------------------------------------------------------ */
/* The fakes of daemon/manager.c                                       */
/* ------------------------------------------------------------------ */

enum fake_call { FAKE_NONE, FAKE_INJECT, FAKE_RESET, FAKE_ENABLE, FAKE_CLEAR };

static struct {
	enum fake_call call;
	int calls;
	char addr[PCIERR_ADDR_MAX];
	enum pcierr_channel_state state;
	uint32_t ms;
	enum pcierr_reset_type type;
	/* what the next call answers */
	int ret;
	const char *msg;
	uint64_t seq;
} fake;

static pcierr_usec_t fake_now = T0;

pcierr_usec_t now_realtime_usec(void)
{
	return fake_now;
}

pcierr_usec_t now_monotonic_usec(void)
{
	return fake_now;
}

struct slot *manager_find_slot(struct manager *m, const char *addr)
{
	for (size_t i = 0; i < m->n_slots; i++)
		if (strcmp(m->slots[i]->addr, addr) == 0)
			return m->slots[i];
	return NULL;
}

struct device *manager_find_device(struct manager *m, const char *addr)
{
	for (size_t i = 0; i < m->n_slots; i++)
		for (size_t j = 0; j < m->slots[i]->n_devices; j++)
			if (strcmp(m->slots[i]->devices[j]->addr, addr) == 0)
				return m->slots[i]->devices[j];
	return NULL;
}

struct slot *manager_find_slot_for(struct manager *m, const char *addr)
{
	struct slot *s = manager_find_slot(m, addr);
	struct device *d;

	if (s)
		return s;
	d = manager_find_device(m, addr);
	return d ? d->slot : NULL;
}

static int fake_record(enum fake_call call, const char *addr, char *msg,
		       size_t msg_size)
{
	fake.call = call;
	fake.calls++;
	snprintf(fake.addr, sizeof(fake.addr), "%s", addr);
	if (fake.ret < 0 && fake.msg)
		snprintf(msg, msg_size, "%s", fake.msg);
	return fake.ret;
}

int manager_inject(struct manager *m, const char *addr,
		   enum pcierr_channel_state state, uint32_t time_unavail_ms,
		   uint64_t *ret_seq, char *msg, size_t msg_size)
{
	fake.state = state;
	fake.ms = time_unavail_ms;
	*ret_seq = fake.seq;
	return fake_record(FAKE_INJECT, addr, msg, msg_size);
}

int recovery_reset(struct manager *m, const char *addr,
		   enum pcierr_reset_type type, uint64_t *ret_id, char *msg, size_t msg_size)
{
	fake.type = type;
	*ret_id = 4711;
	return fake_record(FAKE_RESET, addr, msg, msg_size);
}

int recovery_enable(struct manager *m, const char *addr,
		    char *msg, size_t msg_size)
{
	return fake_record(FAKE_ENABLE, addr, msg, msg_size);
}

int manager_clear_freeze_count(struct manager *m, const char *addr,
			       char *msg, size_t msg_size)
{
	return fake_record(FAKE_CLEAR, addr, msg, msg_size);
}

/* ------------------------------------------------------------------ */
/* The world: a manager with two slots and three devices               */
/* ------------------------------------------------------------------ */

static struct manager mgr;
static struct slot slot_a, slot_b;
static struct device dev_a0, dev_a1, dev_b0;
static struct slot *slots[2];
static struct device *devs_a[2], *devs_b[1];

static void build_manager(void)
{
	memset(&mgr, 0, sizeof(mgr));
	memset(&slot_a, 0, sizeof(slot_a));
	memset(&slot_b, 0, sizeof(slot_b));
	memset(&dev_a0, 0, sizeof(dev_a0));
	memset(&dev_a1, 0, sizeof(dev_a1));
	memset(&dev_b0, 0, sizeof(dev_b0));
	memset(&fake, 0, sizeof(fake));
	fake_now = T0;

	pcierr_config_init(&mgr.config);
	ck_assert_int_eq(pcierr_config_parse_string(&mgr.config,
		"[Policy]\nMaxWaitSec=20\n[Device 01:00.1]\nMaxFreezes=2\n",
		"test.conf", NULL), 0);
	mgr.kernel_connected = true;
	mgr.counters.events_received = 42;
	mgr.counters.resyncs = 3;
	slots[0] = &slot_a;
	slots[1] = &slot_b;
	mgr.slots = slots;
	mgr.n_slots = 2;

	slot_a.manager = &mgr;
	snprintf(slot_a.addr, sizeof(slot_a.addr), SLOT_A);
	slot_a.state = PCIERR_PE_STATE_FROZEN;
	slot_a.reset_types = 1U << PCIERR_RESET_HOT | 1U << PCIERR_RESET_FUNDAMENTAL;
	slot_a.backend = PCIERR_BACKEND_RTAS;
	slot_a.recovery = SLOT_RECOVERY_INIT;
	slot_a.recovery.policy.phase = PCIERR_PHASE_ERROR_DETECTED;
	slot_a.recovery.policy.stuck = true;
	snprintf(slot_a.status.last_result, sizeof(slot_a.status.last_result), "recovered");
	slot_a.status.last_duration_usec = 1234567;
	slot_a.status.last_finished_usec = T0 - 3600 * SEC;
	snprintf(slot_a.status.message, sizeof(slot_a.status.message),
		 "recovered by a hot reset");
	devs_a[0] = &dev_a0;
	devs_a[1] = &dev_a1;
	slot_a.devices = devs_a;
	slot_a.n_devices = 2;

	slot_b.manager = &mgr;
	snprintf(slot_b.addr, sizeof(slot_b.addr), SLOT_B);
	slot_b.state = PCIERR_PE_STATE_DISABLED;
	slot_b.flags = PCIERR_PE_F_ROOT_BUS | PCIERR_PE_F_DISABLED;
	slot_b.reset_types = 1U << PCIERR_RESET_HOT;
	slot_b.recovery = SLOT_RECOVERY_INIT;
	devs_b[0] = &dev_b0;
	slot_b.devices = devs_b;
	slot_b.n_devices = 1;

	dev_a0.manager = &mgr;
	dev_a0.slot = &slot_a;
	snprintf(dev_a0.addr, sizeof(dev_a0.addr), DEV_A0);
	dev_a0.vendor = 0x8086;
	dev_a0.device = 0x10d3;
	dev_a0.subvendor = 0x8086;
	dev_a0.subdevice = 0xa01f;
	dev_a0.class = 0x020000;
	dev_a0.has_dsn = true;
	dev_a0.dsn = 0x0011223344556677ULL;
	dev_a0.driver = "e1000e";
	dev_a0.handlers = 1U << PCIERR_HANDLER_ERROR_DETECTED |
			  1U << PCIERR_HANDLER_SLOT_RESET | 1U << PCIERR_HANDLER_RESUME;
	dev_a0.state = PCIERR_STATE_FROZEN;
	dev_a0.error_gen = 7;
	dev_a0.vendor_name = "Intel Corporation";
	dev_a0.device_name = "82574L Gigabit Network Connection";
	snprintf(dev_a0.key, sizeof(dev_a0.key), "8086:10d3:8086:a01f:dsn:0011223344556677");
	dev_a0.history = (struct pcierr_freeze_record) {
		.count = 3, .first_usec = T0 - 100 * SEC, .last_usec = T0 - 10 * SEC,
	};
	dev_a0.disabled_reason = "";
	dev_a0.last_error_usec = T0 - 10 * SEC;

	dev_a1.manager = &mgr;
	dev_a1.slot = &slot_a;
	snprintf(dev_a1.addr, sizeof(dev_a1.addr), DEV_A1);
	dev_a1.vendor = 0x1af4;
	dev_a1.device = 0x1000;
	dev_a1.class = 0x010000;
	dev_a1.driver = "";
	dev_a1.state = PCIERR_STATE_NORMAL;
	dev_a1.vendor_name = "";
	dev_a1.device_name = "";
	snprintf(dev_a1.key, sizeof(dev_a1.key), "1af4:1000:0000:0000:addr:0000:01:00.1");
	/* the window (3600 s) is over: FreezeCount 0 */
	dev_a1.history = (struct pcierr_freeze_record) {
		.count = 4, .first_usec = T0 - 9000 * SEC, .last_usec = T0 - 3601 * SEC,
	};
	dev_a1.disabled_reason = "";

	dev_b0.manager = &mgr;
	dev_b0.slot = &slot_b;
	snprintf(dev_b0.addr, sizeof(dev_b0.addr), DEV_B0);
	dev_b0.vendor = 0x10ec;
	dev_b0.device = 0x8139;
	dev_b0.subvendor = 0x10ec;
	dev_b0.subdevice = 0x8139;
	dev_b0.class = 0x020000;
	dev_b0.driver = "8139too";
	dev_b0.state = PCIERR_STATE_PERM_FAILURE;
	dev_b0.vendor_name = "Realtek Semiconductor Co., Ltd.";
	dev_b0.device_name = "RTL-8100/8101L/8139 PCI Fast Ethernet Adapter";
	snprintf(dev_b0.key, sizeof(dev_b0.key), "10ec:8139:10ec:8139:addr:0000:03:00.0");
	/* exactly at the window's end: still inside */
	dev_b0.history = (struct pcierr_freeze_record) {
		.count = 6, .first_usec = T0 - 3600 * SEC, .last_usec = T0 - 3600 * SEC,
		.disabled = true,
	};
	dev_b0.disabled_reason = "too many freezes: please reseat or replace the card";
	dev_b0.last_error_usec = T0 - 3600 * SEC;

	/* object paths are the bus layer's, from the address (review U12) */
}

static void free_manager(void)
{
	for (size_t i = 0; i < N_OF(mgr.bus_slots); i++)
		mgr.bus_slots[i] = sd_bus_slot_unref(mgr.bus_slots[i]);
	pcierr_config_done(&mgr.config);
	mgr.state = pcierr_state_close(mgr.state);
}

/* ------------------------------------------------------------------ */
/* A private bus                                                       */
/* ------------------------------------------------------------------ */

static char tmpdir[64];
static pid_t daemon_pid = -1;
static sd_bus *server, *client;

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char p[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long size;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	ck_assert_int_ge(size, 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = 0;
	fclose(f);
	return buf;
}

/* Start dbus-daemon with a config file holding extra (may be ""): returns
 * its address once it listens. Fails the test when it cannot start. */
static void start_dbus_daemon(const char *extra, char *address, size_t size)
{
	char conf[128], log[128], text[2048], fdarg[32];
	int pipefd[2], logfd;
	size_t len = 0;

	snprintf(conf, sizeof(conf), "%s/bus.conf", tmpdir);
	snprintf(text, sizeof(text),
		 "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
		 " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		 "<busconfig>\n"
		 "  <type>session</type>\n"
		 "  <listen>unix:path=%s/bus</listen>\n"
		 "  <auth>EXTERNAL</auth>\n"
		 "  <policy context=\"default\">\n"
		 "    <allow send_destination=\"*\" eavesdrop=\"true\"/>\n"
		 "    <allow eavesdrop=\"true\"/>\n"
		 "    <allow own=\"*\"/>\n"
		 "  </policy>\n"
		 "%s"
		 "</busconfig>\n", tmpdir, extra);
	write_file(conf, text);

	snprintf(log, sizeof(log), "%s/dbus-daemon.log", tmpdir);
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(logfd, 0);
	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	daemon_pid = fork();
	ck_assert_int_ge(daemon_pid, 0);
	if (daemon_pid == 0) {
		char confarg[160];
		int devnull;

		/* never outlive the test, however it ends */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(pipefd[1], 3) < 0)
			_exit(127);
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		/* its complaints (fd limits ...) go to a log, shown on failure */
		if (logfd >= 0)
			dup2(logfd, STDERR_FILENO);
		snprintf(fdarg, sizeof(fdarg), "--print-address=3");
		snprintf(confarg, sizeof(confarg), "--config-file=%s", conf);
		execlp("dbus-daemon", "dbus-daemon", confarg, "--nofork",
		       fdarg, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	close(logfd);

	/* the address, then a newline */
	for (;;) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		ssize_t n;

		ck_assert_msg(poll(&p, 1, 10000) == 1,
			      "dbus-daemon did not print its address in 10 s");
		n = read(pipefd[0], address + len, size - 1 - len);
		if (n <= 0) {
			char *text_log = read_file(log);

			ck_abort_msg("dbus-daemon did not start (is it installed? "
				     "scripts/install-deps): %s", text_log);
		}
		len += (size_t)n;
		address[len] = 0;
		if (strchr(address, '\n') || len >= size - 1)
			break;
	}
	close(pipefd[0]);
	address[strcspn(address, "\n")] = 0;
	ck_assert_msg(strncmp(address, "unix:", 5) == 0, "address '%s'", address);
}

static void stop_dbus_daemon(void)
{
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		while (waitpid(daemon_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	daemon_pid = -1;
}

static sd_bus *connect_bus(const char *address)
{
	sd_bus *bus = NULL;

	ck_assert_int_ge(sd_bus_new(&bus), 0);
	ck_assert_int_ge(sd_bus_set_address(bus, address), 0);
	ck_assert_int_ge(sd_bus_set_bus_client(bus, 1), 0);
	ck_assert_int_ge(sd_bus_start(bus), 0);
	return bus;
}

static void setup(void)
{
	char address[512];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cksuite-bus.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	start_dbus_daemon("", address, sizeof(address));

	server = connect_bus(address);
	client = connect_bus(address);

	build_manager();
	mgr.bus = server;
	ck_assert_int_eq(bus_setup(&mgr), 0);
	ck_assert_int_ge(bus_request_name(&mgr), 0);
}

static void signals_clear(void);

static void teardown(void)
{
	signals_clear();
	free_manager();
	client = sd_bus_flush_close_unref(client);
	server = sd_bus_flush_close_unref(server);
	mgr.bus = NULL;
	bus_privileged_uid = 0;
	stop_dbus_daemon();
	rm_rf(tmpdir);
}

/* ------------------------------------------------------------------ */
/* Calls and signals, both sides pumped in this thread                 */
/* ------------------------------------------------------------------ */

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec / 1000;
}

/* Run both connections until *done (10 s at most) */
static void pump_until(const bool *done)
{
	uint64_t deadline = mono_usec() + 10 * SEC;

	while (!*done) {
		sd_bus *buses[] = { server, client };
		struct pollfd p[2];
		bool progress = false;

		for (size_t i = 0; i < N_OF(buses) && !*done; i++)
			for (;;) {
				int r = sd_bus_process(buses[i], NULL);

				ck_assert_msg(r >= 0, "sd_bus_process: %s", strerror(-r));
				if (r == 0)
					break;
				progress = true;
				if (*done)
					break;
			}
		if (*done || progress)
			continue;

		ck_assert_msg(mono_usec() < deadline, "no reply in 10 s");
		for (size_t i = 0; i < N_OF(buses); i++) {
			int ev = sd_bus_get_events(buses[i]);

			ck_assert_int_ge(ev, 0);
			p[i] = (struct pollfd) {
				.fd = sd_bus_get_fd(buses[i]), .events = (short)ev,
			};
		}
		ck_assert_int_ge(poll(p, 2, 100), 0);
	}
}

struct call_state {
	bool done;
	sd_bus_message *reply;
};

static int call_done(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct call_state *c = userdata;

	c->reply = sd_bus_message_ref(m);
	c->done = true;
	return 0;
}

static sd_bus_message *vcall(sd_bus_error *error, const char *path,
			     const char *iface, const char *member,
			     const char *types, va_list ap)
{
	sd_bus_message *m = NULL;
	sd_bus_slot *slot = NULL;
	struct call_state c = {};

	ck_assert_int_ge(sd_bus_message_new_method_call(client, &m, PCIERR_BUS_NAME,
							 path, iface, member), 0);
	if (types)
		ck_assert_int_ge(sd_bus_message_appendv(m, types, ap), 0);
	ck_assert_int_ge(sd_bus_call_async(client, &slot, m, call_done, &c,
					   10 * SEC), 0);
	sd_bus_message_unref(m);
	pump_until(&c.done);
	sd_bus_slot_unref(slot);

	if (sd_bus_message_is_method_error(c.reply, NULL)) {
		const sd_bus_error *e = sd_bus_message_get_error(c.reply);

		ck_assert_msg(error != NULL, "%s.%s: %s: %s", iface, member,
			      e->name, e->message);
		sd_bus_error_copy(error, e);
		sd_bus_message_unref(c.reply);
		return NULL;
	}
	ck_assert_msg(error == NULL, "%s.%s did not fail", iface, member);
	return c.reply;
}

/* Call a method of org.pcierr1 from the client. Returns the reply; with
 * error, the call must fail: NULL and *error set. */
static sd_bus_message *call(sd_bus_error *error, const char *path,
			    const char *iface, const char *member,
			    const char *types, ...)
{
	sd_bus_message *reply;
	va_list ap;

	va_start(ap, types);
	reply = vcall(error, path, iface, member, types, ap);
	va_end(ap);
	return reply;
}

static sd_bus_message *call_manager(sd_bus_error *error, const char *member,
				    const char *types, ...)
{
	sd_bus_message *reply;
	va_list ap;

	va_start(ap, types);
	reply = vcall(error, PCIERR_BUS_PATH, PCIERR_BUS_MANAGER_IFACE, member,
		      types, ap);
	va_end(ap);
	return reply;
}

/* the error of a call that must fail: its name, and a part of its text */
static void assert_error(sd_bus_error *e, const char *name, const char *part)
{
	ck_assert_msg(sd_bus_error_is_set(e), "the call did not fail");
	ck_assert_msg(sd_bus_error_has_name(e, name), "error %s (%s), expected %s",
		      e->name, e->message, name);
	if (part)
		ck_assert_msg(e->message && strstr(e->message, part),
			      "message '%s' lacks '%s'", e->message, part);
	sd_bus_error_free(e);
}

/* Properties.Get: the reply, entered into its variant of signature sig */
static sd_bus_message *get_property(const char *path, const char *iface,
				    const char *name, const char *sig)
{
	sd_bus_message *reply = call(NULL, path, "org.freedesktop.DBus.Properties",
				     "Get", "ss", iface, name);

	ck_assert_msg(sd_bus_message_enter_container(reply, 'v', sig) > 0,
		      "%s %s: not a variant of %s", path, name, sig);
	return reply;
}

static char *get_string(const char *path, const char *iface, const char *name,
			const char *sig)
{
	sd_bus_message *reply = get_property(path, iface, name, sig);
	const char *s;
	char *ret;

	ck_assert_int_gt(sd_bus_message_read_basic(reply, sig[0], &s), 0);
	ret = strdup(s);
	ck_assert_ptr_nonnull(ret);
	sd_bus_message_unref(reply);
	return ret;
}

static void assert_string_prop(const char *path, const char *iface,
			       const char *name, const char *sig,
			       const char *expected)
{
	char *v = get_string(path, iface, name, sig);

	ck_assert_msg(strcmp(v, expected) == 0, "%s %s: '%s', expected '%s'",
		      path, name, v, expected);
	free(v);
}

static uint64_t get_number(const char *path, const char *iface, const char *name,
			   char type)
{
	char sig[2] = { type, 0 };
	sd_bus_message *reply = get_property(path, iface, name, sig);
	union { uint16_t q; uint32_t u; uint64_t t; int b; } v = {};
	uint64_t ret;

	ck_assert_int_gt(sd_bus_message_read_basic(reply, type, &v), 0);
	switch (type) {
	case 'q': ret = v.q; break;
	case 'u': ret = v.u; break;
	case 'b': ret = (uint64_t)v.b; break;
	default:  ret = v.t; break;
	}
	sd_bus_message_unref(reply);
	return ret;
}

/* an "as"/"ao" property joined by ',' */
static char *get_array(const char *path, const char *iface, const char *name,
		       char type)
{
	char sig[3] = { 'a', type, 0 };
	sd_bus_message *reply = get_property(path, iface, name, sig);
	char buf[1024] = "";
	const char *s;
	char *ret;
	int r;

	ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', sig + 1), 0);
	while ((r = sd_bus_message_read_basic(reply, type, &s)) > 0) {
		if (buf[0])
			strcat(buf, ",");
		strcat(buf, s);
	}
	ck_assert_int_eq(r, 0);
	ret = strdup(buf);
	ck_assert_ptr_nonnull(ret);
	sd_bus_message_unref(reply);
	return ret;
}

static void assert_array_prop(const char *path, const char *iface,
			      const char *name, char type, const char *expected)
{
	char *v = get_array(path, iface, name, type);

	ck_assert_msg(strcmp(v, expected) == 0, "%s %s: '%s', expected '%s'",
		      path, name, v, expected);
	free(v);
}

/* Signals from org.pcierr1, kept in arrival order */
static sd_bus_message *signals[32];
static size_t n_signals, signals_taken;
static bool signal_arrived;
static sd_bus_slot *signal_match;

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	ck_assert_uint_lt(n_signals, N_OF(signals));
	signals[n_signals++] = sd_bus_message_ref(m);
	signal_arrived = true;
	return 0;
}

static void signals_clear(void)
{
	for (size_t i = 0; i < n_signals; i++)
		sd_bus_message_unref(signals[i]);
	n_signals = signals_taken = 0;
	signal_match = sd_bus_slot_unref(signal_match);
}

static void watch_signals(void)
{
	ck_assert_int_ge(sd_bus_match_signal(client, &signal_match, PCIERR_BUS_NAME,
					     NULL, NULL, NULL, on_signal, NULL), 0);
}

/* The next signal, which must be iface.member on path */
static sd_bus_message *next_signal(const char *path, const char *iface,
				   const char *member)
{
	sd_bus_message *m;

	while (n_signals <= signals_taken) {
		signal_arrived = false;
		pump_until(&signal_arrived);
	}
	m = signals[signals_taken++];
	ck_assert_msg(sd_bus_message_is_signal(m, iface, member),
		      "signal %s.%s, expected %s.%s",
		      sd_bus_message_get_interface(m), sd_bus_message_get_member(m),
		      iface, member);
	ck_assert_str_eq(sd_bus_message_get_path(m), path);
	return m;
}

/* ------------------------------------------------------------------ */
/* Introspection = dbus/org.pcierr1.*.xml                              */
/* ------------------------------------------------------------------ */

static const char *srcdir(void)
{
	const char *d = getenv("PCIERR_SRCDIR");

	return d && *d ? d : CK_SRCDIR;
}

/* The lines from the one holding <interface name="iface"> to the one
 * holding its </interface>, with their newlines */
static char *interface_block(const char *xml, const char *iface)
{
	char open_tag[128];
	const char *start, *end;
	char *ret;

	snprintf(open_tag, sizeof(open_tag), "<interface name=\"%s\">", iface);
	start = strstr(xml, open_tag);
	ck_assert_msg(start != NULL, "no %s in:\n%s", open_tag, xml);
	ck_assert_msg(strstr(start + 1, open_tag) == NULL, "%s twice", open_tag);
	while (start > xml && start[-1] != '\n')
		start--;
	end = strstr(start, "</interface>");
	ck_assert_ptr_nonnull(end);
	end = strchr(end, '\n');
	ck_assert_ptr_nonnull(end);
	ret = strndup(start, (size_t)(end + 1 - start));
	ck_assert_ptr_nonnull(ret);
	return ret;
}

static void check_introspection(const char *path, const char *iface)
{
	sd_bus_message *reply = call(NULL, path, "org.freedesktop.DBus.Introspectable",
				     "Introspect", NULL);
	char file[PATH_MAX];
	const char *xml;
	char *block, *expected;

	ck_assert_int_gt(sd_bus_message_read(reply, "s", &xml), 0);
	block = interface_block(xml, iface);
	snprintf(file, sizeof(file), "%s/dbus/%s.xml", srcdir(), iface);

	if (getenv("CK_BUS_UPDATE_XML"))
		write_file(file, block);
	expected = read_file(file);
	ck_assert_msg(strcmp(block, expected) == 0,
		      "%s differs from what pcierrd serves at %s:\n%s", file, path,
		      block);
	free(expected);
	free(block);
	sd_bus_message_unref(reply);
}

START_TEST(test_introspect)
{
	check_introspection(PCIERR_BUS_PATH, PCIERR_BUS_MANAGER_IFACE);
	check_introspection(PATH_SLOT_A, PCIERR_BUS_SLOT_IFACE);
	check_introspection(PATH_SLOT_B, PCIERR_BUS_SLOT_IFACE);
	check_introspection(PATH_DEV_A1, PCIERR_BUS_DEVICE_IFACE);
}
END_TEST

/* the tree: the manager lists its children; no object where none is */
START_TEST(test_introspect_nodes)
{
	sd_bus_message *reply;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *xml;

	reply = call(NULL, PCIERR_BUS_SLOT_PREFIX,
		     "org.freedesktop.DBus.Introspectable", "Introspect", NULL);
	ck_assert_int_gt(sd_bus_message_read(reply, "s", &xml), 0);
	ck_assert_ptr_nonnull(strstr(xml, "<node name=\"_30000_3a00_3a02_2e0\"/>"));
	ck_assert_ptr_nonnull(strstr(xml, "<node name=\"_30000_3a03_3a00_2e0\"/>"));
	sd_bus_message_unref(reply);

	/* an unknown slot, and a known one spelled other than canonically */
	call(&e, "/org/pcierr1/device/_30000_3a09_3a00_2e0",
	     "org.freedesktop.DBus.Properties", "Get", "ss",
	     PCIERR_BUS_DEVICE_IFACE, "Address");
	ck_assert(sd_bus_error_is_set(&e));
	sd_bus_error_free(&e);
	call(&e, "/org/pcierr1/slot/_300_3a02_2e0",
	     "org.freedesktop.DBus.Properties", "Get", "ss",
	     PCIERR_BUS_SLOT_IFACE, "Address");
	ck_assert(sd_bus_error_is_set(&e));
	sd_bus_error_free(&e);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Objects and properties                                              */
/* ------------------------------------------------------------------ */

START_TEST(test_managed_objects)
{
	static const struct {
		const char *path, *iface, *address;
	} expected[] = {
		{ PATH_SLOT_A, PCIERR_BUS_SLOT_IFACE, SLOT_A },
		{ PATH_SLOT_B, PCIERR_BUS_SLOT_IFACE, SLOT_B },
		{ PATH_DEV_A0, PCIERR_BUS_DEVICE_IFACE, DEV_A0 },
		{ PATH_DEV_A1, PCIERR_BUS_DEVICE_IFACE, DEV_A1 },
		{ PATH_DEV_B0, PCIERR_BUS_DEVICE_IFACE, DEV_B0 },
	};
	bool seen[N_OF(expected)] = {};
	sd_bus_message *reply;
	const char *path;
	int r;

	reply = call(NULL, PCIERR_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
		     "GetManagedObjects", NULL);
	ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}"), 0);
	while ((r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
		size_t idx = N_OF(expected);
		const char *iface;

		ck_assert_int_gt(sd_bus_message_read(reply, "o", &path), 0);
		for (size_t i = 0; i < N_OF(expected); i++)
			if (strcmp(expected[i].path, path) == 0)
				idx = i;
		ck_assert_msg(idx < N_OF(expected), "unexpected object %s", path);
		ck_assert_msg(!seen[idx], "%s twice", path);
		seen[idx] = true;

		ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', "{sa{sv}}"), 0);
		while ((r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
			bool has_address = false;
			unsigned n_props = 0;

			ck_assert_int_gt(sd_bus_message_read(reply, "s", &iface), 0);
			if (strncmp(iface, "org.pcierr1.", 12) != 0) {
				/* Peer, Introspectable, Properties */
				ck_assert_int_ge(sd_bus_message_skip(reply, "a{sv}"), 0);
				ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
				continue;
			}
			ck_assert_str_eq(iface, expected[idx].iface);
			ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', "{sv}"), 0);
			while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
				const char *name, *addr;

				ck_assert_int_gt(sd_bus_message_read(reply, "s", &name), 0);
				n_props++;
				if (strcmp(name, "Address") == 0) {
					ck_assert_int_gt(sd_bus_message_read(reply, "v", "s", &addr), 0);
					ck_assert_str_eq(addr, expected[idx].address);
					has_address = true;
				} else
					ck_assert_int_ge(sd_bus_message_skip(reply, "v"), 0);
				ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
			}
			ck_assert_int_eq(r, 0);
			ck_assert(has_address);
			ck_assert_uint_eq(n_props,
					  strcmp(iface, PCIERR_BUS_SLOT_IFACE) == 0 ? 12 : 20);
			ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
			ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
		}
		ck_assert_int_eq(r, 0);
		ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
		ck_assert_int_ge(sd_bus_message_exit_container(reply), 0);
	}
	ck_assert_int_eq(r, 0);
	for (size_t i = 0; i < N_OF(expected); i++)
		ck_assert_msg(seen[i], "%s missing", expected[i].path);
	sd_bus_message_unref(reply);
}
END_TEST

#define MGR	PCIERR_BUS_PATH, PCIERR_BUS_MANAGER_IFACE
#define SLOT(p)	p, PCIERR_BUS_SLOT_IFACE
#define DEV(p)	p, PCIERR_BUS_DEVICE_IFACE

START_TEST(test_manager_properties)
{
	assert_string_prop(MGR, "Version", "s", PCIERR_VERSION_EXPECTED);
	ck_assert_uint_eq(get_number(MGR, "MaxFreezes", 'u'), 5);
	ck_assert_uint_eq(get_number(MGR, "FreezeWindowUSec", 't'), 3600 * SEC);
	ck_assert_uint_eq(get_number(MGR, "MaxWaitUSec", 't'), 20 * SEC);
	ck_assert_uint_eq(get_number(MGR, "StepTimeoutUSec", 't'), 30 * SEC);
	ck_assert_uint_eq(get_number(MGR, "KernelConnected", 'b'), 1);
	ck_assert_uint_eq(get_number(MGR, "EventsReceived", 't'), 42);
	ck_assert_uint_eq(get_number(MGR, "EventsLost", 't'), 0);
	ck_assert_uint_eq(get_number(MGR, "Resyncs", 't'), 3);
	mgr.kernel_connected = false;
	mgr.counters.permanent_disables = 1ULL << 40;
	ck_assert_uint_eq(get_number(MGR, "KernelConnected", 'b'), 0);
	ck_assert_uint_eq(get_number(MGR, "PermanentDisables", 't'), 1ULL << 40);
}
END_TEST

START_TEST(test_slot_properties)
{
	assert_string_prop(SLOT(PATH_SLOT_A), "Address", "s", SLOT_A);
	assert_array_prop(SLOT(PATH_SLOT_A), "ResetTypes", 's', "hot,fundamental");
	assert_string_prop(SLOT(PATH_SLOT_A), "State", "s", "frozen");
	assert_string_prop(SLOT(PATH_SLOT_A), "Step", "s",
			   pcierr_recovery_phase_to_string(PCIERR_PHASE_ERROR_DETECTED));
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_A), "Stuck", 'b'), 1);
	assert_array_prop(SLOT(PATH_SLOT_A), "Devices", 'o', PATH_DEV_A0 "," PATH_DEV_A1);
	assert_string_prop(SLOT(PATH_SLOT_A), "LastResult", "s", "recovered");
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_A), "LastDurationUSec", 't'), 1234567);
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_A), "LastRecoveryUSec", 't'),
			  T0 - 3600 * SEC);
	assert_string_prop(SLOT(PATH_SLOT_A), "LastMessage", "s", "recovered by a hot reset");
	assert_string_prop(SLOT(PATH_SLOT_A), "Backend", "s", "pseries-rtas");
	assert_string_prop(SLOT(PATH_SLOT_B), "Backend", "s", "");
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_A), "Disabled", 'b'), 0);

	assert_array_prop(SLOT(PATH_SLOT_B), "ResetTypes", 's', "hot");
	assert_string_prop(SLOT(PATH_SLOT_B), "State", "s", "disabled");
	assert_string_prop(SLOT(PATH_SLOT_B), "Step", "s", "idle");
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_B), "Stuck", 'b'), 0);
	assert_array_prop(SLOT(PATH_SLOT_B), "Devices", 'o', PATH_DEV_B0);
	assert_string_prop(SLOT(PATH_SLOT_B), "LastResult", "s", "");
	ck_assert_uint_eq(get_number(SLOT(PATH_SLOT_B), "Disabled", 'b'), 1);
}
END_TEST

START_TEST(test_device_properties)
{
	assert_string_prop(DEV(PATH_DEV_A0), "Address", "s", DEV_A0);
	assert_string_prop(DEV(PATH_DEV_A0), "Slot", "o", PATH_SLOT_A);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "VendorId", 'q'), 0x8086);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "DeviceId", 'q'), 0x10d3);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "SubsystemVendorId", 'q'), 0x8086);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "SubsystemId", 'q'), 0xa01f);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "Class", 'u'), 0x020000);
	assert_string_prop(DEV(PATH_DEV_A0), "VendorName", "s", "Intel Corporation");
	assert_string_prop(DEV(PATH_DEV_A0), "DeviceName", "s",
			   "82574L Gigabit Network Connection");
	assert_string_prop(DEV(PATH_DEV_A0), "Identity", "s",
			   "8086:10d3:8086:a01f:dsn:0011223344556677");
	assert_string_prop(DEV(PATH_DEV_A0), "Driver", "s", "e1000e");
	assert_array_prop(DEV(PATH_DEV_A0), "Handlers", 's',
			  "error_detected,slot_reset,resume");
	assert_string_prop(DEV(PATH_DEV_A0), "State", "s", "frozen");
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "ErrorGeneration", 'u'), 7);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "FreezeCount", 'u'), 3);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "MaxFreezes", 'u'), 5);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "LastErrorUSec", 't'), T0 - 10 * SEC);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A0), "Disabled", 'b'), 0);
	assert_string_prop(DEV(PATH_DEV_A0), "DisabledReason", "s", "");

	/* no driver, no names; the window is over; an override */
	assert_string_prop(DEV(PATH_DEV_A1), "Slot", "o", PATH_SLOT_A);
	assert_string_prop(DEV(PATH_DEV_A1), "Driver", "s", "");
	assert_array_prop(DEV(PATH_DEV_A1), "Handlers", 's', "");
	assert_string_prop(DEV(PATH_DEV_A1), "VendorName", "s", "");
	assert_string_prop(DEV(PATH_DEV_A1), "State", "s", "normal");
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A1), "FreezeCount", 'u'), 0);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A1), "MaxFreezes", 'u'), 2);
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_A1), "LastErrorUSec", 't'), 0);

	/* disabled; exactly at the window's end still counts; a clock gone
	 * backwards too */
	assert_string_prop(DEV(PATH_DEV_B0), "Slot", "o", PATH_SLOT_B);
	assert_string_prop(DEV(PATH_DEV_B0), "State", "s", "perm_failure");
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_B0), "Disabled", 'b'), 1);
	assert_string_prop(DEV(PATH_DEV_B0), "DisabledReason", "s",
			   "too many freezes: please reseat or replace the card");
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_B0), "FreezeCount", 'u'), 6);
	fake_now = T0 + 1;
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_B0), "FreezeCount", 'u'), 0);
	fake_now = T0 - 7200 * SEC;
	ck_assert_uint_eq(get_number(DEV(PATH_DEV_B0), "FreezeCount", 'u'), 6);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Methods                                                             */
/* ------------------------------------------------------------------ */

START_TEST(test_privilege)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;

	/* over the bus: we are not the privileged one */
	bus_privileged_uid = geteuid() + 1;
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, SD_BUS_ERROR_ACCESS_DENIED, "Only root may inject errors.");
	call_manager(&e, "Reset", "ss", DEV_A0, "");
	assert_error(&e, SD_BUS_ERROR_ACCESS_DENIED, "Only root may reset slots.");
	call_manager(&e, "Enable", "s", SLOT_B);
	assert_error(&e, SD_BUS_ERROR_ACCESS_DENIED, "Only root may enable slots.");
	call_manager(&e, "ClearFreezeCount", "s", DEV_A0);
	assert_error(&e, SD_BUS_ERROR_ACCESS_DENIED, "Only root may clear freeze counts.");
	/*
	 * the arguments are checked first (review U10): a malformed call is
	 * refused as such, without asking anyone for a password
	 */
	call_manager(&e, "Inject", "ssu", "zz:00.0", "", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, NULL);
	call_manager(&e, "Reset", "ss", DEV_A0, "cold");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid reset type");
	call_manager(&e, "Enable", "s", "0000:zz");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, NULL);
	ck_assert_int_eq(fake.calls, 0);

	/* reading is for everyone */
	sd_bus_message_unref(call_manager(NULL, "GetDevice", "s", DEV_A0));
	sd_bus_message_unref(call_manager(NULL, "GetSlot", "s", DEV_A0));
	sd_bus_message_unref(call_manager(NULL, "GetHistory", "tsu", (uint64_t)0, "", 0));

	/* and now we are */
	bus_privileged_uid = geteuid();
	sd_bus_message_unref(call_manager(NULL, "Inject", "ssu", DEV_A0, "", 0));
	ck_assert_int_eq(fake.calls, 1);
}
END_TEST

/* bus_quote(): what an error message quotes of a caller's string */
static const struct {
	const char *in;
	const char *want;
} quote_cases[] = {
	{ NULL, "" },
	{ "", "" },
	{ "01:00.0", "01:00.0" },
	/* 64 bytes: whole */
	{ "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" },
	/* 65: cut to 64 */
	{ "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefX",
	  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef..." },
	/* a 2-byte character across byte 64: cut before it */
	{ "x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	  "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9",
	  "x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
	  "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9..." },
	/* 4-byte characters, 62 ASCII bytes first: the one at 62..65 goes */
	{ "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd\U0001F600\U0001F600",
	  "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd..." },
};

START_TEST(test_quote)
{
	char buf[BUS_QUOTE_BYTES + 4];
	const char *q;

	memset(buf, 'Z', sizeof(buf));
	q = bus_quote(quote_cases[_i].in, buf);
	ck_assert_str_eq(q, quote_cases[_i].want);
	ck_assert_uint_le(strlen(q), BUS_QUOTE_BYTES + 3);
}
END_TEST

/* A 1 MiB argument is refused with an error that quotes 64 bytes of it */
START_TEST(test_long_arguments_quoted)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	const size_t len = 1024 * 1024;
	_cleanup_free_ char *big = malloc(len + 1);
	char want[BUS_QUOTE_BYTES + 8];

	ck_assert_ptr_nonnull(big);
	memset(big, 'a', len);
	big[len] = '\0';
	snprintf(want, sizeof(want), "'%.*s...'", BUS_QUOTE_BYTES, big);

	call_manager(&e, "Inject", "ssu", big, "", 0);
	ck_assert_msg(e.message && strlen(e.message) < 200, "Inject: a message of %zu bytes",
		      e.message ? strlen(e.message) : 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, want);
	call_manager(&e, "Inject", "ssu", DEV_A0, big, 0);
	ck_assert_msg(e.message && strlen(e.message) < 200, "Inject state: a message of %zu bytes",
		      e.message ? strlen(e.message) : 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, want);
	call_manager(&e, "Reset", "ss", DEV_A0, big);
	ck_assert_msg(e.message && strlen(e.message) < 200, "Reset type: a message of %zu bytes",
		      e.message ? strlen(e.message) : 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, want);
	call_manager(&e, "GetDevice", "s", big);
	ck_assert_msg(e.message && strlen(e.message) < 200, "GetDevice: a message of %zu bytes",
		      e.message ? strlen(e.message) : 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, want);
	/* cut inside a character: the error still crosses the bus */
	memset(big, 0, 8);
	strcpy(big, "x");
	for (int i = 0; i < 40; i++)
		strcat(big, "\u00e9");
	call_manager(&e, "Inject", "ssu", big, "", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "'x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
		     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
		     "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9...'");
	ck_assert_int_eq(fake.calls, 0);
}
END_TEST

START_TEST(test_inject)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply;
	uint64_t seq;

	bus_privileged_uid = geteuid();

	fake.seq = 77;
	reply = call_manager(NULL, "Inject", "ssu", "01:00.0", "", 0);
	ck_assert_int_gt(sd_bus_message_read(reply, "t", &seq), 0);
	ck_assert_uint_eq(seq, 77);
	sd_bus_message_unref(reply);
	ck_assert_int_eq(fake.call, FAKE_INJECT);
	ck_assert_str_eq(fake.addr, DEV_A0);
	ck_assert_int_eq(fake.state, PCIERR_STATE_FROZEN);
	ck_assert_uint_eq(fake.ms, 0);

	sd_bus_message_unref(call_manager(NULL, "Inject", "ssu", "0000:0A:1F.7",
					  "perm_failure", 5000));
	ck_assert_str_eq(fake.addr, "0000:0a:1f.7");
	ck_assert_int_eq(fake.state, PCIERR_STATE_PERM_FAILURE);
	ck_assert_uint_eq(fake.ms, 5000);
	sd_bus_message_unref(call_manager(NULL, "Inject", "ssu", DEV_A1, "frozen", 1));
	ck_assert_int_eq(fake.state, PCIERR_STATE_FROZEN);
	ck_assert_int_eq(fake.calls, 3);

	/* bad input never reaches the manager */
	call_manager(&e, "Inject", "ssu", "zz:00.0", "", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS,
		     "Invalid PCI address 'zz:00.0': expected DDDD:BB:DD.F or BB:DD.F");
	call_manager(&e, "Inject", "ssu", "", "", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid PCI address ''");
	call_manager(&e, "Inject", "ssu", " 01:00.0", "", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "' 01:00.0'");
	call_manager(&e, "Inject", "ssu", DEV_A0, "melted", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS,
		     "Invalid state 'melted': expected 'frozen' or 'perm_failure'");
	call_manager(&e, "Inject", "ssu", DEV_A0, "normal", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "'normal'");
	ck_assert_int_eq(fake.calls, 3);

	/* the manager's errors */
	fake.ret = -ENODEV;
	fake.msg = "No PCI device '0000:09:00.0'";
	call_manager(&e, "Inject", "ssu", "09:00.0", "", 0);
	assert_error(&e, PCIERR_BUS_ERROR_NO_SUCH_DEVICE, "No PCI device '0000:09:00.0'");
	ck_assert_str_eq(fake.addr, "0000:09:00.0");
	fake.ret = -EBUSY;
	fake.msg = "0000:00:02.0 is recovering";
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, PCIERR_BUS_ERROR_BUSY, "0000:00:02.0 is recovering");
	fake.ret = -ENOTCONN;
	fake.msg = NULL;
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, PCIERR_BUS_ERROR_KERNEL, "pcierr_shim");
	fake.ret = -EPERM;
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, SD_BUS_ERROR_ACCESS_DENIED, NULL);
	fake.ret = -EIO;
	fake.msg = "the kernel said no";
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, PCIERR_BUS_ERROR_FAILED, "the kernel said no");
	fake.msg = NULL;
	call_manager(&e, "Inject", "ssu", DEV_A0, "", 0);
	assert_error(&e, PCIERR_BUS_ERROR_FAILED, strerror(EIO));
}
END_TEST

START_TEST(test_reset_enable_clear)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply;
	uint64_t id = 0;

	bus_privileged_uid = geteuid();

	/* U9: Reset returns the id its recovery's signals carry */
	reply = call_manager(NULL, "Reset", "ss", "00:02.0", "");
	ck_assert_int_gt(sd_bus_message_read(reply, "t", &id), 0);
	ck_assert_uint_eq(id, 4711);
	sd_bus_message_unref(reply);
	ck_assert_int_eq(fake.call, FAKE_RESET);
	ck_assert_str_eq(fake.addr, SLOT_A);
	ck_assert_int_eq(fake.type, PCIERR_RESET_HOT);
	sd_bus_message_unref(call_manager(NULL, "Reset", "ss", DEV_A1, "fundamental"));
	ck_assert_str_eq(fake.addr, DEV_A1);
	ck_assert_int_eq(fake.type, PCIERR_RESET_FUNDAMENTAL);
	sd_bus_message_unref(call_manager(NULL, "Reset", "ss", DEV_A1, "hot"));
	ck_assert_int_eq(fake.type, PCIERR_RESET_HOT);
	ck_assert_int_eq(fake.calls, 3);

	call_manager(&e, "Reset", "ss", DEV_A1, "warm");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS,
		     "Invalid reset type 'warm': expected 'hot' or 'fundamental'");
	call_manager(&e, "Reset", "ss", "00:02", "");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid PCI address '00:02'");
	ck_assert_int_eq(fake.calls, 3);
	fake.ret = -EOPNOTSUPP;
	fake.msg = "0000:03:00.0 has no fundamental reset";
	call_manager(&e, "Reset", "ss", SLOT_B, "fundamental");
	assert_error(&e, PCIERR_BUS_ERROR_NOT_SUPPORTED, "0000:03:00.0 has no fundamental reset");
	fake.ret = 0;

	sd_bus_message_unref(call_manager(NULL, "Enable", "s", "0000:03:00.0"));
	ck_assert_int_eq(fake.call, FAKE_ENABLE);
	ck_assert_str_eq(fake.addr, SLOT_B);
	call_manager(&e, "Enable", "s", "0000:03:00.0.1");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "'0000:03:00.0.1'");
	/* a state conflict is a domain error (U9), not InvalidArgs */
	fake.ret = -EALREADY;
	fake.msg = "0000:00:02.0 is not disabled";
	call_manager(&e, "Enable", "s", SLOT_A);
	assert_error(&e, PCIERR_BUS_ERROR_NOT_DISABLED, "0000:00:02.0 is not disabled");
	fake.ret = -EHOSTDOWN;
	fake.msg = NULL;
	call_manager(&e, "Reset", "ss", SLOT_A, "hot");
	assert_error(&e, PCIERR_BUS_ERROR_DISABLED, "is permanently disabled");
	fake.ret = -ENOMEDIUM;
	call_manager(&e, "Reset", "ss", SLOT_A, "hot");
	assert_error(&e, PCIERR_BUS_ERROR_SLOT_EMPTY, "holds no device");
	fake.ret = 0;

	sd_bus_message_unref(call_manager(NULL, "ClearFreezeCount", "s", "03:00.0"));
	ck_assert_int_eq(fake.call, FAKE_CLEAR);
	ck_assert_str_eq(fake.addr, DEV_B0);
	call_manager(&e, "ClearFreezeCount", "s", "03:00.8");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "'03:00.8'");
	fake.ret = -ENODEV;
	fake.msg = NULL;
	call_manager(&e, "ClearFreezeCount", "s", "07:00.0");
	assert_error(&e, PCIERR_BUS_ERROR_NO_SUCH_DEVICE, "No PCI device or slot '0000:07:00.0'");
}
END_TEST

static char *reply_path(sd_bus_message *reply)
{
	const char *p;
	char *ret;

	ck_assert_int_gt(sd_bus_message_read(reply, "o", &p), 0);
	ret = strdup(p);
	ck_assert_ptr_nonnull(ret);
	sd_bus_message_unref(reply);
	return ret;
}

#define assert_get(method, addr, expected)				\
	do {								\
		char *_p = reply_path(call_manager(NULL, method, "s", addr)); \
		ck_assert_str_eq(_p, expected);				\
		free(_p);						\
	} while (0)

START_TEST(test_get_device_slot)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;

	assert_get("GetDevice", DEV_A0, PATH_DEV_A0);
	assert_get("GetDevice", "01:00.1", PATH_DEV_A1);
	assert_get("GetDevice", "0000:03:00.0", PATH_DEV_B0);
	assert_get("GetSlot", "0000:00:02.0", PATH_SLOT_A);
	assert_get("GetSlot", "01:00.1", PATH_SLOT_A);
	assert_get("GetSlot", DEV_B0, PATH_SLOT_B);

	call_manager(&e, "GetDevice", "s", "09:00.0");
	assert_error(&e, PCIERR_BUS_ERROR_NO_SUCH_DEVICE, "No PCI device '0000:09:00.0'");
	/* a slot's bridge is no device of it */
	call_manager(&e, "GetDevice", "s", SLOT_A);
	assert_error(&e, PCIERR_BUS_ERROR_NO_SUCH_DEVICE, "No PCI device '0000:00:02.0'");
	call_manager(&e, "GetDevice", "s", "0000:01:00.0x");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid PCI address '0000:01:00.0x'");
	call_manager(&e, "GetSlot", "s", "0000:09:00.0");
	assert_error(&e, PCIERR_BUS_ERROR_NO_SUCH_DEVICE, "No PCI slot or device '0000:09:00.0'");
	call_manager(&e, "GetSlot", "s", "slot");
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid PCI address 'slot'");
	ck_assert_int_eq(fake.calls, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* History                                                             */
/* ------------------------------------------------------------------ */

static void add_history(pcierr_usec_t t, const char *pe, const char *device,
			enum pcierr_history_kind kind, const char *step,
			const char *result, int error, const char *message)
{
	struct pcierr_history_entry e = {
		.time_usec = t, .pe = pe, .device = device, .kind = kind,
		.step = step, .result = result, .error = error,
		.message = message, .duration_usec = t - T0 + 5,
		.results = result ? DEV_A0 "=recovered" : NULL,
	};

	ck_assert_int_eq(pcierr_state_append_history(mgr.state, &e, NULL), 0);
}

/* GetHistory as "time:slot:device:kind" joined by ' ' */
static void assert_history(uint64_t since, const char *addr, uint32_t limit,
			   const char *expected)
{
	sd_bus_message *reply = call_manager(NULL, "GetHistory", "tsu", since, addr, limit);
	char buf[2048] = "";
	int r;

	ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', "(tsssssstis)"), 0);
	for (;;) {
		const char *pe, *dev, *kind, *step, *result, *results, *message;
		uint64_t t, duration;
		int32_t error;
		char one[256];

		r = sd_bus_message_read(reply, "(tsssssstis)", &t, &pe, &dev, &kind,
					&step, &result, &results, &duration, &error,
					&message);
		ck_assert_int_ge(r, 0);
		if (r == 0)
			break;
		ck_assert_uint_eq(duration, t - T0 + 5);
		snprintf(one, sizeof(one), "%s%u:%s:%s:%s", buf[0] ? " " : "",
			 (unsigned)((t - T0) / SEC), pe, dev, kind);
		strcat(buf, one);
	}
	ck_assert_str_eq(buf, expected);
	sd_bus_message_unref(reply);
}

START_TEST(test_history)
{
	char db[128];
	sd_bus_message *reply;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	const char *pe, *dev, *kind, *step, *result, *results, *message;
	uint64_t t, duration;
	int32_t error;

	/* no state store: nothing */
	assert_history(0, "", 0, "");
	assert_history(0, DEV_A0, 3, "");

	snprintf(db, sizeof(db), "%s/state.db", tmpdir);
	ck_assert_int_eq(pcierr_state_open(db, &mgr.state), 0);
	add_history(T0 + 1 * SEC, SLOT_A, DEV_A0, PCIERR_HISTORY_EVENT, NULL, NULL, 0, "frozen");
	add_history(T0 + 2 * SEC, SLOT_A, NULL, PCIERR_HISTORY_STEP, "error_detected",
		    "need_reset", 0, NULL);
	add_history(T0 + 3 * SEC, SLOT_B, DEV_B0, PCIERR_HISTORY_EVENT, NULL, NULL, 0, NULL);
	add_history(T0 + 4 * SEC, SLOT_A, DEV_A1, PCIERR_HISTORY_STEP, "reset", "ok", 0, NULL);
	add_history(T0 + 5 * SEC, SLOT_B, NULL, PCIERR_HISTORY_DISABLE, NULL, "disabled",
		    -EIO, "reseat it");
	add_history(T0 + 6 * SEC, SLOT_A, NULL, PCIERR_HISTORY_RECOVERY, NULL, "recovered",
		    0, "all good");

	assert_history(0, "", 0,
		       "1:" SLOT_A ":" DEV_A0 ":event 2:" SLOT_A "::step "
		       "3:" SLOT_B ":" DEV_B0 ":event 4:" SLOT_A ":" DEV_A1 ":step "
		       "5:" SLOT_B "::disable 6:" SLOT_A "::recovery");
	assert_history(0, "", 2, "5:" SLOT_B "::disable 6:" SLOT_A "::recovery");
	assert_history(T0 + 4 * SEC, "", 0,
		       "4:" SLOT_A ":" DEV_A1 ":step 5:" SLOT_B "::disable "
		       "6:" SLOT_A "::recovery");
	/* a slot: its entries */
	assert_history(0, "00:02.0", 0,
		       "1:" SLOT_A ":" DEV_A0 ":event 2:" SLOT_A "::step "
		       "4:" SLOT_A ":" DEV_A1 ":step 6:" SLOT_A "::recovery");
	/* a device: its own */
	assert_history(0, "0000:01:00.1", 0, "4:" SLOT_A ":" DEV_A1 ":step");
	/* a slot that is also its device: each entry once */
	assert_history(0, SLOT_B, 0, "3:" SLOT_B ":" DEV_B0 ":event 5:" SLOT_B "::disable");
	assert_history(0, SLOT_B, 1, "5:" SLOT_B "::disable");
	assert_history(T0 + 4 * SEC, SLOT_A, 1, "6:" SLOT_A "::recovery");
	assert_history(0, "0000:0f:00.0", 0, "");

	call_manager(&e, "GetHistory", "tsu", (uint64_t)0, "nope", 0);
	assert_error(&e, SD_BUS_ERROR_INVALID_ARGS, "Invalid PCI address 'nope'");

	/* every field of one entry */
	reply = call_manager(NULL, "GetHistory", "tsu", T0 + 5 * SEC, SLOT_B, 0);
	ck_assert_int_gt(sd_bus_message_enter_container(reply, 'a', "(tsssssstis)"), 0);
	ck_assert_int_gt(sd_bus_message_read(reply, "(tsssssstis)", &t, &pe, &dev, &kind,
					     &step, &result, &results, &duration,
					     &error, &message), 0);
	ck_assert_uint_eq(t, T0 + 5 * SEC);
	ck_assert_str_eq(pe, SLOT_B);
	ck_assert_str_eq(dev, "");
	ck_assert_str_eq(kind, "disable");
	ck_assert_str_eq(step, "");
	ck_assert_str_eq(result, "disabled");
	ck_assert_str_eq(results, DEV_A0 "=recovered");
	ck_assert_uint_eq(duration, 5 * SEC + 5);
	ck_assert_int_eq(error, -EIO);
	ck_assert_str_eq(message, "reseat it");
	ck_assert_int_eq(sd_bus_message_read(reply, "(tsssssstis)", &t, &pe, &dev, &kind,
					     &step, &result, &results, &duration,
					     &error, &message), 0);
	sd_bus_message_unref(reply);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Signals                                                             */
/* ------------------------------------------------------------------ */

/* a PropertiesChanged's changed names joined by ',' (values skipped) */
static void assert_properties_changed(sd_bus_message *m, const char *iface,
				      const char *names)
{
	char buf[1024] = "";
	const char *s;
	int r;

	ck_assert_int_gt(sd_bus_message_read(m, "s", &s), 0);
	ck_assert_str_eq(s, iface);
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'a', "{sv}"), 0);
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		ck_assert_int_gt(sd_bus_message_read(m, "s", &s), 0);
		if (buf[0])
			strcat(buf, ",");
		strcat(buf, s);
		if (strcmp(s, "State") == 0 && strcmp(iface, PCIERR_BUS_SLOT_IFACE) == 0) {
			const char *v;

			ck_assert_int_gt(sd_bus_message_read(m, "v", "s", &v), 0);
			ck_assert_str_eq(v, "reset");
		} else
			ck_assert_int_ge(sd_bus_message_skip(m, "v"), 0);
		ck_assert_int_ge(sd_bus_message_exit_container(m), 0);
	}
	ck_assert_int_eq(r, 0);
	ck_assert_int_ge(sd_bus_message_exit_container(m), 0);
	ck_assert_str_eq(buf, names);
	/* nothing invalidated */
	ck_assert_int_ge(sd_bus_message_enter_container(m, 'a', "s"), 0);
	ck_assert_int_eq(sd_bus_message_read(m, "s", &s), 0);
}

START_TEST(test_properties_changed)
{
	sd_bus_message *m;

	watch_signals();

	slot_a.state = PCIERR_PE_STATE_RESET;
	ck_assert_int_ge(bus_slot_changed(&slot_a), 0);
	m = next_signal(PATH_SLOT_A, "org.freedesktop.DBus.Properties", "PropertiesChanged");
	assert_properties_changed(m, PCIERR_BUS_SLOT_IFACE,
				  "ResetTypes,State,Step,Stuck,Devices,LastResult,LastDurationUSec,"
				  "LastRecoveryUSec,LastMessage,Disabled,Backend");

	/* a slot whose path the bus layer derives */
	slot_b.state = PCIERR_PE_STATE_RESET;
	ck_assert_int_ge(bus_slot_changed(&slot_b), 0);
	m = next_signal(PATH_SLOT_B, "org.freedesktop.DBus.Properties", "PropertiesChanged");
	assert_properties_changed(m, PCIERR_BUS_SLOT_IFACE,
				  "ResetTypes,State,Step,Stuck,Devices,LastResult,LastDurationUSec,"
				  "LastRecoveryUSec,LastMessage,Disabled,Backend");

	ck_assert_int_ge(bus_device_changed(&dev_a1), 0);
	m = next_signal(PATH_DEV_A1, "org.freedesktop.DBus.Properties", "PropertiesChanged");
	assert_properties_changed(m, PCIERR_BUS_DEVICE_IFACE,
				  "Driver,Handlers,State,ErrorGeneration,"
				  "MaxFreezes,LastErrorUSec,NonFatalErrors,Disabled,DisabledReason");

	ck_assert_int_ge(bus_manager_changed(&mgr), 0);
	m = next_signal(PCIERR_BUS_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged");
	assert_properties_changed(m, PCIERR_BUS_MANAGER_IFACE,
				  "KernelConnected,EventsReceived,EventsLost,"
				  "RecoveriesStarted,RecoveriesSucceeded,RecoveriesFailed,"
				  "HotplugFallbacks,PermanentDisables,Resyncs,"
				  "EventsFolded,ResyncFailed");
}
END_TEST

START_TEST(test_interfaces_added_removed)
{
	static struct device dev_new;
	static struct device *devs[3];
	sd_bus_message *m;
	const char *path, *iface, *name, *addr;

	watch_signals();

	/* a device comes (hotplug): it is in the slot, then announced */
	dev_new = dev_a1;
	snprintf(dev_new.addr, sizeof(dev_new.addr), "0000:01:00.2");
	devs[0] = &dev_a0;
	devs[1] = &dev_a1;
	devs[2] = &dev_new;
	slot_a.devices = devs;
	slot_a.n_devices = 3;
	ck_assert_int_ge(bus_device_added(&dev_new), 0);
	m = next_signal(PCIERR_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
			"InterfacesAdded");
	ck_assert_int_gt(sd_bus_message_read(m, "o", &path), 0);
	ck_assert_str_eq(path, "/org/pcierr1/device/_30000_3a01_3a00_2e2");
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'a', "{sa{sv}}"), 0);
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'e', "sa{sv}"), 0);
	ck_assert_int_gt(sd_bus_message_read(m, "s", &iface), 0);
	ck_assert_str_eq(iface, PCIERR_BUS_DEVICE_IFACE);
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'a', "{sv}"), 0);
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'e', "sv"), 0);
	ck_assert_int_gt(sd_bus_message_read(m, "s", &name), 0);
	ck_assert_str_eq(name, "Address");
	ck_assert_int_gt(sd_bus_message_read(m, "v", "s", &addr), 0);
	ck_assert_str_eq(addr, "0000:01:00.2");
	assert_get("GetDevice", "01:00.2", "/org/pcierr1/device/_30000_3a01_3a00_2e2");

	/* ... and goes */
	slot_a.n_devices = 2;
	ck_assert_int_ge(bus_device_removed(&dev_new), 0);
	m = next_signal(PCIERR_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
			"InterfacesRemoved");
	ck_assert_int_gt(sd_bus_message_read(m, "o", &path), 0);
	ck_assert_str_eq(path, "/org/pcierr1/device/_30000_3a01_3a00_2e2");
	ck_assert_int_gt(sd_bus_message_enter_container(m, 'a', "s"), 0);
	ck_assert_int_gt(sd_bus_message_read(m, "s", &iface), 0);
	ck_assert_str_eq(iface, PCIERR_BUS_DEVICE_IFACE);
	ck_assert_int_eq(sd_bus_message_read(m, "s", &iface), 0);

	ck_assert_int_ge(bus_slot_added(&slot_b), 0);
	m = next_signal(PCIERR_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
			"InterfacesAdded");
	ck_assert_int_gt(sd_bus_message_read(m, "o", &path), 0);
	ck_assert_str_eq(path, PATH_SLOT_B);
	ck_assert_int_ge(bus_slot_removed(&slot_b), 0);
	m = next_signal(PCIERR_BUS_PATH, "org.freedesktop.DBus.ObjectManager",
			"InterfacesRemoved");
	ck_assert_int_gt(sd_bus_message_read(m, "o", &path), 0);
	ck_assert_str_eq(path, PATH_SLOT_B);
}
END_TEST

START_TEST(test_manager_signals)
{
	sd_bus_message *m;
	const char *a, *b, *c, *d, *o;
	uint32_t u;
	uint64_t t, id;

	watch_signals();

	ck_assert_int_ge(bus_emit_error_detected(&mgr, SLOT_A, DEV_A0, "frozen", 250,
						 "inject"), 0);
	ck_assert_int_ge(bus_emit_error_detected(&mgr, SLOT_A, NULL, "perm_failure", 0,
						 "aer"), 0);
	ck_assert_int_ge(bus_emit_recovery_started(&mgr, SLOT_A, "partial-hotplug", 7), 0);
	ck_assert_int_ge(bus_emit_recovery_step(&mgr, SLOT_A, "slot_reset", "recovered",
						4242, 7), 0);
	ck_assert_int_ge(bus_emit_recovery_finished(&mgr, SLOT_A, "recovered",
						    UINT64_C(1) << 35, "", 7), 0);
	ck_assert_int_ge(bus_emit_permanently_disabled(&mgr, SLOT_B, DEV_B0,
						       "please reseat"), 0);

	m = next_signal(MGR, "ErrorDetected");
	ck_assert_int_gt(sd_bus_message_read(m, "sssus", &a, &b, &c, &u, &d), 0);
	ck_assert_str_eq(a, SLOT_A);
	ck_assert_str_eq(b, DEV_A0);
	ck_assert_str_eq(c, "frozen");
	ck_assert_uint_eq(u, 250);
	ck_assert_str_eq(d, "inject");

	m = next_signal(MGR, "ErrorDetected");
	ck_assert_int_gt(sd_bus_message_read(m, "sssus", &a, &b, &c, &u, &d), 0);
	ck_assert_str_eq(b, "");
	ck_assert_str_eq(c, "perm_failure");
	ck_assert_uint_eq(u, 0);
	ck_assert_str_eq(d, "aer");

	/* U9: each Recovery* signal ends with the recovery's id and the
	 * slot's object path */
	m = next_signal(MGR, "RecoveryStarted");
	ck_assert_int_gt(sd_bus_message_read(m, "ssto", &a, &b, &id, &o), 0);
	ck_assert_str_eq(a, SLOT_A);
	ck_assert_str_eq(b, "partial-hotplug");
	ck_assert_uint_eq(id, 7);
	ck_assert_str_eq(o, PATH_SLOT_A);

	m = next_signal(MGR, "RecoveryStep");
	ck_assert_int_gt(sd_bus_message_read(m, "ssstto", &a, &b, &c, &t, &id, &o), 0);
	ck_assert_str_eq(a, SLOT_A);
	ck_assert_str_eq(b, "slot_reset");
	ck_assert_str_eq(c, "recovered");
	ck_assert_uint_eq(t, 4242);
	ck_assert_uint_eq(id, 7);

	m = next_signal(MGR, "RecoveryFinished");
	ck_assert_int_gt(sd_bus_message_read(m, "sststo", &a, &b, &t, &c, &id, &o), 0);
	ck_assert_str_eq(a, SLOT_A);
	ck_assert_str_eq(b, "recovered");
	ck_assert_uint_eq(t, UINT64_C(1) << 35);
	ck_assert_str_eq(c, "");
	ck_assert_uint_eq(id, 7);
	ck_assert_str_eq(o, PATH_SLOT_A);

	m = next_signal(MGR, "PermanentlyDisabled");
	ck_assert_int_gt(sd_bus_message_read(m, "sss", &a, &b, &c), 0);
	ck_assert_str_eq(a, SLOT_B);
	ck_assert_str_eq(b, DEV_B0);
	ck_assert_str_eq(c, "please reseat");
}
END_TEST

/* --no-bus: everything is a no-op */
START_TEST(test_no_bus)
{
	struct manager m = {};
	struct slot s = { .manager = &m };
	struct device d = { .manager = &m, .slot = &s };

	snprintf(s.addr, sizeof(s.addr), SLOT_A);
	snprintf(d.addr, sizeof(d.addr), DEV_A0);
	ck_assert_int_eq(bus_setup(&m), 0);
	ck_assert_int_eq(bus_request_name(&m), 0);
	ck_assert_int_eq(bus_slot_added(&s), 0);
	ck_assert_int_eq(bus_slot_removed(&s), 0);
	ck_assert_int_eq(bus_slot_changed(&s), 0);
	ck_assert_int_eq(bus_device_added(&d), 0);
	ck_assert_int_eq(bus_device_removed(&d), 0);
	ck_assert_int_eq(bus_device_changed(&d), 0);
	ck_assert_int_eq(bus_manager_changed(&m), 0);
	ck_assert_int_eq(bus_emit_error_detected(&m, SLOT_A, DEV_A0, "frozen", 0, "inject"), 0);
	ck_assert_int_eq(bus_emit_recovery_started(&m, SLOT_A, "callbacks", 1), 0);
	ck_assert_int_eq(bus_emit_recovery_step(&m, SLOT_A, "reset", "ok", 1, 1), 0);
	ck_assert_int_eq(bus_emit_recovery_finished(&m, SLOT_A, "recovered", 1, "", 1), 0);
	ck_assert_int_eq(bus_emit_permanently_disabled(&m, SLOT_A, "", "why"), 0);
	for (size_t i = 0; i < N_OF(m.bus_slots); i++)
		ck_assert_ptr_null(m.bus_slots[i]);
}
END_TEST

/* bus_request_name on a bus where the name is taken */
START_TEST(test_name_taken)
{
	struct manager other = { .bus = client };

	ck_assert_int_eq(bus_request_name(&other), -EEXIST);
}
END_TEST

START_TEST(test_paths)
{
	char *p = NULL;

	ck_assert_int_eq(bus_slot_path(SLOT_A, &p), 0);
	ck_assert_str_eq(p, PATH_SLOT_A);
	free(p);
	ck_assert_int_eq(bus_device_path(DEV_A1, &p), 0);
	ck_assert_str_eq(p, PATH_DEV_A1);
	free(p);
	ck_assert_int_eq(bus_slot_path(NULL, &p), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* dbus/org.pcierr1.conf is a valid bus policy                          */
/* ------------------------------------------------------------------ */

START_TEST(test_policy_file)
{
	char extra[PATH_MAX + 64], address[512];
	sd_bus *bus;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cksuite-bus.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(extra, sizeof(extra), "  <include>%s/dbus/org.pcierr1.conf</include>\n",
		 srcdir());
	/* dbus-daemon refuses to start on a config it cannot parse */
	start_dbus_daemon(extra, address, sizeof(address));
	bus = connect_bus(address);
	sd_bus_flush_close_unref(bus);
	stop_dbus_daemon();
	rm_rf(tmpdir);
}
END_TEST

Suite *suite_bus(void)
{
	Suite *s = suite_create("bus");
	TCase *tc;

	tc = tcase_create("objects");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_introspect);
	tcase_add_test(tc, test_introspect_nodes);
	tcase_add_test(tc, test_managed_objects);
	tcase_add_test(tc, test_manager_properties);
	tcase_add_test(tc, test_slot_properties);
	tcase_add_test(tc, test_device_properties);
	suite_add_tcase(s, tc);

	tc = tcase_create("methods");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_privilege);
	tcase_add_test(tc, test_inject);
	tcase_add_loop_test(tc, test_quote, 0, sizeof(quote_cases) / sizeof(quote_cases[0]));
	tcase_add_test(tc, test_long_arguments_quoted);
	tcase_add_test(tc, test_reset_enable_clear);
	tcase_add_test(tc, test_get_device_slot);
	tcase_add_test(tc, test_history);
	suite_add_tcase(s, tc);

	tc = tcase_create("signals");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_properties_changed);
	tcase_add_test(tc, test_interfaces_added_removed);
	tcase_add_test(tc, test_manager_signals);
	tcase_add_test(tc, test_name_taken);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_no_bus);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_policy_file);
	suite_add_tcase(s, tc);

	return s;
}

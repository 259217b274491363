/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The uevent translation (daemon/uevent.c): tables of realistic property
 * sets as the kernel's pci_uevent() / pci_uevent_ers() and the driver core
 * send them, one loop test per row, plus a table of malformed events.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../daemon/pci-names.h"
#include "../../daemon/uevent.h"
#include "cksuites.h"

#define MAXENV	10

#define SLOT(a)		"PCI_SLOT_NAME=" a
#define E1000E_IDS	"PCI_CLASS=20000", "PCI_ID=8086:10D3", \
			"PCI_SUBSYS_ID=8086:A01F"
#define E1000E_ALIAS	"MODALIAS=pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00"

/* ------------------------------------------------------------------ */
/* Well-formed events */

struct good_case {
	const char *name;
	const char *subsystem;
	const char *action;
	const char *sysname;
	const char *env[MAXENV];

	enum pcierr_uevent_type type;
	const char *addr;
	bool has_ids;
	uint16_t vendor, device;
	bool has_subsys;
	uint16_t subvendor, subdevice;
	const char *driver;
	enum pcierr_policy_aer aer;
	bool has_online, online;
};

#define E1000E	.has_ids = true, .vendor = 0x8086, .device = 0x10d3, \
		.has_subsys = true, .subvendor = 0x8086, .subdevice = 0xa01f

static const struct good_case good[] = {
	{ "add", "pci", "add", "0000:01:00.0",
	  { SLOT("0000:01:00.0"), E1000E_IDS, E1000E_ALIAS },
	  PCIERR_UEVENT_ADD, "0000:01:00.0", E1000E, .driver = "" },
	{ "add, upper-case address normalised", "pci", "add", "0000:0A:1F.7",
	  { "PCI_ID=1AF4:1000", "PCI_SUBSYS_ID=1AF4:0001",
	    SLOT("0000:0A:1F.7") },
	  PCIERR_UEVENT_ADD, "0000:0a:1f.7", .has_ids = true,
	  .vendor = 0x1af4, .device = 0x1000, .has_subsys = true,
	  .subvendor = 0x1af4, .subdevice = 0x0001, .driver = "" },
	{ "add, domain 10000 (VMD)", "pci", "add", "10000:e1:00.0",
	  { SLOT("10000:e1:00.0"), "PCI_ID=144d:a808",
	    "PCI_SUBSYS_ID=144d:a801" },
	  PCIERR_UEVENT_ADD, "10000:e1:00.0", .has_ids = true,
	  .vendor = 0x144d, .device = 0xa808, .has_subsys = true,
	  .subvendor = 0x144d, .subdevice = 0xa801, .driver = "" },
	{ "add, no sysname, no subsystem given", NULL, "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=8086:10D3" },
	  PCIERR_UEVENT_ADD, "0000:01:00.0", .has_ids = true,
	  .vendor = 0x8086, .device = 0x10d3, .driver = "" },
	{ "add, no ids", "pci", "add", "0000:01:00.0",
	  { SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_ADD, "0000:01:00.0", .driver = "" },
	{ "remove", "pci", "remove", "0000:01:00.0",
	  { SLOT("0000:01:00.0"), E1000E_IDS, E1000E_ALIAS },
	  PCIERR_UEVENT_REMOVE, "0000:01:00.0", E1000E, .driver = "" },
	{ "remove, driver still bound", "pci", "remove", "0000:01:00.0",
	  { SLOT("0000:01:00.0"), E1000E_IDS, "DRIVER=e1000e" },
	  PCIERR_UEVENT_REMOVE, "0000:01:00.0", E1000E, .driver = "e1000e" },
	{ "bind", "pci", "bind", "0000:01:00.0",
	  { "DRIVER=e1000e", E1000E_IDS, SLOT("0000:01:00.0"), E1000E_ALIAS },
	  PCIERR_UEVENT_BIND, "0000:01:00.0", E1000E, .driver = "e1000e" },
	{ "bind vfio-pci", "pci", "bind", "0000:02:00.1",
	  { "DRIVER=vfio-pci", "PCI_ID=10DE:1EB8", "PCI_SUBSYS_ID=10DE:12A2",
	    SLOT("0000:02:00.1") },
	  PCIERR_UEVENT_BIND, "0000:02:00.1", .has_ids = true,
	  .vendor = 0x10de, .device = 0x1eb8, .has_subsys = true,
	  .subvendor = 0x10de, .subdevice = 0x12a2, .driver = "vfio-pci" },
	{ "unbind (no DRIVER: cleared before the event)", "pci", "unbind",
	  "0000:01:00.0",
	  { SLOT("0000:01:00.0"), E1000E_IDS, E1000E_ALIAS },
	  PCIERR_UEVENT_UNBIND, "0000:01:00.0", E1000E, .driver = "" },
	{ "AER begin", "pci", "change", "0000:01:00.0",
	  { "ERROR_EVENT=BEGIN_RECOVERY", "DEVICE_ONLINE=0", "DRIVER=e1000e",
	    E1000E_IDS, SLOT("0000:01:00.0"), E1000E_ALIAS },
	  PCIERR_UEVENT_AER, "0000:01:00.0", E1000E, .driver = "e1000e",
	  .aer = PCIERR_POLICY_AER_BEGIN, .has_online = true,
	  .online = false },
	{ "AER successful", "pci", "change", "0000:01:00.0",
	  { "ERROR_EVENT=SUCCESSFUL_RECOVERY", "DEVICE_ONLINE=1",
	    "DRIVER=e1000e", E1000E_IDS, SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", E1000E, .driver = "e1000e",
	  .aer = PCIERR_POLICY_AER_SUCCESSFUL, .has_online = true,
	  .online = true },
	{ "AER failed", "pci", "change", "0000:01:00.0",
	  { "ERROR_EVENT=FAILED_RECOVERY", "DEVICE_ONLINE=0",
	    "DRIVER=e1000e", E1000E_IDS, SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", E1000E, .driver = "e1000e",
	  .aer = PCIERR_POLICY_AER_FAILED, .has_online = true,
	  .online = false },
	{ "AER failed, no driver bound", "pci", "change", "0000:01:00.0",
	  { "ERROR_EVENT=FAILED_RECOVERY", "DEVICE_ONLINE=0", E1000E_IDS,
	    SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", E1000E, .driver = "",
	  .aer = PCIERR_POLICY_AER_FAILED, .has_online = true,
	  .online = false },
	{ "AER begin without DEVICE_ONLINE", "pci", "change", "0000:01:00.0",
	  { "ERROR_EVENT=BEGIN_RECOVERY", SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", .driver = "",
	  .aer = PCIERR_POLICY_AER_BEGIN },
	{ "AER, DEVICE_ONLINE not as the kernel pairs it", "pci", "change",
	  "0000:01:00.0",
	  { "ERROR_EVENT=FAILED_RECOVERY", "DEVICE_ONLINE=1",
	    SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", .driver = "",
	  .aer = PCIERR_POLICY_AER_FAILED, .has_online = true,
	  .online = true },
	{ "AER, first of a repeated key wins", "pci", "change", NULL,
	  { "ERROR_EVENT=SUCCESSFUL_RECOVERY", "ERROR_EVENT=bogus",
	    SLOT("0000:01:00.0"), SLOT("zzz") },
	  PCIERR_UEVENT_AER, "0000:01:00.0", .driver = "",
	  .aer = PCIERR_POLICY_AER_SUCCESSFUL },
	{ "AER, bus-only address", "pci", "change", "05:00.0",
	  { "ERROR_EVENT=BEGIN_RECOVERY", "DEVICE_ONLINE=0",
	    SLOT("05:00.0") },
	  PCIERR_UEVENT_AER, "0000:05:00.0", .driver = "",
	  .aer = PCIERR_POLICY_AER_BEGIN, .has_online = true },
	/* ignored */
	{ "change without ERROR_EVENT", "pci", "change", "0000:01:00.0",
	  { SLOT("0000:01:00.0"), E1000E_IDS, "DEVICE_ONLINE=1" },
	  .type = PCIERR_UEVENT_IGNORED },
	{ "ERROR_EVENT on add is not an AER event", "pci", "add",
	  "0000:01:00.0",
	  { "ERROR_EVENT=BEGIN_RECOVERY", SLOT("0000:01:00.0") },
	  PCIERR_UEVENT_ADD, "0000:01:00.0", .driver = "" },
	{ "move", "pci", "move", "0000:01:00.0",
	  { SLOT("0000:01:00.0"), "DEVPATH_OLD=/devices/x" },
	  .type = PCIERR_UEVENT_IGNORED },
	{ "online", "pci", "online", "0000:01:00.0",
	  { SLOT("0000:01:00.0") }, .type = PCIERR_UEVENT_IGNORED },
	{ "offline", "pci", "offline", "0000:01:00.0",
	  { SLOT("0000:01:00.0") }, .type = PCIERR_UEVENT_IGNORED },
	{ "unknown action, malformed rest", "pci", "frobnicate", "junk",
	  { SLOT("junk"), "PCI_ID=xyz" }, .type = PCIERR_UEVENT_IGNORED },
	{ "empty action", "pci", "", NULL, { SLOT("0000:01:00.0") },
	  .type = PCIERR_UEVENT_IGNORED },
	{ "ACTION is case-sensitive", "pci", "ADD", NULL,
	  { SLOT("0000:01:00.0") }, .type = PCIERR_UEVENT_IGNORED },
	{ "pci_bus subsystem", "pci_bus", "add", "0000:01",
	  { "ERROR_EVENT=BEGIN_RECOVERY" }, .type = PCIERR_UEVENT_IGNORED },
	{ "net subsystem, AER-looking", "net", "change", "eth0",
	  { "ERROR_EVENT=BEGIN_RECOVERY", "INTERFACE=eth0" },
	  .type = PCIERR_UEVENT_IGNORED },
};

static size_t env_len(const char *const env[MAXENV])
{
	size_t n = 0;

	while (n < MAXENV && env[n])
		n++;
	return n;
}

START_TEST(test_good)
{
	const struct good_case *c = &good[_i];
	struct pcierr_uevent ev;
	int r;

	memset(&ev, 0xa5, sizeof(ev));
	r = pcierr_uevent_parse_env(c->subsystem, c->action, c->sysname,
				    c->env, env_len(c->env), &ev);
	ck_assert_msg(r == 0, "%s: r=%d", c->name, r);
	ck_assert_msg(ev.type == c->type, "%s: type %s, expected %s", c->name,
		      pcierr_uevent_type_to_string(ev.type),
		      pcierr_uevent_type_to_string(c->type));
	if (c->type == PCIERR_UEVENT_IGNORED) {
		/* nothing else filled in: all zero */
		ck_assert_str_eq(ev.addr, "");
		ck_assert(!ev.has_ids && !ev.has_subsys && !ev.has_online);
		ck_assert_str_eq(ev.driver, "");
		return;
	}
	ck_assert_str_eq(ev.addr, c->addr);
	ck_assert_msg(ev.has_ids == c->has_ids, "%s: has_ids", c->name);
	if (c->has_ids) {
		ck_assert_uint_eq(ev.vendor, c->vendor);
		ck_assert_uint_eq(ev.device, c->device);
	}
	ck_assert_msg(ev.has_subsys == c->has_subsys, "%s: has_subsys",
		      c->name);
	if (c->has_subsys) {
		ck_assert_uint_eq(ev.subvendor, c->subvendor);
		ck_assert_uint_eq(ev.subdevice, c->subdevice);
	}
	ck_assert_str_eq(ev.driver, c->driver);
	ck_assert_msg(ev.has_online == c->has_online, "%s: has_online",
		      c->name);
	if (c->type == PCIERR_UEVENT_AER) {
		ck_assert_int_eq(ev.aer, c->aer);
		if (c->has_online)
			ck_assert_msg(ev.online == c->online, "%s: online",
				      c->name);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Malformed events: -EINVAL, *ret untouched */

struct bad_case {
	const char *name;
	const char *action;
	const char *sysname;
	const char *env[MAXENV];
};

static const struct bad_case bad[] = {
	{ "add without PCI_SLOT_NAME", "add", NULL, { E1000E_IDS } },
	{ "remove without PCI_SLOT_NAME", "remove", "0000:01:00.0",
	  { E1000E_IDS } },
	{ "AER without PCI_SLOT_NAME", "change", NULL,
	  { "ERROR_EVENT=BEGIN_RECOVERY", "DEVICE_ONLINE=0" } },
	{ "empty PCI_SLOT_NAME", "add", NULL, { SLOT("") } },
	{ "address: text", "add", NULL, { SLOT("eth0") } },
	{ "address: device 0x20", "bind", NULL,
	  { SLOT("0000:01:20.0"), "DRIVER=e1000e" } },
	{ "address: function 8", "add", NULL, { SLOT("0000:01:00.8") } },
	{ "address: trailing junk", "add", NULL, { SLOT("0000:01:00.0x") } },
	{ "address: three colons", "add", NULL, { SLOT("0:0000:01:00.0") } },
	{ "address: bus of 3 digits", "add", NULL, { SLOT("0000:100:00.0") } },
	{ "address: no function", "unbind", NULL, { SLOT("0000:01:00") } },
	{ "sysname another device", "add", "0000:01:00.1",
	  { SLOT("0000:01:00.0") } },
	{ "sysname not an address", "add", "pci0000:00",
	  { SLOT("0000:01:00.0") } },
	{ "PCI_ID short", "add", NULL, { SLOT("0000:01:00.0"), "PCI_ID=8086:10D" } },
	{ "PCI_ID long", "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=8086:10D30" } },
	{ "PCI_ID not hex", "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=80G6:10D3" } },
	{ "PCI_ID no colon", "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=8086-10D3" } },
	{ "PCI_ID sign", "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=+086:10D3" } },
	{ "PCI_ID empty", "bind", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=", "DRIVER=e1000e" } },
	{ "PCI_SUBSYS_ID bad", "add", NULL,
	  { SLOT("0000:01:00.0"), "PCI_ID=8086:10D3",
	    "PCI_SUBSYS_ID=8086:A01" } },
	{ "bad PCI_ID on an AER event", "change", NULL,
	  { "ERROR_EVENT=BEGIN_RECOVERY", SLOT("0000:01:00.0"),
	    "PCI_ID=zzzz:zzzz" } },
	{ "unknown ERROR_EVENT", "change", NULL,
	  { "ERROR_EVENT=RECOVERED", SLOT("0000:01:00.0") } },
	{ "ERROR_EVENT lower case", "change", NULL,
	  { "ERROR_EVENT=begin_recovery", SLOT("0000:01:00.0") } },
	{ "ERROR_EVENT empty", "change", NULL,
	  { "ERROR_EVENT=", SLOT("0000:01:00.0") } },
	{ "ERROR_EVENT trailing blank", "change", NULL,
	  { "ERROR_EVENT=BEGIN_RECOVERY ", SLOT("0000:01:00.0") } },
	{ "DEVICE_ONLINE=2", "change", NULL,
	  { "ERROR_EVENT=BEGIN_RECOVERY", "DEVICE_ONLINE=2",
	    SLOT("0000:01:00.0") } },
	{ "DEVICE_ONLINE=01", "change", NULL,
	  { "ERROR_EVENT=SUCCESSFUL_RECOVERY", "DEVICE_ONLINE=01",
	    SLOT("0000:01:00.0") } },
	{ "DEVICE_ONLINE empty", "change", NULL,
	  { "ERROR_EVENT=FAILED_RECOVERY", "DEVICE_ONLINE=",
	    SLOT("0000:01:00.0") } },
	{ "DRIVER empty", "bind", NULL, { SLOT("0000:01:00.0"), "DRIVER=" } },
	{ "DRIVER with a slash", "bind", NULL,
	  { SLOT("0000:01:00.0"), "DRIVER=../e1000e" } },
	{ "DRIVER with a blank", "bind", NULL,
	  { SLOT("0000:01:00.0"), "DRIVER=e1000 e" } },
	{ "DRIVER with a control character", "bind", NULL,
	  { SLOT("0000:01:00.0"), "DRIVER=e1000e\n" } },
	{ "DRIVER of 64 characters", "bind", NULL,
	  { SLOT("0000:01:00.0"),
	    "DRIVER=0123456789012345678901234567890123456789012345678901234567890123" } },
};

START_TEST(test_bad)
{
	const struct bad_case *c = &bad[_i];
	struct pcierr_uevent ev, before;
	int r;

	memset(&ev, 0x5a, sizeof(ev));
	before = ev;
	r = pcierr_uevent_parse_env("pci", c->action, c->sysname, c->env,
				    env_len(c->env), &ev);
	ck_assert_msg(r == -EINVAL, "%s: r=%d", c->name, r);
	ck_assert_msg(memcmp(&ev, &before, sizeof(ev)) == 0,
		      "%s: result touched", c->name);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Over-long values, built at run time: each key in turn */

static const char *const long_keys[] = {
	"PCI_SLOT_NAME", "PCI_ID", "PCI_SUBSYS_ID", "DRIVER", "ERROR_EVENT",
	"DEVICE_ONLINE",
};

START_TEST(test_overlong)
{
	const char *key = long_keys[_i];
	char big[2 * PCIERR_UEVENT_VALUE_MAX];
	char kv[2 * PCIERR_UEVENT_VALUE_MAX + 32];
	const char *env[4];
	size_t n = 0;
	struct pcierr_uevent ev;
	const char *prefix;

	/* a value that starts valid, then goes on and on */
	if (!strcmp(key, "PCI_SLOT_NAME"))
		prefix = "0000:01:00.0";
	else if (!strcmp(key, "ERROR_EVENT"))
		prefix = "BEGIN_RECOVERY";
	else if (!strcmp(key, "DEVICE_ONLINE"))
		prefix = "0";
	else if (!strcmp(key, "DRIVER"))
		prefix = "e1000e";
	else
		prefix = "8086:10D3";
	snprintf(big, sizeof(big), "%s", prefix);
	memset(big + strlen(prefix), '0',
	       PCIERR_UEVENT_VALUE_MAX - strlen(prefix));
	big[PCIERR_UEVENT_VALUE_MAX] = '\0';
	snprintf(kv, sizeof(kv), "%s=%s", key, big);

	env[n++] = kv;
	if (strcmp(key, "PCI_SLOT_NAME") != 0)
		env[n++] = SLOT("0000:01:00.0");
	if (strcmp(key, "ERROR_EVENT") != 0)
		env[n++] = "ERROR_EVENT=BEGIN_RECOVERY";

	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "change", NULL, env, n,
						 &ev), -EINVAL);
	/* and an over-long sysname */
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "add", big,
						 (const char *[]) {
							 SLOT("0000:01:00.0")
						 }, 1, &ev), -EINVAL);
	/* one byte shorter than the limit is only rejected by its syntax */
	big[PCIERR_UEVENT_VALUE_MAX - 1] = '\0';
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "add", big,
						 (const char *[]) {
							 SLOT("0000:01:00.0")
						 }, 1, &ev), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The callback interface, as the daemon uses it with libudev */

struct fake_dev {
	const char *keys[4];
	const char *values[4];
	unsigned int calls;
};

static const char *fake_get(const char *key, void *userdata)
{
	struct fake_dev *d = userdata;

	d->calls++;
	for (size_t i = 0; i < 4 && d->keys[i]; i++)
		if (!strcmp(d->keys[i], key))
			return d->values[i];
	return NULL;
}

START_TEST(test_callback)
{
	struct fake_dev d = {
		.keys = { "PCI_SLOT_NAME", "ERROR_EVENT", "DEVICE_ONLINE" },
		.values = { "0000:00:1c.0", "SUCCESSFUL_RECOVERY", "1" },
	};
	struct pcierr_uevent ev;

	ck_assert_int_eq(pcierr_uevent_parse("pci", "change", "0000:00:1c.0",
					     fake_get, &d, &ev), 0);
	ck_assert_int_eq(ev.type, PCIERR_UEVENT_AER);
	ck_assert_int_eq(ev.aer, PCIERR_POLICY_AER_SUCCESSFUL);
	ck_assert(ev.has_online && ev.online);
	ck_assert_str_eq(ev.addr, "0000:00:1c.0");
	ck_assert(!ev.has_ids);

	/* an ignored event reads no property at all */
	d.calls = 0;
	ck_assert_int_eq(pcierr_uevent_parse("pci", "move", NULL, fake_get,
					     &d, &ev), 0);
	ck_assert_int_eq(ev.type, PCIERR_UEVENT_IGNORED);
	ck_assert_uint_eq(d.calls, 0);
	ck_assert_int_eq(pcierr_uevent_parse("usb", "change", NULL, fake_get,
					     &d, &ev), 0);
	ck_assert_int_eq(ev.type, PCIERR_UEVENT_IGNORED);
	ck_assert_uint_eq(d.calls, 0);
}
END_TEST

START_TEST(test_args)
{
	struct pcierr_uevent ev;
	const char *env[] = { SLOT("0000:01:00.0") };

	ck_assert_int_eq(pcierr_uevent_parse_env("pci", NULL, NULL, env, 1,
						 &ev), -EINVAL);
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "add", NULL, env, 1,
						 NULL), -EINVAL);
	ck_assert_int_eq(pcierr_uevent_parse("pci", "add", NULL, NULL, NULL,
					     &ev), -EINVAL);
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "add", NULL, NULL, 1,
						 &ev), -EINVAL);
	/* no properties at all: no address */
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "add", NULL, NULL, 0,
						 &ev), -EINVAL);
	/* NULL entries are skipped */
	ck_assert_int_eq(pcierr_uevent_parse_env("pci", "remove", NULL,
						 (const char *[]) {
							 NULL, "PCI_SLOT_NAME",
							 "PCI_SLOT_NAMEX=1",
							 SLOT("0000:01:00.0")
						 }, 4, &ev), 0);
	ck_assert_int_eq(ev.type, PCIERR_UEVENT_REMOVE);
	ck_assert_str_eq(ev.addr, "0000:01:00.0");
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_IGNORED),
			 "ignored");
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_ADD), "add");
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_REMOVE),
			 "remove");
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_BIND),
			 "bind");
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_UNBIND),
			 "unbind");
	ck_assert_str_eq(pcierr_uevent_type_to_string(PCIERR_UEVENT_AER), "aer");
	ck_assert_ptr_null(pcierr_uevent_type_to_string(__PCIERR_UEVENT_MAX));
	ck_assert_ptr_null(pcierr_uevent_type_to_string(
				   (enum pcierr_uevent_type)-1));
}
END_TEST

/*
 * L12: the names of a device (pci-names.c) come from udev's hwdb, not
 * libpci (which could exit() the daemon); the udev package's hwdb.bin is
 * on every systemd machine (and this test's).
 */
START_TEST(test_pci_names)
{
	struct pci_names *n = NULL;
	char *v = NULL, *d = NULL;

	ck_assert_int_eq(pci_names_open(&n), 0);
	ck_assert_ptr_nonnull(n);
	ck_assert_int_eq(pci_names_lookup(n, 0x8086, 0x10d3, &v, &d), 0);
	ck_assert_str_eq(v, "Intel Corporation");
	ck_assert_str_eq(d, "82574L Gigabit Network Connection");
	free(v);
	free(d);
	/* a known vendor, an unknown device; an unknown vendor */
	ck_assert_int_eq(pci_names_lookup(n, 0x10ec, 0xfffe, &v, &d), 0);
	ck_assert_str_eq(v, "Realtek Semiconductor Co., Ltd.");
	ck_assert_str_eq(d, "");
	free(v);
	free(d);
	ck_assert_int_eq(pci_names_lookup(n, 0x0002, 0x0001, &v, &d), 0);
	ck_assert_str_eq(v, "");
	ck_assert_str_eq(d, "");
	free(v);
	free(d);
	ck_assert_ptr_null(pci_names_close(n));
	/* no handle: no names, no failure */
	ck_assert_int_eq(pci_names_lookup(NULL, 0x8086, 0x10d3, &v, &d), 0);
	ck_assert_str_eq(v, "");
	ck_assert_str_eq(d, "");
	free(v);
	free(d);
}
END_TEST

Suite *suite_uevent(void)
{
	Suite *s = suite_create("uevent");
	TCase *tc;

	tc = tcase_create("good");
	tcase_add_loop_test(tc, test_good, 0, (int)(sizeof(good) / sizeof(good[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_loop_test(tc, test_overlong, 0,
			    (int)(sizeof(long_keys) / sizeof(long_keys[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_add_test(tc, test_callback);
	tcase_add_test(tc, test_args);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_pci_names);
	suite_add_tcase(s, tc);

	return s;
}

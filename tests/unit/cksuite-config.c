/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table-driven tests of the pcierrd.conf parser (daemon/config.c): valid
 * files and what they resolve to, every kind of bad line with its file and
 * line number, and the loader's drop-in order.
 */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../daemon/config.h"
#include "cksuites.h"

#define DEF	5, 3600, 15, 30, true	/* the built-in defaults */

struct query {
	const char *addr;
	bool has_ids;
	uint16_t vendor, device;
};

static const struct {
	const char *text;
	struct query q;
	unsigned int max_freezes, window, max_wait, step_timeout;
	bool recover;
	const char *metrics;		/* NULL: off */
} valid[] = {
	{ "", { "0000:01:00.0", true, 0x8086, 0x10d3 }, DEF, NULL },
	{ "# comment\n; comment\n\n   \n\t# indented comment\n[Policy]\n", { NULL }, DEF, NULL },
	{ "[Policy]\nMaxFreezes=7\nFreezeWindowSec=60\nMaxWaitSec=20\nStepTimeoutSec=9\n"
	  "Recover=no\nMetricsPath=/var/lib/node_exporter/pcierr.prom\n",
	  { NULL }, 7, 60, 20, 9, false, "/var/lib/node_exporter/pcierr.prom" },
	{ "  [ Policy ]  \n  MaxFreezes  =  8  \n", { NULL }, 8, 3600, 15, 30, true, NULL },
	{ "[Policy]\r\nMaxFreezes=9\r\n", { NULL }, 9, 3600, 15, 30, true, NULL },
	{ "\xef\xbb\xbf[Policy]\nMaxFreezes=4\n", { NULL }, 4, 3600, 15, 30, true, NULL },
	{ "[Policy]\nMaxFreezes=3\nMaxFreezes=4\n", { NULL }, 4, 3600, 15, 30, true, NULL },
	{ "[Policy]\nMaxFreezes=3\nMaxFreezes=\n", { NULL }, DEF, NULL },
	{ "[Policy]\nRecover=no\nRecover=\n", { NULL }, DEF, NULL },
	{ "[Policy]\nMetricsPath=/x\nMetricsPath=\n", { NULL }, DEF, NULL },
	/* ranges, both ends */
	{ "[Policy]\nMaxFreezes=0\n", { NULL }, 0, 3600, 15, 30, true, NULL },
	{ "[Policy]\nMaxFreezes=1000000\n", { NULL }, 1000000, 3600, 15, 30, true, NULL },
	{ "[Policy]\nFreezeWindowSec=1\n", { NULL }, 5, 1, 15, 30, true, NULL },
	{ "[Policy]\nFreezeWindowSec=315360000\n", { NULL }, 5, 315360000, 15, 30, true, NULL },
	{ "[Policy]\nMaxWaitSec=1\n", { NULL }, 5, 3600, 1, 30, true, NULL },
	{ "[Policy]\nMaxWaitSec=3600\n", { NULL }, 5, 3600, 3600, 30, true, NULL },
	{ "[Policy]\nStepTimeoutSec=1\n", { NULL }, 5, 3600, 15, 1, true, NULL },
	{ "[Policy]\nStepTimeoutSec=86400\n", { NULL }, 5, 3600, 15, 86400, true, NULL },
	{ "[Policy]\nMaxFreezes=007\n", { NULL }, 7, 3600, 15, 30, true, NULL },
	/* booleans */
	{ "[Policy]\nRecover=false\n", { NULL }, 5, 3600, 15, 30, false, NULL },
	{ "[Policy]\nRecover=off\n", { NULL }, 5, 3600, 15, 30, false, NULL },
	{ "[Policy]\nRecover=0\n", { NULL }, 5, 3600, 15, 30, false, NULL },
	{ "[Policy]\nRecover=NO\n", { NULL }, 5, 3600, 15, 30, false, NULL },
	{ "[Policy]\nRecover=no\nRecover=yes\n", { NULL }, DEF, NULL },
	{ "[Policy]\nRecover=no\nRecover=on\n", { NULL }, DEF, NULL },
	{ "[Policy]\nRecover=no\nRecover=1\n", { NULL }, DEF, NULL },
	{ "[Policy]\nRecover=no\nRecover=true\n", { NULL }, DEF, NULL },
	/* [Device address] */
	{ "[Device \"0000:01:00.0\"]\nRecover=no\n", { "0000:01:00.0", false, 0, 0 }, 5, 3600, 15, 30, false, NULL },
	{ "[Device 0000:01:00.0]\nRecover=no\n", { "0000:01:00.1", false, 0, 0 }, DEF, NULL },
	{ "[Device 01:00.0]\nMaxFreezes=2\n", { "0000:01:00.0", false, 0, 0 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 0000:0A:1F.7]\nMaxFreezes=2\n", { "0000:0a:1f.7", false, 0, 0 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 0000:0a:1f.7]\nMaxFreezes=2\n", { "0a:1f.7", false, 0, 0 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 10000:00:00.0]\nMaxFreezes=2\n", { "10000:00:00.0", false, 0, 0 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 0000:01:00.0]\nMaxFreezes=2\nMaxFreezes=\n", { "0000:01:00.0", false, 0, 0 }, DEF, NULL },
	{ "[Device 0000:01:00.0]\nMaxFreezes=2\n[Policy]\nMaxFreezes=9\n[Device 0000:01:00.0]\nMaxWaitSec=4\n",
	  { "0000:01:00.0", false, 0, 0 }, 2, 3600, 4, 30, true, NULL },
	/* [Device vendor:device], [Device vendor:*] */
	{ "[Device 8086:10d3]\nMaxFreezes=2\n", { "0000:01:00.0", true, 0x8086, 0x10d3 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 8086:10D3]\nMaxFreezes=2\n", { NULL, true, 0x8086, 0x10d3 }, 2, 3600, 15, 30, true, NULL },
	{ "[Device 8086:10d3]\nMaxFreezes=2\n", { "0000:01:00.0", true, 0x8086, 0x10d4 }, DEF, NULL },
	{ "[Device 8086:10d3]\nMaxFreezes=2\n", { "0000:01:00.0", false, 0, 0 }, DEF, NULL },
	{ "[Device 8086:*]\nRecover=no\n", { NULL, true, 0x8086, 0x1234 }, 5, 3600, 15, 30, false, NULL },
	{ "[Device 8086:*]\nRecover=no\n", { NULL, true, 0x10ec, 0x8139 }, DEF, NULL },
	{ "[Device 1:2]\nMaxFreezes=1\n", { NULL, true, 0x0001, 0x0002 }, 1, 3600, 15, 30, true, NULL },
	/* precedence, key by key: address > vendor:device > vendor:* > [Policy] */
	{ "[Device 0000:01:00.0]\nRecover=no\n"
	  "[Device 8086:10d3]\nMaxFreezes=2\nMaxWaitSec=3\n"
	  "[Device 8086:*]\nMaxFreezes=1\nStepTimeoutSec=50\nMaxWaitSec=4\n"
	  "[Policy]\nFreezeWindowSec=10\nMaxWaitSec=5\n",
	  { "0000:01:00.0", true, 0x8086, 0x10d3 }, 2, 10, 3, 50, false, NULL },
	{ "[Device 8086:10d3]\nMaxFreezes=2\n[Device 0000:01:00.0]\nMaxFreezes=10\n",
	  { "0000:01:00.0", true, 0x8086, 0x10d3 }, 10, 3600, 15, 30, true, NULL },
	{ "[Device 0000:01:00.0]\nMaxFreezes=10\n[Device 8086:10d3]\nMaxFreezes=2\n",
	  { "0000:01:00.0", true, 0x8086, 0x10d3 }, 10, 3600, 15, 30, true, NULL },
};

START_TEST(test_valid)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	struct pcierr_settings s;

	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_parse_string(&c, valid[_i].text, "test.conf", &err) == 0,
		      "case %d: %s:%u: %s", _i, err.file, err.line, err.message);
	pcierr_config_resolve(&c, valid[_i].q.addr, valid[_i].q.has_ids, valid[_i].q.vendor,
			      valid[_i].q.device, &s);
	ck_assert_uint_eq(s.max_freezes, valid[_i].max_freezes);
	ck_assert_uint_eq(s.freeze_window_sec, valid[_i].window);
	ck_assert_uint_eq(s.max_wait_sec, valid[_i].max_wait);
	ck_assert_uint_eq(s.step_timeout_sec, valid[_i].step_timeout);
	ck_assert(s.recover == valid[_i].recover);
	if (valid[_i].metrics)
		ck_assert_str_eq(c.metrics_path, valid[_i].metrics);
	else
		ck_assert_ptr_null(c.metrics_path);
	pcierr_config_done(&c);
	ck_assert_ptr_null(c.overrides);
	ck_assert_uint_eq(c.n_overrides, 0);
}
END_TEST

static const struct {
	const char *text;
	unsigned int line;
	const char *msg;	/* substring */
} invalid[] = {
	{ "[Foo]\n", 1, "unknown section [Foo]" },
	{ "[policy]\n", 1, "unknown section [policy]" },
	{ "MaxFreezes=5\n", 1, "outside of any section" },
	{ "[Policy]\nFoo=1\n", 2, "unknown key Foo=" },
	{ "[Policy]\nmaxfreezes=1\n", 2, "unknown key maxfreezes=" },
	{ "[Policy]\nMaxFreezes\n", 2, "missing '='" },
	{ "[Policy]\nMaxFreezes 5\n", 2, "missing '='" },
	{ "[Policy]\n=5\n", 2, "missing key" },
	{ "[Policy]\nMaxFreezes=abc\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=-1\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=+1\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=5x\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=5 6\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=0x10\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=\"5\"\n", 2, "not a number" },
	{ "[Policy]\nMaxFreezes=1000001\n", 2, "out of range" },
	{ "[Policy]\nMaxFreezes=99999999999999999999\n", 2, "out of range" },
	{ "[Policy]\nFreezeWindowSec=0\n", 2, "out of range" },
	{ "[Policy]\nFreezeWindowSec=315360001\n", 2, "out of range" },
	{ "[Policy]\nMaxWaitSec=0\n", 2, "out of range" },
	{ "[Policy]\nMaxWaitSec=3601\n", 2, "out of range" },
	{ "[Policy]\nStepTimeoutSec=0\n", 2, "out of range" },
	{ "[Policy]\nStepTimeoutSec=86401\n", 2, "out of range" },
	{ "[Policy]\nRecover=maybe\n", 2, "not a boolean" },
	{ "[Policy]\nRecover=2\n", 2, "not a boolean" },
	{ "[Policy]\nMetricsPath=metrics.prom\n", 2, "not an absolute path" },
	{ "[Policy]\nAutoRecover=sometimes\n", 2, "not a boolean" },
	{ "[Device 8086:10d3]\nAutoRecover=no\n", 2, "only allowed in [Policy]" },
	{ "[State]\nAutoRecover=no\n", 2, "unknown key AutoRecover=" },
	{ "[Device 8086:10d3]\nMetricsPath=/x\n", 2, "only allowed in [Policy]" },
	{ "[Device 8086:10d3]\nFoo=1\n", 2, "unknown key Foo= in section [Device]" },
	{ "[Device 8086:10d3]\nMaxFreezes=x\n", 2, "not a number" },
	{ "[Policy\n", 1, "without ']'" },
	{ "[Device]\n", 1, "needs an address" },
	{ "[Device \"0000:01:00.0]\n", 1, "unbalanced quotes" },
	{ "[Device zz:00.0]\n", 1, "not a PCI address" },
	{ "[Device 0000:01:20.0]\n", 1, "not a PCI address" },
	{ "[Device 0000:01:00.8]\n", 1, "not a PCI address" },
	{ "[Device 0000:100:00.0]\n", 1, "not a PCI address" },
	{ "[Device 0000:01:00]\n", 1, "neither" },
	{ "[Device 0000:01:00.0.0]\n", 1, "not a PCI address" },
	{ "[Device 0:0:0:00.0]\n", 1, "not a PCI address" },
	{ "[Device 123456789:00:00.0]\n", 1, "not a PCI address" },
	{ "[Device 8086]\n", 1, "neither" },
	{ "[Device 12345:10d3]\n", 1, "neither" },
	{ "[Device 8086:10d3x]\n", 1, "neither" },
	{ "[Device *:10d3]\n", 1, "neither" },
	{ "[Device 8086:10d3 extra]\n", 1, "neither" },
	{ "# a comment\n\n[Policy]\nMaxFreezes=5\n\nMaxWaitSec=99999\n", 6, "MaxWaitSec=99999" },
	{ "[Policy]\nMaxFreezes=5\n[Device 01:00.0]\nRecover=yes\nRecover=perhaps\n", 5, "Recover=perhaps" },
	/* issue 25: Method=, VerifySec=, VerifyEscalate=, [Driver NAME] */
	{ "[Policy]\nMethod=callbacks\n", 2, "not a method (auto, hotplug)" },
	{ "[Policy]\nMethod=Hotplug\n", 2, "not a method" },
	{ "[Policy]\nVerifySec=3601\n", 2, "out of range (0...3600)" },
	{ "[Policy]\nVerifySec=-1\n", 2, "not a number" },
	{ "[Driver e1000]\nVerifyEscalate=sometimes\n", 2, "not a boolean" },
	{ "[Driver]\n", 1, "needs a driver name" },
	{ "[Driver e1000 e100]\n", 1, "not a driver name" },
	{ "[Driver e/1000]\n", 1, "not a driver name" },
	{ "[Driver aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n", 1, "too long" },
	{ "[Driver e1000]\nMetricsPath=/x\n", 2, "only allowed in [Policy]" },
	{ "[Driver e1000]\nAutoRecover=no\n", 2, "only allowed in [Policy]" },
};

/* Method=, VerifySec=, VerifyEscalate= and [Driver NAME] (issue 25) */
static const struct {
	const char *text;
	const char *addr, *driver;
	uint16_t vendor, device;	/* 0:0: ids unknown */
	enum pcierr_method method;
	unsigned int verify_sec;
	bool escalate;
	unsigned int max_freezes;
} methods[] = {
	{ "", "0000:01:00.0", "e1000", 0x8086, 0x100e, PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
	{ "[Policy]\nMethod=hotplug\nVerifySec=0\nVerifyEscalate=no\n", NULL, NULL, 0, 0,
	  PCIERR_METHOD_HOTPLUG, 0, false, 5 },
	{ "[Policy]\nMethod=hotplug\nMethod=\nVerifySec=3600\nVerifySec=\nVerifyEscalate=no\nVerifyEscalate=\n",
	  NULL, NULL, 0, 0, PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
	{ "[Driver e1000]\nMethod=hotplug\nMaxFreezes=2\n", "0000:01:00.0", "e1000", 0x8086, 0x100e,
	  PCIERR_METHOD_HOTPLUG, PCIERR_DEFAULT_VERIFY_SEC, true, 2 },
	{ "[Driver e1000]\nMethod=hotplug\n", "0000:01:00.0", "e1000e", 0x8086, 0x10d3,
	  PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
	{ "[Driver e1000]\nMethod=hotplug\n", "0000:01:00.0", NULL, 0x8086, 0x100e,
	  PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
	{ "[Driver 8250_pci]\nVerifySec=3\n", NULL, "8250_pci", 0, 0, PCIERR_METHOD_AUTO, 3, true, 5 },
	{ "[Driver serial]\nMethod=hotplug\n[Driver serial]\nMethod=\n", NULL, "serial", 0, 0,
	  PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
	/* precedence: address > vendor:device > driver > vendor:* > [Policy] */
	{ "[Device 8086:*]\nMethod=auto\nVerifySec=1\n[Driver e1000]\nMethod=hotplug\n",
	  "0000:01:00.0", "e1000", 0x8086, 0x100e, PCIERR_METHOD_HOTPLUG, 1, true, 5 },
	{ "[Driver e1000]\nMethod=hotplug\nVerifySec=2\n[Device 8086:100e]\nMethod=auto\n",
	  "0000:01:00.0", "e1000", 0x8086, 0x100e, PCIERR_METHOD_AUTO, 2, true, 5 },
	{ "[Device 0000:01:00.0]\nMethod=auto\n[Driver e1000]\nMethod=hotplug\nVerifyEscalate=no\n",
	  "0000:01:00.0", "e1000", 0x8086, 0x100e, PCIERR_METHOD_AUTO, PCIERR_DEFAULT_VERIFY_SEC, false, 5 },
	{ "[Device 0000:01:00.0]\nMethod=hotplug\n", "01:00.0", NULL, 0, 0,
	  PCIERR_METHOD_HOTPLUG, PCIERR_DEFAULT_VERIFY_SEC, true, 5 },
};

/* The shipped files load: the commented pcierrd.conf changes nothing, the
 * list of broken callbacks routes its drivers to hotplug and no other */
START_TEST(test_shipped)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	struct pcierr_settings s;

	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_load(&c, CK_SRCDIR "/systemd/pcierrd.conf",
					 CK_SRCDIR "/systemd/pcierrd.conf.d", &err) == 0,
		      "%s:%u: %s", err.file, err.line, err.message);
	pcierr_config_resolve_driver(&c, "0000:0b:01.0", true, 0x8086, 0x100e, "e1000", &s);
	ck_assert_int_eq(s.method, PCIERR_METHOD_HOTPLUG);
	pcierr_config_resolve_driver(&c, "0000:0c:00.0", true, 0x1b36, 0x0002, "serial", &s);
	ck_assert_int_eq(s.method, PCIERR_METHOD_HOTPLUG);
	pcierr_config_resolve_driver(&c, "0000:01:00.0", true, 0x8086, 0x10d3, "e1000e", &s);
	ck_assert_int_eq(s.method, PCIERR_METHOD_AUTO);
	ck_assert_uint_eq(s.verify_sec, PCIERR_DEFAULT_VERIFY_SEC);
	ck_assert(s.verify_escalate);
	ck_assert_uint_eq(c.n_overrides, 2);
	/* a later drop-in takes an entry back */
	ck_assert_int_eq(pcierr_config_parse_string(&c, "[Driver e1000]\nMethod=auto\n", "90-local.conf",
						    &err), 0);
	pcierr_config_resolve_driver(&c, "0000:0b:01.0", true, 0x8086, 0x100e, "e1000", &s);
	ck_assert_int_eq(s.method, PCIERR_METHOD_AUTO);
	pcierr_config_done(&c);
}
END_TEST

START_TEST(test_method)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	struct pcierr_settings s;
	bool ids = methods[_i].vendor || methods[_i].device;

	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_parse_string(&c, methods[_i].text, "t.conf", &err) == 0,
		      "case %d: %s:%u: %s", _i, err.file, err.line, err.message);
	pcierr_config_resolve_driver(&c, methods[_i].addr, ids, methods[_i].vendor,
				     methods[_i].device, methods[_i].driver, &s);
	ck_assert_msg(s.method == methods[_i].method, "case %d: method %s, expected %s", _i,
		      pcierr_method_to_string(s.method), pcierr_method_to_string(methods[_i].method));
	ck_assert_uint_eq(s.verify_sec, methods[_i].verify_sec);
	ck_assert_int_eq(s.verify_escalate, methods[_i].escalate);
	ck_assert_uint_eq(s.max_freezes, methods[_i].max_freezes);
	/* without the driver, [Driver] sections do not apply */
	pcierr_config_resolve(&c, methods[_i].addr, ids, methods[_i].vendor, methods[_i].device, &s);
	if (strstr(methods[_i].text, "[Driver") && !strstr(methods[_i].text, "[Device") &&
	    methods[_i].driver && strstr(methods[_i].text, methods[_i].driver))
		ck_assert_int_eq(s.method, PCIERR_METHOD_AUTO);
	pcierr_config_done(&c);
}
END_TEST

START_TEST(test_invalid)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};

	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_config_parse_string(&c, invalid[_i].text, "/etc/pcierr/test.conf", &err),
			 -EINVAL);
	ck_assert_str_eq(err.file, "/etc/pcierr/test.conf");
	ck_assert_msg(err.line == invalid[_i].line, "case %d: line %u, expected %u (%s)", _i,
		      err.line, invalid[_i].line, err.message);
	ck_assert_int_eq(err.error, -EINVAL);
	ck_assert_msg(strstr(err.message, invalid[_i].msg), "case %d: message '%s' lacks '%s'",
		      _i, err.message, invalid[_i].msg);
	/* the config is still valid and freeable */
	pcierr_config_done(&c);

	/* without an error struct: just the errno */
	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_config_parse_string(&c, invalid[_i].text, "x", NULL), -EINVAL);
	pcierr_config_done(&c);
}
END_TEST

static const struct {
	const char *in;
	const char *out;	/* NULL: invalid */
} addresses[] = {
	{ "0000:01:00.0", "0000:01:00.0" },
	{ "01:00.0", "0000:01:00.0" },
	/* one grammar with D-Bus and pcierrctl (L8): two-digit bus and device */
	{ "1:00.0", NULL },
	{ "0:1:0.0", NULL },
	{ "01:0.0", NULL },
	{ "1:0.0", NULL },
	{ "ABCD:EF:1f.7", "abcd:ef:1f.7" },
	{ "ffffffff:ff:1f.7", "ffffffff:ff:1f.7" },
	{ "", NULL },
	{ "0000:01:00", NULL },
	{ "0000:01:00.", NULL },
	{ "0000::00.0", NULL },
	{ "0000:01:00.0 ", NULL },
	{ " 0000:01:00.0", NULL },
	{ "0000:01:32.0", NULL },
	{ "0000:01:00.9", NULL },
	{ "100000000:01:00.0", NULL },
	{ "g000:01:00.0", NULL },
};

START_TEST(test_address)
{
	char buf[PCIERR_ADDR_MAX];
	int r = pcierr_parse_pci_address(addresses[_i].in, buf);

	if (addresses[_i].out) {
		ck_assert_int_eq(r, 0);
		ck_assert_str_eq(buf, addresses[_i].out);
	} else {
		ck_assert_int_eq(r, -EINVAL);
	}
}
END_TEST

/* [Policy] AutoRecover= (issue 12): yes by default, a boolean, empty resets */
START_TEST(test_auto_recover)
{
	struct pcierr_config c;

	pcierr_config_init(&c);
	ck_assert(c.auto_recover);
	ck_assert_int_eq(pcierr_config_parse_string(&c, "[Policy]\nAutoRecover=no\n", "t", NULL), 0);
	ck_assert(!c.auto_recover);
	ck_assert_int_eq(pcierr_config_parse_string(&c, "[Policy]\nAutoRecover=\n", "t", NULL), 0);
	ck_assert(c.auto_recover);
	ck_assert_int_eq(pcierr_config_parse_string(&c, "[Policy]\nAutoRecover=off\nAutoRecover=YES\n",
						    "t", NULL), 0);
	ck_assert(c.auto_recover);
	pcierr_config_done(&c);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "[Policy]\nMaxFreezes=5\nMaxWait\0Sec=3\n";
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	ck_assert_ptr_nonnull(f);
	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_config_parse_file(&c, f, "nul.conf", &err), -EINVAL);
	ck_assert_uint_eq(err.line, 3);
	ck_assert_ptr_nonnull(strstr(err.message, "NUL"));
	fclose(f);
	pcierr_config_done(&c);
}
END_TEST

/* ---------------------------------------------------------------- */
/* The loader: main file, then drop-ins in lexical order */

static char tmpdir[PATH_MAX];

static void write_file(const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup_dir(void)
{
	char d[PATH_MAX + 64];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pcierr-config-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(d, sizeof(d), "%s/pcierrd.conf.d", tmpdir);
	ck_assert_int_eq(mkdir(d, 0755), 0);
}

static void teardown_dir(void)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void paths(char *main_path, char *dropins, size_t size)
{
	snprintf(main_path, size, "%s/pcierrd.conf", tmpdir);
	snprintf(dropins, size, "%s/pcierrd.conf.d", tmpdir);
}

START_TEST(test_load_order)
{
	char m[PATH_MAX + 64], d[PATH_MAX + 64];
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	struct pcierr_settings s;

	setup_dir();
	paths(m, d, sizeof(m));
	write_file("pcierrd.conf", "[Policy]\nMaxFreezes=3\nStepTimeoutSec=10\n"
		   "[Device 8086:10d3]\nRecover=no\n");
	write_file("pcierrd.conf.d/20-b.conf", "[Policy]\nMaxFreezes=7\n[Device 8086:10d3]\nRecover=yes\n");
	write_file("pcierrd.conf.d/10-a.conf", "[Policy]\nMaxFreezes=6\nMaxWaitSec=20\n"
		   "MetricsPath=/run/pcierr.prom\n");
	write_file("pcierrd.conf.d/ignored.txt", "garbage\n");
	write_file("pcierrd.conf.d/.hidden.conf", "garbage\n");
	write_file("pcierrd.conf.d/conf", "garbage\n");

	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_load(&c, m, d, &err) == 0, "%s:%u: %s", err.file, err.line,
		      err.message);
	pcierr_config_resolve(&c, "0000:01:00.0", true, 0x8086, 0x10d3, &s);
	ck_assert_uint_eq(s.max_freezes, 7);		/* 20-b after 10-a after main */
	ck_assert_uint_eq(s.max_wait_sec, 20);
	ck_assert_uint_eq(s.step_timeout_sec, 10);
	ck_assert(s.recover);				/* 20-b's override */
	ck_assert_str_eq(c.metrics_path, "/run/pcierr.prom");
	pcierr_config_done(&c);
	teardown_dir();
}
END_TEST

/* File k sets keys k..5 to k: the values reveal the whole reading order,
 * which must be strcmp() order of the names, not creation or numeric. */
START_TEST(test_load_lexical)
{
	static const char *const names[] = {
		"00-first.conf", "10-second.conf", "2-third.conf", "Z-fourth.conf", "a-fifth.conf",
	};
	static const char *const keys[] = {
		"MaxFreezes", "FreezeWindowSec", "MaxWaitSec", "StepTimeoutSec", "MetricsPath",
	};
	char m[PATH_MAX + 64], d[PATH_MAX + 64];
	struct pcierr_config c;
	struct pcierr_config_error err = {};

	setup_dir();
	paths(m, d, sizeof(m));
	for (int k = 4; k >= 0; k--) {
		char name[64], text[512];
		int n = snprintf(text, sizeof(text), "[Policy]\n");

		for (int j = k; j < 5; j++)
			n += snprintf(text + n, sizeof(text) - (size_t)n,
				      j == 4 ? "%s=/%d\n" : "%s=%d\n", keys[j], k + 1);
		snprintf(name, sizeof(name), "pcierrd.conf.d/%s", names[k]);
		write_file(name, text);
	}
	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_load(&c, m, d, &err) == 0, "%s:%u: %s", err.file, err.line,
		      err.message);
	ck_assert_uint_eq(c.defaults.max_freezes, 1);
	ck_assert_uint_eq(c.defaults.freeze_window_sec, 2);
	ck_assert_uint_eq(c.defaults.max_wait_sec, 3);
	ck_assert_uint_eq(c.defaults.step_timeout_sec, 4);
	ck_assert_str_eq(c.metrics_path, "/5");
	pcierr_config_done(&c);
	teardown_dir();
}
END_TEST

START_TEST(test_load_missing)
{
	char m[PATH_MAX + 64], d[PATH_MAX + 64];
	struct pcierr_config c;
	struct pcierr_config_error err = {};

	setup_dir();
	paths(m, d, sizeof(m));
	strcat(d, "-none");
	pcierr_config_init(&c);
	c.defaults.max_freezes = 42;	/* replaced by the load */
	ck_assert_int_eq(pcierr_config_load(&c, m, d, &err), 0);
	ck_assert_uint_eq(c.defaults.max_freezes, PCIERR_DEFAULT_MAX_FREEZES);
	ck_assert_ptr_null(c.metrics_path);
	pcierr_config_done(&c);
	teardown_dir();
}
END_TEST

START_TEST(test_load_error)
{
	char m[PATH_MAX + 64], d[PATH_MAX + 64];
	struct pcierr_config c;
	struct pcierr_config_error err = {};
	const char *base;

	setup_dir();
	paths(m, d, sizeof(m));
	write_file("pcierrd.conf", "[Policy]\nMaxFreezes=3\n");
	write_file("pcierrd.conf.d/10-a.conf", "[Policy]\nMaxFreezes=6\n");
	write_file("pcierrd.conf.d/20-b.conf", "# bad\n[Policy]\nMaxFreezes=lots\n");

	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_parse_pci_address("01:00.0", (char[PCIERR_ADDR_MAX]){}), 0);
	ck_assert_int_eq(pcierr_config_parse_string(&c, "[Policy]\nMaxFreezes=2\n", "old", NULL), 0);
	ck_assert_int_eq(pcierr_config_load(&c, m, d, &err), -EINVAL);
	base = strrchr(err.file, '/');
	ck_assert_ptr_nonnull(base);
	ck_assert_str_eq(base, "/20-b.conf");
	ck_assert_uint_eq(err.line, 3);
	ck_assert_ptr_nonnull(strstr(err.message, "MaxFreezes=lots"));
	/* on error the old configuration stays */
	ck_assert_uint_eq(c.defaults.max_freezes, 2);
	pcierr_config_done(&c);

	/* an error in the main file names it */
	write_file("pcierrd.conf", "[Policy]\nMaxFreezes 3\n");
	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_config_load(&c, m, d, &err), -EINVAL);
	ck_assert_str_eq(err.file, m);
	ck_assert_uint_eq(err.line, 2);
	pcierr_config_done(&c);

	/* an unreadable main file (a directory) is an error too, not a default */
	ck_assert_int_eq(unlink(m), 0);
	ck_assert_int_eq(mkdir(m, 0755), 0);
	pcierr_config_init(&c);
	ck_assert_int_lt(pcierr_config_load(&c, m, d, &err), 0);
	ck_assert_str_eq(err.file, m);
	pcierr_config_done(&c);
	ck_assert_int_eq(rmdir(m), 0);
	teardown_dir();
}
END_TEST

/* [State] HistoryMax= / HistoryMaxAgeSec= (issue 10 point 6) */
static const struct {
	const char *text;
	unsigned int max;
	uint64_t age_usec;
} state_valid[] = {
	{ "", 10000, 31536000ULL * 1000000 },
	{ "[State]\n", 10000, 31536000ULL * 1000000 },
	{ "[State]\nHistoryMax=5\nHistoryMaxAgeSec=60\n", 5, 60000000 },
	{ "[State]\nHistoryMax=0\nHistoryMaxAgeSec=0\n", 0, 0 },
	{ "[State]\nHistoryMax=100000000\nHistoryMaxAgeSec=3153600000\n",
	  100000000, 3153600000ULL * 1000000 },
	{ "[State]\nHistoryMax=5\nHistoryMax=\nHistoryMaxAgeSec=1\nHistoryMaxAgeSec=\n",
	  10000, 31536000ULL * 1000000 },
	{ "[Policy]\nMaxFreezes=2\n[State]\nHistoryMax=7\n[Policy]\nMaxWaitSec=3\n",
	  7, 31536000ULL * 1000000 },
};

START_TEST(test_state_valid)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};

	pcierr_config_init(&c);
	ck_assert_msg(pcierr_config_parse_string(&c, state_valid[_i].text, "s.conf", &err) == 0,
		      "case %d: %s", _i, err.message);
	ck_assert_uint_eq(c.history_max, state_valid[_i].max);
	ck_assert_uint_eq(c.history_max_age_usec, state_valid[_i].age_usec);
	pcierr_config_done(&c);
	/* done leaves the defaults */
	ck_assert_uint_eq(c.history_max, PCIERR_DEFAULT_HISTORY_MAX);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
	unsigned int line;
} state_invalid[] = {
	{ "[State]\nHistoryMax=-1\n", "not a number", 2 },
	{ "[State]\nHistoryMax=100000001\n", "out of range", 2 },
	{ "[State]\nHistoryMaxAgeSec=3153600001\n", "out of range", 2 },
	{ "[State]\nHistoryMaxAgeSec=1h\n", "not a number", 2 },
	{ "[State]\nMaxFreezes=1\n", "unknown key MaxFreezes= in section [State]", 2 },
	{ "[State]\nMetricsPath=/x\n", "unknown key MetricsPath=", 2 },
	{ "[Policy]\nHistoryMax=1\n", "unknown key HistoryMax= in section [Policy]", 2 },
	{ "[Device 01:00.0]\nHistoryMaxAgeSec=1\n", "unknown key HistoryMaxAgeSec=", 2 },
	{ "[State 1]\n", "unknown section", 1 },
};

START_TEST(test_state_invalid)
{
	struct pcierr_config c;
	struct pcierr_config_error err = {};

	pcierr_config_init(&c);
	ck_assert_int_eq(pcierr_config_parse_string(&c, state_invalid[_i].text, "s.conf", &err),
			 -EINVAL);
	ck_assert_uint_eq(err.line, state_invalid[_i].line);
	ck_assert_msg(strstr(err.message, state_invalid[_i].msg), "case %d: '%s' lacks '%s'",
		      _i, err.message, state_invalid[_i].msg);
	pcierr_config_done(&c);
}
END_TEST

Suite *suite_config(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("valid");
	tcase_add_loop_test(tc, test_valid, 0, (int)(sizeof(valid) / sizeof(valid[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("invalid");
	tcase_add_loop_test(tc, test_invalid, 0, (int)(sizeof(invalid) / sizeof(invalid[0])));
	tcase_add_test(tc, test_nul_byte);
	tcase_add_loop_test(tc, test_method, 0, (int)(sizeof(methods) / sizeof(methods[0])));
	tcase_add_test(tc, test_shipped);
	tcase_add_test(tc, test_auto_recover);
	suite_add_tcase(s, tc);

	tc = tcase_create("state");
	tcase_add_loop_test(tc, test_state_valid, 0, (int)(sizeof(state_valid) / sizeof(state_valid[0])));
	tcase_add_loop_test(tc, test_state_invalid, 0,
			    (int)(sizeof(state_invalid) / sizeof(state_invalid[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("address");
	tcase_add_loop_test(tc, test_address, 0, (int)(sizeof(addresses) / sizeof(addresses[0])));
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_order);
	tcase_add_test(tc, test_load_lexical);
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_error);
	suite_add_tcase(s, tc);

	return s;
}

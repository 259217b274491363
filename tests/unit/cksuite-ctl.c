/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's pure parts (tools/pcierrctl/{json,format,model,output}.c):
 * the JSON writer (every document it writes must pass the strict RFC 8259
 * parser below, which also decodes strings, so escaped text round-trips),
 * addresses, time spans and points in time, and the text and JSON of
 * every command from hand-built models.
 *
 * The "cli" case runs build/pcierrctl itself (CK_PCIERRCTL) against a
 * fake org.pcierr1 on a private dbus-daemon: the wait of reset and
 * inject, exit statuses, error words, --json of the commands.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "../../lib/libpcierr/macros.h"
#include "../../tools/pcierrctl/format.h"
#include "../../tools/pcierrctl/json.h"
#include "../../tools/pcierrctl/model.h"
#include "../../tools/pcierrctl/output.h"
#include "../../tools/pcierrctl/pager.h"
#include "../tools/json-parse.h"
#include "cksuites.h"

#define N_OF(x)	(sizeof(x) / sizeof((x)[0]))
#define SEC	USEC_PER_SEC
/* Tue 2023-11-14 22:13:20 UTC */
#define T0	((uint64_t)1700000000 * SEC)

/* ------------------------------------------------------------------ */
/* Whether a text is one JSON value (the tests' strict parser,         */
/* tests/tools/json-parse.c); a top-level string is decoded into out   */
/* ------------------------------------------------------------------ */

static bool json_valid_decode(const char *text, char *out, size_t out_size)
{
	struct jval *v = json_parse(text, strlen(text), NULL);

	if (!v)
		return false;
	if (out && out_size > 0) {
		out[0] = 0;
		if (v->type == J_STRING)
			snprintf(out, out_size, "%s", v->text);
	}
	json_free(v);
	return true;
}

static bool json_valid(const char *text)
{
	return json_valid_decode(text, NULL, 0);
}

#define assert_json(text) \
	ck_assert_msg(json_valid(text), "not valid JSON: >>%s<<", text)

/* every line of text is one JSON value */
static void assert_json_lines(const char *text)
{
	char *copy = strdup(text), *save = NULL;

	ck_assert_ptr_nonnull(copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_json(l);
	free(copy);
}

#define assert_contains(text, part) \
	ck_assert_msg(strstr(text, part) != NULL, ">>%s<< lacks >>%s<<", text, part)
#define assert_prefix(text, prefix) \
	ck_assert_msg(strncmp(text, prefix, strlen(prefix)) == 0, ">>%s<< does not start with >>%s<<", \
		      text, prefix)
#define assert_lacks(text, part) \
	ck_assert_msg(strstr(text, part) == NULL, ">>%s<< has >>%s<<", text, part)

/* ------------------------------------------------------------------ */
/* Output into memory                                                  */
/* ------------------------------------------------------------------ */

struct capture {
	char *buf;
	size_t size;
	FILE *f;
};

static FILE *capture_start(struct capture *c)
{
	*c = (struct capture) {};
	c->f = open_memstream(&c->buf, &c->size);
	ck_assert_ptr_nonnull(c->f);
	return c->f;
}

/* the text written; the caller frees it */
static char *capture_end(struct capture *c)
{
	ck_assert_int_eq(fclose(c->f), 0);
	return c->buf;
}

/* Times in UTC for the tests, whatever the machine's zone */
static char *saved_tz;

static void tz_utc(void)
{
	const char *tz = getenv("TZ");

	saved_tz = tz ? strdup(tz) : NULL;
	setenv("TZ", "UTC", 1);
	tzset();
}

static void tz_restore(void)
{
	if (saved_tz)
		setenv("TZ", saved_tz, 1);
	else
		unsetenv("TZ");
	free(saved_tz);
	saved_tz = NULL;
	tzset();
}

/* ------------------------------------------------------------------ */
/* The JSON writer                                                     */
/* ------------------------------------------------------------------ */

static char *escape(const char *s)
{
	struct capture c;

	json_escape(capture_start(&c), s);
	return capture_end(&c);
}

START_TEST(test_json_escape)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "a\"b\\c/d", "\"a\\\"b\\\\c/d\"" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "\xc2\xb5s \xe2\x97\x8f \xf0\x9f\x98\x80", "\"\xc2\xb5s \xe2\x97\x8f \xf0\x9f\x98\x80\"" },
		/* not UTF-8: each bad byte one U+FFFD */
		{ "a\xff" "b", "\"a\\ufffdb\"" },
		{ "\xc0\x80", "\"\\ufffd\\ufffd\"" },			/* overlong NUL */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* a surrogate */
		{ "\xe2\x97", "\"\\ufffd\\ufffd\"" },			/* cut short */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
	};

	for (size_t i = 0; i < N_OF(cases); i++) {
		char *out = escape(cases[i].in);

		ck_assert_msg(strcmp(out, cases[i].out) == 0, "case %zu: >>%s<<, expected >>%s<<",
			      i, out, cases[i].out);
		assert_json(out);
		free(out);
	}
}
END_TEST

/* valid UTF-8 comes back as it went in; every byte value gives valid JSON */
START_TEST(test_json_roundtrip)
{
	static const char *const texts[] = {
		"", "0000:01:00.0", "quote \" backslash \\ slash /",
		"lines\nand\ttabs\r", "\x01\x02\x03\x1e\x1f\x7f",
		"Intel\xc2\xae Ethernet \xe2\x80\x94 \xe2\x97\x8f \xf0\x9f\x92\xa5",
		"too many freezes: please reseat or replace the card",
	};
	char bytes[256], decoded[2048];

	for (size_t i = 0; i < N_OF(texts); i++) {
		char *out = escape(texts[i]);

		ck_assert_msg(json_valid_decode(out, decoded, sizeof(decoded)), "%s", out);
		ck_assert_str_eq(decoded, texts[i]);
		free(out);
	}

	/* every byte 1..255: valid JSON; the ASCII part comes back */
	for (int b = 1; b < 256; b++)
		bytes[b - 1] = (char)b;
	bytes[255] = 0;
	{
		char *out = escape(bytes);

		ck_assert_msg(json_valid_decode(out, decoded, sizeof(decoded)), "%s", out);
		ck_assert_int_eq(strncmp(decoded, bytes, 127), 0);
		free(out);
	}
}
END_TEST

/* the test's parser is strict itself */
START_TEST(test_json_validator)
{
	static const char *const good[] = {
		"0", "-0", "1.5e-3", "[]", "{}", "[1,[2,{\"a\":null}]]", " true ",
		"\"\\ud83d\\ude00\"", "{\"a\":\"b\",\"c\":[false]}\n",
	};
	static const char *const bad[] = {
		"", "[1,]", "{\"a\":1,}", "[01]", "{'a':1}", "[1 2]", "tru", "{\"a\"}",
		"\"\x01\"", "\"\\x\"", "[1]]", "{\"a\":1}x", "\"\\ude00\"", "\"\\ud800\"",
		"\"\xff\"", "1.", "-", "+1", "NaN", "[\"a\"", "\"\xc0\x80\"",
	};

	for (size_t i = 0; i < N_OF(good); i++)
		ck_assert_msg(json_valid(good[i]), "rejected >>%s<<", good[i]);
	for (size_t i = 0; i < N_OF(bad); i++)
		ck_assert_msg(!json_valid(bad[i]), "accepted >>%s<<", bad[i]);
}
END_TEST

START_TEST(test_json_writer)
{
	static char *list[] = { "hot", "fundamental", NULL };
	struct json_writer w;
	struct capture c;
	char *out;

	json_init(&w, capture_start(&c), false);
	json_begin_object(&w);
	json_kv_string(&w, "s", "a\"b");
	json_kv_uint(&w, "u", UINT64_MAX);
	json_kv_int(&w, "i", -22);
	json_kv_bool(&w, "b", true);
	json_kv_null(&w, "n");
	json_kv_string(&w, "null string", NULL);
	json_kv_strv(&w, "l", list);
	json_kv_strv(&w, "empty", NULL);
	json_key(&w, "nested");
	json_begin_array(&w);
	json_begin_object(&w);
	json_end_object(&w);
	json_begin_array(&w);
	json_end_array(&w);
	json_uint(&w, 0);
	json_end_array(&w);
	json_end_object(&w);
	ck_assert_int_eq(json_finish(&w), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "{\"s\":\"a\\\"b\",\"u\":18446744073709551615,\"i\":-22,"
			 "\"b\":true,\"n\":null,\"null string\":null,"
			 "\"l\":[\"hot\",\"fundamental\"],\"empty\":[],"
			 "\"nested\":[{},[],0]}\n");
	assert_json(out);
	free(out);

	/* pretty: the same value, indented */
	json_init(&w, capture_start(&c), true);
	json_begin_object(&w);
	json_kv_strv(&w, "l", list);
	json_key(&w, "o");
	json_begin_object(&w);
	json_end_object(&w);
	json_end_object(&w);
	ck_assert_int_eq(json_finish(&w), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "{\n  \"l\": [\n    \"hot\",\n    \"fundamental\"\n  ],\n"
			 "  \"o\": {}\n}\n");
	assert_json(out);
	free(out);

	/* misuse is reported, not written as broken JSON silently */
	json_init(&w, capture_start(&c), false);
	json_key(&w, "top-level key");
	ck_assert_int_eq(json_finish(&w), -EINVAL);
	free(capture_end(&c));

	json_init(&w, capture_start(&c), false);
	json_begin_object(&w);
	json_key(&w, "a");
	json_key(&w, "b");
	json_end_object(&w);
	ck_assert_int_eq(json_finish(&w), -EINVAL);
	free(capture_end(&c));

	json_init(&w, capture_start(&c), false);
	json_begin_array(&w);
	ck_assert_int_eq(json_finish(&w), -EINVAL);
	free(capture_end(&c));

	json_init(&w, capture_start(&c), false);
	json_end_array(&w);
	ck_assert_int_eq(json_finish(&w), -EINVAL);
	free(capture_end(&c));

	json_init(&w, capture_start(&c), false);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_begin_array(&w);
	ck_assert_int_eq(json_finish(&w), -EINVAL);
	free(capture_end(&c));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Addresses and times                                                 */
/* ------------------------------------------------------------------ */

START_TEST(test_parse_address)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "01:00.0", "0000:01:00.0" },
		{ "0000:01:00.0", "0000:01:00.0" },
		{ "ABCD:0A:1f.7", "abcd:0a:1f.7" },
		{ "10000:00:00.0", "10000:00:00.0" },
	};
	static const char *const bad[] = {
		"", "1:00.0", "01:00", "01:00.8", "01:20.0", " 01:00.0", "01:00.0 ",
		"0000:01:00.0.1", "zz:00.0", "0000-01-00.0",
	};
	char out[PCIERR_ADDR_STRLEN];

	for (size_t i = 0; i < N_OF(good); i++) {
		ck_assert_int_eq(ctl_parse_address(good[i].in, out), 0);
		ck_assert_str_eq(out, good[i].out);
	}
	for (size_t i = 0; i < N_OF(bad); i++)
		ck_assert_msg(ctl_parse_address(bad[i], out) == -EINVAL, "accepted '%s'", bad[i]);
	ck_assert_int_eq(ctl_parse_address(NULL, out), -EINVAL);
}
END_TEST

START_TEST(test_parse_timespan)
{
	static const struct {
		const char *in;
		uint64_t usec;
	} good[] = {
		{ "90", 90 * SEC },
		{ "0", 0 },
		{ "1.5s", 1500 * USEC_PER_MSEC },
		{ "250ms", 250 * USEC_PER_MSEC },
		{ "2min 30s", 150 * SEC },
		{ "1h30min", 5400 * SEC },
		{ "2 days", 2 * USEC_PER_DAY },
		{ "1w", USEC_PER_WEEK },
		{ "3us", 3 },
		{ " 5 sec ", 5 * SEC },
		{ "1.25h", 4500 * SEC },
	};
	static const char *const bad[] = {
		"", " ", "abc", "1x", "1h 30", "-5", "1.s", ".5s", "5 s s", "s",
		"99999999999999999999", "18446744073709551615w",
	};
	uint64_t u;

	for (size_t i = 0; i < N_OF(good); i++) {
		ck_assert_msg(ctl_parse_timespan(good[i].in, USEC_PER_SEC, &u) == 0,
			      "rejected '%s'", good[i].in);
		ck_assert_msg(u == good[i].usec, "'%s': %llu", good[i].in, (unsigned long long)u);
	}
	for (size_t i = 0; i < N_OF(bad); i++)
		ck_assert_msg(ctl_parse_timespan(bad[i], USEC_PER_SEC, &u) < 0,
			      "accepted '%s'", bad[i]);
	/* another default unit */
	ck_assert_int_eq(ctl_parse_timespan("15", USEC_PER_MSEC, &u), 0);
	ck_assert_uint_eq(u, 15 * USEC_PER_MSEC);
}
END_TEST

START_TEST(test_parse_time)
{
	static const struct {
		const char *in;
		uint64_t usec;
	} good[] = {
		{ "now", T0 },
		{ "-1h", T0 - 3600 * SEC },
		{ "-90", T0 - 90 * SEC },
		{ "30min ago", T0 - 1800 * SEC },
		{ "today", (uint64_t)1699920000 * SEC },
		{ "yesterday", (uint64_t)1699833600 * SEC },
		{ "@1600000000", (uint64_t)1600000000 * SEC },
		{ "@1.5", 1500 * USEC_PER_MSEC },
		{ "2023-11-14", (uint64_t)1699920000 * SEC },
		{ "2023-11-14 12:00", (uint64_t)1699963200 * SEC },
		{ "2023-11-14 12:00:05", (uint64_t)1699963205 * SEC },
		{ "2023-11-14T12:00:05", (uint64_t)1699963205 * SEC },
		{ "12:00", (uint64_t)1699963200 * SEC },
		{ "12:00:30", (uint64_t)1699963230 * SEC },
	};
	static const char *const bad[] = {
		"", "tomorrowish", "@", "@x", "@-5", "-", "1h", "2023-13-01", "2023-11-14 25:00",
		"2023-11-14x", "ago", " ago",
	};
	uint64_t u;

	tz_utc();
	for (size_t i = 0; i < N_OF(good); i++) {
		ck_assert_msg(ctl_parse_time(good[i].in, T0, &u) == 0, "rejected '%s'", good[i].in);
		ck_assert_msg(u == good[i].usec, "'%s': %llu, expected %llu", good[i].in,
			      (unsigned long long)u, (unsigned long long)good[i].usec);
	}
	for (size_t i = 0; i < N_OF(bad); i++)
		ck_assert_msg(ctl_parse_time(bad[i], T0, &u) < 0, "accepted '%s'", bad[i]);
	/* long ago stays at the epoch */
	ck_assert_int_eq(ctl_parse_time("-100000w", T0, &u), 0);
	ck_assert_uint_eq(u, 0);
	tz_restore();
}
END_TEST

START_TEST(test_format_times)
{
	static const struct {
		uint64_t usec;
		const char *text;
	} spans[] = {
		{ 0, "0" }, { 500, "500us" }, { 1500, "1.5ms" }, { 132000, "132ms" },
		{ 1234567, "1.234s" }, { 15 * SEC, "15s" }, { 1500 * USEC_PER_MSEC, "1.5s" },
		{ 1250 * USEC_PER_MSEC, "1.25s" }, { 90 * SEC, "1min 30s" }, { 120 * SEC, "2min" },
		{ 3600 * SEC, "1h" }, { 3660 * SEC, "1h 1min" }, { 2 * USEC_PER_DAY + 3 * USEC_PER_HOUR, "2d 3h" },
		{ 7 * USEC_PER_DAY, "7d" },
	};
	char buf[CTL_TIMESPAN_MAX];

	for (size_t i = 0; i < N_OF(spans); i++)
		ck_assert_str_eq(ctl_format_timespan(buf, sizeof(buf), spans[i].usec), spans[i].text);

	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0, T0), "now");
	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0 - 500000, T0), "now");
	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0 - 5 * SEC - 3, T0), "5s ago");
	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0 - 3600 * SEC, T0), "1h ago");
	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0 - 90 * SEC, T0), "1min 30s ago");
	ck_assert_str_eq(ctl_format_relative(buf, sizeof(buf), T0 + 10 * SEC, T0), "in 10s");

	tz_utc();
	ck_assert_str_eq(ctl_format_timestamp(buf, sizeof(buf), T0, false), "2023-11-14 22:13:20");
	ck_assert_str_eq(ctl_format_timestamp(buf, sizeof(buf), T0 + 42000, true),
			 "2023-11-14 22:13:20.042");
	ck_assert_str_eq(ctl_format_timestamp(buf, sizeof(buf), 0, true), "-");
	tz_restore();

	/* too small a buffer: cut, terminated */
	ck_assert_str_eq(ctl_format_timespan(buf, 3, 1234567), "1.");
}
END_TEST

START_TEST(test_style)
{
	struct ctl_style plain = {}, fancy = { .color = true, .utf8 = true };

	ck_assert_str_eq(ctl_color(&plain, CTL_RED), "");
	ck_assert_str_eq(ctl_color(NULL, CTL_RED), "");
	ck_assert_str_eq(ctl_color(&fancy, CTL_NORMAL), "\x1b[0m");
	ck_assert_str_eq(ctl_glyph(&plain, CTL_TREE_BRANCH), "|-");
	ck_assert_str_eq(ctl_glyph(&fancy, CTL_TREE_RIGHT), "\u2514\u2500");
	ck_assert_uint_eq(ctl_text_width("abc"), 3);
	ck_assert_uint_eq(ctl_text_width("\u251c\u2500x"), 3);
	ck_assert_uint_eq(ctl_text_width("\x1b[0;32mok\x1b[0m"), 2);
	ck_assert_uint_eq(ctl_text_width(NULL), 0);
	ck_assert_int_eq(ctl_state_color("normal"), CTL_GREEN);
	ck_assert_int_eq(ctl_state_color("frozen"), CTL_YELLOW);
	ck_assert_int_eq(ctl_state_color("perm_failure"), CTL_RED);
	ck_assert_int_eq(ctl_state_color(""), CTL_NORMAL);
	ck_assert_int_eq(ctl_result_color("recovered"), CTL_GREEN);
	ck_assert_int_eq(ctl_result_color("need_reset"), CTL_NORMAL);
	ck_assert_int_eq(ctl_result_color("gone"), CTL_RED);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A model as pcierrd would show it: two slots, three devices          */
/* ------------------------------------------------------------------ */

static char *reset_types_a[] = { "hot", "fundamental", NULL };
static char *reset_types_b[] = { "hot", NULL };
static char *devices_a[] = { "0000:01:00.0", "0000:01:00.1", NULL };
static char *devices_b[] = { "0000:03:00.0", NULL };
static char *handlers_a0[] = { "error_detected", "slot_reset", "resume", NULL };
static char *no_strings[] = { NULL };

static struct ctl_slot slots[2];
static struct ctl_device devices[3];
static struct ctl_model model;

static void build_model(void)
{
	/* out of order on purpose: ctl_model_sort puts them in bus order */
	slots[0] = (struct ctl_slot) {
		.address = "0000:03:00.0", .reset_types = reset_types_b,
		.state = "disabled", .step = "idle", .devices = devices_b,
		.last_result = "disabled", .last_duration_usec = 2 * SEC,
		.last_recovery_usec = T0 - 60 * SEC, .last_message = "too many freezes",
		.disabled = true,
	};
	slots[1] = (struct ctl_slot) {
		.address = "0000:00:02.0", .reset_types = reset_types_a,
		.state = "frozen", .step = "error_detected", .stuck = true,
		.devices = devices_a, .last_result = "recovered",
		.last_duration_usec = 1234567, .last_recovery_usec = T0 - 3600 * SEC,
		.last_message = "recovered by a hot reset",
	};
	devices[0] = (struct ctl_device) {
		.address = "0000:03:00.0", .slot = "0000:03:00.0",
		.vendor_id = 0x10ec, .device_id = 0x8139, .subsystem_vendor_id = 0x10ec,
		.subsystem_id = 0x8139, .class = 0x020000,
		.vendor_name = "Realtek Semiconductor Co., Ltd.", .device_name = "",
		.identity = "10ec:8139:10ec:8139:addr:0000:03:00.0", .driver = "8139too",
		.handlers = no_strings, .state = "perm_failure", .freeze_count = 6,
		.max_freezes = 5, .last_error_usec = T0 - 3600 * SEC, .disabled = true,
		.disabled_reason = "too many freezes: please reseat or replace the card",
	};
	devices[1] = (struct ctl_device) {
		.address = "0000:01:00.1", .slot = "0000:00:02.0",
		.vendor_id = 0x1af4, .device_id = 0x1000, .class = 0x010000,
		.vendor_name = "", .device_name = "", .identity = "1af4:1000:0000:0000",
		.driver = "", .handlers = NULL, .state = "normal", .max_freezes = 2,
		.disabled_reason = "",
	};
	devices[2] = (struct ctl_device) {
		.address = "0000:01:00.0", .slot = "0000:00:02.0",
		.vendor_id = 0x8086, .device_id = 0x10d3, .subsystem_vendor_id = 0x8086,
		.subsystem_id = 0xa01f, .class = 0x020000,
		.vendor_name = "Intel Corporation",
		.device_name = "82574L Gigabit Network Connection",
		.identity = "8086:10d3:8086:a01f:dsn:0011223344556677", .driver = "e1000e",
		.handlers = handlers_a0, .state = "frozen", .error_generation = 7,
		.freeze_count = 3, .max_freezes = 5, .last_error_usec = T0 - 10 * SEC,
		.disabled_reason = "",
	};
	model = (struct ctl_model) {
		.manager = {
			.version = "0.1.0", .max_freezes = 5, .freeze_window_usec = 3600 * SEC,
			.max_wait_usec = 15 * SEC, .step_timeout_usec = 30 * SEC,
			.kernel_connected = true, .events_received = 42, .resyncs = 3,
			.recoveries_started = 2, .recoveries_succeeded = 1,
			.recoveries_failed = 1, .permanent_disables = 1,
		},
		.slots = slots, .n_slots = N_OF(slots),
		.devices = devices, .n_devices = N_OF(devices),
	};
	ctl_model_sort(&model);
}

START_TEST(test_model)
{
	struct ctl_model empty = {};

	build_model();
	ck_assert_str_eq(model.slots[0].address, "0000:00:02.0");
	ck_assert_str_eq(model.devices[0].address, "0000:01:00.0");
	ck_assert_str_eq(model.devices[2].address, "0000:03:00.0");
	ck_assert_ptr_eq(ctl_model_find_slot(&model, "0000:03:00.0"), &model.slots[1]);
	ck_assert_ptr_null(ctl_model_find_slot(&model, "0000:01:00.0"));
	ck_assert_ptr_eq(ctl_model_find_device(&model, "0000:01:00.1"), &model.devices[1]);
	ck_assert_ptr_null(ctl_model_find_device(&model, "0000:00:02.0"));
	ck_assert_ptr_eq(ctl_model_find_slot_for(&model, "0000:01:00.1"), &model.slots[0]);
	ck_assert_ptr_eq(ctl_model_find_slot_for(&model, "0000:00:02.0"), &model.slots[0]);
	ck_assert_ptr_null(ctl_model_find_slot_for(&model, "0000:05:00.0"));
	ck_assert_ptr_null(ctl_model_find_slot_for(&model, NULL));
	ck_assert_ptr_null(ctl_model_find_slot(&empty, "0000:00:02.0"));
	ck_assert_uint_eq(ctl_strv_length(devices_a), 2);
	ck_assert_uint_eq(ctl_strv_length(NULL), 0);
}
END_TEST

/* what ctl_model_done frees: a model on the heap, as ctl-bus.c builds it */
START_TEST(test_model_free)
{
	struct ctl_model m = {};
	struct ctl_history_entry *e = calloc(2, sizeof(*e));

	m.manager.version = strdup("1");
	m.slots = calloc(1, sizeof(*m.slots));
	m.n_slots = 1;
	m.slots[0].address = strdup("0000:00:02.0");
	m.slots[0].devices = calloc(2, sizeof(char *));
	m.slots[0].devices[0] = strdup("0000:01:00.0");
	m.devices = calloc(1, sizeof(*m.devices));
	m.n_devices = 1;
	m.devices[0].handlers = calloc(1, sizeof(char *));
	m.devices[0].driver = strdup("e1000e");
	ctl_model_done(&m);
	ck_assert_ptr_null(m.slots);
	ck_assert_uint_eq(m.n_devices, 0);

	e[1].message = strdup("x");
	ctl_history_free(e, 2);
	ctl_history_free(NULL, 0);
	ck_assert_ptr_null(strv_free(NULL));
}
END_TEST

static const char status_ascii[] =
	"pcierrd 0.1.0: kernel shim connected, 2 slots, 3 devices; at most 5 freezes in 1h\n"
	"* 0000:00:02.0  frozen, error_detected, stuck; last recovery: recovered in 1.234s, 1h ago\n"
	"|-0000:01:00.0  e1000e   frozen        3/5  Intel Corporation 82574L Gigabit Network Connection [8086:10d3]\n"
	"`-0000:01:00.1  -        normal        0/2  Device [1af4:1000]\n"
	"* 0000:03:00.0  disabled; last recovery: disabled after 2s, 1min ago (pcierrctl enable 0000:03:00.0)\n"
	"|   too many freezes\n"
	"`-0000:03:00.0  8139too  perm_failure  6/5  Realtek Semiconductor Co., Ltd. Device [10ec:8139]\n"
	"    disabled: too many freezes: please reseat or replace the card\n";

/* The slot's Backend, where pcierrd says it (docs/pseries.md) */
START_TEST(test_status_backend)
{
	struct ctl_style plain = {};
	struct ctl_slot *s;
	struct capture c;
	char *out;

	build_model();
	s = (struct ctl_slot *)ctl_model_find_slot(&model, "0000:00:02.0");
	ck_assert_ptr_nonnull(s);
	s->backend = (char *)"pseries-rtas";
	ck_assert_int_eq(ctl_render_status(capture_start(&c), &plain, &model, "0000:00:02.0",
					   false, T0), 0);
	out = capture_end(&c);
	assert_contains(out, "* 0000:00:02.0  frozen, error_detected, stuck; last recovery: "
			"recovered in 1.234s, 1h ago; recovered by pseries RTAS\n");
	free(out);
	ck_assert_int_eq(ctl_render_show(capture_start(&c), s, NULL), 0);
	out = capture_end(&c);
	assert_contains(out, "Disabled=no\nBackend=pseries-rtas\n");
	free(out);
	s->backend = (char *)"generic";
	ck_assert_int_eq(ctl_render_status(capture_start(&c), &plain, &model, "0000:00:02.0",
					   false, T0), 0);
	out = capture_end(&c);
	assert_contains(out, "; recovered by generic PCIe\n");
	free(out);
	s->backend = NULL;
}
END_TEST

START_TEST(test_status_text)
{
	struct ctl_style plain = {}, fancy = { .color = true, .utf8 = true };
	struct capture c;
	char *out;

	build_model();
	ck_assert_int_eq(ctl_render_status(capture_start(&c), &plain, &model, NULL, true, T0), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, status_ascii);
	free(out);

	/* one slot, no legend */
	ck_assert_int_eq(ctl_render_status(capture_start(&c), &plain, &model, "0000:00:02.0",
					   false, T0), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out,
		"* 0000:00:02.0  frozen, error_detected, stuck; last recovery: recovered in 1.234s, 1h ago\n"
		"|-0000:01:00.0  e1000e  frozen  3/5  Intel Corporation 82574L Gigabit Network Connection [8086:10d3]\n"
		"`-0000:01:00.1  -       normal  0/2  Device [1af4:1000]\n");
	free(out);

	/* colours and UTF-8: the same columns, escapes take no room */
	ck_assert_int_eq(ctl_render_status(capture_start(&c), &fancy, &model, NULL, true, T0), 0);
	out = capture_end(&c);
	assert_contains(out, "\u251c\u25000000:01:00.0  e1000e   \x1b[0;1;33mfrozen\x1b[0m        ");
	assert_contains(out, "\u2514\u25000000:01:00.1");
	assert_contains(out, "\x1b[0;1;31m\u25cf\x1b[0m \x1b[0;1;39m0000:00:02.0");
	assert_contains(out, "\x1b[0;32mconnected\x1b[0m");
	free(out);

	/* no slots, no kernel */
	{
		struct ctl_model empty = { .manager = { .version = "0.1.0" } };

		ck_assert_int_eq(ctl_render_status(capture_start(&c), &plain, &empty, NULL,
						   true, T0), 0);
		out = capture_end(&c);
		ck_assert_str_eq(out, "pcierrd 0.1.0: kernel shim not loaded (modprobe pcierr_shim), "
				 "0 slots, 0 devices\n");
		free(out);
	}
}
END_TEST

START_TEST(test_status_json)
{
	struct capture c;
	char *out;

	build_model();
	ck_assert_int_eq(ctl_json_status(capture_start(&c), false, &model, NULL), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_contains(out, "{\"Manager\":{\"Version\":\"0.1.0\",\"MaxFreezes\":5,"
			"\"FreezeWindowUSec\":3600000000,");
	assert_contains(out, "\"Slots\":[{\"Address\":\"0000:00:02.0\",\"ResetTypes\":[\"hot\","
			"\"fundamental\"],\"State\":\"frozen\",\"Step\":\"error_detected\","
			"\"Stuck\":true,\"Devices\":[\"0000:01:00.0\",\"0000:01:00.1\"],"
			"\"LastResult\":\"recovered\",\"LastDurationUSec\":1234567,");
	assert_contains(out, "{\"Address\":\"0000:01:00.1\",\"Slot\":\"0000:00:02.0\","
			"\"VendorId\":6900,\"DeviceId\":4096,");
	assert_contains(out, "\"Handlers\":[],");
	assert_contains(out, "\"Handlers\":[\"error_detected\",\"slot_reset\",\"resume\"]");
	free(out);

	/* one slot: its devices only */
	ck_assert_int_eq(ctl_json_status(capture_start(&c), true, &model, "0000:03:00.0"), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_contains(out, "\"Address\": \"0000:03:00.0\"");
	assert_lacks(out, "0000:01:00.0");
	assert_lacks(out, "0000:00:02.0");
	free(out);
}
END_TEST

START_TEST(test_list)
{
	struct ctl_style plain = {};
	struct ctl_model empty = {};
	struct capture c;
	char *out;

	build_model();
	ck_assert_int_eq(ctl_render_list(capture_start(&c), &plain, &model, true), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out,
		"DEVICE        SLOT          DRIVER   STATE     FREEZES  NAME\n"
		"0000:01:00.0  0000:00:02.0  e1000e   frozen    3/5      Intel Corporation 82574L Gigabit Network Connection [8086:10d3]\n"
		"0000:01:00.1  0000:00:02.0  -        normal    0/2      Device [1af4:1000]\n"
		"0000:03:00.0  0000:03:00.0  8139too  disabled  6/5      Realtek Semiconductor Co., Ltd. Device [10ec:8139]\n"
		"\n3 devices in 2 slots.\n");
	free(out);

	ck_assert_int_eq(ctl_render_list(capture_start(&c), &plain, &model, false), 0);
	out = capture_end(&c);
	assert_prefix(out, "0000:01:00.0  0000:00:02.0  e1000e   frozen");
	assert_lacks(out, "DEVICE");
	assert_lacks(out, "devices in");
	free(out);

	ck_assert_int_eq(ctl_render_list(capture_start(&c), &plain, &empty, true), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "No devices (the kernel shim is not loaded: modprobe pcierr_shim).\n");
	free(out);

	ck_assert_int_eq(ctl_json_list(capture_start(&c), false, &model), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_prefix(out, "[{\"Address\":\"0000:01:00.0\"");
	assert_contains(out, "\"DisabledReason\":\"too many freezes: please reseat or replace the card\"}]");
	free(out);

	ck_assert_int_eq(ctl_json_list(capture_start(&c), false, &empty), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "[]\n");
	free(out);
}
END_TEST

START_TEST(test_show)
{
	struct capture c;
	char *out;

	build_model();
	tz_utc();
	ck_assert_int_eq(ctl_render_show(capture_start(&c), ctl_model_find_slot(&model, "0000:00:02.0"),
					 NULL), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out,
		"Address=0000:00:02.0\n"
		"ResetTypes=hot fundamental\n"
		"State=frozen\n"
		"Step=error_detected\n"
		"Stuck=yes\n"
		"Devices=0000:01:00.0 0000:01:00.1\n"
		"LastResult=recovered\n"
		"LastDurationUSec=1.234s\n"
		"LastRecoveryUSec=Tue 2023-11-14 21:13:20 UTC\n"
		"LastMessage=recovered by a hot reset\n"
		"Disabled=no\n");
	free(out);

	/* a lone device on a root bus: slot and device at one address */
	ck_assert_int_eq(ctl_render_show(capture_start(&c), ctl_model_find_slot(&model, "0000:03:00.0"),
					 ctl_model_find_device(&model, "0000:03:00.0")), 0);
	out = capture_end(&c);
	assert_contains(out, "Disabled=yes\n\nAddress=0000:03:00.0\nSlot=0000:03:00.0\n"
			"VendorId=10ec\nDeviceId=8139\nSubsystemVendorId=10ec\nSubsystemId=8139\n"
			"Class=020000\nVendorName=Realtek Semiconductor Co., Ltd.\nDeviceName=\n");
	assert_contains(out, "Handlers=\nState=perm_failure\nErrorGeneration=0\nFreezeCount=6\n"
			"MaxFreezes=5\nLastErrorUSec=Tue 2023-11-14 21:13:20 UTC\nDisabled=yes\n"
			"DisabledReason=too many freezes: please reseat or replace the card\n");
	free(out);

	ck_assert_int_eq(ctl_render_show(capture_start(&c), NULL,
					 ctl_model_find_device(&model, "0000:01:00.1")), 0);
	out = capture_end(&c);
	assert_contains(out, "LastErrorUSec=\n");
	assert_contains(out, "Driver=\n");
	free(out);
	tz_restore();

	ck_assert_int_eq(ctl_json_show(capture_start(&c), false, NULL,
				       ctl_model_find_device(&model, "0000:01:00.0")), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_prefix(out, "{\"Slot\":null,\"Device\":{\"Address\":\"0000:01:00.0\"");
	free(out);

	ck_assert_int_eq(ctl_json_show(capture_start(&c), true,
				       ctl_model_find_slot(&model, "0000:03:00.0"),
				       ctl_model_find_device(&model, "0000:03:00.0")), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_contains(out, "\"Slot\": {");
	assert_contains(out, "\"Device\": {");
	free(out);
}
END_TEST

START_TEST(test_stats)
{
	struct ctl_style plain = {};
	struct capture c;
	char *out;

	build_model();
	ck_assert_int_eq(ctl_render_stats(capture_start(&c), &plain, &model.manager, true), 0);
	out = capture_end(&c);
	assert_contains(out, "             Version: 0.1.0\n         Kernel shim: connected\n"
			"     Events received: 42\n");
	assert_contains(out, "Recoveries succeeded: 1\n");
	assert_contains(out, "         Max freezes: 5 in 1h\n            Max wait: 15s\n"
			"        Step timeout: 30s\n");
	assert_contains(out, "not on\nD-Bus");
	free(out);

	ck_assert_int_eq(ctl_render_stats(capture_start(&c), &plain, &model.manager, false), 0);
	out = capture_end(&c);
	assert_lacks(out, "D-Bus");
	free(out);

	ck_assert_int_eq(ctl_json_stats(capture_start(&c), false, &model.manager), 0);
	out = capture_end(&c);
	assert_json(out);
	ck_assert_str_eq(out, "{\"Version\":\"0.1.0\",\"MaxFreezes\":5,\"FreezeWindowUSec\":3600000000,"
			 "\"MaxWaitUSec\":15000000,\"StepTimeoutUSec\":30000000,\"KernelConnected\":true,"
			 "\"EventsReceived\":42,\"EventsLost\":0,\"RecoveriesStarted\":2,"
			 "\"RecoveriesSucceeded\":1,\"RecoveriesFailed\":1,\"HotplugFallbacks\":0,"
			 "\"PermanentDisables\":1,\"Resyncs\":3}\n");
	free(out);
}
END_TEST

START_TEST(test_history)
{
	struct ctl_history_entry e[] = {
		{ .time_usec = T0, .slot = "0000:00:02.0", .device = "0000:01:00.0",
		  .kind = "event", .step = "frozen", .result = "inject", .results = "",
		  .message = "" },
		{ .time_usec = T0 + 132000, .slot = "0000:00:02.0", .device = "",
		  .kind = "step", .step = "error_detected", .result = "need_reset",
		  .results = "0000:01:00.0=need_reset", .duration_usec = 132000,
		  .message = "" },
		{ .time_usec = T0 + 2 * SEC, .slot = "0000:00:02.0", .device = "",
		  .kind = "recovery", .step = "callbacks", .result = "failed", .results = "",
		  .duration_usec = 2 * SEC, .error = -EIO,
		  .message = "odd \"text\"\n\twith \xff bytes" },
	};
	struct ctl_style plain = {};
	struct capture c;
	char *out;

	tz_utc();
	ck_assert_int_eq(ctl_render_history(capture_start(&c), &plain, e, N_OF(e), true), 0);
	out = capture_end(&c);
	assert_contains(out, "TIME                     SLOT          DEVICE        KIND      STEP"
			"            RESULT      DURATION  MESSAGE\n");
	assert_contains(out, "2023-11-14 22:13:20.000  0000:00:02.0  0000:01:00.0  event     frozen"
			"          inject      -\n");
	assert_contains(out, "2023-11-14 22:13:20.132  0000:00:02.0  -             step      error_detected"
			"  need_reset  132ms     [0000:01:00.0=need_reset]\n");
	assert_contains(out, "(error: Input/output error)");
	assert_contains(out, "\n3 entries.\n");
	free(out);
	tz_restore();

	ck_assert_int_eq(ctl_render_history(capture_start(&c), &plain, NULL, 0, true), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "No history entries.\n");
	free(out);
	ck_assert_int_eq(ctl_render_history(capture_start(&c), &plain, NULL, 0, false), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "");
	free(out);

	ck_assert_int_eq(ctl_json_history(capture_start(&c), false, e, N_OF(e)), 0);
	out = capture_end(&c);
	assert_json(out);
	assert_contains(out, "[{\"TimeUSec\":1700000000000000,\"Slot\":\"0000:00:02.0\","
			"\"Device\":\"0000:01:00.0\",\"Kind\":\"event\",\"Step\":\"frozen\","
			"\"Result\":\"inject\",\"Results\":\"\",\"DurationUSec\":0,\"Error\":0,"
			"\"Message\":\"\"}");
	assert_contains(out, "\"Error\":-5,\"Message\":\"odd \\\"text\\\"\\n\\twith \\ufffd bytes\"}]");
	free(out);

	ck_assert_int_eq(ctl_json_history(capture_start(&c), true, NULL, 0), 0);
	out = capture_end(&c);
	ck_assert_str_eq(out, "[]\n");
	free(out);
}
END_TEST

START_TEST(test_signals)
{
	const struct ctl_signal sigs[] = {
		{ .kind = CTL_SIGNAL_ERROR_DETECTED, .slot = "0000:00:02.0",
		  .device = "0000:01:00.0", .state = "frozen", .source = "inject" },
		{ .kind = CTL_SIGNAL_ERROR_DETECTED, .slot = "0000:00:02.0", .device = "",
		  .state = "perm_failure", .unavailable_ms = 250, .source = "aer" },
		{ .kind = CTL_SIGNAL_RECOVERY_STARTED, .slot = "0000:00:02.0", .mode = "callbacks" },
		{ .kind = CTL_SIGNAL_RECOVERY_STEP, .slot = "0000:00:02.0", .step = "error_detected",
		  .result = "need_reset", .duration_usec = 132000 },
		{ .kind = CTL_SIGNAL_RECOVERY_FINISHED, .slot = "0000:00:02.0",
		  .result = "recovered", .duration_usec = 674000 },
		{ .kind = CTL_SIGNAL_RECOVERY_FINISHED, .slot = "0000:00:02.0",
		  .result = "failed", .duration_usec = 3 * SEC },
		{ .kind = CTL_SIGNAL_PERMANENTLY_DISABLED, .slot = "0000:00:02.0",
		  .device = "0000:01:00.0", .reason = "too many \"freezes\"" },
		{ .kind = CTL_SIGNAL_INTERFACES_ADDED, .path = "/org/pcierr1/device/_30000_3a01_3a00_2e0",
		  .object = "device", .address = "0000:01:00.0" },
		{ .kind = CTL_SIGNAL_INTERFACES_REMOVED, .path = "/org/pcierr1/slot/_30000_3a00_3a02_2e0",
		  .object = "slot", .address = "0000:00:02.0" },
		{ .kind = CTL_SIGNAL_NAME_OWNER_CHANGED, .running = true },
		{ .kind = CTL_SIGNAL_NAME_OWNER_CHANGED, .time_usec = T0 + 5000 },
	};
	static const char text[] =
		"0000:00:02.0: error detected on 0000:01:00.0: frozen (inject)\n"
		"0000:00:02.0: error detected on the slot: perm_failure (aer), unavailable for 250 ms\n"
		"0000:00:02.0: recovery started (callbacks)\n"
		"0000:00:02.0:   error_detected  need_reset      132ms\n"
		"0000:00:02.0: recovered in 674ms\n"
		"0000:00:02.0: failed after 3s\n"
		"0000:00:02.0: permanently disabled (0000:01:00.0): too many \"freezes\"\n"
		"0000:01:00.0: device added\n"
		"0000:00:02.0: slot removed\n"
		"pcierrd started\n"
		"22:13:20.005 pcierrd stopped\n";
	struct ctl_style plain = {};
	struct ctl_signal bad = { .kind = _CTL_SIGNAL_MAX };
	struct capture c, cj;
	FILE *f, *fj;
	char *out;

	tz_utc();
	f = capture_start(&c);
	fj = capture_start(&cj);
	for (size_t i = 0; i < N_OF(sigs); i++) {
		ck_assert_int_eq(ctl_render_signal(f, &plain, &sigs[i]), 0);
		ck_assert_int_eq(ctl_json_signal(fj, &sigs[i]), 0);
	}
	ck_assert_int_eq(ctl_render_signal(f, &plain, &bad), -EINVAL);
	ck_assert_int_eq(ctl_json_signal(fj, &bad), -EINVAL);
	out = capture_end(&c);
	ck_assert_str_eq(out, text);
	free(out);
	tz_restore();

	out = capture_end(&cj);
	assert_json_lines(out);
	assert_contains(out, "{\"TimeUSec\":0,\"Signal\":\"ErrorDetected\",\"Slot\":\"0000:00:02.0\","
			"\"Device\":\"0000:01:00.0\",\"State\":\"frozen\",\"UnavailableMSec\":0,"
			"\"Source\":\"inject\"}\n");
	assert_contains(out, "{\"TimeUSec\":0,\"Signal\":\"RecoveryStep\",\"Slot\":\"0000:00:02.0\","
			"\"Step\":\"error_detected\",\"Result\":\"need_reset\",\"DurationUSec\":132000}\n");
	assert_contains(out, "\"Signal\":\"InterfacesAdded\",\"Path\":\"/org/pcierr1/device/_30000_3a01_3a00_2e0\","
			"\"Object\":\"device\",\"Address\":\"0000:01:00.0\"}\n");
	assert_contains(out, "{\"TimeUSec\":1700000000005000,\"Signal\":\"NameOwnerChanged\","
			"\"Running\":false}\n");
	ck_assert_str_eq(ctl_signal_name(CTL_SIGNAL_RECOVERY_FINISHED), "RecoveryFinished");
	ck_assert_ptr_null(ctl_signal_name(_CTL_SIGNAL_MAX));
	free(out);
}
END_TEST

START_TEST(test_recovery_json)
{
	struct ctl_step steps[] = {
		{ "error_detected", "need_reset", 132000 },
		{ "reset", "ok", 258000 },
		{ "slot_reset", "recovered", 151000 },
		{ "resume", "recovered", 132000 },
	};
	struct ctl_recovery done = {
		.slot = "0000:00:02.0", .has_seq = true, .seq = 7, .result = "recovered",
		.has_duration = true, .duration_usec = 674000, .steps = steps,
		.n_steps = N_OF(steps),
	};
	struct ctl_recovery started = { .slot = "0000:00:02.0" };
	struct capture c;
	char *out;

	ck_assert_int_eq(ctl_json_recovery(capture_start(&c), false, &done), 0);
	out = capture_end(&c);
	assert_json(out);
	ck_assert_str_eq(out, "{\"Slot\":\"0000:00:02.0\",\"Seq\":7,\"Result\":\"recovered\","
			 "\"DurationUSec\":674000,\"Steps\":[{\"Step\":\"error_detected\","
			 "\"Result\":\"need_reset\",\"DurationUSec\":132000},{\"Step\":\"reset\","
			 "\"Result\":\"ok\",\"DurationUSec\":258000},{\"Step\":\"slot_reset\","
			 "\"Result\":\"recovered\",\"DurationUSec\":151000},{\"Step\":\"resume\","
			 "\"Result\":\"recovered\",\"DurationUSec\":132000}],\"Reason\":null}\n");
	free(out);

	ck_assert_int_eq(ctl_json_recovery(capture_start(&c), true, &started), 0);
	out = capture_end(&c);
	assert_json(out);
	ck_assert_str_eq(out, "{\n  \"Slot\": \"0000:00:02.0\",\n  \"Seq\": null,\n"
			 "  \"Result\": null,\n  \"DurationUSec\": null,\n  \"Steps\": [],\n"
			 "  \"Reason\": null\n}\n");
	free(out);
}
END_TEST

/* ------------------------------------------------------------------ */
/* build/pcierrctl against a fake org.pcierr1 on a private bus          */
/* ------------------------------------------------------------------ */

#ifndef CK_PCIERRCTL
#define CK_PCIERRCTL "build/pcierrctl"
#endif

#define F_SLOT		"0000:00:02.0"
#define F_DEV		"0000:01:00.0"
#define F_SLOT_PATH	"/org/pcierr1/slot/_30000_3a00_3a02_2e0"
#define F_DEV_PATH	"/org/pcierr1/device/_30000_3a01_3a00_2e0"
#define F_MANAGER	"org.pcierr1.Manager"

static struct {
	/* what the next Reset/Inject does */
	const char *error_name;		/* fail with this error */
	const char *finish;		/* the RecoveryFinished result; NULL: none */
	bool reason_in_finish;		/* ... with its reason, as U9's pcierrd */
	/* what came */
	char method[32];
	char arg1[64];
	char arg2[64];
	uint32_t ms;
	/* properties */
	const char *version;
	const char *slot_addr, *slot_state, *slot_step;
	const char *dev_addr, *dev_driver, *dev_state, *dev_vendor_name;
	uint32_t freeze_count;
	uint32_t max_freezes;
	int kernel_connected;
} fk;

static char cli_tmpdir[64];
static char cli_address[512];
static pid_t cli_dbus_pid = -1;
static sd_bus *fake_bus;
static sd_bus_slot *fake_slots[6];

static int fake_emit_recovery(sd_bus *bus, bool inject)
{
	static const char *const steps[][2] = {
		{ "error_detected", "need_reset" }, { "reset", "ok" },
		{ "slot_reset", "recovered" }, { "resume", "recovered" },
	};

	sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "ErrorDetected", "sssus", F_SLOT, F_DEV,
			   "frozen", 0, inject ? "inject" : "admin");
	sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryStarted", "ss", F_SLOT,
			   "callbacks");
	/* another slot's recovery in between: none of ours */
	sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryFinished", "sst",
			   "0000:00:03.0", "failed", (uint64_t)1);
	for (size_t i = 0; i < N_OF(steps); i++)
		sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryStep", "ssst", F_SLOT,
				   steps[i][0], steps[i][1], (uint64_t)(i + 1) * 1000);
	if (fk.finish && fk.reason_in_finish)
		/* U9: the reason in the one signal, no PermanentlyDisabled
		 * to wait for */
		return sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryFinished",
					  "sststo", F_SLOT, fk.finish, (uint64_t)5000,
					  "froze 6 times; reseat it", (uint64_t)9, F_SLOT_PATH);
	if (fk.finish && strcmp(fk.finish, "disabled") == 0) {
		sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryFinished", "sst",
				   F_SLOT, fk.finish, (uint64_t)5000);
		return sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "PermanentlyDisabled",
					  "sss", F_SLOT, F_DEV, "too many freezes; reseat it");
	}
	if (fk.finish)
		return sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryFinished",
					  "sst", F_SLOT, fk.finish, (uint64_t)5000);
	return 0;
}

static int fake_act(sd_bus_message *m, bool inject, sd_bus_error *error)
{
	sd_bus *bus = sd_bus_message_get_bus(m);
	const char *a, *b;
	int r;

	if (inject)
		r = sd_bus_message_read(m, "ssu", &a, &b, &fk.ms);
	else
		r = sd_bus_message_read(m, "ss", &a, &b);
	if (r < 0)
		return r;
	snprintf(fk.method, sizeof(fk.method), "%s", inject ? "Inject" : "Reset");
	snprintf(fk.arg1, sizeof(fk.arg1), "%s", a);
	snprintf(fk.arg2, sizeof(fk.arg2), "%s", b);
	if (fk.error_name)
		return sd_bus_error_setf(error, fk.error_name, "fake %s refused", fk.method);
	/* the end of an older recovery of the slot, sent before the reply */
	sd_bus_emit_signal(bus, "/org/pcierr1", F_MANAGER, "RecoveryFinished", "sst", F_SLOT,
			   "failed", (uint64_t)1);
	r = inject ? sd_bus_reply_method_return(m, "t", (uint64_t)77) :
		     sd_bus_reply_method_return(m, NULL);
	if (r < 0)
		return r;
	return fake_emit_recovery(bus, inject);
}

static int fake_reset(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return fake_act(m, false, error);
}

static int fake_inject(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return fake_act(m, true, error);
}

static int fake_address_method(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *a;
	int r = sd_bus_message_read(m, "s", &a);

	if (r < 0)
		return r;
	snprintf(fk.method, sizeof(fk.method), "%s", sd_bus_message_get_member(m));
	snprintf(fk.arg1, sizeof(fk.arg1), "%s", a);
	if (strcmp(fk.method, "GetSlot") == 0) {
		if (strcmp(a, F_SLOT) != 0 && strcmp(a, F_DEV) != 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "No PCI slot or device '%s'", a);
		return sd_bus_reply_method_return(m, "o", F_SLOT_PATH);
	}
	if (fk.error_name)
		return sd_bus_error_setf(error, fk.error_name, "fake %s refused", fk.method);
	return sd_bus_reply_method_return(m, NULL);
}

static int fake_history(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	uint64_t since;
	uint32_t limit;
	const char *a;
	int r;

	r = sd_bus_message_read(m, "tsu", &since, &a, &limit);
	if (r < 0)
		return r;
	snprintf(fk.method, sizeof(fk.method), "GetHistory");
	snprintf(fk.arg1, sizeof(fk.arg1), "%s", a);
	snprintf(fk.arg2, sizeof(fk.arg2), "%llu", (unsigned long long)since);
	fk.ms = limit;
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "a(tsssssstis)", 2,
			T0, F_SLOT, F_DEV, "event", "frozen", "inject", "", (uint64_t)0, 0, "",
			T0 + 1, F_SLOT, "", "recovery", "callbacks", "recovered", "",
			(uint64_t)5000, 0, "a \"quoted\"\nmessage");
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

static int fake_devices(sd_bus *bus, const char *path, const char *interface,
			const char *property, sd_bus_message *reply, void *userdata,
			sd_bus_error *error)
{
	return sd_bus_message_append(reply, "ao", 1, F_DEV_PATH);
}

static int fake_slot_path(sd_bus *bus, const char *path, const char *interface,
			  const char *property, sd_bus_message *reply, void *userdata,
			  sd_bus_error *error)
{
	return sd_bus_message_append(reply, "o", F_SLOT_PATH);
}

static int fake_strv(sd_bus *bus, const char *path, const char *interface,
		     const char *property, sd_bus_message *reply, void *userdata,
		     sd_bus_error *error)
{
	return sd_bus_message_append(reply, "as", 2, "a", "b");
}

static const sd_bus_vtable fake_manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("MaxFreezes", "u", NULL, 0, 0),
	SD_BUS_PROPERTY("KernelConnected", "b", NULL, 0, 0),
	/* one pcierrctl does not know: skipped */
	SD_BUS_PROPERTY("SomethingNew", "as", NULL, 0, 0),
	SD_BUS_METHOD("Reset", "ss", "", fake_reset, 0),
	SD_BUS_METHOD("Inject", "ssu", "t", fake_inject, 0),
	SD_BUS_METHOD("Enable", "s", "", fake_address_method, 0),
	SD_BUS_METHOD("ClearFreezeCount", "s", "", fake_address_method, 0),
	SD_BUS_METHOD("GetSlot", "s", "o", fake_address_method, 0),
	SD_BUS_METHOD("GetHistory", "tsu", "a(tsssssstis)", fake_history, 0),
	SD_BUS_VTABLE_END
};

static const sd_bus_vtable fake_slot_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Address", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("State", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("Step", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("Devices", "ao", fake_devices, 0, 0),
	SD_BUS_VTABLE_END
};

static const sd_bus_vtable fake_device_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Address", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("Slot", "o", fake_slot_path, 0, 0),
	SD_BUS_PROPERTY("Driver", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("State", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("VendorName", "s", NULL, 0, 0),
	SD_BUS_PROPERTY("FreezeCount", "u", NULL, 0, 0),
	SD_BUS_PROPERTY("MaxFreezes", "u", NULL, 0, 0),
	SD_BUS_VTABLE_END
};

/* The properties' offsets: one vtable entry each, relative to fk */
static sd_bus_vtable manager_vt[N_OF(fake_manager_vtable)];
static sd_bus_vtable slot_vt[N_OF(fake_slot_vtable)];
static sd_bus_vtable device_vt[N_OF(fake_device_vtable)];

static void set_offsets(sd_bus_vtable *vt, const sd_bus_vtable *from, size_t n,
			const char *const *names, const size_t *offsets, size_t n_names)
{
	memcpy(vt, from, n * sizeof(*vt));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n_names; k++)
			if (vt[i].type == _SD_BUS_VTABLE_PROPERTY &&
			    strcmp(vt[i].x.property.member, names[k]) == 0)
				vt[i].x.property.offset = offsets[k];
}

static void cli_dbus_start(void)
{
	char conf[128], text[1024];
	int pipefd[2];
	size_t len = 0;
	FILE *f;

	snprintf(cli_tmpdir, sizeof(cli_tmpdir), "/tmp/cksuite-ctl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(cli_tmpdir));
	snprintf(conf, sizeof(conf), "%s/bus.conf", cli_tmpdir);
	f = fopen(conf, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
		" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		"<busconfig><type>session</type><listen>unix:path=%s/bus</listen>"
		"<auth>EXTERNAL</auth><policy context=\"default\">"
		"<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
		"<allow own=\"*\"/></policy></busconfig>\n", cli_tmpdir);
	ck_assert_int_eq(fclose(f), 0);

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	cli_dbus_pid = fork();
	ck_assert_int_ge(cli_dbus_pid, 0);
	if (cli_dbus_pid == 0) {
		char confarg[160];
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(pipefd[1], 3) < 0)
			_exit(127);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		snprintf(confarg, sizeof(confarg), "--config-file=%s", conf);
		execlp("dbus-daemon", "dbus-daemon", confarg, "--nofork", "--print-address=3",
		       (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (!strchr(cli_address, '\n') && len < sizeof(cli_address) - 1) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		ssize_t n;

		ck_assert_msg(poll(&p, 1, 10000) == 1, "dbus-daemon did not start in 10 s");
		n = read(pipefd[0], cli_address + len, sizeof(cli_address) - 1 - len);
		ck_assert_msg(n > 0, "dbus-daemon did not start (scripts/install-deps)");
		len += (size_t)n;
		cli_address[len] = 0;
	}
	close(pipefd[0]);
	cli_address[strcspn(cli_address, "\n")] = 0;
	(void)text;
}

static void cli_setup(void)
{
	static const char *const mnames[] = { "Version", "MaxFreezes", "KernelConnected",
					      "SomethingNew" };
	static const size_t moffs[] = { offsetof(typeof(fk), version),
					offsetof(typeof(fk), max_freezes),
					offsetof(typeof(fk), kernel_connected),
					offsetof(typeof(fk), version) };
	static const char *const snames[] = { "Address", "State", "Step" };
	static const size_t soffs[] = { offsetof(typeof(fk), slot_addr),
					offsetof(typeof(fk), slot_state),
					offsetof(typeof(fk), slot_step) };
	static const char *const dnames[] = { "Address", "Driver", "State", "VendorName",
					      "FreezeCount", "MaxFreezes" };
	static const size_t doffs[] = { offsetof(typeof(fk), dev_addr),
					offsetof(typeof(fk), dev_driver),
					offsetof(typeof(fk), dev_state),
					offsetof(typeof(fk), dev_vendor_name),
					offsetof(typeof(fk), freeze_count),
					offsetof(typeof(fk), max_freezes) };

	memset(&fk, 0, sizeof(fk));
	fk.finish = "recovered";
	fk.version = "9.9";
	fk.slot_addr = F_SLOT;
	fk.slot_state = "normal";
	fk.slot_step = "idle";
	fk.dev_addr = F_DEV;
	fk.dev_driver = "e1000e";
	fk.dev_state = "normal";
	fk.dev_vendor_name = "Intel \"Corp\"";
	fk.freeze_count = 1;
	fk.max_freezes = 5;
	fk.kernel_connected = 1;

	set_offsets(manager_vt, fake_manager_vtable, N_OF(manager_vt), mnames, moffs, N_OF(mnames));
	set_offsets(slot_vt, fake_slot_vtable, N_OF(slot_vt), snames, soffs, N_OF(snames));
	set_offsets(device_vt, fake_device_vtable, N_OF(device_vt), dnames, doffs, N_OF(dnames));
	/* "SomethingNew" (as) would read a string pointer as a list: give it a getter */
	for (size_t i = 0; i < N_OF(manager_vt); i++)
		if (manager_vt[i].type == _SD_BUS_VTABLE_PROPERTY &&
		    strcmp(manager_vt[i].x.property.member, "SomethingNew") == 0)
			manager_vt[i].x.property.get = fake_strv;

	cli_dbus_start();
	ck_assert_int_ge(sd_bus_new(&fake_bus), 0);
	ck_assert_int_ge(sd_bus_set_address(fake_bus, cli_address), 0);
	ck_assert_int_ge(sd_bus_set_bus_client(fake_bus, 1), 0);
	ck_assert_int_ge(sd_bus_start(fake_bus), 0);
	ck_assert_int_ge(sd_bus_add_object_vtable(fake_bus, &fake_slots[0], "/org/pcierr1",
						  F_MANAGER, manager_vt, &fk), 0);
	ck_assert_int_ge(sd_bus_add_object_manager(fake_bus, &fake_slots[1], "/org/pcierr1"), 0);
	ck_assert_int_ge(sd_bus_add_object_vtable(fake_bus, &fake_slots[2], F_SLOT_PATH,
						  "org.pcierr1.Slot", slot_vt, &fk), 0);
	ck_assert_int_ge(sd_bus_add_object_vtable(fake_bus, &fake_slots[3], F_DEV_PATH,
						  "org.pcierr1.Device", device_vt, &fk), 0);
	ck_assert_int_ge(sd_bus_request_name(fake_bus, "org.pcierr1", 0), 0);
}

static void cli_teardown(void)
{
	for (size_t i = 0; i < N_OF(fake_slots); i++)
		fake_slots[i] = sd_bus_slot_unref(fake_slots[i]);
	fake_bus = sd_bus_flush_close_unref(fake_bus);
	if (cli_dbus_pid > 0) {
		kill(cli_dbus_pid, SIGTERM);
		while (waitpid(cli_dbus_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	cli_dbus_pid = -1;
	cli_address[0] = 0;
	if (cli_tmpdir[0]) {
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/bus.conf", cli_tmpdir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/bus", cli_tmpdir);
		unlink(p);
		rmdir(cli_tmpdir);
		cli_tmpdir[0] = 0;
	}
}

static char *read_all(int fd)
{
	char *buf = NULL;
	size_t len = 0, size = 0;

	for (;;) {
		ssize_t n;

		if (size - len < 4096) {
			size = size ? size * 2 : 8192;
			buf = realloc(buf, size);
			ck_assert_ptr_nonnull(buf);
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		ck_assert_int_ge(n, 0);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

/*
 * Run pcierrctl with args (NULL-terminated) while serving the fake; its
 * stdout and stderr into *out and *err. Returns its exit status.
 */
static int run_ctl(char **out, char **err, const char *const *args)
{
	const char *bin = getenv("PCIERRCTL") ? getenv("PCIERRCTL") : CK_PCIERRCTL;
	char outpath[128], errpath[128];
	const char *argv[32] = { "pcierrctl" };
	uint64_t deadline;
	int status = -1, fdo, fde;
	size_t n = 1;
	pid_t pid;

	ck_assert_msg(access(bin, X_OK) == 0, "%s: %s (make pcierrctl)", bin, strerror(errno));
	for (; args[n - 1] && n < N_OF(argv) - 1; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	snprintf(outpath, sizeof(outpath), "%s/out", cli_tmpdir);
	snprintf(errpath, sizeof(errpath), "%s/err", cli_tmpdir);
	fdo = open(outpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fde = open(errpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fdo, 0);
	ck_assert_int_ge(fde, 0);

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fdo, STDOUT_FILENO);
		dup2(fde, STDERR_FILENO);
		setenv("DBUS_SYSTEM_BUS_ADDRESS", cli_address, 1);
		setenv("LC_ALL", "C", 1);
		unsetenv("NO_COLOR");
		execv(bin, (char *const *)argv);
		_exit(127);
	}

	deadline = (uint64_t)time(NULL) + 20;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		int r;

		if (w == pid)
			break;
		ck_assert_int_eq(w, 0);
		if ((uint64_t)time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			ck_abort_msg("pcierrctl did not finish in 20 s");
		}
		while ((r = sd_bus_process(fake_bus, NULL)) > 0)
			;
		ck_assert_int_ge(r, 0);
		sd_bus_wait(fake_bus, 20000);
	}
	/* what it left unread (signals) does not matter */
	while (sd_bus_process(fake_bus, NULL) > 0)
		;

	lseek(fdo, 0, SEEK_SET);
	lseek(fde, 0, SEEK_SET);
	*out = read_all(fdo);
	*err = read_all(fde);
	close(fdo);
	close(fde);
	unlink(outpath);
	unlink(errpath);
	ck_assert_msg(WIFEXITED(status), "pcierrctl died: status %d; stderr: %s", status, *err);
	return WEXITSTATUS(status);
}

#define RUN(out, err, ...) run_ctl(out, err, (const char *const[]) { __VA_ARGS__, NULL })

/* only the exit status */
static int run_status(const char *const *args)
{
	char *out, *err;
	int r = run_ctl(&out, &err, args);

	free(out);
	free(err);
	return r;
}

#define RUN_STATUS(...) run_status((const char *const[]) { __VA_ARGS__, NULL })

START_TEST(test_cli_reset)
{
	char *out, *err;

	/* the stale "failed" before the reply and the other slot's end do not count */
	ck_assert_int_eq(RUN(&out, &err, "reset", "01:00.0"), 0);
	ck_assert_str_eq(fk.method, "Reset");
	ck_assert_str_eq(fk.arg1, F_DEV);
	ck_assert_str_eq(fk.arg2, "hot");
	ck_assert_str_eq(out,
		F_SLOT ": error detected on " F_DEV ": frozen (admin)\n"
		F_SLOT ": recovery started (callbacks)\n"
		F_SLOT ":   error_detected  need_reset      1.0ms\n"
		F_SLOT ":   reset           ok              2.0ms\n"
		F_SLOT ":   slot_reset      recovered       3.0ms\n"
		F_SLOT ":   resume          recovered       4.0ms\n"
		F_SLOT ": recovered in 5.0ms\n");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);

	ck_assert_int_eq(RUN(&out, &err, "--json", "reset", "--fundamental", F_SLOT), 0);
	ck_assert_str_eq(fk.arg2, "fundamental");
	assert_json(out);
	ck_assert_str_eq(out, "{\"Slot\":\"" F_SLOT "\",\"Seq\":null,\"Result\":\"recovered\","
			 "\"DurationUSec\":5000,\"Steps\":[{\"Step\":\"error_detected\","
			 "\"Result\":\"need_reset\",\"DurationUSec\":1000},{\"Step\":\"reset\","
			 "\"Result\":\"ok\",\"DurationUSec\":2000},{\"Step\":\"slot_reset\","
			 "\"Result\":\"recovered\",\"DurationUSec\":3000},{\"Step\":\"resume\","
			 "\"Result\":\"recovered\",\"DurationUSec\":4000}],\"Reason\":null}\n");
	free(out);
	free(err);

	/* failed: exit status 1 */
	fk.finish = "failed";
	ck_assert_int_eq(RUN(&out, &err, "-q", "reset", F_DEV), 1);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);

	/* disabled, with its reason */
	fk.finish = "disabled";
	ck_assert_int_eq(RUN(&out, &err, "--json", "inject", F_DEV, "--state=perm-failure",
			     "--unavailable=300"), 1);
	ck_assert_str_eq(fk.method, "Inject");
	ck_assert_str_eq(fk.arg2, "perm_failure");
	ck_assert_uint_eq(fk.ms, 300);
	assert_json(out);
	assert_prefix(out, "{\"Slot\":\"" F_SLOT "\",\"Seq\":77,\"Result\":\"disabled\"");
	assert_contains(out, "\"Reason\":\"too many freezes; reseat it\"}");
	free(out);
	free(err);

	/* disabled, its reason in RecoveryFinished itself (U9) */
	fk.reason_in_finish = true;
	ck_assert_int_eq(RUN(&out, &err, "--json", "reset", F_DEV), 1);
	assert_json(out);
	assert_contains(out, "\"Result\":\"disabled\"");
	assert_contains(out, "\"Reason\":\"froze 6 times; reseat it\"}");
	fk.reason_in_finish = false;
	free(out);
	free(err);

	/* no end in time */
	fk.finish = NULL;
	ck_assert_int_eq(RUN(&out, &err, "--json", "inject", F_DEV, "--timeout=0.3"), 1);
	assert_json(out);
	assert_contains(out, "\"Result\":\"timeout\",\"DurationUSec\":null");
	assert_contains(err, "did not finish its recovery within 300ms");
	free(out);
	free(err);

	/* --no-block: back at once */
	ck_assert_int_eq(RUN(&out, &err, "--no-block", "--json", "inject", F_DEV), 0);
	ck_assert_str_eq(out, "{\"Slot\":\"" F_SLOT "\",\"Seq\":77,\"Result\":null,"
			 "\"DurationUSec\":null,\"Steps\":[],\"Reason\":null}\n");
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "reset", "--no-block", F_DEV), 0);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(test_cli_errors)
{
	static const struct {
		const char *name;
		const char *words;
	} errors[] = {
		/* pcierrd's reason (polkit said no, or root only) */
		{ SD_BUS_ERROR_ACCESS_DENIED, "Permission denied: fake Reset refused. Try sudo.\n" },
		{ "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
		  "Permission denied: authentication is required to reset slots; run pcierrctl "
		  "on a terminal without --no-ask-password to be asked, or use sudo.\n" },
		{ "org.pcierr1.Error.KernelDisconnected",
		  "Failed to reset 0000:01:00.0: the kernel shim is not loaded (modprobe pcierr_shim).\n" },
		{ "org.pcierr1.Error.Busy",
		  "Failed to reset 0000:01:00.0: fake Reset refused (pcierrctl monitor shows when it is done).\n" },
		{ SD_BUS_ERROR_INVALID_ARGS, "Failed to reset 0000:01:00.0: fake Reset refused.\n" },
	};
	char *out, *err;

	for (size_t i = 0; i < N_OF(errors); i++) {
		fk.error_name = errors[i].name;
		ck_assert_int_eq(RUN(&out, &err, "reset", F_DEV), 1);
		ck_assert_str_eq(err, errors[i].words);
		free(out);
		free(err);
	}
	fk.error_name = SD_BUS_ERROR_ACCESS_DENIED;
	ck_assert_int_eq(RUN(&out, &err, "enable", F_SLOT), 1);
	ck_assert_str_eq(err, "Permission denied: fake Enable refused. Try sudo.\n");
	free(out);
	free(err);
	fk.error_name = NULL;

	/* unknown address: 1; bad address and usage: 2 */
	ck_assert_int_eq(RUN(&out, &err, "reset", "05:00.0"), 1);
	ck_assert_str_eq(err, "Failed to find the slot of 0000:05:00.0: No PCI slot or device "
			 "'0000:05:00.0'.\n");
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "show", "05:00.0"), 1);
	assert_contains(err, "No PCI slot or device 0000:05:00.0 is known to pcierrd");
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "status", "1:0.0"), 2);
	assert_contains(err, "Invalid PCI address '1:0.0'");
	free(out);
	free(err);
	/* said before connecting: with no bus at all, the address is the error */
	{
		char saved[sizeof(cli_address)];

		memcpy(saved, cli_address, sizeof(saved));
		snprintf(cli_address, sizeof(cli_address), "unix:path=%s/no-bus", cli_tmpdir);
		ck_assert_int_eq(RUN(&out, &err, "show", "zz"), 2);
		ck_assert_str_eq(err, "Invalid PCI address 'zz': expected DDDD:BB:DD.F or BB:DD.F "
				 "(for example 0000:01:00.0 or 01:00.0).\n");
		free(out);
		free(err);
		ck_assert_int_eq(RUN(&out, &err, "inject", "--no-ask-password", "0000:01:00"), 2);
		free(out);
		free(err);
		ck_assert_int_eq(RUN(&out, &err, "show", F_DEV), 1);
		assert_contains(err, "Failed to connect to the system bus");
		free(out);
		free(err);
		memcpy(cli_address, saved, sizeof(saved));
	}
	ck_assert_int_eq(RUN_STATUS("frobnicate"), 2);
	ck_assert_int_eq(RUN_STATUS("reset"), 2);
	ck_assert_int_eq(RUN_STATUS("status", F_SLOT, F_DEV), 2);
	ck_assert_int_eq(RUN_STATUS("list", "--since=-1h"), 2);
	ck_assert_int_eq(RUN_STATUS("inject", F_DEV, "--state=hot"), 2);
	ck_assert_int_eq(RUN_STATUS("inject", F_DEV, "--unavailable=-1"), 2);
	ck_assert_int_eq(RUN_STATUS("reset", F_DEV, "--timeout=soon"), 2);
	ck_assert_int_eq(RUN_STATUS("--json=ugly"), 2);
	ck_assert_int_eq(RUN(&out, &err, "--json=help"), 0);
	ck_assert_str_eq(out, "short\npretty\noff\n");
	free(out);
	free(err);
	ck_assert_int_eq(RUN_STATUS("-H", "host", "-M", "machine"), 2);
	ck_assert_int_eq(RUN_STATUS("--help"), 0);
	ck_assert_int_eq(RUN_STATUS("--version"), 0);

	/* pcierrd not there */
	ck_assert_int_ge(sd_bus_release_name(fake_bus, "org.pcierr1"), 0);
	ck_assert_int_eq(RUN(&out, &err, "status"), 1);
	ck_assert_str_eq(err, "pcierrd is not running (systemctl start pcierrd).\n");
	free(out);
	free(err);
}
END_TEST

START_TEST(test_cli_read)
{
	char *out, *err;

	ck_assert_msg(run_ctl(&out, &err, (const char *const[]) { NULL }) == 0, "%s", err);
	ck_assert_str_eq(out, "pcierrd 9.9: kernel shim connected, 1 slot, 1 device; "
			 "at most 5 freezes in 0\n"
			 "* " F_SLOT "  normal\n"
			 "`-" F_DEV "  e1000e  normal  1/5  Intel \"Corp\" Device [0000:0000]\n");
	free(out);
	free(err);

	ck_assert_int_eq(RUN(&out, &err, "--json", "status", "01:00.0"), 0);
	assert_json(out);
	assert_contains(out, "\"Slots\":[{\"Address\":\"" F_SLOT "\",\"ResetTypes\":[],"
			"\"State\":\"normal\",\"Step\":\"idle\",\"Stuck\":false,"
			"\"Devices\":[\"" F_DEV "\"]");
	assert_contains(out, "\"Devices\":[{\"Address\":\"" F_DEV "\",\"Slot\":\"" F_SLOT "\",");
	assert_contains(out, "\"VendorName\":\"Intel \\\"Corp\\\"\"");
	free(out);
	free(err);

	ck_assert_int_eq(RUN(&out, &err, "--json", "list"), 0);
	assert_json(out);
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "--json=pretty", "show", F_SLOT), 0);
	assert_json(out);
	assert_contains(out, "\"Device\": null");
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "--json", "stats"), 0);
	assert_json(out);
	assert_prefix(out, "{\"Version\":\"9.9\",\"MaxFreezes\":5,");
	free(out);
	free(err);
	ck_assert_int_eq(RUN(&out, &err, "--no-legend", "list"), 0);
	ck_assert_str_eq(out, F_DEV "  " F_SLOT "  e1000e  normal  1/5  Intel \"Corp\" Device [0000:0000]\n");
	free(out);
	free(err);
	/* --json=off undoes an earlier --json (an alias's, a script's) */
	ck_assert_int_eq(RUN(&out, &err, "--json=pretty", "--json=off", "--no-legend", "list"), 0);
	ck_assert_str_eq(out, F_DEV "  " F_SLOT "  e1000e  normal  1/5  Intel \"Corp\" Device [0000:0000]\n");
	free(out);
	free(err);

	ck_assert_int_eq(RUN(&out, &err, "--json", "history", "--since=@1700000000", "-n", "9",
			     "00:02.0"), 0);
	ck_assert_str_eq(fk.arg1, F_SLOT);
	ck_assert_str_eq(fk.arg2, "1700000000000000");
	ck_assert_uint_eq(fk.ms, 9);
	assert_json(out);
	assert_contains(out, "\"Message\":\"a \\\"quoted\\\"\\nmessage\"}]");
	free(out);
	free(err);

	ck_assert_int_eq(RUN(&out, &err, "clear", F_DEV), 0);
	ck_assert_str_eq(fk.method, "ClearFreezeCount");
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
}
END_TEST

/* M8: the pager's secure mode, as systemd's */
static const struct {
	const char *pager, *secure_env;
	bool privileged;
	const char *command;	/* NULL: less */
	bool none, secure;
	int ret;
} pager_table[] = {
	{ NULL, NULL, false, NULL, false, false, 0 },
	{ NULL, NULL, true, NULL, false, true, 0 },
	{ "most", NULL, false, "most", false, false, 0 },
	/* root: a pager without a secure mode is not run; less is */
	{ "most", NULL, true, NULL, false, true, 0 },
	{ "sh -c 'vi'", NULL, true, NULL, false, true, 0 },
	{ "less -S", NULL, true, "less -S", false, true, 0 },
	{ "/usr/bin/less", NULL, true, "/usr/bin/less", false, true, 0 },
	{ "lesspipe", NULL, true, NULL, false, true, 0 },
	{ "/opt/less/most", NULL, true, NULL, false, true, 0 },
	/* explicitly set: trusted, secure as said */
	{ "most", "1", false, "most", false, true, 0 },
	{ "most", "yes", true, "most", false, true, 0 },
	{ "most", "0", true, "most", false, false, 0 },
	{ NULL, "off", true, NULL, false, false, 0 },
	{ NULL, "maybe", false, NULL, false, true, -EINVAL },
	/* no pager */
	{ "", NULL, true, NULL, true, false, 0 },
	{ "cat", NULL, false, NULL, true, false, 0 },
};

START_TEST(test_pager_plan)
{
	struct pager_plan p;

	ck_assert_int_eq(pager_plan(pager_table[_i].pager, pager_table[_i].secure_env,
				    pager_table[_i].privileged, &p), pager_table[_i].ret);
	ck_assert_int_eq(p.none, pager_table[_i].none);
	ck_assert_int_eq(p.secure, pager_table[_i].secure);
	if (pager_table[_i].command)
		ck_assert_str_eq(p.command, pager_table[_i].command);
	else
		ck_assert_ptr_null(p.command);
}
END_TEST

/* L1: pcierrctl monitor notices the bus going away, and says so */
START_TEST(test_cli_monitor_bus_lost)
{
	const char *bin = getenv("PCIERRCTL") ? getenv("PCIERRCTL") : CK_PCIERRCTL;
	char errpath[128], *err = NULL;
	int fde, status = -1;
	pid_t pid, dbus_pid = cli_dbus_pid;
	time_t deadline;

	snprintf(errpath, sizeof(errpath), "%s/monitor.err", cli_tmpdir);
	fde = open(errpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fde, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(devnull, STDOUT_FILENO);
		dup2(fde, STDERR_FILENO);
		setenv("DBUS_SYSTEM_BUS_ADDRESS", cli_address, 1);
		execl(bin, "pcierrctl", "monitor", (char *)NULL);
		_exit(127);
	}
	/* subscribed (it says so), then the bus daemon dies */
	deadline = time(NULL) + 20;
	for (;;) {
		free(err);
		lseek(fde, 0, SEEK_SET);
		err = read_all(fde);
		if (strstr(err, "Following the signals"))
			break;
		ck_assert_msg(time(NULL) < deadline, "monitor did not start: %s", err);
		while (sd_bus_process(fake_bus, NULL) > 0)
			;
		usleep(20000);
	}
	kill(dbus_pid, SIGKILL);
	waitpid(dbus_pid, NULL, 0);
	cli_dbus_pid = -1;

	deadline = time(NULL) + 20;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (time(NULL) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			ck_abort_msg("pcierrctl monitor runs on after the bus went away");
		}
		usleep(20000);
	}
	free(err);
	lseek(fde, 0, SEEK_SET);
	err = read_all(fde);
	close(fde);
	unlink(errpath);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, err);
	assert_contains(err, "Lost the connection to the system bus.\n");
	free(err);
}
END_TEST

Suite *suite_ctl(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc;

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_escape);
	tcase_add_test(tc, test_json_roundtrip);
	tcase_add_test(tc, test_json_validator);
	tcase_add_test(tc, test_json_writer);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, test_parse_address);
	tcase_add_test(tc, test_parse_timespan);
	tcase_add_test(tc, test_parse_time);
	tcase_add_test(tc, test_format_times);
	tcase_add_test(tc, test_style);
	tcase_add_loop_test(tc, test_pager_plan, 0, N_OF(pager_table));
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_test(tc, test_model);
	tcase_add_test(tc, test_model_free);
	tcase_add_test(tc, test_status_text);
	tcase_add_test(tc, test_status_backend);
	tcase_add_test(tc, test_status_json);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_show);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_history);
	tcase_add_test(tc, test_signals);
	tcase_add_test(tc, test_recovery_json);
	suite_add_tcase(s, tc);

	tc = tcase_create("cli");
	tcase_add_checked_fixture(tc, cli_setup, cli_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cli_reset);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_test(tc, test_cli_read);
	tcase_add_test(tc, test_cli_monitor_bus_lost);
	suite_add_tcase(s, tc);

	return s;
}

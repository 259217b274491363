// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl's pure helpers (see format.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "format.h"

int ctl_parse_address(const char *s, char ret[PCIERR_ADDR_STRLEN])
{
	if (!s || pcierr_addr_normalize(s, ret) < 0)
		return -EINVAL;
	return 0;
}

static const struct {
	const char *name;
	uint64_t usec;
} units[] = {
	{ "us", 1 }, { "usec", 1 },
	{ "ms", USEC_PER_MSEC }, { "msec", USEC_PER_MSEC },
	{ "s", USEC_PER_SEC }, { "sec", USEC_PER_SEC },
	{ "second", USEC_PER_SEC }, { "seconds", USEC_PER_SEC },
	{ "m", USEC_PER_MINUTE }, { "min", USEC_PER_MINUTE },
	{ "minute", USEC_PER_MINUTE }, { "minutes", USEC_PER_MINUTE },
	{ "h", USEC_PER_HOUR }, { "hr", USEC_PER_HOUR },
	{ "hour", USEC_PER_HOUR }, { "hours", USEC_PER_HOUR },
	{ "d", USEC_PER_DAY }, { "day", USEC_PER_DAY }, { "days", USEC_PER_DAY },
	{ "w", USEC_PER_WEEK }, { "week", USEC_PER_WEEK }, { "weeks", USEC_PER_WEEK },
};

static int unit_lookup(const char *s, size_t len, uint64_t *ret)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len && strncmp(units[i].name, s, len) == 0) {
			*ret = units[i].usec;
			return 0;
		}
	return -EINVAL;
}

int ctl_parse_timespan(const char *s, uint64_t default_unit, uint64_t *ret)
{
	uint64_t total = 0;
	unsigned parts = 0;
	bool bare = false;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		uint64_t whole = 0, frac = 0, frac_div = 1, unit, v;
		const char *u;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++) {
			if (whole > (UINT64_MAX - 9) / 10)
				return -ERANGE;
			whole = whole * 10 + (uint64_t)(*s - '0');
		}
		if (*s == '.') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -EINVAL;
			for (; isdigit((unsigned char)*s); s++)
				if (frac_div < 1000000000ULL) {
					frac = frac * 10 + (uint64_t)(*s - '0');
					frac_div *= 10;
				}
		}
		while (*s == ' ')
			s++;
		for (u = s; isalpha((unsigned char)*s); s++)
			;
		if (s == u) {
			unit = default_unit;
			bare = true;
		} else if (unit_lookup(u, (size_t)(s - u), &unit) < 0)
			return -EINVAL;
		if (unit && whole > UINT64_MAX / unit)
			return -ERANGE;
		v = whole * unit + frac * unit / frac_div;
		if (v > UINT64_MAX - total)
			return -ERANGE;
		total += v;
		parts++;
	}
	/* a bare number only on its own ("90"), not in "1h 30" */
	if (parts == 0 || (bare && parts > 1))
		return -EINVAL;
	*ret = total;
	return 0;
}

static uint64_t local_midnight(uint64_t now_usec, int days_back, bool *ok)
{
	time_t t = (time_t)(now_usec / USEC_PER_SEC);
	struct tm tm;
	time_t r;

	*ok = false;
	if (!localtime_r(&t, &tm))
		return 0;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	r = mktime(&tm);
	if (r == (time_t)-1 || r < 0)
		return 0;
	*ok = true;
	return (uint64_t)r * USEC_PER_SEC;
}

static int parse_absolute(const char *s, uint64_t now_usec, uint64_t *ret)
{
	static const struct {
		const char *fmt;
		bool has_date;
	} formats[] = {
		{ "%Y-%m-%d %H:%M:%S", true },
		{ "%Y-%m-%dT%H:%M:%S", true },
		{ "%Y-%m-%d %H:%M", true },
		{ "%Y-%m-%dT%H:%M", true },
		{ "%Y-%m-%d", true },
		{ "%H:%M:%S", false },
		{ "%H:%M", false },
	};

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		time_t now = (time_t)(now_usec / USEC_PER_SEC), r;
		struct tm tm = {};
		const char *end;

		if (!formats[i].has_date) {
			if (!localtime_r(&now, &tm))
				return -EINVAL;
			tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		}
		end = strptime(s, formats[i].fmt, &tm);
		if (!end || *end)
			continue;
		tm.tm_isdst = -1;
		r = mktime(&tm);
		if (r == (time_t)-1 || r < 0)
			return -EINVAL;
		*ret = (uint64_t)r * USEC_PER_SEC;
		return 0;
	}
	return -EINVAL;
}

int ctl_parse_time(const char *s, uint64_t now_usec, uint64_t *ret)
{
	uint64_t span;
	size_t len;
	bool ok;
	int r;

	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "now") == 0) {
		*ret = now_usec;
		return 0;
	}
	if (strcmp(s, "today") == 0 || strcmp(s, "yesterday") == 0) {
		uint64_t t = local_midnight(now_usec, s[0] == 'y', &ok);

		if (!ok)
			return -EINVAL;
		*ret = t;
		return 0;
	}
	if (s[0] == '@') {
		/* seconds since the epoch, perhaps with a fraction */
		if (!s[1] || strspn(s + 1, "0123456789.") != strlen(s + 1))
			return -EINVAL;
		r = ctl_parse_timespan(s + 1, USEC_PER_SEC, ret);
		return r < 0 ? -EINVAL : 0;
	}
	if (s[0] == '-') {
		r = ctl_parse_timespan(s + 1, USEC_PER_SEC, &span);
		if (r < 0)
			return -EINVAL;
		*ret = span > now_usec ? 0 : now_usec - span;
		return 0;
	}
	len = strlen(s);
	if (len > 4 && strcmp(s + len - 4, " ago") == 0) {
		char buf[128];

		if (len - 4 >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, len - 4);
		buf[len - 4] = 0;
		r = ctl_parse_timespan(buf, USEC_PER_SEC, &span);
		if (r < 0)
			return -EINVAL;
		*ret = span > now_usec ? 0 : now_usec - span;
		return 0;
	}
	return parse_absolute(s, now_usec, ret);
}

static char *format_span(char *buf, size_t size, uint64_t usec, bool coarse)
{
	unsigned long long u = usec;

	if (u == 0)
		snprintf(buf, size, "0");
	else if (!coarse && u < USEC_PER_MSEC)
		snprintf(buf, size, "%lluus", u);
	else if (!coarse && u < 10 * USEC_PER_MSEC)
		snprintf(buf, size, "%llu.%llums", u / 1000, u % 1000 / 100);
	else if (!coarse && u < USEC_PER_SEC)
		snprintf(buf, size, "%llums", u / 1000);
	else if (!coarse && u < USEC_PER_MINUTE) {
		unsigned long long ms = u % USEC_PER_SEC / 1000;

		/* "1.235s", "1.5s", "15s" */
		if (ms == 0)
			snprintf(buf, size, "%llus", u / USEC_PER_SEC);
		else if (ms % 100 == 0)
			snprintf(buf, size, "%llu.%llus", u / USEC_PER_SEC, ms / 100);
		else if (ms % 10 == 0)
			snprintf(buf, size, "%llu.%02llus", u / USEC_PER_SEC, ms / 10);
		else
			snprintf(buf, size, "%llu.%03llus", u / USEC_PER_SEC, ms);
	}
	else if (u < USEC_PER_MINUTE)
		snprintf(buf, size, "%llus", u / USEC_PER_SEC);
	else if (u < USEC_PER_HOUR) {
		unsigned long long s = u % USEC_PER_MINUTE / USEC_PER_SEC;

		if (s)
			snprintf(buf, size, "%llumin %llus", u / USEC_PER_MINUTE, s);
		else
			snprintf(buf, size, "%llumin", u / USEC_PER_MINUTE);
	} else if (u < USEC_PER_DAY) {
		unsigned long long m = u % USEC_PER_HOUR / USEC_PER_MINUTE;

		if (m)
			snprintf(buf, size, "%lluh %llumin", u / USEC_PER_HOUR, m);
		else
			snprintf(buf, size, "%lluh", u / USEC_PER_HOUR);
	} else {
		unsigned long long h = u % USEC_PER_DAY / USEC_PER_HOUR;

		if (h)
			snprintf(buf, size, "%llud %lluh", u / USEC_PER_DAY, h);
		else
			snprintf(buf, size, "%llud", u / USEC_PER_DAY);
	}
	return buf;
}

char *ctl_format_timespan(char *buf, size_t size, uint64_t usec)
{
	return format_span(buf, size, usec, false);
}

char *ctl_format_timestamp(char *buf, size_t size, uint64_t usec, bool with_msec)
{
	time_t t = (time_t)(usec / USEC_PER_SEC);
	struct tm tm;
	size_t n;

	if (usec == 0 || !localtime_r(&t, &tm)) {
		snprintf(buf, size, "-");
		return buf;
	}
	n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	if (n == 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	if (with_msec)
		snprintf(buf + n, size - n, ".%03llu",
			 (unsigned long long)(usec % USEC_PER_SEC / 1000));
	return buf;
}

char *ctl_format_relative(char *buf, size_t size, uint64_t usec, uint64_t now_usec)
{
	char span[CTL_TIMESPAN_MAX];

	if (usec > now_usec + USEC_PER_SEC)
		snprintf(buf, size, "in %s",
			 format_span(span, sizeof(span), usec - now_usec, true));
	else if (usec + USEC_PER_SEC > now_usec)
		snprintf(buf, size, "now");
	else
		snprintf(buf, size, "%s ago",
			 format_span(span, sizeof(span), now_usec - usec, true));
	return buf;
}

const char *ctl_color(const struct ctl_style *st, enum ctl_color c)
{
	static const char *const seq[] = {
		[CTL_NORMAL] = "\x1b[0m",
		[CTL_GREEN] = "\x1b[0;32m",
		[CTL_RED] = "\x1b[0;1;31m",
		[CTL_YELLOW] = "\x1b[0;1;33m",
		[CTL_HIGHLIGHT] = "\x1b[0;1;39m",
		[CTL_GREY] = "\x1b[0;38;5;245m",
	};

	if (!st || !st->color || (unsigned)c >= sizeof(seq) / sizeof(seq[0]))
		return "";
	return seq[c];
}

const char *ctl_glyph(const struct ctl_style *st, enum ctl_glyph g)
{
	static const char *const utf8[] = {
		[CTL_TREE_BRANCH] = "\u251c\u2500",	/* ├─ */
		[CTL_TREE_RIGHT] = "\u2514\u2500",	/* └─ */
		[CTL_TREE_VERTICAL] = "\u2502 ",	/* │  */
		[CTL_TREE_SPACE] = "  ",
		[CTL_BULLET] = "\u25cf",		/* ● */
		[CTL_ARROW] = "\u2192",			/* → */
	};
	static const char *const ascii[] = {
		[CTL_TREE_BRANCH] = "|-",
		[CTL_TREE_RIGHT] = "`-",
		[CTL_TREE_VERTICAL] = "| ",
		[CTL_TREE_SPACE] = "  ",
		[CTL_BULLET] = "*",
		[CTL_ARROW] = "->",
	};

	if ((unsigned)g >= sizeof(utf8) / sizeof(utf8[0]))
		return "";
	return st && st->utf8 ? utf8[g] : ascii[g];
}

static bool in_list(const char *s, const char *const *l)
{
	for (; s && *l; l++)
		if (strcmp(s, *l) == 0)
			return true;
	return false;
}

enum ctl_color ctl_state_color(const char *state)
{
	static const char *const good[] = { "normal", "idle", "recovered", "ok", NULL };
	static const char *const bad[] = { "perm_failure", "disabled", "removed",
					   "failed", "gone", NULL };

	if (!state || !*state)
		return CTL_NORMAL;
	if (in_list(state, good))
		return CTL_GREEN;
	if (in_list(state, bad))
		return CTL_RED;
	return CTL_YELLOW;
}

enum ctl_color ctl_result_color(const char *result)
{
	static const char *const good[] = { "recovered", "ok", "can_recover", NULL };
	static const char *const bad[] = { "failed", "disabled", "gone", "disconnect", NULL };

	if (in_list(result, good))
		return CTL_GREEN;
	if (in_list(result, bad))
		return CTL_RED;
	return CTL_NORMAL;
}

size_t ctl_text_width(const char *s)
{
	size_t w = 0;

	while (s && *s) {
		if (*s == '\x1b' && s[1] == '[') {
			/* an escape sequence: ESC [ parameters final-byte */
			s += 2;
			while (*s && !(*s >= 0x40 && *s <= 0x7e))
				s++;
			if (*s)
				s++;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
		s++;
	}
	return w;
}

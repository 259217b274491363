// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl's JSON writer (see json.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_init(struct json_writer *w, FILE *f, bool pretty)
{
	*w = (struct json_writer) { .f = f, .pretty = pretty };
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 */
static size_t utf8_valid_len(const unsigned char *s)
{
	uint32_t c;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

void json_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n;

		/* a run of printable ASCII needs no escape: one write (a
		 * call per character was most of status --json's time) */
		for (n = 0; p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' && p[n] != '\\'; n++)
			;
		if (n > 0) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '"':  fputs("\\\"", f); p++; continue;
		case '\\': fputs("\\\\", f); p++; continue;
		case '\b': fputs("\\b", f); p++; continue;
		case '\f': fputs("\\f", f); p++; continue;
		case '\n': fputs("\\n", f); p++; continue;
		case '\r': fputs("\\r", f); p++; continue;
		case '\t': fputs("\\t", f); p++; continue;
		default:
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
			p++;
			continue;
		}
		n = utf8_valid_len(p);
		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

static void newline_indent(struct json_writer *w)
{
	fputc('\n', w->f);
	for (unsigned i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* before any value or key: the comma, the line break */
static bool before_item(struct json_writer *w, bool is_key)
{
	if (w->after_key) {
		if (is_key) {
			w->error = w->error ?: -EINVAL;
			return false;
		}
		w->after_key = false;
		return true;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth - 1])
			fputc(',', w->f);
		w->need_comma[w->depth - 1] = true;
		if (w->pretty)
			newline_indent(w);
	}
	return true;
}

static void begin(struct json_writer *w, char c)
{
	if (!before_item(w, false))
		return;
	if (w->depth >= JSON_MAX_DEPTH) {
		w->error = w->error ?: -EINVAL;
		return;
	}
	fputc(c, w->f);
	w->need_comma[w->depth++] = false;
}

static void end(struct json_writer *w, char c)
{
	bool had_items;

	if (w->depth == 0 || w->after_key) {
		w->error = w->error ?: -EINVAL;
		return;
	}
	had_items = w->need_comma[--w->depth];
	if (w->pretty && had_items)
		newline_indent(w);
	fputc(c, w->f);
}

void json_begin_object(struct json_writer *w)
{
	begin(w, '{');
}

void json_end_object(struct json_writer *w)
{
	end(w, '}');
}

void json_begin_array(struct json_writer *w)
{
	begin(w, '[');
}

void json_end_array(struct json_writer *w)
{
	end(w, ']');
}

void json_key(struct json_writer *w, const char *key)
{
	if (w->depth == 0 || !key) {
		w->error = w->error ?: -EINVAL;
		return;
	}
	if (!before_item(w, true))
		return;
	json_escape(w->f, key);
	fputs(w->pretty ? ": " : ":", w->f);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	if (before_item(w, false))
		json_escape(w->f, s);
}

void json_uint(struct json_writer *w, uint64_t v)
{
	if (before_item(w, false))
		fprintf(w->f, "%" PRIu64, v);
}

void json_int(struct json_writer *w, int64_t v)
{
	if (before_item(w, false))
		fprintf(w->f, "%" PRId64, v);
}

void json_bool(struct json_writer *w, bool b)
{
	if (before_item(w, false))
		fputs(b ? "true" : "false", w->f);
}

void json_null(struct json_writer *w)
{
	if (before_item(w, false))
		fputs("null", w->f);
}

void json_strv(struct json_writer *w, char *const *l)
{
	json_begin_array(w);
	for (; l && *l; l++)
		json_string(w, *l);
	json_end_array(w);
}

void json_kv_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_kv_uint(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_uint(w, v);
}

void json_kv_int(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_int(w, v);
}

void json_kv_bool(struct json_writer *w, const char *key, bool b)
{
	json_key(w, key);
	json_bool(w, b);
}

void json_kv_null(struct json_writer *w, const char *key)
{
	json_key(w, key);
	json_null(w);
}

void json_kv_strv(struct json_writer *w, const char *key, char *const *l)
{
	json_key(w, key);
	json_strv(w, l);
}

int json_finish(struct json_writer *w)
{
	if (w->depth != 0 || w->after_key)
		w->error = w->error ?: -EINVAL;
	fputc('\n', w->f);
	if (ferror(w->f))
		w->error = w->error ?: -EIO;
	return w->error;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tests' strict JSON parser (json-parse.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-parse.h"

struct parser {
	const unsigned char *p, *start, *end;
	unsigned depth;
	const char *err;
};

#define MAX_DEPTH 256

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("json-parse: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static bool error(struct parser *ps, const char *what)
{
	if (!ps->err)
		ps->err = what;
	return false;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static bool literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return error(ps, "invalid literal");
	ps->p += n;
	return true;
}

struct buf {
	char *s;
	size_t len, size;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->size) {
		b->size = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->size);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void buf_utf8(struct buf *b, uint32_t c)
{
	char u[4];
	size_t n;

	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		n = 4;
	}
	buf_add(b, u, n);
}

static bool hex4(struct parser *ps, uint32_t *ret)
{
	uint32_t v = 0;

	if (ps->end - ps->p < 4)
		return error(ps, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		unsigned char c = *ps->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return error(ps, "bad hex digit in a \\u escape");
	}
	*ret = v;
	return true;
}

/* one UTF-8 sequence starting at a byte >= 0x80 */
static bool utf8_seq(struct parser *ps, uint32_t *ret)
{
	unsigned char c = *ps->p;
	uint32_t v, min;
	int n;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		v = c & 0x07;
		min = 0x10000;
	} else
		return error(ps, "invalid UTF-8 lead byte");
	if (ps->end - ps->p < n + 1)
		return error(ps, "truncated UTF-8 sequence");
	for (int i = 1; i <= n; i++) {
		if ((ps->p[i] & 0xc0) != 0x80)
			return error(ps, "invalid UTF-8 continuation byte");
		v = (v << 6) | (ps->p[i] & 0x3f);
	}
	if (v < min)
		return error(ps, "overlong UTF-8 sequence");
	if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return error(ps, "UTF-8 encodes a surrogate or a code point above U+10FFFF");
	ps->p += n + 1;
	*ret = v;
	return true;
}

static bool parse_string(struct parser *ps, char **ret)
{
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	ps->p++;		/* the opening quote */
	for (;;) {
		uint32_t c;

		if (ps->p >= ps->end) {
			free(b.s);
			return error(ps, "unterminated string");
		}
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			*ret = b.s;
			return true;
		}
		if (c < 0x20) {
			free(b.s);
			return error(ps, "control character in a string");
		}
		if (c == '\\') {
			ps->p++;
			if (ps->p >= ps->end) {
				free(b.s);
				return error(ps, "unterminated escape");
			}
			switch (*ps->p++) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				if (!hex4(ps, &c))
					goto bad;
				if (c >= 0xdc00 && c <= 0xdfff) {
					error(ps, "lone low surrogate escape");
					goto bad;
				}
				if (c >= 0xd800 && c <= 0xdbff) {
					uint32_t lo;

					if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u') {
						error(ps, "high surrogate escape without its low half");
						goto bad;
					}
					ps->p += 2;
					if (!hex4(ps, &lo))
						goto bad;
					if (lo < 0xdc00 || lo > 0xdfff) {
						error(ps, "high surrogate escape without its low half");
						goto bad;
					}
					c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				}
				break;
			default:
				error(ps, "invalid escape");
				goto bad;
			}
			buf_utf8(&b, c);
		} else if (c >= 0x80) {
			if (!utf8_seq(ps, &c))
				goto bad;
			buf_utf8(&b, c);
		} else {
			buf_add(&b, (const char *)ps->p, 1);
			ps->p++;
		}
	}
bad:
	free(b.s);
	return false;
}

static bool digits(struct parser *ps)
{
	const unsigned char *s = ps->p;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return ps->p > s;
}

static bool parse_number(struct parser *ps, char **ret)
{
	const unsigned char *s = ps->p;
	char *t;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0')
		ps->p++;
	else if (ps->p < ps->end && *ps->p >= '1' && *ps->p <= '9')
		digits(ps);
	else
		return error(ps, "invalid value");
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!digits(ps))
			return error(ps, "no digits after the decimal point");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digits(ps))
			return error(ps, "no digits in the exponent");
	}
	t = xrealloc(NULL, (size_t)(ps->p - s) + 1);
	memcpy(t, s, (size_t)(ps->p - s));
	t[ps->p - s] = '\0';
	*ret = t;
	return true;
}

void json_free(struct jval *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		json_free(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->text);
	free(v);
}

static struct jval *parse_value(struct parser *ps);

static struct jval *parse_container(struct parser *ps, bool object)
{
	unsigned char close = object ? '}' : ']';
	struct jval *v = xrealloc(NULL, sizeof(*v));

	*v = (struct jval) { .type = object ? J_OBJECT : J_ARRAY };
	if (++ps->depth > MAX_DEPTH) {
		error(ps, "nested too deep");
		goto bad;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jval *item;

		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				error(ps, "expected a string key");
				goto bad;
			}
			if (!parse_string(ps, &key))
				goto bad;
			for (size_t i = 0; i < v->n; i++)
				if (strcmp(v->keys[i], key) == 0) {
					free(key);
					error(ps, "duplicate key in an object");
					goto bad;
				}
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				free(key);
				error(ps, "expected ':' after a key");
				goto bad;
			}
			ps->p++;
			skip_ws(ps);
		}
		item = parse_value(ps);
		if (!item) {
			free(key);
			goto bad;
		}
		v->items = xrealloc(v->items, (v->n + 1) * sizeof(*v->items));
		if (object)
			v->keys = xrealloc(v->keys, (v->n + 1) * sizeof(*v->keys));
		v->items[v->n] = item;
		if (object)
			v->keys[v->n] = key;
		v->n++;
		skip_ws(ps);
		if (ps->p >= ps->end) {
			error(ps, object ? "unterminated object" : "unterminated array");
			goto bad;
		}
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != close) {
			error(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
			goto bad;
		}
		ps->p++;
		ps->depth--;
		return v;
	}
bad:
	json_free(v);
	return NULL;
}

static struct jval *parse_value(struct parser *ps)
{
	struct jval *v;
	char *text = NULL;
	enum jtype t;

	if (ps->p >= ps->end) {
		error(ps, "unexpected end of input");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, true);
	case '[':
		return parse_container(ps, false);
	case '"':
		if (!parse_string(ps, &text))
			return NULL;
		t = J_STRING;
		break;
	case 't':
		if (!literal(ps, "true"))
			return NULL;
		t = J_TRUE;
		break;
	case 'f':
		if (!literal(ps, "false"))
			return NULL;
		t = J_FALSE;
		break;
	case 'n':
		if (!literal(ps, "null"))
			return NULL;
		t = J_NULL;
		break;
	default:
		if (!parse_number(ps, &text))
			return NULL;
		t = J_NUMBER;
		break;
	}
	v = xrealloc(NULL, sizeof(*v));
	*v = (struct jval) { .type = t, .text = text };
	return v;
}

/* exactly one JSON text in [s, s + len) */
struct jval *json_parse(const char *s, size_t len, struct json_error *err)
{
	struct parser ps = {
		.p = (const unsigned char *)s,
		.start = (const unsigned char *)s,
		.end = (const unsigned char *)s + len,
	};
	struct jval *v;

	skip_ws(&ps);
	v = parse_value(&ps);
	if (v) {
		skip_ws(&ps);
		if (ps.p != ps.end) {
			error(&ps, "trailing characters after the value");
			json_free(v);
			v = NULL;
		}
	}
	if (!v && err) {
		err->what = ps.err ? ps.err : "error";
		err->offset = (size_t)(ps.p - ps.start);
	}
	return v;
}

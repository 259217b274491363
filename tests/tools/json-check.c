// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json-check: a strict JSON (RFC 8259) validator and value picker for the
 * VM tests, where neither jq nor python can be counted on.
 *
 *   json-check [QUERY...] < FILE     exactly one JSON text
 *   json-check --lines < FILE        one JSON text on each non-empty line
 *
 * Strict: UTF-8 only (no overlong forms, no surrogates, nothing above
 * U+10FFFF), no control characters in strings, \u escapes paired right,
 * numbers as the grammar has them, no duplicate keys in an object, no
 * trailing garbage, nesting at most 256 deep.
 *
 * Each QUERY prints one line: a string decoded (a NUL in it ends it),
 * a number as written, true, false or null, or for an object or an array
 * "object N" / "array N" (N members). A QUERY is a chain of
 *   KEY            a member of an object (.KEY after the first)
 *   [N]            the N-th element of an array (from 0)
 *   [KEY=VALUE]    the first element of an array that is an object whose
 *                  KEY is the string VALUE or the number written VALUE
 * e.g.  devices[Address=0000:01:00.0].FreezeCount   manager.MaxFreezes
 * Keys holding '.', '[', ']' or '=' cannot be named.
 *
 * Exit status: 0 valid and every QUERY found; 1 not valid (the message
 * says where) or a QUERY not found (the others are still printed, a
 * missing one as an empty line); 2 wrong usage or an I/O error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-parse.h"

/* exactly one JSON text in [s, s + len); says why not on stderr */
static struct jval *parse_text(const char *s, size_t len, const char *name)
{
	struct json_error err;
	struct jval *v = json_parse(s, len, &err);

	if (!v) {
		size_t left = len - err.offset;

		fprintf(stderr, "json-check: %s: not valid JSON: %s at byte %zu near >>%.*s<<\n",
			name, err.what, err.offset, (int)(left < 24 ? left : 24), s + err.offset);
	}
	return v;
}

static void print_value(const struct jval *v)
{
	switch (v->type) {
	case J_NULL: puts("null"); break;
	case J_FALSE: puts("false"); break;
	case J_TRUE: puts("true"); break;
	case J_NUMBER:
	case J_STRING: puts(v->text); break;
	case J_ARRAY: printf("array %zu\n", v->n); break;
	case J_OBJECT: printf("object %zu\n", v->n); break;
	}
}

/* the member named by the segment [s, e) of an object */
static const struct jval *member(const struct jval *v, const char *s, size_t n)
{
	if (v->type != J_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->keys[i]) == n && memcmp(v->keys[i], s, n) == 0)
			return v->items[i];
	return NULL;
}

static const struct jval *query(const struct jval *v, const char *q)
{
	const char *s = q;

	while (v && *s) {
		if (*s == '.')
			s++;
		if (!*s)		/* "." alone: the whole text */
			break;
		if (*s == '[') {
			const char *close = strchr(s, ']'), *eq;
			size_t n;

			if (!close || v->type != J_ARRAY)
				return NULL;
			s++;
			eq = memchr(s, '=', (size_t)(close - s));
			if (!eq) {
				char *endp;
				unsigned long idx;

				errno = 0;
				idx = strtoul(s, &endp, 10);
				if (endp != close || s == close || errno || idx >= v->n)
					return NULL;
				v = v->items[idx];
			} else {
				const struct jval *found = NULL;
				size_t vn = (size_t)(close - eq - 1);

				n = (size_t)(eq - s);
				for (size_t i = 0; i < v->n && !found; i++) {
					const struct jval *k = member(v->items[i], s, n);

					if (k && (k->type == J_STRING || k->type == J_NUMBER) &&
					    strlen(k->text) == vn && memcmp(k->text, eq + 1, vn) == 0)
						found = v->items[i];
				}
				v = found;
			}
			s = close + 1;
		} else {
			size_t n = strcspn(s, ".[");

			if (n == 0)
				return NULL;
			v = member(v, s, n);
			s += n;
		}
	}
	return v;
}

static char *read_all(FILE *f, size_t *len)
{
	size_t size = 65536, n = 0, got;
	char *s = NULL;

	do {
		if (!s || n + 1 >= size) {
			size = s ? size * 2 : size;
			s = realloc(s, size);
			if (!s) {
				fputs("json-check: out of memory\n", stderr);
				exit(2);
			}
		}
		got = fread(s + n, 1, size - n - 1, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		fprintf(stderr, "json-check: reading the input: %s\n", strerror(errno));
		exit(2);
	}
	s[n] = '\0';
	*len = n;
	return s;
}

int main(int argc, char **argv)
{
	bool lines = false;
	int first = 1, rc = 0;
	size_t len;
	char *in;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		puts("usage: json-check [QUERY...] < FILE\n"
		     "       json-check --lines < FILE\n"
		     "QUERY: KEY, .KEY, [N], [KEY=VALUE] chained, e.g. devices[Address=0000:01:00.0].FreezeCount");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--lines") == 0) {
		lines = true;
		first = 2;
		if (argc > 2) {
			fputs("json-check: --lines takes no QUERY\n", stderr);
			return 2;
		}
	}
	in = read_all(stdin, &len);
	if (memchr(in, '\0', len)) {
		fputs("json-check: the input holds a NUL byte\n", stderr);
		free(in);
		return 1;
	}
	if (lines) {
		size_t lineno = 0, count = 0;

		for (char *l = in, *nl; l < in + len; l = nl + 1) {
			char name[64];
			struct jval *v;

			nl = memchr(l, '\n', (size_t)(in + len - l));
			if (!nl)
				nl = in + len;
			lineno++;
			if (strspn(l, " \t\r") >= (size_t)(nl - l))
				continue;
			snprintf(name, sizeof(name), "line %zu", lineno);
			v = parse_text(l, (size_t)(nl - l), name);
			if (!v)
				rc = 1;
			else
				count++;
			json_free(v);
		}
		if (rc == 0 && count == 0) {
			fputs("json-check: no JSON text in the input\n", stderr);
			rc = 1;
		}
	} else {
		struct jval *v = parse_text(in, len, "the input");

		if (!v)
			rc = 1;
		for (int i = first; v && i < argc; i++) {
			const struct jval *r = query(v, argv[i]);

			if (r) {
				print_value(r);
			} else {
				putchar('\n');
				fprintf(stderr, "json-check: no %s in the input\n", argv[i]);
				rc = 1;
			}
		}
		json_free(v);
	}
	free(in);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("json-check: writing the output failed\n", stderr);
		return 2;
	}
	return rc;
}

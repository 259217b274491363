/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A strict JSON (RFC 8259) parser for the tests: tests/tools/json-check
 * (the VM tests) and the ctl unit suite share it.
 *
 * Strict: UTF-8 only (no overlong forms, no surrogates, nothing above
 * U+10FFFF), no control characters in strings, \u escapes paired right,
 * numbers as the grammar has them, no duplicate keys in an object, no
 * trailing garbage, nesting at most 256 deep. Out of memory exits (2).
 */
#ifndef PCIERR_TESTS_JSON_PARSE_H
#define PCIERR_TESTS_JSON_PARSE_H

#include <stddef.h>

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
	enum jtype type;
	char *text;		/* J_NUMBER: as written; J_STRING: decoded */
	size_t n;		/* members of an array or object */
	char **keys;		/* J_OBJECT */
	struct jval **items;
};

struct json_error {
	const char *what;	/* why it is not valid */
	size_t offset;		/* at which byte */
};

/* exactly one JSON text in [s, s + len): the tree, or NULL and *err */
struct jval *json_parse(const char *s, size_t len, struct json_error *err);
void json_free(struct jval *v);

#endif /* PCIERR_TESTS_JSON_PARSE_H */

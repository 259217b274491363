/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's JSON writer: a small streaming emitter (RFC 8259) that
 * escapes every string and keeps the commas and nesting right by itself.
 *
 *   struct json_writer w;
 *   json_init(&w, stdout, false);
 *   json_begin_object(&w);
 *   json_kv_string(&w, "Address", "0000:01:00.0");
 *   json_kv_uint(&w, "FreezeCount", 3);
 *   json_end_object(&w);
 *   json_finish(&w);          (a newline; 0 or the first error)
 *
 * Strings are written as valid UTF-8: control characters, '"' and '\\'
 * are escaped, and a byte that is not part of valid UTF-8 becomes
 * U+FFFD. A NULL string is written as null.
 */
#ifndef PCIERRCTL_JSON_H
#define PCIERRCTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json_writer {
	FILE *f;
	bool pretty;		/* indent by two spaces, one member a line */
	unsigned depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;		/* a key was written; its value comes next */
	int error;		/* the first misuse (-EINVAL) or write error (-EIO) */
};

void json_init(struct json_writer *w, FILE *f, bool pretty);

/* s as a JSON string (quotes included) */
void json_escape(FILE *f, const char *s);

void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);
void json_key(struct json_writer *w, const char *key);

void json_string(struct json_writer *w, const char *s);
void json_uint(struct json_writer *w, uint64_t v);
void json_int(struct json_writer *w, int64_t v);
void json_bool(struct json_writer *w, bool b);
void json_null(struct json_writer *w);
/* a NULL-terminated string list as an array of strings (NULL: []) */
void json_strv(struct json_writer *w, char *const *l);

void json_kv_string(struct json_writer *w, const char *key, const char *s);
void json_kv_uint(struct json_writer *w, const char *key, uint64_t v);
void json_kv_int(struct json_writer *w, const char *key, int64_t v);
void json_kv_bool(struct json_writer *w, const char *key, bool b);
void json_kv_null(struct json_writer *w, const char *key);
void json_kv_strv(struct json_writer *w, const char *key, char *const *l);

/* End of one document: a newline. Returns 0, or the first error (the
 * nesting not closed: -EINVAL; a failed write: -EIO). */
int json_finish(struct json_writer *w);

#endif /* PCIERRCTL_JSON_H */

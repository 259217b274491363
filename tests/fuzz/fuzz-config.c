// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: pcierrd's configuration parser (daemon/config.c).
 * The input is the file's bytes as they are, NULs and all, read through
 * pcierr_config_parse_file() (fmemopen), then the same cut at the first
 * NUL through pcierr_config_parse_string(). Checked: a failure says
 * where and why (a message, a negative errno); a success leaves every
 * setting in its documented range and every override well-formed, and
 * resolving any address against the result stays in range too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_settings(const struct pcierr_settings *s)
{
	if (s->max_freezes > PCIERR_MAX_FREEZES_MAX ||
	    s->freeze_window_sec < PCIERR_FREEZE_WINDOW_SEC_MIN ||
	    s->freeze_window_sec > PCIERR_FREEZE_WINDOW_SEC_MAX ||
	    s->max_wait_sec < PCIERR_MAX_WAIT_SEC_MIN ||
	    s->max_wait_sec > PCIERR_MAX_WAIT_SEC_MAX ||
	    s->step_timeout_sec < PCIERR_STEP_TIMEOUT_SEC_MIN ||
	    s->step_timeout_sec > PCIERR_STEP_TIMEOUT_SEC_MAX ||
	    s->verify_sec > PCIERR_VERIFY_SEC_MAX ||
	    (unsigned int)s->method >= __PCIERR_METHOD_MAX)
		abort();
}

static void check(const struct pcierr_config *c, int r, const struct pcierr_config_error *err)
{
	struct pcierr_settings s;

	if (r < 0) {
		if (err->error >= 0 || !err->message[0] ||
		    strnlen(err->message, sizeof(err->message)) >= sizeof(err->message))
			abort();
		return;
	}
	if (r != 0)
		abort();
	check_settings(&c->defaults);
	if (c->metrics_path && c->metrics_path[0] != '/')
		abort();
	if (c->n_overrides > 0 && !c->overrides)
		abort();
	for (size_t i = 0; i < c->n_overrides; i++) {
		const struct pcierr_config_override *o = &c->overrides[i];
		char a[PCIERR_ADDR_MAX];

		check_settings(&o->settings);
		if (o->type == PCIERR_MATCH_ADDRESS &&
		    (pcierr_parse_pci_address(o->addr, a) < 0 || strcmp(a, o->addr) != 0))
			abort();
		pcierr_config_resolve(c, o->type == PCIERR_MATCH_ADDRESS ? o->addr : "0000:01:00.0",
				      true, o->vendor, o->device, &s);
		check_settings(&s);
		if (o->type == PCIERR_MATCH_DRIVER) {
			/* a [Driver] name is never empty nor unterminated */
			if (!o->driver[0] || strnlen(o->driver, sizeof(o->driver)) >= sizeof(o->driver))
				abort();
			pcierr_config_resolve_driver(c, "0000:01:00.0", true, 0, 0, o->driver, &s);
			check_settings(&s);
		}
	}
	pcierr_config_resolve(c, "0000:00:00.0", false, 0, 0, &s);
	check_settings(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcierr_config c;
	struct pcierr_config_error err;
	FILE *f;
	char *text;
	int r;

	/* the bytes as a file */
	pcierr_config_init(&c);
	memset(&err, 0, sizeof(err));
	f = fmemopen((void *)data, size, "r");
	if (f) {
		r = pcierr_config_parse_file(&c, f, "fuzz.conf", &err);
		fclose(f);
		check(&c, r, &err);
	}
	pcierr_config_done(&c);

	/* the text up to the first NUL */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	pcierr_config_init(&c);
	memset(&err, 0, sizeof(err));
	r = pcierr_config_parse_string(&c, text, "fuzz.conf", &err);
	check(&c, r, &err);
	pcierr_config_done(&c);
	free(text);
	return 0;
}

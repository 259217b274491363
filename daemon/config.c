/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd configuration parser. The syntax is documented in config.h and
 * docs/pcierrd.conf.md. Nothing here prints: errors come back in a
 * struct pcierr_config_error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcierr/pcierr.h>

#include "config.h"
#include "macro.h"

#define LINE_MAX_LEN	(64U * 1024U)

static const struct pcierr_settings builtin_defaults = {
	.max_freezes = PCIERR_DEFAULT_MAX_FREEZES,
	.freeze_window_sec = PCIERR_DEFAULT_FREEZE_WINDOW_SEC,
	.max_wait_sec = PCIERR_DEFAULT_MAX_WAIT_SEC,
	.step_timeout_sec = PCIERR_DEFAULT_STEP_TIMEOUT_SEC,
	.recover = true,
	.method = PCIERR_METHOD_AUTO,
	.verify_sec = PCIERR_DEFAULT_VERIFY_SEC,
	.verify_escalate = true,
	.kernel_timeout_sec = PCIERR_DEFAULT_KERNEL_TIMEOUT_SEC,
};

static const char *const method_names[] = {
	[PCIERR_METHOD_AUTO] = "auto",
	[PCIERR_METHOD_HOTPLUG] = "hotplug",
};

const char *pcierr_method_to_string(enum pcierr_method m)
{
	return (unsigned int)m < ELEMENTSOF(method_names) ? method_names[m] : NULL;
}

void pcierr_config_init(struct pcierr_config *c)
{
	*c = (struct pcierr_config) {
		.defaults = builtin_defaults,
		.auto_recover = true,
		.history_max = PCIERR_DEFAULT_HISTORY_MAX,
		.history_max_age_usec =
			(uint64_t)PCIERR_DEFAULT_HISTORY_MAX_AGE_SEC * 1000000U,
	};
}

void pcierr_config_done(struct pcierr_config *c)
{
	free(c->metrics_path);
	free(c->overrides);
	pcierr_config_init(c);
}

_printf_(4, 5)
static int set_error(struct pcierr_config_error *err, const char *filename,
		     unsigned int line, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	snprintf(err->file, sizeof(err->file), "%s", filename ?: "");
	err->line = line;
	err->error = -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int set_errno(struct pcierr_config_error *err, const char *filename,
		     int r, const char *what)
{
	if (err) {
		snprintf(err->file, sizeof(err->file), "%s", filename ?: "");
		err->line = 0;
		err->error = r;
		snprintf(err->message, sizeof(err->message), "%s: %s", what,
			 strerror(-r));
	}
	return r;
}

static char *strstrip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* 1..maxdigits hex digits up to the terminator (or the end) */
static int parse_hex(const char **p, unsigned int maxdigits, char term,
		     unsigned long *ret)
{
	unsigned long v = 0;
	unsigned int n = 0;
	const char *s = *p;

	while (*s && *s != term) {
		int h = unhexchar(*s);

		if (h < 0 || ++n > maxdigits)
			return -EINVAL;
		v = v * 16 + (unsigned long)h;
		s++;
	}
	if (n == 0 || *s != term)
		return -EINVAL;
	*ret = v;
	*p = *s ? s + 1 : s;
	return 0;
}

/* One address grammar for config, uevents, D-Bus and pcierrctl (L8) */
int pcierr_parse_pci_address(const char *s, char ret[PCIERR_ADDR_MAX])
{
	return pcierr_addr_normalize(s, ret);
}

/* "VVVV:DDDD" or "VVVV:*" */
static int parse_ids(const char *s, enum pcierr_match_type *type,
		     uint16_t *vendor, uint16_t *device)
{
	unsigned long v, d = 0;
	const char *p = s;

	if (parse_hex(&p, 4, ':', &v) < 0)
		return -EINVAL;
	if (strcmp(p, "*") == 0) {
		*type = PCIERR_MATCH_VENDOR;
	} else {
		if (parse_hex(&p, 4, '\0', &d) < 0)
			return -EINVAL;
		*type = PCIERR_MATCH_ID;
	}
	*vendor = (uint16_t)v;
	*device = (uint16_t)d;
	return 0;
}

static int parse_unsigned(const char *s, unsigned int *ret)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
		if (v > UINT_MAX)
			return -ERANGE;
	}
	*ret = (unsigned int)v;
	return 0;
}

static int parse_boolean(const char *s)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	for (size_t i = 0; i < ELEMENTSOF(yes); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < ELEMENTSOF(no); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	return -EINVAL;
}

enum section {
	SECTION_NONE,
	SECTION_POLICY,
	SECTION_DEVICE,
	SECTION_STATE,
};

enum key_kind {
	KEY_NUMBER,
	KEY_BOOLEAN,
	KEY_METHOD,
	KEY_PATH,			/* MetricsPath */
};

struct key_desc {
	const char *name;
	unsigned int bit;		/* PCIERR_SET_*; 0 = MetricsPath */
	unsigned int min, max;		/* numbers */
	size_t offset;			/* in struct pcierr_settings */
	enum key_kind kind;
};

static const struct key_desc keys[] = {
	{ "MaxFreezes", PCIERR_SET_MAX_FREEZES, 0, PCIERR_MAX_FREEZES_MAX,
	  offsetof(struct pcierr_settings, max_freezes), KEY_NUMBER },
	{ "FreezeWindowSec", PCIERR_SET_FREEZE_WINDOW_SEC,
	  PCIERR_FREEZE_WINDOW_SEC_MIN, PCIERR_FREEZE_WINDOW_SEC_MAX,
	  offsetof(struct pcierr_settings, freeze_window_sec), KEY_NUMBER },
	{ "MaxWaitSec", PCIERR_SET_MAX_WAIT_SEC, PCIERR_MAX_WAIT_SEC_MIN,
	  PCIERR_MAX_WAIT_SEC_MAX,
	  offsetof(struct pcierr_settings, max_wait_sec), KEY_NUMBER },
	{ "StepTimeoutSec", PCIERR_SET_STEP_TIMEOUT_SEC,
	  PCIERR_STEP_TIMEOUT_SEC_MIN, PCIERR_STEP_TIMEOUT_SEC_MAX,
	  offsetof(struct pcierr_settings, step_timeout_sec), KEY_NUMBER },
	{ "KernelTimeoutSec", PCIERR_SET_KERNEL_TIMEOUT_SEC,
	  PCIERR_STEP_TIMEOUT_SEC_MIN, PCIERR_STEP_TIMEOUT_SEC_MAX,
	  offsetof(struct pcierr_settings, kernel_timeout_sec), KEY_NUMBER },
	{ "Recover", PCIERR_SET_RECOVER, 0, 1,
	  offsetof(struct pcierr_settings, recover), KEY_BOOLEAN },
	{ "Method", PCIERR_SET_METHOD, 0, 0,
	  offsetof(struct pcierr_settings, method), KEY_METHOD },
	{ "VerifySec", PCIERR_SET_VERIFY_SEC, 0, PCIERR_VERIFY_SEC_MAX,
	  offsetof(struct pcierr_settings, verify_sec), KEY_NUMBER },
	{ "VerifyEscalate", PCIERR_SET_VERIFY_ESCALATE, 0, 1,
	  offsetof(struct pcierr_settings, verify_escalate), KEY_BOOLEAN },
	{ "MetricsPath", 0, 0, 0, 0, KEY_PATH },
};

/* Find or append the override for this match; NULL on ENOMEM */
static struct pcierr_config_override *
get_override(struct pcierr_config *c, const struct pcierr_config_override *m)
{
	struct pcierr_config_override *o;

	for (size_t i = 0; i < c->n_overrides; i++) {
		o = &c->overrides[i];
		if (o->type != m->type)
			continue;
		if (o->type == PCIERR_MATCH_ADDRESS ? strcmp(o->addr, m->addr) == 0 :
		    o->type == PCIERR_MATCH_DRIVER ? strcmp(o->driver, m->driver) == 0 :
		    o->vendor == m->vendor && o->device == m->device)
			return o;
	}
	o = reallocarray(c->overrides, c->n_overrides + 1, sizeof(*o));
	if (!o)
		return NULL;
	c->overrides = o;
	o = &c->overrides[c->n_overrides++];
	*o = *m;
	o->set = 0;
	o->settings = builtin_defaults;
	return o;
}

/* [Driver NAME]: the name as the kernel's driver core spells it */
static int parse_driver_section(struct pcierr_config *c, const char *name, const char *fn,
				unsigned int line, enum section *section,
				struct pcierr_config_override **cur,
				struct pcierr_config_error *err)
{
	struct pcierr_config_override m = { .type = PCIERR_MATCH_DRIVER };
	size_t n = strlen(name);

	if (n == 0)
		return set_error(err, fn, line,
				 "[Driver] needs a driver name, e.g. [Driver e1000]");
	if (n >= sizeof(m.driver))
		return set_error(err, fn, line, "[Driver %s]: name too long (at most %zu bytes)",
				 name, sizeof(m.driver) - 1);
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return set_error(err, fn, line,
					 "[Driver %s]: not a driver name (letters, digits, _ - .)",
					 name);
	memcpy(m.driver, name, n + 1);
	*cur = get_override(c, &m);
	if (!*cur)
		return set_errno(err, fn, -ENOMEM, "parsing");
	*section = SECTION_DEVICE;
	return 0;
}

static int parse_method(const char *s)
{
	for (size_t i = 0; i < ELEMENTSOF(method_names); i++)
		if (strcmp(s, method_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static int parse_section(struct pcierr_config *c, char *l, const char *fn,
			 unsigned int line, enum section *section,
			 struct pcierr_config_override **cur,
			 struct pcierr_config_error *err)
{
	struct pcierr_config_override m = {};
	size_t n = strlen(l);
	char *name, *arg;

	if (l[n - 1] != ']')
		return set_error(err, fn, line, "'%s': section header without ']'", l);
	l[n - 1] = '\0';
	name = strstrip(l + 1);

	if (strcmp(name, "Policy") == 0) {
		*section = SECTION_POLICY;
		*cur = NULL;
		return 0;
	}
	if (strcmp(name, "State") == 0) {
		*section = SECTION_STATE;
		*cur = NULL;
		return 0;
	}

	arg = name + strcspn(name, " \t");
	if (*arg)
		*arg++ = '\0';
	arg = strstrip(arg);
	if (strcmp(name, "Driver") == 0)
		return parse_driver_section(c, arg, fn, line, section, cur, err);
	if (strcmp(name, "Device") != 0)
		return set_error(err, fn, line, "unknown section [%s]", name);
	if (!*arg)
		return set_error(err, fn, line,
				 "[Device] needs an address or vendor:device, e.g. [Device 0000:01:00.0] or [Device 8086:10d3]");

	n = strlen(arg);
	if (arg[0] == '"') {
		if (n < 2 || arg[n - 1] != '"')
			return set_error(err, fn, line, "[Device %s]: unbalanced quotes", arg);
		arg[n - 1] = '\0';
		arg++;
	}

	if (strchr(arg, '.')) {
		m.type = PCIERR_MATCH_ADDRESS;
		if (pcierr_parse_pci_address(arg, m.addr) < 0)
			return set_error(err, fn, line,
					 "[Device \"%s\"]: not a PCI address (DDDD:BB:DD.F, hex)", arg);
	} else if (parse_ids(arg, &m.type, &m.vendor, &m.device) < 0) {
		return set_error(err, fn, line,
				 "[Device \"%s\"]: neither a PCI address (DDDD:BB:DD.F) nor vendor:device ids (VVVV:DDDD or VVVV:*)",
				 arg);
	}

	*cur = get_override(c, &m);
	if (!*cur)
		return set_errno(err, fn, -ENOMEM, "parsing");
	*section = SECTION_DEVICE;
	return 0;
}

/* [State]: HistoryMax=, HistoryMaxAgeSec= */
static int parse_state_key(struct pcierr_config *c, const char *key,
			   const char *value, const char *fn,
			   unsigned int line, struct pcierr_config_error *err)
{
	bool age = strcmp(key, "HistoryMaxAgeSec") == 0;
	unsigned int v, max;
	int r;

	if (!age && strcmp(key, "HistoryMax") != 0)
		return set_error(err, fn, line, "unknown key %s= in section [State]", key);
	max = age ? PCIERR_HISTORY_MAX_AGE_SEC_MAX : PCIERR_HISTORY_MAX_MAX;
	if (!*value) {
		v = age ? PCIERR_DEFAULT_HISTORY_MAX_AGE_SEC : PCIERR_DEFAULT_HISTORY_MAX;
	} else {
		r = parse_unsigned(value, &v);
		if (r == -EINVAL)
			return set_error(err, fn, line, "%s=%s: not a number", key, value);
		if (r < 0 || v > max)
			return set_error(err, fn, line, "%s=%s: out of range (0...%u)",
					 key, value, max);
	}
	if (age)
		c->history_max_age_usec = (uint64_t)v * 1000000U;
	else
		c->history_max = v;
	return 0;
}

static int parse_assignment(struct pcierr_config *c, char *l, const char *fn,
			    unsigned int line, enum section section,
			    struct pcierr_config_override *cur,
			    struct pcierr_config_error *err)
{
	const char *secname = section == SECTION_POLICY ? "Policy" : "Device";
	const struct key_desc *k = NULL;
	struct pcierr_settings *s;
	char *eq, *key, *value;
	unsigned int v;
	int r;

	eq = strchr(l, '=');
	if (!eq)
		return set_error(err, fn, line, "'%s': missing '='", l);
	*eq = '\0';
	key = strstrip(l);
	value = strstrip(eq + 1);

	if (section == SECTION_NONE)
		return set_error(err, fn, line,
				 "%s= outside of any section, add [Policy], [State] or [Device ...] before it", key);
	if (!*key)
		return set_error(err, fn, line, "'=%s': missing key", value);
	if (section == SECTION_STATE)
		return parse_state_key(c, key, value, fn, line, err);
	if (strcmp(key, "AutoRecover") == 0) {
		if (section != SECTION_POLICY)
			return set_error(err, fn, line, "%s= is only allowed in [Policy]", key);
		r = *value ? parse_boolean(value) : 1;
		if (r < 0)
			return set_error(err, fn, line, "%s=%s: not a boolean (yes/no)", key, value);
		c->auto_recover = r;
		return 0;
	}

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].name, key) == 0)
			k = &keys[i];
	if (!k)
		return set_error(err, fn, line, "unknown key %s= in section [%s]", key, secname);

	if (k->kind == KEY_PATH) {
		char *p = NULL;

		if (section != SECTION_POLICY)
			return set_error(err, fn, line, "%s= is only allowed in [Policy]", key);
		if (*value && value[0] != '/')
			return set_error(err, fn, line, "%s=%s: not an absolute path", key, value);
		if (*value) {
			p = strdup(value);
			if (!p)
				return set_errno(err, fn, -ENOMEM, "parsing");
		}
		free(c->metrics_path);
		c->metrics_path = p;
		return 0;
	}

	s = section == SECTION_POLICY ? &c->defaults : &cur->settings;

	if (!*value) {
		/* Empty: back to the default / drop the override */
		if (section == SECTION_POLICY) {
			if (k->kind == KEY_BOOLEAN)
				*(bool *)((char *)s + k->offset) =
					*(const bool *)((const char *)&builtin_defaults + k->offset);
			else if (k->kind == KEY_METHOD)
				s->method = builtin_defaults.method;
			else
				*(unsigned int *)((char *)s + k->offset) =
					*(const unsigned int *)((const char *)&builtin_defaults + k->offset);
		} else {
			cur->set &= ~k->bit;
		}
		return 0;
	}

	if (k->kind == KEY_BOOLEAN) {
		r = parse_boolean(value);
		if (r < 0)
			return set_error(err, fn, line, "%s=%s: not a boolean (yes/no)", key, value);
		*(bool *)((char *)s + k->offset) = r;
	} else if (k->kind == KEY_METHOD) {
		r = parse_method(value);
		if (r < 0)
			return set_error(err, fn, line, "%s=%s: not a method (auto, hotplug)",
					 key, value);
		s->method = (enum pcierr_method)r;
	} else {
		r = parse_unsigned(value, &v);
		if (r == -EINVAL)
			return set_error(err, fn, line, "%s=%s: not a number", key, value);
		if (r < 0 || v < k->min || v > k->max)
			return set_error(err, fn, line, "%s=%s: out of range (%u...%u)",
					 key, value, k->min, k->max);
		*(unsigned int *)((char *)s + k->offset) = v;
	}
	if (cur)
		cur->set |= k->bit;
	return 0;
}

int pcierr_config_parse_file(struct pcierr_config *c, FILE *f,
			     const char *filename,
			     struct pcierr_config_error *err)
{
	_cleanup_free_ char *buf = NULL;
	struct pcierr_config_override *cur = NULL;
	enum section section = SECTION_NONE;
	unsigned int line = 0;
	size_t size = 0;
	ssize_t n;
	int r;

	while ((n = getline(&buf, &size, f)) >= 0) {
		char *l;

		line++;
		if ((size_t)n > LINE_MAX_LEN)
			return set_error(err, filename, line, "line too long (more than %u bytes)",
					 LINE_MAX_LEN);
		if (strlen(buf) != (size_t)n)
			return set_error(err, filename, line, "NUL byte in line");
		/* a UTF-8 byte order mark at the start of the file */
		l = buf;
		if (line == 1 && strncmp(l, "\xef\xbb\xbf", 3) == 0)
			l += 3;
		l = strstrip(l);
		if (!*l || *l == '#' || *l == ';')
			continue;

		if (*l == '[') {
			/* may realloc the overrides: cur is set anew */
			r = parse_section(c, l, filename, line, &section, &cur, err);
		} else {
			r = parse_assignment(c, l, filename, line, section, cur, err);
		}
		if (r < 0)
			return r;
	}
	if (ferror(f))
		return set_errno(err, filename, errno > 0 ? -errno : -EIO, "reading");
	return 0;
}

int pcierr_config_parse_string(struct pcierr_config *c, const char *text,
			       const char *filename,
			       struct pcierr_config_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;

	f = fmemopen((void *)text, strlen(text), "r");
	if (!f)
		return set_errno(err, filename, negative_errno(), "fmemopen");
	return pcierr_config_parse_file(c, f, filename, err);
}

static int load_one(struct pcierr_config *c, const char *path,
		    struct pcierr_config_error *err)
{
	_cleanup_fclose_ FILE *f = NULL;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		return set_errno(err, path, negative_errno(), "opening");
	}
	return pcierr_config_parse_file(c, f, path, err);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pcierr_config_load(struct pcierr_config *c, const char *main_path,
		       const char *dropin_dir,
		       struct pcierr_config_error *err)
{
	struct pcierr_config new;
	_cleanup_closedir_ DIR *d = NULL;
	char **names = NULL;
	size_t n_names = 0;
	struct dirent *de;
	int r;

	main_path = main_path ?: PCIERR_CONFIG_FILE;
	dropin_dir = dropin_dir ?: PCIERR_CONFIG_DROPIN_DIR;

	pcierr_config_init(&new);
	r = load_one(&new, main_path, err);
	if (r < 0)
		goto fail;

	d = opendir(dropin_dir);
	if (!d && errno != ENOENT) {
		r = set_errno(err, dropin_dir, negative_errno(), "opening directory");
		goto fail;
	}
	while (d && (errno = 0, de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf") != 0)
			continue;
		nn = reallocarray(names, n_names + 1, sizeof(*names));
		if (!nn) {
			r = set_errno(err, dropin_dir, -ENOMEM, "reading directory");
			goto fail;
		}
		names = nn;
		if (asprintf(&names[n_names], "%s/%s", dropin_dir, de->d_name) < 0) {
			r = set_errno(err, dropin_dir, -ENOMEM, "reading directory");
			goto fail;
		}
		n_names++;
	}
	if (d && errno != 0) {
		r = set_errno(err, dropin_dir, negative_errno(), "reading directory");
		goto fail;
	}
	if (n_names > 0)
		qsort(names, n_names, sizeof(*names), cmp_names);

	for (size_t i = 0; i < n_names; i++) {
		r = load_one(&new, names[i], err);
		if (r < 0)
			goto fail;
	}

	free_names(names, n_names);
	pcierr_config_done(c);
	*c = new;
	return 0;

fail:
	free_names(names, n_names);
	pcierr_config_done(&new);
	return r;
}

static void apply(struct pcierr_settings *s, const struct pcierr_config_override *o)
{
	if (o->set & PCIERR_SET_MAX_FREEZES)
		s->max_freezes = o->settings.max_freezes;
	if (o->set & PCIERR_SET_FREEZE_WINDOW_SEC)
		s->freeze_window_sec = o->settings.freeze_window_sec;
	if (o->set & PCIERR_SET_MAX_WAIT_SEC)
		s->max_wait_sec = o->settings.max_wait_sec;
	if (o->set & PCIERR_SET_STEP_TIMEOUT_SEC)
		s->step_timeout_sec = o->settings.step_timeout_sec;
	if (o->set & PCIERR_SET_RECOVER)
		s->recover = o->settings.recover;
	if (o->set & PCIERR_SET_METHOD)
		s->method = o->settings.method;
	if (o->set & PCIERR_SET_VERIFY_SEC)
		s->verify_sec = o->settings.verify_sec;
	if (o->set & PCIERR_SET_VERIFY_ESCALATE)
		s->verify_escalate = o->settings.verify_escalate;
	if (o->set & PCIERR_SET_KERNEL_TIMEOUT_SEC)
		s->kernel_timeout_sec = o->settings.kernel_timeout_sec;
}

void pcierr_config_resolve(const struct pcierr_config *c, const char *addr,
			   bool has_ids, uint16_t vendor, uint16_t device,
			   struct pcierr_settings *ret)
{
	pcierr_config_resolve_driver(c, addr, has_ids, vendor, device, NULL, ret);
}

void pcierr_config_resolve_driver(const struct pcierr_config *c, const char *addr,
				  bool has_ids, uint16_t vendor, uint16_t device,
				  const char *driver, struct pcierr_settings *ret)
{
	static const enum pcierr_match_type order[] = {
		PCIERR_MATCH_VENDOR, PCIERR_MATCH_DRIVER, PCIERR_MATCH_ID, PCIERR_MATCH_ADDRESS,
	};
	char norm[PCIERR_ADDR_MAX];
	int have_addr = -1;	/* normalised on the first Address= override only */

	*ret = c->defaults;
	/* least specific first, so that the most specific is applied last */
	for (size_t t = 0; t < ELEMENTSOF(order); t++)
		for (size_t i = 0; i < c->n_overrides; i++) {
			const struct pcierr_config_override *o = &c->overrides[i];

			if (o->type != order[t])
				continue;
			switch (o->type) {
			case PCIERR_MATCH_ADDRESS:
				if (have_addr < 0)
					have_addr = addr && pcierr_parse_pci_address(addr, norm) == 0;
				if (!have_addr || strcmp(o->addr, norm) != 0)
					continue;
				break;
			case PCIERR_MATCH_ID:
				if (!has_ids || o->vendor != vendor || o->device != device)
					continue;
				break;
			case PCIERR_MATCH_VENDOR:
				if (!has_ids || o->vendor != vendor)
					continue;
				break;
			case PCIERR_MATCH_DRIVER:
				if (!driver || strcmp(o->driver, driver) != 0)
					continue;
				break;
			}
			apply(ret, o);
		}
}

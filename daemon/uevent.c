/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd uevent translation (see uevent.h): pure, no libudev.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "uevent.h"

static const char *const type_names[__PCIERR_UEVENT_MAX] = {
	[PCIERR_UEVENT_IGNORED]	= "ignored",
	[PCIERR_UEVENT_ADD]	= "add",
	[PCIERR_UEVENT_REMOVE]	= "remove",
	[PCIERR_UEVENT_BIND]	= "bind",
	[PCIERR_UEVENT_UNBIND]	= "unbind",
	[PCIERR_UEVENT_AER]	= "aer",
};

const char *pcierr_uevent_type_to_string(enum pcierr_uevent_type t)
{
	if ((unsigned int)t >= ELEMENTSOF(type_names))
		return NULL;
	return type_names[t];
}

static const struct {
	const char *name;
	enum pcierr_uevent_type type;
} actions[] = {
	{ "add",	PCIERR_UEVENT_ADD },
	{ "remove",	PCIERR_UEVENT_REMOVE },
	{ "bind",	PCIERR_UEVENT_BIND },
	{ "unbind",	PCIERR_UEVENT_UNBIND },
	{ "change",	PCIERR_UEVENT_AER },	/* when ERROR_EVENT is sent */
};

static const struct {
	const char *name;
	enum pcierr_policy_aer aer;
} error_events[] = {
	{ "BEGIN_RECOVERY",		PCIERR_POLICY_AER_BEGIN },
	{ "SUCCESSFUL_RECOVERY",	PCIERR_POLICY_AER_SUCCESSFUL },
	{ "FAILED_RECOVERY",		PCIERR_POLICY_AER_FAILED },
};

/* Look key up; 0 with *v NULL when absent, -EINVAL when too long. */
static int get_value(pcierr_uevent_get_t get, void *userdata,
		     const char *key, const char **v)
{
	const char *s = get(key, userdata);

	*v = NULL;
	if (!s)
		return 0;
	if (strnlen(s, PCIERR_UEVENT_VALUE_MAX) >= PCIERR_UEVENT_VALUE_MAX)
		return -EINVAL;
	*v = s;
	return 0;
}

/* exactly 4 hex digits */
static int parse_hex4(const char *s, uint16_t *ret)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		int d = unhexchar(s[i]);

		if (d < 0)
			return -EINVAL;
		v = v << 4 | (unsigned int)d;
	}
	*ret = (uint16_t)v;
	return 0;
}

/* "XXXX:XXXX", as pci_uevent() prints PCI_ID and PCI_SUBSYS_ID */
static int parse_id_pair(const char *s, uint16_t *a, uint16_t *b)
{
	if (strlen(s) != 9 || s[4] != ':')
		return -EINVAL;
	if (parse_hex4(s, a) < 0 || parse_hex4(s + 5, b) < 0)
		return -EINVAL;
	return 0;
}

/* a driver name as the kernel registers it: printable, no '/', no blanks */
static bool driver_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= PCIERR_UEVENT_DRIVER_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '/')
			return false;
	return true;
}

int pcierr_uevent_parse(const char *subsystem, const char *action,
			const char *sysname, pcierr_uevent_get_t get,
			void *userdata, struct pcierr_uevent *ret)
{
	struct pcierr_uevent ev = { .type = PCIERR_UEVENT_IGNORED };
	const char *v;
	bool found = false;
	int r;

	if (!action || !get || !ret)
		return -EINVAL;

	if (subsystem && strcmp(subsystem, "pci") != 0)
		goto ignore;

	for (size_t i = 0; i < ELEMENTSOF(actions); i++)
		if (strcmp(action, actions[i].name) == 0) {
			ev.type = actions[i].type;
			found = true;
			break;
		}
	if (!found)
		goto ignore;

	if (ev.type == PCIERR_UEVENT_AER) {
		r = get_value(get, userdata, "ERROR_EVENT", &v);
		if (r < 0)
			return r;
		if (!v)
			goto ignore;	/* some other change */
		found = false;
		for (size_t i = 0; i < ELEMENTSOF(error_events); i++)
			if (strcmp(v, error_events[i].name) == 0) {
				ev.aer = error_events[i].aer;
				found = true;
				break;
			}
		if (!found)
			return -EINVAL;

		r = get_value(get, userdata, "DEVICE_ONLINE", &v);
		if (r < 0)
			return r;
		if (v) {
			if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
				return -EINVAL;
			ev.has_online = true;
			ev.online = v[0] == '1';
		}
	}

	r = get_value(get, userdata, "PCI_SLOT_NAME", &v);
	if (r < 0)
		return r;
	if (!v || pcierr_parse_pci_address(v, ev.addr) < 0)
		return -EINVAL;
	if (sysname) {
		char a[PCIERR_ADDR_MAX];

		if (strnlen(sysname, PCIERR_UEVENT_VALUE_MAX) >=
		    PCIERR_UEVENT_VALUE_MAX ||
		    pcierr_parse_pci_address(sysname, a) < 0 ||
		    strcmp(a, ev.addr) != 0)
			return -EINVAL;
	}

	r = get_value(get, userdata, "PCI_ID", &v);
	if (r < 0)
		return r;
	if (v) {
		if (parse_id_pair(v, &ev.vendor, &ev.device) < 0)
			return -EINVAL;
		ev.has_ids = true;
	}

	r = get_value(get, userdata, "PCI_SUBSYS_ID", &v);
	if (r < 0)
		return r;
	if (v) {
		if (parse_id_pair(v, &ev.subvendor, &ev.subdevice) < 0)
			return -EINVAL;
		ev.has_subsys = true;
	}

	r = get_value(get, userdata, "DRIVER", &v);
	if (r < 0)
		return r;
	if (v) {
		if (!driver_ok(v))
			return -EINVAL;
		memcpy(ev.driver, v, strlen(v) + 1);
	}

	*ret = ev;
	return 0;

ignore:
	*ret = (struct pcierr_uevent) { .type = PCIERR_UEVENT_IGNORED };
	return 0;
}

struct env_lookup {
	const char *const *env;
	size_t n;
};

static const char *env_get(const char *key, void *userdata)
{
	const struct env_lookup *e = userdata;
	size_t klen = strlen(key);

	for (size_t i = 0; i < e->n; i++) {
		const char *s = e->env[i];

		if (s && strncmp(s, key, klen) == 0 && s[klen] == '=')
			return s + klen + 1;
	}
	return NULL;
}

int pcierr_uevent_parse_env(const char *subsystem, const char *action,
			    const char *sysname, const char *const *env,
			    size_t n, struct pcierr_uevent *ret)
{
	struct env_lookup e = { .env = env, .n = n };

	if (!env && n > 0)
		return -EINVAL;
	return pcierr_uevent_parse(subsystem, action, sysname, env_get, &e,
				   ret);
}

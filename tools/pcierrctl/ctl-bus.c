// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl and org.pcierr1 (see ctl-bus.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "ctl-bus.h"
#include "ctl-macro.h"

#ifndef CTL_PKTTYAGENT
#define CTL_PKTTYAGENT "/usr/bin/pkttyagent"
#endif

int ctl_bus_connect(const char *host, const char *machine, sd_bus **ret)
{
	int r;

	if (host)
		r = sd_bus_open_system_remote(ret, host);
	else if (machine)
		r = sd_bus_open_system_machine(ret, machine);
	else
		r = sd_bus_open_system(ret);
	if (r < 0) {
		if (host)
			log_error("Failed to connect to the system bus of %s: %s", host, strerror(-r));
		else if (machine)
			log_error("Failed to connect to the system bus of container %s: %s",
				  machine, strerror(-r));
		else
			log_error("Failed to connect to the system bus: %s", strerror(-r));
	}
	return r;
}

const char *ctl_bus_error_words(const sd_bus_error *error, int r,
				const char *privileged, char *buf, size_t size)
{
	const char *msg = error && error->message && *error->message ? error->message : NULL;

	if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN,
				   SD_BUS_ERROR_NAME_HAS_NO_OWNER))
		snprintf(buf, size, "pcierrd is not running (systemctl start pcierrd)");
	else if (sd_bus_error_has_name(error, CTL_BUS_ERROR_INTERACTIVE_AUTH))
		/* polkit would ask for a password, but we could not let it */
		snprintf(buf, size, "Permission denied: authentication is required to %s; "
			 "run pcierrctl on a terminal without --no-ask-password to be asked, "
			 "or use sudo", privileged ? privileged : "do this");
	else if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) ||
		 (!sd_bus_error_is_set(error) && (r == -EACCES || r == -EPERM))) {
		/* pcierrd says why: polkit said no, or root only without polkit */
		if (privileged && msg)
			snprintf(buf, size, "Permission denied: %s%s Try sudo", msg,
				 msg[strlen(msg) - 1] == '.' ? "" : ".");
		else if (privileged)
			snprintf(buf, size, "Permission denied: only root may %s; try sudo",
				 privileged);
		else
			snprintf(buf, size, "Permission denied%s%s", msg ? ": " : "",
				 msg ? msg : "");
	} else if (sd_bus_error_has_name(error, CTL_BUS_ERROR_KERNEL))
		snprintf(buf, size, "the kernel shim is not loaded (modprobe pcierr_shim)");
	else if (sd_bus_error_has_name(error, CTL_BUS_ERROR_BUSY))
		snprintf(buf, size, "%s (pcierrctl monitor shows when it is done)",
			 msg ? msg : "the slot is recovering; try again when it is done");
	else if (sd_bus_error_has_names(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT) ||
		 (!sd_bus_error_is_set(error) && r == -ETIMEDOUT))
		snprintf(buf, size, "pcierrd did not answer in time");
	else if (sd_bus_error_has_names(error, SD_BUS_ERROR_UNKNOWN_METHOD,
					SD_BUS_ERROR_UNKNOWN_OBJECT,
					SD_BUS_ERROR_UNKNOWN_INTERFACE,
					SD_BUS_ERROR_UNKNOWN_PROPERTY))
		snprintf(buf, size, "%s (is pcierrd older than pcierrctl?)", msg ? msg : error->name);
	else if (msg)
		snprintf(buf, size, "%s", msg);
	else
		snprintf(buf, size, "%s", strerror(r < 0 ? -r : EIO));
	return buf;
}

int ctl_log_bus_error(const sd_bus_error *error, int r, const char *what,
		      const char *privileged)
{
	char words[1024];

	ctl_bus_error_words(error, r, privileged, words, sizeof(words));
	/* these say it all on their own */
	if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN,
				   SD_BUS_ERROR_NAME_HAS_NO_OWNER, SD_BUS_ERROR_ACCESS_DENIED,
				   CTL_BUS_ERROR_INTERACTIVE_AUTH) ||
	    (!sd_bus_error_is_set(error) && (r == -EACCES || r == -EPERM)))
		log_error("%s.", words);
	else
		log_error("Failed to %s: %s.", what, words);
	if (r < 0)
		return r;
	r = sd_bus_error_get_errno(error);
	return r > 0 ? -r : -EIO;
}

char *ctl_path_to_address(const char *path, const char *prefix)
{
	char *ext = NULL;

	if (sd_bus_path_decode(path, prefix, &ext) <= 0)
		return NULL;
	return ext;
}

/* ------------------------------------------------------------------ */
/* Properties into structs                                             */
/* ------------------------------------------------------------------ */

enum prop_type {
	PROP_STRING,		/* s   char * */
	PROP_ADDRESS,		/* o   char *, the address of a slot path */
	PROP_BOOL,		/* b   bool */
	PROP_U16,		/* q */
	PROP_U32,		/* u */
	PROP_U64,		/* t */
	PROP_STRV,		/* as  char ** */
	PROP_ADDRESSES,		/* ao  char **, the addresses of device paths */
};

struct prop_map {
	const char *name;
	enum prop_type type;
	size_t offset;
};

static const char *const prop_sig[] = {
	[PROP_STRING] = "s", [PROP_ADDRESS] = "o", [PROP_BOOL] = "b",
	[PROP_U16] = "q", [PROP_U32] = "u", [PROP_U64] = "t",
	[PROP_STRV] = "as", [PROP_ADDRESSES] = "ao",
};

#define M(name, type, member) { name, type, offsetof(struct ctl_manager, member) }
static const struct prop_map manager_map[] = {
	M("Version", PROP_STRING, version),
	M("MaxFreezes", PROP_U32, max_freezes),
	M("FreezeWindowUSec", PROP_U64, freeze_window_usec),
	M("MaxWaitUSec", PROP_U64, max_wait_usec),
	M("StepTimeoutUSec", PROP_U64, step_timeout_usec),
	M("KernelConnected", PROP_BOOL, kernel_connected),
	M("EventsReceived", PROP_U64, events_received),
	M("EventsLost", PROP_U64, events_lost),
	M("RecoveriesStarted", PROP_U64, recoveries_started),
	M("RecoveriesSucceeded", PROP_U64, recoveries_succeeded),
	M("RecoveriesFailed", PROP_U64, recoveries_failed),
	M("HotplugFallbacks", PROP_U64, hotplug_fallbacks),
	M("PermanentDisables", PROP_U64, permanent_disables),
	M("Resyncs", PROP_U64, resyncs),
	{}
};
#undef M

#define S(name, type, member) { name, type, offsetof(struct ctl_slot, member) }
static const struct prop_map slot_map[] = {
	S("Address", PROP_STRING, address),
	S("ResetTypes", PROP_STRV, reset_types),
	S("State", PROP_STRING, state),
	S("Step", PROP_STRING, step),
	S("Stuck", PROP_BOOL, stuck),
	S("Devices", PROP_ADDRESSES, devices),
	S("LastResult", PROP_STRING, last_result),
	S("LastDurationUSec", PROP_U64, last_duration_usec),
	S("LastRecoveryUSec", PROP_U64, last_recovery_usec),
	S("LastMessage", PROP_STRING, last_message),
	S("Disabled", PROP_BOOL, disabled),
	S("Backend", PROP_STRING, backend),
	{}
};
#undef S

#define D(name, type, member) { name, type, offsetof(struct ctl_device, member) }
static const struct prop_map device_map[] = {
	D("Address", PROP_STRING, address),
	D("Slot", PROP_ADDRESS, slot),
	D("VendorId", PROP_U16, vendor_id),
	D("DeviceId", PROP_U16, device_id),
	D("SubsystemVendorId", PROP_U16, subsystem_vendor_id),
	D("SubsystemId", PROP_U16, subsystem_id),
	D("Class", PROP_U32, class),
	D("VendorName", PROP_STRING, vendor_name),
	D("DeviceName", PROP_STRING, device_name),
	D("Identity", PROP_STRING, identity),
	D("Driver", PROP_STRING, driver),
	D("Handlers", PROP_STRV, handlers),
	D("State", PROP_STRING, state),
	D("ErrorGeneration", PROP_U32, error_generation),
	D("FreezeCount", PROP_U32, freeze_count),
	D("MaxFreezes", PROP_U32, max_freezes),
	D("LastErrorUSec", PROP_U64, last_error_usec),
	D("Disabled", PROP_BOOL, disabled),
	D("DisabledReason", PROP_STRING, disabled_reason),
	{}
};
#undef D

static int set_string(char **dst, const char *s)
{
	char *copy = strdup(s);

	if (!copy)
		return -ENOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

/* an object path as the address it names (or itself, when it is not
 * one of ours) */
static char *path_address(const char *path)
{
	char *a = ctl_path_to_address(path, CTL_BUS_SLOT_PREFIX);

	if (!a)
		a = ctl_path_to_address(path, CTL_BUS_DEVICE_PREFIX);
	return a ? a : strdup(path);
}

static int read_addresses(sd_bus_message *m, char ***ret)
{
	char **l = NULL;
	size_t n = 0;
	const char *p;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "o");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read_basic(m, 'o', &p)) > 0) {
		char **nl = realloc(l, (n + 2) * sizeof(*l));

		if (!nl) {
			strv_free(l);
			return -ENOMEM;
		}
		l = nl;
		l[n] = path_address(p);
		if (!l[n]) {
			strv_free(l);
			return -ENOMEM;
		}
		l[++n] = NULL;
	}
	if (r < 0) {
		strv_free(l);
		return r;
	}
	r = sd_bus_message_exit_container(m);
	if (r < 0) {
		strv_free(l);
		return r;
	}
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
	}
	strv_free(*ret);
	*ret = l;
	return 0;
}

static int read_value(sd_bus_message *m, const struct prop_map *p, void *base)
{
	void *dst = (char *)base + p->offset;
	const char *s;
	int r, b;

	switch (p->type) {
	case PROP_STRING:
		r = sd_bus_message_read_basic(m, 's', &s);
		return r < 0 ? r : set_string(dst, s);
	case PROP_ADDRESS: {
		char *a;

		r = sd_bus_message_read_basic(m, 'o', &s);
		if (r < 0)
			return r;
		a = path_address(s);
		if (!a)
			return -ENOMEM;
		free(*(char **)dst);
		*(char **)dst = a;
		return 0;
	}
	case PROP_BOOL:
		r = sd_bus_message_read_basic(m, 'b', &b);
		if (r >= 0)
			*(bool *)dst = b;
		return r;
	case PROP_U16:
		return sd_bus_message_read_basic(m, 'q', dst);
	case PROP_U32:
		return sd_bus_message_read_basic(m, 'u', dst);
	case PROP_U64:
		return sd_bus_message_read_basic(m, 't', dst);
	case PROP_STRV: {
		char **l = NULL;

		r = sd_bus_message_read_strv(m, &l);
		if (r < 0)
			return r;
		if (!l) {
			l = calloc(1, sizeof(*l));
			if (!l)
				return -ENOMEM;
		}
		strv_free(*(char ***)dst);
		*(char ***)dst = l;
		return 0;
	}
	case PROP_ADDRESSES:
		return read_addresses(m, dst);
	}
	return -EINVAL;
}

/* a{sv} into base by map; unknown properties are skipped (a newer
 * pcierrd), a known one of another type is an error */
static int read_properties(sd_bus_message *m, const struct prop_map *map, void *base)
{
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		const struct prop_map *p;
		const char *name;

		r = sd_bus_message_read_basic(m, 's', &name);
		if (r < 0)
			return r;
		for (p = map; p->name && strcmp(p->name, name) != 0; p++)
			;
		if (!p->name) {
			r = sd_bus_message_skip(m, "v");
			if (r < 0)
				return r;
		} else {
			r = sd_bus_message_enter_container(m, 'v', prop_sig[p->type]);
			if (r < 0)
				return r == -ENXIO ? -EBADMSG : r;
			r = read_value(m, p, base);
			if (r < 0)
				return r;
			r = sd_bus_message_exit_container(m);
			if (r < 0)
				return r;
		}
		r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

int ctl_load_manager(sd_bus *bus, struct ctl_manager *ret, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct ctl_manager m = {};
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH,
			       "org.freedesktop.DBus.Properties", "GetAll", error,
			       &reply, "s", CTL_BUS_MANAGER_IFACE);
	if (r < 0)
		return r;
	r = read_properties(reply, manager_map, &m);
	if (r < 0) {
		ctl_manager_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

static void *grow(void *p, size_t *alloc, size_t n, size_t size)
{
	void *np;
	size_t na;

	if (n < *alloc)
		return p;
	na = *alloc ? *alloc * 2 : 16;
	np = realloc(p, na * size);
	if (!np)
		return NULL;
	memset((char *)np + *alloc * size, 0, (na - *alloc) * size);
	*alloc = na;
	return np;
}

static int read_objects(sd_bus_message *reply, struct ctl_model *mo)
{
	size_t slots_alloc = 0, devices_alloc = 0;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
		const char *path;

		r = sd_bus_message_read_basic(reply, 'o', &path);
		if (r < 0)
			return r;
		r = sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
		if (r < 0)
			return r;
		while ((r = sd_bus_message_enter_container(reply, 'e', "sa{sv}")) > 0) {
			const char *iface;

			r = sd_bus_message_read_basic(reply, 's', &iface);
			if (r < 0)
				return r;
			if (strcmp(iface, CTL_BUS_SLOT_IFACE) == 0) {
				struct ctl_slot *s = grow(mo->slots, &slots_alloc, mo->n_slots,
							  sizeof(*s));

				if (!s)
					return -ENOMEM;
				mo->slots = s;
				s = &mo->slots[mo->n_slots++];
				r = read_properties(reply, slot_map, s);
			} else if (strcmp(iface, CTL_BUS_DEVICE_IFACE) == 0) {
				struct ctl_device *d = grow(mo->devices, &devices_alloc,
							    mo->n_devices, sizeof(*d));

				if (!d)
					return -ENOMEM;
				mo->devices = d;
				d = &mo->devices[mo->n_devices++];
				r = read_properties(reply, device_map, d);
			} else if (strcmp(iface, CTL_BUS_MANAGER_IFACE) == 0)
				r = read_properties(reply, manager_map, &mo->manager);
			else
				r = sd_bus_message_skip(reply, "a{sv}");
			if (r < 0)
				return r;
			r = sd_bus_message_exit_container(reply);
			if (r < 0)
				return r;
		}
		if (r < 0)
			return r;
		r = sd_bus_message_exit_container(reply);
		if (r < 0)
			return r;
		r = sd_bus_message_exit_container(reply);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(reply);
}

/*
 * Pipelined calls: every message of calls[] is sent at once, then the
 * replies are awaited together, so that n calls cost one round trip
 * through the bus (and, on a fresh connection, ride along with the Hello
 * and the authentication instead of waiting for them). replies[i] is the
 * reply to calls[i], possibly an error; a timeout or a lost connection
 * comes as sd-bus's synthetic error reply, as for sd_bus_call(). Returns
 * 0, or a negative errno when the bus itself failed.
 */
struct pending {
	sd_bus_message **reply;
	size_t *left;
};

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct pending *p = userdata;

	*p->reply = sd_bus_message_ref(m);
	(*p->left)--;
	return 0;
}

static int call_pipelined(sd_bus *bus, sd_bus_message **calls, size_t n,
			  sd_bus_message **replies)
{
	sd_bus_slot *slots[4] = {};
	struct pending p[4];
	size_t left = 0;
	int r = 0;

	if (n > ELEMENTSOF(slots))
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		replies[i] = NULL;
		p[i] = (struct pending) { .reply = &replies[i], .left = &left };
		r = sd_bus_call_async(bus, &slots[i], calls[i], on_reply, &p[i], 0);
		if (r < 0)
			goto out;
		left++;
	}
	while (left > 0) {
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		r = sd_bus_wait(bus, UINT64_MAX);
		if (r < 0 && r != -EINTR)
			goto out;
	}
	r = 0;
out:
	for (size_t i = 0; i < n; i++)
		sd_bus_slot_unref(slots[i]);
	if (r < 0)
		for (size_t i = 0; i < n; i++)
			replies[i] = sd_bus_message_unref(replies[i]);
	return r;
}

/* r < 0 and error set from reply when it is an error reply, else 0 */
static int reply_error(sd_bus_message *reply, sd_bus_error *error)
{
	const sd_bus_error *e = sd_bus_message_get_error(reply);

	if (!e)
		return 0;
	return sd_bus_error_copy(error, e);
}

/* the calls of ctl_load_model() and ctl_load_status(): GetAll of the
 * Manager and member (GetManagedObjects or GetStatus), pipelined */
static int call_manager_and(sd_bus *bus, const char *iface, const char *member,
			    sd_bus_message *replies[2])
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *getall = NULL, *call = NULL;
	sd_bus_message *calls[2];
	int r;

	r = sd_bus_message_new_method_call(bus, &getall, CTL_BUS_NAME, CTL_BUS_PATH,
					   "org.freedesktop.DBus.Properties", "GetAll");
	if (r >= 0)
		r = sd_bus_message_append(getall, "s", CTL_BUS_MANAGER_IFACE);
	if (r >= 0)
		r = sd_bus_message_new_method_call(bus, &call, CTL_BUS_NAME, CTL_BUS_PATH,
						   iface, member);
	if (r < 0)
		return r;
	calls[0] = getall;
	calls[1] = call;
	return call_pipelined(bus, calls, 2, replies);
}

int ctl_load_model(sd_bus *bus, struct ctl_model *ret, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *getall = NULL, *reply = NULL;
	sd_bus_message *replies[2];
	struct ctl_model m = {};
	int r;

	r = call_manager_and(bus, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
			     replies);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Cannot call pcierrd: %s", strerror(-r));
	getall = replies[0];
	reply = replies[1];
	r = reply_error(getall, error);
	if (r >= 0)
		r = reply_error(reply, error);
	if (r < 0)
		return r;
	r = read_properties(getall, manager_map, &m.manager);
	if (r >= 0)
		r = read_objects(reply, &m);
	if (r < 0) {
		ctl_model_done(&m);
		return sd_bus_error_set_errnof(error, r, "Cannot read the objects of pcierrd: %s",
					       strerror(-r));
	}
	ctl_model_sort(&m);
	*ret = m;
	return 0;
}

/* a string into *dst (a copy) */
static int dup_into(char **dst, const char *s)
{
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* as: a NULL-terminated list, never NULL */
static int read_strv(sd_bus_message *m, char ***dst)
{
	char **l = NULL;
	int r;

	r = sd_bus_message_read_strv(m, &l);
	if (r < 0)
		return r;
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l)
			return -ENOMEM;
	}
	*dst = l;
	return 0;
}

static int read_status_slot(sd_bus_message *m, struct ctl_slot *s)
{
	const char *address, *state, *step, *last_result, *last_message, *backend;
	int stuck, disabled, r;

	r = sd_bus_message_enter_container(m, 'r', "sasssbassttsbs");
	if (r <= 0)
		return r;
	r = sd_bus_message_read_basic(m, 's', &address);
	if (r >= 0)
		r = dup_into(&s->address, address);
	if (r >= 0)
		r = read_strv(m, &s->reset_types);
	if (r >= 0)
		r = sd_bus_message_read(m, "ssb", &state, &step, &stuck);
	if (r >= 0)
		r = read_strv(m, &s->devices);
	if (r >= 0)
		r = sd_bus_message_read(m, "sttsbs", &last_result, &s->last_duration_usec,
					&s->last_recovery_usec, &last_message, &disabled,
					&backend);
	if (r < 0)
		return r;
	s->stuck = stuck;
	s->disabled = disabled;
	if (dup_into(&s->state, state) < 0 || dup_into(&s->step, step) < 0 ||
	    dup_into(&s->last_result, last_result) < 0 ||
	    dup_into(&s->last_message, last_message) < 0 || dup_into(&s->backend, backend) < 0)
		return -ENOMEM;
	r = sd_bus_message_exit_container(m);
	return r < 0 ? r : 1;
}

static int read_status_device(sd_bus_message *m, struct ctl_device *d)
{
	const char *address, *slot, *vendor_name, *device_name, *identity, *driver;
	const char *state, *disabled_reason;
	int disabled, r;

	r = sd_bus_message_enter_container(m, 'r', "ssqqqqussssassuuutbs");
	if (r <= 0)
		return r;
	r = sd_bus_message_read(m, "ssqqqqussss", &address, &slot, &d->vendor_id,
				&d->device_id, &d->subsystem_vendor_id, &d->subsystem_id,
				&d->class, &vendor_name, &device_name, &identity, &driver);
	if (r >= 0)
		r = read_strv(m, &d->handlers);
	if (r >= 0)
		r = sd_bus_message_read(m, "suuutbs", &state, &d->error_generation,
					&d->freeze_count, &d->max_freezes, &d->last_error_usec,
					&disabled, &disabled_reason);
	if (r < 0)
		return r;
	d->disabled = disabled;
	if (dup_into(&d->address, address) < 0 || dup_into(&d->slot, slot) < 0 ||
	    dup_into(&d->vendor_name, vendor_name) < 0 ||
	    dup_into(&d->device_name, device_name) < 0 ||
	    dup_into(&d->identity, identity) < 0 || dup_into(&d->driver, driver) < 0 ||
	    dup_into(&d->state, state) < 0 || dup_into(&d->disabled_reason, disabled_reason) < 0)
		return -ENOMEM;
	r = sd_bus_message_exit_container(m);
	return r < 0 ? r : 1;
}

/* GetStatus's reply, a(sasssbassttsbs)a(ssqqqqusssssasuuutbs), into mo */
static int read_status(sd_bus_message *reply, struct ctl_model *mo)
{
	size_t slots_alloc = 0, devices_alloc = 0;
	int r;

	r = sd_bus_message_enter_container(reply, 'a', "(sasssbassttsbs)");
	if (r < 0)
		return r;
	for (;;) {
		struct ctl_slot *s = grow(mo->slots, &slots_alloc, mo->n_slots, sizeof(*s));

		if (!s)
			return -ENOMEM;
		mo->slots = s;
		/* counted before reading: what a failure left is freed */
		s = &mo->slots[mo->n_slots++];
		r = read_status_slot(reply, s);
		if (r <= 0) {
			mo->n_slots--;
			ctl_slot_done(s);
			memset(s, 0, sizeof(*s));
			if (r < 0)
				return r;
			break;
		}
	}
	r = sd_bus_message_exit_container(reply);
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "(ssqqqqussssassuuutbs)");
	if (r < 0)
		return r;
	for (;;) {
		struct ctl_device *d = grow(mo->devices, &devices_alloc, mo->n_devices,
					    sizeof(*d));

		if (!d)
			return -ENOMEM;
		mo->devices = d;
		d = &mo->devices[mo->n_devices++];
		r = read_status_device(reply, d);
		if (r <= 0) {
			mo->n_devices--;
			ctl_device_done(d);
			memset(d, 0, sizeof(*d));
			if (r < 0)
				return r;
			break;
		}
	}
	return sd_bus_message_exit_container(reply);
}

int ctl_load_status(sd_bus *bus, struct ctl_model *ret, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *getall = NULL, *reply = NULL;
	sd_bus_message *replies[2];
	struct ctl_model m = {};
	int r;

	r = call_manager_and(bus, CTL_BUS_MANAGER_IFACE, "GetStatus", replies);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Cannot call pcierrd: %s", strerror(-r));
	getall = replies[0];
	reply = replies[1];
	r = reply_error(getall, error);
	if (r < 0)
		return r;
	r = reply_error(reply, error);
	if (r < 0) {
		/* a pcierrd older than GetStatus: UnknownMethod from pcierrd,
		 * or AccessDenied from the bus (its org.pcierr1.conf does not
		 * let others call it; pcierrd itself never refuses it) */
		if (!sd_bus_error_has_names(error, SD_BUS_ERROR_UNKNOWN_METHOD,
					    SD_BUS_ERROR_ACCESS_DENIED))
			return r;
		sd_bus_error_free(error);
		r = ctl_load_model(bus, ret, error);
		return r < 0 ? r : 0;
	}
	r = read_properties(getall, manager_map, &m.manager);
	if (r >= 0)
		r = read_status(reply, &m);
	if (r < 0) {
		ctl_model_done(&m);
		return sd_bus_error_set_errnof(error, r, "Cannot read the status of pcierrd: %s",
					       strerror(-r));
	}
	ctl_model_sort(&m);
	*ret = m;
	return 1;
}

int ctl_get_history(sd_bus *bus, uint64_t since_usec, const char *addr, uint32_t limit,
		    struct ctl_history_entry **ret, size_t *ret_n, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct ctl_history_entry *e = NULL;
	size_t n = 0, alloc = 0;
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
			       "GetHistory", error, &reply, "tsu", since_usec,
			       addr ? addr : "", limit);
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "(tsssssstis)");
	if (r < 0)
		goto fail;
	for (;;) {
		const char *slot, *device, *kind, *step, *result, *results, *message;
		struct ctl_history_entry *ne, x = {};

		r = sd_bus_message_read(reply, "(tsssssstis)", &x.time_usec, &slot, &device,
					&kind, &step, &result, &results, &x.duration_usec,
					&x.error, &message);
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		ne = grow(e, &alloc, n, sizeof(*e));
		if (!ne) {
			r = -ENOMEM;
			goto fail;
		}
		e = ne;
		e[n] = x;
		e[n].slot = strdup(slot);
		e[n].device = strdup(device);
		e[n].kind = strdup(kind);
		e[n].step = strdup(step);
		e[n].result = strdup(result);
		e[n].results = strdup(results);
		e[n].message = strdup(message);
		n++;
		if (!e[n - 1].slot || !e[n - 1].device || !e[n - 1].kind || !e[n - 1].step ||
		    !e[n - 1].result || !e[n - 1].results || !e[n - 1].message) {
			r = -ENOMEM;
			goto fail;
		}
	}
	*ret = e;
	*ret_n = n;
	return 0;
fail:
	ctl_history_free(e, n);
	return sd_bus_error_set_errnof(error, r, "Cannot read the history: %s", strerror(-r));
}

int ctl_get_slot_address(sd_bus *bus, const char *addr, char **ret, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *path;
	char *a;
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
			       "GetSlot", error, &reply, "s", addr);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Cannot read the reply of GetSlot: %s",
					       strerror(-r));
	a = ctl_path_to_address(path, CTL_BUS_SLOT_PREFIX);
	if (!a)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INCONSISTENT_MESSAGE,
					 "GetSlot returned '%s', not a slot", path);
	*ret = a;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The polkit agent and the bus going away                             */
/* ------------------------------------------------------------------ */

static pid_t agent_pid = -1;

void ctl_polkit_agent_open(void)
{
	char fdarg[16];
	int pipefd[2];
	pid_t pid;

	if (agent_pid > 0 || geteuid() == 0 || !isatty(STDIN_FILENO))
		return;
	if (access(CTL_PKTTYAGENT, X_OK) < 0)
		return;
	if (pipe2(pipefd, 0) < 0)
		return;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		/* the agent talks on our terminal; it tells us on the pipe */
		close(pipefd[0]);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(fdarg, sizeof(fdarg), "%d", pipefd[1]);
		execl(CTL_PKTTYAGENT, CTL_PKTTYAGENT, "--notify-fd", fdarg, "--fallback",
		      (char *)NULL);
		_exit(EXIT_FAILURE);
	}
	close(pipefd[1]);
	agent_pid = pid;
	/* registered (it closes or writes the fd), or gone: 10 s at most */
	{
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };

		while (poll(&p, 1, 10000) < 0 && errno == EINTR)
			;
	}
	close(pipefd[0]);
}

void ctl_polkit_agent_close(void)
{
	if (agent_pid <= 0)
		return;
	kill(agent_pid, SIGTERM);
	kill(agent_pid, SIGCONT);
	while (waitpid(agent_pid, NULL, 0) < 0 && errno == EINTR)
		;
	agent_pid = -1;
}

int ctl_on_bus_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	sd_event *const *e = userdata;

	if (!sd_bus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected"))
		return 0;
	log_error("Lost the connection to the system bus.");
	/* (the closed bus no longer knows its event loop: ours is given) */
	return e && *e ? sd_event_exit(*e, -ECONNRESET) : 0;
}

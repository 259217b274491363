/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd policy: pure functions, see policy.h for the rules. No I/O, no
 * clocks, no printing, no allocation.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "policy.h"

#define RESET_BIT(t)	(1U << (t))

enum pcierr_result pcierr_policy_merge(enum pcierr_result orig,
				       enum pcierr_result new_result)
{
	/* drivers/pci/pcie/err.c merge_result(); NO_DRIVER and GONE are the
	 * shim's own "no opinion" answers (unaware devices are handled by
	 * hotplug, not by the merge). */
	switch (new_result) {
	case PCIERR_RESULT_CAN_RECOVER:
	case PCIERR_RESULT_NEED_RESET:
	case PCIERR_RESULT_DISCONNECT:
	case PCIERR_RESULT_RECOVERED:
		break;
	default:
		return orig;
	}

	switch (orig) {
	case PCIERR_RESULT_CAN_RECOVER:
	case PCIERR_RESULT_RECOVERED:
		return new_result;
	case PCIERR_RESULT_DISCONNECT:
		if (new_result == PCIERR_RESULT_NEED_RESET)
			return PCIERR_RESULT_NEED_RESET;
		return orig;
	default:
		return orig;
	}
}

bool pcierr_policy_device_aware(const struct pcierr_policy_device *d)
{
	const uint32_t need = (1U << PCIERR_HANDLER_ERROR_DETECTED) |
			      (1U << PCIERR_HANDLER_SLOT_RESET);

	return d->driver_bound && (d->handlers & need) == need;
}

static bool is_bridge(const struct pcierr_policy_device *d)
{
	return d->flags & PCIERR_DEV_F_BRIDGE;
}


bool pcierr_policy_count_freeze(struct pcierr_freeze_record *r,
				pcierr_usec_t now,
				const struct pcierr_settings *s)
{
	pcierr_usec_t window = (pcierr_usec_t)s->freeze_window_sec * PCIERR_USEC_PER_SEC;

	/* the window runs from its first freeze (eeh_pe_update_time_stamp),
	 * not the latest: a card freezing every 59 minutes starts over */
	if (r->count == 0 || (now > r->first_usec && now - r->first_usec > window)) {
		r->count = 0;
		r->first_usec = now;
	}
	if (r->count < UINT32_MAX)
		r->count++;
	r->last_usec = MAX(r->last_usec, now);
	return r->count > s->max_freezes;
}

static const char *const action_names[] = {
	[PCIERR_ACTION_NOTHING] = "nothing",
	[PCIERR_ACTION_REPORT] = "report",
	[PCIERR_ACTION_ENABLE_IO] = "enable_io",
	[PCIERR_ACTION_RESET] = "reset",
	[PCIERR_ACTION_REMOVE] = "remove",
	[PCIERR_ACTION_WAIT_UDEV] = "wait_udev",
	[PCIERR_ACTION_WAIT] = "wait",
	[PCIERR_ACTION_RESCAN] = "rescan",
	[PCIERR_ACTION_DISABLE] = "disable",
	[PCIERR_ACTION_DONE] = "done",
	[PCIERR_ACTION_STUCK] = "stuck",
	[PCIERR_ACTION_VERIFY] = "verify",
};

static const char *const reason_names[] = {
	[PCIERR_REASON_NONE] = "none",
	[PCIERR_REASON_FALSE_ALARM] = "false-alarm",
	[PCIERR_REASON_RECOVER_OFF] = "recover-off",
	[PCIERR_REASON_FOLDED] = "folded",
	[PCIERR_REASON_KERNEL] = "kernel-recovering",
	[PCIERR_REASON_WAITING] = "waiting",
	[PCIERR_REASON_IGNORED] = "ignored",
	[PCIERR_REASON_RECOVERED] = "recovered",
	[PCIERR_REASON_GONE] = "gone",
	[PCIERR_REASON_TOO_MANY_FREEZES] = "too-many-freezes",
	[PCIERR_REASON_PERM_FAILURE] = "permanent-failure",
	[PCIERR_REASON_DISCONNECT] = "disconnect",
	[PCIERR_REASON_RESET_FAILED] = "reset-failed",
	[PCIERR_REASON_NO_RESET] = "no-reset",
	[PCIERR_REASON_IDENTITY_DISABLED] = "identity-disabled",
	[PCIERR_REASON_OP_FAILED] = "operation-failed",
	[PCIERR_REASON_NOT_VERIFIED] = "not-verified",
	[PCIERR_REASON_METHOD] = "method-hotplug",
};

static const char *const phase_names[] = {
	[PCIERR_PHASE_IDLE] = "idle",
	[PCIERR_PHASE_WAIT] = "wait",
	[PCIERR_PHASE_ERROR_DETECTED] = "error_detected",
	[PCIERR_PHASE_ENABLE_IO] = "enable_io",
	[PCIERR_PHASE_MMIO_ENABLED] = "mmio_enabled",
	[PCIERR_PHASE_RESET] = "reset",
	[PCIERR_PHASE_SLOT_RESET] = "slot_reset",
	[PCIERR_PHASE_RESUME] = "resume",
	[PCIERR_PHASE_REMOVE] = "remove",
	[PCIERR_PHASE_WAIT_UDEV] = "wait_udev",
	[PCIERR_PHASE_RESCAN] = "rescan",
	[PCIERR_PHASE_DISABLE] = "disable",
	[PCIERR_PHASE_KERNEL] = "kernel",
	[PCIERR_PHASE_VERIFY] = "verify",
};

const char *pcierr_policy_action_to_string(enum pcierr_policy_action a)
{
	return (unsigned int)a < ELEMENTSOF(action_names) ? action_names[a] : NULL;
}

const char *pcierr_policy_reason_to_string(enum pcierr_policy_reason r)
{
	return (unsigned int)r < ELEMENTSOF(reason_names) ? reason_names[r] : NULL;
}

const char *pcierr_recovery_phase_to_string(enum pcierr_recovery_phase p)
{
	return (unsigned int)p < ELEMENTSOF(phase_names) ? phase_names[p] : NULL;
}

/* ---------------------------------------------------------------------- */

struct ctx {
	const struct pcierr_config *cfg;
	const struct pcierr_policy_pe *pe;
	struct pcierr_recovery *rec;
	const struct pcierr_policy_event *ev;
	struct pcierr_policy_output *out;
	struct pcierr_settings pe_settings;	/* PE-wide, see pe_settings() */
};

static int find_device(const struct pcierr_policy_pe *pe, const char *addr)
{
	char norm[PCIERR_ADDR_MAX];

	if (!addr || !*addr)
		return -1;
	if (pcierr_parse_pci_address(addr, norm) < 0)
		snprintf(norm, sizeof(norm), "%s", addr);
	for (size_t i = 0; i < pe->n_devices; i++) {
		char d[PCIERR_ADDR_MAX];

		if (pcierr_parse_pci_address(pe->devices[i].addr, d) < 0)
			snprintf(d, sizeof(d), "%s", pe->devices[i].addr);
		if (strcmp(d, norm) == 0)
			return (int)i;
	}
	return -1;
}

static void device_settings(const struct ctx *c, size_t i, struct pcierr_settings *s)
{
	const struct pcierr_policy_device *d = &c->pe->devices[i];

	pcierr_config_resolve_driver(c->cfg, d->addr, true, d->vendor, d->device,
				     d->driver_bound ? d->driver : NULL, s);
}

/* Method=hotplug for this device (issue 25): its callbacks are not used */
static bool by_method(const struct ctx *c, size_t i)
{
	struct pcierr_settings s;

	device_settings(c, i, &s);
	return s.method == PCIERR_METHOD_HOTPLUG;
}

/* unaware endpoint: hot-unplugged and rescanned instead of called */
static bool is_unaware(const struct ctx *c, size_t i)
{
	const struct pcierr_policy_device *d = &c->pe->devices[i];

	return !is_bridge(d) && (!pcierr_policy_device_aware(d) || by_method(c, i));
}

/*
 * PE-wide settings: Recover=no on any device of the PE, or set for the PE's
 * own address, turns recovery off; the step timeout is the longest of the
 * devices' (and the PE address's, when set there); MaxWaitSec is the named
 * device's. A PE without devices takes its address's settings.
 */
static void pe_settings(struct ctx *c)
{
	struct pcierr_settings *ps = &c->pe_settings;
	char norm[PCIERR_ADDR_MAX];
	bool verified_one = false;
	int named = -1;

	pcierr_config_resolve(c->cfg, c->pe->addr, false, 0, 0, ps);
	if (c->pe->n_devices == 0)
		return;

	if (c->ev->type == PCIERR_POLICY_EV_FREEZE || c->ev->type == PCIERR_POLICY_EV_AER)
		named = find_device(c->pe, c->ev->device);
	for (size_t i = 0; i < c->pe->n_devices; i++) {
		struct pcierr_settings s;

		device_settings(c, i, &s);
		if (i == 0) {
			ps->recover = s.recover;
			ps->step_timeout_sec = s.step_timeout_sec;
			ps->kernel_timeout_sec = s.kernel_timeout_sec;
			ps->max_wait_sec = s.max_wait_sec;
		}
		ps->recover = ps->recover && s.recover;
		ps->step_timeout_sec = MAX(ps->step_timeout_sec, s.step_timeout_sec);
		/* the endpoints' functions are verified, not the bridges' */
		if (!is_bridge(&c->pe->devices[i])) {
			ps->verify_sec = verified_one ? MAX(ps->verify_sec, s.verify_sec) : s.verify_sec;
			ps->verify_escalate = verified_one ? ps->verify_escalate && s.verify_escalate :
					      s.verify_escalate;
			verified_one = true;
		}
		ps->kernel_timeout_sec = MAX(ps->kernel_timeout_sec, s.kernel_timeout_sec);
		if ((int)i == named) {
			/* the PE's own count is held to the named card's limit */
			ps->max_wait_sec = s.max_wait_sec;
			ps->max_freezes = s.max_freezes;
			ps->freeze_window_sec = s.freeze_window_sec;
		}
	}

	/* what is set for the PE's own address explicitly */
	if (pcierr_parse_pci_address(c->pe->addr, norm) < 0)
		return;
	for (size_t i = 0; i < c->cfg->n_overrides; i++) {
		const struct pcierr_config_override *o = &c->cfg->overrides[i];

		if (o->type != PCIERR_MATCH_ADDRESS || strcmp(o->addr, norm) != 0)
			continue;
		if (o->set & PCIERR_SET_RECOVER)
			ps->recover = ps->recover && o->settings.recover;
		if (o->set & PCIERR_SET_STEP_TIMEOUT_SEC)
			ps->step_timeout_sec = MAX(ps->step_timeout_sec,
						   o->settings.step_timeout_sec);
		if (o->set & PCIERR_SET_KERNEL_TIMEOUT_SEC)
			ps->kernel_timeout_sec = MAX(ps->kernel_timeout_sec,
						     o->settings.kernel_timeout_sec);
	}
}

static pcierr_usec_t step_timeout(const struct ctx *c)
{
	return (pcierr_usec_t)c->pe_settings.step_timeout_sec * PCIERR_USEC_PER_SEC;
}

static pcierr_usec_t kernel_timeout(const struct ctx *c)
{
	return (pcierr_usec_t)c->pe_settings.kernel_timeout_sec * PCIERR_USEC_PER_SEC;
}

static void add_effect(struct ctx *c, enum pcierr_policy_effect_type type,
		       unsigned int device, const struct pcierr_freeze_record *r,
		       enum pcierr_policy_reason reason)
{
	struct pcierr_policy_output *o = c->out;

	if (o->n_effects >= ELEMENTSOF(o->effects))
		return;
	o->effects[o->n_effects++] = (struct pcierr_policy_effect) {
		.type = type,
		.device = device,
		.record = *r,
		.reason = reason,
	};
}

_printf_(2, 3)
static void set_message(struct pcierr_recovery *rec, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rec->message, sizeof(rec->message), fmt, ap);
	va_end(ap);
}

/* A device's record as this output leaves it */
static struct pcierr_freeze_record current_record(const struct ctx *c, size_t i)
{
	struct pcierr_freeze_record r = c->pe->devices[i].history;

	for (size_t e = 0; e < c->out->n_effects; e++)
		if (c->out->effects[e].device == i &&
		    c->out->effects[e].type != PCIERR_EFFECT_PE_FREEZE_RECORDED)
			r = c->out->effects[e].record;
	return r;
}

/* Mark every device's identity disabled (a failure of the whole PE) */
static void disable_all_identities(struct ctx *c, enum pcierr_policy_reason reason)
{
	for (size_t i = 0; i < c->pe->n_devices; i++) {
		struct pcierr_freeze_record r = current_record(c, i);

		r.disabled = true;
		add_effect(c, PCIERR_EFFECT_IDENTITY_DISABLED, (unsigned int)i, &r, reason);
	}
}

/* "DDDD:BB:DD" of a device address: its physical device */
static bool same_card(const char *a, const char *b)
{
	char na[PCIERR_ADDR_MAX], nb[PCIERR_ADDR_MAX];
	const char *dot_a, *dot_b;

	if (pcierr_parse_pci_address(a, na) < 0 || pcierr_parse_pci_address(b, nb) < 0)
		return strcmp(a, b) == 0;
	dot_a = strrchr(na, '.');
	dot_b = strrchr(nb, '.');
	return dot_a && dot_b && dot_a - na == dot_b - nb && strncmp(na, nb, (size_t)(dot_a - na)) == 0;
}

static bool is_head(const struct ctx *c, size_t i)
{
	char h[PCIERR_ADDR_MAX], d[PCIERR_ADDR_MAX];

	if (pcierr_parse_pci_address(c->pe->addr, h) < 0 ||
	    pcierr_parse_pci_address(c->pe->devices[i].addr, d) < 0)
		return strcmp(c->pe->addr, c->pe->devices[i].addr) == 0;
	return strcmp(h, d) == 0;
}

/*
 * The card a freeze is blamed on: the named device's functions; -1 when
 * the event names none, the PE's head or a device not in the PE (then
 * every device is).
 */
static int blamed(const struct ctx *c, const char *device)
{
	int named = find_device(c->pe, device);

	return named >= 0 && !is_head(c, (size_t)named) ? named : -1;
}

static bool in_card(const struct ctx *c, int named, size_t i)
{
	return named < 0 || same_card(c->pe->devices[named].addr, c->pe->devices[i].addr);
}

static void set_too_many_message(struct ctx *c, int named, unsigned int count,
				 unsigned int window, unsigned int max, bool pe_count)
{
	char funcs[160] = "";
	size_t used = 0;
	const struct pcierr_policy_device *d = named >= 0 ? &c->pe->devices[named] : NULL;

	for (size_t i = 0; d && i < c->pe->n_devices && used < sizeof(funcs); i++) {
		int n;

		if (!in_card(c, named, i))
			continue;
		n = snprintf(funcs + used, sizeof(funcs) - used, "%s%s", used ? " " : "",
			     c->pe->devices[i].addr);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (d)
		set_message(c->rec,
			    "card %.*s [%04x:%04x] (functions %s) froze %u times%s within %u s of the first (at most %u are recovered): permanently disabled. Please try reseating or replacing it",
			    (int)(strrchr(d->addr, '.') ? strrchr(d->addr, '.') - d->addr : (long)strlen(d->addr)),
			    d->addr, d->vendor, d->device, funcs, count,
			    pe_count ? " in its PE" : "", window, max);
	else
		set_message(c->rec,
			    "PE %s froze %u times within %u s of the first (at most %u are recovered): permanently disabled. Please try reseating or replacing its cards",
			    c->pe->addr, count, window, max);
}

/*
 * Count the freeze of the event (count), or only check the records as they
 * are (a COUNTED freeze, counted before pcierrd restarted): against the
 * card named (every function of it), or every device when none is named,
 * and against the PE. Returns true when a count is above its limit and
 * may_disable; then the blamed card's identities are disabled (effects)
 * and rec->message says why.
 */
static bool record_freezes(struct ctx *c, bool may_disable, bool count)
{
	const struct pcierr_policy_pe *pe = c->pe;
	int named = blamed(c, c->ev->device);
	struct pcierr_freeze_record pr = pe->history;
	const struct pcierr_settings *ps = &c->pe_settings;
	bool card_over = false, pe_over;
	unsigned int worst = 0, worst_window = ps->freeze_window_sec, worst_max = ps->max_freezes;
	int worst_i = -1;

	for (size_t i = 0; i < pe->n_devices; i++) {
		const struct pcierr_policy_device *d = &pe->devices[i];
		struct pcierr_freeze_record r = d->history;
		struct pcierr_settings s;
		bool over;

		if (!in_card(c, named, i))
			continue;
		device_settings(c, i, &s);
		if (count) {
			over = pcierr_policy_count_freeze(&r, c->ev->now, &s);
			add_effect(c, PCIERR_EFFECT_FREEZE_RECORDED, (unsigned int)i, &r,
				   PCIERR_REASON_NONE);
		} else {
			over = r.count > s.max_freezes;
		}
		if (over && r.count >= worst) {
			worst = r.count;
			worst_i = (int)i;
			worst_window = s.freeze_window_sec;
			worst_max = s.max_freezes;
		}
		card_over = card_over || over;
	}
	if (count) {
		pe_over = pcierr_policy_count_freeze(&pr, c->ev->now, ps);
		add_effect(c, PCIERR_EFFECT_PE_FREEZE_RECORDED, 0, &pr, PCIERR_REASON_NONE);
	} else {
		pe_over = pr.count > ps->max_freezes;
	}
	c->rec->freezes++;
	if (!(card_over || pe_over) || !may_disable)
		return false;
	/* none named: the card over its limit is the one to blame */
	if (named < 0 && card_over && !is_head(c, (size_t)worst_i))
		named = worst_i;

	for (size_t i = 0; i < pe->n_devices; i++) {
		struct pcierr_freeze_record r;

		if (!in_card(c, named, i))
			continue;
		r = current_record(c, i);
		r.disabled = true;
		add_effect(c, PCIERR_EFFECT_IDENTITY_DISABLED, (unsigned int)i, &r,
			   PCIERR_REASON_TOO_MANY_FREEZES);
	}
	if (card_over)
		set_too_many_message(c, named, worst, worst_window, worst_max, false);
	else
		set_too_many_message(c, named, pr.count, ps->freeze_window_sec, ps->max_freezes, true);
	return true;
}

/* ---------------------------------------------------------------------- */
/* Outputs */

static int enter(struct ctx *c, enum pcierr_recovery_phase phase,
		  enum pcierr_policy_action action)
{
	c->rec->phase = phase;
	c->out->action = action;
	c->out->timeout_usec = step_timeout(c);
	return 0;
}

static int report(struct ctx *c, enum pcierr_recovery_phase phase, enum pcierr_step step)
{
	enter(c, phase, PCIERR_ACTION_REPORT);
	c->out->step = step;
	if (step == PCIERR_STEP_ERROR_DETECTED)
		c->out->state = PCIERR_STATE_FROZEN;
	return 0;
}

static int nothing(struct ctx *c, enum pcierr_policy_reason reason)
{
	c->out->action = PCIERR_ACTION_NOTHING;
	c->out->reason = reason;
	return 0;
}

static int done(struct ctx *c, bool recovered, enum pcierr_policy_reason reason)
{
	struct pcierr_policy_output *o = c->out;

	o->action = PCIERR_ACTION_DONE;
	o->recovered = recovered;
	o->reason = reason;
	/* on the monotonic clock when the caller gives it (L4): a wall
	 * clock step mid-recovery does not bend the duration */
	if (c->ev->mono && c->rec->started_mono)
		o->duration_usec = c->ev->mono > c->rec->started_mono ?
			c->ev->mono - c->rec->started_mono : 0;
	else
		o->duration_usec = c->ev->now > c->rec->started_usec ?
			c->ev->now - c->rec->started_usec : 0;
	if (reason == PCIERR_REASON_RECOVERED)
		snprintf(o->message, sizeof(o->message), "recovered");
	else if (reason == PCIERR_REASON_GONE)
		snprintf(o->message, sizeof(o->message), "the device went away during recovery");
	else
		snprintf(o->message, sizeof(o->message), "%s", c->rec->message);
	*c->rec = PCIERR_RECOVERY_INIT;
	return 0;
}

/* DISABLE with the reason; rec->message must be set already */
static int disable(struct ctx *c, enum pcierr_policy_reason reason)
{
	enter(c, PCIERR_PHASE_DISABLE, PCIERR_ACTION_DISABLE);
	c->rec->pending_disable = reason;
	c->out->reason = reason;
	snprintf(c->out->message, sizeof(c->out->message), "%s", c->rec->message);
	return 0;
}

static int op_failed(struct ctx *c, const char *what)
{
	set_message(c->rec, "%s failed (errno %d): disabling", what, -c->ev->error);
	disable_all_identities(c, PCIERR_REASON_OP_FAILED);
	disable(c, PCIERR_REASON_OP_FAILED);
	return 0;
}

static void list_unaware(struct ctx *c)
{
	struct pcierr_policy_output *o = c->out;

	o->all_devices = false;
	o->n_devices = 0;
	for (size_t i = 0; i < c->pe->n_devices && i < ELEMENTSOF(o->devices); i++)
		if (is_unaware(c, i))
			o->devices[o->n_devices++] = (unsigned int)i;
}

static int remove_devices(struct ctx *c)
{
	enter(c, PCIERR_PHASE_REMOVE, PCIERR_ACTION_REMOVE);
	if (c->rec->mode == PCIERR_MODE_FULL_HOTPLUG)
		c->out->all_devices = true;
	else
		list_unaware(c);
	return 0;
}

static int wait_udev(struct ctx *c)
{
	c->rec->phase = PCIERR_PHASE_WAIT_UDEV;
	c->out->action = PCIERR_ACTION_WAIT_UDEV;
	c->out->timeout_usec = PCIERR_POLICY_UDEV_SETTLE_USEC;
	if (c->rec->mode == PCIERR_MODE_FULL_HOTPLUG)
		c->out->all_devices = true;
	else
		list_unaware(c);
	return 0;
}

static const char *reset_name(enum pcierr_reset_type t)
{
	return t == PCIERR_RESET_FUNDAMENTAL ? "fundamental" : "hot";
}

static int do_reset(struct ctx *c, enum pcierr_reset_type t)
{
	enter(c, PCIERR_PHASE_RESET, PCIERR_ACTION_RESET);
	c->out->reset_type = t;
	c->rec->last_reset = t;
	c->rec->escalate = false;	/* this reset answers the folded freezes */
	c->rec->reset_requested = false;	/* ... and the administrator */
	c->rec->requested_reset = PCIERR_RESET_UNSPEC;
	return 0;
}

/*
 * Issue 8 point 6: a PE without any reset is no reason to give up: its
 * devices are removed and the PE rescanned without a reset (a full
 * hotplug; the devices already removed by a partial one stay removed).
 * The REMOVE says why (reason NO_RESET, message) for the journal.
 */
static int no_reset_hotplug(struct ctx *c)
{
	c->rec->mode = PCIERR_MODE_FULL_HOTPLUG;
	remove_devices(c);
	c->out->reason = PCIERR_REASON_NO_RESET;
	snprintf(c->out->message, sizeof(c->out->message),
		 "the PE %s has no reset: removing and rescanning it without one", c->pe->addr);
	return 0;
}

enum reset_kind {
	RESET_FIRST,		/* the smallest hammer the PE has */
	RESET_NEXT_OR_FAIL,	/* a bigger one, else DISABLE */
	RESET_NEXT_OR_SAME,	/* a bigger one, else the biggest again */
};

/*
 * The first hammer: the one an administrator asked for when the PE has
 * it, else the smallest the PE has; UNSPEC: the PE has none
 */
static enum pcierr_reset_type first_reset(const struct ctx *c)
{
	uint32_t types = c->pe->reset_types;
	enum pcierr_reset_type want = c->rec->requested_reset;

	if (want != PCIERR_RESET_UNSPEC && (types & RESET_BIT(want)))
		return want;
	if (types & RESET_BIT(PCIERR_RESET_HOT))
		return PCIERR_RESET_HOT;
	if (types & RESET_BIT(PCIERR_RESET_FUNDAMENTAL))
		return PCIERR_RESET_FUNDAMENTAL;
	return PCIERR_RESET_UNSPEC;
}

static int reset(struct ctx *c, enum reset_kind kind)
{
	uint32_t types = c->pe->reset_types;
	enum pcierr_reset_type last = c->rec->last_reset;
	bool has_fund = types & RESET_BIT(PCIERR_RESET_FUNDAMENTAL);

	if (kind == RESET_FIRST || last == PCIERR_RESET_UNSPEC) {
		enum pcierr_reset_type first = first_reset(c);

		if (first == PCIERR_RESET_UNSPEC)
			return no_reset_hotplug(c);
		return do_reset(c, first);
	}
	if (last == PCIERR_RESET_HOT && has_fund)
		return do_reset(c, PCIERR_RESET_FUNDAMENTAL);
	if (kind == RESET_NEXT_OR_SAME)
		return do_reset(c, has_fund ? PCIERR_RESET_FUNDAMENTAL : PCIERR_RESET_HOT);

	set_message(c->rec, "still failing after a %s reset%s: permanently disabled",
		    reset_name(last), c->ev->error ? " (the reset failed)" : "");
	disable_all_identities(c, PCIERR_REASON_RESET_FAILED);
	disable(c, PCIERR_REASON_RESET_FAILED);
	return 0;
}

/* Choose the path from the PE's devices and take its first step */
static int start_recovery(struct ctx *c)
{
	size_t aware = 0, unaware = 0, method = 0;
	int first_method = -1;

	for (size_t i = 0; i < c->pe->n_devices; i++) {
		if (is_bridge(&c->pe->devices[i]))
			continue;
		if (!is_unaware(c, i)) {
			aware++;
			continue;
		}
		unaware++;
		if (pcierr_policy_device_aware(&c->pe->devices[i])) {
			method++;
			if (first_method < 0)
				first_method = (int)i;
		}
	}

	c->rec->last_reset = PCIERR_RESET_UNSPEC;
	c->rec->by_method = method > 0;
	if (unaware > 0 && aware == 0) {
		c->rec->mode = PCIERR_MODE_FULL_HOTPLUG;
		remove_devices(c);
	} else {
		c->rec->mode = unaware > 0 ? PCIERR_MODE_PARTIAL_HOTPLUG : PCIERR_MODE_CALLBACKS;
		report(c, PCIERR_PHASE_ERROR_DETECTED, PCIERR_STEP_ERROR_DETECTED);
	}
	if (method > 0) {
		const struct pcierr_policy_device *d = &c->pe->devices[first_method];

		c->out->reason = PCIERR_REASON_METHOD;
		snprintf(c->out->message, sizeof(c->out->message),
			 "Method=hotplug for %s%s%s%s: its callbacks are not used",
			 d->addr, d->driver ? " (" : "", d->driver ? d->driver : "",
			 d->driver ? ")" : "");
	}
	return 0;
}

static bool apply_pending(struct ctx *c);

/*
 * Where the recovery would be over and recovered: verify first (issue 25),
 * unless VerifySec=0.
 */
static int recovered(struct ctx *c)
{
	if (c->pe_settings.verify_sec == 0 || c->pe->n_devices == 0)
		return done(c, true, PCIERR_REASON_RECOVERED);
	c->rec->phase = PCIERR_PHASE_VERIFY;
	c->out->action = PCIERR_ACTION_VERIFY;
	c->out->timeout_usec = (pcierr_usec_t)c->pe_settings.verify_sec * PCIERR_USEC_PER_SEC;
	return 0;
}

/* The function did not come back (or a TIMEOUT while checking) */
static int not_verified(struct ctx *c, const char *missing)
{
	struct pcierr_recovery *rec = c->rec;
	const char *how = rec->mode == PCIERR_MODE_CALLBACKS ? "the callbacks' recovery" :
			  rec->mode == PCIERR_MODE_PARTIAL_HOTPLUG ? "the partial hotplug" :
			  "the hotplug path";

	if (!missing || !*missing)
		missing = "not confirmed in time";
	if (!rec->verify_escalated && c->pe_settings.verify_escalate) {
		rec->verify_escalated = true;
		rec->mode = PCIERR_MODE_FULL_HOTPLUG;
		rec->escalate = false;
		rec->last_reset = PCIERR_RESET_UNSPEC;
		remove_devices(c);
		c->out->reason = PCIERR_REASON_NOT_VERIFIED;
		snprintf(c->out->message, sizeof(c->out->message),
			 "the function did not come back after %s (%s): trying the hotplug path",
			 how, missing);
		return 0;
	}
	set_message(rec, "the function did not come back after %s%s (%s)", how,
		    rec->verify_escalated ? " it escalated to" : "", missing);
	return done(c, false, PCIERR_REASON_NOT_VERIFIED);
}

static int on_verified(struct ctx *c)
{
	struct pcierr_recovery *rec = c->rec;

	if (rec->phase != PCIERR_PHASE_VERIFY)
		return nothing(c, PCIERR_REASON_IGNORED);
	if (apply_pending(c))
		return 0;
	if (rec->escalate) {
		/* froze again while being checked: over again */
		rec->escalate = false;
		return start_recovery(c);
	}
	if (c->ev->verified)
		return done(c, true, PCIERR_REASON_RECOVERED);
	/* nothing to bring back on the hotplug path: a removal is no
	 * failure of the recovery (scenario 23's race with pciehp) */
	if (c->ev->gone)
		return done(c, false, PCIERR_REASON_GONE);
	return not_verified(c, c->ev->missing);
}

/* ---------------------------------------------------------------------- */
/* Inputs */

static bool any_identity_disabled(const struct pcierr_policy_pe *pe, int *which)
{
	for (size_t i = 0; i < pe->n_devices; i++)
		if (pe->devices[i].history.disabled) {
			*which = (int)i;
			return true;
		}
	return false;
}

/* DISABLE: a device of the PE was disabled earlier, not enabled since */
static int disable_identity_disabled(struct ctx *c, int which)
{
	set_message(c->rec, "%s was permanently disabled earlier (pcierrctl enable brings it back)",
		    c->pe->devices[which].addr);
	return disable(c, PCIERR_REASON_IDENTITY_DISABLED);
}

static bool perm_failure_is_permanent(const struct ctx *c)
{
	int64_t tu = c->ev->time_unavail_ms;

	return tu <= 0 || tu > (int64_t)c->pe_settings.max_wait_sec * 1000;
}

static void set_perm_failure_message(struct ctx *c)
{
	set_message(c->rec,
		    "permanent failure: unavailable for %lld ms (at most %u s is recoverable): permanently disabled",
		    (long long)c->ev->time_unavail_ms, c->pe_settings.max_wait_sec);
}

static bool op_in_flight(enum pcierr_recovery_phase p)
{
	return p != PCIERR_PHASE_IDLE && p != PCIERR_PHASE_WAIT &&
	       p != PCIERR_PHASE_WAIT_UDEV && p != PCIERR_PHASE_KERNEL &&
	       p != PCIERR_PHASE_VERIFY;
}

/* An administrator's Reset of an idle PE: not counted, always a reset */
static int begin_admin(struct ctx *c)
{
	int which;

	*c->rec = PCIERR_RECOVERY_INIT;
	c->rec->started_usec = c->ev->now;
	c->rec->started_mono = c->ev->mono;
	if (any_identity_disabled(c->pe, &which))
		return disable_identity_disabled(c, which);
	c->rec->reset_requested = true;
	c->rec->requested_reset = c->ev->reset_type;
	start_recovery(c);
	snprintf(c->out->message, sizeof(c->out->message), "reset requested");
	return 0;
}

/*
 * The first news of a kernel (AER/DPC) recovery of an idle PE: counted
 * once, and only for a frozen channel (U3: a non-fatal error the kernel
 * recovers without a reset is no freeze, as EEH counts none)
 */
static int begin_kernel(struct ctx *c)
{
	bool exceeded = false;

	*c->rec = PCIERR_RECOVERY_INIT;
	c->rec->started_usec = c->ev->now;
	c->rec->started_mono = c->ev->mono;
	c->rec->kernel_frozen = c->ev->aer_frozen;
	if (c->ev->aer_frozen)
		exceeded = record_freezes(c, c->pe_settings.recover, true);
	c->rec->phase = PCIERR_PHASE_KERNEL;
	if (exceeded && c->pe_settings.recover)
		c->rec->pending_disable = PCIERR_REASON_TOO_MANY_FREEZES;
	nothing(c, c->pe_settings.recover ? PCIERR_REASON_KERNEL : PCIERR_REASON_RECOVER_OFF);
	c->out->timeout_usec = kernel_timeout(c);
	return 0;
}

/* A new freeze of an idle PE */
static int begin(struct ctx *c)
{
	const struct pcierr_policy_event *ev = c->ev;
	enum pcierr_policy_freeze_kind kind = ev->freeze_kind;
	bool perm = ev->state == PCIERR_STATE_PERM_FAILURE;
	bool exceeded;
	int which;

	if (kind == PCIERR_FREEZE_ADMIN)
		return begin_admin(c);
	if (perm && (ev->slot_empty || c->pe->n_devices == 0))
		return nothing(c, PCIERR_REASON_FALSE_ALARM);

	*c->rec = PCIERR_RECOVERY_INIT;
	c->rec->started_usec = ev->now;
	c->rec->started_mono = ev->mono;
	exceeded = record_freezes(c, c->pe_settings.recover,
				  kind != PCIERR_FREEZE_COUNTED);

	if (!c->pe_settings.recover) {
		*c->rec = PCIERR_RECOVERY_INIT;
		return nothing(c, PCIERR_REASON_RECOVER_OFF);
	}

	if (any_identity_disabled(c->pe, &which))
		return disable_identity_disabled(c, which);
	if (exceeded)
		return disable(c, PCIERR_REASON_TOO_MANY_FREEZES);
	if (perm) {
		if (perm_failure_is_permanent(c)) {
			set_perm_failure_message(c);
			disable_all_identities(c, PCIERR_REASON_PERM_FAILURE);
			return disable(c, PCIERR_REASON_PERM_FAILURE);
		}
		/* unavailable for a while: the drivers hear error_detected
		 * first, then the wait (U5); with none to tell, the wait */
		start_recovery(c);
		if (c->rec->mode != PCIERR_MODE_FULL_HOTPLUG) {
			c->rec->wait_after_detect = (pcierr_usec_t)ev->time_unavail_ms *
						    PCIERR_USEC_PER_MSEC;
			return 0;
		}
		memset(c->out, 0, offsetof(struct pcierr_policy_output, n_effects));
		c->rec->phase = PCIERR_PHASE_WAIT;
		c->out->action = PCIERR_ACTION_WAIT;
		c->out->timeout_usec = (pcierr_usec_t)ev->time_unavail_ms * PCIERR_USEC_PER_MSEC;
		return 0;
	}
	start_recovery(c);
	return 0;
}

static int gone(struct ctx *c)
{
	if (op_in_flight(c->rec->phase)) {
		c->rec->gone = true;
		return nothing(c, PCIERR_REASON_WAITING);
	}
	done(c, false, PCIERR_REASON_GONE);
	return 0;
}

/* Apply what was decided while an operation ran; true if it acted */
static bool apply_pending(struct ctx *c)
{
	if (c->rec->gone) {
		done(c, false, PCIERR_REASON_GONE);
		return true;
	}
	if (c->rec->pending_disable != PCIERR_REASON_NONE) {
		disable(c, c->rec->pending_disable);
		return true;
	}
	return false;
}

/* A freeze of a PE that is recovering: count it and fold it in */
static int fold(struct ctx *c)
{
	const struct pcierr_policy_event *ev = c->ev;
	struct pcierr_recovery *rec = c->rec;
	bool perm = ev->type == PCIERR_POLICY_EV_FREEZE &&
		    ev->state == PCIERR_STATE_PERM_FAILURE;
	bool may_disable = c->pe_settings.recover && rec->phase != PCIERR_PHASE_DISABLE &&
			   rec->pending_disable == PCIERR_REASON_NONE;
	/* the shim seeing the channel frozen during the kernel's own
	 * recovery: one freeze per kernel recovery (U3) */
	bool counted = rec->phase == PCIERR_PHASE_KERNEL && rec->kernel_frozen;

	if (perm && (ev->slot_empty || c->pe->n_devices == 0))
		return gone(c);

	if (rec->phase == PCIERR_PHASE_KERNEL)
		rec->kernel_frozen = true;
	if (record_freezes(c, may_disable, !counted))
		rec->pending_disable = PCIERR_REASON_TOO_MANY_FREEZES;
	else if (perm && may_disable && perm_failure_is_permanent(c)) {
		set_perm_failure_message(c);
		disable_all_identities(c, PCIERR_REASON_PERM_FAILURE);
		rec->pending_disable = PCIERR_REASON_PERM_FAILURE;
	}

	if (!c->pe_settings.recover)
		return nothing(c, PCIERR_REASON_RECOVER_OFF);
	rec->escalate = true;

	/* nothing in flight: act at once */
	if ((rec->phase == PCIERR_PHASE_WAIT || rec->phase == PCIERR_PHASE_WAIT_UDEV ||
	     rec->phase == PCIERR_PHASE_VERIFY) &&
	    apply_pending(c))
		return 0;
	nothing(c, rec->phase == PCIERR_PHASE_KERNEL ? PCIERR_REASON_KERNEL : PCIERR_REASON_FOLDED);
	return 0;
}

static int on_freeze(struct ctx *c)
{
	if (c->rec->phase == PCIERR_PHASE_IDLE)
		return begin(c);
	/* a resync of a recovering PE, or a Reset that raced a freeze */
	if (c->ev->freeze_kind != PCIERR_FREEZE_DETECTED)
		return nothing(c, PCIERR_REASON_IGNORED);
	fold(c);
	return 0;
}

#define BIT_SET(m, i)	((m)[(i) / 64] |= 1ULL << ((i) % 64))
#define BIT_CLEAR(m, i)	((m)[(i) / 64] &= ~(1ULL << ((i) % 64)))
#define BIT_TEST(m, i)	(((m)[(i) / 64] >> ((i) % 64)) & 1)

/*
 * An end (SUCCESSFUL or FAILED) of the device named; returns true when
 * err.c's walk over the subtree is over: every device of the PE but its
 * head resumed (report_resume: SUCCESSFUL each), or every one was given
 * up (report_perm_failure_detected: FAILED each). A FAILED among
 * SUCCESSFULs is a DISCONNECT vote during error_detected: the walk goes
 * on. *failed: how it ended.
 */
static bool kernel_walk_over(struct ctx *c, bool *failed)
{
	struct pcierr_recovery *rec = c->rec;
	int named = find_device(c->pe, c->ev->device);
	bool is_failed = c->ev->aer == PCIERR_POLICY_AER_FAILED;
	bool all_ok = true, all_failed = true;

	*failed = is_failed;
	if (named < 0 || is_head(c, (size_t)named))
		/* the bridge itself (a port without a subordinate bus) or
		 * a device we do not know: the whole PE at once */
		return true;
	if (is_failed) {
		BIT_SET(rec->kernel_failed, (size_t)named);
		BIT_CLEAR(rec->kernel_ended, (size_t)named);
	} else {
		BIT_SET(rec->kernel_ended, (size_t)named);
		BIT_CLEAR(rec->kernel_failed, (size_t)named);
	}
	for (size_t i = 0; i < c->pe->n_devices; i++) {
		if (is_head(c, i))
			continue;
		all_ok = all_ok && BIT_TEST(rec->kernel_ended, i);
		all_failed = all_failed && BIT_TEST(rec->kernel_failed, i);
	}
	return is_failed ? all_failed : all_ok;
}

/* The kernel's recovery is over: as it ended */
static int kernel_over(struct ctx *c, bool failed)
{
	struct pcierr_recovery *rec = c->rec;

	if (!c->pe_settings.recover) {
		if (!failed)
			return done(c, true, PCIERR_REASON_RECOVERED);
		*rec = PCIERR_RECOVERY_INIT;
		return nothing(c, PCIERR_REASON_RECOVER_OFF);
	}
	if (apply_pending(c))
		return 0;
	if (!failed) {
		if (rec->escalate) {
			/* the shim froze it meanwhile: recover that too */
			rec->escalate = false;
			return start_recovery(c);
		}
		return recovered(c);
	}
	/* FAILED: pcierr's own fallback, hot-unplug, reset and rescan */
	rec->mode = PCIERR_MODE_FULL_HOTPLUG;
	rec->escalate = false;
	return remove_devices(c);
}

static int on_aer(struct ctx *c)
{
	struct pcierr_recovery *rec = c->rec;
	bool failed;

	if (rec->phase == PCIERR_PHASE_IDLE) {
		/* the first news of a kernel recovery; an end without its
		 * BEGIN (lost, or a device that voted DISCONNECT) too */
		begin_kernel(c);
		if (c->ev->aer == PCIERR_POLICY_AER_BEGIN)
			return 0;
		memset(c->out, 0, offsetof(struct pcierr_policy_output, n_effects));
	} else if (c->ev->aer == PCIERR_POLICY_AER_BEGIN) {
		if (rec->phase == PCIERR_PHASE_KERNEL) {
			/* another function of the same kernel recovery:
			 * one card, one recovery, counted once */
			if (c->ev->aer_frozen && !rec->kernel_frozen) {
				rec->kernel_frozen = true;
				if (record_freezes(c, c->pe_settings.recover, true))
					rec->pending_disable = PCIERR_REASON_TOO_MANY_FREEZES;
			}
			nothing(c, PCIERR_REASON_KERNEL);
			return 0;
		}
		/* pcierr is recovering the PE and the kernel raced it */
		if (!c->ev->aer_frozen)
			return nothing(c, PCIERR_REASON_IGNORED);
		return fold(c);
	} else if (rec->phase != PCIERR_PHASE_KERNEL) {
		return nothing(c, PCIERR_REASON_IGNORED);
	}

	if (!kernel_walk_over(c, &failed)) {
		nothing(c, PCIERR_REASON_KERNEL);
		return 0;
	}
	return kernel_over(c, failed);
}

/*
 * Merge the results of the devices that take part in callback recovery
 * (aware endpoints); *all_gone when none of them is still there.
 *
 * The shim's REPORT answers for endpoints only, never for bridges, so a
 * bridge is no member that could answer (it was counted as one: a PE whose
 * only card lost its driver mid-recovery, an rmmod, then had a member and
 * no answer, and ended "gone" with the card present: scenario 28). An
 * endpoint whose driver left after it answered (no driver bound now) still
 * counts: its answer is its driver's last word, and the card is there.
 * With no card left in the PE at all, an answer-less step is "gone".
 */
static enum pcierr_result merge_results(const struct ctx *c, enum pcierr_result start,
					bool *all_gone)
{
	enum pcierr_result r = start;
	size_t members = 0, cards = 0, answered = 0, alive = 0;
	bool outsiders = false;		/* bound, unaware: may have voted */

	for (size_t i = 0; i < c->pe->n_devices; i++) {
		const struct pcierr_policy_device *d = &c->pe->devices[i];

		if (is_bridge(d))
			continue;
		cards++;
		if (!is_unaware(c, i))
			members++;
		else if (d->driver_bound)
			outsiders = true;
	}

	if (c->ev->merged != PCIERR_RESULT_UNSPEC && c->ev->n_results == 0) {
		/* a kept answer (policy.h "Merging"): one vote, never gone */
		if (c->ev->merged != PCIERR_RESULT_DISCONNECT || !outsiders)
			r = pcierr_policy_merge(r, c->ev->merged);
		*all_gone = cards == 0;
		return r;
	}

	for (size_t i = 0; i < c->ev->n_results; i++) {
		const struct pcierr_policy_result *res = &c->ev->results[i];
		int d = find_device(c->pe, res->addr);
		const struct pcierr_policy_device *dev;

		if (d < 0) {
			/* a device further down the subtree, in a child PE
			 * below a switch: the shim reports to the whole
			 * subtree, so a PE of bridges alone is not "gone"
			 * because its cards are listed below it */
			answered++;
			if (res->result != PCIERR_RESULT_GONE)
				alive++;
			r = pcierr_policy_merge(r, res->result);
			continue;
		}
		dev = &c->pe->devices[d];
		/* unaware and bound: hot-unplugged, not merged; unbound
		 * since it answered: merged (NO_DRIVER has no vote) */
		if (is_bridge(dev) || (is_unaware(c, (size_t)d) && dev->driver_bound))
			continue;
		answered++;
		if (res->result != PCIERR_RESULT_GONE)
			alive++;
		r = pcierr_policy_merge(r, res->result);
	}
	*all_gone = alive == 0 && (cards == 0 || members > 0 || answered > 0);
	return r;
}

static bool op_matches(const struct ctx *c)
{
	const struct pcierr_policy_event *ev = c->ev;

	switch (c->rec->phase) {
	case PCIERR_PHASE_ERROR_DETECTED:
		return ev->op == PCIERR_CMD_REPORT && ev->step == PCIERR_STEP_ERROR_DETECTED;
	case PCIERR_PHASE_MMIO_ENABLED:
		return ev->op == PCIERR_CMD_REPORT && ev->step == PCIERR_STEP_MMIO_ENABLED;
	case PCIERR_PHASE_SLOT_RESET:
		return ev->op == PCIERR_CMD_REPORT && ev->step == PCIERR_STEP_SLOT_RESET;
	case PCIERR_PHASE_RESUME:
		return ev->op == PCIERR_CMD_REPORT && ev->step == PCIERR_STEP_RESUME;
	case PCIERR_PHASE_ENABLE_IO:
		return ev->op == PCIERR_CMD_ENABLE_IO;
	case PCIERR_PHASE_RESET:
		return ev->op == PCIERR_CMD_RESET;
	case PCIERR_PHASE_REMOVE:
		return ev->op == PCIERR_CMD_REMOVE;
	case PCIERR_PHASE_RESCAN:
		return ev->op == PCIERR_CMD_RESCAN;
	case PCIERR_PHASE_DISABLE:
		return ev->op == PCIERR_CMD_DISABLE;
	default:
		return false;
	}
}

static int disconnect(struct ctx *c, const char *step)
{
	set_message(c->rec, "a driver answered DISCONNECT to %s: permanently disabled", step);
	disable_all_identities(c, PCIERR_REASON_DISCONNECT);
	disable(c, PCIERR_REASON_DISCONNECT);
	return 0;
}

/* The drivers answered error_detected (merged: r): the next step */
static int after_detected(struct ctx *c, enum pcierr_result r, int error)
{
	struct pcierr_recovery *rec = c->rec;

	if (rec->mode == PCIERR_MODE_PARTIAL_HOTPLUG)
		return remove_devices(c);
	if (r == PCIERR_RESULT_NEED_RESET || rec->escalate || rec->reset_requested || error)
		return reset(c, RESET_FIRST);
	return enter(c, PCIERR_PHASE_ENABLE_IO, PCIERR_ACTION_ENABLE_IO);
}

static int on_op_done(struct ctx *c)
{
	const struct pcierr_policy_event *ev = c->ev;
	struct pcierr_recovery *rec = c->rec;
	enum pcierr_result r;
	bool all_gone;

	if (!op_matches(c))
		return nothing(c, PCIERR_REASON_IGNORED);
	rec->stuck = false;

	if (rec->phase == PCIERR_PHASE_DISABLE) {
		if (ev->error) {
			/* U2: not disabled; the PE is as the DISABLE found it,
			 * and the caller marks no identity disabled */
			set_message(rec, "disabling failed (errno %d): the PE is not disabled (%s)",
				    -ev->error, pcierr_policy_reason_to_string(rec->pending_disable));
			return done(c, false, PCIERR_REASON_OP_FAILED);
		}
		c->out->reason = rec->pending_disable;
		return done(c, false, rec->pending_disable);
	}
	if (ev->error == -ENODEV || ev->error == -ENOENT)
		rec->gone = true;
	if (apply_pending(c))
		return 0;

	switch (rec->phase) {
	case PCIERR_PHASE_ERROR_DETECTED:
		r = merge_results(c, PCIERR_RESULT_CAN_RECOVER, &all_gone);
		if (all_gone && !ev->error)
			return done(c, false, PCIERR_REASON_GONE);
		if (r == PCIERR_RESULT_DISCONNECT)
			return disconnect(c, "error_detected");
		if (rec->wait_after_detect) {
			/* told: now the platform's time_unavail */
			rec->detected = ev->error ? PCIERR_RESULT_NEED_RESET : r;
			rec->phase = PCIERR_PHASE_WAIT;
			rec->waited_after_detect = true;
			c->out->action = PCIERR_ACTION_WAIT;
			c->out->timeout_usec = rec->wait_after_detect;
			rec->wait_after_detect = 0;
			return 0;
		}
		return after_detected(c, r, ev->error);

	case PCIERR_PHASE_ENABLE_IO:
		if (ev->error || rec->escalate)
			return reset(c, RESET_FIRST);
		return report(c, PCIERR_PHASE_MMIO_ENABLED, PCIERR_STEP_MMIO_ENABLED);

	case PCIERR_PHASE_MMIO_ENABLED:
		r = merge_results(c, PCIERR_RESULT_RECOVERED, &all_gone);
		if (all_gone && !ev->error)
			return done(c, false, PCIERR_REASON_GONE);
		if (r == PCIERR_RESULT_DISCONNECT)
			return disconnect(c, "mmio_enabled");
		if (r == PCIERR_RESULT_RECOVERED && !rec->escalate && !ev->error)
			return report(c, PCIERR_PHASE_RESUME, PCIERR_STEP_RESUME);
		return reset(c, RESET_FIRST);

	case PCIERR_PHASE_RESET:
		if (ev->error)
			return reset(c, RESET_NEXT_OR_FAIL);
		if (rec->mode == PCIERR_MODE_FULL_HOTPLUG)
			return enter(c, PCIERR_PHASE_RESCAN, PCIERR_ACTION_RESCAN);
		return report(c, PCIERR_PHASE_SLOT_RESET, PCIERR_STEP_SLOT_RESET);

	case PCIERR_PHASE_SLOT_RESET:
		r = merge_results(c, PCIERR_RESULT_RECOVERED, &all_gone);
		if (all_gone && !ev->error)
			return done(c, false, PCIERR_REASON_GONE);
		if (r == PCIERR_RESULT_DISCONNECT)
			return disconnect(c, "slot_reset");
		if (r == PCIERR_RESULT_RECOVERED && !ev->error) {
			if (rec->escalate)
				return reset(c, RESET_NEXT_OR_SAME);
			return report(c, PCIERR_PHASE_RESUME, PCIERR_STEP_RESUME);
		}
		return reset(c, RESET_NEXT_OR_FAIL);

	case PCIERR_PHASE_RESUME:
		if (ev->error)
			return op_failed(c, "resume");
		if (rec->escalate)
			return reset(c, RESET_NEXT_OR_SAME);
		if (rec->mode == PCIERR_MODE_PARTIAL_HOTPLUG)
			return enter(c, PCIERR_PHASE_RESCAN, PCIERR_ACTION_RESCAN);
		return recovered(c);

	case PCIERR_PHASE_REMOVE:
		if (ev->error)
			return op_failed(c, "hot-unplug");
		return wait_udev(c);

	case PCIERR_PHASE_RESCAN:
		if (ev->error) {
			set_message(rec, "rescan failed (errno %d)", -ev->error);
			return done(c, false, PCIERR_REASON_OP_FAILED);
		}
		if (rec->escalate) {
			/* froze again while coming back: over again */
			rec->escalate = false;
			return start_recovery(c);
		}
		return recovered(c);

	default:
		return nothing(c, PCIERR_REASON_IGNORED);
	}
	return 0;
}

static int on_wait_done(struct ctx *c)
{
	switch (c->rec->phase) {
	case PCIERR_PHASE_WAIT:
		if (apply_pending(c))
			return 0;
		if (c->rec->waited_after_detect) {
			c->rec->waited_after_detect = false;
			return after_detected(c, c->rec->detected, 0);
		}
		return start_recovery(c);
	case PCIERR_PHASE_WAIT_UDEV:
		if (apply_pending(c))
			return 0;
		if (c->pe->reset_types == 0) {
			/* no reset (issue 8 point 6): rescan; after a partial
			 * hotplug, the devices with callbacks go too */
			if (c->rec->mode == PCIERR_MODE_FULL_HOTPLUG)
				return enter(c, PCIERR_PHASE_RESCAN, PCIERR_ACTION_RESCAN);
			return no_reset_hotplug(c);
		}
		return reset(c, RESET_FIRST);
	default:
		return nothing(c, PCIERR_REASON_IGNORED);
	}
	return 0;
}

static int on_timeout(struct ctx *c)
{
	switch (c->rec->phase) {
	case PCIERR_PHASE_IDLE:
		return nothing(c, PCIERR_REASON_IGNORED);
	case PCIERR_PHASE_WAIT:
	case PCIERR_PHASE_WAIT_UDEV:
		/* the bound of a wait: go on */
		return on_wait_done(c);
	case PCIERR_PHASE_KERNEL: {
		/* the kernel's recovery never said how it ended within
		 * KernelTimeoutSec (lost uevents): the devices' channel
		 * states, read from the kernel just now, tell. All normal:
		 * it recovered them (report_resume sets io_normal); any
		 * still frozen that long after err.c's own bounds: failed */
		bool failed = false;

		for (size_t i = 0; i < c->pe->n_devices; i++)
			if (!is_head(c, i) && c->pe->devices[i].state != PCIERR_STATE_NORMAL &&
			    c->pe->devices[i].state != PCIERR_STATE_UNSPEC)
				failed = true;
		return kernel_over(c, failed);
	}
	case PCIERR_PHASE_VERIFY:
		/* the caller did not say in time: not verified */
		if (apply_pending(c))
			return 0;
		return not_verified(c, NULL);
	default:
		if (c->rec->stuck)
			return nothing(c, PCIERR_REASON_WAITING);
		c->rec->stuck = true;
		c->out->action = PCIERR_ACTION_STUCK;
		snprintf(c->out->message, sizeof(c->out->message),
			 "step %s of %s did not complete within %u s",
			 pcierr_recovery_phase_to_string(c->rec->phase), c->pe->addr,
			 c->pe_settings.step_timeout_sec);
		return 0;
	}
	return 0;
}

int pcierr_policy_resume_hotplug(struct pcierr_recovery *rec, enum pcierr_cmd done_op,
				 pcierr_usec_t now, pcierr_usec_t mono)
{
	if (!rec || rec->phase != PCIERR_PHASE_IDLE ||
	    (done_op != PCIERR_CMD_REMOVE && done_op != PCIERR_CMD_RESET &&
	     done_op != PCIERR_CMD_RECOVER))
		return -EINVAL;
	*rec = PCIERR_RECOVERY_INIT;
	rec->mode = done_op == PCIERR_CMD_RECOVER ? PCIERR_MODE_CALLBACKS :
		    PCIERR_MODE_FULL_HOTPLUG;
	rec->phase = done_op == PCIERR_CMD_REMOVE ? PCIERR_PHASE_REMOVE :
		     done_op == PCIERR_CMD_RESET ? PCIERR_PHASE_RESET :
		     PCIERR_PHASE_ERROR_DETECTED;
	rec->last_reset = PCIERR_RESET_UNSPEC;
	rec->started_usec = now;
	rec->started_mono = mono;
	return 0;
}

/* The output's recover (policy.h): nothing left to decide until resume */
static void plan_recover(struct ctx *c)
{
	struct pcierr_policy_output *o = c->out;
	const struct pcierr_recovery *rec = c->rec;
	enum pcierr_reset_type first;

	if (o->action != PCIERR_ACTION_REPORT || o->step != PCIERR_STEP_ERROR_DETECTED ||
	    rec->mode != PCIERR_MODE_CALLBACKS || rec->escalate || rec->reset_requested ||
	    /* a wait between error_detected and the rest (U5) */
	    rec->wait_after_detect ||
	    (o->state != PCIERR_STATE_FROZEN && o->state != PCIERR_STATE_NORMAL))
		return;
	first = first_reset(c);
	if (first == PCIERR_RESET_UNSPEC)
		return;
	o->recover = true;
	o->reset_type = first;
}

int pcierr_policy_step(const struct pcierr_config *cfg,
		       const struct pcierr_policy_pe *pe,
		       struct pcierr_recovery *rec,
		       const struct pcierr_policy_event *ev,
		       struct pcierr_policy_output *out)
{
	struct ctx c = {
		.cfg = cfg, .pe = pe, .rec = rec, .ev = ev, .out = out,
	};

	if (!cfg || !pe || !rec || !ev || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if ((unsigned int)ev->type >= __PCIERR_POLICY_EV_MAX ||
	    pe->n_devices > PCIERR_POLICY_MAX_DEVICES ||
	    (pe->n_devices > 0 && !pe->devices) ||
	    (ev->n_results > 0 && !ev->results) ||
	    (ev->type == PCIERR_POLICY_EV_FREEZE &&
	     ((unsigned int)ev->freeze_kind >= __PCIERR_FREEZE_KIND_MAX ||
	      (unsigned int)ev->reset_type >= __PCIERR_RESET_MAX)) ||
	    (unsigned int)rec->phase >= __PCIERR_PHASE_MAX)
		return -EINVAL;

	pe_settings(&c);

	switch (ev->type) {
	case PCIERR_POLICY_EV_FREEZE:
		on_freeze(&c);
		break;
	case PCIERR_POLICY_EV_AER:
		on_aer(&c);
		break;
	case PCIERR_POLICY_EV_OP_DONE:
		on_op_done(&c);
		break;
	case PCIERR_POLICY_EV_WAIT_DONE:
		on_wait_done(&c);
		break;
	case PCIERR_POLICY_EV_TIMEOUT:
		on_timeout(&c);
		break;
	case PCIERR_POLICY_EV_VERIFIED:
		on_verified(&c);
		break;
	case PCIERR_POLICY_EV_SLOT_EMPTY:
		if (rec->phase == PCIERR_PHASE_IDLE)
			nothing(&c, PCIERR_REASON_IGNORED);
		else
			gone(&c);
		break;
	default:
		return -EINVAL;
	}
	plan_recover(&c);
	return 0;
}

/* ARM (policy.h): a freeze named by any card would go as one RECOVER */
static void plan_arm(const struct pcierr_config *cfg, const struct pcierr_policy_pe *pe,
		     const struct pcierr_recovery *rec, const struct pcierr_policy_query *q,
		     struct pcierr_policy_plan *plan)
{
	struct pcierr_policy_output out;
	enum pcierr_reset_type type = PCIERR_RESET_UNSPEC;
	size_t cards = 0;

	if (!cfg->auto_recover || rec->phase != PCIERR_PHASE_IDLE ||
	    (pe->flags & (PCIERR_PE_F_BUSY | PCIERR_PE_F_DISABLED)) ||
	    pe->state == PCIERR_PE_STATE_DISABLED || pe->state == PCIERR_PE_STATE_REMOVED ||
	    /* RTAS (pseries) and EEH: not proven with RECOVER */
	    (pe->backend != PCIERR_BACKEND_UNSPEC && pe->backend != PCIERR_BACKEND_GENERIC))
		return;
	for (size_t i = 0; i < pe->n_devices; i++) {
		/* each card has its own count: the next freeze may name any */
		struct pcierr_recovery r = *rec;
		struct pcierr_policy_event ev = {
			.type = PCIERR_POLICY_EV_FREEZE,
			.now = q->now,
			.mono = q->mono,
			.device = pe->devices[i].addr,
			.state = PCIERR_STATE_FROZEN,
		};
		struct ctx head = { .cfg = cfg, .pe = pe };

		if (is_head(&head, i))
			continue;
		cards++;
		if (pcierr_policy_step(cfg, pe, &r, &ev, &out) < 0 || !out.recover)
			return;
		type = out.reset_type;
	}
	plan->arm = cards > 0;
	plan->arm_reset = plan->arm ? type : PCIERR_RESET_UNSPEC;
}

/* LOST (policy.h): the input that stands for a lost OP_DONE */
static void plan_lost(const struct pcierr_policy_query *q, struct pcierr_policy_plan *plan)
{
	struct pcierr_policy_event *l = &plan->lost;

	*l = (struct pcierr_policy_event) {
		.type = PCIERR_POLICY_EV_OP_DONE,
		.now = q->now,
		.mono = q->mono,
		.op = q->op,
		.step = q->op == PCIERR_CMD_REPORT ? q->step : PCIERR_STEP_UNSPEC,
		.error = -ETIMEDOUT,
	};
	if (q->op == PCIERR_CMD_RECOVER) {
		/* its steps, when they can be read; else error_detected
		 * failed, and the policy resets one step at a time */
		plan->replay = q->kept;
		l->op = PCIERR_CMD_REPORT;
		l->step = PCIERR_STEP_ERROR_DETECTED;
		if (q->kept && q->error)
			l->error = q->error;
		return;
	}
	if (!q->kept)
		return;
	l->error = q->error;
	if (q->op == PCIERR_CMD_REPORT)
		l->merged = q->result != PCIERR_RESULT_UNSPEC ? q->result : PCIERR_RESULT_NONE;
}

int pcierr_policy_plan(const struct pcierr_config *cfg,
		       const struct pcierr_policy_pe *pe,
		       const struct pcierr_recovery *rec,
		       const struct pcierr_policy_query *q,
		       struct pcierr_policy_plan *plan)
{
	struct pcierr_policy_event ev = { .type = PCIERR_POLICY_EV_TIMEOUT };
	struct pcierr_recovery copy;
	/* the settings only: no output */
	struct ctx c = { .cfg = cfg, .pe = pe, .rec = &copy, .ev = &ev };

	if (!cfg || !pe || !rec || !q || !plan || (unsigned int)q->question >= __PCIERR_PLAN_MAX ||
	    pe->n_devices > PCIERR_POLICY_MAX_DEVICES || (pe->n_devices > 0 && !pe->devices) ||
	    (unsigned int)rec->phase >= __PCIERR_PHASE_MAX)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	copy = *rec;
	pe_settings(&c);
	plan->step_timeout_usec = step_timeout(&c);

	switch (q->question) {
	case PCIERR_PLAN_BOUNDS:
		break;
	case PCIERR_PLAN_ARM:
		plan_arm(cfg, pe, rec, q, plan);
		break;
	case PCIERR_PLAN_LOST:
		plan_lost(q, plan);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

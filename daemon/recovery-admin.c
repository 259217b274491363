// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The administrator's methods on a slot (bus-manager.c): Reset (a freeze
 * injected, then recovered by a reset through the policy) and Enable (the
 * kernel's ENABLE, then the disabled marks and freeze records cleared).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recovery-internal.h"

static int request_reset(struct slot *s, enum pcierr_reset_type type, uint64_t *ret_id,
			 char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	const struct device *d = NULL;
	uint64_t seq;
	int r;

	if (type == PCIERR_RESET_UNSPEC)
		type = PCIERR_RESET_HOT;
	if (slot_recovery_busy(&s->recovery) || admin_pending(s)) {
		snprintf(msg, msg_size, "Slot %s is recovering; try again when it is done", s->addr);
		return -EBUSY;
	}
	if (s->state == PCIERR_PE_STATE_DISABLED) {
		snprintf(msg, msg_size, "Slot %s is permanently disabled: enable it first (pcierrctl enable %s)",
			 s->addr, s->addr);
		return -EHOSTDOWN;
	}
	if (!(s->reset_types & (1U << type))) {
		snprintf(msg, msg_size, "Slot %s cannot do a %s reset", s->addr,
			 pcierr_reset_type_to_string(type) ?: "?");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < s->n_devices && !d; i++)
		if (!is_head(s, s->devices[i]))
			d = s->devices[i];
	if (!d) {
		snprintf(msg, msg_size, "Slot %s holds no device to reset", s->addr);
		return -ENOMEDIUM;
	}
	/* not recovered by the shim on its own: the administrator's reset */
	if (s->recovery.armed)
		send_arm(s, false, PCIERR_RESET_UNSPEC);
	/* cut the slot off as for an error, then recover it by a reset */
	r = m->kops->inject(m->kernel, d->addr, s->pe_id, PCIERR_STATE_FROZEN, 0, &seq);
	if (r < 0) {
		const char *why = m->kops->last_error_message(m->kernel);

		snprintf(msg, msg_size, "The kernel refused to freeze %s: %s", d->addr,
			 why ? why : strerror(-r));
		return r == -EPROTONOSUPPORT ? -ENOTCONN : r;
	}
	s->recovery.admin_reset = true;
	s->recovery.admin_id = ++m->recovery_ids;
	*ret_id = s->recovery.admin_id;
	s->recovery.admin_seq = seq;
	s->recovery.admin_type = type;
	/* its event is expected within the PE's step timeout (U6); a lost
	 * one must not keep the flag (review M3) */
	s->recovery.admin_deadline = now_monotonic_usec() + step_timeout(s);
	log_info("Slot %s: %s reset requested.", s->addr, pcierr_reset_type_to_string(type));
	return 0;
}

/*
 * Enable: the kernel first (a refused ENABLE changes nothing), then every
 * disabled mark and freeze record of the slot, queued together (review
 * L13).
 */
static int enable_slot(struct slot *s, char *msg, size_t msg_size)
{
	struct manager *m = s->manager;
	_cleanup_free_ struct pcierr_disabled *dis = NULL;
	size_t n = 0, enabled = 0;
	uint64_t op_id = 0;
	bool kernel = s->state == PCIERR_PE_STATE_DISABLED;
	int r;

	if (slot_recovery_busy(&s->recovery)) {
		snprintf(msg, msg_size, "Slot %s is recovering; try again when it is done", s->addr);
		return -EBUSY;
	}
	if (m->state) {
		r = pcierr_state_find_disabled(m->state, s->addr, &dis, &n);
		if (r < 0) {
			snprintf(msg, msg_size, "Failed to read the state store: %s", strerror(-r));
			return r;
		}
	}
	for (size_t i = 0; i < s->n_devices; i++)
		if (s->devices[i]->history.disabled)
			enabled++;
	if (!kernel && enabled == 0 && n == 0) {
		snprintf(msg, msg_size, "Slot %s is not disabled", s->addr);
		return -EALREADY;
	}

	if (kernel) {
		if (!m->kernel_connected || !m->kernel) {
			snprintf(msg, msg_size, "The kernel shim is not loaded (modprobe pcierr_shim)");
			return -ENOTCONN;
		}
		r = m->kops->enable(m->kernel, s->addr, s->pe_id, &op_id);
		if (r < 0) {
			const char *why = m->kops->last_error_message(m->kernel);

			snprintf(msg, msg_size, "The kernel refused to enable %s: %s", s->addr,
				 why ? why : strerror(-r));
			return r;
		}
	}

	for (size_t i = 0; i < n; i++) {
		if (m->writer) {
			(void)state_writer_enable(m->writer, dis[i].key);
			(void)state_writer_clear_freeze(m->writer, dis[i].key, 0, 0);
		}
		history(s, dis[i].device, PCIERR_HISTORY_ENABLE, "", "enabled", "", 0, 0,
			"enabled by the administrator", NULL);
	}
	for (size_t i = 0; i < s->n_devices; i++) {
		struct device *d = s->devices[i];
		char *empty;

		if (!d->history.disabled)
			continue;
		if (m->writer) {
			(void)state_writer_enable(m->writer, d->key);
			(void)state_writer_clear_freeze(m->writer, d->key, d->error_gen,
						      m->shim_load_id);
		}
		d->history = (struct pcierr_freeze_record) {
			.error_gen = d->error_gen, .load_id = m->shim_load_id,
		};
		empty = strdup("");
		if (empty) {
			free(d->disabled_reason);
			d->disabled_reason = empty;
		}
		observe_device_changed(d);
	}

	/* the card comes back soon and its record is read again: through
	 * the writer's queue (state_writer_load()); the method's reply waits
	 * for the commit, off the loop (U7, bus-manager.c) */
	if (kernel) {
		exec_set(s, SLOT_EXEC_OUTSIDE);
		started(s, PCIERR_CMD_ENABLE, op_id, step_timeout(s));
	}
	s->status = (struct slot_status) { 0 };
	log_notice("Slot %s enabled by the administrator.", s->addr);
	observe_slot_changed(s);
	return 0;
}

int recovery_reset(struct manager *m, const char *addr,
		   enum pcierr_reset_type type, uint64_t *ret_id, char *msg, size_t msg_size)
{
	struct slot *s = manager_find_slot_for(m, addr);

	if (!m->kernel || !m->kernel_connected) {
		snprintf(msg, msg_size, "The kernel shim is not loaded (modprobe pcierr_shim)");
		return -ENOTCONN;
	}
	if (!s) {
		snprintf(msg, msg_size, "No PCI device or slot %s is known to pcierr", addr);
		return -ENODEV;
	}
	return request_reset(s, type, ret_id, msg, msg_size);
}

int recovery_enable(struct manager *m, const char *addr,
		    char *msg, size_t msg_size)
{
	struct slot *s = manager_find_slot_for(m, addr);
	char a[PCIERR_ADDR_MAX];

	if (pcierr_addr_normalize(addr, a) < 0) {
		snprintf(msg, msg_size, "Invalid PCI address '%s'", addr);
		return -EINVAL;
	}
	if (!s && m->state) {
		/* a former device of a disabled slot: the store knows where */
		_cleanup_free_ struct pcierr_disabled *dis = NULL;
		size_t n = 0;

		if (pcierr_state_find_disabled(m->state, a, &dis, &n) >= 0 && n > 0)
			s = manager_find_slot(m, dis[0].pe);
	}
	if (!s && m->writer && !state_writer_reached(m->writer, state_writer_target(m->writer))) {
		/* its mark may be queued still: never wait for the disk on
		 * the loop (U7); the caller asks again */
		snprintf(msg, msg_size, "%s is not known yet: the state store is being written; try again in a moment", a);
		return -EAGAIN;
	}
	if (!s) {
		snprintf(msg, msg_size, "No PCI device or slot %s is known to pcierr", a);
		return -ENODEV;
	}
	return enable_slot(s, msg, msg_size);
}

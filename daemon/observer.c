// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The observers of pcierrd's model (observer.h): each told in turn.
 */
#include <errno.h>

#include "macro.h"
#include "manager.h"
#include "observer.h"

#define OBSERVE(m, fn, ...) \
	do { \
		for (size_t _i = 0; (m) && _i < (m)->n_observers; _i++) \
			if ((m)->observers[_i]->fn) \
				(m)->observers[_i]->fn(__VA_ARGS__); \
	} while (0)

int manager_add_observer(struct manager *m, const struct manager_observer *o)
{
	for (size_t i = 0; i < m->n_observers; i++)
		if (m->observers[i] == o)
			return 0;
	if (m->n_observers >= ELEMENTSOF(m->observers))
		return -ENOSPC;
	m->observers[m->n_observers++] = o;
	return 0;
}

void observe_slot_added(struct slot *s) { OBSERVE(s->manager, slot_added, s); }
void observe_slot_removed(struct slot *s) { OBSERVE(s->manager, slot_removed, s); }
void observe_slot_changed(struct slot *s) { OBSERVE(s->manager, slot_changed, s); }
void observe_device_added(struct device *d) { OBSERVE(d->manager, device_added, d); }
void observe_device_removed(struct device *d) { OBSERVE(d->manager, device_removed, d); }
void observe_device_changed(struct device *d) { OBSERVE(d->manager, device_changed, d); }
void observe_manager_changed(struct manager *m) { OBSERVE(m, manager_changed, m); }
void observe_report(struct manager *m, const struct recovery_report *r) { OBSERVE(m, report, m, r); }
void observe_slot_synced(struct slot *s, enum slot_sync how) { OBSERVE(s->manager, slot_synced, s, how); }
void observe_slot_op_idle(struct slot *s) { OBSERVE(s->manager, slot_op_idle, s); }
void observe_slot_freeing(struct slot *s) { OBSERVE(s->manager, slot_freeing, s); }

// SPDX-License-Identifier: GPL-2.0-or-later
/* pcierrd: a hash map keyed by PCI address strings (addrmap.h) */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addrmap.h"

/* FNV-1a */
static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 32));
}

static size_t find(const struct addrmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = hash(key) & mask;

	while (m->e[i].key && strcmp(m->e[i].key, key) != 0)
		i = (i + 1) & mask;
	return i;
}

void *addrmap_get(const struct addrmap *m, const char *key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	i = find(m, key);
	return m->e[i].key ? m->e[i].value : NULL;
}

static int grow(struct addrmap *m)
{
	struct addrmap_entry *old = m->e;
	size_t old_cap = m->cap, cap = old_cap ? old_cap * 2 : 16;

	m->e = calloc(cap, sizeof(*m->e));
	if (!m->e) {
		m->e = old;
		return -ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key)
			m->e[find(m, old[i].key)] = old[i];
	free(old);
	return 0;
}

int addrmap_put(struct addrmap *m, const char *key, void *value)
{
	size_t i;

	/* load factor at most 1/2 */
	if ((m->n + 1) * 2 > m->cap) {
		int r = grow(m);

		if (r < 0)
			return r;
	}
	i = find(m, key);
	if (!m->e[i].key)
		m->n++;
	m->e[i].key = key;
	m->e[i].value = value;
	return 0;
}

int addrmap_remove(struct addrmap *m, const char *key, const void *value)
{
	size_t mask, i, j;

	if (!m->cap || !key)
		return 0;
	mask = m->cap - 1;
	i = find(m, key);
	if (!m->e[i].key || (value && m->e[i].value != value))
		return 0;
	m->e[i].key = NULL;
	m->n--;
	/* backward shift: move up the entries of the cluster that would no
	 * longer be found */
	for (j = (i + 1) & mask; m->e[j].key; j = (j + 1) & mask) {
		size_t h = hash(m->e[j].key) & mask;

		/* h cyclically in (i, j]: the entry stays */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->e[i] = m->e[j];
		m->e[j].key = NULL;
		i = j;
	}
	return 1;
}

void addrmap_clear(struct addrmap *m)
{
	free(m->e);
	*m = (struct addrmap) { 0 };
}

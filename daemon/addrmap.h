/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hash map from a PCI address string to an object (review M2): open
 * addressing with linear probing, grown by doubling, deletion by backward
 * shift (no tombstones). The key is not copied: it must stay valid and
 * unchanged while the entry is in the map (pcierrd keys slots and devices
 * by their own addr[] field). Lookups, insertions and removals are O(1)
 * on average; nothing here allocates except a resize.
 */
#ifndef PCIERRD_ADDRMAP_H
#define PCIERRD_ADDRMAP_H

#include <stddef.h>

struct addrmap_entry {
	const char *key;	/* NULL: free */
	void *value;
};

struct addrmap {
	struct addrmap_entry *e;
	size_t cap;		/* 0 or a power of two */
	size_t n;
};

/* value or NULL */
void *addrmap_get(const struct addrmap *m, const char *key);
/* insert, or replace the value of an equal key; 0 or -ENOMEM */
int addrmap_put(struct addrmap *m, const char *key, void *value);
/* remove key if it maps to value (value NULL: whatever it maps to);
 * returns true if removed */
int addrmap_remove(struct addrmap *m, const char *key, const void *value);
void addrmap_clear(struct addrmap *m);

#endif /* PCIERRD_ADDRMAP_H */

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's AER counters, read from sysfs (aer-stats.h). Small sysfs
 * reads only: no disk behind them, fine on the event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aer-stats.h"

int aer_stats_parse_total(const char *text, const char *total, uint64_t *ret)
{
	size_t n = strlen(total);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *end;
		unsigned long long v;

		if (strncmp(l, total, n) != 0 || l[n] != ' ')
			continue;
		errno = 0;
		v = strtoull(l + n + 1, &end, 10);
		if (errno || end == l + n + 1)
			return -EINVAL;
		*ret = v;
		return 0;
	}
	return -ENOENT;
}

static int read_total(const char *root, const char *addr, const char *file,
		      const char *total, uint64_t *ret)
{
	char path[512], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", root, addr, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return aer_stats_parse_total(buf, total, ret);
}

void aer_stats_read(const char *root, const char *addr, struct aer_stats *ret)
{
	*ret = (struct aer_stats) {};
	if (!root)
		root = PCIERR_SYSFS_PCI_DEVICES;
	if (read_total(root, addr, "aer_dev_fatal", "TOTAL_ERR_FATAL", &ret->fatal) == 0)
		ret->present = true;
	if (read_total(root, addr, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &ret->nonfatal) == 0)
		ret->present = true;
	if (read_total(root, addr, "aer_dev_correctable", "TOTAL_ERR_COR", &ret->correctable) == 0)
		ret->present = true;
}

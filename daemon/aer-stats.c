// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's AER counters, read from sysfs (aer-stats.h). Small sysfs
 * reads only: no disk behind them, fine on the event loop.
 */
#include <errno.h>
#include <fcntl.h>
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

/* one small sysfs attribute of addr into buf (NUL-terminated) */
static int read_attr(const char *root, const char *addr, const char *file,
		     char *buf, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", root, addr, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int read_total(const char *root, const char *addr, const char *file,
		      const char *total, uint64_t *ret)
{
	char buf[4096];
	int r = read_attr(root, addr, file, buf, sizeof(buf));

	return r < 0 ? r : aer_stats_parse_total(buf, total, ret);
}

/* a root port's aer_rootport_total_err_*: one number */
static int read_number(const char *root, const char *addr, const char *file, uint64_t *ret)
{
	char buf[64], *end;
	unsigned long long v;
	int r = read_attr(root, addr, file, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	*ret = v;
	return 0;
}

void aer_stats_read(const char *root, const char *addr, struct aer_stats *ret)
{
	uint64_t v;

	*ret = (struct aer_stats) {};
	if (!root)
		root = PCIERR_SYSFS_PCI_DEVICES;
	if (read_total(root, addr, "aer_dev_fatal", "TOTAL_ERR_FATAL", &ret->fatal) == 0)
		ret->present = true;
	if (read_total(root, addr, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &ret->nonfatal) == 0)
		ret->present = true;
	if (read_total(root, addr, "aer_dev_correctable", "TOTAL_ERR_COR", &ret->correctable) == 0)
		ret->present = true;
	/* a root port also counts the ERR_FATAL/ERR_NONFATAL messages it
	 * received from below (aer_isr_one_error), before it looks for
	 * their source: the errors of devices without AER statistics */
	if (read_number(root, addr, "aer_rootport_total_err_fatal", &v) == 0) {
		ret->rp_fatal = v;
		ret->present = true;
	}
	if (read_number(root, addr, "aer_rootport_total_err_nonfatal", &v) == 0) {
		ret->rp_nonfatal = v;
		ret->present = true;
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery: a PCI device's snapshot read from sysfs (verify.h),
 * the tree udev's device database mirrors: the PCI device's directory and
 * the class and bus devices below it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "verify.h"

#define WALK_DEPTH_MAX	8

/* src into buf, cut to fit */
static void copy_cut(char *buf, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(buf, src, n);
	buf[n] = '\0';
}

/* the last component of the link dir/name points to; "" when none */
static void link_name(int dirfd, const char *name, char *buf, size_t size)
{
	char target[PATH_MAX];
	ssize_t n;
	const char *slash;

	buf[0] = '\0';
	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	copy_cut(buf, size, slash ? slash + 1 : target);
}

/* DEVTYPE= of dir/uevent; "" when none */
static void read_devtype(int dirfd, char *buf, size_t size)
{
	_cleanup_fclose_ FILE *f = NULL;
	char line[256];
	int fd;

	buf[0] = '\0';
	fd = openat(dirfd, "uevent", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "DEVTYPE=", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			copy_cut(buf, size, line + 8);
			return;
		}
}

static void walk(int dirfd, const char *sysname, unsigned int depth, struct verify_snapshot *s)
{
	_cleanup_closedir_ DIR *d = NULL;
	char subsystem[64], devtype[64], driver[VERIFY_DRIVER_MAX], key[VERIFY_KEY_MAX];
	struct dirent *de;
	int fd;

	link_name(dirfd, "subsystem", subsystem, sizeof(subsystem));
	if (depth > 0) {
		/* another PCI function (below a bridge): its own device */
		if (strcmp(subsystem, "pci") == 0)
			return;
		if (subsystem[0]) {
			read_devtype(dirfd, devtype, sizeof(devtype));
			link_name(dirfd, "driver", driver, sizeof(driver));
			if (verify_class_key(subsystem, devtype[0] ? devtype : NULL, sysname,
					     driver[0] ? driver : NULL, key, sizeof(key)))
				verify_snapshot_add(s, key);
			/* a disk's mq/, an interface's queues/: thousands of
			 * directories on a big machine, none of them counted */
			if (verify_class_leaf(subsystem))
				return;
		}
	}
	if (depth >= WALK_DEPTH_MAX)
		return;

	fd = dup(dirfd);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		int child;

		/* links (subsystem, driver, device, firmware_node) are not
		 * children: only real directories are */
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		child = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child < 0)
			continue;
		walk(child, de->d_name, depth + 1, s);
		close(child);
	}
}

int verify_read_sysfs(const char *root, const char *addr, struct verify_snapshot *ret)
{
	char path[PATH_MAX];
	int fd;

	*ret = (struct verify_snapshot) { 0 };
	snprintf(ret->addr, sizeof(ret->addr), "%s", addr);
	if (snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root ? root : "/sys", addr) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	/* the link to the device's directory is followed here, once */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	ret->present = true;
	link_name(fd, "driver", ret->driver, sizeof(ret->driver));
	walk(fd, addr, 0, ret);
	close(fd);
	return 0;
}

bool verify_driver_loaded(const char *root, const char *driver)
{
	char path[PATH_MAX];
	struct stat st;

	if (!driver || !*driver || strchr(driver, '/'))
		return false;
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/%s", root, driver);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verified recovery (issue 25, daemon/verify.c and verify-sysfs.c): which
 * children of a PCI device are its function, table-driven; the comparison
 * of a healthy snapshot with one after a recovery; and the sysfs reader on
 * a tree built like /sys (class devices below the PCI device, a child PCI
 * function that is not counted, links that are not children).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../daemon/verify.h"
#include "cksuites.h"

static const struct {
	const char *subsystem, *devtype, *sysname, *driver;
	const char *key;		/* NULL: does not count */
} kinds[] = {
	{ "net", NULL, "eth0", NULL, "net" },
	{ "net", NULL, "enp1s0", NULL, "net" },
	{ "tty", NULL, "ttyS4", NULL, "tty" },
	{ "block", "disk", "sda", NULL, "block" },
	{ "block", "partition", "sda1", NULL, NULL },
	{ "block", NULL, "sda", NULL, NULL },
	{ "sound", NULL, "card0", NULL, "sound" },
	{ "sound", NULL, "pcmC0D0p", NULL, NULL },
	{ "sound", NULL, "controlC0", NULL, NULL },
	{ "drm", NULL, "card1", NULL, "drm" },
	{ "drm", NULL, "card1-DP-1", NULL, NULL },
	{ "drm", NULL, "renderD128", NULL, NULL },
	{ "watchdog", NULL, "watchdog0", NULL, "watchdog" },
	{ "usb", "usb_device", "usb1", "usb", "usb" },
	{ "usb", "usb_interface", "1-0:1.0", "hub", NULL },
	{ "virtio", NULL, "virtio0", "virtio_rng", "virtio:virtio_rng" },
	{ "virtio", NULL, "virtio3", NULL, "virtio:(no driver)" },
	{ "scsi_host", NULL, "host0", NULL, "scsi_host" },
	{ "nvme", NULL, "nvme0", NULL, "nvme" },
	{ "mmc_host", NULL, "mmc0", NULL, "mmc_host" },
	{ "input", NULL, "input5", NULL, "input" },
	{ "input", NULL, "event5", NULL, NULL },
	{ "input", NULL, "mouse0", NULL, NULL },
	{ "hwmon", NULL, "hwmon2", NULL, "hwmon" },
	{ "rtc", NULL, "rtc0", NULL, "rtc" },
	{ "pci", NULL, "0000:02:00.0", "e1000", NULL },
	{ "scsi", "scsi_device", "0:0:0:0", "sd", NULL },
	{ "msi_irqs", NULL, "24", NULL, NULL },
	{ "", NULL, "power", NULL, NULL },
	{ NULL, NULL, "x", NULL, NULL },
};

START_TEST(test_kind)
{
	char key[VERIFY_KEY_MAX] = "";
	bool counts = verify_class_key(kinds[_i].subsystem, kinds[_i].devtype, kinds[_i].sysname,
				       kinds[_i].driver, key, sizeof(key));

	ck_assert_msg(counts == (kinds[_i].key != NULL), "case %d (%s/%s): counts %d", _i,
		      kinds[_i].subsystem ?: "(null)", kinds[_i].sysname, counts);
	if (counts)
		ck_assert_str_eq(key, kinds[_i].key);
}
END_TEST

/* "driver;key=n,key=n" (driver may be empty); NULL: not present */
static void snap(struct verify_snapshot *s, const char *spec)
{
	char buf[256], *p, *save = NULL;

	memset(s, 0, sizeof(*s));
	snprintf(s->addr, sizeof(s->addr), "0000:01:00.0");
	if (!spec)
		return;
	s->present = true;
	snprintf(buf, sizeof(buf), "%s", spec);
	p = strchr(buf, ';');
	ck_assert_ptr_nonnull(p);
	*p++ = '\0';
	snprintf(s->driver, sizeof(s->driver), "%.63s", buf);
	for (char *t = strtok_r(p, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned int n;

		ck_assert_ptr_nonnull(eq);
		*eq = '\0';
		n = (unsigned int)atoi(eq + 1);
		for (unsigned int i = 0; i < n; i++)
			verify_snapshot_add(s, t);
	}
}

static const struct {
	const char *name, *before, *now;
	bool ok;
	const char *missing;	/* substring; "" when ok */
} compares[] = {
	{ "the same", "serial;tty=1", "serial;tty=1", true, "" },
	{ "the tty did not come back (issue 25)", "serial;tty=1", "serial;", false,
	  "0000:01:00.0: tty 0 of 1" },
	{ "more than before is fine", "xhci_hcd;usb=2", "xhci_hcd;usb=3", true, "" },
	{ "one of two disks missing", "ahci;scsi_host=6,block=2", "ahci;scsi_host=6,block=1", false,
	  "block 1 of 2" },
	{ "driver not bound", "e1000;net=1", ";", false, "driver e1000 not bound" },
	{ "another driver bound", "e1000;net=1", "e1000e;net=1", false,
	  "driver e1000e bound, not e1000" },
	{ "driver and interface both missing: both said", "e1000;net=1", ";", false, "; 0000:01:00.0: net 0 of 1" },
	{ "no driver before: none needed", ";", ";", true, "" },
	{ "the device is gone", "e1000;net=1", NULL, false, "the device is gone" },
	{ "nothing known before: verified", NULL, NULL, true, "" },
	{ "the hwrng's virtio driver", "virtio-pci;virtio:virtio_rng=1", "virtio-pci;virtio:(no driver)=1",
	  false, "virtio:virtio_rng 0 of 1" },
};

START_TEST(test_compare)
{
	struct verify_snapshot before, now;
	char missing[512];
	bool ok;

	snap(&before, compares[_i].before);
	snap(&now, compares[_i].now);
	ok = verify_compare(&before, &now, missing, sizeof(missing));
	ck_assert_msg(ok == compares[_i].ok, "'%s': ok %d (%s)", compares[_i].name, ok, missing);
	if (ok)
		ck_assert_str_eq(missing, "");
	else
		ck_assert_msg(strstr(missing, compares[_i].missing), "'%s': '%s' lacks '%s'",
			      compares[_i].name, missing, compares[_i].missing);
	/* no room for words: the verdict is the same */
	ck_assert_int_eq(verify_compare(&before, &now, NULL, 0), compares[_i].ok);
	ck_assert_int_eq(verify_compare(&before, &now, missing, 8), compares[_i].ok);
	ck_assert_uint_lt(strlen(missing), 8);
}
END_TEST

START_TEST(test_full_table)
{
	struct verify_snapshot s = { 0 };
	char key[VERIFY_KEY_MAX];

	for (int i = 0; i < VERIFY_KINDS_MAX + 4; i++) {
		snprintf(key, sizeof(key), "kind%d", i);
		verify_snapshot_add(&s, key);
	}
	ck_assert_uint_eq(s.n_kinds, VERIFY_KINDS_MAX);
	ck_assert_uint_eq(verify_snapshot_count(&s, "kind0"), 1);
	ck_assert_uint_eq(verify_snapshot_count(&s, "kind19"), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The sysfs reader on a tree of our own */

static char root[PATH_MAX];

static void mk(const char *rel)
{
	char path[PATH_MAX * 2], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void ln(const char *target, const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm(const char *rel)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#define DEV	"devices/pci0000:00/0000:00:1c.0/0000:01:00.0"
#define C(x)	"../../../../../../class/" x	/* a class link 2 levels below DEV */

static void build_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/ck-verify.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	mk("bus/pci/devices");
	mk("bus/pci/drivers/serial");
	mk(DEV);
	ln("../../../" DEV, "bus/pci/devices/0000:01:00.0");
	ln("../../../../bus/pci/drivers/serial", DEV "/driver");
	ln("../../../../bus/pci", DEV "/subsystem");
	/* the ttyS a pci-serial's probe registers, under a grouping dir */
	mk(DEV "/tty/ttyS4");
	ln(C("tty"), DEV "/tty/ttyS4/subsystem");
	mk(DEV "/net/eth0");
	ln(C("net"), DEV "/net/eth0/subsystem");
	/* a virtio child with its driver, and a disk with a partition */
	mk(DEV "/virtio0");
	ln("../../../../../bus/virtio", DEV "/virtio0/subsystem");
	ln("../../../../../bus/virtio/drivers/virtio_rng", DEV "/virtio0/driver");
	mk(DEV "/host0/scsi_host/host0");
	ln(C("scsi_host"), DEV "/host0/scsi_host/host0/subsystem");
	mk(DEV "/host0/block/sda/sda1");
	/* below a counted class device: not entered (a net one here would
	 * count if it were) */
	mk(DEV "/net/eth0/queues/net/eth5");
	ln(C("net"), DEV "/net/eth0/queues/net/eth5/subsystem");
	ln("../../../../../../../class/block", DEV "/host0/block/sda/subsystem");
	put(DEV "/host0/block/sda/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
	ln("../../../../../../../../class/block", DEV "/host0/block/sda/sda1/subsystem");
	put(DEV "/host0/block/sda/sda1/uevent", "DEVTYPE=partition\n");
	/* not children: a PCI function below (a bridge's), msi_irqs, power */
	mk(DEV "/0000:02:00.0/net/eth9");
	ln("../../../../../bus/pci", DEV "/0000:02:00.0/subsystem");
	ln(C("net"), DEV "/0000:02:00.0/net/eth9/subsystem");
	mk(DEV "/msi_irqs");
	mk(DEV "/power");
	/* a link to a directory with children is not walked */
	mk("elsewhere/net/eth7");
	ln("../../class/net", "elsewhere/net/eth7/subsystem");
	ln("../../../../elsewhere", DEV "/firmware_node");
}

START_TEST(test_sysfs)
{
	struct verify_snapshot before, now;
	char missing[512];

	build_tree();
	ck_assert_int_eq(verify_read_sysfs(root, "0000:01:00.0", &before), 0);
	ck_assert(before.present);
	ck_assert_str_eq(before.driver, "serial");
	ck_assert_uint_eq(verify_snapshot_count(&before, "tty"), 1);
	ck_assert_uint_eq(verify_snapshot_count(&before, "net"), 1);
	ck_assert_uint_eq(verify_snapshot_count(&before, "virtio:virtio_rng"), 1);
	ck_assert_uint_eq(verify_snapshot_count(&before, "scsi_host"), 1);
	ck_assert_uint_eq(verify_snapshot_count(&before, "block"), 1);
	ck_assert_uint_eq(before.n_kinds, 5);

	/* eth0 comes back as eth1: back */
	rm(DEV "/net/eth0");
	mk(DEV "/net/eth1");
	ln(C("net"), DEV "/net/eth1/subsystem");
	ck_assert_int_eq(verify_read_sysfs(root, "0000:01:00.0", &now), 0);
	ck_assert(verify_compare(&before, &now, missing, sizeof(missing)));

	/* the ttyS does not come back: not back, and said so */
	rm(DEV "/tty/ttyS4");
	ck_assert_int_eq(verify_read_sysfs(root, "0000:01:00.0", &now), 0);
	ck_assert(!verify_compare(&before, &now, missing, sizeof(missing)));
	ck_assert_str_eq(missing, "0000:01:00.0: tty 0 of 1");

	/* the driver unbound too */
	unlink(strcat(strcpy((char[PATH_MAX * 2]) { 0 }, root), "/" DEV "/driver"));
	ck_assert_int_eq(verify_read_sysfs(root, "0000:01:00.0", &now), 0);
	ck_assert(!verify_compare(&before, &now, missing, sizeof(missing)));
	ck_assert_msg(strstr(missing, "driver serial not bound"), "%s", missing);

	/* ... and the driver is still there to bind: expected back; once it
	 * is unloaded (rmmod), it is not */
	ck_assert(verify_driver_loaded(root, "serial"));
	ck_assert(!verify_driver_loaded(root, "8250_pci"));
	ck_assert(!verify_driver_loaded(root, "../devices"));
	rm("bus/pci/drivers/serial");
	ck_assert(!verify_driver_loaded(root, "serial"));

	/* removed and not rescanned */
	rm("bus/pci/devices/0000:01:00.0");
	ck_assert_int_eq(verify_read_sysfs(root, "0000:01:00.0", &now), 0);
	ck_assert(!now.present);
	ck_assert(!verify_compare(&before, &now, missing, sizeof(missing)));
	ck_assert_msg(strstr(missing, "gone"), "%s", missing);

	rm("");
}
END_TEST

Suite *suite_verify(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("verify");

	tcase_add_loop_test(tc, test_kind, 0, (int)(sizeof(kinds) / sizeof(kinds[0])));
	tcase_add_loop_test(tc, test_compare, 0, (int)(sizeof(compares) / sizeof(compares[0])));
	tcase_add_test(tc, test_full_table);
	tcase_add_test(tc, test_sysfs);
	suite_add_tcase(s, tc);
	return s;
}

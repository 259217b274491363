/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metrics writer (daemon/metrics.c): the exposition text, label
 * escaping, and the atomic write, in a mkdtemp directory per test.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../daemon/metrics.h"
#include "cksuites.h"

#define N_OF(x)	(sizeof(x) / sizeof((x)[0]))

static char tmpdir[64];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cksuite-metrics.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		unlink(dir);
		return;
	}
	while ((de = readdir(d))) {
		char p[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (rmdir(p) < 0)
			rm_rf(p);
	}
	closedir(d);
	rmdir(dir);
}

static void teardown(void)
{
	rm_rf(tmpdir);
}

/* format into a malloc()ed string */
static char *format_str(const struct pcierr_metrics *m, int *ret)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	ck_assert_ptr_nonnull(f);
	*ret = pcierr_metrics_format(m, f);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t) n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t) n, f), (size_t) n);
	fclose(f);
	return buf;
}

/* entries of tmpdir (without . and ..) */
static unsigned int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static const struct pcierr_metrics_device small_devices[] = {
	{ .address = "0000:01:00.0", .has_ids = true, .vendor = 0x8086,
	  .device = 0x10d3, .driver = "e1000e", .freeze_count = 2 },
	{ .address = "0000:02:00.0", .has_ids = false, .driver = NULL,
	  .freeze_count = 6, .disabled = true },
};

static const struct pcierr_metrics_pe small_pes[] = {
	{ .address = "0000:00:1c.0", .state = PCIERR_PE_STATE_FROZEN },
};

static struct pcierr_metrics small_snapshot(void)
{
	struct pcierr_metrics m = {
		.kernel_connected = false,
		.recoveries_started = 3,
		.recoveries_succeeded = 2,
		.recoveries_failed = 1,
		.hotplug_fallbacks = 1,
		.permanent_disables = 1,
		.resyncs = 18446744073709551615ULL,
		.verify_failures = 2,
		.devices = small_devices,
		.n_devices = N_OF(small_devices),
		.pes = small_pes,
		.n_pes = 1,
	};
	return m;
}

static const char small_expected[] =
	"# HELP pcierr_kernel_connected Whether pcierrd is connected to the pcierr_shim kernel module (1) or not (0).\n"
	"# TYPE pcierr_kernel_connected gauge\n"
	"pcierr_kernel_connected 0\n"
	"# HELP pcierr_recoveries_started_total Recoveries started by pcierrd.\n"
	"# TYPE pcierr_recoveries_started_total counter\n"
	"pcierr_recoveries_started_total 3\n"
	"# HELP pcierr_recoveries_succeeded_total Recoveries that ended with the PE working again.\n"
	"# TYPE pcierr_recoveries_succeeded_total counter\n"
	"pcierr_recoveries_succeeded_total 2\n"
	"# HELP pcierr_recoveries_failed_total Recoveries that failed.\n"
	"# TYPE pcierr_recoveries_failed_total counter\n"
	"pcierr_recoveries_failed_total 1\n"
	"# HELP pcierr_hotplug_fallbacks_total Recoveries that fell back to hot-unplug and rescan.\n"
	"# TYPE pcierr_hotplug_fallbacks_total counter\n"
	"pcierr_hotplug_fallbacks_total 1\n"
	"# HELP pcierr_permanent_disables_total Devices permanently disabled.\n"
	"# TYPE pcierr_permanent_disables_total counter\n"
	"pcierr_permanent_disables_total 1\n"
	"# HELP pcierr_resyncs_total Resynchronisations with the kernel's PE state.\n"
	"# TYPE pcierr_resyncs_total counter\n"
	"pcierr_resyncs_total 18446744073709551615\n"
	"# HELP pcierr_verify_failures_total Checks after a recovery that found a device's function not back.\n"
	"# TYPE pcierr_verify_failures_total counter\n"
	"pcierr_verify_failures_total 2\n"
	"# HELP pcierr_nonfatal_errors_total Non-fatal AER errors the kernel recovered without a freeze.\n"
	"# TYPE pcierr_nonfatal_errors_total counter\n"
	"pcierr_nonfatal_errors_total 0\n"
	"# HELP pcierr_device_window_freezes Freezes of the device counted in the current window (FreezeWindowSec=).\n"
	"# TYPE pcierr_device_window_freezes gauge\n"
	"pcierr_device_window_freezes{address=\"0000:01:00.0\",vendor=\"8086\",device=\"10d3\",driver=\"e1000e\"} 2\n"
	"pcierr_device_window_freezes{address=\"0000:02:00.0\",vendor=\"\",device=\"\",driver=\"\"} 6\n"
	"# HELP pcierr_device_disabled Whether the device is permanently disabled (1) or not (0).\n"
	"# TYPE pcierr_device_disabled gauge\n"
	"pcierr_device_disabled{address=\"0000:01:00.0\",vendor=\"8086\",device=\"10d3\",driver=\"e1000e\"} 0\n"
	"pcierr_device_disabled{address=\"0000:02:00.0\",vendor=\"\",device=\"\",driver=\"\"} 1\n"
	"# HELP pcierr_pe_state The state of the PE: 1 for its current state, 0 for the others.\n"
	"# TYPE pcierr_pe_state gauge\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"normal\"} 0\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"frozen\"} 1\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"mmio_enabled\"} 0\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"reset\"} 0\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"removed\"} 0\n"
	"pcierr_pe_state{pe=\"0000:00:1c.0\",state=\"disabled\"} 0\n";

START_TEST(test_format_small)
{
	struct pcierr_metrics m = small_snapshot();
	int r;
	char *s = format_str(&m, &r);

	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(s, small_expected);
	free(s);
}
END_TEST

START_TEST(test_format_empty)
{
	struct pcierr_metrics m = { 0 };
	int r;
	char *s = format_str(&m, &r);

	ck_assert_int_eq(r, 0);
	ck_assert_ptr_nonnull(strstr(s, "\npcierr_resyncs_total 0\n"));
	ck_assert_ptr_nonnull(strstr(s, "# TYPE pcierr_pe_state gauge\n"));
	ck_assert_ptr_null(strstr(s, "pcierr_kernel_checks_total"));
	ck_assert_ptr_null(strstr(s, "pcierr_pe_state{"));
	free(s);
}
END_TEST

/* every kernel counter, named from the PCIERR_STAT_* it comes from */
static const struct {
	enum pcierr_stat stat;
	const char *sample;
} kernel_table[] = {
	{ PCIERR_STAT_CHECKS,		"\npcierr_kernel_checks_total 101\n" },
	{ PCIERR_STAT_ALL_ONES,		"\npcierr_kernel_all_ones_total 102\n" },
	{ PCIERR_STAT_FALSE_POSITIVES,	"\npcierr_kernel_false_positives_total 103\n" },
	{ PCIERR_STAT_IGNORED,		"\npcierr_kernel_ignored_total 104\n" },
	{ PCIERR_STAT_FREEZES,		"\npcierr_kernel_freezes_total 105\n" },
	{ PCIERR_STAT_EVENTS_SENT,	"\npcierr_kernel_events_sent_total 106\n" },
	{ PCIERR_STAT_EVENTS_DROPPED,	"\npcierr_kernel_events_dropped_total 107\n" },
	{ PCIERR_STAT_RESETS,		"\npcierr_kernel_resets_total 108\n" },
	{ PCIERR_STAT_HOTPLUGS,		"\npcierr_kernel_hotplugs_total 109\n" },
	{ PCIERR_STAT_OPS,		"\npcierr_kernel_ops_total 110\n" },
	{ PCIERR_STAT_OPS_FAILED,	"\npcierr_kernel_ops_failed_total 111\n" },
};

START_TEST(test_format_kernel)
{
	struct pcierr_metrics m = { .kernel_connected = true };
	char type[128];
	int r;
	char *s;

	for (size_t i = 0; i < N_OF(kernel_table); i++)
		m.kernel[kernel_table[i].stat] = 100 + kernel_table[i].stat;
	s = format_str(&m, &r);
	ck_assert_int_eq(r, 0);
	ck_assert_ptr_nonnull(strstr(s, "\npcierr_kernel_connected 1\n"));
	ck_assert_ptr_nonnull(strstr(s, kernel_table[_i].sample));
	/* "# TYPE <name> counter" */
	snprintf(type, sizeof(type), "# TYPE %.*s counter\n",
		 (int) (strchr(kernel_table[_i].sample + 1, ' ') -
			kernel_table[_i].sample - 1),
		 kernel_table[_i].sample + 1);
	ck_assert_ptr_nonnull(strstr(s, type));
	ck_assert_ptr_null(strstr(s, "unspec"));
	ck_assert_ptr_null(strstr(s, "pad"));
	free(s);
}
END_TEST

static const struct {
	const char *raw;
	const char *escaped;
} escape_table[] = {
	{ "plain",		"plain" },
	{ "",			"" },
	{ "a\\b",		"a\\\\b" },
	{ "say \"hi\"",		"say \\\"hi\\\"" },
	{ "two\nlines",		"two\\nlines" },
	{ "\\\"\n",		"\\\\\\\"\\n" },
	{ "tab\there",		"tab\there" },		/* not escaped */
	{ "caf\xc3\xa9",	"caf\xc3\xa9" },	/* UTF-8 as is */
	{ "{x=\"y\"},",		"{x=\\\"y\\\"}," },
};

START_TEST(test_label_escaping)
{
	struct pcierr_metrics_device dev = {
		.address = escape_table[_i].raw[0] ? escape_table[_i].raw : "a",
		.driver = escape_table[_i].raw,
	};
	struct pcierr_metrics_pe pe = {
		.address = dev.address, .state = PCIERR_PE_STATE_NORMAL,
	};
	struct pcierr_metrics m = {
		.devices = &dev, .n_devices = 1, .pes = &pe, .n_pes = 1,
	};
	const char *addr_esc = escape_table[_i].raw[0] ?
			       escape_table[_i].escaped : "a";
	char want[1024];
	int r;
	char *s = format_str(&m, &r);

	ck_assert_int_eq(r, 0);
	snprintf(want, sizeof(want),
		 "\npcierr_device_window_freezes{address=\"%s\",vendor=\"\",device=\"\",driver=\"%s\"} 0\n",
		 addr_esc, escape_table[_i].escaped);
	ck_assert_ptr_nonnull(strstr(s, want));
	snprintf(want, sizeof(want),
		 "\npcierr_pe_state{pe=\"%s\",state=\"normal\"} 1\n", addr_esc);
	ck_assert_ptr_nonnull(strstr(s, want));
	free(s);
}
END_TEST

/*
 * Every line is a comment or a sample; every family has exactly one HELP
 * and one TYPE, both before its first sample, and its samples are together.
 */
START_TEST(test_help_type_once)
{
	struct pcierr_metrics m = small_snapshot();
	char seen[64][64];
	unsigned int n_seen = 0, n_help = 0, n_type = 0;
	char current[64] = "";
	int r;
	char *s, *save = NULL;

	m.kernel_connected = true;
	s = format_str(&m, &r);
	ck_assert_int_eq(r, 0);
	ck_assert(s[strlen(s) - 1] == '\n');

	for (char *line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];

		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			bool help = line[2] == 'H';

			ck_assert_int_eq(sscanf(line + 7, "%63s", name), 1);
			ck_assert_int_eq(strncmp(name, "pcierr_", 7), 0);
			if (help) {
				for (unsigned int i = 0; i < n_seen; i++)
					ck_assert_str_ne(seen[i], name);
				ck_assert_uint_lt(n_seen, 64);
				strcpy(seen[n_seen++], name);
				strcpy(current, name);
				n_help++;
			} else {
				const char *type = line + 7 + strlen(name) + 1;

				ck_assert_str_eq(name, current);
				n_type++;
				if (strlen(name) > 6 &&
				    !strcmp(name + strlen(name) - 6, "_total"))
					ck_assert_str_eq(type, "counter");
				else
					ck_assert_str_eq(type, "gauge");
			}
			continue;
		}
		ck_assert(line[0] != '#');
		ck_assert_int_eq(sscanf(line, "%63[a-z_]", name), 1);
		ck_assert_str_eq(name, current);
	}
	ck_assert_uint_eq(n_help, n_type);
	/* connected + 11 kernel + 8 daemon + 2 device + 1 PE */
	ck_assert_uint_eq(n_help, 23);
	free(s);
}
END_TEST

START_TEST(test_format_write_error)
{
	struct pcierr_metrics m = small_snapshot();
	FILE *f = fopen("/dev/full", "we");

	if (!f)
		return;		/* no /dev/full here */
	ck_assert_int_eq(pcierr_metrics_format(&m, f), -ENOSPC);
	fclose(f);
}
END_TEST

START_TEST(test_write_read_back)
{
	struct pcierr_metrics m = small_snapshot();
	char path[128];
	struct stat st;
	char *file;

	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), 0);
	file = read_file(path);
	ck_assert_str_eq(file, small_expected);
	free(file);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_uint_eq(count_entries(tmpdir), 1);

	/* relative to the working directory: no '/' at all */
	{
		char cwd[PATH_MAX];

		ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
		ck_assert_int_eq(chdir(tmpdir), 0);
		ck_assert_int_eq(pcierr_metrics_write(&m, "rel.prom"), 0);
		ck_assert_int_eq(chdir(cwd), 0);
	}
	ck_assert_uint_eq(count_entries(tmpdir), 2);
}
END_TEST

START_TEST(test_write_replaces)
{
	struct pcierr_metrics m = small_snapshot();
	char path[128], other[128];
	struct stat before, after;
	char *file;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("old content\n", f);
	fclose(f);
	ck_assert_int_eq(stat(path, &before), 0);
	/* a second name keeps the old inode: a reader holding it sees old */
	snprintf(other, sizeof(other), "%s/old.link", tmpdir);
	ck_assert_int_eq(link(path, other), 0);

	ck_assert_int_eq(pcierr_metrics_write(&m, path), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert(before.st_ino != after.st_ino);	/* renamed, not rewritten */
	file = read_file(path);
	ck_assert_str_eq(file, small_expected);
	free(file);
	file = read_file(other);
	ck_assert_str_eq(file, "old content\n");
	free(file);
	ck_assert_uint_eq(count_entries(tmpdir), 2);

	/* again: still no temporary left over */
	m.resyncs = 7;
	ck_assert_int_eq(pcierr_metrics_write(&m, path), 0);
	file = read_file(path);
	ck_assert_ptr_nonnull(strstr(file, "\npcierr_resyncs_total 7\n"));
	free(file);
	ck_assert_uint_eq(count_entries(tmpdir), 2);
}
END_TEST

START_TEST(test_write_no_dir)
{
	struct pcierr_metrics m = small_snapshot();
	char path[128];

	snprintf(path, sizeof(path), "%s/missing/pcierr.prom", tmpdir);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), -ENOENT);
	ck_assert_uint_eq(count_entries(tmpdir), 0);
}
END_TEST

START_TEST(test_write_dir_is_file)
{
	struct pcierr_metrics m = small_snapshot();
	char file[128], path[160];
	FILE *f;

	snprintf(file, sizeof(file), "%s/file", tmpdir);
	f = fopen(file, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/pcierr.prom", file);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), -ENOTDIR);
	ck_assert_uint_eq(count_entries(tmpdir), 1);
}
END_TEST

/* the rename fails: the temporary is removed, the target untouched */
START_TEST(test_write_target_is_dir)
{
	struct pcierr_metrics m = small_snapshot();
	char path[128], inner[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	f = fopen(inner, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), -EISDIR);
	ck_assert_uint_eq(count_entries(tmpdir), 1);
	ck_assert_uint_eq(count_entries(path), 1);
}
END_TEST

START_TEST(test_write_invalid_keeps_target)
{
	struct pcierr_metrics m = small_snapshot();
	struct pcierr_metrics_pe bad = { .address = "x", .state = 99 };
	char path[128];
	char *file;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("old\n", f);
	fclose(f);
	m.pes = &bad;
	ck_assert_int_eq(pcierr_metrics_write(&m, path), -EINVAL);
	file = read_file(path);
	ck_assert_str_eq(file, "old\n");
	free(file);
	ck_assert_uint_eq(count_entries(tmpdir), 1);
}
END_TEST

static char long_label[PCIERR_METRICS_LABEL_MAX + 2];
static char max_label[PCIERR_METRICS_LABEL_MAX + 1];

enum bad_kind { BAD_NULL_M, BAD_NULL_DEVICES, BAD_NULL_PES, BAD_DEV_ADDR_NULL,
		BAD_DEV_ADDR_EMPTY, BAD_DEV_ADDR_LONG, BAD_DRIVER_LONG,
		BAD_PE_ADDR_NULL, BAD_PE_ADDR_LONG, BAD_PE_STATE_UNSPEC,
		BAD_PE_STATE_HIGH, BAD_DUP_DEV, BAD_DUP_PE, GOOD_MAX_LABEL };

static const struct {
	enum bad_kind kind;
	int ret;
} invalid_table[] = {
	{ BAD_NULL_M,		-EINVAL },
	{ BAD_NULL_DEVICES,	-EINVAL },
	{ BAD_NULL_PES,		-EINVAL },
	{ BAD_DEV_ADDR_NULL,	-EINVAL },
	{ BAD_DEV_ADDR_EMPTY,	-EINVAL },
	{ BAD_DEV_ADDR_LONG,	-EINVAL },
	{ BAD_DRIVER_LONG,	-EINVAL },
	{ BAD_PE_ADDR_NULL,	-EINVAL },
	{ BAD_PE_ADDR_LONG,	-EINVAL },
	{ BAD_PE_STATE_UNSPEC,	-EINVAL },
	{ BAD_PE_STATE_HIGH,	-EINVAL },
	{ BAD_DUP_DEV,		-EINVAL },
	{ BAD_DUP_PE,		-EINVAL },
	{ GOOD_MAX_LABEL,	0 },
};

START_TEST(test_invalid)
{
	struct pcierr_metrics_device devs[2] = {
		{ .address = "0000:01:00.0" }, { .address = "0000:01:00.1" },
	};
	struct pcierr_metrics_pe pes[2] = {
		{ .address = "0000:00:1c.0", .state = PCIERR_PE_STATE_NORMAL },
		{ .address = "0000:00:1d.0", .state = PCIERR_PE_STATE_DISABLED },
	};
	struct pcierr_metrics m = {
		.devices = devs, .n_devices = 2, .pes = pes, .n_pes = 2,
	};
	const struct pcierr_metrics *mp = &m;
	char path[128];
	int r;
	char *s;

	memset(long_label, 'a', sizeof(long_label) - 1);
	memset(max_label, 'a', sizeof(max_label) - 1);
	switch (invalid_table[_i].kind) {
	case BAD_NULL_M:		mp = NULL; break;
	case BAD_NULL_DEVICES:		m.devices = NULL; break;
	case BAD_NULL_PES:		m.pes = NULL; break;
	case BAD_DEV_ADDR_NULL:		devs[1].address = NULL; break;
	case BAD_DEV_ADDR_EMPTY:	devs[0].address = ""; break;
	case BAD_DEV_ADDR_LONG:		devs[0].address = long_label; break;
	case BAD_DRIVER_LONG:		devs[1].driver = long_label; break;
	case BAD_PE_ADDR_NULL:		pes[0].address = NULL; break;
	case BAD_PE_ADDR_LONG:		pes[1].address = long_label; break;
	case BAD_PE_STATE_UNSPEC:	pes[0].state = PCIERR_PE_STATE_UNSPEC; break;
	case BAD_PE_STATE_HIGH:		pes[1].state = __PCIERR_PE_STATE_MAX; break;
	case BAD_DUP_DEV:		devs[1].address = devs[0].address; break;
	case BAD_DUP_PE:		pes[1].address = "0000:00:1c.0"; break;
	case GOOD_MAX_LABEL:
		devs[0].address = max_label;
		devs[0].driver = max_label;
		pes[0].address = max_label;
		break;
	}

	ck_assert_int_eq(pcierr_metrics_validate(mp), invalid_table[_i].ret);
	s = format_str(mp, &r);
	ck_assert_int_eq(r, invalid_table[_i].ret);
	if (r < 0)
		ck_assert_str_eq(s, "");	/* nothing written */
	free(s);

	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	ck_assert_int_eq(pcierr_metrics_write(mp, path), invalid_table[_i].ret);
	ck_assert_uint_eq(count_entries(tmpdir), r < 0 ? 0 : 1);
}
END_TEST

START_TEST(test_invalid_args)
{
	struct pcierr_metrics m = small_snapshot();
	char *longpath = malloc(PATH_MAX + 16);
	char path[128];

	ck_assert_int_eq(pcierr_metrics_format(&m, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_metrics_write(&m, NULL), -EINVAL);
	ck_assert_int_eq(pcierr_metrics_write(&m, ""), -EINVAL);
	snprintf(path, sizeof(path), "%s/", tmpdir);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), -EINVAL);

	ck_assert_ptr_nonnull(longpath);
	/* PATH_MAX and more: too long; just under: the temporary would be */
	for (size_t len = PATH_MAX - 8; len <= PATH_MAX + 8; len++) {
		snprintf(longpath, PATH_MAX + 16, "%s/", tmpdir);
		memset(longpath + strlen(longpath), 'x', len - strlen(longpath));
		longpath[len] = '\0';
		ck_assert_int_eq(pcierr_metrics_write(&m, longpath), -EINVAL);
	}
	free(longpath);
	ck_assert_uint_eq(count_entries(tmpdir), 0);
}
END_TEST

/*
 * M1: validation is linear. Thread CPU time of one validate at n and at
 * 10 n devices (and as many PEs), the best of a few runs; the ratio of a
 * linear check is about 10 (a hash set: a little more from cache misses),
 * the former nested loops' about 100. The bound catches the quadratic one
 * without timing anything absolute.
 */
struct big {
	struct pcierr_metrics m;
	struct pcierr_metrics_device *devs;
	struct pcierr_metrics_pe *pes;
	char (*addr)[48];
};

static void big_init(struct big *b, size_t n)
{
	b->devs = calloc(n, sizeof(*b->devs));
	b->pes = calloc(n, sizeof(*b->pes));
	b->addr = calloc(n, sizeof(*b->addr));
	ck_assert(b->devs && b->pes && b->addr);
	for (size_t i = 0; i < n; i++) {
		snprintf(b->addr[i], sizeof(b->addr[i]), "%04x:%02x:%02x.%x",
			 (unsigned int)(i >> 16) & 0xffff,
			 (unsigned int)(i >> 8) & 0xff,
			 (unsigned int)(i >> 3) & 0x1f, (unsigned int)i & 7);
		b->devs[i] = (struct pcierr_metrics_device) {
			.address = b->addr[i], .driver = "e1000e",
		};
		b->pes[i] = (struct pcierr_metrics_pe) {
			.address = b->addr[i], .state = PCIERR_PE_STATE_NORMAL,
		};
	}
	b->m = (struct pcierr_metrics) {
		.devices = b->devs, .n_devices = n, .pes = b->pes, .n_pes = n,
	};
}

static void big_done(struct big *b)
{
	free(b->devs);
	free(b->pes);
	free(b->addr);
}

static double validate_cpu_seconds(const struct pcierr_metrics *m)
{
	double best = 1e9;

	for (int run = 0; run < 5; run++) {
		struct timespec a, z;
		double t;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		ck_assert_int_eq(pcierr_metrics_validate(m), 0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &z);
		t = (double)(z.tv_sec - a.tv_sec) + (double)(z.tv_nsec - a.tv_nsec) / 1e9;
		if (t < best)
			best = t;
	}
	return best;
}

START_TEST(test_validate_linear)
{
	struct big small, large;
	double ts, tl;

	big_init(&small, 2000);
	big_init(&large, 20000);
	ts = validate_cpu_seconds(&small.m);
	tl = validate_cpu_seconds(&large.m);
	/* a duplicate is still found, also the last against the first */
	large.devs[19999].address = large.addr[0];
	ck_assert_int_eq(pcierr_metrics_validate(&large.m), -EINVAL);
	large.devs[19999].address = large.addr[19999];
	large.pes[19999].address = large.addr[1];
	ck_assert_int_eq(pcierr_metrics_validate(&large.m), -EINVAL);
	big_done(&small);
	big_done(&large);
	ck_assert_msg(tl < 40 * (ts > 1e-6 ? ts : 1e-6),
		      "validate: %.6f s at 2000, %.6f s at 20000 (ratio %.1f, linear is ~10)",
		      ts, tl, tl / ts);
}
END_TEST

/*
 * promtool check metrics (Debian's prometheus package) on the file
 * pcierr_metrics_write() wrote: the exposition must pass its linter. The
 * control case, a gauge ending in _count, must fail it, so that this test
 * can fail at all. promtool missing is a failure: scripts/install-deps.
 */
static int promtool_check(const char *path, char *out, size_t size)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s' 2>&1", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	return pclose(p);
}

START_TEST(test_promtool)
{
	static const struct pcierr_metrics_device devs[] = {
		{ .address = "0000:01:00.0", .has_ids = true, .vendor = 0x8086,
		  .device = 0x10d3, .driver = "e1000e", .freeze_count = 2 },
		{ .address = "0000:02:00.0", .driver = "we\"ird\\drv\n",
		  .freeze_count = 6, .disabled = true },
	};
	static const struct pcierr_metrics_pe pes[] = {
		{ .address = "0000:00:1c.0", .state = PCIERR_PE_STATE_FROZEN },
		{ .address = "0000:00:1d.0", .state = PCIERR_PE_STATE_DISABLED },
	};
	struct pcierr_metrics m = {
		.kernel_connected = true, .recoveries_started = 3,
		.devices = devs, .n_devices = N_OF(devs), .pes = pes, .n_pes = N_OF(pes),
	};
	char path[128], out[4096];
	FILE *f;
	int st;

	ck_assert_msg(system("command -v promtool >/dev/null") == 0,
		      "promtool not found: install Debian's prometheus package (scripts/install-deps)");
	for (size_t i = 0; i < N_OF(m.kernel); i++)
		m.kernel[i] = i * 1000;
	snprintf(path, sizeof(path), "%s/pcierr.prom", tmpdir);
	ck_assert_int_eq(pcierr_metrics_write(&m, path), 0);
	st = promtool_check(path, out, sizeof(out));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !*out,
		      "promtool check metrics: status %d: %s", st, out);

	/* the control: what it flagged before the rename */
	snprintf(path, sizeof(path), "%s/bad.prom", tmpdir);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("# HELP pcierr_device_freeze_count x\n# TYPE pcierr_device_freeze_count gauge\n"
	      "pcierr_device_freeze_count{address=\"0000:01:00.0\"} 1\n", f);
	ck_assert_int_eq(fclose(f), 0);
	st = promtool_check(path, out, sizeof(out));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0 && strstr(out, "_count"),
		      "promtool accepted a gauge ending in _count: status %d: %s", st, out);
}
END_TEST

Suite *suite_metrics(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc;

	tc = tcase_create("format");
	tcase_add_test(tc, test_format_small);
	tcase_add_test(tc, test_format_empty);
	tcase_add_loop_test(tc, test_format_kernel, 0, N_OF(kernel_table));
	tcase_add_loop_test(tc, test_label_escaping, 0, N_OF(escape_table));
	tcase_add_test(tc, test_help_type_once);
	tcase_add_test(tc, test_format_write_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_write_read_back);
	tcase_add_test(tc, test_write_replaces);
	tcase_add_test(tc, test_write_no_dir);
	tcase_add_test(tc, test_write_dir_is_file);
	tcase_add_test(tc, test_write_target_is_dir);
	tcase_add_test(tc, test_write_invalid_keeps_target);
	tcase_add_loop_test(tc, test_invalid, 0, N_OF(invalid_table));
	tcase_add_test(tc, test_invalid_args);
	tcase_add_test(tc, test_promtool);
	suite_add_tcase(s, tc);

	tc = tcase_create("scale");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_validate_linear);
	suite_add_tcase(s, tc);

	return s;
}

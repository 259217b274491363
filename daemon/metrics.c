// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrd metrics: the Prometheus text exposition format 0.0.4, written
 * atomically for node_exporter's textfile collector. See metrics.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "metrics.h"

static const struct {
	enum pcierr_stat stat;
	const char *name;
	const char *help;
} kernel_stats[] = {
	{ PCIERR_STAT_CHECKS, "checks",
	  "pcierr_check_failure() calls in the kernel." },
	{ PCIERR_STAT_ALL_ONES, "all_ones",
	  "pcierr_check_failure() calls given an all-ones read." },
	{ PCIERR_STAT_FALSE_POSITIVES, "false_positives",
	  "All-ones reads whose device was healthy." },
	{ PCIERR_STAT_IGNORED, "ignored",
	  "All-ones reads on a PE already frozen." },
	{ PCIERR_STAT_FREEZES, "freezes",
	  "Detections: PEs frozen by the kernel." },
	{ PCIERR_STAT_EVENTS_SENT, "events_sent",
	  "Error events sent by the kernel." },
	{ PCIERR_STAT_EVENTS_DROPPED, "events_dropped",
	  "Error events dropped by the kernel (queue overflow)." },
	{ PCIERR_STAT_RESETS, "resets",
	  "PE resets done by the kernel." },
	{ PCIERR_STAT_HOTPLUGS, "hotplugs",
	  "Hotplug operations (remove, rescan, disable, enable) done by the kernel." },
	{ PCIERR_STAT_OPS, "ops",
	  "Recovery operations completed by the kernel." },
	{ PCIERR_STAT_OPS_FAILED, "ops_failed",
	  "Recovery operations completed with an error." },
};

/* index = enum pcierr_pe_state */
static const char *const pe_state_names[] = {
	[PCIERR_PE_STATE_NORMAL]	= "normal",
	[PCIERR_PE_STATE_FROZEN]	= "frozen",
	[PCIERR_PE_STATE_MMIO_ENABLED]	= "mmio_enabled",
	[PCIERR_PE_STATE_RESET]		= "reset",
	[PCIERR_PE_STATE_REMOVED]	= "removed",
	[PCIERR_PE_STATE_DISABLED]	= "disabled",
};

static bool label_ok(const char *s, bool required)
{
	if (!s)
		return !required;
	if (required && !*s)
		return false;
	return strnlen(s, PCIERR_METRICS_LABEL_MAX + 1) <=
	       PCIERR_METRICS_LABEL_MAX;
}

/*
 * Is any address given twice? One pass with an open-addressing hash set
 * of the strings (M1: linear, not the former nested loops).
 */
static int has_duplicates(size_t n, const char *(*get)(const void *, size_t),
			  const void *array)
{
	_cleanup_free_ const char **set = NULL;
	size_t cap = 16;

	if (n < 2)
		return 0;
	while (cap < 2 * n)
		cap *= 2;
	set = calloc(cap, sizeof(*set));
	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *a = get(array, i);
		uint64_t h = 14695981039346656037ULL;	/* FNV-1a */
		size_t k;

		for (const char *c = a; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		for (k = (size_t)h & (cap - 1); set[k]; k = (k + 1) & (cap - 1))
			if (!strcmp(set[k], a))
				return 1;
		set[k] = a;
	}
	return 0;
}

static const char *device_address(const void *array, size_t i)
{
	return ((const struct pcierr_metrics_device *)array)[i].address;
}

static const char *pe_address(const void *array, size_t i)
{
	return ((const struct pcierr_metrics_pe *)array)[i].address;
}

int pcierr_metrics_validate(const struct pcierr_metrics *m)
{
	int r;

	if (!m)
		return -EINVAL;
	if ((m->n_devices && !m->devices) || (m->n_pes && !m->pes))
		return -EINVAL;

	for (size_t i = 0; i < m->n_devices; i++) {
		const struct pcierr_metrics_device *d = &m->devices[i];

		if (!label_ok(d->address, true) || !label_ok(d->driver, false))
			return -EINVAL;
	}
	for (size_t i = 0; i < m->n_pes; i++) {
		const struct pcierr_metrics_pe *p = &m->pes[i];

		if (!label_ok(p->address, true))
			return -EINVAL;
		if (p->state < PCIERR_PE_STATE_NORMAL ||
		    p->state > PCIERR_PE_STATE_MAX)
			return -EINVAL;
	}
	r = has_duplicates(m->n_devices, device_address, m->devices);
	if (r == 0)
		r = has_duplicates(m->n_pes, pe_address, m->pes);
	return r > 0 ? -EINVAL : r;
}

/* A label value, escaped per the exposition format: \\ \" \n */
static void put_label_value(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '"':
			fputs("\\\"", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

static void put_family(FILE *out, const char *name, const char *type,
		       const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_scalar(FILE *out, const char *name, const char *type,
		       const char *help, uint64_t value)
{
	put_family(out, name, type, help);
	fprintf(out, "%s %" PRIu64 "\n", name, value);
}

static void put_device(FILE *out, const char *name,
		       const struct pcierr_metrics_device *d, uint64_t value)
{
	fprintf(out, "%s{address=\"", name);
	put_label_value(out, d->address);
	if (d->has_ids)
		fprintf(out, "\",vendor=\"%04x\",device=\"%04x\",driver=\"",
			d->vendor, d->device);
	else
		fputs("\",vendor=\"\",device=\"\",driver=\"", out);
	put_label_value(out, d->driver);
	fprintf(out, "\"} %" PRIu64 "\n", value);
}

/* m is valid: the exposition itself */
static int format_valid(const struct pcierr_metrics *m, FILE *out)
{
	char name[64];

	put_scalar(out, "pcierr_kernel_connected", "gauge",
		   "Whether pcierrd is connected to the pcierr_shim kernel module (1) or not (0).",
		   m->kernel_connected ? 1 : 0);
	if (m->kernel_connected) {
		for (size_t i = 0; i < ELEMENTSOF(kernel_stats); i++) {
			snprintf(name, sizeof(name), "pcierr_kernel_%s_total",
				 kernel_stats[i].name);
			put_scalar(out, name, "counter", kernel_stats[i].help,
				   m->kernel[kernel_stats[i].stat]);
		}
	}

	put_scalar(out, "pcierr_recoveries_started_total", "counter",
		   "Recoveries started by pcierrd.", m->recoveries_started);
	put_scalar(out, "pcierr_recoveries_succeeded_total", "counter",
		   "Recoveries that ended with the PE working again.",
		   m->recoveries_succeeded);
	put_scalar(out, "pcierr_recoveries_failed_total", "counter",
		   "Recoveries that failed.", m->recoveries_failed);
	put_scalar(out, "pcierr_hotplug_fallbacks_total", "counter",
		   "Recoveries that fell back to hot-unplug and rescan.",
		   m->hotplug_fallbacks);
	put_scalar(out, "pcierr_permanent_disables_total", "counter",
		   "Devices permanently disabled.", m->permanent_disables);
	put_scalar(out, "pcierr_resyncs_total", "counter",
		   "Resynchronisations with the kernel's PE state.",
		   m->resyncs);
	put_scalar(out, "pcierr_verify_failures_total", "counter",
		   "Checks after a recovery that found a device's function not back.",
		   m->verify_failures);
	put_scalar(out, "pcierr_nonfatal_errors_total", "counter",
		   "Non-fatal AER errors the kernel recovered without a freeze.",
		   m->nonfatal_errors);

	put_family(out, "pcierr_device_window_freezes", "gauge",
		   "Freezes of the device counted in the current window (FreezeWindowSec=).");
	for (size_t i = 0; i < m->n_devices; i++)
		put_device(out, "pcierr_device_window_freezes", &m->devices[i],
			   m->devices[i].freeze_count);

	put_family(out, "pcierr_device_disabled", "gauge",
		   "Whether the device is permanently disabled (1) or not (0).");
	for (size_t i = 0; i < m->n_devices; i++)
		put_device(out, "pcierr_device_disabled", &m->devices[i],
			   m->devices[i].disabled ? 1 : 0);

	put_family(out, "pcierr_pe_state", "gauge",
		   "The state of the PE: 1 for its current state, 0 for the others.");
	for (size_t i = 0; i < m->n_pes; i++) {
		for (int s = PCIERR_PE_STATE_NORMAL; s <= PCIERR_PE_STATE_MAX; s++) {
			fputs("pcierr_pe_state{pe=\"", out);
			put_label_value(out, m->pes[i].address);
			fprintf(out, "\",state=\"%s\"} %d\n", pe_state_names[s],
				(int) m->pes[i].state == s ? 1 : 0);
		}
	}

	if (fflush(out) != 0 || ferror(out))
		return negative_errno();
	return 0;
}

int pcierr_metrics_format(const struct pcierr_metrics *m, FILE *out)
{
	int r;

	if (!out)
		return -EINVAL;
	r = pcierr_metrics_validate(m);
	if (r < 0)
		return r;
	return format_valid(m, out);
}

int pcierr_metrics_write_text(const char *path, const char *text, size_t size)
{
	_cleanup_free_ char *tmp = NULL;
	const char *base;
	size_t len, dirlen;
	int fd, r = 0;

	if (!path || !*path || (!text && size > 0))
		return -EINVAL;
	len = strnlen(path, PATH_MAX);
	if (len >= PATH_MAX || path[len - 1] == '/')
		return -EINVAL;

	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dirlen = (size_t) (base - path);
	/* "<dir>/.<base>.XXXXXX" */
	if (len + 9 >= PATH_MAX)
		return -EINVAL;
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", (int) dirlen, path, base) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fchmod(fd, 0644) < 0)
		r = negative_errno();
	for (size_t off = 0; r == 0 && off < size;) {
		ssize_t k = write(fd, text + off, size - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			r = k < 0 ? negative_errno() : -EIO;
		else
			off += (size_t) k;
	}
	/*
	 * No fsync() (H2): the file may live on the very device being
	 * recovered, and node_exporter needs only the atomic rename. After
	 * a crash pcierrd writes the file anew.
	 */
	if (close(fd) < 0 && r == 0)
		r = negative_errno();
	if (r == 0 && rename(tmp, path) < 0)
		r = negative_errno();
	if (r < 0)
		(void) unlink(tmp);
	return r;
}

int pcierr_metrics_to_text(const struct pcierr_metrics *m, char **ret, size_t *ret_size)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	r = pcierr_metrics_validate(m);
	if (r < 0)
		return r;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	r = format_valid(m, f);		/* validated above, once */
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_size = size;
	return 0;
}

int pcierr_metrics_write(const struct pcierr_metrics *m, const char *path)
{
	_cleanup_free_ char *text = NULL;
	size_t size;
	int r;

	if (!path || !*path)
		return -EINVAL;
	r = pcierr_metrics_to_text(m, &text, &size);
	if (r < 0)
		return r;
	return pcierr_metrics_write_text(path, text, size);
}

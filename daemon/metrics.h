/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd metrics (issue 3 "Also"): a snapshot of the counters and gauges,
 * rendered in the Prometheus text exposition format 0.0.4 and written
 * atomically for node_exporter's textfile collector (MetricsPath=, off by
 * default; see daemon/config.h).
 *
 * Families (every name prefixed pcierr_, every counter suffixed _total;
 * # HELP and # TYPE once per family, always emitted, even with no samples):
 *   pcierr_kernel_connected                    gauge 0/1
 *   pcierr_kernel_<stat>_total                 counter, one family per
 *        PCIERR_STAT_* except UNSPEC and PAD (checks, all_ones,
 *        false_positives, ignored, freezes, events_sent, events_dropped,
 *        resets, hotplugs, ops, ops_failed); only when kernel_connected
 *   pcierr_recoveries_started_total            counter
 *   pcierr_recoveries_succeeded_total          counter
 *   pcierr_recoveries_failed_total             counter
 *   pcierr_hotplug_fallbacks_total             counter
 *   pcierr_permanent_disables_total            counter
 *   pcierr_resyncs_total                       counter
 *   pcierr_verify_failures_total               counter
 *   pcierr_nonfatal_errors_total               counter (the kernel's
 *        non-fatal AER errors followed: never counted as freezes)
 *   pcierr_device_window_freezes{address,vendor,device,driver} gauge
 *        (the freezes counted in the current FreezeWindowSec=; named
 *        so because a gauge may not end in _count, which promtool
 *        reserves for summaries and histograms)
 *   pcierr_device_disabled{address,vendor,device,driver}      gauge 0/1
 *   pcierr_pe_state{pe,state}                  gauge, a state set: one
 *        sample per PE and state ("normal", "frozen", "mmio_enabled",
 *        "reset", "removed", "disabled"), 1 for the PE's state, else 0
 *
 * vendor/device are 4 lower-case hex digits ("" when has_ids is false);
 * a NULL driver is "". Label values are escaped per the spec (\\, \", \n).
 *
 * No printing: functions return 0 or a negative errno.
 */
#ifndef PCIERRD_METRICS_H
#define PCIERRD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/pcierr.h>

/* The longest label value accepted, in bytes, without the NUL */
#define PCIERR_METRICS_LABEL_MAX	255U

struct pcierr_metrics_device {
	const char *address;		/* required, non-empty */
	bool has_ids;
	uint16_t vendor;
	uint16_t device;
	const char *driver;		/* NULL: no driver bound ("") */
	uint64_t freeze_count;
	bool disabled;
};

struct pcierr_metrics_pe {
	const char *address;		/* required, non-empty */
	enum pcierr_pe_state state;	/* NORMAL..DISABLED */
};

struct pcierr_metrics {
	/* kernel counters (PCIERR_CMD_GET_STATS), indexed by PCIERR_STAT_* */
	bool kernel_connected;
	uint64_t kernel[__PCIERR_STAT_MAX];

	/* daemon counters, since pcierrd started */
	uint64_t recoveries_started;
	uint64_t recoveries_succeeded;
	uint64_t recoveries_failed;
	uint64_t hotplug_fallbacks;
	uint64_t permanent_disables;
	uint64_t resyncs;
	uint64_t verify_failures;
	uint64_t nonfatal_errors;

	/* per-device and per-PE gauges; the caller owns the arrays */
	const struct pcierr_metrics_device *devices;
	size_t n_devices;
	const struct pcierr_metrics_pe *pes;
	size_t n_pes;
};

/*
 * Check m without writing anything: -EINVAL for NULL m, a NULL array with
 * a non-zero count, a NULL/empty/over-long address, an over-long driver,
 * a PE state out of range, or two devices (or two PEs) with one address
 * (-ENOMEM if the duplicate check cannot allocate). Linear in the number
 * of devices and PEs (a hash set for the duplicates).
 */
int pcierr_metrics_validate(const struct pcierr_metrics *m);

/*
 * Write m to out in the exposition format, then fflush(out). Returns 0,
 * -EINVAL (NULL out, or as pcierr_metrics_validate(); nothing is written
 * then), or the write error's negative errno (-EIO if unknown).
 */
int pcierr_metrics_format(const struct pcierr_metrics *m, FILE *out);

/*
 * Replace the file at path atomically with pcierr_metrics_format()'s
 * output: a temporary ".<name>.XXXXXX" in the same directory (mode 0644,
 * O_CLOEXEC), written in full and flushed, then renamed over path. m is
 * validated once. Nothing is fsync()ed (the file may sit on the device
 * being recovered; node_exporter needs only the atomic rename). On any
 * failure the
 * temporary file is removed and path is left untouched. Returns 0,
 * -EINVAL (as above, or path NULL, empty, ending in '/' or too long),
 * or the failing call's negative errno (-ENOENT: no such directory,
 * -ENOTDIR, -EACCES, -ENOSPC, -EISDIR: path is a directory, ...).
 */
int pcierr_metrics_write(const struct pcierr_metrics *m, const char *path);

/*
 * The two halves of pcierr_metrics_write(), for pcierrd, which formats on
 * its loop (memory only) and writes from a thread (metrics-writer.h):
 * _to_text() validates and formats m into a new buffer (*ret, free() it;
 * 0, -EINVAL or -ENOMEM); _write_text() replaces path with size bytes of
 * text as described above (0, -EINVAL or the failing call's errno).
 */
int pcierr_metrics_to_text(const struct pcierr_metrics *m, char **ret, size_t *ret_size);
int pcierr_metrics_write_text(const char *path, const char *text, size_t size);

#endif /* PCIERRD_METRICS_H */

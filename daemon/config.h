/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd configuration: /etc/pcierr/pcierrd.conf plus
 * /etc/pcierr/pcierrd.conf.d/ *.conf, systemd style.
 *
 * Syntax (docs/pcierrd.conf.md is the user-facing copy of this):
 *
 *   # comment            lines starting with '#' or ';' (after blanks)
 *   [Policy]             the defaults for every device
 *   MaxFreezes=5         freezes recovered per identity; the next one
 *                        within the window disables it (0..1000000,
 *                        0 = the first freeze disables)
 *   FreezeWindowSec=3600 the quiet period, in seconds, after which the
 *                        freeze count restarts (1..315360000)
 *   MaxWaitSec=15        a perm_failure with time_unavail 0 or above this
 *                        is a permanent failure (1..3600)
 *   StepTimeoutSec=30    a step (driver callback, reset, hotplug) that
 *                        takes longer marks its PE stuck (1..86400)
 *   KernelTimeoutSec=300 the bound of the kernel's own AER/DPC recovery
 *                        (phase KERNEL), after which pcierrd reads the
 *                        devices' state before it acts (1..86400)
 *   Recover=yes          boolean: yes/no, true/false, on/off, 1/0
 *   Method=auto          auto: the callbacks where every driver has them,
 *                        the hotplug path for the rest; hotplug: this
 *                        device always goes the hotplug path (its driver's
 *                        callbacks are known to be broken)
 *   VerifySec=30         after a recovery, wait at most this many seconds
 *                        for the device's function to be back (the same
 *                        driver bound, its class devices present again);
 *                        0 = no verification (0..3600)
 *   VerifyEscalate=yes   a recovery whose function did not come back
 *                        is tried once more by the hotplug path
 *   MetricsPath=         absolute path of the Prometheus textfile;
 *                        empty (the default) = no metrics. [Policy] only.
 *
 *   [Device 0000:01:00.0]      overrides for the device (or the PE) at
 *   [Device "0000:01:00.0"]    that address; the domain may be omitted
 *                              ("01:00.0" = "0000:01:00.0")
 *   [Device 8086:10d3]         overrides for every device with these
 *                              vendor:device ids (hex, 1..4 digits)
 *   [Device 8086:*]            overrides for every device of the vendor
 *   [Driver e1000]             overrides for every device bound to this
 *                              driver (the name in /sys/bus/pci/drivers)
 *
 *   [State]              the state database (history retention)
 *   HistoryMax=10000     history rows kept; older rows are pruned
 *                        (0..100000000, 0 = no limit by count)
 *   HistoryMaxAgeSec=31536000  history rows older than this many seconds
 *                        are pruned (0..3153600000, 0 = no age limit)
 *
 *   A [Device] or [Driver] section takes MaxFreezes, FreezeWindowSec,
 *   MaxWaitSec, StepTimeoutSec, KernelTimeoutSec, Recover, Method,
 *   VerifySec and VerifyEscalate. The most specific match wins, key by
 *   key: address, then vendor:device, then driver, then vendor:*, then
 *   [Policy].
 *
 * Rules: whitespace around the key, the '=' and the value is ignored; a
 * value may not be quoted; a key set twice keeps the last value (also
 * across files: the main file is read first, then the drop-ins in lexical
 * order of their file names); an empty value resets the key ([Policy]: to
 * the built-in default, [Device]: the override is dropped). Section and
 * key names are case-sensitive. Anything else is an error: an unknown
 * section or key, a key before any section, a line without '=', a bad or
 * out-of-range number, a bad boolean, a bad address or id, a relative
 * MetricsPath, a NUL byte. An error names the file and line; pcierrd
 * refuses to start on it.
 */
#ifndef PCIERRD_CONFIG_H
#define PCIERRD_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/pcierr.h>

#define PCIERR_CONFIG_FILE		"/etc/pcierr/pcierrd.conf"
#define PCIERR_CONFIG_DROPIN_DIR	"/etc/pcierr/pcierrd.conf.d"

/* Built-in defaults (design §6) */
#define PCIERR_DEFAULT_MAX_FREEZES		5U
#define PCIERR_DEFAULT_FREEZE_WINDOW_SEC	3600U
#define PCIERR_DEFAULT_MAX_WAIT_SEC		15U
#define PCIERR_DEFAULT_STEP_TIMEOUT_SEC		30U
#define PCIERR_DEFAULT_VERIFY_SEC		30U
/* err.c waits up to 60 s for a link after its reset, then runs drivers'
 * slot_reset (minutes for some SAS HBAs): well beyond a step */
#define PCIERR_DEFAULT_KERNEL_TIMEOUT_SEC	300U
#define PCIERR_DEFAULT_HISTORY_MAX		10000U
#define PCIERR_DEFAULT_HISTORY_MAX_AGE_SEC	31536000U	/* 365 days */

/* Ranges accepted by the parser, inclusive */
#define PCIERR_MAX_FREEZES_MAX		1000000U
#define PCIERR_FREEZE_WINDOW_SEC_MIN	1U
#define PCIERR_FREEZE_WINDOW_SEC_MAX	315360000U	/* 10 years */
#define PCIERR_MAX_WAIT_SEC_MIN		1U
#define PCIERR_MAX_WAIT_SEC_MAX		3600U
#define PCIERR_STEP_TIMEOUT_SEC_MIN	1U
#define PCIERR_STEP_TIMEOUT_SEC_MAX	86400U
#define PCIERR_VERIFY_SEC_MAX		3600U
#define PCIERR_DRIVER_NAME_MAX		64	/* with the NUL */
#define PCIERR_HISTORY_MAX_MAX		100000000U
#define PCIERR_HISTORY_MAX_AGE_SEC_MAX	3153600000U	/* 100 years */

/* How a device is recovered (Method=) */
enum pcierr_method {
	PCIERR_METHOD_AUTO,	/* callbacks where the drivers have them */
	PCIERR_METHOD_HOTPLUG,	/* always the hotplug path */
	__PCIERR_METHOD_MAX
};

/* The settings that apply to one device (after resolution). */
struct pcierr_settings {
	unsigned int max_freezes;
	unsigned int freeze_window_sec;
	unsigned int max_wait_sec;
	unsigned int step_timeout_sec;
	bool recover;
	enum pcierr_method method;
	unsigned int verify_sec;	/* 0: no verification */
	bool verify_escalate;
	unsigned int kernel_timeout_sec;
};

/* Which fields of an override's settings are set (bit per key) */
enum {
	PCIERR_SET_MAX_FREEZES		= 1U << 0,
	PCIERR_SET_FREEZE_WINDOW_SEC	= 1U << 1,
	PCIERR_SET_MAX_WAIT_SEC		= 1U << 2,
	PCIERR_SET_STEP_TIMEOUT_SEC	= 1U << 3,
	PCIERR_SET_RECOVER		= 1U << 4,
	PCIERR_SET_METHOD		= 1U << 5,
	PCIERR_SET_VERIFY_SEC		= 1U << 6,
	PCIERR_SET_VERIFY_ESCALATE	= 1U << 7,
	PCIERR_SET_KERNEL_TIMEOUT_SEC	= 1U << 8,
};

enum pcierr_match_type {
	PCIERR_MATCH_ADDRESS,		/* [Device DDDD:BB:DD.F] */
	PCIERR_MATCH_ID,		/* [Device VVVV:DDDD] */
	PCIERR_MATCH_VENDOR,		/* [Device VVVV:*] */
	PCIERR_MATCH_DRIVER,		/* [Driver NAME] */
};

struct pcierr_config_override {
	enum pcierr_match_type type;
	char addr[PCIERR_ADDR_MAX];	/* normalised "%04x:%02x:%02x.%x" */
	uint16_t vendor;
	uint16_t device;
	char driver[PCIERR_DRIVER_NAME_MAX];	/* DRIVER */
	unsigned int set;		/* PCIERR_SET_* */
	struct pcierr_settings settings;
};

struct pcierr_config {
	struct pcierr_settings defaults;	/* [Policy] */
	char *metrics_path;			/* NULL: no metrics */
	/* [Policy] AutoRecover=: pcierrd arms a PE (PCIERR_CMD_ARM) when its
	 * next freeze would be recovered by the callback path */
	bool auto_recover;
	/*
	 * [State] history retention, for state.c: keep at most history_max
	 * rows (0: no limit by count) and none older than
	 * history_max_age_usec (0: no limit by age).
	 */
	unsigned int history_max;		/* HistoryMax= */
	uint64_t history_max_age_usec;		/* HistoryMaxAgeSec= x 1e6 */
	struct pcierr_config_override *overrides;
	size_t n_overrides;
};

/* Where and why parsing failed. file is "" when no file was involved. */
struct pcierr_config_error {
	char file[PATH_MAX];
	unsigned int line;		/* 1-based; 0: not about a line */
	int error;			/* negative errno (-EINVAL for syntax) */
	char message[256];
};

/* Built-in defaults, no overrides. Never fails. */
void pcierr_config_init(struct pcierr_config *c);
/* Frees what the config owns and leaves it as after init. */
void pcierr_config_done(struct pcierr_config *c);

/*
 * Parse one file's text into c, on top of what c holds already (later
 * settings override earlier ones). filename is only used in errors.
 * Returns 0, or a negative errno with *err filled in (err may be NULL);
 * on error c stays valid (freeable) but may hold part of the file.
 */
int pcierr_config_parse_file(struct pcierr_config *c, FILE *f,
			     const char *filename,
			     struct pcierr_config_error *err);
int pcierr_config_parse_string(struct pcierr_config *c, const char *text,
			       const char *filename,
			       struct pcierr_config_error *err);

/*
 * Load main_path (missing is fine) and then dropin_dir/ *.conf (a missing
 * directory is fine) in lexical order into a fresh configuration. On
 * success *c is replaced (the old one freed); on error *c is untouched.
 * NULL paths select the defaults PCIERR_CONFIG_FILE / _DROPIN_DIR.
 */
int pcierr_config_load(struct pcierr_config *c, const char *main_path,
		       const char *dropin_dir,
		       struct pcierr_config_error *err);

/*
 * The settings for one device (or PE): addr may be NULL; has_ids says
 * whether vendor/device are known. Address overrides beat vendor:device,
 * which beat vendor:*, which beat [Policy], key by key.
 */
void pcierr_config_resolve(const struct pcierr_config *c, const char *addr,
			   bool has_ids, uint16_t vendor, uint16_t device,
			   struct pcierr_settings *ret);
/* ... and with the driver bound to it (NULL or "": none or unknown), whose
 * [Driver NAME] section sits between vendor:device and vendor:* */
void pcierr_config_resolve_driver(const struct pcierr_config *c, const char *addr,
				  bool has_ids, uint16_t vendor, uint16_t device,
				  const char *driver, struct pcierr_settings *ret);

const char *pcierr_method_to_string(enum pcierr_method m);

/*
 * "DDDD:BB:DD.F" or "BB:DD.F" (hex, any case) -> normalised lower-case
 * "%04x:%02x:%02x.%x" in ret. 0 or -EINVAL.
 */
int pcierr_parse_pci_address(const char *s, char ret[PCIERR_ADDR_MAX]);

#endif /* PCIERRD_CONFIG_H */

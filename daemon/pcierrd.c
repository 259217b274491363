// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrd: decides how PCI slots recover from errors (design §4, §6) and
 * shows it all on D-Bus (docs/dbus.md).
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "bus.h"
#include "bus-polkit.h"
#include "log.h"
#include "manager.h"
#include "start.h"
#include "state-writer.h"

#define DEFAULT_STATE_DIR	"/var/lib/pcierr"
#define STATE_FILE		"state.db"

struct options {
	const char *config;
	const char *config_dir;
	const char *state_dir;
	bool use_bus;
	enum log_target log_target;
	int log_level;
};

static void help(void)
{
	printf("Usage: pcierrd [OPTIONS]\n\n"
	       "Recovers PCI slots from errors the pcierr_shim kernel module detects,\n"
	       "and from the kernel's own AER recovery; serves org.pcierr1 on the system bus.\n\n"
	       "  -c --config=FILE       configuration file (default " PCIERR_CONFIG_FILE ")\n"
	       "  -C --config-dir=DIR    drop-in directory (default " PCIERR_CONFIG_DROPIN_DIR ")\n"
	       "  -s --state-dir=DIR     where the state database lives\n"
	       "                         (default $STATE_DIRECTORY or " DEFAULT_STATE_DIR ")\n"
	       "     --no-bus            do not connect to D-Bus\n"
	       "     --log-target=TARGET auto, console or journal (default auto)\n"
	       "     --log-level=LEVEL   err, warning, notice, info or debug (default info)\n"
	       "  -h --help              this help\n"
	       "     --version           the version\n\n"
	       "See pcierrd(8), pcierrd.conf(5) and docs/dbus.md.\n");
}

enum {
	ARG_NO_BUS = 0x100,
	ARG_LOG_TARGET,
	ARG_LOG_LEVEL,
	ARG_VERSION,
};

/* 1: go on; 0: exit 0 (help, version); < 0: usage error */
static int parse_argv(int argc, char *argv[], struct options *o)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "config-dir", required_argument, NULL, 'C' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "no-bus", no_argument, NULL, ARG_NO_BUS },
		{ "log-target", required_argument, NULL, ARG_LOG_TARGET },
		{ "log-level", required_argument, NULL, ARG_LOG_LEVEL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:C:s:h", opts, NULL)) >= 0) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'C':
			o->config_dir = optarg;
			break;
		case 's':
			o->state_dir = optarg;
			break;
		case ARG_NO_BUS:
			o->use_bus = false;
			break;
		case ARG_LOG_TARGET:
			if (log_parse_target(optarg, &o->log_target) < 0) {
				fprintf(stderr, "pcierrd: invalid --log-target '%s': expected auto, console or journal\n",
					optarg);
				return -EINVAL;
			}
			break;
		case ARG_LOG_LEVEL:
			if (log_parse_level(optarg, &o->log_level) < 0) {
				fprintf(stderr, "pcierrd: invalid --log-level '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("pcierrd %s\n", PCIERR_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'pcierrd --help'.\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pcierrd: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 1;
}

/* Move a damaged or foreign database (and its -wal/-shm) aside:
 * <path>.corrupt-<UTC time> */
static int move_aside(const char *path, char *aside, size_t size)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		snprintf(stamp, sizeof(stamp), "%lld", (long long)t);
	snprintf(aside, size, "%s.corrupt-%s", path, stamp);
	for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
		_cleanup_free_ char *from = NULL, *to = NULL;

		if (asprintf(&from, "%s%s", path, suffixes[i]) < 0 ||
		    asprintf(&to, "%s%s", aside, suffixes[i]) < 0)
			return -ENOMEM;
		if (rename(from, to) < 0 && errno != ENOENT)
			return -errno;
	}
	return 0;
}

static int try_open(const char *path, struct pcierr_state **ret)
{
	_cleanup_state_ struct pcierr_state *s = NULL;
	int r;

	r = pcierr_state_open(path, &s);
	if (r < 0)
		return r;
	r = pcierr_state_check(s);
	if (r < 0) {
		/* keep its words for the log */
		log_debug("State check of %s: %s", path, pcierr_state_errmsg(s));
		return r;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

/*
 * Bad state, clear outcome (review M7): a database that is damaged,
 * truncated or written by a newer pcierrd is moved aside, a fresh one is
 * made, the journal says so (PCIERR_MESSAGE_STATE_RESET) and recovery
 * goes on. Only when even a fresh one cannot be made does pcierrd run
 * without a store (freeze counts then live until it stops).
 */
static int open_state(struct manager *m, const char *dir)
{
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		log_error_errno(errno, "Failed to create the state directory %s: %m", dir);
	if (asprintf(&m->state_path, "%s/" STATE_FILE, dir) < 0)
		return log_error_errno(ENOMEM, "Out of memory.");
	r = try_open(m->state_path, &m->state);
	if (r == -EBADMSG || r == -EPROTO || r == -EIO) {
		char aside[PATH_MAX], reason[300];
		int k;

		snprintf(reason, sizeof(reason), "%s", r == -EPROTO ?
			 "written by a newer pcierrd" : pcierr_state_errmsg(NULL)[0] ?
			 pcierr_state_errmsg(NULL) : "damaged");
		k = move_aside(m->state_path, aside, sizeof(aside));
		if (k < 0)
			log_error_errno(k, "Failed to move the state database %s aside: %m", m->state_path);
		else {
			const char *extra[] = { NULL, NULL };
			char field[PATH_MAX + 32];

			snprintf(field, sizeof(field), "PCIERR_STATE_ASIDE=%s", aside);
			extra[0] = field;
			log_struct(LOG_CRIT, PCIERR_MESSAGE_STATE_RESET, "-", NULL, extra,
				   "The state database %s could not be used (%s); moved to %s, starting with a fresh one: freeze counts and disabled cards are forgotten.",
				   m->state_path, reason, aside);
			r = try_open(m->state_path, &m->state);
		}
	}
	if (r < 0) {
		log_error_errno(r, "Failed to open the state database %s: %m (%s); running without a state store.",
				m->state_path, pcierr_state_errmsg(NULL));
		m->state = NULL;
		return 0;
	}
	if (!pcierr_state_is_wal(m->state))
		log_warning("The state database %s is not in WAL mode (the filesystem lacks shared memory?): reads may wait for the writer.",
			    m->state_path);
	r = state_writer_new(m->state_path, m->config.history_max,
			     m->config.history_max_age_usec, &m->writer);
	if (r < 0) {
		log_error_errno(r, "Failed to start the state writer: %m; running without a state store.");
		m->state = pcierr_state_close(m->state);
	}
	return 0;
}

/*
 * glibc raises its mmap threshold to the largest block freed and then
 * serves blocks of that size from the heap, which it seldom gives back: a
 * caller's 1 MiB D-Bus message (any local user may send one) stayed in
 * pcierrd's RSS (measured in the VM: heap 0.5 -> 5.4 MiB after one round
 * of bus-abuse malformed). A fixed threshold keeps such buffers mapped, and
 * freeing one unmaps it.
 */
static void heap_keep_small(void)
{
	/* a sanitizer's allocator refuses it, and has no such threshold */
	if (mallopt(M_MMAP_THRESHOLD, 128 * 1024) != 1)
		log_debug("The allocator did not take M_MMAP_THRESHOLD; large D-Bus messages may grow the heap.");
}

static int run(int argc, char *argv[])
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	struct pcierr_config_error err = { 0 };
	struct options o = {
		.config = PCIERR_CONFIG_FILE,
		.config_dir = PCIERR_CONFIG_DROPIN_DIR,
		.use_bus = true,
		.log_target = LOG_TARGET_AUTO,
		.log_level = LOG_INFO,
	};
	int r;

	r = parse_argv(argc, argv, &o);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	log_setup(o.log_target, o.log_level);
	heap_keep_small();
	if (!o.state_dir)
		o.state_dir = getenv("STATE_DIRECTORY") ?: DEFAULT_STATE_DIR;

	r = manager_new(&m);
	if (r < 0)
		return log_error_errno(r, "Failed to allocate the manager: %m"), 1;

	/* a bad configuration is refused, never guessed at */
	r = pcierr_config_load(&m->config, o.config, o.config_dir, &err);
	if (r < 0) {
		if (err.line > 0)
			log_error("%s:%u: %s", err.file, err.line, err.message);
		else
			log_error("%s: %s", err.file[0] ? err.file : o.config, err.message);
		log_error("Refusing to start with a bad configuration.");
		sd_notifyf(false, "STATUS=Bad configuration: %s", err.message);
		return 1;
	}

	r = open_state(m, o.state_dir);
	if (r < 0)
		return 1;

	r = manager_prepare(m, o.use_bus);
	if (r < 0)
		return 1;
	if (m->bus) {
		r = bus_setup(m);
		if (r < 0) {
			log_error_errno(r, "Failed to register the D-Bus objects: %m");
			return 1;
		}
	}
	/*
	 * The name first, then the start-up resync (review U9): the resync
	 * may take up a frozen PE, and its signals must come from
	 * org.pcierr1, or a client matching on that sender never sees them.
	 * Calls that arrive meanwhile wait in the socket until the loop runs.
	 * And a second pcierrd fails here, before it acts on any PE.
	 */
	if (m->bus) {
		r = bus_request_name(m);
		if (r < 0) {
			log_error_errno(r, "Failed to acquire the bus name " PCIERR_BUS_NAME ": %m");
			return 1;
		}
	}
	r = pcierrd_start(m);
	if (r < 0)
		return 1;

	log_info("pcierrd %s started (%zu slots).", PCIERR_VERSION, m->n_slots);
	sd_notifyf(false, "READY=1\nSTATUS=%s", m->kernel_connected ?
		   "Watching PCI slots." : "Kernel shim not loaded; waiting for it.");

	r = sd_event_loop(m->event);
	sd_notify(false, "STOPPING=1\nSTATUS=Shutting down.");
	/* polkit checks still pending: dropped before the bus closes */
	bus_polkit_flush();
	bus_manager_flush();
	if (r < 0) {
		log_error_errno(r, "Event loop failed: %m");
		return 1;
	}
	if (r > 0) {
		/* the bus went away (exit-on-disconnect): a failure, so that
		 * systemd restarts pcierrd (review L1) */
		log_error("Lost the connection to the system bus; exiting with a failure.");
		return 1;
	}
	log_info("pcierrd stopped.");
	return 0;
}

int main(int argc, char *argv[])
{
	return run(argc, argv);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrd: decides how PCI slots recover from errors (design §4, §6) and
 * shows it all on D-Bus (docs/dbus.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"

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

static int open_state(struct manager *m, const char *dir)
{
	int r;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return log_error_errno(errno, "Failed to create the state directory %s: %m", dir);
	if (asprintf(&m->state_path, "%s/" STATE_FILE, dir) < 0)
		return log_error_errno(ENOMEM, "Out of memory.");
	r = pcierr_state_open(m->state_path, &m->state);
	if (r < 0)
		return log_error_errno(r, "Failed to open the state database %s: %m", m->state_path);
	return 0;
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

	r = manager_start(m, o.use_bus);
	if (r < 0)
		return 1;

	log_info("pcierrd %s started (%zu slots).", PCIERR_VERSION, m->n_slots);
	sd_notifyf(false, "READY=1\nSTATUS=%s", m->kernel_connected ?
		   "Watching PCI slots." : "Kernel shim not loaded; waiting for it.");

	r = sd_event_loop(m->event);
	sd_notify(false, "STOPPING=1\nSTATUS=Shutting down.");
	if (r < 0)
		return log_error_errno(r, "Event loop failed: %m"), 1;
	log_info("pcierrd stopped.");
	return 0;
}

int main(int argc, char *argv[])
{
	return run(argc, argv);
}

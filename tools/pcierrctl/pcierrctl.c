// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl: watch and act on PCI error recovery through pcierrd, over
 * D-Bus only (org.pcierr1, docs/dbus.md), as systemctl talks to systemd.
 *
 * The subcommands are the verbs[] table below. Exit status: 0 success,
 * 1 failure (also an unknown address, a recovery that did not succeed),
 * 2 wrong usage (also a malformed address: found before connecting).
 */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl-bus.h"
#include "ctl-macro.h"
#include "ctl-wait.h"
#include "format.h"
#include "output.h"
#include "pager.h"

#ifndef PCIERR_VERSION
#define PCIERR_VERSION "0.1"
#endif

#define EXIT_USAGE		2
#define DEFAULT_TIMEOUT_USEC	(120 * USEC_PER_SEC)

/* verb-specific options: which verb takes which */
enum {
	OPT_STATE = 1U << 0,
	OPT_UNAVAILABLE = 1U << 1,
	OPT_FUNDAMENTAL = 1U << 2,
	OPT_NO_BLOCK = 1U << 3,
	OPT_TIMEOUT = 1U << 4,
	OPT_SINCE = 1U << 5,
	OPT_LINES = 1U << 6,
};

static bool arg_json;
static bool arg_json_pretty;
static bool arg_ask_password = true;
static bool arg_no_pager;
static bool arg_legend = true;
static bool arg_quiet;
static bool arg_no_block;
static bool arg_fundamental;
static const char *arg_host;
static const char *arg_machine;
static const char *arg_state = "frozen";
static uint32_t arg_unavailable_ms;
static uint64_t arg_timeout_usec = DEFAULT_TIMEOUT_USEC;
static uint64_t arg_since_usec;
static uint32_t arg_lines;
static unsigned arg_verb_opts;		/* the verb-specific options given */
static struct ctl_style arg_style;

static uint64_t now_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

/* 0 and the canonical address, or a message and -EINVAL */
static int parse_address_arg(const char *s, char ret[PCIERR_ADDR_STRLEN])
{
	if (ctl_parse_address(s, ret) < 0) {
		log_error("Invalid PCI address '%s': expected DDDD:BB:DD.F or BB:DD.F "
			  "(for example 0000:01:00.0 or 01:00.0).", s);
		return -EINVAL;
	}
	return 0;
}

static int unknown_address(const char *addr)
{
	log_error("No PCI slot or device %s is known to pcierrd "
		  "(pcierrctl list shows them).", addr);
	return EXIT_FAILURE;
}

static int output_result(int r)
{
	if (r < 0) {
		if (r != -EPIPE)
			log_error("Failed to write the output: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The verbs                                                           */
/* ------------------------------------------------------------------ */

static int load_model(sd_bus *bus, struct ctl_model *m)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r = ctl_load_model(bus, m, &error);

	if (r < 0)
		ctl_log_bus_error(&error, r, "read the slots and devices of pcierrd", NULL);
	return r;
}

static int load_status(sd_bus *bus, struct ctl_model *m)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r = ctl_load_status(bus, m, &error);

	if (r < 0)
		ctl_log_bus_error(&error, r, "read the slots and devices of pcierrd", NULL);
	return r;
}

static int verb_status(int argc, char *argv[], sd_bus *bus)
{
	struct ctl_model m = {};
	char addr[PCIERR_ADDR_STRLEN];
	const struct ctl_slot *s = NULL;
	int r;

	if (argc > 1 && parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	if (load_status(bus, &m) < 0)
		return EXIT_FAILURE;
	if (argc > 1) {
		s = ctl_model_find_slot_for(&m, addr);
		if (!s) {
			ctl_model_done(&m);
			return unknown_address(addr);
		}
	}
	pager_open(arg_no_pager);
	if (arg_json)
		r = ctl_json_status(stdout, arg_json_pretty, &m, s ? s->address : NULL);
	else
		r = ctl_render_status(stdout, &arg_style, &m, s ? s->address : NULL,
				      arg_legend, now_realtime());
	ctl_model_done(&m);
	return output_result(r);
}

static int verb_list(int argc, char *argv[], sd_bus *bus)
{
	struct ctl_model m = {};
	int r;

	if (load_model(bus, &m) < 0)
		return EXIT_FAILURE;
	pager_open(arg_no_pager);
	if (arg_json)
		r = ctl_json_list(stdout, arg_json_pretty, &m);
	else
		r = ctl_render_list(stdout, &arg_style, &m, arg_legend);
	ctl_model_done(&m);
	return output_result(r);
}

static int verb_show(int argc, char *argv[], sd_bus *bus)
{
	struct ctl_model m = {};
	char addr[PCIERR_ADDR_STRLEN];
	const struct ctl_slot *s;
	const struct ctl_device *d;
	int r;

	if (parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	if (load_model(bus, &m) < 0)
		return EXIT_FAILURE;
	s = ctl_model_find_slot(&m, addr);
	d = ctl_model_find_device(&m, addr);
	if (!s && !d) {
		ctl_model_done(&m);
		return unknown_address(addr);
	}
	pager_open(arg_no_pager);
	if (arg_json)
		r = ctl_json_show(stdout, arg_json_pretty, s, d);
	else
		r = ctl_render_show(stdout, s, d);
	ctl_model_done(&m);
	return output_result(r);
}

static int verb_stats(int argc, char *argv[], sd_bus *bus)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct ctl_manager m = {};
	int r;

	r = ctl_load_manager(bus, &m, &error);
	if (r < 0) {
		ctl_log_bus_error(&error, r, "read the counters of pcierrd", NULL);
		return EXIT_FAILURE;
	}
	pager_open(arg_no_pager);
	if (arg_json)
		r = ctl_json_stats(stdout, arg_json_pretty, &m);
	else
		r = ctl_render_stats(stdout, &arg_style, &m, arg_legend);
	ctl_manager_done(&m);
	return output_result(r);
}

static int verb_history(int argc, char *argv[], sd_bus *bus)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct ctl_history_entry *e = NULL;
	char addr[PCIERR_ADDR_STRLEN] = "";
	size_t n = 0;
	int r;

	if (argc > 1 && parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	r = ctl_get_history(bus, arg_since_usec, addr, arg_lines, &e, &n, &error);
	if (r < 0) {
		ctl_log_bus_error(&error, r, "read the history", NULL);
		return EXIT_FAILURE;
	}
	pager_open(arg_no_pager);
	if (arg_json)
		r = ctl_json_history(stdout, arg_json_pretty, e, n);
	else
		r = ctl_render_history(stdout, &arg_style, e, n, arg_legend);
	ctl_history_free(e, n);
	return output_result(r);
}

static int verb_monitor(int argc, char *argv[], sd_bus *bus)
{
	/* every line as it comes, also into a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return ctl_monitor(bus, &arg_style, arg_json, arg_legend) < 0 ? EXIT_FAILURE :
	       EXIT_SUCCESS;
}

/* a method on one address that changes something; no reply wanted */
static int call_simple(sd_bus *bus, const char *method, const char *addr,
		       const char *what, const char *privileged)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	char words[128];
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
			       method, &error, NULL, "s", addr);
	if (r < 0) {
		snprintf(words, sizeof(words), "%s %s", what, addr);
		ctl_log_bus_error(&error, r, words, privileged);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

static int verb_enable(int argc, char *argv[], sd_bus *bus)
{
	char addr[PCIERR_ADDR_STRLEN];

	if (parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	return call_simple(bus, "Enable", addr, "enable", "enable slots");
}

static int verb_clear(int argc, char *argv[], sd_bus *bus)
{
	char addr[PCIERR_ADDR_STRLEN];

	if (parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	return call_simple(bus, "ClearFreezeCount", addr, "clear the freeze count of",
			   "clear freeze counts");
}

/*
 * reset and inject: find the slot, subscribe to its signals, call the
 * method, then (unless --no-block) follow the recovery to its end.
 */
static int act_and_wait(sd_bus *bus, const char *addr, bool inject)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *slot = NULL;
	struct ctl_wait *w = NULL;
	struct ctl_recovery rec;
	char what[128], span[CTL_TIMESPAN_MAX];
	uint64_t seq = 0;
	int r, ret;

	r = ctl_get_slot_address(bus, addr, &slot, &error);
	if (r < 0 && sd_bus_error_has_names(&error, SD_BUS_ERROR_INVALID_ARGS,
					    "org.pcierr1.Error.NoSuchDevice")) {
		int connected = 1;

		/* no slots at all: say why */
		if (sd_bus_get_property_trivial(bus, CTL_BUS_NAME, CTL_BUS_PATH,
						CTL_BUS_MANAGER_IFACE, "KernelConnected",
						NULL, 'b', &connected) >= 0 && !connected) {
			log_error("Failed to %s %s: the kernel shim is not loaded "
				  "(modprobe pcierr_shim).", inject ? "inject an error on" : "reset",
				  addr);
			return EXIT_FAILURE;
		}
	}
	if (r < 0) {
		snprintf(what, sizeof(what), "find the slot of %s", addr);
		ctl_log_bus_error(&error, r, what, NULL);
		return EXIT_FAILURE;
	}
	if (!arg_no_block) {
		r = ctl_wait_new(bus, slot, &arg_style, !arg_json && !arg_quiet, &w);
		if (r < 0)
			return EXIT_FAILURE;
	}

	if (inject)
		r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
				       "Inject", &error, &reply, "ssu", addr, arg_state,
				       arg_unavailable_ms);
	else
		r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
				       "Reset", &error, &reply, "ss", addr,
				       arg_fundamental ? "fundamental" : "hot");
	if (r < 0) {
		snprintf(what, sizeof(what), "%s %s", inject ? "inject an error on" : "reset",
			 addr);
		ctl_log_bus_error(&error, r, what, inject ? "inject errors" : "reset slots");
		ctl_wait_free(w);
		return EXIT_FAILURE;
	}
	if (inject && sd_bus_message_read(reply, "t", &seq) <= 0)
		seq = 0;

	if (arg_no_block) {
		rec = (struct ctl_recovery) { .slot = slot, .has_seq = inject, .seq = seq };
		return arg_json ? output_result(ctl_json_recovery(stdout, arg_json_pretty, &rec)) :
		       EXIT_SUCCESS;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	r = ctl_wait_run(w, arg_timeout_usec);
	ctl_wait_recovery(w, &rec);
	rec.has_seq = inject;
	rec.seq = seq;
	if (r == -ETIMEDOUT) {
		rec.result = "timeout";
		log_error("Slot %s did not finish its recovery within %s; it goes on in pcierrd "
			  "(pcierrctl status %s).", slot,
			  ctl_format_timespan(span, sizeof(span), arg_timeout_usec), slot);
	} else if (r == -ESHUTDOWN)
		log_error("pcierrd stopped during the recovery of slot %s.", slot);
	else if (r == -EINTR)
		log_error("Stopped waiting; the recovery of slot %s goes on in pcierrd "
			  "(pcierrctl status %s).", slot, slot);

	ret = r == 0 && rec.result && strcmp(rec.result, "recovered") == 0 ?
	      EXIT_SUCCESS : EXIT_FAILURE;
	if (arg_json && (r == 0 || r == -ETIMEDOUT) &&
	    ctl_json_recovery(stdout, arg_json_pretty, &rec) < 0)
		ret = EXIT_FAILURE;
	ctl_wait_free(w);
	return ret;
}

static int verb_reset(int argc, char *argv[], sd_bus *bus)
{
	char addr[PCIERR_ADDR_STRLEN];

	if (parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	return act_and_wait(bus, addr, false);
}

static int verb_inject(int argc, char *argv[], sd_bus *bus)
{
	char addr[PCIERR_ADDR_STRLEN];

	if (parse_address_arg(argv[1], addr) < 0)
		return EXIT_FAILURE;
	return act_and_wait(bus, addr, true);
}

/*
 * Every verb's argument is an ADDRESS. The verbs that change something
 * (the polkit actions org.pcierr1.*) are asked with interactive
 * authorisation allowed and a polkit agent on the terminal, unless
 * --no-ask-password.
 */
static const struct verb {
	const char *name;
	int min_args;		/* after the verb */
	int max_args;
	unsigned opts;		/* the verb-specific options it takes */
	int (*fn)(int argc, char *argv[], sd_bus *bus);
	const char *args;
	const char *help;
} verbs[] = {
	{ "status", 0, 1, 0, verb_status, "[ADDRESS]",
	  "The slots and their devices as a tree (the default)" },
	{ "list", 0, 0, 0, verb_list, "",
	  "One line a device" },
	{ "show", 1, 1, 0, verb_show, "ADDRESS",
	  "Every property of a slot or device" },
	{ "inject", 1, 1, OPT_STATE | OPT_UNAVAILABLE | OPT_NO_BLOCK | OPT_TIMEOUT, verb_inject,
	  "ADDRESS", "Inject an error on a device and follow its recovery" },
	{ "reset", 1, 1, OPT_FUNDAMENTAL | OPT_NO_BLOCK | OPT_TIMEOUT, verb_reset, "ADDRESS",
	  "Recover a slot by a reset and follow it" },
	{ "enable", 1, 1, 0, verb_enable, "ADDRESS",
	  "Bring a permanently disabled slot back" },
	{ "clear", 1, 1, 0, verb_clear, "ADDRESS",
	  "Forget the freezes of a device" },
	{ "history", 0, 1, OPT_SINCE | OPT_LINES, verb_history, "[ADDRESS]",
	  "What happened, oldest first" },
	{ "monitor", 0, 0, 0, verb_monitor, "",
	  "Follow the errors and recoveries live until Ctrl-C" },
	{ "stats", 0, 0, 0, verb_stats, "",
	  "pcierrd's counters and policy (the Manager's properties)" },
};

static bool verb_changes_something(const struct verb *v)
{
	return v->fn == verb_inject || v->fn == verb_reset || v->fn == verb_enable ||
	       v->fn == verb_clear;
}

static void help(void)
{
	printf("Usage: %s [OPTIONS] [COMMAND] ...\n\n"
	       "Watch and act on PCI error recovery through pcierrd (org.pcierr1).\n\n"
	       "Commands:\n", program_invocation_short_name);
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		char left[64];

		snprintf(left, sizeof(left), "%s %s", verbs[i].name, verbs[i].args);
		printf("  %-22s %s\n", left, verbs[i].help);
	}
	printf("\nOptions:\n"
	       "  -h --help              Show this help\n"
	       "     --version           Show the version\n"
	       "     --json[=MODE]       JSON output: short (the default), pretty, or off\n"
	       "                         (--json=help lists them)\n"
	       "     --no-pager          Do not pipe the output into a pager\n"
	       "     --no-legend         No headers, summaries or hints\n"
	       "  -q --quiet             reset, inject: do not show the steps\n"
	       "     --no-ask-password   Do not ask for a password (polkit) when an action\n"
	       "                         needs one: fail instead\n"
	       "  -H --host=[USER@]HOST  Talk to pcierrd on a remote host (over SSH)\n"
	       "  -M --machine=NAME      Talk to pcierrd in a container\n"
	       "     --state=STATE       inject: frozen (the default) or perm-failure\n"
	       "     --unavailable=MS    inject: the expected unavailability (perm-failure)\n"
	       "     --fundamental       reset: a fundamental (power) reset, not a hot one\n"
	       "     --no-block          reset, inject: do not wait for the recovery\n"
	       "     --timeout=SEC       reset, inject: wait at most that long (default 120s;\n"
	       "                         0: no limit)\n"
	       "     --since=TIME        history: from then on (\"-1h\", \"today\",\n"
	       "                         \"2024-05-01 12:00\", \"@EPOCH\")\n"
	       "  -n --lines=N           history: the newest N entries\n\n"
	       "ADDRESS is a PCI address, DDDD:BB:DD.F or BB:DD.F. stats shows what pcierrd\n"
	       "counts; the kernel shim's own counters are not on D-Bus (see pcierrd.conf(5),\n"
	       "MetricsPath=). inject, reset, enable and clear are for root, or for whom\n"
	       "polkit allows (org.pcierr1.*). Exit status: 0 success, 1 failure (for reset\n"
	       "and inject: the slot was not recovered), 2 wrong usage or a malformed\n"
	       "ADDRESS.\n\n"
	       "See pcierrctl(8).\n");
}

enum {
	ARG_VERSION = 0x100,
	ARG_JSON,
	ARG_NO_PAGER,
	ARG_NO_LEGEND,
	ARG_STATE,
	ARG_UNAVAILABLE,
	ARG_FUNDAMENTAL,
	ARG_NO_BLOCK,
	ARG_TIMEOUT,
	ARG_SINCE,
	ARG_NO_ASK_PASSWORD,
};

static const struct {
	unsigned bit;
	const char *name;
} verb_opt_names[] = {
	{ OPT_STATE, "--state" },
	{ OPT_UNAVAILABLE, "--unavailable" },
	{ OPT_FUNDAMENTAL, "--fundamental" },
	{ OPT_NO_BLOCK, "--no-block" },
	{ OPT_TIMEOUT, "--timeout" },
	{ OPT_SINCE, "--since" },
	{ OPT_LINES, "--lines" },
};

/* 1: go on; 0: exit 0 (help, version); < 0: usage error (logged) */
static int parse_argv(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "json", optional_argument, NULL, ARG_JSON },
		{ "no-pager", no_argument, NULL, ARG_NO_PAGER },
		{ "no-legend", no_argument, NULL, ARG_NO_LEGEND },
		{ "quiet", no_argument, NULL, 'q' },
		{ "host", required_argument, NULL, 'H' },
		{ "machine", required_argument, NULL, 'M' },
		{ "state", required_argument, NULL, ARG_STATE },
		{ "unavailable", required_argument, NULL, ARG_UNAVAILABLE },
		{ "fundamental", no_argument, NULL, ARG_FUNDAMENTAL },
		{ "no-block", no_argument, NULL, ARG_NO_BLOCK },
		{ "timeout", required_argument, NULL, ARG_TIMEOUT },
		{ "since", required_argument, NULL, ARG_SINCE },
		{ "lines", required_argument, NULL, 'n' },
		{ "no-ask-password", no_argument, NULL, ARG_NO_ASK_PASSWORD },
		{}
	};
	uint64_t u;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "hqH:M:n:", opts, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("pcierrctl %s\n", PCIERR_VERSION);
			return 0;
		case ARG_JSON:
			/* as systemd's --json=: short, pretty, off, help */
			if (optarg && strcmp(optarg, "help") == 0) {
				puts("short\npretty\noff");
				return 0;
			}
			if (optarg && strcmp(optarg, "off") == 0) {
				arg_json = false;
				arg_json_pretty = false;
				break;
			}
			if (!optarg || strcmp(optarg, "short") == 0)
				arg_json_pretty = false;
			else if (strcmp(optarg, "pretty") == 0)
				arg_json_pretty = true;
			else {
				log_error("Unknown --json mode '%s': expected short, pretty or off "
					  "(--json=help).", optarg);
				return -EINVAL;
			}
			arg_json = true;
			break;
		case ARG_NO_ASK_PASSWORD:
			arg_ask_password = false;
			break;
		case ARG_NO_PAGER:
			arg_no_pager = true;
			break;
		case ARG_NO_LEGEND:
			arg_legend = false;
			break;
		case 'q':
			arg_quiet = true;
			break;
		case 'H':
			arg_host = optarg;
			break;
		case 'M':
			arg_machine = optarg;
			break;
		case ARG_STATE:
			if (strcmp(optarg, "frozen") == 0)
				arg_state = "frozen";
			else if (strcmp(optarg, "perm-failure") == 0 ||
				 strcmp(optarg, "perm_failure") == 0)
				arg_state = "perm_failure";
			else {
				log_error("Unknown state '%s': expected frozen or perm-failure.", optarg);
				return -EINVAL;
			}
			arg_verb_opts |= OPT_STATE;
			break;
		case ARG_UNAVAILABLE:
			errno = 0;
			u = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || u > UINT32_MAX) {
				log_error("Invalid --unavailable '%s': expected milliseconds "
					  "(0 to %u).", optarg, UINT32_MAX);
				return -EINVAL;
			}
			arg_unavailable_ms = (uint32_t)u;
			arg_verb_opts |= OPT_UNAVAILABLE;
			break;
		case ARG_FUNDAMENTAL:
			arg_fundamental = true;
			arg_verb_opts |= OPT_FUNDAMENTAL;
			break;
		case ARG_NO_BLOCK:
			arg_no_block = true;
			arg_verb_opts |= OPT_NO_BLOCK;
			break;
		case ARG_TIMEOUT:
			if (strcmp(optarg, "infinity") == 0)
				u = 0;
			else if (ctl_parse_timespan(optarg, USEC_PER_SEC, &u) < 0) {
				log_error("Invalid --timeout '%s': expected seconds or a time span "
					  "(\"90\", \"5min\"; 0 for no limit).", optarg);
				return -EINVAL;
			}
			arg_timeout_usec = u;
			arg_verb_opts |= OPT_TIMEOUT;
			break;
		case ARG_SINCE:
			if (ctl_parse_time(optarg, now_realtime(), &arg_since_usec) < 0) {
				log_error("Invalid --since '%s': expected a time such as \"-1h\", "
					  "\"30min ago\", \"today\", \"yesterday\", \"2024-05-01\", "
					  "\"2024-05-01 12:00:00\" or \"@EPOCH\".", optarg);
				return -EINVAL;
			}
			arg_verb_opts |= OPT_SINCE;
			break;
		case 'n':
			errno = 0;
			u = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || u > UINT32_MAX) {
				log_error("Invalid --lines '%s': expected a number.", optarg);
				return -EINVAL;
			}
			arg_lines = (uint32_t)u;
			arg_verb_opts |= OPT_LINES;
			break;
		case '?':
			return -EINVAL;
		default:
			return -EINVAL;
		}
	}
	if (arg_host && arg_machine) {
		log_error("--host and --machine cannot be given together.");
		return -EINVAL;
	}
	return 1;
}

static void setup_style(void)
{
	const char *term = getenv("TERM");
	const char *nc = getenv("NO_COLOR");
	const char *codeset;

	setlocale(LC_ALL, "");
	codeset = nl_langinfo(CODESET);
	arg_style.utf8 = codeset && strcmp(codeset, "UTF-8") == 0;
	/* colours only on a terminal (a pager started for one keeps them) */
	arg_style.color = !arg_json && isatty(STDOUT_FILENO) && !(nc && *nc) &&
			  !(term && strcmp(term, "dumb") == 0);
}

int main(int argc, char *argv[])
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const struct verb *verb = NULL;
	char *default_argv[] = { (char *)"status", NULL };
	char **vargv;
	int vargc, r;

	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : EXIT_SUCCESS;

	vargc = argc - optind;
	vargv = argv + optind;
	if (vargc == 0) {
		vargc = 1;
		vargv = default_argv;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (strcmp(verbs[i].name, vargv[0]) == 0)
			verb = &verbs[i];
	if (!verb) {
		log_error("Unknown command '%s' (%s --help lists them).", vargv[0],
			  program_invocation_short_name);
		return EXIT_USAGE;
	}
	if (vargc - 1 < verb->min_args) {
		log_error("%s: too few arguments: %s %s %s", verb->name,
			  program_invocation_short_name, verb->name, verb->args);
		return EXIT_USAGE;
	}
	if (vargc - 1 > verb->max_args) {
		log_error("%s: too many arguments: %s %s%s%s", verb->name,
			  program_invocation_short_name, verb->name,
			  *verb->args ? " " : "", verb->args);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < ELEMENTSOF(verb_opt_names); i++)
		if ((arg_verb_opts & verb_opt_names[i].bit) && !(verb->opts & verb_opt_names[i].bit)) {
			log_error("%s is not an option of %s.", verb_opt_names[i].name, verb->name);
			return EXIT_USAGE;
		}

	/* a malformed address is wrong usage, said before connecting */
	if (vargc > 1) {
		char addr[PCIERR_ADDR_STRLEN];

		if (parse_address_arg(vargv[1], addr) < 0)
			return EXIT_USAGE;
	}

	setup_style();
	if (ctl_bus_connect(arg_host, arg_machine, &bus) < 0)
		return EXIT_FAILURE;
	if (verb_changes_something(verb) && arg_ask_password && isatty(STDIN_FILENO)) {
		/*
		 * As systemctl: polkit may ask for a password, on this
		 * terminal (pkttyagent). Without a terminal nobody could
		 * answer: pcierrd then says authentication is required.
		 */
		(void)sd_bus_set_allow_interactive_authorization(bus, true);
		if (!arg_host && !arg_machine)
			ctl_polkit_agent_open();
	}

	r = verb->fn(vargc, vargv, bus);
	pager_close();
	ctl_polkit_agent_close();
	return r;
}

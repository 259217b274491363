// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierr-bench: the probes `make bench` runs in the test VM (bench/vm/).
 * Every time it prints is CLOCK_MONOTONIC in nanoseconds, the clock of the
 * shim's EVENT timestamp_ns, so that the guest-side figures of one run
 * can be subtracted from each other. It only measures: it asserts nothing.
 *
 *   pcierr-bench now          mono= and real= (CLOCK_REALTIME), read back to back
 *   pcierr-bench watch [--ready-file F]
 *       one line per pcierr notification (EVENT, OP_DONE, OVERFLOW) and per
 *       PCI uevent carrying ERROR_EVENT (the kernel's AER recovery), each
 *       with rx=, the time it was read; until SIGTERM
 *   pcierr-bench inject DEV...
 *       a software freeze (PCIERR_CMD_INJECT) of each DEV; prints t0= (taken
 *       just before each request), seq= (and dev= for several)
 *   pcierr-bench aer [-c MASK] [-u MASK] [-n COUNT] DEV
 *       COUNT (1) records to /dev/aer_inject (uncorrectable MASK, default
 *       the Surprise Down bit 0x20, or correctable MASK); prints t0= and t1=
 *   pcierr-bench time N CMD [ARGS...]
 *       runs CMD N times (stdout, stderr to /dev/null), one line per run:
 *       ms= (wall, monotonic) rc=
 *   pcierr-bench own NAME TIMEOUT_S CMD [ARGS...]
 *       starts CMD in the background and waits (polling the system bus
 *       every 2 ms, in process) until NAME has an owner; prints pid= ms=
 *   pcierr-bench gmo N
 *       N calls of org.pcierr1's GetManagedObjects on one connection:
 *       one line per call, us=
 *   pcierr-bench waitfor FILE FROM REGEX TIMEOUT_S
 *       until a line of FILE from line FROM on matches REGEX (ERE): prints
 *       it; exit status 1 after TIMEOUT_S
 *
 * Exit status: 0, 1 error, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pcierr/pcierr.h>
#include <systemd/sd-bus.h>

#define PROG "pcierr-bench"
#define _cleanup_(f) __attribute__((cleanup(f)))

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static const char *s_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static int usage(void)
{
	fprintf(stderr, "usage: %s now | watch [--ready-file F] | inject DEV |\n"
		"       aer [-c MASK] [-u MASK] [-n COUNT] DEV | time N CMD... |\n"
		"       own NAME TIMEOUT_S CMD... | gmo N | waitfor FILE FROM REGEX TIMEOUT_S\n", PROG);
	return 2;
}

/* ------------------------------------------------------------------ */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t rx_now;

static int on_note(struct pcierr_ctx *ctx, const struct pcierr_notification *n, void *ud)
{
	(void)ctx;
	(void)ud;
	switch (n->type) {
	case PCIERR_NOTIFY_EVENT:
		printf("ev rx=%" PRIu64 " ts=%" PRIu64 " seq=%" PRIu64 " pe=%s dev=%s source=%s\n",
		       rx_now, n->event.timestamp_ns, n->event.seq, n->event.pe, n->event.dev,
		       s_or_dash(pcierr_source_to_string(n->event.source)));
		break;
	case PCIERR_NOTIFY_OP_DONE:
		printf("op rx=%" PRIu64 " pe=%s op=%s step=%s result=%s errno=%d dur=%" PRIu64 "\n",
		       rx_now, n->op_done.pe, s_or_dash(pcierr_op_to_string(n->op_done.op)),
		       s_or_dash(pcierr_step_to_string(n->op_done.step)),
		       s_or_dash(pcierr_result_to_string(n->op_done.result)), n->op_done.error,
		       n->op_done.duration_ns);
		break;
	case PCIERR_NOTIFY_RECOVER_DONE: {
		/* one RECOVER (issue 12): the line, then one per step as a
		 * single-step OP_DONE would be, its rx derived: the kernel ran
		 * the steps back to back, each ended its later ones' durations
		 * before the RECOVER's completion was read (derived=1) */
		const struct pcierr_recover_done *d = &n->recover_done;
		uint64_t later = 0;

		printf("op rx=%" PRIu64 " pe=%s op=recover step=- result=%s errno=%d dur=%" PRIu64
		       " steps=%zu", rx_now, d->pe,
		       s_or_dash(pcierr_recover_stop_to_string(d->stop)), d->error, d->duration_ns,
		       d->n_steps);
		/* when it began by the shim's clock (the EVENT's): no read in it */
		if (d->start_ns)
			printf(" start=%" PRIu64, d->start_ns);
		printf("\n");
		for (size_t i = d->n_steps; i-- > 0;)
			later += i + 1 < d->n_steps ? d->steps[i + 1].duration_ns : 0;
		for (size_t i = 0; i < d->n_steps; i++) {
			const struct pcierr_recover_step *st = &d->steps[i];

			later -= i > 0 ? st->duration_ns : 0;
			printf("op rx=%" PRIu64 " pe=%s op=%s step=%s result=%s errno=%d dur=%" PRIu64
			       " derived=1\n", rx_now - later, d->pe,
			       s_or_dash(pcierr_op_to_string(st->op)),
			       s_or_dash(pcierr_step_to_string(st->step)),
			       s_or_dash(pcierr_result_to_string(st->result)), st->error,
			       st->duration_ns);
		}
		break;
	}
	case PCIERR_NOTIFY_OVERFLOW:
		printf("overflow rx=%" PRIu64 " dropped=%" PRIu64 "\n", rx_now,
		       n->overflow.dropped);
		break;
	default:
		break;
	}
	return 0;
}

/* a kernel uevent: "ACTION@DEVPATH\0KEY=VALUE\0..." */
static void on_uevent(const char *buf, size_t len)
{
	const char *ev = NULL, *slot = NULL, *online = NULL;

	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		const char *kv = buf + i;

		if (strncmp(kv, "ERROR_EVENT=", 12) == 0)
			ev = kv + 12;
		else if (strncmp(kv, "PCI_SLOT_NAME=", 14) == 0)
			slot = kv + 14;
		else if (strncmp(kv, "DEVICE_ONLINE=", 14) == 0)
			online = kv + 14;
	}
	if (ev)
		printf("uev rx=%" PRIu64 " dev=%s event=%s online=%s\n", rx_now, s_or_dash(slot),
		       ev, s_or_dash(online));
}

static int cmd_watch(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct pcierr_ctx *ctx = NULL;
	const char *ready = NULL;
	char buf[8192];
	int ufd, r;

	if (argc == 3 && strcmp(argv[1], "--ready-file") == 0)
		ready = argv[2];
	else if (argc != 1)
		return usage();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	r = pcierr_ctx_new(&ctx);
	if (r < 0 || !pcierr_events_joined(ctx)) {
		fprintf(stderr, "%s: watch: cannot join the pcierr events: %s\n", PROG,
			strerror(r < 0 ? -r : EPERM));
		return 1;
	}
	ufd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (ufd < 0 || bind(ufd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "%s: watch: uevent socket: %m\n", PROG);
		return 1;
	}
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0)
			close(fd);
	}
	while (!stop) {
		struct pollfd p[2] = {
			{ .fd = pcierr_event_fd(ctx), .events = POLLIN },
			{ .fd = ufd, .events = POLLIN },
		};

		if (poll(p, 2, -1) < 0)
			continue;
		rx_now = mono_ns();
		if (p[0].revents)
			(void)pcierr_event_read(ctx, on_note, NULL);
		if (p[1].revents) {
			ssize_t n = recv(ufd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

			if (n > 0) {
				buf[n] = 0;
				on_uevent(buf, (size_t)n);
			}
		}
		fflush(stdout);
	}
	pcierr_ctx_free(ctx);
	close(ufd);
	return 0;
}

/* ------------------------------------------------------------------ */

/* one freeze per device named, back to back on one connection (the PE
 * ids looked up first); one line per device: t0= seq= */
static int cmd_inject(int argc, char **argv)
{
	struct pcierr_ctx *ctx = NULL;
	uint64_t ids[16];
	int r;

	if (argc < 2 || argc - 1 > 16)
		return usage();
	r = pcierr_ctx_new(&ctx);
	for (int i = 1; r >= 0 && i < argc; i++) {
		struct pcierr_pe pe = {};

		r = pcierr_pe_get_by_device(ctx, argv[i], &pe);
		if (r < 0) {
			fprintf(stderr, "%s: inject: %s: %s\n", PROG, argv[i], strerror(-r));
			pcierr_ctx_free(ctx);
			return 1;
		}
		ids[i - 1] = pe.id;
		pcierr_pe_clear(&pe);
	}
	if (r < 0) {
		fprintf(stderr, "%s: inject: %s\n", PROG, strerror(-r));
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		uint64_t seq = 0, t0 = mono_ns();

		r = pcierr_inject(ctx, argv[i], ids[i - 1], PCIERR_STATE_FROZEN, 0, &seq);
		if (r < 0) {
			fprintf(stderr, "%s: inject: %s: %s\n", PROG, argv[i], strerror(-r));
			pcierr_ctx_free(ctx);
			return 1;
		}
		printf("t0=%" PRIu64 " seq=%" PRIu64 "%s%s\n", t0, seq, argc > 2 ? " dev=" : "",
		       argc > 2 ? argv[i] : "");
	}
	pcierr_ctx_free(ctx);
	return 0;
}

/* drivers/pci/pcie/aer_inject.c (see tests/tools/aer-inject.c) */
struct aer_error_inj {
	uint8_t bus, dev, fn;
	uint32_t uncor_status, cor_status;
	uint32_t header_log0, header_log1, header_log2, header_log3;
	uint32_t domain;
};

static int cmd_aer(int argc, char **argv)
{
	struct aer_error_inj e = {};
	unsigned long count = 1, busy = 0;
	unsigned int dom, bus, dev, fn;
	uint64_t t0, t1;
	int c, fd;

	e.uncor_status = 0x20;	/* Surprise Down: fatal by default */
	while ((c = getopt(argc, argv, "c:u:n:")) != -1) {
		switch (c) {
		case 'c':
			e.cor_status = (uint32_t)strtoul(optarg, NULL, 0);
			e.uncor_status = 0;
			break;
		case 'u':
			e.uncor_status = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1 ||
	    sscanf(argv[optind], "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return usage();
	e.domain = dom;
	e.bus = (uint8_t)bus;
	e.dev = (uint8_t)dev;
	e.fn = (uint8_t)fn;
	fd = open("/dev/aer_inject", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: aer: /dev/aer_inject: %m\n", PROG);
		return 1;
	}
	t0 = mono_ns();
	for (unsigned long i = 0; i < count; i++) {
		unsigned int tries = 0;

		/* back to back, the injected interrupt may still be pending
		 * (irq_inject_interrupt: EBUSY): wait for it, up to 10 s */
		while (write(fd, &e, sizeof(e)) != (ssize_t)sizeof(e)) {
			if (errno != EBUSY || ++tries > 10000) {
				fprintf(stderr, "%s: aer: write #%lu: %m\n", PROG, i + 1);
				close(fd);
				return 1;
			}
			busy++;
			usleep(1000);
		}
	}
	t1 = mono_ns();
	close(fd);
	printf("t0=%" PRIu64 " t1=%" PRIu64 " n=%lu busy=%lu\n", t0, t1, count, busy);
	return 0;
}

/* ------------------------------------------------------------------ */

static pid_t spawn(char **argv, bool quiet)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* never our stdout: a caller reading it ($(...)) would wait
		 * for a daemon started by "own" to close it */
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		if (quiet)
			dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int cmd_time(int argc, char **argv)
{
	long n;

	if (argc < 3 || (n = strtol(argv[1], NULL, 10)) <= 0)
		return usage();
	for (long i = 0; i < n; i++) {
		uint64_t t0 = mono_ns();
		pid_t pid = spawn(argv + 2, true);
		int st = 0;

		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 1;
		printf("ms=%.3f rc=%d\n", (double)(mono_ns() - t0) / 1e6,
		       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	return 0;
}

static int cmd_own(int argc, char **argv)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	uint64_t t0, limit;
	pid_t pid;
	int r;

	if (argc < 4)
		return usage();
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "%s: own: system bus: %s\n", PROG, strerror(-r));
		return 1;
	}
	limit = (uint64_t)strtoul(argv[2], NULL, 10) * 1000000000ULL;
	t0 = mono_ns();
	pid = spawn(argv + 3, false);
	if (pid < 0)
		return 1;
	while (mono_ns() - t0 < limit) {
		int st;

		r = sd_bus_get_name_creds(bus, argv[1], 0, NULL);
		if (r >= 0) {
			printf("pid=%d ms=%.3f\n", (int)pid, (double)(mono_ns() - t0) / 1e6);
			return 0;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			fprintf(stderr, "%s: own: %s exited before owning %s\n", PROG, argv[3],
				argv[1]);
			return 1;
		}
		usleep(2000);
	}
	fprintf(stderr, "%s: own: %s not owned within %s s\n", PROG, argv[1], argv[2]);
	printf("pid=%d ms=-1\n", (int)pid);
	return 1;
}

static int cmd_gmo(int argc, char **argv)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	long n;
	int r;

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) <= 0)
		return usage();
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "%s: gmo: system bus: %s\n", PROG, strerror(-r));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		_cleanup_(sd_bus_error_free) sd_bus_error err = SD_BUS_ERROR_NULL;
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		uint64_t t0 = mono_ns();

		r = sd_bus_call_method(bus, "org.pcierr1", "/org/pcierr1",
				       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
				       &err, &reply, "");
		if (r < 0) {
			fprintf(stderr, "%s: gmo: %s\n", PROG, err.message ?: strerror(-r));
			return 1;
		}
		printf("us=%.1f\n", (double)(mono_ns() - t0) / 1e3);
	}
	return 0;
}

/* wait until a line at or after line FROM (1-based) of FILE matches the
 * extended regular expression RE; polls every 20 ms in process (a shell
 * loop of tail and grep costs ~100 ms per round under TCG) */
static int cmd_waitfor(int argc, char **argv)
{
	uint64_t t0 = mono_ns(), limit;
	regex_t re;
	long from;

	if (argc != 5 || (from = strtol(argv[2], NULL, 10)) < 1)
		return usage();
	if (regcomp(&re, argv[3], REG_EXTENDED | REG_NOSUB) != 0) {
		fprintf(stderr, "%s: waitfor: bad expression %s\n", PROG, argv[3]);
		return 2;
	}
	limit = (uint64_t)strtoul(argv[4], NULL, 10) * 1000000000ULL;
	do {
		FILE *f = fopen(argv[1], "re");
		char *line = NULL;
		size_t size = 0;
		long n = 0;

		while (f && getline(&line, &size, f) >= 0)
			if (++n >= from && regexec(&re, line, 0, NULL, 0) == 0) {
				fputs(line, stdout);
				free(line);
				fclose(f);
				regfree(&re);
				return 0;
			}
		free(line);
		if (f)
			fclose(f);
		usleep(20000);
	} while (mono_ns() - t0 < limit);
	regfree(&re);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "now") == 0) {
		struct timespec rt;
		uint64_t mono = mono_ns();

		clock_gettime(CLOCK_REALTIME, &rt);
		printf("mono=%" PRIu64 " real=%" PRIu64 "\n", mono,
		       (uint64_t)((uint64_t)rt.tv_sec * 1000000000U + (uint64_t)rt.tv_nsec));
		return 0;
	}
	if (strcmp(argv[1], "watch") == 0)
		return cmd_watch(argc - 1, argv + 1);
	if (strcmp(argv[1], "inject") == 0)
		return cmd_inject(argc - 1, argv + 1);
	if (strcmp(argv[1], "aer") == 0)
		return cmd_aer(argc - 1, argv + 1);
	if (strcmp(argv[1], "time") == 0)
		return cmd_time(argc - 1, argv + 1);
	if (strcmp(argv[1], "own") == 0)
		return cmd_own(argc - 1, argv + 1);
	if (strcmp(argv[1], "gmo") == 0)
		return cmd_gmo(argc - 1, argv + 1);
	if (strcmp(argv[1], "waitfor") == 0)
		return cmd_waitfor(argc - 1, argv + 1);
	return usage();
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierr-nl: a small test CLI over libpcierr, one command per kernel
 * request, with line-oriented key=value output the VM scenarios parse.
 * The output format is a contract with tests/vm/: change it only with
 * them.
 *
 * Exit status: 0 success; 1 error (message on stderr); 2 usage; 3 timed
 * out waiting for an operation's completion; 4 the kernel module went
 * away (listen: after printing "family_removed"; an operation's wait:
 * its completion will never come).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <pcierr/pcierr.h>

#define PROG "pcierr-nl"

#define EXIT_USAGE	2
#define EXIT_TIMEOUT	3
#define EXIT_GONE	4

#define DEFAULT_OP_TIMEOUT_S 30.0

static const char *cmd_name = PROG;

static void errmsg_errno(int err, struct pcierr_ctx *ctx)
{
	const char *name;
	const char *kmsg = ctx ? pcierr_last_error_message(ctx) : NULL;

	if (err < 0)
		err = -err;
	name = strerrorname_np(err);
	if (err == EPROTONOSUPPORT)
		fprintf(stderr, "%s: %s: kernel module pcierr_shim not loaded (errno %s)\n",
			PROG, cmd_name, name ? name : "?");
	else if (err == ENOTCONN)
		fprintf(stderr, "%s: %s: kernel module pcierr_shim went away (errno %s)\n",
			PROG, cmd_name, name ? name : "?");
	else
		fprintf(stderr, "%s: %s: %s (errno %s)\n", PROG, cmd_name, strerror(err),
			name ? name : "?");
	if (kmsg)
		fprintf(stderr, "%s: %s: kernel says: %s\n", PROG, cmd_name, kmsg);
}

static int fail(int err, struct pcierr_ctx *ctx)
{
	errmsg_errno(err, ctx);
	return EXIT_FAILURE;
}

static int usage_msg(const char *msg)
{
	fprintf(stderr, "%s: %s: %s\nTry '%s help'.\n", PROG, cmd_name, msg, PROG);
	return EXIT_USAGE;
}

static int usage_bad(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s: bad %s '%s'\nTry '%s help'.\n", PROG, cmd_name, what, arg, PROG);
	return EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_u32(const char *s, uint32_t *ret)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0 || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

/* seconds, possibly fractional -> ms (>= 0) */
static int parse_seconds(const char *s, int *ret_ms)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0) || v * 1000.0 > INT_MAX)
		return -EINVAL;
	*ret_ms = (int)(v * 1000.0 + 0.5);
	return 0;
}

static int open_ctx(struct pcierr_ctx **ret)
{
	int r = pcierr_ctx_new(ret);

	if (r < 0)
		return fail(r, NULL);
	return 0;
}

/* An id no PE has (ids count up from the boot time in ns): what is sent
 * when the lookup found nothing, so that the kernel gives its own answer
 * (ENODEV for the address, ESTALE otherwise). */
#define PE_ID_NONE UINT64_MAX

/*
 * The PE id to name in a command on the PE at addr (by_device: the PE of
 * the device at addr): the one given (--pe-id), else the current one
 * (GET_PE), else PE_ID_NONE. Looking it up defeats the protection it
 * gives, which is fine for a test CLI: pcierrd passes the id it saw.
 */
static uint64_t pe_id_for(struct pcierr_ctx *ctx, const char *addr, bool by_device,
			  uint64_t given)
{
	struct pcierr_pe pe = {};
	uint64_t id = PE_ID_NONE;
	int r;

	if (given)
		return given;
	r = by_device ? pcierr_pe_get_by_device(ctx, addr, &pe) : pcierr_pe_get(ctx, addr, &pe);
	if (r >= 0 && (by_device || strcmp(pe.addr, addr) == 0))
		id = pe.id;
	pcierr_pe_clear(&pe);
	return id;
}

static int parse_pe_id(const char *s, uint64_t *ret)
{
	if (parse_u64(s, ret) < 0 || *ret == 0)
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static const char *str_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* "-", or ID:OP:ERRNO (running while in flight), REPORT's ID:STEP:ERRNO */
static void format_last_op(const struct pcierr_last_op *o, char *buf, size_t size)
{
	char err[16];

	if (!o->op_id) {
		snprintf(buf, size, "-");
		return;
	}
	if (o->done)
		snprintf(err, sizeof(err), "%d", o->error);
	else
		snprintf(err, sizeof(err), "running");
	snprintf(buf, size, "%" PRIu64 ":%s:%s", o->op_id,
		 str_or_dash(o->op == PCIERR_CMD_REPORT ? pcierr_step_to_string(o->step) :
			     pcierr_op_to_string(o->op)), err);
}

static void print_pe(const struct pcierr_pe *pe)
{
	const char *pe_state = str_or_dash(pcierr_pe_state_to_string(pe->state));
	char last[96];

	format_last_op(&pe->last_op, last, sizeof(last));
	if (pe->n_devices == 0) {
		printf("pe=%s pe_state=%s pe_flags=0x%" PRIx32 " dev=- vendor=- device=- class=- "
		       "driver=- handlers=- state=- gen=- pe_id=%" PRIu64 " last_op=%s\n", pe->addr,
		       pe_state, pe->flags, pe->id, last);
		return;
	}
	for (size_t i = 0; i < pe->n_devices; i++) {
		const struct pcierr_device *d = &pe->devices[i];
		char handlers[256];

		if (pcierr_handlers_to_string(d->handlers, handlers, sizeof(handlers)) < 0)
			snprintf(handlers, sizeof(handlers), "0x%" PRIx32, d->handlers);
		printf("pe=%s pe_state=%s pe_flags=0x%" PRIx32 " dev=%s vendor=%04x device=%04x "
		       "class=%06" PRIx32 " driver=%s handlers=%s state=%s gen=%" PRIu32
		       " pe_id=%" PRIu64 " dsn=%s last_op=%s\n",
		       pe->addr, pe_state, pe->flags, d->addr, d->vendor, d->device, d->class,
		       str_or_dash(d->driver), str_or_dash(handlers),
		       str_or_dash(pcierr_state_to_string(d->state)), d->error_gen, pe->id,
		       d->has_dsn ? "yes" : "no", last);
	}
}

static void print_op_done(const struct pcierr_op_done *d)
{
	printf("op_done op_id=%" PRIu64 " op=%s pe=%s step=%s result=%s errno=%d "
	       "duration_ns=%" PRIu64 " pe_state=%s pe_id=%" PRIu64 " results=",
	       d->op_id, str_or_dash(pcierr_op_to_string(d->op)), d->pe,
	       str_or_dash(pcierr_step_to_string(d->step)),
	       str_or_dash(pcierr_result_to_string(d->result)), d->error, d->duration_ns,
	       str_or_dash(pcierr_pe_state_to_string(d->pe_state)), d->pe_id);
	if (d->n_results == 0)
		fputs("-", stdout);
	for (size_t i = 0; i < d->n_results; i++)
		printf("%s%s:%s", i ? "," : "", d->results[i].addr,
		       str_or_dash(pcierr_result_to_string(d->results[i].result)));
	putchar('\n');
}

/* A RECOVER's end (PCIERR_CMD_RECOVER, or an armed PE's own): its steps
 * as STEP or OP names, "-" if none ran */
static void print_recover_done(const struct pcierr_recover_done *d)
{
	printf("recover_done op_id=%" PRIu64 " pe=%s stop=%s errno=%d duration_ns=%" PRIu64
	       " pe_state=%s pe_id=%" PRIu64 " steps=",
	       d->op_id, d->pe, str_or_dash(pcierr_recover_stop_to_string(d->stop)), d->error,
	       d->duration_ns, str_or_dash(pcierr_pe_state_to_string(d->pe_state)), d->pe_id);
	if (d->n_steps == 0)
		fputs("-", stdout);
	for (size_t i = 0; i < d->n_steps; i++) {
		const struct pcierr_recover_step *s = &d->steps[i];

		printf("%s%s", i ? "," : "",
		       str_or_dash(s->op == PCIERR_CMD_REPORT ? pcierr_step_to_string(s->step) :
				   pcierr_op_to_string(s->op)));
	}
	putchar('\n');
}

static void print_notification(const struct pcierr_notification *n)
{
	switch (n->type) {
	case PCIERR_NOTIFY_EVENT: {
		const struct pcierr_event *e = &n->event;

		printf("event seq=%" PRIu64 " pe=%s dev=%s state=%s source=%s unavail_ms=%" PRIu32
		       " gen=%" PRIu32 " ts=%" PRIu64 " pe_id=%" PRIu64, e->seq, e->pe, e->dev,
		       str_or_dash(pcierr_state_to_string(e->state)),
		       str_or_dash(pcierr_source_to_string(e->source)), e->time_unavail_ms,
		       e->error_gen, e->timestamp_ns, e->pe_id);
		/* an armed PE's own RECOVER (PCIERR_CMD_ARM) */
		if (e->auto_op_id)
			printf(" auto_op_id=%" PRIu64, e->auto_op_id);
		printf("\n");
		break;
	}
	case PCIERR_NOTIFY_OP_DONE:
		print_op_done(&n->op_done);
		break;
	case PCIERR_NOTIFY_OVERFLOW:
		printf("overflow dropped=%" PRIu64 " seq=%" PRIu64 "%s\n", n->overflow.dropped,
		       n->overflow.next_seq,
		       n->overflow.reason == PCIERR_OVERFLOW_SOCKET ? " reason=socket" :
		       n->overflow.reason == PCIERR_OVERFLOW_BAD_MESSAGE ? " reason=bad_message" : "");
		break;
	case PCIERR_NOTIFY_FAMILY_REMOVED:
		printf("family_removed family_id=%d\n", n->family.family_id);
		break;
	case PCIERR_NOTIFY_FAMILY_ADDED:
		printf("family_added family_id=%d\n", n->family.family_id);
		break;
	case PCIERR_NOTIFY_RECOVER_DONE:
		print_recover_done(&n->recover_done);
		break;
	default:
		printf("unknown type=%d\n", (int)n->type);
		break;
	}
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Queries                                                             */
/* ------------------------------------------------------------------ */

static int cmd_dump(int argc, char **argv)
{
	struct pcierr_ctx *ctx = NULL;
	struct pcierr_pe_list list = {};
	int r;

	if (argc != 1)
		return usage_msg("takes no arguments");
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	r = pcierr_pe_dump(ctx, &list);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	for (size_t i = 0; i < list.n_pes; i++)
		print_pe(&list.pes[i]);
	pcierr_pe_list_clear(&list);
	pcierr_ctx_free(ctx);
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int cmd_pe(int argc, char **argv)
{
	struct pcierr_ctx *ctx = NULL;
	struct pcierr_pe pe = {};
	char addr[PCIERR_ADDR_STRLEN];
	int r;

	if (argc != 2)
		return usage_msg("usage: pe ADDR");
	if (pcierr_addr_normalize(argv[1], addr) < 0)
		return usage_bad("address", argv[1]);
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	r = pcierr_pe_get(ctx, addr, &pe);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	print_pe(&pe);
	pcierr_pe_clear(&pe);
	pcierr_ctx_free(ctx);
	return EXIT_SUCCESS;
}

static int cmd_stats(int argc, char **argv)
{
	struct pcierr_ctx *ctx = NULL;
	struct pcierr_stats stats;
	int r;

	if (argc != 1)
		return usage_msg("takes no arguments");
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	r = pcierr_stats_get(ctx, &stats);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	for (int i = 1; i <= PCIERR_STAT_MAX; i++) {
		const char *name = pcierr_stat_to_string(i);

		if (name)
			printf("%s=%" PRIu64 "\n", name, stats.counter[i]);
	}
	pcierr_ctx_free(ctx);
	return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Injection and notifications                                         */
/* ------------------------------------------------------------------ */

static int parse_state_opt(const char *s, enum pcierr_channel_state *ret)
{
	int v = pcierr_state_from_string(s);

	if (v != PCIERR_STATE_FROZEN && v != PCIERR_STATE_PERM_FAILURE)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int cmd_inject(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state",   required_argument, NULL, 's' },
		{ "unavail", required_argument, NULL, 'u' },
		{ "pe-id",   required_argument, NULL, 'i' },
		{}
	};
	enum pcierr_channel_state state = PCIERR_STATE_UNSPEC;
	uint64_t pe_id = 0;
	uint32_t unavail = 0;
	struct pcierr_ctx *ctx = NULL;
	char dev[PCIERR_ADDR_STRLEN];
	uint64_t seq = 0;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_state_opt(optarg, &state) < 0)
				return usage_bad("--state", optarg);
			break;
		case 'u':
			if (parse_u32(optarg, &unavail) < 0)
				return usage_bad("--unavail", optarg);
			break;
		case 'i':
			if (parse_pe_id(optarg, &pe_id) < 0)
				return usage_bad("--pe-id", optarg);
			break;
		default:
			return usage_msg("usage: inject DEV [--state frozen|perm_failure] [--unavail MS] "
					 "[--pe-id ID]");
		}
	}
	if (argc - optind != 1)
		return usage_msg("usage: inject DEV [--state frozen|perm_failure] [--unavail MS] "
				 "[--pe-id ID]");
	if (pcierr_addr_normalize(argv[optind], dev) < 0)
		return usage_bad("address", argv[optind]);

	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	pe_id = pe_id_for(ctx, dev, true, pe_id);
	r = pcierr_inject(ctx, dev, pe_id, state, unavail, &seq);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	printf("seq=%" PRIu64 "\n", seq);
	pcierr_ctx_free(ctx);
	return EXIT_SUCCESS;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct listen_state {
	uint64_t left;		/* notifications still to print; 0: no limit */
	bool limited;
	bool gone;		/* FAMILY_REMOVED seen */
	const char *arm;	/* --arm PE: keep it armed, or NULL */
	bool rearm;		/* its RECOVER ended: arm it again */
};

static int on_notification(struct pcierr_ctx *ctx, const struct pcierr_notification *n,
			   void *userdata)
{
	struct listen_state *st = userdata;

	print_notification(n);
	/* nothing more will come: stop (not counted by --count, as
	 * family_added, which does not stop) */
	if (n->type == PCIERR_NOTIFY_FAMILY_REMOVED) {
		st->gone = true;
		return -ECANCELED;
	}
	if (n->type == PCIERR_NOTIFY_FAMILY_ADDED)
		return 0;
	if (st->arm && n->type == PCIERR_NOTIFY_RECOVER_DONE &&
	    strcmp(n->recover_done.pe, st->arm) == 0)
		st->rearm = true;
	if (st->limited && --st->left == 0)
		return -ECANCELED;	/* stop: the rest stays queued */
	return 0;
}

#define LISTEN_USAGE "usage: listen [--count N] [--timeout SEC] [--ready-file PATH] [--arm PE]"

/* --arm: ARM the PE from this context (the arm lasts while it does) */
static int listen_arm(struct pcierr_ctx *ctx, const char *pe)
{
	uint64_t pe_id = pe_id_for(ctx, pe, false, 0);
	int r = pcierr_arm(ctx, pe, pe_id, 1, PCIERR_RESET_HOT);

	if (r < 0)
		return fail(r, ctx);
	printf("armed pe=%s pe_id=%" PRIu64 "\n", pe, pe_id);
	fflush(stdout);
	return 0;
}

static int cmd_listen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count",      required_argument, NULL, 'c' },
		{ "timeout",    required_argument, NULL, 't' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "arm",        required_argument, NULL, 'a' },
		{}
	};
	struct listen_state st = {};
	char arm_pe[PCIERR_ADDR_STRLEN];
	const char *ready = NULL;
	struct pcierr_ctx *ctx = NULL;
	int timeout_ms = -1, c, r;
	int64_t deadline = -1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_u64(optarg, &st.left) < 0 || st.left == 0)
				return usage_bad("--count", optarg);
			st.limited = true;
			break;
		case 't':
			if (parse_seconds(optarg, &timeout_ms) < 0)
				return usage_bad("--timeout", optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'a':
			if (pcierr_addr_normalize(optarg, arm_pe) < 0)
				return usage_bad("address", optarg);
			st.arm = arm_pe;
			break;
		default:
			return usage_msg(LISTEN_USAGE);
		}
	}
	if (optind != argc)
		return usage_msg(LISTEN_USAGE);

	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	if (!pcierr_events_joined(ctx)) {
		/* the kernel refused the events group: no CAP_NET_ADMIN */
		r = fail(-EPERM, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	/* subscribed from here on */
	if (st.arm && listen_arm(ctx, st.arm)) {
		pcierr_ctx_free(ctx);
		return EXIT_FAILURE;
	}
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s: %s\n", PROG, cmd_name, ready, strerror(errno));
			pcierr_ctx_free(ctx);
			return EXIT_FAILURE;
		}
		close(fd);
	}
	if (timeout_ms >= 0)
		deadline = now_ms() + timeout_ms;

	for (;;) {
		int wait_ms = -1;

		if (deadline >= 0) {
			int64_t d = deadline - now_ms();

			if (d <= 0)
				break;
			wait_ms = d > INT_MAX ? INT_MAX : (int)d;
		}
		r = pcierr_event_wait(ctx, wait_ms);
		if (r == -EINTR)
			continue;
		if (r < 0) {
			r = fail(r, ctx);
			pcierr_ctx_free(ctx);
			return r;
		}
		if (r == 0)
			continue;	/* the deadline check above ends it */
		r = pcierr_event_read(ctx, on_notification, &st);
		if (r == -ECANCELED) {
			pcierr_ctx_free(ctx);
			/* the family_removed line says why */
			return st.gone ? EXIT_GONE : EXIT_SUCCESS;
		}
		if (r < 0) {
			r = fail(r, ctx);
			pcierr_ctx_free(ctx);
			return r;
		}
		if (st.rearm) {
			st.rearm = false;
			if (listen_arm(ctx, st.arm)) {
				pcierr_ctx_free(ctx);
				return EXIT_FAILURE;
			}
		}
	}
	fprintf(stderr, "%s: %s: timed out\n", PROG, cmd_name);
	pcierr_ctx_free(ctx);
	return EXIT_FAILURE;
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */
/* ------------------------------------------------------------------ */

/* RECOVER: its end comes on the events socket, not to pcierr_op_wait() */
struct recover_wait {
	uint64_t op_id;
	bool ended;
	int error;		/* the end's errno */
	bool gone;		/* FAMILY_REMOVED seen */
};

static int on_recover_notification(struct pcierr_ctx *ctx, const struct pcierr_notification *n,
				   void *userdata)
{
	struct recover_wait *w = userdata;

	if (n->type == PCIERR_NOTIFY_FAMILY_REMOVED) {
		w->gone = true;
		return -ECANCELED;
	}
	if (n->type != PCIERR_NOTIFY_RECOVER_DONE || n->recover_done.op_id != w->op_id)
		return 0;
	print_recover_done(&n->recover_done);
	fflush(stdout);
	w->ended = true;
	w->error = n->recover_done.error;
	return -ECANCELED;
}

/* wait for RECOVER op_id's end; print it; the exit status */
static int recover_wait(struct pcierr_ctx *ctx, uint64_t op_id, int timeout_ms)
{
	struct recover_wait w = { .op_id = op_id };
	int64_t deadline = now_ms() + timeout_ms;
	int r;

	while (!w.ended && !w.gone) {
		int64_t d = deadline - now_ms();

		if (d <= 0)
			break;
		r = pcierr_event_wait(ctx, d > INT_MAX ? INT_MAX : (int)d);
		if (r == -EINTR || r == 0)
			continue;
		if (r > 0)
			r = pcierr_event_read(ctx, on_recover_notification, &w);
		if (r < 0 && r != -ECANCELED)
			return fail(r, ctx);
	}
	if (w.gone) {
		fprintf(stderr, "%s: %s: kernel module pcierr_shim went away while waiting for "
			"op_id=%" PRIu64 "\n", PROG, cmd_name, op_id);
		return EXIT_GONE;
	}
	if (!w.ended) {
		fprintf(stderr, "%s: %s: timed out waiting for op_id=%" PRIu64 "\n",
			PROG, cmd_name, op_id);
		return EXIT_TIMEOUT;
	}
	return w.error == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

enum op_kind { OP_REPORT, OP_ENABLE_IO, OP_RESET, OP_REMOVE, OP_RESCAN, OP_DISABLE, OP_ENABLE,
	       OP_RECOVER };

static int run_op(int argc, char **argv, enum op_kind kind)
{
	static const struct option opts[] = {
		{ "state",       required_argument, NULL, 's' },
		{ "no-wait",     no_argument,       NULL, 'n' },
		{ "timeout",     required_argument, NULL, 't' },
		{ "fundamental", no_argument,       NULL, 'f' },
		{ "device",      required_argument, NULL, 'd' },
		{ "pe-id",       required_argument, NULL, 'i' },
		{}
	};
	uint64_t pe_id = 0;
	enum pcierr_channel_state state = PCIERR_STATE_UNSPEC;
	enum pcierr_reset_type rtype = PCIERR_RESET_HOT;
	int timeout_ms = (int)(DEFAULT_OP_TIMEOUT_S * 1000);
	struct pcierr_ctx *ctx = NULL;
	struct pcierr_op_done done = {};
	char pe[PCIERR_ADDR_STRLEN], dev[PCIERR_ADDR_STRLEN];
	const char *dev_arg = NULL;
	bool wait = true;
	int step = 0, nargs = kind == OP_REPORT ? 2 : 1, c, r;
	uint64_t op_id = 0;
	const char *usage =
		kind == OP_REPORT ? "usage: report PE STEP [--state frozen|perm_failure] [--no-wait] [--timeout SEC]" :
		kind == OP_RESET ? "usage: reset PE [--fundamental] [--no-wait] [--timeout SEC]" :
		kind == OP_REMOVE ? "usage: remove PE [--device DEV] [--no-wait] [--timeout SEC]" :
		kind == OP_RECOVER ? "usage: recover PE [--state frozen|normal] [--fundamental] [--no-wait] [--timeout SEC]" :
		"usage: COMMAND PE [--no-wait] [--timeout SEC]";

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (kind == OP_RECOVER) {
				/* what error_detected is told */
				r = pcierr_state_from_string(optarg);
				if (r != PCIERR_STATE_FROZEN && r != PCIERR_STATE_NORMAL)
					return usage_bad("--state", optarg);
				state = (enum pcierr_channel_state)r;
			} else if (kind != OP_REPORT || parse_state_opt(optarg, &state) < 0) {
				return usage_msg(usage);
			}
			break;
		case 'n':
			wait = false;
			break;
		case 't':
			if (parse_seconds(optarg, &timeout_ms) < 0)
				return usage_bad("--timeout", optarg);
			break;
		case 'f':
			if (kind != OP_RESET && kind != OP_RECOVER)
				return usage_msg(usage);
			rtype = PCIERR_RESET_FUNDAMENTAL;
			break;
		case 'd':
			if (kind != OP_REMOVE)
				return usage_msg(usage);
			dev_arg = optarg;
			break;
		case 'i':
			if (parse_pe_id(optarg, &pe_id) < 0)
				return usage_bad("--pe-id", optarg);
			break;
		default:
			return usage_msg(usage);
		}
	}
	if (argc - optind != nargs)
		return usage_msg(usage);
	if (pcierr_addr_normalize(argv[optind], pe) < 0)
		return usage_bad("address", argv[optind]);
	if (dev_arg && pcierr_addr_normalize(dev_arg, dev) < 0)
		return usage_bad("--device", dev_arg);
	if (kind == OP_REPORT) {
		step = pcierr_step_from_string(argv[optind + 1]);
		if (step < 0)
			return usage_bad("step (error_detected|mmio_enabled|slot_reset|resume|"
					 "perm_failure)", argv[optind + 1]);
	}

	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	if (kind == OP_RECOVER && wait && !pcierr_events_joined(ctx)) {
		/* its end comes as an event: without CAP_NET_ADMIN, never */
		r = fail(-EPERM, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	pe_id = pe_id_for(ctx, pe, false, pe_id);
	switch (kind) {
	case OP_REPORT:
		r = pcierr_report(ctx, pe, pe_id, step, state, &op_id);
		break;
	case OP_ENABLE_IO:
		r = pcierr_enable_io(ctx, pe, pe_id, &op_id);
		break;
	case OP_RESET:
		r = pcierr_reset(ctx, pe, pe_id, rtype, &op_id);
		break;
	case OP_REMOVE:
		r = dev_arg ? pcierr_remove_device(ctx, pe, pe_id, dev, &op_id) :
			      pcierr_remove(ctx, pe, pe_id, &op_id);
		break;
	case OP_RESCAN:
		r = pcierr_rescan(ctx, pe, pe_id, &op_id);
		break;
	case OP_DISABLE:
		r = pcierr_disable(ctx, pe, pe_id, &op_id);
		break;
	case OP_RECOVER:
		r = pcierr_recover(ctx, pe, pe_id, state ?: PCIERR_STATE_FROZEN, rtype, &op_id);
		break;
	default:
		r = pcierr_enable(ctx, pe, pe_id, &op_id);
		break;
	}
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	printf("op_id=%" PRIu64 "\n", op_id);
	fflush(stdout);
	if (!wait) {
		pcierr_ctx_free(ctx);
		return EXIT_SUCCESS;
	}
	if (kind == OP_RECOVER) {
		r = recover_wait(ctx, op_id, timeout_ms);
		pcierr_ctx_free(ctx);
		return r;
	}

	do
		r = pcierr_op_wait(ctx, op_id, timeout_ms, &done);
	while (r == -EINTR);
	pcierr_ctx_free(ctx);
	if (r == -ETIMEDOUT) {
		fprintf(stderr, "%s: %s: timed out waiting for op_id=%" PRIu64 "\n",
			PROG, cmd_name, op_id);
		return EXIT_TIMEOUT;
	}
	if (r == -ENOTCONN) {
		fprintf(stderr, "%s: %s: kernel module pcierr_shim went away while waiting for "
			"op_id=%" PRIu64 "\n", PROG, cmd_name, op_id);
		return EXIT_GONE;
	}
	if (r < 0)
		return fail(r, NULL);
	print_op_done(&done);
	fflush(stdout);
	r = done.error == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	if (done.error)
		fprintf(stderr, "%s: %s: operation failed: %s (errno %s)\n", PROG, cmd_name,
			strerror(done.error), strerrorname_np(done.error) ?: "?");
	pcierr_op_done_clear(&done);
	return r;
}

static int cmd_report(int argc, char **argv)    { return run_op(argc, argv, OP_REPORT); }
static int cmd_recover(int argc, char **argv)   { return run_op(argc, argv, OP_RECOVER); }
static int cmd_enable_io(int argc, char **argv) { return run_op(argc, argv, OP_ENABLE_IO); }
static int cmd_reset(int argc, char **argv)     { return run_op(argc, argv, OP_RESET); }
static int cmd_remove(int argc, char **argv)    { return run_op(argc, argv, OP_REMOVE); }
static int cmd_rescan(int argc, char **argv)    { return run_op(argc, argv, OP_RESCAN); }
static int cmd_disable(int argc, char **argv)   { return run_op(argc, argv, OP_DISABLE); }
static int cmd_enable(int argc, char **argv)    { return run_op(argc, argv, OP_ENABLE); }

static int cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pe-id", required_argument, NULL, 'i' },
		{}
	};
	struct pcierr_ctx *ctx = NULL;
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t pe_id = 0;
	uint32_t ms;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'i' || parse_pe_id(optarg, &pe_id) < 0)
			return usage_msg("usage: watch PE MS [--pe-id ID] (0 = off)");
	}
	if (argc - optind != 2)
		return usage_msg("usage: watch PE MS [--pe-id ID] (0 = off)");
	if (pcierr_addr_normalize(argv[optind], pe) < 0)
		return usage_bad("address", argv[optind]);
	if (parse_u32(argv[optind + 1], &ms) < 0)
		return usage_bad("interval", argv[optind + 1]);
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	pe_id = pe_id_for(ctx, pe, false, pe_id);
	r = pcierr_watch(ctx, pe, pe_id, ms);
	if (r < 0)
		r = fail(r, ctx);
	pcierr_ctx_free(ctx);
	return r;
}

/* PCIERR_CMD_ARM (issue 12): arm (1) or disarm (0) a PE; the arm lasts
 * while this process's context does, so it only proves the command */
static int cmd_arm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pe-id", required_argument, NULL, 'i' },
		{ "fundamental", no_argument, NULL, 'f' },
		{}
	};
	enum pcierr_reset_type type = PCIERR_RESET_HOT;
	struct pcierr_ctx *ctx = NULL;
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t pe_id = 0;
	uint32_t budget;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'f')
			type = PCIERR_RESET_FUNDAMENTAL;
		else if (c != 'i' || parse_pe_id(optarg, &pe_id) < 0)
			return usage_msg("usage: arm PE 0|1 [--fundamental] [--pe-id ID]");
	}
	if (argc - optind != 2)
		return usage_msg("usage: arm PE 0|1 [--fundamental] [--pe-id ID]");
	if (pcierr_addr_normalize(argv[optind], pe) < 0)
		return usage_bad("address", argv[optind]);
	if (parse_u32(argv[optind + 1], &budget) < 0)
		return usage_bad("budget", argv[optind + 1]);
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	pe_id = pe_id_for(ctx, pe, false, pe_id);
	r = pcierr_arm(ctx, pe, pe_id, budget, type);
	if (r < 0)
		r = fail(r, ctx);
	pcierr_ctx_free(ctx);
	return r;
}

/* PCIERR_CMD_HOLD (issue 21 point 4): hold a PE for LEASE ms (0 ends a
 * hold, anybody's). The hold goes with this process's socket, so --stay
 * keeps it for SEC seconds: renewed every LEASE/2 with --renew (a live
 * holder), never renewed without (a wedged one, whose lease lapses) */
static int cmd_hold(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pe-id", required_argument, NULL, 'i' },
		{ "stay", required_argument, NULL, 's' },
		{ "renew", no_argument, NULL, 'r' },
		{}
	};
	static const char *const use = "usage: hold PE LEASE_MS [--stay SEC [--renew]] [--pe-id ID]";
	struct pcierr_ctx *ctx = NULL;
	char pe[PCIERR_ADDR_STRLEN];
	uint32_t lease, stay = 0;
	uint64_t pe_id = 0;
	bool renew = false;
	struct timespec end, now;
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			renew = true;
		else if (c == 's') {
			if (parse_u32(optarg, &stay) < 0)
				return usage_bad("--stay", optarg);
		} else if (c != 'i' || parse_pe_id(optarg, &pe_id) < 0)
			return usage_msg(use);
	}
	if (argc - optind != 2)
		return usage_msg(use);
	if (pcierr_addr_normalize(argv[optind], pe) < 0)
		return usage_bad("address", argv[optind]);
	if (parse_u32(argv[optind + 1], &lease) < 0)
		return usage_bad("lease", argv[optind + 1]);
	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	pe_id = pe_id_for(ctx, pe, false, pe_id);
	r = pcierr_hold(ctx, pe, pe_id, lease);
	if (r < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += stay;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		if (!renew) {
			sleep(1);
			continue;
		}
		usleep(lease / 2 * 1000);
		r = pcierr_hold(ctx, pe, pe_id, lease);
		if (r < 0)
			goto out;
	}
out:
	if (r < 0)
		r = fail(r, ctx);
	pcierr_ctx_free(ctx);
	return r;
}

static int cmd_iochk(int argc, char **argv)
{
	struct pcierr_ctx *ctx = NULL;
	struct pcierr_iochk_cookie cookie;
	char dev[PCIERR_ADDR_STRLEN];
	int first, status, r;
	pid_t pid;

	/* iochk DEV -- CMD [ARGS...] */
	if (argc < 4 || strcmp(argv[2], "--") != 0)
		return usage_msg("usage: iochk DEV -- CMD [ARGS...]");
	first = 3;
	if (pcierr_addr_normalize(argv[1], dev) < 0)
		return usage_bad("address", argv[1]);

	if (open_ctx(&ctx))
		return EXIT_FAILURE;
	r = pcierr_iochk_clear(ctx, dev, &cookie);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		r = fail(-errno, NULL);
		pcierr_ctx_free(ctx);
		return r;
	}
	if (pid == 0) {
		execvp(argv[first], &argv[first]);
		fprintf(stderr, "%s: %s: %s: %s\n", PROG, cmd_name, argv[first], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			r = fail(-errno, NULL);
			pcierr_ctx_free(ctx);
			return r;
		}
	}

	r = pcierr_iochk_read(ctx, &cookie);
	if (r < 0) {
		r = fail(r, ctx);
		pcierr_ctx_free(ctx);
		return r;
	}
	printf("iochk=%d\n", r);
	pcierr_ctx_free(ctx);
	return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* malformed: raw requests the kernel must refuse                      */
/* ------------------------------------------------------------------ */

/* well-formed, but no such device in any QEMU topology we build */
#define NO_SUCH_DEV "0000:ff:1f.7"
/* always there (the host bridge, a PE of its own): for PE id checks,
 * which come after the address is found; never changed by a case */
#define HOST_BRIDGE "0000:00:00.0"
/* no PE has this id (ids count up from the boot time in ns) */
#define STALE_ID 1

enum raw_kind { R_END, R_STR, R_U16, R_U32, R_U64, R_RAW };

struct raw_attr {
	enum raw_kind kind;
	int type;
	const char *str;	/* R_STR: with NUL; R_RAW: bytes, len below */
	uint64_t num;
	size_t len;		/* R_RAW only */
};

#define S(t, s)		{ .kind = R_STR, .type = (t), .str = (s) }
#define U16(t, v)	{ .kind = R_U16, .type = (t), .num = (v) }
#define U32(t, v)	{ .kind = R_U32, .type = (t), .num = (v) }
#define U64(t, v)	{ .kind = R_U64, .type = (t), .num = (v) }
#define RAW(t, s, l)	{ .kind = R_RAW, .type = (t), .str = (s), .len = (l) }

struct malformed_case {
	const char *name;
	uint8_t cmd;
	struct raw_attr attrs[4];
	bool garbage_tail;	/* append a truncated attribute header */
	int expected;		/* positive errno; 0: accepted */
};

static const struct malformed_case malformed_cases[] = {
	{ "report_missing_step", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, EINVAL },
	{ "report_missing_pe", PCIERR_CMD_REPORT,
	  { U32(PCIERR_A_STEP, PCIERR_STEP_RESUME) }, false, EINVAL },
	{ "inject_missing_device", PCIERR_CMD_INJECT,
	  { U32(PCIERR_A_STATE, PCIERR_STATE_FROZEN) }, false, EINVAL },
	/* v2: the PE id is required, checked, and never 0 */
	{ "report_missing_pe_id", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U32(PCIERR_A_STEP, PCIERR_STEP_RESUME) }, false, EINVAL },
	{ "report_stale_pe_id", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID),
	    U32(PCIERR_A_STEP, PCIERR_STEP_RESUME) }, false, ESTALE },
	{ "reset_stale_pe_id", PCIERR_CMD_RESET,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID) }, false, ESTALE },
	{ "remove_stale_pe_id", PCIERR_CMD_REMOVE,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID) }, false, ESTALE },
	{ "disable_stale_pe_id", PCIERR_CMD_DISABLE,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID) }, false, ESTALE },
	{ "inject_stale_pe_id", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID) }, false, ESTALE },
	{ "inject_missing_pe_id", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, HOST_BRIDGE) }, false, EINVAL },
	{ "watch_stale_pe_id", PCIERR_CMD_WATCH,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, STALE_ID),
	    U32(PCIERR_A_WATCH_INTERVAL_MS, 100) }, false, ESTALE },
	{ "pe_id_0", PCIERR_CMD_RESCAN,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U64(PCIERR_A_PE_ID, 0) }, false, ERANGE },
	{ "pe_id_as_u32", PCIERR_CMD_RESCAN,
	  { S(PCIERR_A_PE, HOST_BRIDGE), U32(PCIERR_A_PE_ID, 7) }, false, EINVAL },
	/* v2: per-command policies: an attribute another command takes */
	{ "get_pe_with_step", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_STEP, PCIERR_STEP_RESUME) }, false, EINVAL },
	{ "rescan_with_state", PCIERR_CMD_RESCAN,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_STATE, PCIERR_STATE_FROZEN) }, false, EINVAL },
	{ "stats_with_pe", PCIERR_CMD_GET_STATS,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, EINVAL },
	{ "interval_9", PCIERR_CMD_WATCH,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_WATCH_INTERVAL_MS, PCIERR_WATCH_MIN_MS - 1) },
	  false, ERANGE },
	{ "interval_too_long", PCIERR_CMD_WATCH,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_WATCH_INTERVAL_MS, PCIERR_WATCH_MAX_MS + 1) },
	  false, ERANGE },
	/* D28: matched by value, however cased (accepted, changes nothing) */
	{ "get_pe_upper_case", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_DEVICE, "0000:00:1F.0") }, false, 0 },
	{ "get_pe_long_domain", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, "00000000:00:00.0") }, false, 0 },
	{ "step_as_u16", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U16(PCIERR_A_STEP, PCIERR_STEP_RESUME) },
	  false, EINVAL },
	{ "step_as_u64", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U64(PCIERR_A_STEP, PCIERR_STEP_RESUME) },
	  false, EINVAL },
	{ "interval_as_string", PCIERR_CMD_WATCH,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), S(PCIERR_A_WATCH_INTERVAL_MS, "1000") },
	  false, EINVAL },
	{ "pe_as_u32", PCIERR_CMD_GET_PE,
	  { U32(PCIERR_A_PE, 0x01020304) }, false, EINVAL },
	{ "addr_too_long", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, "0000:00:00.0000000000000000000000000000000000") }, false, EINVAL },
	{ "addr_unterminated", PCIERR_CMD_GET_PE,
	  { RAW(PCIERR_A_DEVICE, "0000:00:00.0", 12) }, false, EINVAL },
	{ "addr_empty", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, "") }, false, EINVAL },
	{ "addr_bad_syntax", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, "00:zz.0") }, false, EINVAL },
	{ "addr_bad_function", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_DEVICE, "0000:00:00.8") }, false, EINVAL },
	{ "addr_bad_syntax_inject", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, "not-an-address") }, false, EINVAL },
	{ "step_99", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_STEP, 99) }, false, ERANGE },
	{ "step_0", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_STEP, 0) }, false, ERANGE },
	{ "inject_state_0", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, NO_SUCH_DEV), U32(PCIERR_A_STATE, 0) }, false, ERANGE },
	{ "inject_state_99", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, NO_SUCH_DEV), U32(PCIERR_A_STATE, 99) }, false, ERANGE },
	{ "report_state_99", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV),
	    U32(PCIERR_A_STEP, PCIERR_STEP_ERROR_DETECTED),
	    U32(PCIERR_A_STATE, 99) }, false, ERANGE },
	{ "reset_type_0", PCIERR_CMD_RESET,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_RESET_TYPE, 0) }, false, ERANGE },
	{ "reset_type_99", PCIERR_CMD_RESET,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_RESET_TYPE, 99) }, false, ERANGE },
	{ "unknown_attr", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_MAX + 1, 1) }, false, EINVAL },
	{ "truncated_attr", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, true, EINVAL },
	{ "unknown_command", PCIERR_CMD_MAX + 1,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, EOPNOTSUPP },
	{ "get_pe_no_such_pe", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, ENODEV },
	{ "get_pe_no_such_device", PCIERR_CMD_GET_PE,
	  { S(PCIERR_A_DEVICE, NO_SUCH_DEV) }, false, ENODEV },
	{ "inject_no_such_device", PCIERR_CMD_INJECT,
	  { S(PCIERR_A_DEVICE, NO_SUCH_DEV) }, false, ENODEV },
	{ "report_no_such_pe", PCIERR_CMD_REPORT,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_STEP, PCIERR_STEP_RESUME) },
	  false, ENODEV },
	{ "reset_no_such_pe", PCIERR_CMD_RESET,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_RESET_TYPE, PCIERR_RESET_HOT) },
	  false, ENODEV },
	{ "watch_no_such_pe", PCIERR_CMD_WATCH,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_WATCH_INTERVAL_MS, 100) },
	  false, ENODEV },
	{ "owner_recover_not_a_request", PCIERR_CMD_OWNER_RECOVER,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, EOPNOTSUPP },
	{ "hold_no_lease", PCIERR_CMD_HOLD,
	  { S(PCIERR_A_PE, NO_SUCH_DEV) }, false, EINVAL },
	{ "hold_lease_short", PCIERR_CMD_HOLD,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_HOLD_MS, PCIERR_HOLD_MIN_MS - 1) },
	  false, ERANGE },
	{ "hold_lease_long", PCIERR_CMD_HOLD,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_HOLD_MS, PCIERR_HOLD_MAX_MS + 1) },
	  false, ERANGE },
	{ "hold_unknown_attr", PCIERR_CMD_HOLD,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_HOLD_MS, 0),
	    U32(PCIERR_A_STEP, 1) }, false, EINVAL },
	{ "hold_no_such_pe", PCIERR_CMD_HOLD,
	  { S(PCIERR_A_PE, NO_SUCH_DEV), U32(PCIERR_A_HOLD_MS, PCIERR_HOLD_MIN_MS) },
	  false, ENODEV },
};

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	*(int *)arg = e->error;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	*(int *)arg = 0;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	return NL_OK;	/* a reply (the request was accepted): wait for the ack */
}

static int raw_put(struct nl_msg *msg, const struct raw_attr *a)
{
	switch (a->kind) {
	case R_STR:
		return nla_put_string(msg, a->type, a->str);
	case R_U16:
		return nla_put_u16(msg, a->type, (uint16_t)a->num);
	case R_U32:
		return nla_put_u32(msg, a->type, (uint32_t)a->num);
	case R_U64:
		return nla_put_u64(msg, a->type, a->num);
	case R_RAW:
		return nla_put(msg, a->type, (int)a->len, a->str);
	default:
		return 0;
	}
}

/* send one case; returns the kernel's errno (>= 0) or a negative libnl error */
static int malformed_send(struct nl_sock *sk, int family, const struct malformed_case *c)
{
	struct nl_msg *msg;
	struct nl_cb *cb;
	int err = 1, r;

	msg = nlmsg_alloc();
	if (!msg)
		return -NLE_NOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK, c->cmd,
			 PCIERR_GENL_VERSION)) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	for (size_t i = 0; i < sizeof(c->attrs) / sizeof(c->attrs[0]) && c->attrs[i].kind != R_END; i++) {
		r = raw_put(msg, &c->attrs[i]);
		if (r < 0) {
			nlmsg_free(msg);
			return r;
		}
	}
	if (c->garbage_tail) {
		/* an attribute header claiming more bytes than there are */
		struct nlattr bogus = { .nla_len = 64, .nla_type = PCIERR_A_DEVICE };

		r = nlmsg_append(msg, &bogus, sizeof(bogus), NLMSG_ALIGNTO);
		if (r < 0) {
			nlmsg_free(msg);
			return r;
		}
	}

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &err);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);

	r = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	while (r >= 0 && err > 0)
		r = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (r < 0 && err > 0)
		return r;
	return -err;
}

/* A raw generic netlink socket and the family's id, bypassing libpcierr:
 * 0, or an exit status (the error printed). */
static int raw_socket(struct nl_sock **ret, int *family)
{
	struct nl_sock *sk = nl_socket_alloc();
	int r;

	if (!sk)
		return fail(-ENOMEM, NULL);
	r = genl_connect(sk);
	if (r >= 0)
		r = genl_ctrl_resolve(sk, PCIERR_GENL_NAME);
	if (r < 0) {
		nl_socket_free(sk);
		if (r == -NLE_OBJ_NOTFOUND)
			return fail(-EPROTONOSUPPORT, NULL);
		fprintf(stderr, "%s: %s: %s\n", PROG, cmd_name, nl_geterror(r));
		return EXIT_FAILURE;
	}
	*family = r;
	*ret = sk;
	return 0;
}

static int cmd_malformed(int argc, char **argv)
{
	struct nl_sock *sk;
	int family, failed = 0, r;

	if (argc != 1)
		return usage_msg("takes no arguments");
	r = raw_socket(&sk, &family);
	if (r)
		return r;
	/* acks are asked for in each message */
	nl_socket_disable_auto_ack(sk);

	for (size_t i = 0; i < sizeof(malformed_cases) / sizeof(malformed_cases[0]); i++) {
		const struct malformed_case *c = &malformed_cases[i];
		const char *want = c->expected ? strerrorname_np(c->expected) : "0";
		char got[64];
		bool ok;

		r = malformed_send(sk, family, c);
		if (r < 0) {
			snprintf(got, sizeof(got), "libnl:%s", nl_geterror(r));
			ok = false;
		} else if (r == 0) {
			snprintf(got, sizeof(got), "0");
			ok = c->expected == 0;
		} else {
			snprintf(got, sizeof(got), "%s", strerrorname_np(r) ?: "?");
			ok = r == c->expected;
		}
		printf("case=%s expected=%s got=%s %s\n", c->name, want ? want : "?", got,
		       ok ? "ok" : "FAIL");
		fflush(stdout);
		if (!ok)
			failed++;
	}
	nl_socket_free(sk);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* dump-parts: the GET_PE dump's messages as they come (D6)            */
/* ------------------------------------------------------------------ */

/* One line per dump message: how a PE was split across messages. */
static int on_part(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[PCIERR_A_MAX + 1], *pos;
	int *n = arg, devices = 0, rem;

	if (genlmsg_parse(nlh, 0, tb, PCIERR_A_MAX, NULL) < 0 || !tb[PCIERR_A_PE] ||
	    !tb[PCIERR_A_PE_ID])
		return NL_SKIP;
	if (tb[PCIERR_A_PE_DEVICES])
		nla_for_each_nested(pos, tb[PCIERR_A_PE_DEVICES], rem)
			devices++;
	printf("part pe=%s pe_id=%" PRIu64 " devices=%d\n", nla_get_string(tb[PCIERR_A_PE]),
	       (uint64_t)nla_get_u64(tb[PCIERR_A_PE_ID]), devices);
	(*n)++;
	return NL_OK;
}

static int cmd_dump_parts(int argc, char **argv)
{
	struct nl_sock *sk;
	int family, n = 0, r;

	if (argc != 1)
		return usage_msg("takes no arguments");
	r = raw_socket(&sk, &family);
	if (r)
		return r;
	r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_part, &n);
	if (r >= 0)
		r = genl_send_simple(sk, family, PCIERR_CMD_GET_PE, PCIERR_GENL_VERSION, NLM_F_DUMP);
	if (r >= 0)
		r = nl_recvmsgs_default(sk);
	nl_socket_free(sk);
	if (r < 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, cmd_name, nl_geterror(r));
		return EXIT_FAILURE;
	}
	printf("parts=%d\n", n);
	return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "dump",      cmd_dump,      "every PE and device, one line per device" },
	{ "pe",        cmd_pe,        "ADDR: the PE of that address (a PE's or a device's)" },
	{ "stats",     cmd_stats,     "the module's counters, name=value" },
	{ "inject",    cmd_inject,    "DEV [--state frozen|perm_failure] [--unavail MS]: a software detection" },
	{ "listen",    cmd_listen,    "[--count N] [--timeout SEC] [--ready-file PATH] [--arm PE]: print\n"
	  "             notifications; ends (status 4) after 'family_removed family_id=ID' when the\n"
	  "             module goes away. --arm: the listening context arms PE ('armed pe=PE\n"
	  "             pe_id=ID') and arms it again after each of its recover_done lines" },
	{ "report",    cmd_report,    "PE STEP [--state S] [--no-wait] [--timeout SEC]: call a recovery callback" },
	{ "recover",   cmd_recover,   "PE [--state frozen|normal] [--fundamental] [--no-wait] [--timeout SEC]:\n"
	  "             the chained callback recovery; prints its recover_done line" },
	{ "enable-io", cmd_enable_io, "PE [--no-wait] [--timeout SEC]: MMIO on, DMA off" },
	{ "reset",     cmd_reset,     "PE [--fundamental] [--no-wait] [--timeout SEC]: reset, restore config" },
	{ "remove",    cmd_remove,    "PE [--device DEV] [--no-wait] [--timeout SEC]: hot-unplug every\n"
	  "             device, or only DEV (which must belong to PE)" },
	{ "rescan",    cmd_rescan,    "PE [--no-wait] [--timeout SEC]: rescan the PE's bus" },
	{ "disable",   cmd_disable,   "PE [--no-wait] [--timeout SEC]: permanent failure, keep away" },
	{ "enable",    cmd_enable,    "PE [--no-wait] [--timeout SEC]: undo disable" },
	{ "watch",     cmd_watch,     "PE MS: presence watchdog interval (0 = off)" },
	{ "arm",       cmd_arm,       "PE 0|1 [--fundamental]: pre-authorise one RECOVER (for as long\n"
	  "             as this command runs: the arm goes with its socket)" },
	{ "hold",      cmd_hold,      "PE LEASE_MS [--stay SEC [--renew]]: keep the owner timeout away\n"
	  "             (0 ends a hold); the hold goes with this command's socket" },
	{ "iochk",     cmd_iochk,     "DEV -- CMD [ARGS...]: errors of DEV while CMD ran" },
	{ "dump-parts", cmd_dump_parts, "the GET_PE dump message by message: how PEs are split" },
	{ "malformed", cmd_malformed, "send bad requests, check the kernel refuses each rightly" },
	{ "help",      cmd_help,      "this text" },
};

static void print_usage(FILE *f)
{
	fprintf(f, "Usage: %s COMMAND [ARGS...]\n\nCommands:\n", PROG);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nEvery command that changes state (inject ... watch) also takes --pe-id ID,\n"
		"the PE id it expects (ESTALE if the PE changed since); without it the\n"
		"current id is looked up first (GET_PE).\n");
	fprintf(f, "\nExit status: 0 ok, 1 error, 2 usage, 3 timed out waiting for an operation,\n"
		"4 the kernel module went away (listen: after 'family_removed'; an operation's\n"
		"wait: its completion will never come).\n");
}

static int cmd_help(int argc, char **argv)
{
	print_usage(stdout);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(argc - 1, argv + 1);

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			cmd_name = commands[i].name;
			optind = 1;
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "%s: unknown command '%s'\n", PROG, argv[1]);
	print_usage(stderr);
	return EXIT_USAGE;
}

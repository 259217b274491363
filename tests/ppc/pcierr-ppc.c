// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierr-ppc: a tiny generic netlink client for the pseries boot test
 * (tests/ppc/), raw netlink against the uapi header and nothing else, so
 * that it links statically for ppc64le without a cross-built libnl.
 *
 *   pcierr-ppc family                   the family id and events group
 *   pcierr-ppc dump                     every PE: state, backend, reset
 *                                       types, devices (addr ids driver)
 *   pcierr-ppc inject DEV               INJECT (frozen); prints the EVENT
 *                                       with its platform error detail
 *   pcierr-ppc report PE STEP           REPORT: error_detected,
 *                                       mmio_enabled, slot_reset, resume
 *   pcierr-ppc enable-io PE
 *   pcierr-ppc reset PE hot|fundamental
 *
 * ABI version 2: each command names the PE id too, which it reads first
 * with GET_PE (of the PE, or of the device for INJECT).
 *
 * Operations print their OP_DONE: "op ID errno N (text) result R
 * pe_state S". Exit status 0 if the command was accepted (an operation's
 * errno is printed, not the exit status), 1 otherwise.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/pcierr.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUFSZ 65536

static int fd = -1;
static uint16_t family;
static uint32_t events_grp;
static uint32_t seqno = 1;
static char buf[BUFSZ];

struct attrs {
	const struct nlattr *a[64];
};

static void parse(const void *data, int len, struct attrs *t)
{
	const struct nlattr *na = data;

	memset(t, 0, sizeof(*t));
	while (len >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		int type = na->nla_type & NLA_TYPE_MASK;

		if (type < 64)
			t->a[type] = na;
		len -= NLA_ALIGN(na->nla_len);
		na = (const struct nlattr *)((const char *)na +
					     NLA_ALIGN(na->nla_len));
	}
}

static const void *adata(const struct nlattr *na)
{
	return (const char *)na + NLA_HDRLEN;
}

static int alen(const struct nlattr *na)
{
	return na->nla_len - NLA_HDRLEN;
}

static uint32_t u32a(const struct nlattr *na)
{
	uint32_t v = 0;

	if (na && alen(na) >= 4)
		memcpy(&v, adata(na), 4);
	return v;
}

static uint64_t u64a(const struct nlattr *na)
{
	uint64_t v = 0;

	if (na && alen(na) >= 8)
		memcpy(&v, adata(na), 8);
	return v;
}

static uint16_t u16a(const struct nlattr *na)
{
	uint16_t v = 0;

	if (na && alen(na) >= 2)
		memcpy(&v, adata(na), 2);
	return v;
}

static const char *stra(const struct nlattr *na)
{
	return na ? (const char *)adata(na) : "-";
}

static char *put(char *p, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *na = (struct nlattr *)p;

	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	memcpy(p + NLA_HDRLEN, data, len);
	memset(p + NLA_HDRLEN + len, 0, NLA_ALIGN(na->nla_len) - na->nla_len);
	return p + NLA_ALIGN(na->nla_len);
}

static char *put_str(char *p, uint16_t type, const char *s)
{
	return put(p, type, s, strlen(s) + 1);
}

static char *put_u32(char *p, uint16_t type, uint32_t v)
{
	return put(p, type, &v, 4);
}

/* A request with attributes from @attrs to @end; flags added to REQUEST. */
static int send_req(uint16_t fam, uint8_t cmd, uint16_t flags,
		    const char *attrs, size_t alen_)
{
	char req[1024];
	struct nlmsghdr *nlh = (struct nlmsghdr *)req;
	struct genlmsghdr *g = (struct genlmsghdr *)NLMSG_DATA(nlh);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(req, 0, sizeof(req));
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + alen_;
	nlh->nlmsg_type = fam;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++seqno;
	g->cmd = cmd;
	g->version = PCIERR_GENL_VERSION;
	memcpy((char *)g + GENL_HDRLEN, attrs, alen_);
	if (sendto(fd, req, nlh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return 0;
}

typedef int (*msg_cb)(const struct nlmsghdr *nlh, void *arg);

/*
 * Read until the ack (or NLMSG_DONE of a dump) of request seqno, and with
 * @want_cb 1 also until @cb returned 1 for a message (with 2: only that,
 * no request outstanding). Every other message goes to @cb. Returns the
 * request's error (negative errno), -ETIMEDOUT, or 0.
 */
static int recv_until(msg_cb cb, void *arg, int want_cb, int timeout_ms)
{
	int acked = want_cb == 2, got = 0, err = 0;

	while (!acked || (want_cb && !got)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n;

		if (poll(&p, 1, timeout_ms) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		     NLMSG_OK(nlh, (unsigned int)n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (nlh->nlmsg_seq == seqno) {
					acked = 1;
					err = e->error;
					if (err)
						return err;
				}
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				if (nlh->nlmsg_seq == seqno)
					acked = 1;
				continue;
			}
			if (cb && cb(nlh, arg) > 0)
				got = 1;
		}
	}
	return err;
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct attrs t, gt, et;
	const struct nlattr *pos;
	int rem;

	if (nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	parse((const char *)g + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &t);
	family = u16a(t.a[CTRL_ATTR_FAMILY_ID]);
	if (!t.a[CTRL_ATTR_MCAST_GROUPS])
		return 1;
	parse(adata(t.a[CTRL_ATTR_MCAST_GROUPS]),
	      alen(t.a[CTRL_ATTR_MCAST_GROUPS]), &gt);
	for (int i = 0; i < 64; i++) {
		pos = gt.a[i];
		if (!pos)
			continue;
		parse(adata(pos), alen(pos), &et);
		rem = et.a[CTRL_ATTR_MCAST_GRP_NAME] &&
		      !strcmp(stra(et.a[CTRL_ATTR_MCAST_GRP_NAME]),
			      PCIERR_MCGRP_EVENTS);
		if (rem)
			events_grp = u32a(et.a[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 1;
}

static int resolve(void)
{
	char a[64], *p = a;
	int r;

	p = put_str(p, CTRL_ATTR_FAMILY_NAME, PCIERR_GENL_NAME);
	r = send_req(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, a, p - a);
	if (!r)
		r = recv_until(family_cb, NULL, 1, 5000);
	if (r)
		return r;
	return family ? 0 : -ENOENT;
}

static int subscribe(void)
{
	int g = (int)events_grp;

	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &g,
		       sizeof(g)) < 0)
		return -errno;
	return 0;
}

static const char *backend_name(uint32_t b)
{
	switch (b) {
	case PCIERR_BACKEND_GENERIC: return "generic";
	case PCIERR_BACKEND_RTAS: return "rtas";
	case PCIERR_BACKEND_EEH: return "eeh";
	default: return "-";
	}
}

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct attrs t, dl, d;

	if (nlh->nlmsg_type != family || g->cmd != PCIERR_CMD_GET_PE)
		return 0;
	parse((const char *)g + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &t);
	printf("pe %s state %u backend %s reset_types 0x%x id %llu\n",
	       stra(t.a[PCIERR_A_PE]), u32a(t.a[PCIERR_A_PE_STATE]),
	       backend_name(u32a(t.a[PCIERR_A_BACKEND])),
	       u32a(t.a[PCIERR_A_RESET_TYPES]),
	       (unsigned long long)u64a(t.a[PCIERR_A_PE_ID]));
	if (!t.a[PCIERR_A_PE_DEVICES])
		return 0;
	/* entries all have type 1: walk them by hand */
	{
		const struct nlattr *na = adata(t.a[PCIERR_A_PE_DEVICES]);
		int len = alen(t.a[PCIERR_A_PE_DEVICES]);

		while (len >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
		       na->nla_len <= len) {
			parse(adata(na), alen(na), &d);
			printf("  dev %s %04x:%04x driver %s state %u\n",
			       stra(d.a[PCIERR_DEV_A_ADDR]),
			       u16a(d.a[PCIERR_DEV_A_VENDOR]),
			       u16a(d.a[PCIERR_DEV_A_DEVICE]),
			       stra(d.a[PCIERR_DEV_A_DRIVER]),
			       u32a(d.a[PCIERR_DEV_A_STATE]));
			len -= NLA_ALIGN(na->nla_len);
			na = (const struct nlattr *)((const char *)na +
						     NLA_ALIGN(na->nla_len));
		}
	}
	(void)dl;
	return 0;
}

static void print_detail(const struct attrs *t)
{
	const struct nlattr *d = t->a[PCIERR_A_ERROR_DETAIL];

	if (!t->a[PCIERR_A_ERROR_DETAIL_STATUS]) {
		printf(" detail none");
		return;
	}
	printf(" detail severity %u status %d len %d",
	       u32a(t->a[PCIERR_A_ERROR_DETAIL_SEVERITY]),
	       (int32_t)u32a(t->a[PCIERR_A_ERROR_DETAIL_STATUS]),
	       d ? alen(d) : 0);
}

static uint64_t want_id;

static int event_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct attrs t;
	int *n = arg;

	if (nlh->nlmsg_type != family)
		return 0;
	parse((const char *)g + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &t);
	if (g->cmd == PCIERR_CMD_EVENT) {
		printf("event seq %llu pe %s dev %s state %u source %u",
		       (unsigned long long)u64a(t.a[PCIERR_A_SEQ]),
		       stra(t.a[PCIERR_A_PE]), stra(t.a[PCIERR_A_DEVICE]),
		       u32a(t.a[PCIERR_A_STATE]), u32a(t.a[PCIERR_A_SOURCE]));
		print_detail(&t);
		printf("\n");
		if (n)
			(*n)++;
		return want_id ? 0 : 1;
	}
	if (g->cmd == PCIERR_CMD_OP_DONE &&
	    u64a(t.a[PCIERR_A_OP_ID]) == want_id && want_id) {
		uint32_t e = u32a(t.a[PCIERR_A_ERRNO]);

		printf("op %llu errno %u (%s) result %u pe_state %u",
		       (unsigned long long)want_id, e, e ? strerror(e) : "ok",
		       u32a(t.a[PCIERR_A_RESULT]),
		       u32a(t.a[PCIERR_A_PE_STATE]));
		if (t.a[PCIERR_A_ERROR_DETAIL_STATUS])
			print_detail(&t);
		printf("\n");
		return 1;
	}
	return 0;
}

/* OP_DONEs that came before the request's reply */
#define STASH_MAX 8
static char stash[STASH_MAX][4096];
static int nstash;

static int reply_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct attrs t;

	if (nlh->nlmsg_type != family)
		return 0;
	parse((const char *)g + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &t);
	if (g->cmd == PCIERR_CMD_OP_DONE && nstash < STASH_MAX &&
	    nlh->nlmsg_len <= sizeof(stash[0])) {
		memcpy(stash[nstash++], nlh, nlh->nlmsg_len);
		return 0;
	}
	if (g->cmd == PCIERR_CMD_EVENT || g->cmd == PCIERR_CMD_OP_DONE)
		return 0;
	if (t.a[PCIERR_A_OP_ID])
		want_id = u64a(t.a[PCIERR_A_OP_ID]);
	return 0;
}

/* GET_PE doit: the id of the PE named by @type (PE or DEVICE) @addr. */
static uint64_t pe_id;

static int id_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct attrs t;

	if (nlh->nlmsg_type != family || g->cmd != PCIERR_CMD_GET_PE)
		return 0;
	parse((const char *)g + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), &t);
	pe_id = u64a(t.a[PCIERR_A_PE_ID]);
	return 1;
}

static int lookup_id(uint16_t type, const char *addr, uint64_t *id)
{
	char a[64], *p = a;
	int r;

	pe_id = 0;
	p = put_str(p, type, addr);
	r = send_req(family, PCIERR_CMD_GET_PE, 0, a, p - a);
	if (!r)
		r = recv_until(id_cb, NULL, 1, 10000);
	if (!r && !pe_id)
		r = -EBADMSG;
	*id = pe_id;
	return r;
}

static char *put_u64(char *p, uint16_t type, uint64_t v)
{
	return put(p, type, &v, 8);
}

static uint32_t step_of(const char *s)
{
	if (!strcmp(s, "error_detected"))
		return PCIERR_STEP_ERROR_DETECTED;
	if (!strcmp(s, "mmio_enabled"))
		return PCIERR_STEP_MMIO_ENABLED;
	if (!strcmp(s, "slot_reset"))
		return PCIERR_STEP_SLOT_RESET;
	if (!strcmp(s, "resume"))
		return PCIERR_STEP_RESUME;
	return 0;
}

/* An operation: the reply's op id, then its OP_DONE on the group. */
static int run_op(uint8_t cmd, const char *a, size_t len)
{
	int r;

	want_id = 0;
	r = subscribe();
	if (!r)
		r = send_req(family, cmd, 0, a, len);
	if (!r)
		r = recv_until(reply_cb, NULL, 0, 10000);
	if (r) {
		printf("refused: %s\n", strerror(-r));
		return 1;
	}
	if (!want_id) {
		printf("no op id\n");
		return 1;
	}
	/* the OP_DONE may have come before the reply */
	for (int i = 0; i < nstash; i++)
		if (event_cb((const struct nlmsghdr *)stash[i], NULL) > 0)
			return 0;
	r = recv_until(event_cb, NULL, 2, 60000);
	if (r)
		printf("no OP_DONE: %s\n", strerror(-r));
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char a[512], *p = a;
	int r;

	if (argc < 2) {
		fprintf(stderr, "usage: see the source\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("netlink");
		return 1;
	}
	r = resolve();
	if (r) {
		printf("family %s: %s\n", PCIERR_GENL_NAME, strerror(-r));
		return 1;
	}
	if (!strcmp(argv[1], "family")) {
		printf("family %s id %u events %u\n", PCIERR_GENL_NAME, family,
		       events_grp);
		return 0;
	}
	if (!strcmp(argv[1], "dump")) {
		r = send_req(family, PCIERR_CMD_GET_PE, NLM_F_DUMP, a, 0);
		if (!r)
			r = recv_until(dump_cb, NULL, 0, 10000);
		return r ? 1 : 0;
	}
	if (argc >= 3 && strcmp(argv[1], "dump")) {
		/* ABI v2: every command names the PE's id too */
		r = lookup_id(strcmp(argv[1], "inject") ? PCIERR_A_PE :
			      PCIERR_A_DEVICE, argv[2], &pe_id);
		if (r) {
			printf("refused: GET_PE %s: %s\n", argv[2], strerror(-r));
			return 1;
		}
		p = put_u64(p, PCIERR_A_PE_ID, pe_id);
	}
	if (!strcmp(argv[1], "inject") && argc == 3) {
		int n = 0;

		p = put_str(p, PCIERR_A_DEVICE, argv[2]);
		r = subscribe();
		if (!r)
			r = send_req(family, PCIERR_CMD_INJECT, 0, a, p - a);
		if (!r)
			r = recv_until(event_cb, &n, 1, 10000);
		if (r)
			printf("refused: %s\n", strerror(-r));
		return r ? 1 : 0;
	}
	if (!strcmp(argv[1], "report") && argc == 4 && step_of(argv[3])) {
		p = put_str(p, PCIERR_A_PE, argv[2]);
		p = put_u32(p, PCIERR_A_STEP, step_of(argv[3]));
		return run_op(PCIERR_CMD_REPORT, a, p - a);
	}
	if (!strcmp(argv[1], "enable-io") && argc == 3) {
		p = put_str(p, PCIERR_A_PE, argv[2]);
		return run_op(PCIERR_CMD_ENABLE_IO, a, p - a);
	}
	if (!strcmp(argv[1], "reset") && argc == 4) {
		p = put_str(p, PCIERR_A_PE, argv[2]);
		p = put_u32(p, PCIERR_A_RESET_TYPE,
			    !strcmp(argv[3], "fundamental") ?
			    PCIERR_RESET_FUNDAMENTAL : PCIERR_RESET_HOT);
		return run_op(PCIERR_CMD_RESET, a, p - a);
	}
	fprintf(stderr, "pcierr-ppc: bad command\n");
	return 2;
}

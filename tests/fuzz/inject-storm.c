// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inject-storm DEV N [BATCH]: N INJECTs (PCIERR_CMD_INJECT, frozen) on
 * DEV, as fast as the shim takes them: the INJECT half of issue 11's
 * event storm (VM scenario 42).
 *
 * The INJECTs go out BATCH at a time (default 128) in one datagram on a
 * netlink socket of the tool's own: the kernel handles the messages of a
 * datagram one after the other within the sendmsg(), and queues one answer
 * for each (no NLM_F_ACK: the INJECT's reply when it was accepted, an
 * error otherwise), which one recvmmsg() then reads. BATCH 1 is one round
 * trip an INJECT, as libpcierr's pcierr_inject() makes it.
 *
 * Each INJECT names the PE id the device's PE had; when the PE changed
 * meanwhile (-ESTALE: pcierrd's recovery rescanned it) the id is looked
 * up again (through libpcierr) and as many INJECTs as were refused are
 * sent again, so that exactly N are accepted in the end.
 *
 * Prints one line,
 *   "inject-storm dev=DEV sent=N stale=S ms=T batch=K datagrams=D lookups=L"
 * with " error=..." after it when an INJECT failed otherwise: T the guest
 * time for all N, S the INJECTs refused with ESTALE (and sent again), D
 * the datagrams sent, L the PE id lookups after the first. Exits 0 when N
 * INJECTs were accepted, 1 when one failed otherwise, 2 on a setup error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include <pcierr/pcierr.h>

#define BATCH_DEFAULT 128
#define BATCH_MAX 1024
/* an answer: the INJECT's reply (32 bytes) or an error (36 with NETLINK_CAP_ACK) */
#define ANSWER_MAX 256
/* room for a whole batch's answers: each costs its skb's truesize */
#define RCVBUF (8 << 20)

struct storm {
	int fd;
	int family;
	unsigned long batch;
	uint8_t *req;		/* the batch: BATCH copies of one INJECT */
	size_t req_len;		/* one INJECT, aligned */
	uint8_t *ans;		/* BATCH answers of ANSWER_MAX bytes */
	struct mmsghdr *mm;
	struct iovec *iov;
	uint32_t seq;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int pe_id_of(struct pcierr_ctx *ctx, const char *dev, uint64_t *ret)
{
	struct pcierr_pe pe;
	int r = pcierr_pe_get_by_device(ctx, dev, &pe);

	if (r < 0)
		return r;
	*ret = pe.id;
	pcierr_pe_clear(&pe);
	return 0;
}

/* The family's id and a socket of our own, with room for a batch's answers. */
static int storm_open(struct storm *s)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1, size = RCVBUF, fd, r;

	if (!sk)
		return -ENOMEM;
	r = genl_connect(sk);
	if (r >= 0)
		r = genl_ctrl_resolve(sk, PCIERR_GENL_NAME);
	nl_socket_free(sk);
	if (r < 0)
		return -EPROTONOSUPPORT;
	s->family = r;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	/* errors without the request echoed in them */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	s->fd = fd;
	return 0;
}

/* The batch: s->batch copies of the INJECT of @dev on PE @pe_id. */
static int storm_build(struct storm *s, const char *dev, uint64_t pe_id)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlmsghdr *h;
	unsigned long i;
	int r = -ENOMEM;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, 0, 0, s->family, 0, NLM_F_REQUEST, PCIERR_CMD_INJECT,
			 PCIERR_GENL_VERSION) ||
	    nla_put_string(msg, PCIERR_A_DEVICE, dev) < 0 ||
	    nla_put_u64(msg, PCIERR_A_PE_ID, pe_id) < 0 ||
	    nla_put_u32(msg, PCIERR_A_STATE, PCIERR_STATE_FROZEN) < 0 ||
	    nla_put_u32(msg, PCIERR_A_TIME_UNAVAIL_MS, 0) < 0)
		goto out;
	h = nlmsg_hdr(msg);
	s->req_len = NLMSG_ALIGN(h->nlmsg_len);
	free(s->req);
	s->req = calloc(s->batch, s->req_len);
	if (!s->req)
		goto out;
	for (i = 0; i < s->batch; i++)
		memcpy(s->req + i * s->req_len, h, h->nlmsg_len);
	r = 0;
out:
	nlmsg_free(msg);
	return r;
}

/*
 * Send @k INJECTs in one datagram and read their @k answers: the number
 * accepted, *@stale the number refused with ESTALE, *@err the first other
 * errno (0 if none). A negative return: the exchange itself failed.
 */
static long storm_batch(struct storm *s, unsigned long k, unsigned long *stale, int *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint32_t seq0 = s->seq;
	unsigned long i, got = 0, ok = 0;

	for (i = 0; i < k; i++)
		((struct nlmsghdr *)(s->req + i * s->req_len))->nlmsg_seq = s->seq++;
	if (sendto(s->fd, s->req, k * s->req_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;

	*stale = 0;
	*err = 0;
	while (got < k) {
		int n;

		for (i = 0; i < k - got; i++) {
			s->iov[i].iov_base = s->ans + i * ANSWER_MAX;
			s->iov[i].iov_len = ANSWER_MAX;
			memset(&s->mm[i], 0, sizeof(s->mm[i]));
			s->mm[i].msg_hdr.msg_iov = &s->iov[i];
			s->mm[i].msg_hdr.msg_iovlen = 1;
		}
		/* all answers are queued when sendto() returns: one call reads them */
		n = recvmmsg(s->fd, s->mm, (unsigned int)(k - got), MSG_WAITFORONE, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: answers were lost, the count is unknown */
			return -errno;
		}
		for (i = 0; i < (unsigned long)n; i++) {
			struct nlmsghdr *h = s->iov[i].iov_base;
			size_t len = s->mm[i].msg_len;

			if (len < NLMSG_HDRLEN || !NLMSG_OK(h, len) ||
			    h->nlmsg_seq - seq0 >= k || (s->mm[i].msg_hdr.msg_flags & MSG_TRUNC))
				return -EBADMSG;
			got++;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EBADMSG;
				if (!e->error)
					ok++;	/* not asked for; an ack says accepted */
				else if (e->error == -ESTALE)
					(*stale)++;
				else if (!*err)
					*err = -e->error;
			} else if (h->nlmsg_type == s->family) {
				ok++;
			} else {
				return -EBADMSG;
			}
		}
	}
	return (long)ok;
}

int main(int argc, char *argv[])
{
	struct storm s = { .fd = -1, .batch = BATCH_DEFAULT, .seq = 1 };
	unsigned long n, sent = 0, stale = 0, datagrams = 0, lookups = 0;
	struct pcierr_ctx *ctx = NULL;
	uint64_t id, t0;
	int r, err = 0, rc = 2;
	char *end;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: inject-storm DEV N [BATCH]\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || end == argv[2] || *end) {
		fprintf(stderr, "inject-storm: bad count '%s'\n", argv[2]);
		return 2;
	}
	if (argc == 4) {
		s.batch = strtoul(argv[3], &end, 10);
		if (errno || end == argv[3] || *end || !s.batch || s.batch > BATCH_MAX) {
			fprintf(stderr, "inject-storm: bad batch '%s' (1-%d)\n", argv[3], BATCH_MAX);
			return 2;
		}
	}
	s.ans = malloc(s.batch * ANSWER_MAX);
	s.mm = calloc(s.batch, sizeof(*s.mm));
	s.iov = calloc(s.batch, sizeof(*s.iov));
	if (!s.ans || !s.mm || !s.iov) {
		fprintf(stderr, "inject-storm: out of memory\n");
		goto out;
	}
	r = pcierr_ctx_new(&ctx);
	if (r >= 0)
		r = storm_open(&s);
	if (r < 0) {
		fprintf(stderr, "inject-storm: cannot connect to the shim: %s\n", strerror(-r));
		goto out;
	}
	r = pe_id_of(ctx, argv[1], &id);
	if (r >= 0)
		r = storm_build(&s, argv[1], id);
	if (r < 0) {
		fprintf(stderr, "inject-storm: no PE for %s: %s\n", argv[1], strerror(-r));
		goto out;
	}
	t0 = now_ms();
	r = 0;
	while (sent < n) {
		unsigned long k = n - sent < s.batch ? n - sent : s.batch, st = 0;
		long ok = storm_batch(&s, k, &st, &err);

		if (ok < 0) {
			r = (int)ok;
			break;
		}
		datagrams++;
		sent += (unsigned long)ok;
		stale += st;
		if (err) {
			r = -err;
			break;
		}
		if (st) {
			/* the refused ones go again, with the PE's id now */
			if (stale > n) {
				r = -ESTALE;
				break;
			}
			lookups++;
			r = pe_id_of(ctx, argv[1], &id);
			if (r >= 0)
				r = storm_build(&s, argv[1], id);
			if (r < 0)
				break;
		}
	}
	printf("inject-storm dev=%s sent=%lu stale=%lu ms=%llu batch=%lu datagrams=%lu lookups=%lu%s%s\n",
	       argv[1], sent, stale, (unsigned long long)(now_ms() - t0), s.batch, datagrams,
	       lookups, r < 0 ? " error=" : "", r < 0 ? strerror(-r) : "");
	rc = sent == n ? 0 : 1;
out:
	if (s.fd >= 0)
		close(s.fd);
	pcierr_ctx_free(ctx);
	free(s.req);
	free(s.ans);
	free(s.mm);
	free(s.iov);
	return rc;
}

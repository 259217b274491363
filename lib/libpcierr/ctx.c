// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpcierr: the context, requests and notifications.
 *
 * Two netlink sockets: "req" for commands (libnl builds and sends the
 * request; the reply is read here, so that the kernel's errno and its
 * extended ack survive intact) and "ev", subscribed to the "events"
 * group and to the generic netlink controller's "notify" group (which
 * announces families coming and going: how we learn that pcierr_shim was
 * unloaded, as its own group just falls silent). pcierr_event_fd() is an
 * epoll instance over the event socket and an eventfd that is readable
 * while notifications are queued (taken off the socket by
 * pcierr_op_wait() but not yet delivered).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "macros.h"
#include "pcierr-internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Receive buffer asked for on the event socket */
#define EVENT_RCVBUF (4 * 1024 * 1024)

/* The generic netlink controller and its multicast group */
#define CTRL_GENL_NAME "nlctrl"
#define CTRL_MCGRP_NOTIFY "notify"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

int pcierr_nle_to_errno(int nle)
{
	static const int map[NLE_MAX + 1] = {
		[NLE_SUCCESS]		= 0,
		[NLE_FAILURE]		= EIO,
		[NLE_INTR]		= EINTR,
		[NLE_BAD_SOCK]		= ENOTSOCK,
		[NLE_AGAIN]		= EAGAIN,
		[NLE_NOMEM]		= ENOMEM,
		[NLE_EXIST]		= EEXIST,
		[NLE_INVAL]		= EINVAL,
		[NLE_RANGE]		= ERANGE,
		[NLE_MSGSIZE]		= EMSGSIZE,
		[NLE_OPNOTSUPP]		= EOPNOTSUPP,
		[NLE_AF_NOSUPPORT]	= EAFNOSUPPORT,
		[NLE_OBJ_NOTFOUND]	= ENOENT,
		[NLE_NOATTR]		= ENODATA,
		[NLE_MISSING_ATTR]	= EBADMSG,
		[NLE_AF_MISMATCH]	= EAFNOSUPPORT,
		[NLE_SEQ_MISMATCH]	= EPROTO,
		[NLE_MSG_OVERFLOW]	= EOVERFLOW,
		[NLE_MSG_TRUNC]		= EMSGSIZE,
		[NLE_NOADDR]		= EADDRNOTAVAIL,
		[NLE_SRCRT_NOSUPPORT]	= EOPNOTSUPP,
		[NLE_MSG_TOOSHORT]	= EBADMSG,
		[NLE_MSGTYPE_NOSUPPORT]	= EOPNOTSUPP,
		[NLE_OBJ_MISMATCH]	= EINVAL,
		[NLE_NOCACHE]		= ENOENT,
		[NLE_BUSY]		= EBUSY,
		[NLE_PROTO_MISMATCH]	= EPROTONOSUPPORT,
		[NLE_NOACCESS]		= EACCES,
		[NLE_PERM]		= EPERM,
		[NLE_PKTLOC_FILE]	= ENOENT,
		[NLE_PARSE_ERR]		= EBADMSG,
		[NLE_NODEV]		= ENODEV,
		[NLE_IMMUTABLE]		= EROFS,
		[NLE_DUMP_INTR]		= EAGAIN,
		[NLE_ATTRSIZE]		= ERANGE,
	};

	if (nle < 0)
		nle = -nle;
	if (nle == 0)
		return 0;
	if (nle > NLE_MAX)
		return -EIO;
	return -map[nle];
}

/* ------------------------------------------------------------------ */
/* The queue of notifications taken off the socket but not delivered    */
/* ------------------------------------------------------------------ */

static void queue_signal(struct pcierr_ctx *ctx)
{
	uint64_t one = 1, v;

	if (ctx->queue_fd < 0)
		return;
	if (ctx->n_queued > 0) {
		(void)!write(ctx->queue_fd, &one, sizeof(one));
	} else {
		/* drain: not readable any more */
		(void)!read(ctx->queue_fd, &v, sizeof(v));
	}
}

static void queue_push(struct pcierr_ctx *ctx, struct pcierr_queued *q)
{
	bool was_empty = ctx->n_queued == 0;

	q->next = NULL;
	if (ctx->tail)
		ctx->tail->next = q;
	else
		ctx->head = q;
	ctx->tail = q;
	ctx->n_queued++;
	if (was_empty)
		queue_signal(ctx);
}

static struct pcierr_queued *queue_unlink(struct pcierr_ctx *ctx, struct pcierr_queued *prev,
					  struct pcierr_queued *q)
{
	if (prev)
		prev->next = q->next;
	else
		ctx->head = q->next;
	if (ctx->tail == q)
		ctx->tail = prev;
	q->next = NULL;
	ctx->n_queued--;
	if (ctx->n_queued == 0)
		queue_signal(ctx);
	return q;
}

static int queue_overflow(struct pcierr_ctx *ctx, enum pcierr_overflow_reason reason)
{
	struct pcierr_queued *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->n.type = PCIERR_NOTIFY_OVERFLOW;
	q->n.overflow.reason = reason;
	queue_push(ctx, q);
	return 0;
}

static void queued_free(struct pcierr_queued *q)
{
	if (!q)
		return;
	if (q->n.type == PCIERR_NOTIFY_OP_DONE)
		free(q->n.op_done.results);
	if (q->n.type == PCIERR_NOTIFY_RECOVER_DONE)
		pcierr_recover_done_clear(&q->n.recover_done);
	free(q);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */
/* ------------------------------------------------------------------ */

struct rbuf {
	void *data;
	size_t size;
};

static void rbuf_free(struct rbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}

/*
 * Receive one datagram from the kernel into b. Returns its length (> 0),
 * 0 if none was waiting (non-blocking) or one came from elsewhere than
 * the kernel (dropped), or a negative errno (-ENOBUFS: the socket's
 * receive buffer overran and messages were lost).
 */
static ssize_t recv_datagram(int fd, bool nonblock, struct rbuf *b)
{
	struct sockaddr_nl sa;
	struct iovec iov;
	struct msghdr mh = {
		.msg_name = &sa,
		.msg_namelen = sizeof(sa),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	int flags = nonblock ? MSG_DONTWAIT : 0;
	ssize_t n;

	/* how long is it? */
	for (;;) {
		iov.iov_base = b->data;
		iov.iov_len = b->size;
		n = recvmsg(fd, &mh, flags | MSG_PEEK | MSG_TRUNC);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return nonblock ? 0 : -ETIMEDOUT;
		return negative_errno();
	}
	if ((size_t)n > b->size || !b->data) {
		size_t want = (size_t)n < 4096 ? 4096 : (size_t)n;
		void *p = realloc(b->data, want);

		if (!p)
			return -ENOMEM;
		b->data = p;
		b->size = want;
	}
	for (;;) {
		iov.iov_base = b->data;
		iov.iov_len = b->size;
		mh.msg_namelen = sizeof(sa);
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		return negative_errno();
	}
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	if (mh.msg_namelen < sizeof(sa) || sa.nl_family != AF_NETLINK || sa.nl_pid != 0)
		return 0;	/* not from the kernel */
	return n;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

/*
 * NLMSG_NEXT() for a size_t remainder: a last message shorter than its
 * alignment (nlmsg_len not a multiple of 4, no padding after it) ends the
 * datagram, where NLMSG_NEXT() would wrap rem around to a huge value and
 * walk past the buffer (found by tests/fuzz/fuzz-msg).
 */
static const struct nlmsghdr *msg_next(const struct nlmsghdr *nlh, size_t *rem)
{
	size_t step = NLMSG_ALIGN(nlh->nlmsg_len);

	if (step > *rem)
		step = *rem;
	*rem -= step;
	return (const struct nlmsghdr *)((const char *)nlh + step);
}

static void set_errmsg(struct pcierr_ctx *ctx, const char *msg)
{
	if (!msg || !*msg) {
		ctx->has_errmsg = false;
		ctx->errmsg[0] = 0;
		return;
	}
	strncpy(ctx->errmsg, msg, sizeof(ctx->errmsg) - 1);
	ctx->errmsg[sizeof(ctx->errmsg) - 1] = 0;
	ctx->has_errmsg = true;
}

int pcierr_reply_process(struct pcierr_ctx *ctx, struct pcierr_reply_state *st,
			 const void *buf, size_t len)
{
	const struct nlmsghdr *nlh;
	size_t rem = len;
	int r;

	for (nlh = buf; !st->done && rem >= NLMSG_HDRLEN && NLMSG_OK(nlh, rem);
	     nlh = msg_next(nlh, &rem)) {
		if (nlh->nlmsg_seq != st->seq)
			continue;	/* a stale reply */

		if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
			char text[PCIERR_ERRMSG_MAX];
			int error;

			if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
				st->intr = true;
			r = pcierr_parse_ack(nlh, rem, &error, text, sizeof(text));
			if (r < 0)
				error = r;
			if (error < 0) {
				set_errmsg(ctx, r < 0 ? NULL : text);
				if (st->result == 0)
					st->result = error;
			}
			st->done = true;
			break;
		}
		if (nlh->nlmsg_type == NLMSG_NOOP)
			continue;
		if (nlh->nlmsg_type == NLMSG_OVERRUN) {
			st->result = -ENOBUFS;
			st->done = true;
			break;
		}
		if (nlh->nlmsg_type != ctx->family)
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			st->intr = true;
		if (st->fn && st->result == 0) {
			r = st->fn(nlh, rem, st->userdata);
			if (r < 0)
				st->result = r;	/* keep reading to the end */
		}
	}
	return st->done;
}

/*
 * Send msg and read the reply: for a doit (always sent with NLM_F_ACK),
 * the reply messages and then the ack; for a dump, the parts up to
 * NLMSG_DONE. fn is called for each reply message of the family.
 * *ret_intr (dumps) tells whether any part carried NLM_F_DUMP_INTR.
 * Returns 0, fn's first error, or the kernel's negative errno.
 */
static int transact(struct pcierr_ctx *ctx, struct nl_msg *msg, bool dump,
		    pcierr_reply_fn fn, void *userdata, bool *ret_intr)
{
	struct pcierr_reply_state st = { .fn = fn, .userdata = userdata };
	struct rbuf b = {};
	int r;

	set_errmsg(ctx, NULL);
	if (!ctx->req || ctx->family_gone)
		return -ENOTCONN;
	if (!dump)
		nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	r = nl_send_auto(ctx->req, msg);
	if (r < 0)
		return pcierr_nle_to_errno(r);
	st.seq = nlmsg_hdr(msg)->nlmsg_seq;

	while (!st.done) {
		ssize_t n = recv_datagram(nl_socket_get_fd(ctx->req), false, &b);

		if (n < 0) {
			rbuf_free(&b);
			return (int)n;
		}
		pcierr_reply_process(ctx, &st, b.data, (size_t)n);
	}
	rbuf_free(&b);
	if (ret_intr)
		*ret_intr = st.intr;
	return st.result;
}

static int new_request(struct pcierr_ctx *ctx, uint8_t cmd, int flags, struct nl_msg **ret)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;

	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctx->family, 0, flags, cmd,
			 PCIERR_GENL_VERSION))
		return -ENOMEM;
	*ret = TAKE_PTR(msg);
	return 0;
}

static int put_addr(struct nl_msg *msg, int attr, const char *addr)
{
	char canon[PCIERR_ADDR_STRLEN];
	int r;

	r = pcierr_addr_normalize(addr, canon);
	if (r < 0)
		return r;
	r = nla_put_string(msg, attr, canon);
	return r < 0 ? pcierr_nle_to_errno(r) : 0;
}

static int put_u32(struct nl_msg *msg, int attr, uint32_t v)
{
	int r = nla_put_u32(msg, attr, v);

	return r < 0 ? pcierr_nle_to_errno(r) : 0;
}

static int put_pe_id(struct nl_msg *msg, uint64_t pe_id)
{
	int r;

	if (pe_id == 0)
		return -EINVAL;
	r = nla_put_u64(msg, PCIERR_A_PE_ID, pe_id);
	return r < 0 ? pcierr_nle_to_errno(r) : 0;
}

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

_public_ void pcierr_ctx_free(struct pcierr_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->head)
		queued_free(queue_unlink(ctx, NULL, ctx->head));
	if (ctx->req)
		nl_socket_free(ctx->req);
	if (ctx->ev)
		nl_socket_free(ctx->ev);
	if (ctx->epoll_fd >= 0)
		close(ctx->epoll_fd);
	if (ctx->queue_fd >= 0)
		close(ctx->queue_fd);
	free(ctx);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct pcierr_ctx *, pcierr_ctx_free)

static int sockopt_int(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) < 0 ? negative_errno() : 0;
}

static int ctx_alloc(struct pcierr_ctx **ret)
{
	_cleanup_(pcierr_ctx_freep) struct pcierr_ctx *ctx = NULL;
	struct epoll_event ee = { .events = EPOLLIN };

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->epoll_fd = ctx->queue_fd = -1;
	ctx->queue_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->queue_fd < 0)
		return negative_errno();
	ctx->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epoll_fd < 0)
		return negative_errno();
	ee.data.fd = ctx->queue_fd;
	if (epoll_ctl(ctx->epoll_fd, EPOLL_CTL_ADD, ctx->queue_fd, &ee) < 0)
		return negative_errno();
	*ret = TAKE_PTR(ctx);
	return 0;
}

int pcierr_ctx_new_detached(int family, struct pcierr_ctx **ret)
{
	struct pcierr_ctx *ctx;
	int r;

	r = ctx_alloc(&ctx);
	if (r < 0)
		return r;
	ctx->family = family;
	*ret = ctx;
	return 0;
}

_public_ int pcierr_ctx_new(struct pcierr_ctx **ret)
{
	_cleanup_(pcierr_ctx_freep) struct pcierr_ctx *ctx = NULL;
	struct epoll_event ee = { .events = EPOLLIN };
	struct timeval tv = {
		.tv_sec = PCIERR_REPLY_TIMEOUT_MS / 1000,
		.tv_usec = (PCIERR_REPLY_TIMEOUT_MS % 1000) * 1000,
	};
	int r, fd, ctrl_group;

	if (!ret)
		return -EINVAL;

	r = ctx_alloc(&ctx);
	if (r < 0)
		return r;

	ctx->req = nl_socket_alloc();
	if (!ctx->req)
		return -ENOMEM;
	r = genl_connect(ctx->req);
	if (r < 0)
		return pcierr_nle_to_errno(r);

	/* where the controller announces families added and removed */
	r = genl_ctrl_resolve_grp(ctx->req, CTRL_GENL_NAME, CTRL_MCGRP_NOTIFY);
	if (r < 0)
		return pcierr_nle_to_errno(r);
	ctrl_group = r;

	ctx->ev = nl_socket_alloc();
	if (!ctx->ev)
		return -ENOMEM;
	nl_socket_disable_seq_check(ctx->ev);
	nl_socket_disable_auto_ack(ctx->ev);
	r = nl_connect(ctx->ev, NETLINK_GENERIC);
	if (r < 0)
		return pcierr_nle_to_errno(r);
	fd = nl_socket_get_fd(ctx->ev);
	/* a big buffer: bursts of events; beyond it, ENOBUFS is reported */
	if (sockopt_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, EVENT_RCVBUF) < 0)
		(void)sockopt_int(fd, SOL_SOCKET, SO_RCVBUF, EVENT_RCVBUF);
	/* Joined before the family is resolved: a removal after that is
	 * announced to us. (Joining a group that no longer exists succeeds
	 * silently: without this order, a removal between resolving and
	 * joining would go unnoticed.) */
	r = nl_socket_add_membership(ctx->ev, ctrl_group);
	if (r < 0)
		return pcierr_nle_to_errno(r);

	/* (never loads the module: it has no family alias, review D24) */
	r = genl_ctrl_resolve(ctx->req, PCIERR_GENL_NAME);
	if (r == -NLE_OBJ_NOTFOUND)
		return -EPROTONOSUPPORT;
	if (r < 0)
		return pcierr_nle_to_errno(r);
	ctx->family = r;

	r = genl_ctrl_resolve_grp(ctx->req, PCIERR_GENL_NAME, PCIERR_MCGRP_EVENTS);
	if (r == -NLE_OBJ_NOTFOUND)
		return -EPROTONOSUPPORT;
	if (r < 0)
		return pcierr_nle_to_errno(r);
	ctx->group = (uint32_t)r;
	r = nl_socket_add_membership(ctx->ev, (int)ctx->group);
	/* without CAP_NET_ADMIN: requests still work, events do not */
	if (r < 0 && pcierr_nle_to_errno(r) != -EPERM && pcierr_nle_to_errno(r) != -EACCES)
		return pcierr_nle_to_errno(r);
	ctx->events_joined = r >= 0;

	ee.data.fd = fd;
	if (epoll_ctl(ctx->epoll_fd, EPOLL_CTL_ADD, fd, &ee) < 0)
		return negative_errno();

	/* replies are read by transact(): acks only where asked for */
	nl_socket_disable_auto_ack(ctx->req);
	fd = nl_socket_get_fd(ctx->req);
	(void)sockopt_int(fd, SOL_NETLINK, NETLINK_EXT_ACK, 1);
	(void)sockopt_int(fd, SOL_NETLINK, NETLINK_CAP_ACK, 1);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return negative_errno();

	*ret = TAKE_PTR(ctx);
	return 0;
}

_public_ int pcierr_ctx_reconnect(struct pcierr_ctx *ctx)
{
	int family, group, r;

	if (!ctx)
		return -EINVAL;
	if (!ctx->req || !ctx->ev)
		return -ENOTCONN;

	family = genl_ctrl_resolve(ctx->req, PCIERR_GENL_NAME);
	if (family == -NLE_OBJ_NOTFOUND)
		return -EPROTONOSUPPORT;
	if (family < 0)
		return pcierr_nle_to_errno(family);
	group = genl_ctrl_resolve_grp(ctx->req, PCIERR_GENL_NAME, PCIERR_MCGRP_EVENTS);
	if (group == -NLE_OBJ_NOTFOUND)
		return -EPROTONOSUPPORT;
	if (group < 0)
		return pcierr_nle_to_errno(group);

	/* Join the new group first: on failure, nothing has changed. (The
	 * kernel dropped every member of the old one with the old family;
	 * joining again an unchanged one is a no-op.) A removal after the
	 * resolving above is announced on the controller's group, which the
	 * event socket never left: it flags the new instance gone. */
	r = nl_socket_add_membership(ctx->ev, group);
	if (r < 0 && pcierr_nle_to_errno(r) != -EPERM && pcierr_nle_to_errno(r) != -EACCES)
		return pcierr_nle_to_errno(r);
	if ((uint32_t)group != ctx->group && ctx->events_joined)
		(void)nl_socket_drop_membership(ctx->ev, (int)ctx->group);
	ctx->events_joined = r >= 0;

	ctx->family = family;
	ctx->group = (uint32_t)group;
	ctx->family_gone = false;
	return 0;
}

_public_ bool pcierr_events_joined(struct pcierr_ctx *ctx)
{
	return ctx && ctx->events_joined;
}

_public_ const char *pcierr_last_error_message(struct pcierr_ctx *ctx)
{
	return ctx && ctx->has_errmsg ? ctx->errmsg : NULL;
}

_public_ int pcierr_family_id(struct pcierr_ctx *ctx)
{
	return ctx ? ctx->family : -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Notifications                                                       */
/* ------------------------------------------------------------------ */

_public_ int pcierr_event_fd(struct pcierr_ctx *ctx)
{
	return ctx ? ctx->epoll_fd : -EINVAL;
}

_public_ size_t pcierr_event_pending(struct pcierr_ctx *ctx)
{
	return ctx ? ctx->n_queued : 0;
}

int pcierr_ev_process(struct pcierr_ctx *ctx, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh;
	size_t rem = len;
	int r;

	for (nlh = buf; rem >= NLMSG_HDRLEN && NLMSG_OK(nlh, rem); nlh = msg_next(nlh, &rem)) {
		struct pcierr_notification *parsed = NULL;
		struct pcierr_queued *q;

		if (nlh->nlmsg_type == GENL_ID_CTRL)
			r = pcierr_parse_ctrl(nlh, rem, &parsed);
		else if (nlh->nlmsg_type == ctx->family)
			r = pcierr_parse_notification(nlh, rem, &parsed);
		else
			continue;
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			r = queue_overflow(ctx, PCIERR_OVERFLOW_BAD_MESSAGE);
			if (r < 0)
				return r;
			continue;
		}
		if (!parsed)
			continue;
		/* our instance went away (not an older one, announced late) */
		if (parsed->type == PCIERR_NOTIFY_FAMILY_REMOVED &&
		    parsed->family.family_id == ctx->family)
			ctx->family_gone = true;
		/* the instance we are connected to, announced after we joined
		 * (the module loaded on demand by pcierr_ctx_new()): nothing
		 * for the caller to do, not reported */
		if (parsed->type == PCIERR_NOTIFY_FAMILY_ADDED &&
		    parsed->family.family_id == ctx->family && !ctx->family_gone) {
			pcierr_notification_free(parsed);
			continue;
		}
		/* move it into a queue entry */
		q = calloc(1, sizeof(*q));
		if (!q) {
			pcierr_notification_free(parsed);
			return -ENOMEM;
		}
		q->n = *parsed;
		free(parsed);
		queue_push(ctx, q);
	}
	/* a datagram that ends in a truncated message lost that message */
	if (rem > 0) {
		r = queue_overflow(ctx, PCIERR_OVERFLOW_BAD_MESSAGE);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Take one datagram off the event socket and queue what it holds.
 * Returns 1 if one was there, 0 if not, or a negative errno.
 */
static int ev_receive(struct pcierr_ctx *ctx)
{
	struct rbuf b = {};
	ssize_t n;
	int r;

	if (!ctx->ev)
		return 0;
	n = recv_datagram(nl_socket_get_fd(ctx->ev), true, &b);
	if (n == -ENOBUFS || n == -EMSGSIZE) {
		rbuf_free(&b);
		r = queue_overflow(ctx, n == -ENOBUFS ? PCIERR_OVERFLOW_SOCKET
					: PCIERR_OVERFLOW_BAD_MESSAGE);
		return r < 0 ? r : 1;
	}
	if (n <= 0) {
		rbuf_free(&b);
		return (int)n;
	}
	r = pcierr_ev_process(ctx, b.data, (size_t)n);
	rbuf_free(&b);
	return r < 0 ? r : 1;
}

_public_ int pcierr_event_read(struct pcierr_ctx *ctx, pcierr_notify_fn cb, void *userdata)
{
	int delivered = 0, r;

	if (!ctx || !cb)
		return -EINVAL;

	while (delivered < PCIERR_EVENT_READ_BATCH) {
		struct pcierr_queued *q;

		if (!ctx->head) {
			r = ev_receive(ctx);
			if (r < 0)
				return r;
			if (r == 0)
				break;
			continue;
		}
		q = queue_unlink(ctx, NULL, ctx->head);
		r = cb(ctx, &q->n, userdata);
		queued_free(q);
		delivered++;
		if (r < 0)
			return r;
	}
	return delivered;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int poll_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return negative_errno();
	return r > 0;
}

_public_ int pcierr_event_wait(struct pcierr_ctx *ctx, int timeout_ms)
{
	if (!ctx)
		return -EINVAL;
	if (ctx->n_queued > 0)
		return 1;
	return poll_fd(ctx->epoll_fd, timeout_ms < 0 ? -1 : timeout_ms);
}

static struct pcierr_queued *find_op_done(struct pcierr_ctx *ctx, uint64_t op_id)
{
	struct pcierr_queued *prev = NULL;

	for (struct pcierr_queued *q = ctx->head; q; prev = q, q = q->next)
		if (q->n.type == PCIERR_NOTIFY_OP_DONE && q->n.op_done.op_id == op_id)
			return queue_unlink(ctx, prev, q);
	return NULL;
}

_public_ int pcierr_op_wait(struct pcierr_ctx *ctx, uint64_t op_id, int timeout_ms,
			    struct pcierr_op_done *ret)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pcierr_queued *q;
	int r;

	if (!ctx || !ret)
		return -EINVAL;

	for (;;) {
		int left;

		q = find_op_done(ctx, op_id);
		if (q)
			break;
		/* take everything waiting on the socket */
		do {
			r = ev_receive(ctx);
			if (r < 0)
				return r;
		} while (r > 0);
		q = find_op_done(ctx, op_id);
		if (q)
			break;
		/* the module went away: the OP_DONE will never come */
		if (ctx->family_gone)
			return -ENOTCONN;

		if (deadline < 0) {
			left = -1;
		} else {
			int64_t d = deadline - now_ms();

			if (d <= 0)
				return -ETIMEDOUT;
			left = d > INT32_MAX ? INT32_MAX : (int)d;
		}
		r = poll_fd(ctx->ev ? nl_socket_get_fd(ctx->ev) : -1, left);
		if (r < 0)
			return r;
	}
	*ret = q->n.op_done;
	q->n.op_done.results = NULL;
	queued_free(q);
	return 0;
}

_public_ void pcierr_op_done_clear(struct pcierr_op_done *done)
{
	if (!done)
		return;
	free(done->results);
	memset(done, 0, sizeof(*done));
}

/* ------------------------------------------------------------------ */
/* PEs, statistics                                                     */
/* ------------------------------------------------------------------ */

_public_ void pcierr_pe_list_clear(struct pcierr_pe_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->n_pes; i++)
		pcierr_pe_clear(&list->pes[i]);
	free(list->pes);
	memset(list, 0, sizeof(*list));
}

struct dump_state {
	struct pcierr_pe_list list;
	size_t cap;
};

/* Move part's devices to the end of pe's; part is cleared either way. */
static int pe_append_devices(struct pcierr_pe *pe, struct pcierr_pe *part)
{
	struct pcierr_device *p;

	if (strcmp(pe->addr, part->addr) != 0) {
		pcierr_pe_clear(part);
		return -EBADMSG;	/* one id, two addresses */
	}
	if (part->n_devices == 0) {
		pcierr_pe_clear(part);
		return 0;
	}
	p = reallocarray(pe->devices, pe->n_devices + part->n_devices, sizeof(*p));
	if (!p) {
		pcierr_pe_clear(part);
		return -ENOMEM;
	}
	memcpy(p + pe->n_devices, part->devices, part->n_devices * sizeof(*p));
	pe->devices = p;
	pe->n_devices += part->n_devices;
	/* the drivers' strings moved with them */
	free(part->devices);
	part->devices = NULL;
	part->n_devices = 0;
	pcierr_pe_clear(part);
	return 0;
}

int pcierr_pe_list_add(struct pcierr_pe_list *list, size_t *cap, struct pcierr_pe *pe)
{
	/* the next part of a PE split across messages: its devices follow */
	if (list->n_pes > 0 && list->pes[list->n_pes - 1].id == pe->id)
		return pe_append_devices(&list->pes[list->n_pes - 1], pe);
	if (list->n_pes == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct pcierr_pe *p = reallocarray(list->pes, c, sizeof(*p));

		if (!p) {
			pcierr_pe_clear(pe);
			return -ENOMEM;
		}
		list->pes = p;
		*cap = c;
	}
	list->pes[list->n_pes++] = *pe;
	memset(pe, 0, sizeof(*pe));
	return 0;
}

static int dump_part(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct dump_state *d = userdata;
	struct pcierr_pe pe;
	int r;

	r = pcierr_parse_pe(nlh, len, &pe);
	if (r < 0)
		return r;
	return pcierr_pe_list_add(&d->list, &d->cap, &pe);
}

_public_ int pcierr_pe_dump(struct pcierr_ctx *ctx, struct pcierr_pe_list *ret)
{
	int r;

	if (!ctx || !ret)
		return -EINVAL;

	for (int attempt = 0; attempt < PCIERR_DUMP_RETRIES; attempt++) {
		_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
		struct dump_state d = {};
		bool intr = false;

		r = new_request(ctx, PCIERR_CMD_GET_PE, NLM_F_DUMP, &msg);
		if (r < 0)
			return r;
		r = transact(ctx, msg, true, dump_part, &d, &intr);
		if (r < 0 || intr)
			pcierr_pe_list_clear(&d.list);
		if (r < 0)
			return r;
		if (!intr) {
			*ret = d.list;
			return 0;
		}
	}
	return -EAGAIN;
}

static int pe_reply(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct pcierr_pe *pe = userdata;

	if (pe->addr[0])
		return 0;	/* one is all we asked for */
	return pcierr_parse_pe(nlh, len, pe);
}

static int pe_get(struct pcierr_ctx *ctx, int attr, const char *addr, struct pcierr_pe *ret)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	struct pcierr_pe pe = {};
	int r;

	r = new_request(ctx, PCIERR_CMD_GET_PE, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = put_addr(msg, attr, addr);
	if (r < 0)
		return r;
	r = transact(ctx, msg, false, pe_reply, &pe, NULL);
	if (r < 0) {
		pcierr_pe_clear(&pe);
		return r;
	}
	if (!pe.addr[0])
		return -EBADMSG;	/* acked without a reply */
	*ret = pe;
	return 0;
}

struct last_recover {
	bool seen;
	int r;
	struct pcierr_recover_done d;
};

static int last_recover_reply(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct last_recover *l = userdata;

	if (l->seen)
		return 0;	/* one is all we asked for */
	l->seen = true;
	l->r = pcierr_parse_last_recover(nlh, len, &l->d);
	/* not a RECOVER: no failure of the request */
	return l->r == -ENOMSG ? 0 : l->r;
}

_public_ int pcierr_pe_last_recover(struct pcierr_ctx *ctx, const char *pe,
				    struct pcierr_recover_done *ret)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	struct last_recover l = {};
	char canon[PCIERR_ADDR_STRLEN];
	int r;

	if (!ctx || !ret || pcierr_addr_normalize(pe, canon) < 0)
		return -EINVAL;
	r = new_request(ctx, PCIERR_CMD_GET_PE, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = put_addr(msg, PCIERR_A_PE, canon);
	if (r < 0)
		return r;
	r = transact(ctx, msg, false, last_recover_reply, &l, NULL);
	if (r >= 0 && !l.seen)
		r = -EBADMSG;	/* acked without a reply */
	if (r >= 0)
		r = l.r;
	if (r < 0) {
		pcierr_recover_done_clear(&l.d);
		return r;
	}
	*ret = l.d;
	return 0;
}

_public_ int pcierr_pe_get(struct pcierr_ctx *ctx, const char *addr, struct pcierr_pe *ret)
{
	char canon[PCIERR_ADDR_STRLEN];
	int r;

	if (!ctx || !ret || pcierr_addr_normalize(addr, canon) < 0)
		return -EINVAL;
	r = pe_get(ctx, PCIERR_A_PE, canon, ret);
	if (r == -ENODEV || r == -ENOENT)
		r = pe_get(ctx, PCIERR_A_DEVICE, canon, ret);
	return r;
}

_public_ int pcierr_pe_get_by_device(struct pcierr_ctx *ctx, const char *dev, struct pcierr_pe *ret)
{
	if (!ctx || !ret)
		return -EINVAL;
	return pe_get(ctx, PCIERR_A_DEVICE, dev, ret);
}

_public_ const struct pcierr_device *pcierr_pe_find_device(const struct pcierr_pe *pe,
							   const char *addr)
{
	char canon[PCIERR_ADDR_STRLEN];

	if (!pe || pcierr_addr_normalize(addr, canon) < 0)
		return NULL;
	for (size_t i = 0; i < pe->n_devices; i++)
		if (strcmp(pe->devices[i].addr, canon) == 0)
			return &pe->devices[i];
	return NULL;
}

struct stats_reply {
	struct pcierr_stats *stats;
	bool got;
};

static int stats_reply(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct stats_reply *s = userdata;
	int r;

	if (s->got)
		return 0;
	r = pcierr_parse_stats(nlh, len, s->stats);
	if (r < 0)
		return r;
	s->got = true;
	return 0;
}

_public_ int pcierr_stats_get(struct pcierr_ctx *ctx, struct pcierr_stats *ret)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	struct pcierr_stats stats;
	struct stats_reply s = { .stats = &stats };
	int r;

	if (!ctx || !ret)
		return -EINVAL;
	r = new_request(ctx, PCIERR_CMD_GET_STATS, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = transact(ctx, msg, false, stats_reply, &s, NULL);
	if (r < 0)
		return r;
	if (!s.got)
		return -EBADMSG;
	*ret = stats;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

struct u64_reply {
	int attr;
	uint64_t value;
	bool got;
};

static int u64_reply(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct u64_reply *u = userdata;
	int r;

	if (u->got)
		return 0;
	r = pcierr_parse_u64_reply(nlh, len, u->attr, &u->value);
	if (r < 0)
		return r;
	u->got = true;
	return 0;
}

/* send msg; the reply must carry attr (u64), stored in *ret if not NULL */
static int request_u64(struct pcierr_ctx *ctx, struct nl_msg *msg, int attr, uint64_t *ret)
{
	struct u64_reply u = { .attr = attr };
	int r;

	r = transact(ctx, msg, false, u64_reply, &u, NULL);
	if (r < 0)
		return r;
	if (!u.got)
		return -EBADMSG;
	if (ret)
		*ret = u.value;
	return 0;
}

_public_ int pcierr_inject(struct pcierr_ctx *ctx, const char *dev, uint64_t pe_id,
			   enum pcierr_channel_state state, uint32_t time_unavail_ms,
			   uint64_t *ret_seq)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	int r;

	if (!ctx)
		return -EINVAL;
	if (state != PCIERR_STATE_UNSPEC && state != PCIERR_STATE_FROZEN &&
	    state != PCIERR_STATE_PERM_FAILURE)
		return -EINVAL;
	r = new_request(ctx, PCIERR_CMD_INJECT, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = put_addr(msg, PCIERR_A_DEVICE, dev);
	if (r < 0)
		return r;
	r = put_pe_id(msg, pe_id);
	if (r < 0)
		return r;
	if (state != PCIERR_STATE_UNSPEC) {
		r = put_u32(msg, PCIERR_A_STATE, state);
		if (r < 0)
			return r;
	}
	r = put_u32(msg, PCIERR_A_TIME_UNAVAIL_MS, time_unavail_ms);
	if (r < 0)
		return r;
	return request_u64(ctx, msg, PCIERR_A_SEQ, ret_seq);
}

/* an operation on a PE, with up to two extra u32 attributes */
static int pe_op(struct pcierr_ctx *ctx, uint8_t cmd, const char *pe, uint64_t pe_id,
		 int attr, uint32_t value, int attr2, uint32_t value2, uint64_t *ret_op_id)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	int r;

	if (!ctx)
		return -EINVAL;
	r = new_request(ctx, cmd, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = put_addr(msg, PCIERR_A_PE, pe);
	if (r < 0)
		return r;
	r = put_pe_id(msg, pe_id);
	if (r < 0)
		return r;
	if (attr) {
		r = put_u32(msg, attr, value);
		if (r < 0)
			return r;
	}
	if (attr2) {
		r = put_u32(msg, attr2, value2);
		if (r < 0)
			return r;
	}
	if (cmd == PCIERR_CMD_WATCH || cmd == PCIERR_CMD_ARM || cmd == PCIERR_CMD_HOLD)
		return transact(ctx, msg, false, NULL, NULL, NULL);
	return request_u64(ctx, msg, PCIERR_A_OP_ID, ret_op_id);
}

_public_ int pcierr_report(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			   enum pcierr_step step, enum pcierr_channel_state state,
			   uint64_t *ret_op_id)
{
	if (step <= PCIERR_STEP_UNSPEC || step > PCIERR_STEP_MAX)
		return -EINVAL;
	if (step != PCIERR_STEP_ERROR_DETECTED)
		return pe_op(ctx, PCIERR_CMD_REPORT, pe, pe_id, PCIERR_A_STEP, step, 0, 0,
			     ret_op_id);
	if (state == PCIERR_STATE_UNSPEC)
		state = PCIERR_STATE_FROZEN;
	if (state != PCIERR_STATE_FROZEN && state != PCIERR_STATE_PERM_FAILURE &&
	    state != PCIERR_STATE_NORMAL)
		return -EINVAL;
	return pe_op(ctx, PCIERR_CMD_REPORT, pe, pe_id, PCIERR_A_STEP, step,
		     PCIERR_A_STATE, state, ret_op_id);
}

_public_ int pcierr_enable_io(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			      uint64_t *ret_op_id)
{
	return pe_op(ctx, PCIERR_CMD_ENABLE_IO, pe, pe_id, 0, 0, 0, 0, ret_op_id);
}

_public_ int pcierr_reset(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			  enum pcierr_reset_type type, uint64_t *ret_op_id)
{
	if (type <= PCIERR_RESET_UNSPEC || type > PCIERR_RESET_MAX)
		return -EINVAL;
	return pe_op(ctx, PCIERR_CMD_RESET, pe, pe_id, PCIERR_A_RESET_TYPE, type, 0, 0,
		     ret_op_id);
}

_public_ int pcierr_recover(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			    enum pcierr_channel_state state, enum pcierr_reset_type type,
			    uint64_t *ret_op_id)
{
	if (state == PCIERR_STATE_UNSPEC)
		state = PCIERR_STATE_FROZEN;
	if (type == PCIERR_RESET_UNSPEC)
		type = PCIERR_RESET_HOT;
	if ((state != PCIERR_STATE_FROZEN && state != PCIERR_STATE_NORMAL) ||
	    type > PCIERR_RESET_MAX)
		return -EINVAL;
	return pe_op(ctx, PCIERR_CMD_RECOVER, pe, pe_id, PCIERR_A_STATE, state,
		     PCIERR_A_RESET_TYPE, type, ret_op_id);
}

_public_ int pcierr_remove(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			   uint64_t *ret_op_id)
{
	return pe_op(ctx, PCIERR_CMD_REMOVE, pe, pe_id, 0, 0, 0, 0, ret_op_id);
}

_public_ int pcierr_remove_device(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
				  const char *dev, uint64_t *ret_op_id)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	int r;

	if (!ctx)
		return -EINVAL;
	r = new_request(ctx, PCIERR_CMD_REMOVE, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	r = put_addr(msg, PCIERR_A_PE, pe);
	if (r < 0)
		return r;
	r = put_pe_id(msg, pe_id);
	if (r < 0)
		return r;
	r = put_addr(msg, PCIERR_A_DEVICE, dev);
	if (r < 0)
		return r;
	return request_u64(ctx, msg, PCIERR_A_OP_ID, ret_op_id);
}

_public_ int pcierr_rescan(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			   uint64_t *ret_op_id)
{
	return pe_op(ctx, PCIERR_CMD_RESCAN, pe, pe_id, 0, 0, 0, 0, ret_op_id);
}

_public_ int pcierr_disable(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			    uint64_t *ret_op_id)
{
	return pe_op(ctx, PCIERR_CMD_DISABLE, pe, pe_id, 0, 0, 0, 0, ret_op_id);
}

_public_ int pcierr_enable(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			   uint64_t *ret_op_id)
{
	return pe_op(ctx, PCIERR_CMD_ENABLE, pe, pe_id, 0, 0, 0, 0, ret_op_id);
}

_public_ int pcierr_watch(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			  uint32_t interval_ms)
{
	if (interval_ms != 0 &&
	    (interval_ms < PCIERR_WATCH_MIN_MS || interval_ms > PCIERR_WATCH_MAX_MS))
		return -EINVAL;
	/* no interval attribute: stop */
	return pe_op(ctx, PCIERR_CMD_WATCH, pe, pe_id,
		     interval_ms ? PCIERR_A_WATCH_INTERVAL_MS : 0, interval_ms, 0, 0, NULL);
}

_public_ int pcierr_arm(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			uint32_t budget, enum pcierr_reset_type type)
{
	if (type == PCIERR_RESET_UNSPEC)
		type = PCIERR_RESET_HOT;
	if (budget > 1 || type > PCIERR_RESET_MAX)
		return -EINVAL;
	return pe_op(ctx, PCIERR_CMD_ARM, pe, pe_id, PCIERR_A_AUTO_BUDGET, budget,
		     PCIERR_A_RESET_TYPE, type, NULL);
}

_public_ int pcierr_hold(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
			 uint32_t lease_ms)
{
	if (lease_ms != 0 && (lease_ms < PCIERR_HOLD_MIN_MS || lease_ms > PCIERR_HOLD_MAX_MS))
		return -EINVAL;
	return pe_op(ctx, PCIERR_CMD_HOLD, pe, pe_id, PCIERR_A_HOLD_MS, lease_ms, 0, 0, NULL);
}

/* ------------------------------------------------------------------ */
/* IOCHK                                                               */
/* ------------------------------------------------------------------ */

static int device_error_gen(struct pcierr_ctx *ctx, const char *dev, char canon[PCIERR_ADDR_STRLEN],
			    uint32_t *ret)
{
	struct pcierr_pe pe = {};
	const struct pcierr_device *d;
	int r;

	if (pcierr_addr_normalize(dev, canon) < 0)
		return -EINVAL;
	r = pcierr_pe_get_by_device(ctx, canon, &pe);
	if (r < 0)
		return r;
	d = pcierr_pe_find_device(&pe, canon);
	if (d)
		*ret = d->error_gen;
	pcierr_pe_clear(&pe);
	return d ? 0 : -ENODEV;
}

_public_ int pcierr_iochk_clear(struct pcierr_ctx *ctx, const char *dev,
				struct pcierr_iochk_cookie *cookie)
{
	struct pcierr_iochk_cookie c = {};
	int r;

	if (!ctx || !cookie)
		return -EINVAL;
	r = device_error_gen(ctx, dev, c.dev, &c.error_gen);
	if (r < 0)
		return r;
	*cookie = c;
	return 0;
}

_public_ int pcierr_iochk_read(struct pcierr_ctx *ctx, const struct pcierr_iochk_cookie *cookie)
{
	char canon[PCIERR_ADDR_STRLEN];
	uint32_t gen, diff;
	int r;

	if (!ctx || !cookie)
		return -EINVAL;
	r = device_error_gen(ctx, cookie->dev, canon, &gen);
	if (r < 0)
		return r;
	diff = gen - cookie->error_gen;	/* modulo 2^32, as the counter wraps */
	return diff > INT32_MAX ? INT32_MAX : (int)diff;
}

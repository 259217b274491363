/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpcierr internals: the context and the message parsers. Not
 * installed. The unit tests link the library's objects statically and
 * call the parsers directly with messages built as the kernel builds them.
 */
#ifndef PCIERR_INTERNAL_H
#define PCIERR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include <pcierr/pcierr.h>

/* Bound on dump retries after NLM_F_DUMP_INTR */
#define PCIERR_DUMP_RETRIES 5
/* Bound on notifications delivered per pcierr_event_read() */
#define PCIERR_EVENT_READ_BATCH 256
/* Give up on a kernel reply after this long */
#define PCIERR_REPLY_TIMEOUT_MS 30000
/* Bound on the extended ack text kept */
#define PCIERR_ERRMSG_MAX 256

struct pcierr_queued {
	struct pcierr_queued *next;
	struct pcierr_notification n;
};

struct pcierr_ctx {
	struct nl_sock *req;		/* commands and their replies */
	struct nl_sock *ev;		/* the "events" group and nlctrl's "notify" */
	int family;
	uint32_t group;
	bool events_joined;		/* member of the "events" group (not
					 * without CAP_NET_ADMIN) */
	bool family_gone;		/* our instance of the family was removed:
					 * requests and op waits fail (-ENOTCONN)
					 * until pcierr_ctx_reconnect() */
	int epoll_fd;			/* what pcierr_event_fd() returns */
	int queue_fd;			/* eventfd: readable while queue non-empty */
	struct pcierr_queued *head, *tail;
	size_t n_queued;
	char errmsg[PCIERR_ERRMSG_MAX];
	bool has_errmsg;
};

/* Reading the reply to one request (see transact() in ctx.c) */
typedef int (*pcierr_reply_fn)(const struct nlmsghdr *nlh, size_t len, void *userdata);

struct pcierr_reply_state {
	uint32_t seq;			/* of the request */
	pcierr_reply_fn fn;		/* called for each reply message */
	void *userdata;
	int result;			/* 0, fn's first error, the kernel's errno */
	bool intr;			/* NLM_F_DUMP_INTR seen */
	bool done;			/* ack or NLMSG_DONE seen */
};

/* Process one datagram of replies; returns st->done. Sets the context's
 * error message from the extended ack. */
int pcierr_reply_process(struct pcierr_ctx *ctx, struct pcierr_reply_state *st,
			 const void *buf, size_t len);

/* Process one datagram from the event socket: its notifications are
 * queued (an unparseable one as an overflow of reason BAD_MESSAGE); the
 * controller's (GENL_ID_CTRL) messages about the family "pcierr" as
 * FAMILY_REMOVED / _ADDED, a removal of ctx->family also setting
 * ctx->family_gone. Returns 0 or -ENOMEM. */
int pcierr_ev_process(struct pcierr_ctx *ctx, const void *buf, size_t len);

/* A context without sockets, for the unit tests: requests fail with
 * -ENOTCONN, the event socket never has anything; datagrams are fed in
 * with pcierr_ev_process(). */
int pcierr_ctx_new_detached(int family, struct pcierr_ctx **ret);

/* libnl error (NLE_*, either sign) -> negative errno */
int pcierr_nle_to_errno(int nle);

/*
 * Parsers. Each takes one whole netlink message, nlh, of which at most
 * len bytes are readable (the message must fit: nlh->nlmsg_len <= len),
 * and returns 0 or -EBADMSG (-ENOMEM on allocation failure). Unknown
 * attributes are ignored; everything else the ABI specifies is checked.
 */

/* EVENT / OP_DONE / OVERFLOW -> a newly allocated notification (free
 * with pcierr_notification_free()); *ret = NULL and 0 for a message of
 * another command (ignored). */
int pcierr_parse_notification(const struct nlmsghdr *nlh, size_t len,
			      struct pcierr_notification **ret);
void pcierr_notification_free(struct pcierr_notification *n);

/* A message of the generic netlink controller (nlmsg_type GENL_ID_CTRL,
 * its "notify" group): CTRL_CMD_DELFAMILY / CTRL_CMD_NEWFAMILY of the
 * family PCIERR_GENL_NAME -> a newly allocated FAMILY_REMOVED /
 * FAMILY_ADDED notification. *ret = NULL and 0 for another command or
 * another family's (ignored). For NEW/DELFAMILY, CTRL_ATTR_FAMILY_NAME
 * is required (a string of at most GENL_NAMSIZ bytes), and for ours
 * CTRL_ATTR_FAMILY_ID too (u16, a valid dynamic id). */
int pcierr_parse_ctrl(const struct nlmsghdr *nlh, size_t len, struct pcierr_notification **ret);

/* a GET_PE reply (doit or one dump part) */
int pcierr_parse_pe(const struct nlmsghdr *nlh, size_t len, struct pcierr_pe *ret);

/* A GET_PE reply's PCIERR_A_LAST_OP, a finished RECOVER, with its steps;
 * -ENOMSG for another operation or one still running */
int pcierr_parse_last_recover(const struct nlmsghdr *nlh, size_t len,
			      struct pcierr_recover_done *ret);

/* Add one dump part to list (of capacity *cap): a part with the PE id of
 * the last PE in the list continues it (its devices are appended, the
 * rest of it dropped); any other is a new PE. pe is moved (zeroed, or
 * cleared) either way. 0, -ENOMEM, or -EBADMSG for a continuation with
 * another address. */
int pcierr_pe_list_add(struct pcierr_pe_list *list, size_t *cap, struct pcierr_pe *pe);

/* a GET_STATS reply */
int pcierr_parse_stats(const struct nlmsghdr *nlh, size_t len, struct pcierr_stats *ret);

/* a reply carrying one u64 attribute (INJECT: PCIERR_A_SEQ, operations:
 * PCIERR_A_OP_ID) */
int pcierr_parse_u64_reply(const struct nlmsghdr *nlh, size_t len, int attr, uint64_t *ret);

/* NLMSG_ERROR (and NLMSG_DONE of a dump): *ret_error gets the kernel's
 * errno (<= 0), msg the extended ack text if any (msg[0] = 0 if none). */
int pcierr_parse_ack(const struct nlmsghdr *nlh, size_t len, int *ret_error,
		     char *msg, size_t msg_size);

/* the genl header of a message, after checking that nlh fits in len */
struct genlmsghdr;
int pcierr_msg_genl(const struct nlmsghdr *nlh, size_t len, const struct genlmsghdr **ret);

#endif /* PCIERR_INTERNAL_H */

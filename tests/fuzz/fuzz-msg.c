// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: libpcierr's message decoder. The input is one
 * datagram as the kernel would send it, fed to
 *   - pcierr_ev_process() of a detached context (the event socket's path:
 *     EVENT / OP_DONE / OVERFLOW of the family, the controller's
 *     NEW/DELFAMILY), the queue then drained through pcierr_event_read();
 *   - pcierr_reply_process() as the reply to a dump (each message of the
 *     family through pcierr_parse_pe(), acks through pcierr_parse_ack());
 *   - every parser directly on the first message.
 * Whatever the bytes, nothing may read out of bounds, leak, or hit
 * undefined behaviour; results that claim success must be consistent.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "pcierr-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the family id the detached context takes as its own */
#define FUZZ_FAMILY 0x1c

static int drain(struct pcierr_ctx *ctx, const struct pcierr_notification *n, void *userdata)
{
	size_t *count = userdata;

	(*count)++;
	if (n->type == PCIERR_NOTIFY_OP_DONE && n->op_done.n_results > 0 &&
	    !n->op_done.results)
		abort();
	return 0;
}

static int pe_part(const struct nlmsghdr *nlh, size_t len, void *userdata)
{
	struct pcierr_pe pe;
	int r;

	r = pcierr_parse_pe(nlh, len, &pe);
	if (r < 0)
		return r;
	/* a parsed PE holds what it says */
	if (pe.n_devices > 0 && !pe.devices)
		abort();
	for (size_t i = 0; i < pe.n_devices; i++)
		if (!pe.devices[i].driver || strlen(pe.devices[i].addr) >= PCIERR_ADDR_STRLEN)
			abort();
	pcierr_pe_clear(&pe);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcierr_ctx *ctx = NULL;
	const struct nlmsghdr *nlh;
	struct pcierr_notification *n = NULL;
	struct pcierr_pe pe;
	struct pcierr_stats stats;
	uint64_t u;
	char msg[PCIERR_ERRMSG_MAX];
	int error;
	void *buf;

	/* an aligned private copy, as recvmsg() gives (malloc'd: ASan sees
	 * every byte past the end) */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	if (pcierr_ctx_new_detached(FUZZ_FAMILY, &ctx) == 0) {
		struct pcierr_reply_state st = { .fn = pe_part };
		size_t count = 0;

		if (pcierr_ev_process(ctx, buf, size) == 0)
			while (pcierr_event_read(ctx, drain, &count) > 0)
				;
		if (size >= NLMSG_HDRLEN)
			st.seq = ((const struct nlmsghdr *)buf)->nlmsg_seq;
		(void)pcierr_reply_process(ctx, &st, buf, size);
		(void)pcierr_last_error_message(ctx);
		pcierr_ctx_free(ctx);
	}

	nlh = buf;
	if (size >= NLMSG_HDRLEN && nlh->nlmsg_len <= size) {
		if (pcierr_parse_notification(nlh, size, &n) == 0)
			pcierr_notification_free(n);
		n = NULL;
		if (pcierr_parse_ctrl(nlh, size, &n) == 0)
			pcierr_notification_free(n);
		if (pcierr_parse_pe(nlh, size, &pe) == 0)
			pcierr_pe_clear(&pe);
		(void)pcierr_parse_stats(nlh, size, &stats);
		(void)pcierr_parse_u64_reply(nlh, size, PCIERR_A_SEQ, &u);
		(void)pcierr_parse_u64_reply(nlh, size, PCIERR_A_OP_ID, &u);
		if (pcierr_parse_ack(nlh, size, &error, msg, sizeof(msg)) == 0 &&
		    (error > 0 || strnlen(msg, sizeof(msg)) >= sizeof(msg)))
			abort();
	}
	free(buf);
	return 0;
}

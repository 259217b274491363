/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel side as pcierrd sees it: every libpcierr call that manager.c,
 * recovery.c and kernel-source.c make goes through one table, so that the
 * Check suites can put an in-process double of the shim behind them
 * (tests/unit/fake-kernel.c) and drive the daemon's glue on the host.
 * The daemon uses kernel_ops_libpcierr, the library itself.
 *
 * The calls keep libpcierr's contracts (lib/libpcierr/include/pcierr/pcierr.h),
 * including who frees what: a dump or GET_PE result is released with
 * pcierr_pe_list_clear()/pcierr_pe_clear(), which only free memory.
 */
#ifndef PCIERRD_KERNEL_OPS_H
#define PCIERRD_KERNEL_OPS_H

#include <pcierr/pcierr.h>

struct kernel_ops {
	int (*ctx_new)(struct pcierr_ctx **ret);
	void (*ctx_free)(struct pcierr_ctx *ctx);
	int (*ctx_reconnect)(struct pcierr_ctx *ctx);
	const char *(*last_error_message)(struct pcierr_ctx *ctx);
	int (*family_id)(struct pcierr_ctx *ctx);
	int (*event_fd)(struct pcierr_ctx *ctx);
	int (*event_read)(struct pcierr_ctx *ctx, pcierr_notify_fn cb, void *userdata);

	int (*pe_dump)(struct pcierr_ctx *ctx, struct pcierr_pe_list *ret);
	int (*pe_get)(struct pcierr_ctx *ctx, const char *addr, struct pcierr_pe *ret);
	int (*pe_get_by_device)(struct pcierr_ctx *ctx, const char *dev, struct pcierr_pe *ret);
	int (*stats_get)(struct pcierr_ctx *ctx, struct pcierr_stats *ret);

	/* ABI v2: every mutating command names the PE id last seen */
	int (*inject)(struct pcierr_ctx *ctx, const char *dev, uint64_t pe_id,
		      enum pcierr_channel_state state, uint32_t time_unavail_ms, uint64_t *ret_seq);
	int (*report)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, enum pcierr_step step,
		      enum pcierr_channel_state state, uint64_t *ret_op_id);
	int (*enable_io)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);
	int (*reset)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
		     enum pcierr_reset_type type, uint64_t *ret_op_id);
	int (*remove)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);
	int (*remove_device)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, const char *dev,
			     uint64_t *ret_op_id);
	int (*rescan)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);
	int (*disable)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);
	int (*enable)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);
	/* the chained callback recovery (LIBPCIERR_2.1): its completion is a
	 * PCIERR_NOTIFY_RECOVER_DONE; a lost one is read back with
	 * last_recover */
	int (*recover)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
		       enum pcierr_channel_state state, enum pcierr_reset_type type,
		       uint64_t *ret_op_id);
	int (*last_recover)(struct pcierr_ctx *ctx, const char *pe,
			    struct pcierr_recover_done *ret);
	/* pre-authorised automatic recovery (LIBPCIERR_2.2); NULL: none */
	int (*arm)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint32_t budget,
		   enum pcierr_reset_type type);
	/* keep the shim's owner timeout away (LIBPCIERR_2.3); NULL: none */
	int (*hold)(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint32_t lease_ms);
};

/* libpcierr: the real shim over generic netlink */
extern const struct kernel_ops kernel_ops_libpcierr;

#endif /* PCIERRD_KERNEL_OPS_H */

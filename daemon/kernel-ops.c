// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel side of pcierrd in production: libpcierr (kernel-ops.h).
 *
 * Every request here is synchronous: libpcierr sends it and reads the
 * reply on the caller's thread (the event loop). This is bounded, not
 * asynchronous (review L3): the shim answers every request from its
 * generic netlink handler without sleeping or calling a driver (commands
 * only queue their work on the PE's workqueue and reply at once; the
 * result comes later as OP_DONE), so a reply takes microseconds; the
 * library's own receive timeout (PCIERR_REPLY_TIMEOUT_MS) is the upper
 * bound only a wedged kernel would reach. pcierrd makes no such request
 * between a detection and the first command of its recovery (daemon/
 * recovery-exec.c: "act first").
 */
#include "kernel-ops.h"

const struct kernel_ops kernel_ops_libpcierr = {
	.ctx_new = pcierr_ctx_new,
	.ctx_free = pcierr_ctx_free,
	.ctx_reconnect = pcierr_ctx_reconnect,
	.last_error_message = pcierr_last_error_message,
	.family_id = pcierr_family_id,
	.event_fd = pcierr_event_fd,
	.event_read = pcierr_event_read,
	.pe_dump = pcierr_pe_dump,
	.pe_get = pcierr_pe_get,
	.pe_get_by_device = pcierr_pe_get_by_device,
	.stats_get = pcierr_stats_get,
	.inject = pcierr_inject,
	.report = pcierr_report,
	.enable_io = pcierr_enable_io,
	.reset = pcierr_reset,
	.recover = pcierr_recover,
	.last_recover = pcierr_pe_last_recover,
	.arm = pcierr_arm,
	.hold = pcierr_hold,
	.remove = pcierr_remove,
	.remove_device = pcierr_remove_device,
	.rescan = pcierr_rescan,
	.disable = pcierr_disable,
	.enable = pcierr_enable,
};

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpcierr: the userspace side of the pcierr kernel ABI.
 *
 * The library talks generic netlink (family "pcierr", see
 * <linux/pcierr.h>, whose enums it uses unchanged) to the pcierr_shim
 * kernel module. It is the one implementation of that ABI in userspace:
 * pcierrd, pcierrctl and the tests use it.
 *
 * Conventions
 *   - Every function that can fail returns 0 (or a non-negative count) on
 *     success and a negative errno on failure; errors of libnl (NLE_*) are
 *     translated to errno values. The library never prints.
 *   - Errors reported by the kernel come back as the kernel's own errno
 *     (-EPERM without CAP_SYS_ADMIN and CAP_NET_ADMIN, -EINVAL or -ERANGE
 *     for a request the kernel refused, -ENODEV for an address that names
 *     no device or PE, -ESTALE when the PE's id is no longer the one given,
 *     -EBUSY when an operation on the PE is already in flight, ...). The
 *     kernel's extended ack text, if any, is kept:
 *     pcierr_last_error_message().
 *   - Every command that changes state names its PE by address and by
 *     the PE id the caller last saw (struct pcierr_pe.id, struct
 *     pcierr_event.pe_id, struct pcierr_op_done.pe_id): the kernel refuses
 *     it with -ESTALE if the PE changed since (a device joined or left it,
 *     e.g. a card swapped at the same address). See <linux/pcierr.h>,
 *     "Identity".
 *   - Forward compatibility: an enum value a newer kernel module sends
 *     and this header does not know is carried as is (the *_to_string()
 *     functions return NULL for it: print it as unknown); it never makes a
 *     notification or a dump fail.
 *   - -ENOTCONN means that the kernel module went away under the context
 *     (see PCIERR_NOTIFY_FAMILY_REMOVED and pcierr_ctx_reconnect()).
 *   - A message from the kernel that the library cannot parse (truncated,
 *     a missing attribute, a wrong attribute length, an enum value of 0,
 *     an over-long string) is -EBADMSG. -EINVAL always means that
 *     an argument given by the caller was wrong.
 *   - A context is not thread-safe: use one per thread, or lock.
 *   - Addresses are strings "DDDD:BB:DD.F" (lower-case hex, as the
 *     kernel's pci_name()); the functions that take one also accept the
 *     short form "BB:DD.F" (domain 0) and upper-case hex.
 *
 * Build: pkg-config --cflags --libs libpcierr. The <linux/pcierr.h> this
 * header includes is installed next to it (the .pc file's Cflags point
 * there).
 */
#ifndef PCIERR_PCIERR_H
#define PCIERR_PCIERR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pcierr.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for an address string with its NUL (same as the kernel's). */
#define PCIERR_ADDR_STRLEN PCIERR_ADDR_MAX

/* How many counters struct pcierr_stats has room for (indexed by enum
 * pcierr_stat; counters the kernel does not send stay 0). */
#define PCIERR_STATS_CAPACITY 64

struct pcierr_ctx;

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

/**
 * pcierr_ctx_new() - connect to the pcierr_shim kernel module.
 * @ret: where the new context is stored (unchanged on failure).
 *
 * Opens a request socket (commands and their replies) and a separate
 * event socket subscribed to the "events" multicast group and to the
 * generic netlink controller's "notify" group (family "nlctrl"), which
 * tells when the family "pcierr" goes away or comes back: see
 * PCIERR_NOTIFY_FAMILY_REMOVED. Events sent after this returns are not
 * lost (up to the socket's buffer: see struct pcierr_overflow).
 *
 * Joining the "events" group needs CAP_NET_ADMIN (where the kernel can
 * restrict it): without it the context is still created, requests work,
 * and pcierr_events_joined() says false (only the controller's
 * FAMILY_REMOVED / _ADDED arrive then).
 *
 * Return: 0, or a negative errno: -EPROTONOSUPPORT when the generic
 * netlink family "pcierr" (or its "events" group) does not exist, i.e.
 * the kernel module pcierr_shim is not loaded; -ENOMEM; other socket
 * errors.
 */
int pcierr_ctx_new(struct pcierr_ctx **ret);

/**
 * pcierr_events_joined() - whether the context hears the "events" group.
 * @ctx: the context.
 *
 * Return: true if the event socket is a member of the "events" group;
 * false if the kernel refused the caller (EPERM: no CAP_NET_ADMIN) or
 * for NULL.
 */
bool pcierr_events_joined(struct pcierr_ctx *ctx);

/**
 * pcierr_ctx_free() - close both sockets and free the context.
 * @ctx: the context, or NULL (then nothing happens).
 *
 * Notifications still queued are freed.
 */
void pcierr_ctx_free(struct pcierr_ctx *ctx);

/**
 * pcierr_ctx_reconnect() - follow the family "pcierr" to its new instance.
 * @ctx: the context.
 *
 * After PCIERR_NOTIFY_FAMILY_ADDED (pcierr_shim loaded again), the family
 * and its "events" group have new ids: this resolves both again, joins
 * the new group on the event socket (and leaves the old one) and makes
 * requests work again. Everything else is kept: notifications still
 * queued, pcierr_event_fd() (no need to re-register it with a main
 * loop). Calling it while the family is there and unchanged is harmless.
 *
 * Events the new instance sent before the join are lost, and its
 * sequence numbers start again at 1: resynchronise (pcierr_pe_dump())
 * and forget the last seq seen. Operations started before the removal
 * never complete (their OP_DONE is lost with the old instance).
 *
 * A FAMILY_REMOVED / FAMILY_ADDED pair still to be read on the event
 * socket (the module went away and came back once more) simply asks for
 * another reconnect when delivered; a removal of an instance other than
 * the one the context is connected to does not disturb it. Creating a
 * new context (pcierr_ctx_new()) instead is equally valid.
 *
 * Return: 0; -EPROTONOSUPPORT if the family (or its group) does not
 * exist at the moment (it went away again: wait for the next
 * FAMILY_ADDED); -ENOTCONN for a context without sockets; or another
 * negative errno. On failure the context is as before.
 */
int pcierr_ctx_reconnect(struct pcierr_ctx *ctx);

/**
 * pcierr_last_error_message() - the kernel's message for the last error.
 * @ctx: the context.
 *
 * Return: the extended ack text (NLMSGERR_ATTR_MSG) the kernel sent with
 * the error of the most recent failed request, or NULL if it sent none
 * or the last request succeeded. Valid until the next request.
 */
const char *pcierr_last_error_message(struct pcierr_ctx *ctx);

/**
 * pcierr_family_id() - the resolved generic netlink family id.
 * @ctx: the context.
 *
 * Return: the id (> 0) of the instance the context is connected to (it
 * changes with pcierr_ctx_reconnect()).
 */
int pcierr_family_id(struct pcierr_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Notifications (the "events" group)                                  */
/* ------------------------------------------------------------------ */

/* The most of a platform error log kept (pseries: RTAS_ERROR_LOG_MAX). */
#define PCIERR_DETAIL_MAX 2048

/*
 * Platform error detail (pseries: ibm,slot-error-detail) carried by an
 * EVENT, or by the OP_DONE of DISABLE: severity PCIERR_DETAIL_UNSPEC when
 * there was none (not pseries, or the kernel's EEH owns the PE); status
 * is firmware's (0 a log follows, 1 none, negative: refused, e.g. -3 for
 * a PE without EEH); data the raw log (an RTAS error log, big-endian
 * 8-byte header).
 */
struct pcierr_error_detail {
	enum pcierr_detail_severity severity;
	int32_t status;
	uint32_t len;
	uint8_t data[PCIERR_DETAIL_MAX];
};

/* PCIERR_CMD_EVENT: an error was detected; the PE is already frozen. */
struct pcierr_event {
	uint64_t seq;			/* 1, 2, ...: a gap means lost events */
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t pe_id;			/* the PE's id at the detection */
	char dev[PCIERR_ADDR_STRLEN];
	enum pcierr_channel_state state;
	uint32_t time_unavail_ms;
	enum pcierr_source source;
	uint64_t timestamp_ns;		/* CLOCK_MONOTONIC */
	uint32_t error_gen;		/* the device's error generation */
	struct pcierr_error_detail detail;
	/*
	 * LIBPCIERR_2.2: not 0 when the PE was armed (pcierr_arm()) and
	 * this detection started a RECOVER in the kernel: its op id. Its
	 * completion is a PCIERR_NOTIFY_RECOVER_DONE as for pcierr_recover();
	 * send no RECOVER of your own.
	 */
	uint64_t auto_op_id;
};

/* One device's answer in a PCIERR_CMD_OP_DONE */
struct pcierr_dev_result {
	char addr[PCIERR_ADDR_STRLEN];
	enum pcierr_result result;
};

/* PCIERR_CMD_OP_DONE: an asynchronous operation finished. */
struct pcierr_op_done {
	uint64_t op_id;
	enum pcierr_cmd op;		/* PCIERR_CMD_REPORT ... PCIERR_CMD_ENABLE, or
					 * PCIERR_CMD_OWNER_RECOVER: the shim's own
					 * recovery at its owner timeout (no request
					 * of ours started it) */
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t pe_id;			/* the PE's id after the operation */
	enum pcierr_step step;		/* REPORT only, else PCIERR_STEP_UNSPEC */
	enum pcierr_result result;	/* merged, REPORT only, else _UNSPEC */
	int error;			/* 0 or a positive errno (the kernel's) */
	uint64_t duration_ns;
	enum pcierr_pe_state pe_state;	/* after the operation; _UNSPEC if not sent */
	size_t n_results;
	struct pcierr_dev_result *results;
	struct pcierr_error_detail detail;	/* DISABLE on pseries */
	uint64_t start_ns;		/* CLOCK_MONOTONIC when it began; 0: not sent */
};

/* One step of a RECOVER (LIBPCIERR_2.1), in the order it ran. */
struct pcierr_recover_step {
	enum pcierr_cmd op;		/* REPORT, ENABLE_IO, RESET; an unknown
					 * value is a newer module's: carried */
	enum pcierr_step step;		/* REPORT only */
	enum pcierr_result result;	/* REPORT: merged as err.c's merge_result() */
	enum pcierr_reset_type reset_type;	/* RESET only */
	int error;			/* 0 or a positive errno */
	uint64_t duration_ns;
	size_t n_results;		/* REPORT; 0 in pcierr_pe_last_recover() */
	struct pcierr_dev_result *results;
};

/*
 * PCIERR_NOTIFY_RECOVER_DONE (LIBPCIERR_2.1): a RECOVER finished (it has
 * no PCIERR_NOTIFY_OP_DONE). stop says where it stopped
 * (PCIERR_RECOVER_STOP_RECOVERED: resume done; any other value: go on
 * from the last step); an unknown value is carried.
 */
struct pcierr_recover_done {
	uint64_t op_id;
	char pe[PCIERR_ADDR_STRLEN];
	uint64_t pe_id;			/* the PE's id after the operation */
	int error;			/* the last step's errno, or why none ran */
	uint64_t duration_ns;		/* the whole operation */
	enum pcierr_pe_state pe_state;	/* after the operation */
	enum pcierr_recover_stop stop;
	size_t n_steps;
	struct pcierr_recover_step *steps;
	uint64_t start_ns;		/* CLOCK_MONOTONIC when it began; 0: not sent */
};

/* Why notifications were lost */
enum pcierr_overflow_reason {
	PCIERR_OVERFLOW_KERNEL = 1,	/* PCIERR_CMD_OVERFLOW: the kernel's queue was full */
	PCIERR_OVERFLOW_SOCKET,		/* our socket's receive buffer overran (ENOBUFS) */
	PCIERR_OVERFLOW_BAD_MESSAGE,	/* a notification could not be parsed, dropped */
};

/* Events were lost: resynchronise (pcierr_pe_dump()). For the reasons
 * other than PCIERR_OVERFLOW_KERNEL, dropped and next_seq are 0 (unknown). */
struct pcierr_overflow {
	uint64_t dropped;
	uint64_t next_seq;
	enum pcierr_overflow_reason reason;
};

/*
 * PCIERR_NOTIFY_FAMILY_REMOVED / _ADDED: the generic netlink family
 * "pcierr" was unregistered (pcierr_shim unloaded) / registered again
 * (loaded), as the kernel's generic netlink controller announces it.
 *
 * After FAMILY_REMOVED the kernel side is gone: no more notifications
 * come, operations in flight never complete (pcierr_op_wait() returns
 * -ENOTCONN), and every request of this context fails with -ENOTCONN
 * (until then, a request may also fail with the kernel's -ENOENT, for
 * a family it no longer knows). A caller reports "kernel disconnected"
 * and waits for FAMILY_ADDED.
 *
 * After FAMILY_ADDED, the family and its group ids are new: call
 * pcierr_ctx_reconnect() (or free the context and create a new one),
 * then resynchronise with pcierr_pe_dump(); sequence numbers start again
 * at 1. (A FAMILY_ADDED of the very instance the context is connected
 * to, as when pcierr_ctx_new() loaded the module on demand, is not
 * reported.)
 */
struct pcierr_family_change {
	int family_id;			/* the id of the instance that went or came */
};

enum pcierr_notify_type {
	PCIERR_NOTIFY_EVENT = 1,
	PCIERR_NOTIFY_OP_DONE,
	PCIERR_NOTIFY_OVERFLOW,
	PCIERR_NOTIFY_FAMILY_REMOVED,	/* .family */
	PCIERR_NOTIFY_FAMILY_ADDED,	/* .family */
	PCIERR_NOTIFY_RECOVER_DONE,	/* .recover_done (LIBPCIERR_2.1) */
};

struct pcierr_notification {
	enum pcierr_notify_type type;
	union {
		struct pcierr_event event;
		struct pcierr_op_done op_done;
		struct pcierr_overflow overflow;
		struct pcierr_family_change family;	/* FAMILY_REMOVED, _ADDED */
		/* never larger than op_done: the union keeps its size */
		struct pcierr_recover_done recover_done;	/* RECOVER_DONE */
	};
};

/**
 * pcierr_notify_fn - called for each notification by pcierr_event_read().
 * @ctx: the context.
 * @n: the notification; valid only during the call.
 * @userdata: as given to pcierr_event_read().
 *
 * Return: >= 0 to go on; a negative value stops pcierr_event_read(),
 * which returns it (the notifications not yet delivered stay queued).
 */
typedef int (*pcierr_notify_fn)(struct pcierr_ctx *ctx,
				const struct pcierr_notification *n,
				void *userdata);

/**
 * pcierr_event_fd() - a file descriptor to poll for notifications.
 * @ctx: the context.
 *
 * The descriptor (an epoll instance owned by the context; do not close
 * it) becomes readable (POLLIN) whenever a notification waits to be read,
 * from the event socket or queued by pcierr_op_wait(). Use it with poll(),
 * epoll or sd_event_add_io(), and call pcierr_event_read() when readable.
 *
 * Return: the descriptor (>= 0).
 */
int pcierr_event_fd(struct pcierr_ctx *ctx);

/**
 * pcierr_event_read() - deliver pending notifications, without blocking.
 * @ctx: the context.
 * @cb: called once per notification, in order of arrival.
 * @userdata: passed to @cb.
 *
 * Delivers first the notifications queued by pcierr_op_wait(), then those
 * waiting on the event socket. Lost notifications are reported, never
 * silently: a kernel OVERFLOW, an overrun of the socket's receive buffer
 * and an unparseable notification each arrive as PCIERR_NOTIFY_OVERFLOW.
 * The family "pcierr" going away or coming back arrives as
 * PCIERR_NOTIFY_FAMILY_REMOVED / _ADDED (the controller's messages about
 * other families are ignored). A callback should ignore types it does
 * not know: later versions may add some.
 * Delivers at most a bounded number per call; the fd stays readable if
 * more are pending.
 *
 * Return: the number of notifications delivered (0 if none was pending),
 * @cb's negative return value, or a negative errno.
 */
int pcierr_event_read(struct pcierr_ctx *ctx, pcierr_notify_fn cb, void *userdata);

/**
 * pcierr_event_wait() - wait until a notification is pending.
 * @ctx: the context.
 * @timeout_ms: at most this long; -1 waits forever, 0 only checks.
 *
 * Return: 1 if one is pending, 0 on timeout, or a negative errno
 * (-EINTR when a signal interrupted the wait).
 */
int pcierr_event_wait(struct pcierr_ctx *ctx, int timeout_ms);

/**
 * pcierr_event_pending() - how many notifications are queued.
 * @ctx: the context.
 *
 * Counts only those already taken off the socket (by pcierr_op_wait());
 * the socket itself may hold more.
 *
 * Return: the number (>= 0).
 */
size_t pcierr_event_pending(struct pcierr_ctx *ctx);

/**
 * pcierr_op_wait() - wait for the OP_DONE of one operation.
 * @ctx: the context.
 * @op_id: the id an operation starter returned.
 * @timeout_ms: at most this long; -1 waits forever.
 * @ret: filled in on success; release with pcierr_op_done_clear().
 *
 * Every other notification that arrives meanwhile is queued, in order,
 * for the next pcierr_event_read(); none is lost. An OP_DONE already
 * queued is found too.
 *
 * Return: 0 (whatever the operation's own result: see @ret->error),
 * -ETIMEDOUT, -EINTR on a signal, -ENOTCONN as soon as the family went
 * away (PCIERR_NOTIFY_FAMILY_REMOVED, which stays queued for
 * pcierr_event_read(): the OP_DONE will never come), or another
 * negative errno.
 */
int pcierr_op_wait(struct pcierr_ctx *ctx, uint64_t op_id, int timeout_ms,
		   struct pcierr_op_done *ret);

/**
 * pcierr_op_done_clear() - free what a struct pcierr_op_done holds.
 * @done: the struct (itself not freed), or NULL. Zeroed afterwards.
 */
void pcierr_op_done_clear(struct pcierr_op_done *done);

/* ------------------------------------------------------------------ */
/* PEs and devices                                                     */
/* ------------------------------------------------------------------ */

struct pcierr_device {
	char addr[PCIERR_ADDR_STRLEN];
	uint16_t vendor;
	uint16_t device;
	uint16_t subvendor;
	uint16_t subdevice;
	uint32_t class;			/* class << 8 | prog-if */
	uint64_t dsn;			/* valid if has_dsn */
	bool has_dsn;
	char *driver;			/* bound driver; "" if none (never NULL) */
	uint32_t handlers;		/* bits (1 << enum pcierr_handler) */
	enum pcierr_channel_state state;
	uint32_t error_gen;
	uint32_t flags;			/* PCIERR_DEV_F_* */
};

/*
 * The last operation started on a PE (GET_PE's PCIERR_A_LAST_OP): how a
 * caller that lost an OP_DONE (an overflow, a restart) learns its outcome.
 * op_id is 0 if no operation was ever started on the PE.
 */
struct pcierr_last_op {
	uint64_t op_id;
	enum pcierr_cmd op;
	enum pcierr_step step;		/* REPORT only */
	enum pcierr_result result;	/* merged, REPORT only, once done */
	bool done;			/* false: still in flight */
	int error;			/* once done: 0 or a positive errno */
	uint64_t duration_ns;		/* once done */
	enum pcierr_pe_state pe_state;	/* once done: the state it left */
};

struct pcierr_pe {
	char addr[PCIERR_ADDR_STRLEN];
	uint64_t id;			/* the PE's identity (never 0) */
	enum pcierr_pe_state state;
	uint32_t flags;			/* PCIERR_PE_F_* */
	uint32_t reset_types;		/* bits (1 << enum pcierr_reset_type) */
	uint32_t generation;		/* topology generation */
	uint32_t watch_interval_ms;	/* 0: the presence watchdog is off */
	struct pcierr_last_op last_op;
	enum pcierr_backend backend;	/* who recovers it; _UNSPEC: not said */
	size_t n_devices;
	struct pcierr_device *devices;	/* in bus order */
};

struct pcierr_pe_list {
	size_t n_pes;
	struct pcierr_pe *pes;
};

/**
 * pcierr_pe_dump() - every PE of the system, with its devices.
 * @ctx: the context.
 * @ret: filled in on success; release with pcierr_pe_list_clear().
 *
 * A dump the topology changed under (NLM_F_DUMP_INTR) is retried a few
 * times. A PE the kernel split across several dump messages (one with
 * very many devices) comes back as one.
 *
 * Return: 0, -EAGAIN if the topology kept changing, or a negative errno.
 */
int pcierr_pe_dump(struct pcierr_ctx *ctx, struct pcierr_pe_list *ret);

/**
 * pcierr_pe_list_clear() - free what a struct pcierr_pe_list holds.
 * @list: the list (itself not freed), or NULL. Zeroed afterwards.
 */
void pcierr_pe_list_clear(struct pcierr_pe_list *list);

/**
 * pcierr_pe_get() - one PE, by its address or a device's.
 * @ctx: the context.
 * @addr: the PE's address or, if no PE has that address, the address of
 *        a device in it.
 * @ret: filled in on success; release with pcierr_pe_clear().
 *
 * Note that a bridge's address names the PE below the bridge, not the
 * PE the bridge belongs to: use pcierr_pe_get_by_device() for that.
 *
 * Return: 0, -EINVAL for a bad address, -ENODEV if neither a PE nor a
 * device has it, or a negative errno.
 */
int pcierr_pe_get(struct pcierr_ctx *ctx, const char *addr, struct pcierr_pe *ret);

/**
 * pcierr_pe_get_by_device() - the PE a device belongs to.
 * @ctx: the context.
 * @dev: the device's address.
 * @ret: filled in on success; release with pcierr_pe_clear().
 *
 * Return: 0, -EINVAL, -ENODEV, or a negative errno.
 */
int pcierr_pe_get_by_device(struct pcierr_ctx *ctx, const char *dev, struct pcierr_pe *ret);

/**
 * pcierr_pe_clear() - free what a struct pcierr_pe holds.
 * @pe: the PE (itself not freed), or NULL. Zeroed afterwards.
 */
void pcierr_pe_clear(struct pcierr_pe *pe);

/**
 * pcierr_pe_find_device() - look a device up in a PE.
 * @pe: the PE.
 * @addr: the device's address (any accepted form).
 *
 * Return: the device, or NULL.
 */
const struct pcierr_device *pcierr_pe_find_device(const struct pcierr_pe *pe, const char *addr);

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

struct pcierr_stats {
	uint64_t counter[PCIERR_STATS_CAPACITY];	/* indexed by enum pcierr_stat */
};

/**
 * pcierr_stats_get() - the module's counters.
 * @ctx: the context.
 * @ret: filled in on success.
 *
 * Return: 0 or a negative errno.
 */
int pcierr_stats_get(struct pcierr_ctx *ctx, struct pcierr_stats *ret);

/* ------------------------------------------------------------------ */
/* Commands (all need CAP_SYS_ADMIN and CAP_NET_ADMIN: -EPERM otherwise;
 * each names the PE id it expects: -ESTALE if the PE changed since)    */
/* ------------------------------------------------------------------ */

/**
 * pcierr_inject() - a software error detection on a device.
 * @ctx: the context.
 * @dev: the device's address.
 * @pe_id: the id of the PE @dev belongs to (not 0).
 * @state: PCIERR_STATE_FROZEN or PCIERR_STATE_PERM_FAILURE;
 *         PCIERR_STATE_UNSPEC (0) lets the kernel choose (frozen).
 * @time_unavail_ms: the expected unavailability to report.
 * @ret_seq: if not NULL, the sequence number of the event raised.
 *
 * Return: 0, -EINVAL, or the kernel's negative errno.
 */
int pcierr_inject(struct pcierr_ctx *ctx, const char *dev, uint64_t pe_id,
		  enum pcierr_channel_state state, uint32_t time_unavail_ms,
		  uint64_t *ret_seq);

/*
 * The asynchronous recovery operations. Each is queued by the kernel on
 * the PE's own work queue and returns at once with the operation's id;
 * its completion is the OP_DONE notification with that id (see
 * pcierr_op_wait()). One operation per PE at a time: -EBUSY otherwise.
 * The kernel replies before it starts the operation, so the OP_DONE
 * always comes after the call returned. Each takes the PE's address
 * and the PE id the caller expects (@pe_id, not 0). Each returns 0 with
 * *ret_op_id set (if not NULL), -EINVAL for a bad argument, or the
 * kernel's negative errno (-ESTALE: the PE is not @pe_id any more).
 */

/**
 * pcierr_report() - call a recovery callback of every driver of a PE.
 * @ctx: the context.
 * @pe: the PE's address.
 * @pe_id: the PE's id.
 * @step: the callback (PCIERR_STEP_ERROR_DETECTED ... _PERM_FAILURE).
 * @state: for PCIERR_STEP_ERROR_DETECTED, the channel state passed to
 *         the drivers (PCIERR_STATE_UNSPEC means frozen); ignored for
 *         the other steps.
 * @ret_op_id: the operation's id, or NULL.
 */
int pcierr_report(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, enum pcierr_step step,
		  enum pcierr_channel_state state, uint64_t *ret_op_id);

/** pcierr_enable_io() - MMIO and I/O decode on again, DMA still off. */
int pcierr_enable_io(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
		     uint64_t *ret_op_id);

/**
 * pcierr_reset() - reset a PE and restore its saved config space.
 * @type: PCIERR_RESET_HOT or PCIERR_RESET_FUNDAMENTAL (-EOPNOTSUPP from
 *        the kernel if the PE cannot do it).
 */
int pcierr_reset(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, enum pcierr_reset_type type,
		 uint64_t *ret_op_id);

/**
 * pcierr_recover() - the callback recovery as one operation (LIBPCIERR_2.1).
 * @state: PCIERR_STATE_FROZEN (or _UNSPEC for it) or PCIERR_STATE_NORMAL:
 *         what error_detected is told.
 * @type: the reset to use if a driver asks for one (_UNSPEC: HOT);
 *        -EOPNOTSUPP from the kernel if the PE cannot do it.
 *
 * error_detected, then mmio_enabled or a reset and slot_reset, then
 * resume, stopping where a decision is needed (the uapi header's
 * PCIERR_CMD_RECOVER). Its completion is a PCIERR_NOTIFY_RECOVER_DONE;
 * pcierr_op_wait() does not wait for it.
 */
int pcierr_recover(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id,
		   enum pcierr_channel_state state, enum pcierr_reset_type type,
		   uint64_t *ret_op_id);

/**
 * pcierr_pe_last_recover() - how the PE's last operation, a RECOVER, ended
 * (LIBPCIERR_2.1), from GET_PE's PCIERR_A_LAST_OP: for a caller that lost
 * its PCIERR_NOTIFY_RECOVER_DONE. The steps come without their device
 * results (n_results 0).
 * @ret: filled in; release with pcierr_recover_done_clear().
 *
 * Return: 0; -ENOMSG if the PE's last operation is not a RECOVER or is
 * still running (check its op_id against yours); a negative errno.
 */
int pcierr_pe_last_recover(struct pcierr_ctx *ctx, const char *pe,
			   struct pcierr_recover_done *ret);

/**
 * pcierr_recover_done_clear() - free what a struct pcierr_recover_done
 * holds (LIBPCIERR_2.1). @done: the struct (not freed itself), or NULL.
 */
void pcierr_recover_done_clear(struct pcierr_recover_done *done);

/** pcierr_remove() - unbind and remove every device of a PE. */
int pcierr_remove(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);

/**
 * pcierr_remove_device() - unbind and remove one device of a PE.
 * @ctx: the context.
 * @pe: the PE's address.
 * @pe_id: the PE's id.
 * @dev: the device's address; it must belong to @pe (-EINVAL from the
 *       kernel otherwise, also for the bridge heading @pe), -ENODEV if
 *       there is no such device.
 * @ret_op_id: the operation's id, or NULL.
 *
 * Partial hotplug: the PE keeps its other devices and its state (e.g.
 * remove the devices whose drivers lack recovery callbacks, recover the
 * rest, then pcierr_rescan() brings the removed device back). A bridge
 * is removed with everything below it. The OP_DONE is a REMOVE's (its
 * pe_id is the PE's new id: name that one in the next command).
 */
int pcierr_remove_device(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, const char *dev,
			 uint64_t *ret_op_id);

/** pcierr_rescan() - rescan a PE's bus: devices come back, drivers bind. */
int pcierr_rescan(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);

/** pcierr_disable() - permanent failure: remove and keep away. */
int pcierr_disable(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);

/** pcierr_enable() - undo pcierr_disable() and rescan. */
int pcierr_enable(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint64_t *ret_op_id);

/**
 * pcierr_watch() - set a PE's presence watchdog (synchronous).
 * @ctx: the context.
 * @pe: the PE's address.
 * @pe_id: the PE's id.
 * @interval_ms: check every this many ms (PCIERR_WATCH_MIN_MS to
 *               PCIERR_WATCH_MAX_MS); 0 stops the watchdog.
 *
 * Return: 0, -EINVAL, or the kernel's negative errno.
 */
int pcierr_watch(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint32_t interval_ms);

/**
 * pcierr_arm() - pre-authorise one automatic RECOVER (LIBPCIERR_2.2).
 * @ctx: the context; the arm lasts as long as it (its request socket).
 * @pe: the PE's address.
 * @pe_id: the PE's id (-ESTALE if it changed).
 * @budget: 1 arms, 0 disarms.
 * @type: the reset the RECOVER uses if a driver asks for one (_UNSPEC:
 *        HOT); -EOPNOTSUPP from the kernel if the PE cannot do it.
 *
 * Synchronous. The first FROZEN detection on the PE after this starts the
 * RECOVER pcierr_recover(ctx, pe, pe_id, PCIERR_STATE_FROZEN, type) would
 * in the kernel, and its event says so (struct pcierr_event.auto_op_id).
 * Any detection uses the arm up; PCIERR_PE_F_ARMED in struct pcierr_pe
 * says whether it still holds (the uapi header's PCIERR_CMD_ARM).
 *
 * Return: 0, -EINVAL (budget above 1, a bad type), or the kernel's
 * negative errno (-EOPNOTSUPP from a module without PCIERR_CMD_ARM).
 */
int pcierr_arm(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint32_t budget,
	       enum pcierr_reset_type type);

/**
 * pcierr_hold() - keep the shim's owner timeout away from a PE (LIBPCIERR_2.3).
 * @ctx: the context; the hold ends when its request socket closes.
 * @pe: the PE's address.
 * @pe_id: the PE's id (-ESTALE if it changed); the hold ends if it changes.
 * @lease_ms: 0 ends the hold, else PCIERR_HOLD_MIN_MS .. PCIERR_HOLD_MAX_MS.
 *
 * Synchronous. For a PE the caller keeps frozen on purpose: the shim does
 * not recover it by itself until the lease runs out (renew it before) or
 * the hold ends; then its owner timeout counts from there. PCIERR_PE_F_HELD
 * in struct pcierr_pe says whether it holds (the uapi header's
 * PCIERR_CMD_HOLD).
 *
 * Return: 0, -EINVAL (a lease out of range), or the kernel's negative
 * errno (-EOPNOTSUPP from a module without PCIERR_CMD_HOLD).
 */
int pcierr_hold(struct pcierr_ctx *ctx, const char *pe, uint64_t pe_id, uint32_t lease_ms);

/* ------------------------------------------------------------------ */
/* IOCHK: synchronous error checks around a piece of I/O               */
/* ------------------------------------------------------------------ */

struct pcierr_iochk_cookie {
	char dev[PCIERR_ADDR_STRLEN];
	uint32_t error_gen;
};

/**
 * pcierr_iochk_clear() - start watching a device for errors.
 * @ctx: the context.
 * @dev: the device's address.
 * @cookie: filled in with the device's current error generation.
 *
 * Return: 0, -EINVAL, -ENODEV, or a negative errno.
 */
int pcierr_iochk_clear(struct pcierr_ctx *ctx, const char *dev,
		       struct pcierr_iochk_cookie *cookie);

/**
 * pcierr_iochk_read() - errors of the device since pcierr_iochk_clear().
 * @ctx: the context.
 * @cookie: as filled in by pcierr_iochk_clear(); not changed.
 *
 * Return: the number of errors detected on the device since the cookie
 * was cleared (> 0), 0 for none, -ENODEV if the device went away, or
 * another negative errno.
 */
int pcierr_iochk_read(struct pcierr_ctx *ctx, const struct pcierr_iochk_cookie *cookie);

/* ------------------------------------------------------------------ */
/* Names and addresses                                                 */
/* ------------------------------------------------------------------ */

/*
 * Each *_to_string() returns the lower-case name of a value, or NULL for
 * a value without one (_UNSPEC, or a newer kernel's value this version
 * does not know: show it as unknown). Each *_from_string()
 * returns the value (> 0, or >= 0 for handlers) for a name, or -EINVAL.
 *
 *   step:     error_detected mmio_enabled slot_reset resume perm_failure
 *   result:   none can_recover need_reset disconnect recovered no_driver gone
 *   state:    normal frozen perm_failure           (channel states)
 *   pe_state: normal frozen mmio_enabled reset removed disabled
 *   source:   inject check watchdog driver
 *   reset:    hot fundamental
 *   handler:  error_detected mmio_enabled slot_reset resume reset_prepare
 *             reset_done
 *   op:       report enable_io reset remove rescan disable enable
 *             (the commands that start an operation)
 *   stat:     checks all_ones false_positives ignored freezes events_sent
 *             events_dropped resets hotplugs ops ops_failed
 */
const char *pcierr_step_to_string(enum pcierr_step step);
int pcierr_step_from_string(const char *s);
const char *pcierr_result_to_string(enum pcierr_result result);
int pcierr_result_from_string(const char *s);
const char *pcierr_state_to_string(enum pcierr_channel_state state);
int pcierr_state_from_string(const char *s);
const char *pcierr_pe_state_to_string(enum pcierr_pe_state state);
int pcierr_pe_state_from_string(const char *s);
const char *pcierr_source_to_string(enum pcierr_source source);
int pcierr_source_from_string(const char *s);
const char *pcierr_reset_type_to_string(enum pcierr_reset_type type);
int pcierr_reset_type_from_string(const char *s);
const char *pcierr_handler_to_string(enum pcierr_handler handler);
int pcierr_handler_from_string(const char *s);
const char *pcierr_op_to_string(enum pcierr_cmd op);
int pcierr_op_from_string(const char *s);
const char *pcierr_stat_to_string(enum pcierr_stat stat);
int pcierr_stat_from_string(const char *s);
/* LIBPCIERR_2.1 */
const char *pcierr_recover_stop_to_string(enum pcierr_recover_stop stop);
int pcierr_recover_stop_from_string(const char *s);

/**
 * pcierr_handlers_to_string() - a handler bitmask as names.
 * @handlers: bits (1 << enum pcierr_handler).
 * @buf: where the text goes: the names joined by ',' in bit order ("" for
 *       none); unknown bits as "0x..." at the end.
 * @size: the size of @buf.
 *
 * Return: the length written (without the NUL), or -ENOBUFS if @buf is
 * too small (then it holds a truncated, terminated string).
 */
int pcierr_handlers_to_string(uint32_t handlers, char *buf, size_t size);

/**
 * pcierr_addr_normalize() - check a PCI address and put it in canonical form.
 * @in: "DDDD:BB:DD.F" (domain of 1 to 8 hex digits) or "BB:DD.F"; hex
 *      digits of either case; device at most 1f, function at most 7.
 * @out: the canonical form, "%04x:%02x:%02x.%x" (may be @in's buffer
 *       only if it is at least PCIERR_ADDR_STRLEN bytes long).
 *
 * Return: 0, or -EINVAL for anything else (including NULL, surrounding
 * blanks and trailing characters).
 */
int pcierr_addr_normalize(const char *in, char out[PCIERR_ADDR_STRLEN]);

#ifdef __cplusplus
}
#endif

#endif /* PCIERR_PCIERR_H */

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shim notifications in, in order: EVENT and OP_DONE go to the recovery,
 * a sequence gap or an OVERFLOW asks for a resync, and the family going
 * away and coming back is followed (the context survives an rmmod; a
 * shim missing at start is looked for again every second).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "kernel-source.h"
#include "log.h"
#include "recovery.h"

#define KERNEL_RETRY_USEC	(1 * PCIERR_USEC_PER_SEC)

/*
 * One dispatch of the kernel source handles at most this many
 * notifications, and stops early once it has run this long: then
 * sd-event comes back, and the bus (same priority, served in turn) answers
 * a call between two batches. Under a storm a call waits behind one short
 * batch, never behind the socket's whole backlog (issue 11 point 10:
 * libpcierr's own batch, 256, took seconds of guest time under TCG).
 * The rest stays readable (libpcierr's queue keeps its fd readable).
 */
#define KERNEL_DISPATCH_MAX	32
#define KERNEL_DISPATCH_USEC	(10 * 1000)

struct kernel_batch {
	struct manager *m;
	unsigned int n;
	pcierr_usec_t start;
};

static int kernel_connect(struct manager *m);

/*
 * A test hook (tests/vm/scenarios/22-pcierrd-lost-op-done.sh): with
 * PCIERRD_TEST_DROP_OP_DONE=STEP in the environment (a REPORT step such as
 * error_detected, or a command such as reset), the first OP_DONE of that
 * step is dropped as if the socket had overrun, so that the step timeout
 * path (H1) runs against the real shim. Logged; never set in production.
 */
static const char *test_drop_op_done;

static bool test_drop(const struct pcierr_op_done *d)
{
	const char *name;

	if (!test_drop_op_done)
		return false;
	name = d->op == PCIERR_CMD_REPORT ? pcierr_step_to_string(d->step) :
	       pcierr_op_to_string(d->op);
	if (!name || strcmp(name, test_drop_op_done) != 0)
		return false;
	log_notice("Test hook PCIERRD_TEST_DROP_OP_DONE: dropping the OP_DONE of %s on %s.",
		   name, d->pe);
	test_drop_op_done = NULL;	/* once */
	return true;
}

/* a RECOVER's completion: by "recover" or by its first step's name */
static bool test_drop_recover(const struct pcierr_recover_done *d)
{
	const char *first = d->n_steps > 0 && d->steps[0].op == PCIERR_CMD_REPORT ?
			    pcierr_step_to_string(d->steps[0].step) : NULL;

	if (!test_drop_op_done)
		return false;
	if (strcmp(test_drop_op_done, "recover") != 0 &&
	    (!first || strcmp(first, test_drop_op_done) != 0))
		return false;
	log_notice("Test hook PCIERRD_TEST_DROP_OP_DONE: dropping the OP_DONE of %s on %s (a recover).",
		   test_drop_op_done, d->pe);
	test_drop_op_done = NULL;	/* once */
	return true;
}

/* under a storm the shim overflows again and again: one warning a second
 * at most, with what was lost meanwhile (EventsLost counts them all) */
#define LOST_LOG_INTERVAL_USEC	(1 * PCIERR_USEC_PER_SEC)

static void count_lost(struct manager *m, uint64_t lost, const char *why)
{
	pcierr_usec_t now = now_monotonic_usec();

	m->counters.events_lost += lost;
	m->lost_unlogged.events += lost;
	m->lost_unlogged.times++;
	if (m->lost_unlogged.logged == 0 || now - m->lost_unlogged.logged >= LOST_LOG_INTERVAL_USEC) {
		if (m->lost_unlogged.times > 1)
			log_warning("Lost %llu kernel event(s) in %llu overruns since the last warning (last: %s); resynchronising.",
				    (unsigned long long)m->lost_unlogged.events,
				    (unsigned long long)m->lost_unlogged.times, why);
		else
			log_warning("Lost %llu kernel event(s) (%s); resynchronising.",
				    (unsigned long long)lost, why);
		m->lost_unlogged.logged = now;
		m->lost_unlogged.events = m->lost_unlogged.times = 0;
	}
	manager_schedule_resync(m, why);
}

static int on_notification(struct pcierr_ctx *ctx, const struct pcierr_notification *n,
			   void *userdata)
{
	struct kernel_batch *b = userdata;
	struct manager *m = b->m;
	int r;

	switch (n->type) {
	case PCIERR_NOTIFY_EVENT:
		m->counters.events_received++;
		if (m->next_seq != 0 && n->event.seq > m->next_seq)
			count_lost(m, n->event.seq - m->next_seq, "sequence gap");
		m->next_seq = n->event.seq + 1;
		recovery_on_event(m, &n->event);
		observe_manager_changed(m);
		break;
	case PCIERR_NOTIFY_OP_DONE:
		if (test_drop(&n->op_done))
			break;
		recovery_on_op_done(m, &n->op_done);
		break;
	case PCIERR_NOTIFY_RECOVER_DONE:
		if (test_drop_recover(&n->recover_done))
			break;
		recovery_on_recover_done(m, &n->recover_done);
		break;
	case PCIERR_NOTIFY_OVERFLOW:
		if (n->overflow.reason == PCIERR_OVERFLOW_KERNEL) {
			m->next_seq = n->overflow.next_seq;
			count_lost(m, n->overflow.dropped, "kernel queue overflow");
		} else {
			/* unknown how many: the next EVENT's seq tells */
			count_lost(m, n->overflow.dropped,
				   n->overflow.reason == PCIERR_OVERFLOW_SOCKET ?
				   "socket overrun" : "unparseable message");
		}
		observe_manager_changed(m);
		break;
	case PCIERR_NOTIFY_FAMILY_REMOVED:
		if (n->family.family_id != m->kops->family_id(ctx))
			break;
		manager_set_kernel_connected(m, false);
		recovery_kernel_gone(m);
		break;
	case PCIERR_NOTIFY_FAMILY_ADDED:
		r = m->kops->ctx_reconnect(ctx);
		if (r < 0) {
			log_warning_errno(r, "Failed to reconnect to the kernel shim: %m");
			break;
		}
		m->next_seq = 0;	/* a new instance counts from 1 */
		manager_set_kernel_connected(m, true);
		(void)manager_resync(m, "kernel shim back");
		break;
	default:
		break;	/* a later library's news */
	}
	/* this one is handled; -EAGAIN leaves the rest queued for the next
	 * dispatch (on_kernel_io() takes it for "nothing more now") */
	if (++b->n >= KERNEL_DISPATCH_MAX ||
	    now_monotonic_usec() - b->start >= KERNEL_DISPATCH_USEC)
		return -EAGAIN;
	return 0;
}

static void kernel_drop(struct manager *m)
{
	m->kernel_source = sd_event_source_disable_unref(m->kernel_source);
	if (m->kernel)
		m->kops->ctx_free(m->kernel);
	m->kernel = NULL;
}

static int on_kernel_io(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct kernel_batch b = { .m = m, .start = now_monotonic_usec() };
	int r;

	r = m->kops->event_read(m->kernel, on_notification, &b);
	if (r >= 0 || r == -EAGAIN || r == -EINTR) {
		m->kernel_read_errors = 0;
		return 0;
	}
	if (r == -ENOBUFS) {
		/* an overrun the library did not turn into an OVERFLOW */
		count_lost(m, 0, "socket overrun");
		return 0;
	}
	log_warning_errno(r, "Failed to read kernel notifications: %m");
	/* a persistent error would spin the loop: start over with a new
	 * context (review L3) */
	if (++m->kernel_read_errors >= 3) {
		log_error("Kernel notifications keep failing; reconnecting to the shim.");
		kernel_drop(m);
		manager_set_kernel_connected(m, false);
		recovery_kernel_gone(m);
		(void)kernel_connect(m);
	}
	return 0;
}

static int on_retry(sd_event_source *es, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	m->reconnect_timer = sd_event_source_unref(m->reconnect_timer);
	if (kernel_connect(m) > 0)
		(void)manager_resync(m, "kernel shim loaded");
	return 0;
}

static int arm_retry(struct manager *m)
{
	int r;

	if (m->reconnect_timer)
		return 0;
	r = sd_event_add_time_relative(m->event, &m->reconnect_timer,
				       CLOCK_MONOTONIC, KERNEL_RETRY_USEC, 0,
				       on_retry, m);
	if (r < 0)
		return log_error_errno(r, "Failed to arm the reconnect timer: %m");
	return 0;
}

/* 1: connected; 0: not there (or failing), retrying; negative: the retry
 * could not even be armed */
static int kernel_connect(struct manager *m)
{
	struct pcierr_ctx *ctx = NULL;
	int r;

	r = m->kops->ctx_new(&ctx);
	if (r < 0) {
		manager_set_kernel_connected(m, false);
		/* not loaded, or a real failure: both are tried again every
		 * second (review L3: never give up on the shim) */
		if (r != -EPROTONOSUPPORT && r != -ENOENT)
			log_warning_errno(r, "Failed to connect to the kernel shim: %m; trying again.");
		return arm_retry(m);
	}

	r = sd_event_add_io(m->event, &m->kernel_source, m->kops->event_fd(ctx),
			    EPOLLIN, on_kernel_io, m);
	if (r < 0) {
		m->kops->ctx_free(ctx);
		log_error_errno(r, "Failed to watch kernel notifications: %m");
		return arm_retry(m);
	}
	m->kernel = ctx;
	m->next_seq = 0;
	m->kernel_read_errors = 0;
	manager_set_kernel_connected(m, true);
	return 1;
}

int kernel_source_start(struct manager *m)
{
	int r;

	test_drop_op_done = getenv("PCIERRD_TEST_DROP_OP_DONE");
	if (test_drop_op_done && !*test_drop_op_done)
		test_drop_op_done = NULL;
	r = kernel_connect(m);

	if (r == 0)
		log_warning("The kernel shim is not loaded (modprobe pcierr_shim); waiting for it.");
	return r < 0 ? r : 0;
}

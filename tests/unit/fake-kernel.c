// SPDX-License-Identifier: GPL-2.0-or-later
/* The shim's double for pcierrd's suites (fake-kernel.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fake-kernel.h"

struct fake_kernel *fake;

/* the daemon holds a struct pcierr_ctx *: ours is only a token */
struct pcierr_ctx {
	struct fake_kernel *k;
};

static void push(struct fake_kernel *k, const struct pcierr_notification *n)
{
	uint64_t one = 1;

	if (k->n_queue == k->queue_cap && k->queue_head > 0) {
		/* what was delivered makes room (no move per read: a storm
		 * of thousands queued stays linear) */
		memmove(&k->queue[0], &k->queue[k->queue_head],
			(k->n_queue - k->queue_head) * sizeof(*k->queue));
		k->n_queue -= k->queue_head;
		k->queue_head = 0;
	}
	if (k->n_queue == k->queue_cap) {
		k->queue_cap = k->queue_cap ? 2 * k->queue_cap : 16;
		k->queue = realloc(k->queue, k->queue_cap * sizeof(*k->queue));
		if (!k->queue)
			abort();
	}
	k->queue[k->n_queue++] = *n;
	if (write(k->efd, &one, sizeof(one)) != sizeof(one))
		abort();
}

struct fake_kernel *fake_kernel_new(void)
{
	struct fake_kernel *k = calloc(1, sizeof(*k));

	if (!k)
		abort();
	k->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (k->efd < 0)
		abort();
	k->next_op_id = 1;
	k->next_seq = 1;
	k->family_id = 30;
	k->auto_complete = true;
	k->answer[PCIERR_STEP_ERROR_DETECTED] = PCIERR_RESULT_NEED_RESET;
	k->answer[PCIERR_STEP_MMIO_ENABLED] = PCIERR_RESULT_RECOVERED;
	k->answer[PCIERR_STEP_SLOT_RESET] = PCIERR_RESULT_RECOVERED;
	k->answer[PCIERR_STEP_RESUME] = PCIERR_RESULT_NONE;
	fake = k;
	return k;
}

void fake_kernel_free(struct fake_kernel *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_pes; i++) {
		if (i < 64 && k->removed_devices[i])
			k->pes[i].n_devices = k->removed_devices[i];	/* to free them */
		pcierr_pe_clear(&k->pes[i]);
	}
	free(k->pes);
	for (size_t i = k->queue_head; i < k->n_queue; i++)
		if (k->queue[i].type == PCIERR_NOTIFY_OP_DONE)
			free(k->queue[i].op_done.results);
		else if (k->queue[i].type == PCIERR_NOTIFY_RECOVER_DONE)
			pcierr_recover_done_clear(&k->queue[i].recover_done);
	free(k->queue);
	pcierr_recover_done_clear(&k->last_recover);
	close(k->efd);
	if (fake == k)
		fake = NULL;
	free(k);
}

struct pcierr_pe *fake_pe(struct fake_kernel *k, const char *addr)
{
	for (size_t i = 0; i < k->n_pes; i++)
		if (strcmp(k->pes[i].addr, addr) == 0)
			return &k->pes[i];
	return NULL;
}

static struct pcierr_pe *pe_of_device(struct fake_kernel *k, const char *dev)
{
	for (size_t i = 0; i < k->n_pes; i++)
		if (pcierr_pe_find_device(&k->pes[i], dev))
			return &k->pes[i];
	return NULL;
}

struct pcierr_pe *fake_add_pe(struct fake_kernel *k, const char *addr, unsigned int bus,
			      unsigned int n)
{
	struct pcierr_pe *pe;

	if (k->n_pes == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->pes = realloc(k->pes, k->cap * sizeof(*k->pes));
		if (!k->pes)
			abort();
	}
	pe = &k->pes[k->n_pes++];
	memset(pe, 0, sizeof(*pe));
	snprintf(pe->addr, sizeof(pe->addr), "%s", addr);
	pe->state = PCIERR_PE_STATE_NORMAL;
	pe->id = k->n_pes;	/* never 0 */
	pe->reset_types = (1U << PCIERR_RESET_HOT) | (1U << PCIERR_RESET_FUNDAMENTAL);
	pe->generation = 1;
	pe->devices = calloc(n + 1, sizeof(*pe->devices));
	if (!pe->devices)
		abort();
	/* the bridge heading it */
	snprintf(pe->devices[0].addr, sizeof(pe->devices[0].addr), "%s", addr);
	pe->devices[0].vendor = 0x8086;
	pe->devices[0].device = 0x7000;
	pe->devices[0].class = 0x060400;
	pe->devices[0].flags = PCIERR_DEV_F_BRIDGE;
	pe->devices[0].state = PCIERR_STATE_NORMAL;
	pe->devices[0].driver = strdup("pcieport");
	for (unsigned int i = 0; i < n; i++) {
		struct pcierr_device *d = &pe->devices[i + 1];

		snprintf(d->addr, sizeof(d->addr), "%04x:%02x:%02x.%x", (bus >> 8) & 0xffff,
			 bus & 0xff, (i / 8) & 0x1f, i % 8);
		d->vendor = 0x8086;
		d->device = 0x10d3;
		d->subvendor = 0x8086;
		d->subdevice = 0xa01f;
		d->class = 0x020000;
		d->state = PCIERR_STATE_NORMAL;
		d->driver = strdup("e1000e");
		d->handlers = (1U << PCIERR_HANDLER_ERROR_DETECTED) |
			      (1U << PCIERR_HANDLER_MMIO_ENABLED) |
			      (1U << PCIERR_HANDLER_SLOT_RESET) | (1U << PCIERR_HANDLER_RESUME);
	}
	for (unsigned int i = 0; i <= n; i++)
		if (!pe->devices[i].driver)
			abort();
	pe->n_devices = n + 1;
	return pe;
}

static void finish_op(struct fake_kernel *k, const struct fake_op *o);

void fake_event(struct fake_kernel *k, const char *dev, enum pcierr_channel_state state)
{
	struct pcierr_pe *pe = pe_of_device(k, dev);
	struct pcierr_device *d = pe ? (struct pcierr_device *)pcierr_pe_find_device(pe, dev) : NULL;
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_EVENT };
	struct fake_op auto_op = { 0 };

	if (!d)
		abort();
	d->error_gen++;
	for (size_t i = 0; i < pe->n_devices; i++)
		pe->devices[i].state = state;
	pe->state = PCIERR_PE_STATE_FROZEN;
	n.event.seq = k->next_seq++;
	n.event.pe_id = pe->id;
	snprintf(n.event.pe, sizeof(n.event.pe), "%s", pe->addr);
	snprintf(n.event.dev, sizeof(n.event.dev), "%s", dev);
	n.event.state = state;
	n.event.source = PCIERR_SOURCE_INJECT;
	n.event.error_gen = d->error_gen;
	/* the shim's auto.c: the first detection after the ARM; its RECOVER
	 * queued after the EVENT (the EVENT comes first) */
	if (pe - k->pes < 64 && k->armed_id[pe - k->pes] != 0) {
		if (k->armed_id[pe - k->pes] == pe->id && state == PCIERR_STATE_FROZEN &&
		    !(pe->flags & PCIERR_PE_F_BUSY)) {
			auto_op = (struct fake_op) { .op = PCIERR_CMD_RECOVER,
						     .op_id = k->next_op_id++ };
			snprintf(auto_op.pe, sizeof(auto_op.pe), "%s", pe->addr);
			pe->flags |= PCIERR_PE_F_BUSY;
			if (!k->no_last_op)
				pe->last_op = (struct pcierr_last_op) { .op_id = auto_op.op_id,
									.op = auto_op.op };
			n.event.auto_op_id = auto_op.op_id;
			k->last_auto_op_id = auto_op.op_id;
			k->n_auto++;
		}
		k->armed_id[pe - k->pes] = 0;
		pe->flags &= ~PCIERR_PE_F_ARMED;
	}
	if (k->drop_next_event)
		k->drop_next_event = false;
	else
		push(k, &n);
	if (auto_op.op_id == 0)
		return;
	if (k->auto_complete)
		finish_op(k, &auto_op);
	else if (k->n_inflight < 64)
		k->inflight[k->n_inflight++] = auto_op;
}

void fake_overflow(struct fake_kernel *k, enum pcierr_overflow_reason reason)
{
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_OVERFLOW };

	n.overflow.reason = reason;
	if (reason == PCIERR_OVERFLOW_KERNEL) {
		n.overflow.dropped = 1;
		n.overflow.next_seq = k->next_seq;
	}
	push(k, &n);
}

void fake_family(struct fake_kernel *k, bool added)
{
	struct pcierr_notification n = {
		.type = added ? PCIERR_NOTIFY_FAMILY_ADDED : PCIERR_NOTIFY_FAMILY_REMOVED,
	};

	if (added) {
		k->family_id++;
		k->next_seq = 1;
	}
	n.family.family_id = k->family_id;
	k->gone = !added;
	if (!added) {
		/* the PEs of the next instance run nothing */
		k->n_inflight = 0;
		for (size_t i = 0; i < k->n_pes; i++)
			k->pes[i].flags &= ~PCIERR_PE_F_BUSY;
	}
	push(k, &n);
}

void fake_raw_op_done(struct fake_kernel *k, uint64_t op_id, enum pcierr_cmd op,
		      enum pcierr_step step, const char *pe, int error)
{
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_OP_DONE };

	n.op_done.op_id = op_id;
	n.op_done.op = op;
	n.op_done.step = step;
	n.op_done.error = error;
	snprintf(n.op_done.pe, sizeof(n.op_done.pe), "%s", pe);
	push(k, &n);
}

/* one step of a RECOVER, with every device's answer (REPORT) */
static struct pcierr_recover_step *rstep(struct fake_kernel *k, struct pcierr_pe *pe,
					 struct pcierr_recover_done *d, enum pcierr_cmd op,
					 enum pcierr_step step)
{
	struct pcierr_recover_step *st = &d->steps[d->n_steps++];

	*st = (struct pcierr_recover_step) { .op = op, .step = step, .duration_ns = 1000000 };
	if (op == PCIERR_CMD_RESET) {
		st->reset_type = PCIERR_RESET_HOT;
		st->error = k->reset_error;
	}
	if (op != PCIERR_CMD_REPORT)
		return st;
	st->result = step == PCIERR_STEP_ERROR_DETECTED ? PCIERR_RESULT_CAN_RECOVER :
		     PCIERR_RESULT_RECOVERED;
	st->results = calloc(pe->n_devices ? pe->n_devices : 1, sizeof(*st->results));
	if (!st->results)
		abort();
	for (size_t i = 1; i < pe->n_devices; i++) {
		struct pcierr_dev_result *r = &st->results[st->n_results++];

		snprintf(r->addr, sizeof(r->addr), "%s", pe->devices[i].addr);
		r->result = k->answer[step] ? k->answer[step] : PCIERR_RESULT_NONE;
		/* err.c's merge_result(), as the shim's RECOVER */
		if (r->result == PCIERR_RESULT_CAN_RECOVER || r->result == PCIERR_RESULT_NEED_RESET ||
		    r->result == PCIERR_RESULT_DISCONNECT || r->result == PCIERR_RESULT_RECOVERED) {
			if (st->result == PCIERR_RESULT_CAN_RECOVER ||
			    st->result == PCIERR_RESULT_RECOVERED)
				st->result = r->result;
			else if (st->result == PCIERR_RESULT_DISCONNECT &&
				 r->result == PCIERR_RESULT_NEED_RESET)
				st->result = r->result;
		}
	}
	return st;
}

/* The shim's RECOVER (recovery.c, pcierr_op_recover()) on the answers */
static void fake_recover_run(struct fake_kernel *k, struct pcierr_pe *pe,
			     struct pcierr_recover_done *d)
{
	struct pcierr_recover_step *st;
	enum pcierr_result r;

	d->steps = calloc(6, sizeof(*d->steps));
	if (!d->steps)
		abort();
	st = rstep(k, pe, d, PCIERR_CMD_REPORT, PCIERR_STEP_ERROR_DETECTED);
	r = st->result;
	if (r == PCIERR_RESULT_DISCONNECT) {
		d->stop = PCIERR_RECOVER_STOP_DISCONNECT;
		return;
	}
	if (k->answer[PCIERR_STEP_ERROR_DETECTED] == PCIERR_RESULT_NONE) {
		d->stop = PCIERR_RECOVER_STOP_NO_HANDLER;
		return;
	}
	if (r != PCIERR_RESULT_NEED_RESET) {
		rstep(k, pe, d, PCIERR_CMD_ENABLE_IO, 0);
		st = rstep(k, pe, d, PCIERR_CMD_REPORT, PCIERR_STEP_MMIO_ENABLED);
		r = st->result;
		if (r == PCIERR_RESULT_DISCONNECT) {
			d->stop = PCIERR_RECOVER_STOP_DISCONNECT;
			return;
		}
		if (r != PCIERR_RESULT_RECOVERED && r != PCIERR_RESULT_NEED_RESET) {
			d->stop = PCIERR_RECOVER_STOP_NOT_RECOVERED;
			return;
		}
	}
	if (r == PCIERR_RESULT_NEED_RESET) {
		st = rstep(k, pe, d, PCIERR_CMD_RESET, 0);
		if (st->error) {
			d->stop = PCIERR_RECOVER_STOP_FAILED;
			d->error = st->error;
			pe->state = PCIERR_PE_STATE_FROZEN;
			return;
		}
		pe->state = PCIERR_PE_STATE_RESET;
		st = rstep(k, pe, d, PCIERR_CMD_REPORT, PCIERR_STEP_SLOT_RESET);
		if (st->result == PCIERR_RESULT_DISCONNECT) {
			d->stop = PCIERR_RECOVER_STOP_DISCONNECT;
			return;
		}
		if (st->result != PCIERR_RESULT_RECOVERED) {
			d->stop = PCIERR_RECOVER_STOP_NOT_RECOVERED;
			return;
		}
	}
	rstep(k, pe, d, PCIERR_CMD_REPORT, PCIERR_STEP_RESUME);
	pe->state = PCIERR_PE_STATE_NORMAL;
	for (size_t i = 0; i < pe->n_devices; i++)
		pe->devices[i].state = PCIERR_STATE_NORMAL;
	d->stop = PCIERR_RECOVER_STOP_RECOVERED;
}

static void finish_recover(struct fake_kernel *k, const struct fake_op *o, struct pcierr_pe *pe)
{
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_RECOVER_DONE };
	struct pcierr_recover_done *d = &n.recover_done;

	d->op_id = o->op_id;
	d->pe_id = pe->id;
	snprintf(d->pe, sizeof(d->pe), "%s", pe->addr);
	fake_recover_run(k, pe, d);
	d->pe_state = pe->state;
	d->duration_ns = d->n_steps * 1000000;

	/* what GET_PE keeps: the steps without their results */
	pcierr_recover_done_clear(&k->last_recover);
	k->last_recover = *d;
	k->last_recover.steps = calloc(6, sizeof(*d->steps));
	if (!k->last_recover.steps)
		abort();
	for (size_t i = 0; i < d->n_steps; i++) {
		k->last_recover.steps[i] = d->steps[i];
		k->last_recover.steps[i].results = NULL;
		k->last_recover.steps[i].n_results = 0;
	}
	if (pe->last_op.op_id == o->op_id && !k->no_last_op) {
		pe->last_op.done = true;
		pe->last_op.error = d->error;
		pe->last_op.duration_ns = d->duration_ns;
		pe->last_op.pe_state = pe->state;
	}
	if (k->drop_op == PCIERR_CMD_RECOVER) {
		k->drop_op = 0;
		pcierr_recover_done_clear(d);
		return;
	}
	push(k, &n);
}

void fake_recover_string(const struct fake_kernel *k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < k->last_recover.n_steps && used < size; i++) {
		const struct pcierr_recover_step *st = &k->last_recover.steps[i];
		int n = snprintf(buf + used, size - used, "%s%s%s%s", i ? " " : "",
				 st->op == PCIERR_CMD_REPORT ? pcierr_step_to_string(st->step) :
				 pcierr_op_to_string(st->op),
				 st->op == PCIERR_CMD_REPORT ? "=" : "",
				 st->op == PCIERR_CMD_REPORT ?
				 pcierr_result_to_string(st->result) : "");

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* what an operation does to the PE, and its OP_DONE */
static void finish_op(struct fake_kernel *k, const struct fake_op *o)
{
	struct pcierr_pe *pe = fake_pe(k, o->pe);
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_OP_DONE };

	if (!pe)
		return;
	pe->flags &= ~PCIERR_PE_F_BUSY;
	if (o->op == PCIERR_CMD_RECOVER)
		return finish_recover(k, o, pe);
	n.op_done.pe_id = pe->id;
	n.op_done.op_id = o->op_id;
	n.op_done.op = o->op;
	n.op_done.step = o->step;
	n.op_done.duration_ns = 1000000;
	snprintf(n.op_done.pe, sizeof(n.op_done.pe), "%s", pe->addr);
	switch (o->op) {
	case PCIERR_CMD_REPORT:
		n.op_done.result = k->answer[o->step];
		n.op_done.results = calloc(pe->n_devices, sizeof(*n.op_done.results));
		if (!n.op_done.results)
			abort();
		for (size_t i = 1; i < pe->n_devices; i++) {
			struct pcierr_dev_result *r = &n.op_done.results[n.op_done.n_results++];

			snprintf(r->addr, sizeof(r->addr), "%s", pe->devices[i].addr);
			r->result = k->answer[o->step];
		}
		if (o->step == PCIERR_STEP_RESUME) {
			pe->state = PCIERR_PE_STATE_NORMAL;
			for (size_t i = 0; i < pe->n_devices; i++)
				pe->devices[i].state = PCIERR_STATE_NORMAL;
		}
		break;
	case PCIERR_CMD_DISABLE:
		pe->state = PCIERR_PE_STATE_DISABLED;
		pe->flags |= PCIERR_PE_F_DISABLED;
		break;
	case PCIERR_CMD_ENABLE:
		pe->state = PCIERR_PE_STATE_NORMAL;
		pe->flags &= ~PCIERR_PE_F_DISABLED;
		for (size_t i = 0; i < pe->n_devices; i++)
			pe->devices[i].state = PCIERR_STATE_NORMAL;
		break;
	case PCIERR_CMD_REMOVE:
		if (k->model_hotplug && pe->n_devices > 1) {
			k->removed_devices[pe - k->pes] = pe->n_devices;
			pe->n_devices = 1;
			pe->generation++;
		}
		if (k->model_hotplug)
			pe->state = PCIERR_PE_STATE_REMOVED;
		break;
	case PCIERR_CMD_RESET:
		if (k->model_hotplug)
			pe->state = PCIERR_PE_STATE_RESET;
		break;
	case PCIERR_CMD_RESCAN:
		if (k->model_hotplug && k->removed_devices[pe - k->pes]) {
			pe->n_devices = k->removed_devices[pe - k->pes];
			k->removed_devices[pe - k->pes] = 0;
			pe->generation++;
		}
		pe->state = PCIERR_PE_STATE_NORMAL;
		for (size_t i = 0; i < pe->n_devices; i++)
			pe->devices[i].state = PCIERR_STATE_NORMAL;
		break;
	default:
		break;
	}
	n.op_done.pe_state = pe->state;
	if (pe->last_op.op_id == o->op_id && !k->no_last_op) {
		pe->last_op.done = true;
		pe->last_op.result = n.op_done.result;
		pe->last_op.duration_ns = n.op_done.duration_ns;
		pe->last_op.pe_state = pe->state;
	}
	if (k->drop_op == o->op && (o->op != PCIERR_CMD_REPORT || k->drop_step == o->step)) {
		k->drop_op = 0;
		free(n.op_done.results);
		return;
	}
	push(k, &n);
}

bool fake_complete(struct fake_kernel *k, const char *pe)
{
	for (size_t i = 0; i < k->n_inflight; i++)
		if (strcmp(k->inflight[i].pe, pe) == 0) {
			struct fake_op o = k->inflight[i];

			k->inflight[i] = k->inflight[--k->n_inflight];
			finish_op(k, &o);
			return true;
		}
	return false;
}

static int command(struct pcierr_ctx *ctx, const char *pe_addr, uint64_t pe_id,
		   enum pcierr_cmd op, enum pcierr_step step, enum pcierr_reset_type type,
		   uint64_t *ret_op_id)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;
	struct fake_op o = { .op = op, .step = step };

	if (k->gone)
		return -ENOTCONN;
	pe = fake_pe(k, pe_addr);
	if (!pe)
		return -ENODEV;
	if (pe_id != pe->id)
		return -ESTALE;
	if (pe->flags & PCIERR_PE_F_BUSY)
		return -EBUSY;
	if (k->refuse_op == op && k->refuse_count > 0) {
		k->refuse_count--;
		k->n_refused++;
		return k->refuse_error;
	}
	if (k->n_cmds < FAKE_MAX_CMDS) {
		struct fake_cmd *c = &k->cmds[k->n_cmds++];

		*c = (struct fake_cmd) { .op = op, .step = step, .reset_type = type,
					 .op_id = k->next_op_id,
					 .sync_since_event = k->sync_since_event };
		snprintf(c->pe, sizeof(c->pe), "%s", pe_addr);
	}
	o.op_id = k->next_op_id++;
	snprintf(o.pe, sizeof(o.pe), "%s", pe_addr);
	pe->flags |= PCIERR_PE_F_BUSY;
	if (!k->no_last_op)
		pe->last_op = (struct pcierr_last_op) { .op_id = o.op_id, .op = op, .step = step };
	*ret_op_id = o.op_id;
	if (k->auto_complete)
		finish_op(k, &o);
	else if (k->n_inflight < 64)
		k->inflight[k->n_inflight++] = o;
	return 0;
}

static int f_ctx_new(struct pcierr_ctx **ret)
{
	struct pcierr_ctx *c;

	if (!fake || fake->gone)
		return -ENOENT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->k = fake;
	*ret = c;
	return 0;
}

static void f_ctx_free(struct pcierr_ctx *ctx)
{
	free(ctx);
}

static int f_ctx_reconnect(struct pcierr_ctx *ctx)
{
	return ctx->k->gone ? -ENOENT : 0;
}

static const char *f_last_error_message(struct pcierr_ctx *ctx)
{
	return NULL;
}

static int f_family_id(struct pcierr_ctx *ctx)
{
	return ctx->k->family_id;
}

static int f_event_fd(struct pcierr_ctx *ctx)
{
	return ctx->k->efd;
}

static int f_event_read(struct pcierr_ctx *ctx, pcierr_notify_fn cb, void *userdata)
{
	struct fake_kernel *k = ctx->k;
	uint64_t v;
	int n = 0, r = 0;

	(void)!read(k->efd, &v, sizeof(v));
	/* one at a time (a callback may queue more), at most a batch per
	 * call as libpcierr's pcierr_event_read() (PCIERR_EVENT_READ_BATCH) */
	while (k->queue_head < k->n_queue && n < FAKE_READ_BATCH) {
		/* taken before the callback, which may push (and compact) */
		struct pcierr_notification note = k->queue[k->queue_head++];

		if (note.type == PCIERR_NOTIFY_EVENT)
			k->sync_since_event = 0;
		r = cb(ctx, &note, userdata);
		if (note.type == PCIERR_NOTIFY_OP_DONE)
			free(note.op_done.results);
		if (note.type == PCIERR_NOTIFY_RECOVER_DONE)
			pcierr_recover_done_clear(&note.recover_done);
		n++;
		/* as libpcierr: a negative return stops, the rest stays */
		if (r < 0)
			break;
	}
	if (k->queue_head == k->n_queue)
		k->queue_head = k->n_queue = 0;
	if (k->n_queue > 0) {
		/* the rest on the loop's next turn */
		v = 1;
		(void)!write(k->efd, &v, sizeof(v));
	}
	return r < 0 ? r : n;
}

static int copy_pe(const struct pcierr_pe *in, struct pcierr_pe *out)
{
	*out = *in;
	out->devices = calloc(in->n_devices ? in->n_devices : 1, sizeof(*out->devices));
	if (!out->devices)
		return -ENOMEM;
	for (size_t i = 0; i < in->n_devices; i++) {
		out->devices[i] = in->devices[i];
		out->devices[i].driver = strdup(in->devices[i].driver);
		if (!out->devices[i].driver)
			return -ENOMEM;
	}
	return 0;
}

static int f_pe_dump(struct pcierr_ctx *ctx, struct pcierr_pe_list *ret)
{
	struct fake_kernel *k = ctx->k;

	k->sync_since_event++;
	k->n_dumps++;
	if (k->gone)
		return -ENOTCONN;
	if (k->fail_dumps > 0) {
		k->fail_dumps--;
		return -EAGAIN;
	}
	ret->pes = calloc(k->n_pes ? k->n_pes : 1, sizeof(*ret->pes));
	if (!ret->pes)
		return -ENOMEM;
	for (size_t i = 0; i < k->n_pes; i++) {
		int r = copy_pe(&k->pes[i], &ret->pes[ret->n_pes++]);

		if (r < 0) {
			pcierr_pe_list_clear(ret);
			return r;
		}
	}
	return 0;
}

static int f_pe_get(struct pcierr_ctx *ctx, const char *addr, struct pcierr_pe *ret)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;

	k->sync_since_event++;
	k->n_gets++;
	if (k->gone)
		return -ENOTCONN;
	pe = fake_pe(k, addr);
	if (!pe)
		pe = pe_of_device(k, addr);
	return pe ? copy_pe(pe, ret) : -ENODEV;
}

static int f_pe_get_by_device(struct pcierr_ctx *ctx, const char *dev, struct pcierr_pe *ret)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;

	k->sync_since_event++;
	k->n_gets++;
	if (k->gone)
		return -ENOTCONN;
	pe = pe_of_device(k, dev);
	return pe ? copy_pe(pe, ret) : -ENODEV;
}

static int f_stats_get(struct pcierr_ctx *ctx, struct pcierr_stats *ret)
{
	ctx->k->sync_since_event++;
	memset(ret, 0, sizeof(*ret));
	ret->counter[PCIERR_STAT_LOAD_ID] = ctx->k->load_id;
	return ctx->k->gone ? -ENOTCONN : 0;
}

static int f_inject(struct pcierr_ctx *ctx, const char *dev, uint64_t pe_id,
		    enum pcierr_channel_state state, uint32_t time_unavail_ms, uint64_t *ret_seq)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;

	if (k->gone)
		return -ENOTCONN;
	pe = pe_of_device(k, dev);
	if (!pe)
		return -ENODEV;
	if (pe->id != pe_id)
		return -ESTALE;
	*ret_seq = k->next_seq;
	fake_event(k, dev, state);
	return 0;
}

static int f_report(struct pcierr_ctx *ctx, const char *pe, uint64_t id, enum pcierr_step step,
		    enum pcierr_channel_state state, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_REPORT, step, 0, ret_op_id);
}

static int f_enable_io(struct pcierr_ctx *ctx, const char *pe, uint64_t id, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_ENABLE_IO, 0, 0, ret_op_id);
}

static int f_reset(struct pcierr_ctx *ctx, const char *pe, uint64_t id,
		   enum pcierr_reset_type type, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_RESET, 0, type, ret_op_id);
}

static int f_remove(struct pcierr_ctx *ctx, const char *pe, uint64_t id, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_REMOVE, 0, 0, ret_op_id);
}

static int f_remove_device(struct pcierr_ctx *ctx, const char *pe, uint64_t id, const char *dev,
			   uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_REMOVE, 0, 0, ret_op_id);
}

static int f_rescan(struct pcierr_ctx *ctx, const char *pe, uint64_t id, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_RESCAN, 0, 0, ret_op_id);
}

static int f_disable(struct pcierr_ctx *ctx, const char *pe, uint64_t id, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_DISABLE, 0, 0, ret_op_id);
}

static int f_enable(struct pcierr_ctx *ctx, const char *pe, uint64_t id, uint64_t *ret_op_id)
{
	return command(ctx, pe, id, PCIERR_CMD_ENABLE, 0, 0, ret_op_id);
}

static int f_recover(struct pcierr_ctx *ctx, const char *pe, uint64_t id,
		     enum pcierr_channel_state state, enum pcierr_reset_type type,
		     uint64_t *ret_op_id)
{
	if (!ctx->k->recover)
		return -EOPNOTSUPP;
	return command(ctx, pe, id, PCIERR_CMD_RECOVER, 0, type, ret_op_id);
}

static int f_last_recover(struct pcierr_ctx *ctx, const char *addr,
			  struct pcierr_recover_done *ret)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;

	k->sync_since_event++;
	k->n_gets++;
	if (k->gone)
		return -ENOTCONN;
	pe = fake_pe(k, addr);
	if (!pe)
		return -ENODEV;
	if (k->no_last_op || pe->last_op.op != PCIERR_CMD_RECOVER || !pe->last_op.done ||
	    k->last_recover.op_id != pe->last_op.op_id)
		return -ENOMSG;
	*ret = k->last_recover;
	ret->steps = calloc(6, sizeof(*ret->steps));
	if (!ret->steps)
		return -ENOMEM;
	memcpy(ret->steps, k->last_recover.steps, k->last_recover.n_steps * sizeof(*ret->steps));
	return 0;
}

static int f_arm(struct pcierr_ctx *ctx, const char *addr, uint64_t id, uint32_t budget,
		 enum pcierr_reset_type type)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;

	if (k->gone)
		return -ENOTCONN;
	if (!k->arm)
		return -EOPNOTSUPP;
	pe = fake_pe(k, addr);
	if (!pe)
		return -ENODEV;
	if (pe->id != id)
		return -ESTALE;
	if (pe - k->pes >= 64)
		return -ENOSPC;		/* the double's limit */
	if (budget > 1 || (budget && !(pe->reset_types & (1U << type))))
		return budget > 1 ? -EINVAL : -EOPNOTSUPP;
	k->armed_id[pe - k->pes] = budget ? id : 0;
	k->armed_type[pe - k->pes] = type;
	if (budget) {
		pe->flags |= PCIERR_PE_F_ARMED;
		k->n_arms++;
	} else {
		pe->flags &= ~PCIERR_PE_F_ARMED;
		k->n_disarms++;
	}
	return 0;
}

static int f_hold(struct pcierr_ctx *ctx, const char *addr, uint64_t id, uint32_t lease_ms)
{
	struct fake_kernel *k = ctx->k;
	struct pcierr_pe *pe;
	size_t i;

	if (k->gone)
		return -ENOTCONN;
	if (!k->hold)
		return -EOPNOTSUPP;
	pe = fake_pe(k, addr);
	if (!pe)
		return -ENODEV;
	if (pe->id != id)
		return -ESTALE;
	i = (size_t)(pe - k->pes);
	if (i >= 64)
		return -ENOSPC;		/* the double's limit */
	if (lease_ms && lease_ms < PCIERR_HOLD_MIN_MS)
		return -ERANGE;
	k->held_id[i] = lease_ms ? id : 0;
	k->held_lease_ms[i] = lease_ms;
	if (lease_ms) {
		pe->flags |= PCIERR_PE_F_HELD;
		k->n_holds++;
	} else {
		pe->flags &= ~PCIERR_PE_F_HELD;
		k->n_unholds++;
	}
	return 0;
}

void fake_owner_recover(struct fake_kernel *k, const char *addr, bool ok)
{
	struct pcierr_pe *pe = fake_pe(k, addr);
	struct pcierr_notification n = { .type = PCIERR_NOTIFY_OP_DONE };

	if (!pe)
		abort();
	if (ok) {
		pe->state = PCIERR_PE_STATE_NORMAL;
		for (size_t i = 0; i < pe->n_devices; i++)
			pe->devices[i].state = PCIERR_STATE_NORMAL;
	}
	/* the shim's owner.c ends any hold when it acts */
	if (pe - k->pes < 64)
		k->held_id[pe - k->pes] = 0;
	pe->flags &= ~PCIERR_PE_F_HELD;
	pe->last_op = (struct pcierr_last_op) {
		.op_id = k->next_op_id++, .op = PCIERR_CMD_OWNER_RECOVER, .done = true,
		.error = ok ? 0 : EIO, .duration_ns = 2000000, .pe_state = pe->state,
	};
	n.op_done.op_id = pe->last_op.op_id;
	n.op_done.op = PCIERR_CMD_OWNER_RECOVER;
	n.op_done.error = pe->last_op.error;
	n.op_done.duration_ns = pe->last_op.duration_ns;
	n.op_done.pe_state = pe->state;
	n.op_done.pe_id = pe->id;
	snprintf(n.op_done.pe, sizeof(n.op_done.pe), "%s", pe->addr);
	push(k, &n);
}

bool fake_armed(struct fake_kernel *k, const char *addr)
{
	struct pcierr_pe *pe = fake_pe(k, addr);

	return pe && pe - k->pes < 64 && k->armed_id[pe - k->pes] != 0 &&
	       k->armed_id[pe - k->pes] == pe->id;
}

const struct kernel_ops fake_kernel_ops = {
	.ctx_new = f_ctx_new,
	.ctx_free = f_ctx_free,
	.ctx_reconnect = f_ctx_reconnect,
	.last_error_message = f_last_error_message,
	.family_id = f_family_id,
	.event_fd = f_event_fd,
	.event_read = f_event_read,
	.pe_dump = f_pe_dump,
	.pe_get = f_pe_get,
	.pe_get_by_device = f_pe_get_by_device,
	.stats_get = f_stats_get,
	.inject = f_inject,
	.report = f_report,
	.enable_io = f_enable_io,
	.reset = f_reset,
	.remove = f_remove,
	.remove_device = f_remove_device,
	.rescan = f_rescan,
	.disable = f_disable,
	.enable = f_enable,
	.recover = f_recover,
	.last_recover = f_last_recover,
	.arm = f_arm,
	.hold = f_hold,
};

void fake_cmds_string(const struct fake_kernel *k, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < k->n_cmds && used < size; i++) {
		const struct fake_cmd *c = &k->cmds[i];
		const char *arg = c->op == PCIERR_CMD_REPORT ? pcierr_step_to_string(c->step) :
				  c->op == PCIERR_CMD_RESET ? pcierr_reset_type_to_string(c->reset_type) :
				  NULL;
		int n = snprintf(buf + used, size - used, "%s%s%s%s", i ? " " : "",
				 pcierr_op_to_string(c->op), arg ? ":" : "", arg ? arg : "");

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrctl's text and JSON output (see output.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "output.h"

#define _printf_(a, b)	__attribute__((format(printf, a, b)))
#define N_ELEMENTS(x)	(sizeof(x) / sizeof((x)[0]))

static const char *strna(const char *s)
{
	return s && *s ? s : "-";
}

static const char *strempty(const char *s)
{
	return s ? s : "";
}

static bool isempty(const char *s)
{
	return !s || !*s;
}

/* ------------------------------------------------------------------ */
/* A table: columns aligned on the widest cell; "span" rows are lines  */
/* of their own that take no part in the widths                       */
/* ------------------------------------------------------------------ */

#define TABLE_MAX_COLS 9

struct table_row {
	bool span;
	char *cells[TABLE_MAX_COLS];
	enum ctl_color colors[TABLE_MAX_COLS];
};

struct table {
	size_t n_cols;
	const char *const *header;	/* n_cols names, or NULL */
	struct table_row *rows;
	size_t n_rows;
	size_t n_alloc;
	int error;
};

static struct table_row *table_new_row(struct table *t)
{
	if (t->error)
		return NULL;
	if (t->n_rows == t->n_alloc) {
		size_t n = t->n_alloc ? t->n_alloc * 2 : 16;
		struct table_row *r = realloc(t->rows, n * sizeof(*r));

		if (!r) {
			t->error = -ENOMEM;
			return NULL;
		}
		t->rows = r;
		t->n_alloc = n;
	}
	t->rows[t->n_rows] = (struct table_row) {};
	return &t->rows[t->n_rows++];
}

/* a row of n_cols cells: text, colour pairs */
static void table_add(struct table *t, ...)
{
	struct table_row *r = table_new_row(t);
	va_list ap;

	if (!r)
		return;
	va_start(ap, t);
	for (size_t c = 0; c < t->n_cols; c++) {
		const char *text = va_arg(ap, const char *);

		r->colors[c] = (enum ctl_color)va_arg(ap, int);
		r->cells[c] = strdup(strempty(text));
		if (!r->cells[c])
			t->error = -ENOMEM;
	}
	va_end(ap);
}

_printf_(2, 3)
static void table_add_span(struct table *t, const char *fmt, ...)
{
	struct table_row *r = table_new_row(t);
	va_list ap;
	int n;

	if (!r)
		return;
	r->span = true;
	va_start(ap, fmt);
	n = vasprintf(&r->cells[0], fmt, ap);
	va_end(ap);
	if (n < 0) {
		r->cells[0] = NULL;
		t->error = -ENOMEM;
	}
}

static void table_done(struct table *t)
{
	for (size_t i = 0; i < t->n_rows; i++)
		for (size_t c = 0; c < TABLE_MAX_COLS; c++)
			free(t->rows[i].cells[c]);
	free(t->rows);
	t->rows = NULL;
	t->n_rows = t->n_alloc = 0;
}

static void table_print_row(FILE *f, const struct ctl_style *st, const struct table *t,
			    const size_t *widths, char *const *cells,
			    const enum ctl_color *colors)
{
	size_t last = 0;

	for (size_t c = 0; c < t->n_cols; c++)
		if (!isempty(cells[c]))
			last = c;
	for (size_t c = 0; c <= last; c++) {
		if (c > 0) {
			size_t w = ctl_text_width(cells[c - 1]);

			for (size_t i = w; i < widths[c - 1] + 2; i++)
				fputc(' ', f);
		}
		if (colors[c] != CTL_NORMAL && !isempty(cells[c]))
			fprintf(f, "%s%s%s", ctl_color(st, colors[c]), cells[c],
				ctl_color(st, CTL_NORMAL));
		else
			fputs(strempty(cells[c]), f);
	}
	fputc('\n', f);
}

static int table_print(FILE *f, const struct ctl_style *st, struct table *t, bool legend)
{
	size_t widths[TABLE_MAX_COLS] = {};

	if (t->error)
		return t->error;
	if (legend && t->header)
		for (size_t c = 0; c < t->n_cols; c++)
			widths[c] = ctl_text_width(t->header[c]);
	for (size_t i = 0; i < t->n_rows; i++)
		for (size_t c = 0; c < t->n_cols && !t->rows[i].span; c++) {
			size_t w = ctl_text_width(t->rows[i].cells[c]);

			if (w > widths[c])
				widths[c] = w;
		}

	if (legend && t->header) {
		char *cells[TABLE_MAX_COLS];
		enum ctl_color colors[TABLE_MAX_COLS];

		for (size_t c = 0; c < t->n_cols; c++) {
			cells[c] = (char *)t->header[c];
			colors[c] = CTL_HIGHLIGHT;
		}
		table_print_row(f, st, t, widths, cells, colors);
	}
	for (size_t i = 0; i < t->n_rows; i++) {
		if (t->rows[i].span)
			fprintf(f, "%s\n", t->rows[i].cells[0]);
		else
			table_print_row(f, st, t, widths, t->rows[i].cells, t->rows[i].colors);
	}
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------------ */
/* Words for devices and slots                                        */
/* ------------------------------------------------------------------ */

/* "Vendor Device [vvvv:dddd]", as lspci -nn names it */
static void device_title(char *buf, size_t size, const struct ctl_device *d)
{
	if (!isempty(d->vendor_name) && !isempty(d->device_name))
		snprintf(buf, size, "%s %s [%04x:%04x]", d->vendor_name, d->device_name,
			 d->vendor_id, d->device_id);
	else if (!isempty(d->vendor_name))
		snprintf(buf, size, "%s Device [%04x:%04x]", d->vendor_name,
			 d->vendor_id, d->device_id);
	else
		snprintf(buf, size, "Device [%04x:%04x]", d->vendor_id, d->device_id);
}

static bool slot_busy(const struct ctl_slot *s)
{
	return !isempty(s->step) && strcmp(s->step, "idle") != 0;
}

static enum ctl_color slot_color(const struct ctl_slot *s)
{
	if (s->disabled || s->stuck)
		return CTL_RED;
	if (slot_busy(s))
		return CTL_YELLOW;
	return ctl_state_color(s->state);
}

/* "frozen, error_detected, stuck; last recovery: recovered in 1.234s, 1h ago" */
/* The Slot's Backend property, for people. */
static const char *ctl_backend_name(const char *backend)
{
	if (strcmp(backend, "generic") == 0)
		return "generic PCIe";
	if (strcmp(backend, "pseries-rtas") == 0)
		return "pseries RTAS";
	if (strcmp(backend, "kernel-eeh") == 0)
		return "kernel EEH";
	return backend;
}

static void slot_summary(char *buf, size_t size, const struct ctl_style *st,
			 const struct ctl_slot *s, uint64_t now_usec)
{
	char span[CTL_TIMESPAN_MAX], rel[CTL_TIMESPAN_MAX];
	size_t n;

	n = (size_t)snprintf(buf, size, "%s%s%s", ctl_color(st, ctl_state_color(s->state)),
			     strna(s->state), ctl_color(st, CTL_NORMAL));
	if (n < size && slot_busy(s))
		n += (size_t)snprintf(buf + n, size - n, ", %s%s%s",
				      ctl_color(st, CTL_YELLOW), s->step,
				      ctl_color(st, CTL_NORMAL));
	if (n < size && s->stuck)
		n += (size_t)snprintf(buf + n, size - n, ", %sstuck%s",
				      ctl_color(st, CTL_RED), ctl_color(st, CTL_NORMAL));
	if (n < size && s->disabled && strcmp(strempty(s->state), "disabled") != 0)
		n += (size_t)snprintf(buf + n, size - n, ", %sdisabled%s",
				      ctl_color(st, CTL_RED), ctl_color(st, CTL_NORMAL));
	if (n < size && !isempty(s->last_result))
		n += (size_t)snprintf(buf + n, size - n, "; last recovery: %s%s%s %s %s, %s",
				      ctl_color(st, ctl_result_color(s->last_result)),
				      s->last_result, ctl_color(st, CTL_NORMAL),
				      strcmp(s->last_result, "recovered") == 0 ? "in" : "after",
				      ctl_format_timespan(span, sizeof(span), s->last_duration_usec),
				      s->last_recovery_usec ?
				      ctl_format_relative(rel, sizeof(rel), s->last_recovery_usec, now_usec) :
				      "-");
	if (n < size && s->disabled)
		n += (size_t)snprintf(buf + n, size - n, " (pcierrctl enable %s)",
				      strempty(s->address));
	if (n < size && !isempty(s->backend))
		snprintf(buf + n, size - n, "; recovered by %s", ctl_backend_name(s->backend));
}

/* ------------------------------------------------------------------ */
/* JSON objects                                                        */
/* ------------------------------------------------------------------ */

static void json_manager(struct json_writer *w, const struct ctl_manager *m)
{
	json_begin_object(w);
	json_kv_string(w, "Version", strempty(m->version));
	json_kv_uint(w, "MaxFreezes", m->max_freezes);
	json_kv_uint(w, "FreezeWindowUSec", m->freeze_window_usec);
	json_kv_uint(w, "MaxWaitUSec", m->max_wait_usec);
	json_kv_uint(w, "StepTimeoutUSec", m->step_timeout_usec);
	json_kv_bool(w, "KernelConnected", m->kernel_connected);
	json_kv_uint(w, "EventsReceived", m->events_received);
	json_kv_uint(w, "EventsLost", m->events_lost);
	json_kv_uint(w, "RecoveriesStarted", m->recoveries_started);
	json_kv_uint(w, "RecoveriesSucceeded", m->recoveries_succeeded);
	json_kv_uint(w, "RecoveriesFailed", m->recoveries_failed);
	json_kv_uint(w, "HotplugFallbacks", m->hotplug_fallbacks);
	json_kv_uint(w, "PermanentDisables", m->permanent_disables);
	json_kv_uint(w, "Resyncs", m->resyncs);
	json_end_object(w);
}

static void json_slot(struct json_writer *w, const struct ctl_slot *s)
{
	json_begin_object(w);
	json_kv_string(w, "Address", strempty(s->address));
	json_kv_strv(w, "ResetTypes", s->reset_types);
	json_kv_string(w, "State", strempty(s->state));
	json_kv_string(w, "Step", strempty(s->step));
	json_kv_bool(w, "Stuck", s->stuck);
	json_kv_strv(w, "Devices", s->devices);
	json_kv_string(w, "LastResult", strempty(s->last_result));
	json_kv_uint(w, "LastDurationUSec", s->last_duration_usec);
	json_kv_uint(w, "LastRecoveryUSec", s->last_recovery_usec);
	json_kv_string(w, "LastMessage", strempty(s->last_message));
	json_kv_bool(w, "Disabled", s->disabled);
	if (s->backend)
		json_kv_string(w, "Backend", s->backend);
	json_end_object(w);
}

static void json_device(struct json_writer *w, const struct ctl_device *d)
{
	json_begin_object(w);
	json_kv_string(w, "Address", strempty(d->address));
	json_kv_string(w, "Slot", strempty(d->slot));
	json_kv_uint(w, "VendorId", d->vendor_id);
	json_kv_uint(w, "DeviceId", d->device_id);
	json_kv_uint(w, "SubsystemVendorId", d->subsystem_vendor_id);
	json_kv_uint(w, "SubsystemId", d->subsystem_id);
	json_kv_uint(w, "Class", d->class);
	json_kv_string(w, "VendorName", strempty(d->vendor_name));
	json_kv_string(w, "DeviceName", strempty(d->device_name));
	json_kv_string(w, "Identity", strempty(d->identity));
	json_kv_string(w, "Driver", strempty(d->driver));
	json_kv_strv(w, "Handlers", d->handlers);
	json_kv_string(w, "State", strempty(d->state));
	json_kv_uint(w, "ErrorGeneration", d->error_generation);
	json_kv_uint(w, "FreezeCount", d->freeze_count);
	json_kv_uint(w, "MaxFreezes", d->max_freezes);
	json_kv_uint(w, "LastErrorUSec", d->last_error_usec);
	json_kv_bool(w, "Disabled", d->disabled);
	json_kv_string(w, "DisabledReason", strempty(d->disabled_reason));
	json_end_object(w);
}

/* ------------------------------------------------------------------ */
/* status                                                              */
/* ------------------------------------------------------------------ */

static void status_slot(struct table *t, const struct ctl_style *st,
			const struct ctl_model *m, const struct ctl_slot *s,
			uint64_t now_usec)
{
	char summary[1024];
	size_t n = ctl_strv_length(s->devices);

	slot_summary(summary, sizeof(summary), st, s, now_usec);
	table_add_span(t, "%s%s%s %s%s%s  %s",
		       ctl_color(st, slot_color(s)), ctl_glyph(st, CTL_BULLET),
		       ctl_color(st, CTL_NORMAL),
		       ctl_color(st, CTL_HIGHLIGHT), strempty(s->address),
		       ctl_color(st, CTL_NORMAL), summary);
	if (!isempty(s->last_message) && !isempty(s->last_result) &&
	    strcmp(s->last_result, "recovered") != 0)
		table_add_span(t, "%s  %s", n ? ctl_glyph(st, CTL_TREE_VERTICAL) : "  ",
			       s->last_message);

	for (size_t i = 0; i < n; i++) {
		const struct ctl_device *d = ctl_model_find_device(m, s->devices[i]);
		bool last = i + 1 == n;
		char addr[128], title[512], freezes[32];

		snprintf(addr, sizeof(addr), "%s%s", ctl_glyph(st, last ? CTL_TREE_RIGHT :
							       CTL_TREE_BRANCH), s->devices[i]);
		if (!d) {
			table_add(t, addr, CTL_NORMAL, "", CTL_NORMAL, "(gone)", CTL_GREY,
				  "", CTL_NORMAL, "", CTL_NORMAL);
			continue;
		}
		device_title(title, sizeof(title), d);
		snprintf(freezes, sizeof(freezes), "%" PRIu32 "/%" PRIu32,
			 d->freeze_count, d->max_freezes);
		table_add(t, addr, CTL_NORMAL,
			  strna(d->driver), isempty(d->driver) ? CTL_GREY : CTL_NORMAL,
			  strna(d->state), ctl_state_color(d->state),
			  freezes, d->max_freezes && d->freeze_count >= d->max_freezes ? CTL_RED :
				   d->freeze_count ? CTL_YELLOW : CTL_NORMAL,
			  title, CTL_NORMAL);
		if (d->disabled)
			table_add_span(t, "%s  %sdisabled%s: %s",
				       ctl_glyph(st, last ? CTL_TREE_SPACE : CTL_TREE_VERTICAL),
				       ctl_color(st, CTL_RED), ctl_color(st, CTL_NORMAL),
				       strna(d->disabled_reason));
	}
}

int ctl_render_status(FILE *f, const struct ctl_style *st, const struct ctl_model *m,
		      const char *only_slot, bool legend, uint64_t now_usec)
{
	struct table t = { .n_cols = 5 };
	size_t n_slots = 0, n_devices = 0;
	int r;

	for (size_t i = 0; i < m->n_slots; i++) {
		const struct ctl_slot *s = &m->slots[i];

		if (only_slot && strcmp(strempty(s->address), only_slot) != 0)
			continue;
		n_slots++;
		n_devices += ctl_strv_length(s->devices);
		status_slot(&t, st, m, s, now_usec);
	}

	if (legend) {
		fprintf(f, "%spcierrd%s %s: ", ctl_color(st, CTL_HIGHLIGHT),
			ctl_color(st, CTL_NORMAL), strna(m->manager.version));
		if (m->manager.kernel_connected)
			fprintf(f, "kernel shim %sconnected%s", ctl_color(st, CTL_GREEN),
				ctl_color(st, CTL_NORMAL));
		else
			fprintf(f, "kernel shim %snot loaded%s (modprobe pcierr_shim)",
				ctl_color(st, CTL_RED), ctl_color(st, CTL_NORMAL));
		fprintf(f, ", %zu slot%s, %zu device%s", n_slots, n_slots == 1 ? "" : "s",
			n_devices, n_devices == 1 ? "" : "s");
		if (!only_slot && m->manager.max_freezes) {
			char win[CTL_TIMESPAN_MAX];

			fprintf(f, "; at most %" PRIu32 " freezes in %s", m->manager.max_freezes,
				ctl_format_timespan(win, sizeof(win),
						    m->manager.freeze_window_usec));
		}
		fputc('\n', f);
	}
	r = table_print(f, st, &t, false);
	table_done(&t);
	return r;
}

int ctl_json_status(FILE *f, bool pretty, const struct ctl_model *m, const char *only_slot)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_begin_object(&w);
	json_key(&w, "Manager");
	json_manager(&w, &m->manager);
	json_key(&w, "Slots");
	json_begin_array(&w);
	for (size_t i = 0; i < m->n_slots; i++)
		if (!only_slot || strcmp(strempty(m->slots[i].address), only_slot) == 0)
			json_slot(&w, &m->slots[i]);
	json_end_array(&w);
	json_key(&w, "Devices");
	json_begin_array(&w);
	for (size_t i = 0; i < m->n_devices; i++)
		if (!only_slot || strcmp(strempty(m->devices[i].slot), only_slot) == 0)
			json_device(&w, &m->devices[i]);
	json_end_array(&w);
	json_end_object(&w);
	return json_finish(&w);
}

/* ------------------------------------------------------------------ */
/* list                                                                */
/* ------------------------------------------------------------------ */

int ctl_render_list(FILE *f, const struct ctl_style *st, const struct ctl_model *m,
		    bool legend)
{
	static const char *const header[] = {
		"DEVICE", "SLOT", "DRIVER", "STATE", "FREEZES", "NAME",
	};
	struct table t = { .n_cols = N_ELEMENTS(header), .header = header };
	int r;

	for (size_t i = 0; i < m->n_devices; i++) {
		const struct ctl_device *d = &m->devices[i];
		char title[512], freezes[32];

		device_title(title, sizeof(title), d);
		snprintf(freezes, sizeof(freezes), "%" PRIu32 "/%" PRIu32,
			 d->freeze_count, d->max_freezes);
		table_add(&t, strna(d->address), CTL_NORMAL, strna(d->slot), CTL_NORMAL,
			  strna(d->driver), isempty(d->driver) ? CTL_GREY : CTL_NORMAL,
			  d->disabled ? "disabled" : strna(d->state),
			  d->disabled ? CTL_RED : ctl_state_color(d->state),
			  freezes, CTL_NORMAL, title, CTL_NORMAL);
	}
	if (m->n_devices == 0 && legend) {
		fprintf(f, "No devices%s.\n", m->manager.kernel_connected ? "" :
			" (the kernel shim is not loaded: modprobe pcierr_shim)");
		table_done(&t);
		return ferror(f) ? -EIO : 0;
	}
	r = table_print(f, st, &t, legend);
	table_done(&t);
	if (r >= 0 && legend)
		fprintf(f, "\n%zu device%s in %zu slot%s.\n", m->n_devices,
			m->n_devices == 1 ? "" : "s", m->n_slots, m->n_slots == 1 ? "" : "s");
	return r < 0 ? r : ferror(f) ? -EIO : 0;
}

int ctl_json_list(FILE *f, bool pretty, const struct ctl_model *m)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_begin_array(&w);
	for (size_t i = 0; i < m->n_devices; i++)
		json_device(&w, &m->devices[i]);
	json_end_array(&w);
	return json_finish(&w);
}

/* ------------------------------------------------------------------ */
/* show                                                                */
/* ------------------------------------------------------------------ */

static void show_strv(FILE *f, const char *name, char *const *l)
{
	fprintf(f, "%s=", name);
	for (size_t i = 0; l && l[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", l[i]);
	fputc('\n', f);
}

/* a wall-clock time as systemctl show writes it; 0 as nothing */
static void show_timestamp(FILE *f, const char *name, uint64_t usec)
{
	time_t t = (time_t)(usec / USEC_PER_SEC);
	char buf[CTL_TIMESTAMP_MAX] = "";
	struct tm tm;

	if (usec && localtime_r(&t, &tm) &&
	    strftime(buf, sizeof(buf), "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		buf[0] = 0;
	fprintf(f, "%s=%s\n", name, buf);
}

static void show_timespan(FILE *f, const char *name, uint64_t usec)
{
	char buf[CTL_TIMESPAN_MAX];

	fprintf(f, "%s=%s\n", name, ctl_format_timespan(buf, sizeof(buf), usec));
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

int ctl_render_show(FILE *f, const struct ctl_slot *s, const struct ctl_device *d)
{
	if (s) {
		fprintf(f, "Address=%s\n", strempty(s->address));
		show_strv(f, "ResetTypes", s->reset_types);
		fprintf(f, "State=%s\n", strempty(s->state));
		fprintf(f, "Step=%s\n", strempty(s->step));
		fprintf(f, "Stuck=%s\n", yes_no(s->stuck));
		show_strv(f, "Devices", s->devices);
		fprintf(f, "LastResult=%s\n", strempty(s->last_result));
		show_timespan(f, "LastDurationUSec", s->last_duration_usec);
		show_timestamp(f, "LastRecoveryUSec", s->last_recovery_usec);
		fprintf(f, "LastMessage=%s\n", strempty(s->last_message));
		fprintf(f, "Disabled=%s\n", yes_no(s->disabled));
		if (s->backend)
			fprintf(f, "Backend=%s\n", s->backend);
	}
	if (s && d)
		fputc('\n', f);
	if (d) {
		fprintf(f, "Address=%s\n", strempty(d->address));
		fprintf(f, "Slot=%s\n", strempty(d->slot));
		fprintf(f, "VendorId=%04x\n", d->vendor_id);
		fprintf(f, "DeviceId=%04x\n", d->device_id);
		fprintf(f, "SubsystemVendorId=%04x\n", d->subsystem_vendor_id);
		fprintf(f, "SubsystemId=%04x\n", d->subsystem_id);
		fprintf(f, "Class=%06" PRIx32 "\n", d->class);
		fprintf(f, "VendorName=%s\n", strempty(d->vendor_name));
		fprintf(f, "DeviceName=%s\n", strempty(d->device_name));
		fprintf(f, "Identity=%s\n", strempty(d->identity));
		fprintf(f, "Driver=%s\n", strempty(d->driver));
		show_strv(f, "Handlers", d->handlers);
		fprintf(f, "State=%s\n", strempty(d->state));
		fprintf(f, "ErrorGeneration=%" PRIu32 "\n", d->error_generation);
		fprintf(f, "FreezeCount=%" PRIu32 "\n", d->freeze_count);
		fprintf(f, "MaxFreezes=%" PRIu32 "\n", d->max_freezes);
		show_timestamp(f, "LastErrorUSec", d->last_error_usec);
		fprintf(f, "Disabled=%s\n", yes_no(d->disabled));
		fprintf(f, "DisabledReason=%s\n", strempty(d->disabled_reason));
	}
	return ferror(f) ? -EIO : 0;
}

int ctl_json_show(FILE *f, bool pretty, const struct ctl_slot *s, const struct ctl_device *d)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_begin_object(&w);
	json_key(&w, "Slot");
	if (s)
		json_slot(&w, s);
	else
		json_null(&w);
	json_key(&w, "Device");
	if (d)
		json_device(&w, d);
	else
		json_null(&w);
	json_end_object(&w);
	return json_finish(&w);
}

/* ------------------------------------------------------------------ */
/* stats                                                               */
/* ------------------------------------------------------------------ */

int ctl_render_stats(FILE *f, const struct ctl_style *st, const struct ctl_manager *m,
		     bool legend)
{
	char window[CTL_TIMESPAN_MAX], wait[CTL_TIMESPAN_MAX], step[CTL_TIMESPAN_MAX];
	char freezes[96];
	const struct {
		const char *label;
		uint64_t value;
	} counters[] = {
		{ "Events received", m->events_received },
		{ "Events lost", m->events_lost },
		{ "Resyncs", m->resyncs },
		{ "Recoveries started", m->recoveries_started },
		{ "Recoveries succeeded", m->recoveries_succeeded },
		{ "Recoveries failed", m->recoveries_failed },
		{ "Hotplug fallbacks", m->hotplug_fallbacks },
		{ "Permanent disables", m->permanent_disables },
	};
	const int w = 20;

	snprintf(freezes, sizeof(freezes), "%" PRIu32 " in %s", m->max_freezes,
		 ctl_format_timespan(window, sizeof(window), m->freeze_window_usec));
	fprintf(f, "%*s: %s\n", w, "Version", strna(m->version));
	fprintf(f, "%*s: %s%s%s\n", w, "Kernel shim",
		ctl_color(st, m->kernel_connected ? CTL_GREEN : CTL_RED),
		m->kernel_connected ? "connected" : "not loaded (modprobe pcierr_shim)",
		ctl_color(st, CTL_NORMAL));
	for (size_t i = 0; i < N_ELEMENTS(counters); i++)
		fprintf(f, "%*s: %" PRIu64 "\n", w, counters[i].label, counters[i].value);
	fprintf(f, "%*s: %s\n", w, "Max freezes", freezes);
	fprintf(f, "%*s: %s\n", w, "Max wait",
		ctl_format_timespan(wait, sizeof(wait), m->max_wait_usec));
	fprintf(f, "%*s: %s\n", w, "Step timeout",
		ctl_format_timespan(step, sizeof(step), m->step_timeout_usec));
	if (legend)
		fprintf(f, "\n%sThese are pcierrd's counters (org.pcierr1.Manager). The kernel shim's own\n"
			"counters (checks, all-ones reads, false positives, resets, ...) are not on\n"
			"D-Bus: pcierrd writes them to its metrics file (MetricsPath=, pcierrd.conf(5)).%s\n",
			ctl_color(st, CTL_GREY), ctl_color(st, CTL_NORMAL));
	return ferror(f) ? -EIO : 0;
}

int ctl_json_stats(FILE *f, bool pretty, const struct ctl_manager *m)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_manager(&w, m);
	return json_finish(&w);
}

/* ------------------------------------------------------------------ */
/* history                                                             */
/* ------------------------------------------------------------------ */

int ctl_render_history(FILE *f, const struct ctl_style *st,
		       const struct ctl_history_entry *e, size_t n, bool legend)
{
	static const char *const header[] = {
		"TIME", "SLOT", "DEVICE", "KIND", "STEP", "RESULT", "DURATION", "MESSAGE",
	};
	struct table t = { .n_cols = N_ELEMENTS(header), .header = header };
	int r;

	if (n == 0) {
		if (legend)
			fprintf(f, "No history entries.\n");
		return ferror(f) ? -EIO : 0;
	}
	for (size_t i = 0; i < n; i++) {
		char when[CTL_TIMESTAMP_MAX], dur[CTL_TIMESPAN_MAX], msg[1024];
		size_t len = 0;

		msg[0] = 0;
		if (!isempty(e[i].results))
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "[%s]", e[i].results);
		if (len < sizeof(msg) && !isempty(e[i].message))
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
						len ? " " : "", e[i].message);
		if (len < sizeof(msg) && e[i].error)
			snprintf(msg + len, sizeof(msg) - len, "%s(error: %s)", len ? " " : "",
				 strerror(e[i].error < 0 ? -e[i].error : e[i].error));
		table_add(&t,
			  ctl_format_timestamp(when, sizeof(when), e[i].time_usec, true), CTL_NORMAL,
			  strna(e[i].slot), CTL_NORMAL,
			  strna(e[i].device), CTL_NORMAL,
			  strna(e[i].kind), CTL_NORMAL,
			  strna(e[i].step), CTL_NORMAL,
			  strna(e[i].result), ctl_result_color(e[i].result),
			  e[i].duration_usec ? ctl_format_timespan(dur, sizeof(dur), e[i].duration_usec) : "-",
			  CTL_NORMAL,
			  msg, CTL_NORMAL);
	}
	r = table_print(f, st, &t, legend);
	table_done(&t);
	if (r >= 0 && legend)
		fprintf(f, "\n%zu entr%s.\n", n, n == 1 ? "y" : "ies");
	return r < 0 ? r : ferror(f) ? -EIO : 0;
}

int ctl_json_history(FILE *f, bool pretty, const struct ctl_history_entry *e, size_t n)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_begin_array(&w);
	for (size_t i = 0; i < n; i++) {
		json_begin_object(&w);
		json_kv_uint(&w, "TimeUSec", e[i].time_usec);
		json_kv_string(&w, "Slot", strempty(e[i].slot));
		json_kv_string(&w, "Device", strempty(e[i].device));
		json_kv_string(&w, "Kind", strempty(e[i].kind));
		json_kv_string(&w, "Step", strempty(e[i].step));
		json_kv_string(&w, "Result", strempty(e[i].result));
		json_kv_string(&w, "Results", strempty(e[i].results));
		json_kv_uint(&w, "DurationUSec", e[i].duration_usec);
		json_kv_int(&w, "Error", e[i].error);
		json_kv_string(&w, "Message", strempty(e[i].message));
		json_end_object(&w);
	}
	json_end_array(&w);
	return json_finish(&w);
}

/* ------------------------------------------------------------------ */
/* signals                                                             */
/* ------------------------------------------------------------------ */

const char *ctl_signal_name(enum ctl_signal_kind k)
{
	static const char *const names[] = {
		[CTL_SIGNAL_ERROR_DETECTED] = "ErrorDetected",
		[CTL_SIGNAL_RECOVERY_STARTED] = "RecoveryStarted",
		[CTL_SIGNAL_RECOVERY_STEP] = "RecoveryStep",
		[CTL_SIGNAL_RECOVERY_FINISHED] = "RecoveryFinished",
		[CTL_SIGNAL_PERMANENTLY_DISABLED] = "PermanentlyDisabled",
		[CTL_SIGNAL_INTERFACES_ADDED] = "InterfacesAdded",
		[CTL_SIGNAL_INTERFACES_REMOVED] = "InterfacesRemoved",
		[CTL_SIGNAL_NAME_OWNER_CHANGED] = "NameOwnerChanged",
	};

	return (unsigned)k < N_ELEMENTS(names) ? names[k] : NULL;
}

int ctl_render_signal(FILE *f, const struct ctl_style *st, const struct ctl_signal *sig)
{
	char span[CTL_TIMESPAN_MAX];
	const char *slot = strna(sig->slot);

	if (sig->time_usec) {
		char when[CTL_TIMESTAMP_MAX];

		/* the time of day with milliseconds */
		ctl_format_timestamp(when, sizeof(when), sig->time_usec, true);
		fprintf(f, "%s%s%s ", ctl_color(st, CTL_GREY),
			strlen(when) > 11 ? when + 11 : when, ctl_color(st, CTL_NORMAL));
	}

	switch (sig->kind) {
	case CTL_SIGNAL_ERROR_DETECTED:
		fprintf(f, "%s: %serror detected%s on %s: %s (%s)", slot,
			ctl_color(st, CTL_YELLOW), ctl_color(st, CTL_NORMAL),
			isempty(sig->device) ? "the slot" : sig->device,
			strna(sig->state), strna(sig->source));
		if (sig->unavailable_ms)
			fprintf(f, ", unavailable for %" PRIu32 " ms", sig->unavailable_ms);
		break;
	case CTL_SIGNAL_RECOVERY_STARTED:
		fprintf(f, "%s: recovery started (%s)", slot, strna(sig->mode));
		break;
	case CTL_SIGNAL_RECOVERY_STEP: {
		size_t w = ctl_text_width(strna(sig->step)), wr = ctl_text_width(strna(sig->result));

		fprintf(f, "%s:   %s%*s %s%s%s%*s %8s", slot, strna(sig->step),
			(int)(w < 15 ? 15 - w : 0), "",
			ctl_color(st, ctl_result_color(sig->result)), strna(sig->result),
			ctl_color(st, CTL_NORMAL), (int)(wr < 12 ? 12 - wr : 0), "",
			ctl_format_timespan(span, sizeof(span), sig->duration_usec));
		break;
	}
	case CTL_SIGNAL_RECOVERY_FINISHED:
		fprintf(f, "%s: %s%s%s %s %s", slot,
			ctl_color(st, ctl_result_color(sig->result)), strna(sig->result),
			ctl_color(st, CTL_NORMAL),
			strcmp(strempty(sig->result), "recovered") == 0 ? "in" : "after",
			ctl_format_timespan(span, sizeof(span), sig->duration_usec));
		break;
	case CTL_SIGNAL_PERMANENTLY_DISABLED:
		fprintf(f, "%s: %spermanently disabled%s", slot, ctl_color(st, CTL_RED),
			ctl_color(st, CTL_NORMAL));
		if (!isempty(sig->device))
			fprintf(f, " (%s)", sig->device);
		fprintf(f, ": %s", strna(sig->reason));
		break;
	case CTL_SIGNAL_INTERFACES_ADDED:
	case CTL_SIGNAL_INTERFACES_REMOVED:
		fprintf(f, "%s: %s %s", strna(sig->address), strna(sig->object),
			sig->kind == CTL_SIGNAL_INTERFACES_ADDED ? "added" : "removed");
		break;
	case CTL_SIGNAL_NAME_OWNER_CHANGED:
		fprintf(f, "pcierrd %s", sig->running ? "started" : "stopped");
		break;
	default:
		return -EINVAL;
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

int ctl_json_signal(FILE *f, const struct ctl_signal *sig)
{
	struct json_writer w;
	const char *name = ctl_signal_name(sig->kind);

	if (!name)
		return -EINVAL;
	json_init(&w, f, false);
	json_begin_object(&w);
	json_kv_uint(&w, "TimeUSec", sig->time_usec);
	json_kv_string(&w, "Signal", name);
	switch (sig->kind) {
	case CTL_SIGNAL_ERROR_DETECTED:
		json_kv_string(&w, "Slot", strempty(sig->slot));
		json_kv_string(&w, "Device", strempty(sig->device));
		json_kv_string(&w, "State", strempty(sig->state));
		json_kv_uint(&w, "UnavailableMSec", sig->unavailable_ms);
		json_kv_string(&w, "Source", strempty(sig->source));
		break;
	case CTL_SIGNAL_RECOVERY_STARTED:
		json_kv_string(&w, "Slot", strempty(sig->slot));
		json_kv_string(&w, "Mode", strempty(sig->mode));
		break;
	case CTL_SIGNAL_RECOVERY_STEP:
		json_kv_string(&w, "Slot", strempty(sig->slot));
		json_kv_string(&w, "Step", strempty(sig->step));
		json_kv_string(&w, "Result", strempty(sig->result));
		json_kv_uint(&w, "DurationUSec", sig->duration_usec);
		break;
	case CTL_SIGNAL_RECOVERY_FINISHED:
		json_kv_string(&w, "Slot", strempty(sig->slot));
		json_kv_string(&w, "Result", strempty(sig->result));
		json_kv_uint(&w, "DurationUSec", sig->duration_usec);
		break;
	case CTL_SIGNAL_PERMANENTLY_DISABLED:
		json_kv_string(&w, "Slot", strempty(sig->slot));
		json_kv_string(&w, "Device", strempty(sig->device));
		json_kv_string(&w, "Reason", strempty(sig->reason));
		break;
	case CTL_SIGNAL_INTERFACES_ADDED:
	case CTL_SIGNAL_INTERFACES_REMOVED:
		json_kv_string(&w, "Path", strempty(sig->path));
		json_kv_string(&w, "Object", strempty(sig->object));
		json_kv_string(&w, "Address", strempty(sig->address));
		break;
	case CTL_SIGNAL_NAME_OWNER_CHANGED:
		json_kv_bool(&w, "Running", sig->running);
		break;
	default:
		break;
	}
	json_end_object(&w);
	return json_finish(&w);
}

int ctl_json_recovery(FILE *f, bool pretty, const struct ctl_recovery *r)
{
	struct json_writer w;

	json_init(&w, f, pretty);
	json_begin_object(&w);
	json_kv_string(&w, "Slot", strempty(r->slot));
	if (r->has_seq)
		json_kv_uint(&w, "Seq", r->seq);
	else
		json_kv_null(&w, "Seq");
	json_kv_string(&w, "Result", r->result);
	if (r->has_duration)
		json_kv_uint(&w, "DurationUSec", r->duration_usec);
	else
		json_kv_null(&w, "DurationUSec");
	json_key(&w, "Steps");
	json_begin_array(&w);
	for (size_t i = 0; i < r->n_steps; i++) {
		json_begin_object(&w);
		json_kv_string(&w, "Step", strempty(r->steps[i].step));
		json_kv_string(&w, "Result", strempty(r->steps[i].result));
		json_kv_uint(&w, "DurationUSec", r->steps[i].duration_usec);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_kv_string(&w, "Reason", r->reason);
	json_end_object(&w);
	return json_finish(&w);
}

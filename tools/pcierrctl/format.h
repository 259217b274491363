/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's small pure helpers: addresses, times (to text and from the
 * --since/--timeout arguments), and the style of the text output
 * (colours, tree glyphs). Nothing here talks to the bus.
 */
#ifndef PCIERRCTL_FORMAT_H
#define PCIERRCTL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pcierr/pcierr.h>

#define USEC_PER_MSEC	1000ULL
#define USEC_PER_SEC	1000000ULL
#define USEC_PER_MINUTE	(60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR	(60ULL * USEC_PER_MINUTE)
#define USEC_PER_DAY	(24ULL * USEC_PER_HOUR)
#define USEC_PER_WEEK	(7ULL * USEC_PER_DAY)

#define CTL_TIMESTAMP_MAX	64
#define CTL_TIMESPAN_MAX	64

/*
 * A PCI address as the user typed it ("0000:01:00.0" or "01:00.0", any
 * case) into its canonical form. 0, or -EINVAL.
 */
int ctl_parse_address(const char *s, char ret[PCIERR_ADDR_STRLEN]);

/*
 * A time span: "90", "90s", "1.5s", "250ms", "2min 30s", "1h30min",
 * "2 days", "1w"; units us, ms, s/sec/second(s), m/min/minute(s),
 * h/hr/hour(s), d/day(s), w/week(s); a bare number is in default_unit
 * µs. Returns 0 and *ret in µs, or -EINVAL (-ERANGE on overflow).
 */
int ctl_parse_timespan(const char *s, uint64_t default_unit, uint64_t *ret);

/*
 * A point in time (for --since), relative to now (µs, CLOCK_REALTIME):
 *   "now", "today", "yesterday", "@SECONDS[.FRACTION]",
 *   "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]" (also with 'T'), "HH:MM[:SS]"
 *   (today), in local time; "-SPAN" or "SPAN ago" (e.g. "-1h",
 *   "30min ago"). Returns 0 and *ret (µs since the epoch), or -EINVAL.
 */
int ctl_parse_time(const char *s, uint64_t now_usec, uint64_t *ret);

/* "1.235s", "674ms", "2min 3s", "1h 5min", "3d 2h"; 0 as "0" */
char *ctl_format_timespan(char *buf, size_t size, uint64_t usec);

/* local time "YYYY-MM-DD HH:MM:SS"; with_usec adds ".mmm"; 0 as "-" */
char *ctl_format_timestamp(char *buf, size_t size, uint64_t usec, bool with_msec);

/* "5min ago" relative to now ("now" within a second, "in 5s" if later) */
char *ctl_format_relative(char *buf, size_t size, uint64_t usec, uint64_t now_usec);

/* The style of the text output */
struct ctl_style {
	bool color;		/* ANSI colours */
	bool utf8;		/* tree glyphs and "●" in UTF-8 */
};

enum ctl_color { CTL_NORMAL, CTL_GREEN, CTL_RED, CTL_YELLOW, CTL_HIGHLIGHT, CTL_GREY };

/* the escape sequence of c ("" without colours) */
const char *ctl_color(const struct ctl_style *st, enum ctl_color c);

/* Tree glyphs: branch "├─", last "└─", vertical "│ ", space "  " */
enum ctl_glyph { CTL_TREE_BRANCH, CTL_TREE_RIGHT, CTL_TREE_VERTICAL, CTL_TREE_SPACE, CTL_BULLET, CTL_ARROW };
const char *ctl_glyph(const struct ctl_style *st, enum ctl_glyph g);

/* the colour that fits a slot's or device's state, a result */
enum ctl_color ctl_state_color(const char *state);
enum ctl_color ctl_result_color(const char *result);

/* the number of columns s takes on a terminal (UTF-8 aware, no wide chars) */
size_t ctl_text_width(const char *s);

#endif /* PCIERRCTL_FORMAT_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd: the metrics file written from a thread of its own (review U8).
 *
 * The loop formats the metrics in memory and hands the text over; the
 * thread replaces the file (pcierr_metrics_write_text()). The file may sit
 * on the very disk whose PE is frozen: then only this thread waits, never
 * the loop that carries out the recovery. One text waits at most: a newer
 * one takes its place (the file shows the latest state, not each one), so
 * a hung disk costs one buffer, not one per change.
 */
#ifndef PCIERRD_METRICS_WRITER_H
#define PCIERRD_METRICS_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct metrics_writer;

struct metrics_writer_stats {
	uint64_t submitted;		/* texts handed over */
	uint64_t written;		/* files replaced */
	uint64_t superseded;		/* texts replaced by a newer one unwritten */
	uint64_t failed;		/* writes that failed */
};

int metrics_writer_new(struct metrics_writer **ret);
/*
 * Stop the thread: what waits is written first, for at most about 2 s
 * (a write stuck on a hung disk is left behind: the process exits anyway).
 * NULL is fine.
 */
struct metrics_writer *metrics_writer_free(struct metrics_writer *w);

/* Hand text (size bytes, taken: malloc'ed) over for path (copied); 0 or -ENOMEM */
int metrics_writer_submit(struct metrics_writer *w, const char *path, char *text, size_t size);

/* Wait until what was submitted so far is written (or failed), at most
 * timeout_usec: 0 or -ETIMEDOUT (tests) */
int metrics_writer_flush(struct metrics_writer *w, uint64_t timeout_usec);

void metrics_writer_get_stats(struct metrics_writer *w, struct metrics_writer_stats *ret);

#endif /* PCIERRD_METRICS_WRITER_H */

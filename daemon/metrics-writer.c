// SPDX-License-Identifier: GPL-2.0-or-later
/* pcierrd: the metrics writer thread (metrics-writer.h) */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deadline.h"
#include "log.h"
#include "metrics.h"
#include "metrics-writer.h"

struct metrics_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a text waits, or stop */
	pthread_cond_t done;		/* a write ended */
	char *path, *text;		/* the waiting text, or NULL */
	size_t size;
	bool stop, exited;
	uint64_t seq_submitted, seq_done;
	struct metrics_writer_stats stats;
};

static void *worker(void *userdata)
{
	struct metrics_writer *w = userdata;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		char *path, *text;
		size_t size;
		uint64_t seq;
		int r;

		while (!w->text && !w->stop)
			pthread_cond_wait(&w->work, &w->lock);
		if (!w->text)
			break;
		path = w->path;
		text = w->text;
		size = w->size;
		seq = w->seq_submitted;
		w->path = w->text = NULL;
		pthread_mutex_unlock(&w->lock);

		r = pcierr_metrics_write_text(path, text, size);
		if (r < 0)
			log_warning_errno(r, "Failed to write the metrics to %s: %m", path);
		free(path);
		free(text);

		pthread_mutex_lock(&w->lock);
		if (r < 0)
			w->stats.failed++;
		else
			w->stats.written++;
		w->seq_done = seq;
		pthread_cond_broadcast(&w->done);
	}
	w->exited = true;
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int metrics_writer_new(struct metrics_writer **ret)
{
	struct metrics_writer *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	sigset_t all, old;
	int r;

	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->work, &ca);
	pthread_cond_init(&w->done, &ca);
	pthread_condattr_destroy(&ca);
	/* the thread takes no signal: they are the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&w->thread, NULL, worker, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->done);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return r;
	}
	*ret = w;
	return 0;
}

struct metrics_writer *metrics_writer_free(struct metrics_writer *w)
{
	struct timespec until;
	bool exited;

	if (!w)
		return NULL;
	until = deadline_in(2 * 1000000ULL);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->work);
	while (!w->exited &&
	       pthread_cond_timedwait(&w->done, &w->lock, &until) != ETIMEDOUT)
		;
	exited = w->exited;
	pthread_mutex_unlock(&w->lock);
	if (!exited) {
		/* stuck in a write on a hung disk: leave it (and w) behind */
		log_warning("The metrics file is still being written; not waiting for it.");
		pthread_detach(w->thread);
		return NULL;
	}
	pthread_join(w->thread, NULL);
	free(w->path);
	free(w->text);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return NULL;
}

int metrics_writer_submit(struct metrics_writer *w, const char *path, char *text, size_t size)
{
	char *p = strdup(path);

	if (!p) {
		free(text);
		return -ENOMEM;
	}
	pthread_mutex_lock(&w->lock);
	if (w->text) {
		w->stats.superseded++;
		free(w->path);
		free(w->text);
	}
	w->path = p;
	w->text = text;
	w->size = size;
	w->seq_submitted++;
	w->stats.submitted++;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int metrics_writer_flush(struct metrics_writer *w, uint64_t timeout_usec)
{
	struct timespec until = deadline_in(timeout_usec);
	int r = 0;

	pthread_mutex_lock(&w->lock);
	while (w->seq_done < w->seq_submitted && r == 0)
		r = -pthread_cond_timedwait(&w->done, &w->lock, &until);
	if (w->seq_done >= w->seq_submitted)
		r = 0;
	pthread_mutex_unlock(&w->lock);
	return r;
}

void metrics_writer_get_stats(struct metrics_writer *w, struct metrics_writer_stats *ret)
{
	pthread_mutex_lock(&w->lock);
	*ret = w->stats;
	pthread_mutex_unlock(&w->lock);
}

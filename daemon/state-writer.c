// SPDX-License-Identifier: GPL-2.0-or-later
/* pcierrd: the state writer thread (state-writer.h) */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deadline.h"
#include "log.h"
#include "state-writer.h"

/* retention runs after this many history entries */
#define PRUNE_EVERY	256

/*
 * History rows waiting for the disk (review U7): beyond, new rows are
 * dropped and counted. Freeze records and disabled marks are never
 * dropped: they are keyed (one pending write per identity and table), so
 * their queue is bounded by the identities touched, not by the events.
 */
#define HISTORY_QUEUE_MAX	4096

/* a failed transaction is tried again after 1 s, 2 s, ... 30 s */
#define RETRY_FIRST_MSEC	1000
#define RETRY_MAX_MSEC		30000

enum job_type {
	JOB_SAVE_FREEZE,
	JOB_CLEAR_FREEZE,
	JOB_DISABLE,
	JOB_ENABLE,
	JOB_HISTORY,
};

struct job {
	struct job *next;
	enum job_type type;
	char key[PCIERR_IDENTITY_KEY_MAX];
	struct pcierr_freeze_record rec;
	enum pcierr_policy_reason reason;
	pcierr_usec_t since_usec;
	char pe[PCIERR_ADDR_MAX], device[PCIERR_ADDR_MAX];
	char *message;
	/* JOB_HISTORY */
	struct pcierr_history_entry h;
	char *step, *result, *results;
	bool has_device;
};

struct state_writer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job queued, or stop (CLOCK_MONOTONIC) */
	pthread_cond_t done;		/* a batch finished (CLOCK_MONOTONIC) */
	struct job *head, **tail;	/* freeze records and marks, keyed */
	struct job *hhead, **htail;	/* history rows, at most HISTORY_QUEUE_MAX */
	unsigned int n_history;
	struct job *busy;		/* the batch being committed */
	uint64_t seq_queued;		/* jobs queued ever */
	uint64_t seq_done;		/* jobs finished ever */
	bool stop;
	struct state_writer_stats stats;
	int efd;			/* written after each batch */

	struct pcierr_state *db;	/* the worker's connection */
	uint64_t history_max, history_max_age_usec;
	uint64_t since_prune;
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->message);
	free(j->step);
	free(j->result);
	free(j->results);
	free(j);
}

/* the table a job writes: two jobs of one key and class, the later wins */
static int job_class(const struct job *j)
{
	switch (j->type) {
	case JOB_SAVE_FREEZE:
	case JOB_CLEAR_FREEZE:
		return 1;
	case JOB_DISABLE:
	case JOB_ENABLE:
		return 2;
	case JOB_HISTORY:
		break;
	}
	return 0;
}

/* the pending (not yet taken) job of key and class, under the lock */
static struct job *pending_of(struct state_writer *w, const char *key, int class)
{
	for (struct job *j = w->head; j; j = j->next)
		if (job_class(j) == class && strcmp(j->key, key) == 0)
			return j;
	return NULL;
}

static int run_job(struct pcierr_state *db, struct job *j)
{
	switch (j->type) {
	case JOB_SAVE_FREEZE:
		return pcierr_state_save_freeze(db, j->key, &j->rec);
	case JOB_CLEAR_FREEZE: {
		/* count and times go, the error generation counted stays:
		 * a resync must not count that freeze again */
		struct pcierr_freeze_record r = {
			.error_gen = j->rec.error_gen, .load_id = j->rec.load_id,
		};

		return pcierr_state_save_freeze(db, j->key, &r);
	}
	case JOB_DISABLE:
		return pcierr_state_disable(db, j->key, j->reason, j->message,
					    j->since_usec, j->pe, j->device);
	case JOB_ENABLE:
		return pcierr_state_enable(db, j->key);
	case JOB_HISTORY:
		return pcierr_state_append_history(db, &j->h, NULL);
	}
	return -EINVAL;
}

static pcierr_usec_t realtime_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (pcierr_usec_t)ts.tv_sec * PCIERR_USEC_PER_SEC + (pcierr_usec_t)ts.tv_nsec / 1000;
}

/*
 * One transaction for the batch. < 0 when the transaction itself could not
 * begin or commit (a locked or failing disk): nothing of it is written and
 * the caller queues its records again. A single write that fails inside a
 * committed transaction is counted in *failed and not retried.
 */
static int commit_batch(struct state_writer *w, struct job *batch, uint64_t *ok,
			uint64_t *failed, uint64_t *history)
{
	bool full = false;
	int r;

	for (struct job *j = batch; j; j = j->next)
		if (j->type != JOB_HISTORY)
			full = true;
		else
			(*history)++;
	(void)pcierr_state_set_synchronous(w->db, full);
	r = pcierr_state_begin(w->db);
	if (r < 0)
		return r;
	for (struct job *j = batch; j; j = j->next) {
		int k = run_job(w->db, j);

		if (k < 0) {
			(*failed)++;
			log_error_errno(k, "Failed to write the state (%s): %s",
					j->type == JOB_HISTORY ? "history" : j->key,
					pcierr_state_errmsg(w->db));
		} else
			(*ok)++;
	}
	r = pcierr_state_commit(w->db);
	if (r < 0) {
		(void)pcierr_state_rollback(w->db);
		*failed = 0;
		*ok = 0;
		return r;
	}
	return 0;
}

/*
 * A batch whose transaction failed goes back to the front of the queues,
 * unless a later write of the same key and table is already queued (that
 * one wins) or there is no room for a history row: those are finished
 * here (*dropped). Under the lock.
 */
static void requeue(struct state_writer *w, struct job *batch, uint64_t *dropped)
{
	struct job *state = NULL, **st = &state, *hist = NULL, **ht = &hist;

	while (batch) {
		struct job *j = batch;

		batch = j->next;
		j->next = NULL;
		if (j->type == JOB_HISTORY) {
			if (w->n_history >= HISTORY_QUEUE_MAX) {
				w->stats.history_dropped++;
				(*dropped)++;
				job_free(j);
				continue;
			}
			w->n_history++;
			*ht = j;
			ht = &j->next;
		} else if (pending_of(w, j->key, job_class(j))) {
			(*dropped)++;
			job_free(j);
		} else {
			*st = j;
			st = &j->next;
		}
	}
	if (state) {
		*st = w->head;
		if (!w->head)
			w->tail = st;
		w->head = state;
	}
	if (hist) {
		*ht = w->hhead;
		if (!w->hhead)
			w->htail = ht;
		w->hhead = hist;
	}
}

static void *worker(void *userdata)
{
	struct state_writer *w = userdata;
	/* the recovery's thread goes first on a busy CPU (a one-CPU machine
	 * would otherwise run SQLite between two recovery steps); nice, not
	 * SCHED_IDLE: under a saturated CPU the writes must still get done */
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), 10);

	unsigned int retry_msec = 0;
	uint64_t failures = 0;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *batch;
		uint64_t n = 0, ok = 0, failed = 0, history = 0, dropped = 0;
		int pruned = 0, r;

		while (!w->head && !w->hhead && !w->stop)
			pthread_cond_wait(&w->work, &w->lock);
		if (!w->head && !w->hhead && w->stop)
			break;
		/* the records first, then the history rows, in one batch */
		batch = w->head;
		*w->tail = w->hhead;
		if (!batch)
			batch = w->hhead;
		w->head = NULL;
		w->tail = &w->head;
		w->hhead = NULL;
		w->htail = &w->hhead;
		w->n_history = 0;
		w->busy = batch;
		pthread_mutex_unlock(&w->lock);

		for (struct job *j = batch; j; j = j->next)
			n++;
		r = commit_batch(w, batch, &ok, &failed, &history);
		if (r < 0) {
			bool stopping;

			/* nothing written: the records wait for the disk,
			 * retried with a growing pause; never lost unless
			 * pcierrd stops meanwhile */
			if (failures++ == 0)
				log_error_errno(r, "Failed to write the state, retrying: %s",
						pcierr_state_errmsg(w->db));
			retry_msec = retry_msec ? retry_msec * 2 : RETRY_FIRST_MSEC;
			if (retry_msec > RETRY_MAX_MSEC)
				retry_msec = RETRY_MAX_MSEC;
			pthread_mutex_lock(&w->lock);
			w->busy = NULL;
			w->stats.retries++;
			stopping = w->stop;
			if (stopping) {
				log_error("Stopping with %" PRIu64 " state writes not written.", n);
				w->stats.failed += n;
				while (batch) {
					struct job *next = batch->next;

					job_free(batch);
					batch = next;
				}
				dropped = n;
			} else
				requeue(w, batch, &dropped);
			w->seq_done += dropped;
			pthread_cond_broadcast(&w->done);
			if (dropped > 0)
				(void)eventfd_write(w->efd, 1);
			if (!stopping) {
				struct timespec until = deadline_in((uint64_t)retry_msec * 1000);

				while (!w->stop &&
				       pthread_cond_timedwait(&w->work, &w->lock, &until) == 0)
					;
			}
			continue;
		}
		if (failures > 0) {
			log_info("State written again after %" PRIu64 " failed attempts.", failures);
			failures = 0;
		}
		retry_msec = 0;
		/* committed: state_writer_load() reads it from the store now */
		pthread_mutex_lock(&w->lock);
		w->busy = NULL;
		pthread_mutex_unlock(&w->lock);
		while (batch) {
			struct job *next = batch->next;

			job_free(batch);
			batch = next;
		}
		w->since_prune += history;
		if (w->since_prune >= PRUNE_EVERY &&
		    (w->history_max > 0 || w->history_max_age_usec > 0)) {
			pcierr_usec_t now = realtime_usec();
			pcierr_usec_t before = w->history_max_age_usec > 0 &&
					       now > w->history_max_age_usec ?
					       now - w->history_max_age_usec : 0;

			w->since_prune = 0;
			(void)pcierr_state_set_synchronous(w->db, false);
			pruned = pcierr_state_prune_history(w->db, w->history_max, before);
			if (pruned < 0)
				log_warning_errno(pruned, "Failed to prune the history: %s",
						  pcierr_state_errmsg(w->db));
		}

		pthread_mutex_lock(&w->lock);
		w->seq_done += n;
		w->stats.committed += ok;
		w->stats.failed += failed;
		w->stats.batches++;
		if (pruned > 0)
			w->stats.pruned += (uint64_t)pruned;
		pthread_cond_broadcast(&w->done);
		/* the loop hears it without waiting (state_writer_fd) */
		(void)eventfd_write(w->efd, 1);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int state_writer_new(const char *path, uint64_t history_max,
		     uint64_t history_max_age_usec, struct state_writer **ret)
{
	struct state_writer *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->tail = &w->head;
	w->htail = &w->hhead;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		r = -errno;
		free(w);
		return r;
	}
	w->history_max = history_max;
	w->history_max_age_usec = history_max_age_usec;
	/* prune once soon after the start */
	w->since_prune = PRUNE_EVERY;
	r = pcierr_state_open(path, &w->db);
	if (r < 0) {
		close(w->efd);
		free(w);
		return r;
	}
	pthread_mutex_init(&w->lock, NULL);
	{
		/* waits are bounded in monotonic time: a clock step must
		 * not stretch a flush or a retry pause */
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&w->work, &ca);
		pthread_cond_init(&w->done, &ca);
		pthread_condattr_destroy(&ca);
	}
	{
		/* the worker takes no signal: SIGTERM, SIGHUP ... are the
		 * loop's (sd-event blocks them in its thread only) */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		r = -pthread_create(&w->thread, NULL, worker, w);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (r < 0) {
		pcierr_state_close(w->db);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->done);
		close(w->efd);
		free(w);
		return r;
	}
	*ret = w;
	return 0;
}

struct state_writer *state_writer_free(struct state_writer *w)
{
	if (!w)
		return NULL;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pcierr_state_close(w->db);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	close(w->efd);
	free(w);
	return NULL;
}

/* Apply the queued writes for key, oldest first, to what the store said */
static void overlay(const struct job *j, const char *key,
		    struct pcierr_freeze_record *rec, struct pcierr_disabled *dis,
		    bool *disabled)
{
	for (; j; j = j->next) {
		if (strcmp(j->key, key) != 0)
			continue;
		switch (j->type) {
		case JOB_SAVE_FREEZE:
			*rec = j->rec;
			break;
		case JOB_CLEAR_FREEZE:
			*rec = (struct pcierr_freeze_record) {
				.error_gen = j->rec.error_gen, .load_id = j->rec.load_id,
			};
			break;
		case JOB_DISABLE:
			*disabled = true;
			dis->reason = j->reason;
			dis->since_usec = j->since_usec;
			snprintf(dis->message, sizeof(dis->message), "%s", j->message);
			snprintf(dis->pe, sizeof(dis->pe), "%s", j->pe);
			snprintf(dis->device, sizeof(dis->device), "%s", j->device);
			break;
		case JOB_ENABLE:
			*disabled = false;
			break;
		case JOB_HISTORY:
			break;
		}
	}
}

int state_writer_load(struct state_writer *w, struct pcierr_state *db, const char *key,
		      struct pcierr_freeze_record *rec, struct pcierr_disabled *dis,
		      bool *disabled)
{
	int r;

	*rec = (struct pcierr_freeze_record) { 0 };
	*dis = (struct pcierr_disabled) { 0 };
	*disabled = false;
	/* Under the queue's lock: a batch stays in view (busy) until it is
	 * committed, so nothing falls between the store read and the queue.
	 * A write committed and still in view is applied twice: harmless,
	 * each one sets the record or the mark whole. */
	pthread_mutex_lock(&w->lock);
	r = pcierr_state_load_freeze(db, key, rec);
	if (r >= 0) {
		r = pcierr_state_is_disabled(db, key, dis);
		if (r >= 0) {
			*disabled = r > 0;
			overlay(w->busy, key, rec, dis, disabled);
			overlay(w->head, key, rec, dis, disabled);
			r = 0;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

/* Under the lock */
static void queue_locked(struct state_writer *w, struct job *j)
{
	if (j->type == JOB_HISTORY) {
		*w->htail = j;
		w->htail = &j->next;
		w->n_history++;
	} else {
		*w->tail = j;
		w->tail = &j->next;
	}
	w->seq_queued++;
	w->stats.queued++;
	pthread_cond_signal(&w->work);
}

/*
 * Queue j, or write its content into the pending job of the same key and
 * table (a later write of an identity's record or mark supersedes the
 * earlier one: what is committed in the end, and what state_writer_load()
 * sees, is the same). Takes j.
 */
static int queue(struct state_writer *w, struct job *j)
{
	struct job *p;

	pthread_mutex_lock(&w->lock);
	p = j->type == JOB_HISTORY ? NULL : pending_of(w, j->key, job_class(j));
	if (p) {
		struct job *next = p->next;

		free(p->message);
		*p = *j;
		p->next = next;
		w->stats.coalesced++;
		pthread_mutex_unlock(&w->lock);
		free(j);
		return 0;
	}
	if (j->type == JOB_HISTORY && w->n_history >= HISTORY_QUEUE_MAX) {
		w->stats.history_dropped++;
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		return 0;
	}
	queue_locked(w, j);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static struct job *job_new(enum job_type type, const char *key)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->type = type;
	if (key)
		snprintf(j->key, sizeof(j->key), "%s", key);
	return j;
}

int state_writer_save_freeze(struct state_writer *w, const char *key,
			     const struct pcierr_freeze_record *rec)
{
	struct job *j = job_new(JOB_SAVE_FREEZE, key);

	if (!j)
		return -ENOMEM;
	j->rec = *rec;
	return queue(w, j);
}

int state_writer_clear_freeze(struct state_writer *w, const char *key, uint32_t error_gen,
			      uint64_t load_id)
{
	struct job *j = job_new(JOB_CLEAR_FREEZE, key);

	if (!j)
		return -ENOMEM;
	j->rec.error_gen = error_gen;
	j->rec.load_id = load_id;
	return queue(w, j);
}

int state_writer_disable(struct state_writer *w, const char *key,
			 enum pcierr_policy_reason reason, const char *message,
			 pcierr_usec_t since_usec, const char *pe, const char *device)
{
	struct job *j = job_new(JOB_DISABLE, key);

	if (!j)
		return -ENOMEM;
	j->reason = reason;
	j->since_usec = since_usec;
	snprintf(j->pe, sizeof(j->pe), "%s", pe ? pe : "");
	snprintf(j->device, sizeof(j->device), "%s", device ? device : "");
	j->message = strdup(message ? message : "");
	if (!j->message) {
		job_free(j);
		return -ENOMEM;
	}
	return queue(w, j);
}

int state_writer_enable(struct state_writer *w, const char *key)
{
	struct job *j = job_new(JOB_ENABLE, key);

	if (!j)
		return -ENOMEM;
	return queue(w, j);
}

int state_writer_history(struct state_writer *w, const struct pcierr_history_entry *e)
{
	struct job *j = job_new(JOB_HISTORY, NULL);

	if (!j)
		return -ENOMEM;
	j->h = *e;
	snprintf(j->pe, sizeof(j->pe), "%s", e->pe ? e->pe : "");
	j->h.pe = j->pe;
	if (e->device) {
		snprintf(j->device, sizeof(j->device), "%s", e->device);
		j->h.device = j->device;
	}
	j->step = e->step ? strdup(e->step) : NULL;
	j->result = e->result ? strdup(e->result) : NULL;
	j->results = e->results ? strdup(e->results) : NULL;
	j->message = e->message ? strdup(e->message) : NULL;
	if ((e->step && !j->step) || (e->result && !j->result) ||
	    (e->results && !j->results) || (e->message && !j->message)) {
		job_free(j);
		return -ENOMEM;
	}
	j->h.step = j->step;
	j->h.result = j->result;
	j->h.results = j->results;
	j->h.message = j->message;
	return queue(w, j);
}

int state_writer_flush(struct state_writer *w, uint64_t timeout_usec)
{
	struct timespec deadline = deadline_in(timeout_usec);
	uint64_t target;
	int r = 0;

	pthread_mutex_lock(&w->lock);
	target = w->seq_queued;
	while (w->seq_done < target && r == 0)
		r = -pthread_cond_timedwait(&w->done, &w->lock, &deadline);
	if (w->seq_done >= target)
		r = 0;
	pthread_mutex_unlock(&w->lock);
	return r;
}

void state_writer_get_stats(struct state_writer *w, struct state_writer_stats *ret)
{
	pthread_mutex_lock(&w->lock);
	*ret = w->stats;
	pthread_mutex_unlock(&w->lock);
}

int state_writer_fd(struct state_writer *w)
{
	return w->efd;
}

uint64_t state_writer_target(struct state_writer *w)
{
	uint64_t t;

	pthread_mutex_lock(&w->lock);
	t = w->seq_queued;
	pthread_mutex_unlock(&w->lock);
	return t;
}

bool state_writer_reached(struct state_writer *w, uint64_t target)
{
	bool done;

	pthread_mutex_lock(&w->lock);
	done = w->seq_done >= target;
	pthread_mutex_unlock(&w->lock);
	return done;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierr-host-storm: scenario 42's storm on the host (issue 11 point 10).
 * pcierrd's manager, policy, recovery, state writer and bus (the real
 * daemon objects, as check-daemon links them) on the fake kernel side
 * (tests/unit/fake-kernel.c); a client thread on a direct D-Bus
 * connection (socketpair) calls Manager.GetStatus every 50 ms, as the
 * bus-abuse probe does, while the main thread runs pcierrd's loop and
 * feeds the fake kernel EVENTS freeze events (FROZEN, alternating over two
 * PEs, CHUNK at a time every 5 ms) with a kernel OVERFLOW every 1 000.
 * Printed: the client's worst and median GetStatus, the longest single
 * sd_event_run() of the loop (one dispatch) in wall time and in the
 * loop thread's CPU time (the latter not inflated by the host's other
 * load), the most events one of them handled, and the event counters.
 * The run ends 2 s after the last event is fed and all are accounted for.
 * Figures, never an assertion.
 *
 *   pcierr-host-storm [-n EVENTS] [-c CHUNK] [-p EXTRA_PES]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "fake-kernel.h"
#include "manager.h"
#include "state-writer.h"
#include "start.h"
#include "ctl-bus.h"

#define MAX_CALLS	4096

struct client {
	int fd;
	int r;
	int n;
	double ms[MAX_CALLS];
	atomic_int started, stop;
};

static double now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int getstatus(sd_bus *bus)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
			       "GetStatus", &error, &reply, NULL);
	if (r < 0)
		fprintf(stderr, "host-storm: GetStatus: %s\n",
			error.message ? error.message : strerror(-r));
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	return r;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	sd_bus *bus = NULL;
	int r;

	r = sd_bus_new(&bus);
	if (r >= 0)
		r = sd_bus_set_fd(bus, c->fd, c->fd);
	if (r >= 0)
		r = sd_bus_set_anonymous(bus, 1);
	if (r >= 0)
		r = sd_bus_start(bus);
	if (r >= 0)
		r = getstatus(bus);	/* warm */
	atomic_store(&c->started, 1);
	while (r >= 0 && !atomic_load(&c->stop) && c->n < MAX_CALLS) {
		double t0 = now_ms(CLOCK_MONOTONIC);

		r = getstatus(bus);
		c->ms[c->n++] = now_ms(CLOCK_MONOTONIC) - t0;
		usleep(50000);
	}
	c->r = r < 0 ? r : 0;
	sd_bus_flush_close_unref(bus);
	atomic_store(&c->started, 2);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int events = 20000, chunk = 500, extra = 15, fed = 0;
	char dir[] = "/tmp/pcierr-storm-XXXXXX", path[64];
	struct client c = {};
	struct fake_kernel *k;
	struct manager *m = NULL;
	sd_bus *server = NULL;
	double worst_run = 0, worst_run_at = 0, worst_cpu = 0, t_start, t_fed = 0, next_feed = 0;
	unsigned long runs = 0;
	uint64_t most_per_run = 0;
	int fds[2], opt, r;
	pthread_t th;
	sd_id128_t id;

	while ((opt = getopt(argc, argv, "n:c:p:")) != -1) {
		switch (opt) {
		case 'n':
			events = (unsigned int)atoi(optarg);
			break;
		case 'c':
			chunk = (unsigned int)atoi(optarg);
			break;
		case 'p':
			extra = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: pcierr-host-storm [-n EVENTS] [-c CHUNK] [-p EXTRA_PES]\n");
			return 2;
		}
	}
	if (chunk < 1)
		chunk = 1;
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/state.db", dir);
	k = fake_kernel_new();
	if (!k)
		return 1;
	fake_add_pe(k, "0000:00:01.0", 0x01, 1);
	fake_add_pe(k, "0000:00:02.0", 0x02, 1);
	for (unsigned int i = 0; i < extra; i++) {
		char addr[PCIERR_ADDR_STRLEN];

		snprintf(addr, sizeof(addr), "0000:00:%02x.0", 3 + i);
		fake_add_pe(k, addr, 3 + i, 1);
	}
	r = manager_new(&m);
	if (r < 0)
		return 1;
	m->kops = &fake_kernel_ops;
	m->no_udev = true;
	m->config.defaults.max_freezes = 1000000;
	if ((r = pcierr_state_open(path, &m->state)) < 0 ||
	    (r = state_writer_new(path, 0, 0, &m->writer)) < 0 ||
	    (r = manager_prepare(m, false)) < 0 || (r = pcierrd_start(m)) < 0)
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		r = -errno;
		goto out;
	}
	c.fd = fds[1];
	if ((r = sd_id128_randomize(&id)) < 0 || (r = sd_bus_new(&server)) < 0 ||
	    (r = sd_bus_set_fd(server, fds[0], fds[0])) < 0 ||
	    (r = sd_bus_set_server(server, 1, id)) < 0 ||
	    (r = sd_bus_set_anonymous(server, 1)) < 0 ||
	    (r = sd_bus_attach_event(server, m->event, 0)) < 0)
		goto out;
	m->bus = server;
	if ((r = bus_setup(m)) < 0)
		goto out;
	r = pthread_create(&th, NULL, client_main, &c);
	if (r > 0) {
		r = -r;
		goto out;
	}
	r = sd_bus_start(server);
	while (r >= 0 && !atomic_load(&c.started))
		r = sd_event_run(m->event, 10000);
	t_start = now_ms(CLOCK_MONOTONIC);
	k->auto_complete = true;
	/* feed, then let it all settle: 2 s after the last event */
	while (r >= 0) {
		double now = now_ms(CLOCK_MONOTONIC), t0, d;

		if (fed < events && now >= next_feed) {
			for (unsigned int i = 0; i < chunk && fed < events; i++, fed++) {
				fake_event(k, fed % 2 ? "0000:02:00.0" : "0000:01:00.0",
					   PCIERR_STATE_FROZEN);
				if (fed % 1000 == 999)
					fake_overflow(k, PCIERR_OVERFLOW_KERNEL);
			}
			next_feed = now + 5;
			if (fed == events)
				t_fed = now;
		}
		if (fed == events && now - t_fed > 2000 &&
		    m->counters.events_received + m->counters.events_lost >= events)
			break;
		uint64_t before = m->counters.events_received;

		double c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);

		t0 = now_ms(CLOCK_MONOTONIC);
		r = sd_event_run(m->event, 5000);
		d = now_ms(CLOCK_MONOTONIC) - t0;
		c0 = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
		worst_cpu = c0 > worst_cpu ? c0 : worst_cpu;
		runs++;
		if (m->counters.events_received - before > most_per_run)
			most_per_run = m->counters.events_received - before;
		if (d > worst_run) {
			worst_run = d;
			worst_run_at = t0 - t_start;
		}
	}
	atomic_store(&c.stop, 1);
	while (r >= 0 && atomic_load(&c.started) != 2)
		r = sd_event_run(m->event, 10000);
	pthread_join(th, NULL);
	if (r < 0 || c.r < 0) {
		fprintf(stderr, "host-storm: %s\n", strerror(-(r < 0 ? r : c.r)));
		r = r < 0 ? r : c.r;
		goto out;
	}
	{
		double worst = 0;

		for (int i = 0; i < c.n; i++)
			worst = c.ms[i] > worst ? c.ms[i] : worst;
		qsort(c.ms, (size_t)c.n, sizeof(c.ms[0]), cmp_double);
		printf("hoststorm events=%u chunk=%u pes=%u calls=%d getstatus_max_ms=%.1f "
		       "getstatus_median_ms=%.1f loop_runs=%lu longest_run_ms=%.1f longest_run_at_ms=%.0f "
		       "longest_run_cpu_ms=%.2f "
		       "most_events_per_run=%llu received=%llu folded=%llu lost=%llu resyncs_dumps=%u gets=%u\n",
		       events, chunk, 2 + extra, c.n, worst, c.n ? c.ms[c.n / 2] : 0.0, runs,
		       worst_run, worst_run_at, worst_cpu, (unsigned long long)most_per_run,
		       (unsigned long long)m->counters.events_received,
		       (unsigned long long)m->counters.events_folded,
		       (unsigned long long)m->counters.events_lost, k->n_dumps, k->n_gets);
	}
out:
	manager_free(m);
	fake_kernel_free(k);
	unlink(path);
	rmdir(dir);
	return r < 0 ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierr-host-scale: benchmark 5's host side (issue 12), split into its
 * parts. pcierrd's manager, policy and bus (the real daemon objects, as
 * check-daemon links them) on d-core's fake kernel side
 * (tests/unit/fake-kernel.c) holding N devices; a client thread on a
 * direct D-Bus connection (socketpair) makes pcierrctl's own status query
 * (tools/pcierrctl/ctl-bus.c: ctl_load_model, then ctl_json_status) while
 * the main thread runs pcierrd's event loop. Per N, the best and the
 * median of RUNS calls of:
 *
 *   gmo        GetManagedObjects, reply received, not parsed (the daemon's
 *              work plus the transport)
 *   status     ctl_load_model: the manager's GetAll, GetManagedObjects,
 *              pcierrctl's parse into its model, the sort
 *   json       ctl_json_status of that model to /dev/null
 *   getstatus  org.pcierr1.Manager.GetStatus(), reply received, not parsed
 *              (the bulk method of bus-status.c, as gmo)
 *   newstatus  ctl_load_status: what pcierrctl status does now (GetAll,
 *              GetStatus, the parse, the sort); newjson its JSON
 *   server     pcierrd's thread CPU time per GetManagedObjects, per
 *              ctl_load_model, per GetStatus, per ctl_load_status (the
 *              event loop's thread, nothing else runs on it then)
 *
 * and memory: malloc'd bytes per device after the start (the manager's
 * slots and devices), after bus_setup (plus the sd-bus object tree) and
 * after a first GetManagedObjects (plus what sd-bus keeps from it), and
 * the most in use while serving the calls (a reply is built whole in
 * memory before it is sent). Figures, never an assertion: bench/run
 * prints them under table 5.
 *
 *   pcierr-host-scale [-r RUNS] [-g ONLY_GMO_RUNS] N...
 *
 * -g: after the measured runs, that many more GetManagedObjects calls
 * (for a profiler: perf record -g pcierr-host-scale -r 1 -g 50 10000).
 */
#include <errno.h>
#include <malloc.h>
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
#include "ctl-bus.h"
#include "model.h"
#include "output.h"
#include "start.h"

#define MAX_RUNS	64

enum phase { PH_NONE, PH_WARM, PH_GMO, PH_STATUS, PH_GS, PH_NEW, PH_EXTRA, PH_DONE, PH_N };

struct client {
	int fd;
	int runs, extra;
	int r;
	size_t slots, devices;
	double gmo_ms[MAX_RUNS], status_ms[MAX_RUNS], json_ms[MAX_RUNS];
	double gs_ms[MAX_RUNS], new_ms[MAX_RUNS], newjson_ms[MAX_RUNS];
	size_t new_slots, new_devices;
	atomic_int phase;
	atomic_int snapped;
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

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int gmo(sd_bus *bus)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH,
			       "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
			       &error, &reply, NULL);
	if (r < 0)
		fprintf(stderr, "host-scale: GetManagedObjects: %s\n",
			error.message ? error.message : strerror(-r));
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	return r;
}

static int getstatus(sd_bus *bus)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_call_method(bus, CTL_BUS_NAME, CTL_BUS_PATH, CTL_BUS_MANAGER_IFACE,
			       "GetStatus", &error, &reply, NULL);
	if (r < 0)
		fprintf(stderr, "host-scale: GetStatus: %s\n",
			error.message ? error.message : strerror(-r));
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	return r;
}

static double best(const double *v, int n)
{
	double b = v[0];

	for (int i = 1; i < n; i++)
		b = v[i] < b ? v[i] : b;
	return b;
}

static void *client_main(void *arg)
{
	struct client *c = arg;
	sd_bus *bus = NULL;
	FILE *null = fopen("/dev/null", "we");
	int r;

	pthread_setname_np(pthread_self(), "ctl-client");
	r = sd_bus_new(&bus);
	if (r >= 0)
		r = sd_bus_set_fd(bus, c->fd, c->fd);
	if (r >= 0)
		r = sd_bus_set_anonymous(bus, 1);
	if (r >= 0)
		r = sd_bus_start(bus);
	if (r < 0 || !null)
		goto out;
	/* one call first: the caches of both sides warm */
	r = gmo(bus);
	/* pcierrd idle now (the reply sent): its memory read, then on */
	atomic_store(&c->phase, PH_WARM);
	while (r >= 0 && !atomic_load(&c->snapped))
		usleep(1000);
	atomic_store(&c->phase, PH_GMO);
	for (int i = 0; r >= 0 && i < c->runs; i++) {
		double t0 = now_ms(CLOCK_MONOTONIC);

		r = gmo(bus);
		c->gmo_ms[i] = now_ms(CLOCK_MONOTONIC) - t0;
	}
	atomic_store(&c->phase, PH_STATUS);
	for (int i = 0; r >= 0 && i < c->runs; i++) {
		sd_bus_error error = SD_BUS_ERROR_NULL;
		struct ctl_model mo = {};
		double t0 = now_ms(CLOCK_MONOTONIC), t1;

		r = ctl_load_model(bus, &mo, &error);
		t1 = now_ms(CLOCK_MONOTONIC);
		if (r < 0) {
			fprintf(stderr, "host-scale: ctl_load_model: %s\n",
				error.message ? error.message : strerror(-r));
			sd_bus_error_free(&error);
			break;
		}
		r = ctl_json_status(null, false, &mo, NULL);
		fflush(null);
		c->status_ms[i] = t1 - t0;
		c->json_ms[i] = now_ms(CLOCK_MONOTONIC) - t1;
		c->slots = mo.n_slots;
		c->devices = mo.n_devices;
		ctl_model_done(&mo);
	}
	atomic_store(&c->phase, PH_GS);
	for (int i = 0; r >= 0 && i < c->runs; i++) {
		double t0 = now_ms(CLOCK_MONOTONIC);

		r = getstatus(bus);
		c->gs_ms[i] = now_ms(CLOCK_MONOTONIC) - t0;
	}
	atomic_store(&c->phase, PH_NEW);
	for (int i = 0; r >= 0 && i < c->runs; i++) {
		sd_bus_error error = SD_BUS_ERROR_NULL;
		struct ctl_model mo = {};
		double t0 = now_ms(CLOCK_MONOTONIC), t1;

		r = ctl_load_status(bus, &mo, &error);
		t1 = now_ms(CLOCK_MONOTONIC);
		if (r <= 0) {
			/* 0: the fallback, which is not what is measured here */
			fprintf(stderr, "host-scale: ctl_load_status: %s\n",
				r == 0 ? "fell back to GetManagedObjects" :
				error.message ? error.message : strerror(-r));
			sd_bus_error_free(&error);
			ctl_model_done(&mo);
			r = r < 0 ? r : -EPROTO;
			break;
		}
		r = ctl_json_status(null, false, &mo, NULL);
		fflush(null);
		c->new_ms[i] = t1 - t0;
		c->newjson_ms[i] = now_ms(CLOCK_MONOTONIC) - t1;
		c->new_slots = mo.n_slots;
		c->new_devices = mo.n_devices;
		ctl_model_done(&mo);
	}
	atomic_store(&c->phase, PH_EXTRA);
	for (int i = 0; r >= 0 && i < c->extra; i++)
		r = gmo(bus);
out:
	c->r = r < 0 ? r : 0;
	if (null)
		fclose(null);
	sd_bus_flush_close_unref(bus);
	atomic_store(&c->phase, PH_DONE);
	return NULL;
}

static int measure(unsigned int devices, int runs, int extra)
{
	unsigned int per_pe = 2, pes = devices / per_pe;
	sd_bus *server = NULL;
	struct fake_kernel *k;
	struct manager *m = NULL;
	struct mallinfo2 mi0, mi1, mi2 = {}, mi3;
	struct client c = { .runs = runs, .extra = extra };
	double cpu[PH_N] = {}, start_ms;
	size_t peak = 0;
	int fds[2], r;
	pthread_t th;
	sd_id128_t id;

	k = fake_kernel_new();
	if (!k)
		return -ENOMEM;
	for (unsigned int i = 0; i < pes; i++) {
		char addr[PCIERR_ADDR_STRLEN];
		/* as check-daemon's scale case: 200 PEs per domain */
		unsigned int dom = i / 200, j = i % 200;

		snprintf(addr, sizeof(addr), "%04x:00:%02x.%x", dom & 0xffff, (j / 8) & 0x1f, j % 8);
		fake_add_pe(k, addr, (dom << 8) | (j + 1), per_pe - 1);
	}
	r = manager_new(&m);
	if (r < 0)
		goto out;
	m->kops = &fake_kernel_ops;
	m->no_udev = true;
	mi0 = mallinfo2();
	start_ms = now_ms(CLOCK_MONOTONIC);
	r = manager_prepare(m, false);
	if (r >= 0)
		r = pcierrd_start(m);
	start_ms = now_ms(CLOCK_MONOTONIC) - start_ms;
	mi1 = mallinfo2();
	if (r < 0) {
		fprintf(stderr, "host-scale: manager start: %s\n", strerror(-r));
		goto out;
	}
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
	r = bus_setup(m);
	if (r < 0)
		goto out;
	mi3 = mallinfo2();
	r = pthread_create(&th, NULL, client_main, &c);
	if (r > 0) {
		r = -r;
		goto out;
	}
	r = sd_bus_start(server);
	/* the loop; its thread's CPU time by the client's phase */
	while (r >= 0 && atomic_load(&c.phase) != PH_DONE) {
		int ph = atomic_load(&c.phase);
		double t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);

		r = sd_event_run(m->event, 100000);
		cpu[ph] += now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (ph == PH_WARM && !atomic_load(&c.snapped)) {
			/* after the first GetManagedObjects, its reply sent:
			 * what sd-bus and pcierrd keep (mallinfo2: the main
			 * arena, pcierrd's thread; the client's has its own) */
			mi2 = mallinfo2();
			atomic_store(&c.snapped, 1);
		} else if (ph >= PH_GMO) {
			/* the most in use while serving the calls */
			struct mallinfo2 mi = mallinfo2();

			peak = mi.uordblks > peak ? mi.uordblks : peak;
		}
	}
	pthread_join(th, NULL);
	if (r < 0 || c.r < 0) {
		fprintf(stderr, "host-scale: %u devices: %s\n", devices, strerror(-(r < 0 ? r : c.r)));
		r = r < 0 ? r : c.r;
		goto out;
	}
	{
		double gb = c.gmo_ms[0], sb = c.status_ms[0], jb = c.json_ms[0];

		for (int i = 1; i < runs; i++) {
			gb = c.gmo_ms[i] < gb ? c.gmo_ms[i] : gb;
			sb = c.status_ms[i] < sb ? c.status_ms[i] : sb;
			jb = c.json_ms[i] < jb ? c.json_ms[i] : jb;
		}
		printf("hostscale devices=%u pes=%u slots=%zu model_devices=%zu runs=%d start_ms=%.1f "
		       "gmo_best_ms=%.1f gmo_median_ms=%.1f status_best_ms=%.1f status_median_ms=%.1f "
		       "json_best_ms=%.1f json_median_ms=%.1f server_cpu_per_gmo_ms=%.1f "
		       "server_cpu_per_status_ms=%.1f bytes_per_device_manager=%.0f "
		       "bytes_per_device_bus_setup=%.0f bytes_per_device_with_bus=%.0f "
		       "peak_bytes_per_device_serving=%.0f "
		       "getstatus_best_ms=%.1f getstatus_median_ms=%.1f newstatus_best_ms=%.1f "
		       "newstatus_median_ms=%.1f newjson_best_ms=%.1f server_cpu_per_getstatus_ms=%.1f "
		       "server_cpu_per_newstatus_ms=%.1f newstatus_slots=%zu newstatus_devices=%zu\n",
		       devices, pes, c.slots, c.devices, runs, start_ms,
		       gb, median(c.gmo_ms, runs), sb, median(c.status_ms, runs),
		       jb, median(c.json_ms, runs), cpu[PH_GMO] / runs, cpu[PH_STATUS] / runs,
		       (double)(mi1.uordblks - mi0.uordblks) / devices,
		       (double)(mi3.uordblks - mi0.uordblks) / devices,
		       (double)(mi2.uordblks - mi0.uordblks) / devices,
		       (double)(peak - mi0.uordblks) / devices,
		       best(c.gs_ms, runs), median(c.gs_ms, runs), best(c.new_ms, runs),
		       median(c.new_ms, runs), best(c.newjson_ms, runs),
		       cpu[PH_GS] / runs, cpu[PH_NEW] / runs, c.new_slots, c.new_devices);
		fflush(stdout);
	}
out:
	manager_free(m);
	fake_kernel_free(k);
	return r < 0 ? r : 0;
}

int main(int argc, char **argv)
{
	int runs = 5, extra = 0, opt;

	while ((opt = getopt(argc, argv, "r:g:")) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'g':
			extra = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || runs < 1 || runs > MAX_RUNS || extra < 0)
		goto usage;
	for (int i = optind; i < argc; i++) {
		int n = atoi(argv[i]);

		if (n < 2 || measure((unsigned int)n, runs, extra) < 0)
			return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: pcierr-host-scale [-r RUNS(1-%d)] [-g EXTRA_GMO] N...\n", MAX_RUNS);
	return 2;
}

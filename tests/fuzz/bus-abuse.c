// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-abuse: hostile D-Bus clients of pcierrd's org.pcierr1 (issue 11).
 *
 *   bus-abuse malformed          every Manager method with wrong
 *                                signatures, missing and extra arguments,
 *                                huge strings, every address form, odd
 *                                numbers; Get/GetAll/Set of properties on
 *                                the Manager and each Slot and Device;
 *                                methods and objects that do not exist
 *   bus-abuse loop N             N read calls (GetSlot, GetDevice,
 *                                GetHistory, GetAll), 16 in flight at a
 *                                time: latency figures (max, p99, median,
 *                                in guest time)
 *   bus-abuse stall SECONDS      subscribe to every signal of org.pcierr1
 *                                and never read the socket
 *   bus-abuse probe SECONDS      what `pcierrctl status` asks (GetAll of
 *                                the Manager, GetStatus; one after the
 *                                other, where pcierrctl sends both at
 *                                once) every 200 ms on one connection,
 *                                timed: pcierrd's
 *                                answer time without a process start
 *                                (max and median ms, in guest time);
 *                                SIGTERM ends it early, with its figures
 *
 * Every call must be answered (never a timeout or a vanished service),
 * with a result or an error from the allowed set; a mutating method with
 * an argument that names no device must fail, never succeed. As root the
 * mutating methods are only ever called with addresses of no device (so
 * nothing can change); unprivileged, anything goes and the bus policy or
 * pcierrd must refuse (AccessDenied). Output: key=value lines; exit 0 when
 * every oracle held, 1 otherwise, 2 on a setup error.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define DEST	"org.pcierr1"
#define PATH	"/org/pcierr1"
#define MGR	"org.pcierr1.Manager"
#define TIMEOUT_USEC	(10ULL * 1000000ULL)

static sd_bus *bus;
static bool privileged;
static unsigned long calls, answered_ok, answered_err, violations;

static const char *const allowed_errors[] = {
	"org.freedesktop.DBus.Error.InvalidArgs",
	"org.freedesktop.DBus.Error.AccessDenied",
	"org.freedesktop.DBus.Error.UnknownMethod",
	"org.freedesktop.DBus.Error.UnknownObject",
	"org.freedesktop.DBus.Error.UnknownInterface",
	"org.freedesktop.DBus.Error.UnknownProperty",
	"org.freedesktop.DBus.Error.PropertyReadOnly",
	"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
	"org.pcierr1.Error.",	/* any of pcierrd's own (a prefix) */
};

static bool error_allowed(const char *name)
{
	for (size_t i = 0; i < sizeof(allowed_errors) / sizeof(allowed_errors[0]); i++) {
		size_t n = strlen(allowed_errors[i]);

		if (allowed_errors[i][n - 1] == '.' ? strncmp(name, allowed_errors[i], n) == 0
						    : strcmp(name, allowed_errors[i]) == 0)
			return true;
	}
	return false;
}

enum expect { ANY, MUST_FAIL };

/* send m, check the answer; returns 1 ok, 0 error reply, -1 violation */
static int check_call(sd_bus_message *m, enum expect e, const char *what)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r;

	calls++;
	r = sd_bus_call(bus, m, TIMEOUT_USEC, &err, &reply);
	sd_bus_message_unref(reply);
	if (r >= 0) {
		answered_ok++;
		if (e == MUST_FAIL) {
			violations++;
			printf("VIOLATION %s: succeeded, expected an error\n", what);
			sd_bus_error_free(&err);
			return -1;
		}
		sd_bus_error_free(&err);
		return 1;
	}
	if (!err.name || !error_allowed(err.name)) {
		violations++;
		printf("VIOLATION %s: %s (%s)\n", what, err.name ? err.name : strerror(-r),
		       err.message ? err.message : "");
		sd_bus_error_free(&err);
		return -1;
	}
	answered_err++;
	sd_bus_error_free(&err);
	return 0;
}

static sd_bus_message *new_call(const char *path, const char *iface, const char *member)
{
	sd_bus_message *m = NULL;

	if (sd_bus_message_new_method_call(bus, &m, DEST, path, iface, member) < 0) {
		fprintf(stderr, "bus-abuse: cannot build a call of %s\n", member);
		exit(2);
	}
	return m;
}

/* addresses of no device, and malformed ones */
static const char *const bad_addrs[] = {
	"0000:ee:00.0", "ffffffff:ff:1f.7", "0001:00:10.0", "ee:00.0", "0000:EE:00.0",
	"", " ", "0000:01:00.8", "0000:01:20.0", "0000:01:00", "zzzz:01:00.0",
	"0000:01:00.0.0", "/org/pcierr1/slot/0000_00_10_0", "../../../etc/passwd",
	"%s%n%s%n", "0000:01:00.0\n", "0000:01:00.0 ", "\xc3\xa9\xe2\x82\xac",
	"0000:0001:00.0", "-1", "18446744073709551616",
};

static char *huge;

static void mutating_calls(void)
{
	static const char *const states[] = { "frozen", "perm_failure", "", "normal",
					      "FROZEN", "x", NULL };
	static const char *const types[] = { "hot", "fundamental", "", "warm", NULL };
	static const uint32_t ms[] = { 0, 1, 20000, 0xffffffff };
	char what[128];

	for (size_t a = 0; a < sizeof(bad_addrs) / sizeof(bad_addrs[0]) + 1; a++) {
		const char *addr = a < sizeof(bad_addrs) / sizeof(bad_addrs[0]) ? bad_addrs[a] : huge;
		sd_bus_message *m;

		/* every state and time for the first addresses, one each after */
		for (size_t s = 0; states[s]; s++)
			for (size_t u = 0; u < sizeof(ms) / sizeof(ms[0]); u++) {
				if (a >= 2 && (s != a % 6 || u != a % 4))
					continue;
				m = new_call(PATH, MGR, "Inject");
				sd_bus_message_append(m, "ssu", addr, states[s], ms[u]);
				snprintf(what, sizeof(what), "Inject(addr #%zu, %s, %u)", a, states[s], ms[u]);
				check_call(m, MUST_FAIL, what);
				sd_bus_message_unref(m);
			}
		for (size_t t = 0; types[t]; t++) {
			if (a >= 2 && t != a % 4)
				continue;
			m = new_call(PATH, MGR, "Reset");
			sd_bus_message_append(m, "ss", addr, types[t]);
			snprintf(what, sizeof(what), "Reset(addr #%zu, %s)", a, types[t]);
			check_call(m, MUST_FAIL, what);
			sd_bus_message_unref(m);
		}
		m = new_call(PATH, MGR, "Enable");
		sd_bus_message_append(m, "s", addr);
		snprintf(what, sizeof(what), "Enable(addr #%zu)", a);
		check_call(m, MUST_FAIL, what);
		sd_bus_message_unref(m);
		m = new_call(PATH, MGR, "ClearFreezeCount");
		sd_bus_message_append(m, "s", addr);
		snprintf(what, sizeof(what), "ClearFreezeCount(addr #%zu)", a);
		check_call(m, MUST_FAIL, what);
		sd_bus_message_unref(m);
	}
}

/* every method with each wrong signature: never executed (InvalidArgs) */
static void wrong_signatures(void)
{
	static const char *const methods[] = { "Inject", "Reset", "Enable", "ClearFreezeCount",
					       "GetDevice", "GetSlot", "GetHistory", "NoSuchMethod" };
	char what[128];

	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		for (int v = 0; v < 9; v++) {
			sd_bus_message *m = new_call(PATH, MGR, methods[i]);

			switch (v) {
			case 0: break;						/* none */
			case 1: sd_bus_message_append(m, "u", 7); break;
			case 2: sd_bus_message_append(m, "ss", "0000:ee:00.0", "hot"); break;
			case 3: sd_bus_message_append(m, "ssuu", "0000:ee:00.0", "frozen", 0, 0); break;
			case 4: sd_bus_message_append(m, "tsu", (uint64_t)0, "0000:ee:00.0", 5); break;
			case 5: sd_bus_message_append(m, "o", "/org/pcierr1"); break;
			case 6: sd_bus_message_append(m, "as", 2, "0000:ee:00.0", "x"); break;
			case 7: sd_bus_message_append(m, "v", "s", "0000:ee:00.0"); break;
			default: sd_bus_message_append(m, "(su)", "0000:ee:00.0", 1); break;
			}
			snprintf(what, sizeof(what), "%s with signature variant %d", methods[i], v);
			/* a read method with its own signature may succeed */
			check_call(m, (i < 4 || i == 7) ? MUST_FAIL : ANY, what);
			sd_bus_message_unref(m);
		}
	}
}

static void read_calls(const char *addr, bool may_exist)
{
	static const uint64_t since[] = { 0, 1, UINT64_MAX };
	static const uint32_t limits[] = { 0, 1, 100000, 0xffffffff };
	char what[128];

	for (int k = 0; k < 2; k++) {
		sd_bus_message *m = new_call(PATH, MGR, k ? "GetSlot" : "GetDevice");

		sd_bus_message_append(m, "s", addr);
		snprintf(what, sizeof(what), "%s(%.40s)", k ? "GetSlot" : "GetDevice", addr);
		check_call(m, may_exist ? ANY : MUST_FAIL, what);
		sd_bus_message_unref(m);
	}
	for (size_t s = 0; s < 3; s++)
		for (size_t l = 0; l < 4; l++) {
			sd_bus_message *m;

			if (!may_exist && (s + l) % 3 != 0)
				continue;	/* a third of the combinations */
			m = new_call(PATH, MGR, "GetHistory");

			sd_bus_message_append(m, "tsu", since[s], addr, limits[l]);
			snprintf(what, sizeof(what), "GetHistory(%.40s)", addr);
			check_call(m, ANY, what);
			sd_bus_message_unref(m);
		}
}

/* Get/GetAll/Set on an object; Set must always fail */
static void property_calls(const char *path, const char *iface)
{
	static const char *const props[] = { "Address", "State", "FreezeCount", "NoSuchProperty",
					     "", "Version" };
	char what[160];
	sd_bus_message *m;

	m = new_call(path, "org.freedesktop.DBus.Properties", "GetAll");
	sd_bus_message_append(m, "s", iface);
	snprintf(what, sizeof(what), "GetAll(%s) on %s", iface, path);
	check_call(m, ANY, what);
	sd_bus_message_unref(m);
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		m = new_call(path, "org.freedesktop.DBus.Properties", "Get");
		sd_bus_message_append(m, "ss", iface, props[i]);
		snprintf(what, sizeof(what), "Get(%s) on %s", props[i], path);
		check_call(m, ANY, what);
		sd_bus_message_unref(m);
		m = new_call(path, "org.freedesktop.DBus.Properties", "Set");
		sd_bus_message_append(m, "ssv", iface, props[i], "u", 0);
		snprintf(what, sizeof(what), "Set(%s) on %s", props[i], path);
		check_call(m, MUST_FAIL, what);
		sd_bus_message_unref(m);
	}
}

static void property_getall_set(const char *path, const char *iface)
{
	char what[160];
	sd_bus_message *m;

	m = new_call(path, "org.freedesktop.DBus.Properties", "GetAll");
	sd_bus_message_append(m, "s", iface);
	snprintf(what, sizeof(what), "GetAll(%s) on %s", iface, path);
	check_call(m, ANY, what);
	sd_bus_message_unref(m);
	m = new_call(path, "org.freedesktop.DBus.Properties", "Set");
	sd_bus_message_append(m, "ssv", iface, "State", "s", "normal");
	snprintf(what, sizeof(what), "Set(State) on %s", path);
	check_call(m, MUST_FAIL, what);
	sd_bus_message_unref(m);
}

/* the object paths of every slot and device, from the introspection */
static size_t children(const char *path, char out[][128], size_t max)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *xml, *p;
	size_t n = 0;

	if (sd_bus_call_method(bus, DEST, path, "org.freedesktop.DBus.Introspectable",
			       "Introspect", &err, &reply, "") < 0 ||
	    sd_bus_message_read(reply, "s", &xml) < 0) {
		sd_bus_error_free(&err);
		sd_bus_message_unref(reply);
		return 0;
	}
	for (p = xml; n < max && (p = strstr(p, "<node name=\"")); ) {
		const char *q;

		p += 12;
		q = strchr(p, '"');
		if (!q)
			break;
		snprintf(out[n++], 128, "%s/%.*s", path, (int)(q - p), p);
		p = q;
	}
	sd_bus_message_unref(reply);
	return n;
}

static int do_malformed(void)
{
	char kinds[8][128], objs[64][128];
	size_t nk, no;

	huge = malloc(1 << 20);
	if (!huge)
		return 2;
	memset(huge, '0', (1 << 20) - 1);
	huge[(1 << 20) - 1] = 0;

	wrong_signatures();
	mutating_calls();
	for (size_t a = 0; a < sizeof(bad_addrs) / sizeof(bad_addrs[0]); a++)
		read_calls(bad_addrs[a], false);
	read_calls(huge, false);
	read_calls("", true);	/* GetHistory of everything */
	property_calls(PATH, MGR);
	property_calls(PATH, "org.no.Such");
	property_calls("/org/pcierr1/no/such", MGR);
	nk = children(PATH, kinds, 8);
	for (size_t k = 0; k < nk; k++) {
		no = children(kinds[k], objs, 64);
		/* the whole set on the first object of each kind, GetAll and
		 * Set on the others */
		for (size_t i = 0; i < no; i++) {
			const char *iface = strstr(kinds[k], "slot") ? "org.pcierr1.Slot"
								     : "org.pcierr1.Device";

			if (i == 0) {
				property_calls(objs[i], iface);
				property_calls(objs[i], MGR);
			} else {
				property_getall_set(objs[i], iface);
			}
		}
	}
	free(huge);
	return 0;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the loop keeps this many calls in flight (pipelined, as a busy client
 * would): 10000 round trips one after the other take minutes under TCG */
#define LOOP_WINDOW 16

struct loop_state {
	uint64_t *start, *lat;
	unsigned long inflight, done;
};

static struct loop_state L;

static int loop_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	unsigned long i = (unsigned long)(uintptr_t)userdata;
	const sd_bus_error *e = sd_bus_message_get_error(reply);

	L.lat[i] = now_usec() - L.start[i];
	L.inflight--;
	L.done++;
	if (!e) {
		answered_ok++;
	} else if (e->name && error_allowed(e->name)) {
		answered_err++;
	} else {
		violations++;
		printf("VIOLATION loop call %lu: %s (%s)\n", i, e->name ? e->name : "?",
		       e->message ? e->message : "");
	}
	return 0;
}

static int do_loop(unsigned long n)
{
	uint64_t t0 = now_usec();
	unsigned long sent = 0;

	L.start = calloc(n ? n : 1, sizeof(*L.start));
	L.lat = calloc(n ? n : 1, sizeof(*L.lat));
	if (!L.start || !L.lat)
		return 2;
	while (L.done < n) {
		int r;

		while (L.inflight < LOOP_WINDOW && sent < n) {
			sd_bus_message *m;
			unsigned long i = sent;

			switch (i % 4) {
			case 0:
				m = new_call(PATH, MGR, "GetSlot");
				sd_bus_message_append(m, "s", i % 8 ? "0000:ee:00.0" : "0000:00:10.0");
				break;
			case 1:
				m = new_call(PATH, MGR, "GetDevice");
				sd_bus_message_append(m, "s", i % 8 == 1 ? "0000:01:00.0" : "ffff:00:00.0");
				break;
			case 2:
				m = new_call(PATH, MGR, "GetHistory");
				sd_bus_message_append(m, "tsu", (uint64_t)0, "", 5);
				break;
			default:
				m = new_call(PATH, "org.freedesktop.DBus.Properties", "GetAll");
				sd_bus_message_append(m, "s", MGR);
				break;
			}
			L.start[i] = now_usec();
			r = sd_bus_call_async(bus, NULL, m, loop_reply, (void *)(uintptr_t)i,
					      TIMEOUT_USEC);
			sd_bus_message_unref(m);
			if (r < 0) {
				fprintf(stderr, "bus-abuse: call %lu: %s\n", i, strerror(-r));
				return 2;
			}
			calls++;
			sent++;
			L.inflight++;
		}
		r = sd_bus_process(bus, NULL);
		if (r < 0) {
			fprintf(stderr, "bus-abuse: %s\n", strerror(-r));
			return 2;
		}
		if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
			return 2;
	}
	qsort(L.lat, n, sizeof(*L.lat), cmp_u64);
	printf("loop calls=%lu window=%d seconds=%.1f calls_per_s=%.0f max_ms=%.1f p99_ms=%.1f median_ms=%.1f\n",
	       n, LOOP_WINDOW, (double)(now_usec() - t0) / 1e6,
	       (double)n / ((double)(now_usec() - t0) / 1e6),
	       n ? (double)L.lat[n - 1] / 1000 : 0, n ? (double)L.lat[n * 99 / 100] / 1000 : 0,
	       n ? (double)L.lat[n / 2] / 1000 : 0);
	free(L.start);
	free(L.lat);
	return 0;
}

static int do_stall(unsigned int seconds)
{
	int r = sd_bus_add_match(bus, NULL, "type='signal',sender='" DEST "'", NULL, NULL);

	if (r < 0) {
		fprintf(stderr, "bus-abuse: AddMatch: %s\n", strerror(-r));
		return 2;
	}
	/* the match is in place once the bus answered a call */
	(void)sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				 "org.freedesktop.DBus", "GetId", NULL, NULL, "");
	printf("stall subscribed, not reading for %u s\n", seconds);
	fflush(stdout);
	sleep(seconds);
	return 0;
}

static volatile sig_atomic_t probe_stop;

static void on_term(int sig)
{
	probe_stop = 1;
}

/* until SECONDS have passed or SIGTERM */
static int do_probe(unsigned int seconds)
{
	uint64_t end = now_usec() + (uint64_t)seconds * 1000000ULL;
	uint64_t *lat = calloc(seconds * 5 + 1, sizeof(*lat));
	size_t n = 0;

	if (!lat)
		return 2;
	signal(SIGTERM, on_term);
	while (!probe_stop && now_usec() < end && n < seconds * 5U + 1) {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		sd_bus_message *reply = NULL;
		uint64_t t0 = now_usec();
		int r;

		r = sd_bus_call_method(bus, DEST, PATH, "org.freedesktop.DBus.Properties", "GetAll",
				       &e, &reply, "s", MGR);
		reply = sd_bus_message_unref(reply);
		if (r >= 0)
			r = sd_bus_call_method(bus, DEST, PATH, MGR, "GetStatus", &e, &reply, "");
		reply = sd_bus_message_unref(reply);
		calls += 2;
		if (r < 0 && probe_stop) {
			sd_bus_error_free(&e);
			break;		/* interrupted by the end */
		}
		if (r < 0) {
			printf("VIOLATION probe: %s\n", e.message ? e.message : strerror(-r));
			violations++;
			sd_bus_error_free(&e);
			break;
		}
		answered_ok += 2;
		lat[n++] = now_usec() - t0;
		usleep(200 * 1000);
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("probe rounds=%zu max_ms=%.1f median_ms=%.1f\n", n,
	       n ? (double)lat[n - 1] / 1000 : 0, n ? (double)lat[n / 2] / 1000 : 0);
	free(lat);
	return violations ? 1 : 0;
}

int main(int argc, char **argv)
{
	int r, status;

	if (argc < 2) {
		fprintf(stderr, "usage: bus-abuse malformed | loop N | stall SECONDS | probe SECONDS\n");
		return 2;
	}
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "bus-abuse: system bus: %s\n", strerror(-r));
		return 2;
	}
	privileged = geteuid() == 0;

	if (strcmp(argv[1], "malformed") == 0)
		status = do_malformed();
	else if (strcmp(argv[1], "loop") == 0 && argc == 3)
		status = do_loop(strtoul(argv[2], NULL, 0));
	else if (strcmp(argv[1], "stall") == 0 && argc == 3)
		status = do_stall((unsigned int)strtoul(argv[2], NULL, 0));
	else if (strcmp(argv[1], "probe") == 0 && argc == 3)
		status = do_probe((unsigned int)strtoul(argv[2], NULL, 0));
	else {
		fprintf(stderr, "usage: bus-abuse malformed | loop N | stall SECONDS | probe SECONDS\n");
		return 2;
	}
	printf("summary mode=%s privileged=%d calls=%lu ok=%lu errors=%lu violations=%lu\n",
	       argv[1], privileged, calls, answered_ok, answered_err, violations);
	sd_bus_flush_close_unref(bus);
	if (status)
		return status;
	return violations ? 1 : 0;
}

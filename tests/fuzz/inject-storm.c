// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inject-storm DEV N: N INJECTs (PCIERR_CMD_INJECT, frozen) on DEV in a
 * row, as fast as the shim answers, through libpcierr on one netlink
 * socket: the INJECT half of issue 11's event storm (VM scenario 42).
 *
 * Each INJECT names the PE id the device's PE had; when the PE changed
 * meanwhile (-ESTALE: pcierrd's recovery rescanned it) the id is looked
 * up again and the INJECT retried, so N events are raised in the end.
 * Prints one line, "inject-storm dev=DEV sent=N stale=S ms=T", T the
 * guest time for all N; exits 0 when N INJECTs were accepted, 1 when one
 * failed otherwise (its errno is printed), 2 on a setup error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcierr/pcierr.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int pe_id_of(struct pcierr_ctx *ctx, const char *dev, uint64_t *ret)
{
	struct pcierr_pe pe;
	int r = pcierr_pe_get_by_device(ctx, dev, &pe);

	if (r < 0)
		return r;
	*ret = pe.id;
	pcierr_pe_clear(&pe);
	return 0;
}

int main(int argc, char *argv[])
{
	struct pcierr_ctx *ctx = NULL;
	unsigned long n, sent = 0, stale = 0;
	uint64_t id, t0;
	char *end;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: inject-storm DEV N\n");
		return 2;
	}
	errno = 0;
	n = strtoul(argv[2], &end, 10);
	if (errno || end == argv[2] || *end) {
		fprintf(stderr, "inject-storm: bad count '%s'\n", argv[2]);
		return 2;
	}
	r = pcierr_ctx_new(&ctx);
	if (r < 0) {
		fprintf(stderr, "inject-storm: cannot connect to the shim: %s\n", strerror(-r));
		return 2;
	}
	r = pe_id_of(ctx, argv[1], &id);
	if (r < 0) {
		fprintf(stderr, "inject-storm: no PE for %s: %s\n", argv[1], strerror(-r));
		pcierr_ctx_free(ctx);
		return 2;
	}
	t0 = now_ms();
	while (sent < n) {
		r = pcierr_inject(ctx, argv[1], id, PCIERR_STATE_FROZEN, 0, NULL);
		if (r == -ESTALE && stale < n) {
			stale++;
			r = pe_id_of(ctx, argv[1], &id);
			if (r >= 0)
				continue;
		}
		if (r < 0)
			break;
		sent++;
	}
	printf("inject-storm dev=%s sent=%lu stale=%lu ms=%llu%s%s\n", argv[1], sent, stale,
	       (unsigned long long)(now_ms() - t0), r < 0 ? " error=" : "",
	       r < 0 ? strerror(-r) : "");
	pcierr_ctx_free(ctx);
	return sent == n ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkpat: a known, self-describing pattern on a disk, and I/O that checks it
 * (the driver suite of the VM test bed, tests/vm/driver-scenarios).
 *
 * Every 512-byte sector holds: "PCIERRPT", its own LBA (u64, little endian),
 * a generation (u64: 0 as the image was made, then each verified write's),
 * and 488 bytes derived from LBA and generation. So a read can tell a right
 * sector from a stale, shifted, zeroed or all-ones one by itself.
 *
 *   blkpat fill FILE SECTORS
 *       make an image (on the host, before the VM boots): generation 0
 *   blkpat check DEV FIRST COUNT
 *       read COUNT sectors from FIRST (O_DIRECT) and check generation 0;
 *       exit 0 if all are right, 1 (naming the first wrong sector) if not
 *   blkpat loop DEV --read FIRST COUNT [--write FIRST COUNT]
 *               [--chunk SECTORS] [--interval MS]
 *       until SIGTERM or SIGINT: read the read region chunk after chunk
 *       (O_DIRECT), checking generation 0; with --write, after each read
 *       write the next chunk of the write region with a new generation
 *       (O_DIRECT|O_DSYNC) and read it back. One line per operation:
 *         START_NS END_NS read LBA ok|bad|err:ERRNO
 *         START_NS END_NS write LBA GEN ok|err:ERRNO
 *         START_NS END_NS readback LBA GEN ok|bad|err:ERRNO
 *       On the signal, a final pass over the write region: each sector must
 *       hold the generation of the last write that succeeded there, or,
 *       where a later write failed, that failed write's (it may have
 *       landed): "final LBA ok|bad|err:ERRNO". Then one line
 *         summary reads=N read_ok=N read_bad=N read_err=N writes=N
 *         write_ok=N write_err=N readback_bad=N final_bad=N
 *       Exit status 0 (the scenario judges the lines).
 * Times are CLOCK_REALTIME in nanoseconds (the guest's `date +%s%N`).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECTOR		512
#define MAGIC		"PCIERRPT"
#define CHUNK_DEFAULT	64	/* sectors: 32 KiB */
#define CHUNK_MAX	1024

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void make_sector(unsigned char *s, uint64_t lba, uint64_t gen)
{
	memcpy(s, MAGIC, 8);
	put64(s + 8, lba);
	put64(s + 16, gen);
	for (int i = 24; i < SECTOR; i++)
		s[i] = (unsigned char)(lba * 131 + gen * 7 + (uint64_t)i);
}

/* the generation sector s holds if it is a right sector of lba, else -1 */
static int64_t sector_gen(const unsigned char *s, uint64_t lba)
{
	unsigned char want[SECTOR];
	uint64_t gen;

	if (memcmp(s, MAGIC, 8) || get64(s + 8) != lba)
		return -1;
	gen = get64(s + 16);
	make_sector(want, lba, gen);
	if (memcmp(s, want, SECTOR))
		return -1;
	return (int64_t)gen;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || !*s || *end) ? -1 : 0;
}

static int cmd_fill(const char *file, uint64_t sectors)
{
	unsigned char buf[SECTOR * 64];
	FILE *f = fopen(file, "wb");

	if (!f) {
		fprintf(stderr, "blkpat: %s: %s\n", file, strerror(errno));
		return 1;
	}
	for (uint64_t lba = 0; lba < sectors;) {
		size_t n = 0;

		for (; n < 64 && lba < sectors; n++, lba++)
			make_sector(buf + n * SECTOR, lba, 0);
		if (fwrite(buf, SECTOR, n, f) != n) {
			fprintf(stderr, "blkpat: write %s: %s\n", file, strerror(errno));
			fclose(f);
			return 1;
		}
	}
	if (fclose(f)) {
		fprintf(stderr, "blkpat: close %s: %s\n", file, strerror(errno));
		return 1;
	}
	return 0;
}

static void *xalign(size_t n)
{
	void *p;

	if (posix_memalign(&p, 4096, n)) {
		fprintf(stderr, "blkpat: out of memory\n");
		exit(2);
	}
	return p;
}

/* read n sectors at lba; 0, or -errno (a short read is -EIO) */
static int read_at(int fd, unsigned char *buf, uint64_t lba, unsigned int n)
{
	ssize_t r = pread(fd, buf, (size_t)n * SECTOR, (off_t)(lba * SECTOR));

	if (r < 0)
		return -errno;
	return r == (ssize_t)n * SECTOR ? 0 : -EIO;
}

static int write_at(int fd, const unsigned char *buf, uint64_t lba, unsigned int n)
{
	ssize_t r = pwrite(fd, buf, (size_t)n * SECTOR, (off_t)(lba * SECTOR));

	if (r < 0)
		return -errno;
	return r == (ssize_t)n * SECTOR ? 0 : -EIO;
}

static int cmd_check(const char *dev, uint64_t first, uint64_t count)
{
	unsigned char *buf = xalign(CHUNK_DEFAULT * SECTOR);
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0) {
		fprintf(stderr, "blkpat: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (uint64_t lba = first; lba < first + count; lba += CHUNK_DEFAULT) {
		unsigned int n = (unsigned int)(first + count - lba < CHUNK_DEFAULT ?
						first + count - lba : CHUNK_DEFAULT);
		int r = read_at(fd, buf, lba, n);

		if (r) {
			printf("sector %" PRIu64 ": read error: %s\n", lba, strerror(-r));
			return 1;
		}
		for (unsigned int i = 0; i < n; i++)
			if (sector_gen(buf + i * SECTOR, lba + i) != 0) {
				printf("sector %" PRIu64 ": wrong contents\n", lba + i);
				return 1;
			}
	}
	printf("%" PRIu64 " sectors from %" PRIu64 " right\n", count, first);
	close(fd);
	free(buf);
	return 0;
}

struct wchunk {
	uint64_t good;		/* generation of the last write that succeeded */
	uint64_t maybe;		/* a later write that failed (0: none) */
};

static int cmd_loop(const char *dev, uint64_t rfirst, uint64_t rcount,
		    uint64_t wfirst, uint64_t wcount, unsigned int chunk,
		    unsigned int interval_ms)
{
	unsigned long reads = 0, read_ok = 0, read_bad = 0, read_err = 0;
	unsigned long writes = 0, write_ok = 0, write_err = 0, rb_bad = 0;
	unsigned long final_bad = 0;
	uint64_t rpos = rfirst, wpos = wfirst, gen = 0;
	unsigned char *buf = xalign((size_t)chunk * SECTOR);
	struct wchunk *wc = NULL;
	size_t nwc = wcount ? (size_t)((wcount + chunk - 1) / chunk) : 0;
	struct sigaction sa = { .sa_handler = on_signal };
	int fd;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(dev, (wcount ? O_RDWR : O_RDONLY) | O_DIRECT | O_DSYNC);
	if (fd < 0) {
		fprintf(stderr, "blkpat: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (nwc) {
		wc = calloc(nwc, sizeof(*wc));
		if (!wc)
			return 2;
	}
	while (!stop) {
		unsigned int n = (unsigned int)(rfirst + rcount - rpos < chunk ?
						rfirst + rcount - rpos : chunk);
		uint64_t t0 = now_ns();
		int r = read_at(fd, buf, rpos, n);
		bool right = true;

		reads++;
		if (!r)
			for (unsigned int i = 0; i < n && right; i++)
				right = sector_gen(buf + i * SECTOR, rpos + i) == 0;
		if (r) {
			read_err++;
			printf("%" PRIu64 " %" PRIu64 " read %" PRIu64 " err:%d\n",
			       t0, now_ns(), rpos, -r);
		} else {
			right ? read_ok++ : read_bad++;
			printf("%" PRIu64 " %" PRIu64 " read %" PRIu64 " %s\n",
			       t0, now_ns(), rpos, right ? "ok" : "bad");
		}
		rpos += n;
		if (rpos >= rfirst + rcount)
			rpos = rfirst;

		if (nwc && !stop) {
			size_t k = (size_t)((wpos - wfirst) / chunk);

			n = (unsigned int)(wfirst + wcount - wpos < chunk ?
					   wfirst + wcount - wpos : chunk);
			gen++;
			for (unsigned int i = 0; i < n; i++)
				make_sector(buf + i * SECTOR, wpos + i, gen);
			t0 = now_ns();
			r = write_at(fd, buf, wpos, n);
			writes++;
			if (r) {
				write_err++;
				wc[k].maybe = gen;
				printf("%" PRIu64 " %" PRIu64 " write %" PRIu64 " %" PRIu64
				       " err:%d\n", t0, now_ns(), wpos, gen, -r);
			} else {
				write_ok++;
				wc[k].good = gen;
				wc[k].maybe = 0;
				printf("%" PRIu64 " %" PRIu64 " write %" PRIu64 " %" PRIu64
				       " ok\n", t0, now_ns(), wpos, gen);
				t0 = now_ns();
				memset(buf, 0, (size_t)n * SECTOR);
				r = read_at(fd, buf, wpos, n);
				right = true;
				if (!r)
					for (unsigned int i = 0; i < n && right; i++)
						right = sector_gen(buf + i * SECTOR, wpos + i) ==
							(int64_t)gen;
				if (!r && !right)
					rb_bad++;
				if (r)
					printf("%" PRIu64 " %" PRIu64 " readback %" PRIu64 " %"
					       PRIu64 " err:%d\n", t0, now_ns(), wpos, gen, -r);
				else
					printf("%" PRIu64 " %" PRIu64 " readback %" PRIu64 " %"
					       PRIu64 " %s\n", t0, now_ns(), wpos, gen,
					       right ? "ok" : "bad");
			}
			wpos += n;
			if (wpos >= wfirst + wcount)
				wpos = wfirst;
		}
		if (interval_ms && !stop)
			usleep(interval_ms * 1000u);
	}
	/* the final pass: every written chunk holds what was last written */
	for (size_t k = 0; k < nwc; k++) {
		uint64_t lba = wfirst + k * chunk;
		unsigned int n = (unsigned int)(wfirst + wcount - lba < chunk ?
						wfirst + wcount - lba : chunk);
		int r = read_at(fd, buf, lba, n);
		bool right = true;

		if (r) {
			final_bad++;
			printf("final %" PRIu64 " err:%d\n", lba, -r);
			continue;
		}
		for (unsigned int i = 0; i < n && right; i++) {
			int64_t g = sector_gen(buf + i * SECTOR, lba + i);

			right = g == (int64_t)wc[k].good ||
				(wc[k].maybe && g == (int64_t)wc[k].maybe);
		}
		if (!right)
			final_bad++;
		printf("final %" PRIu64 " %s\n", lba, right ? "ok" : "bad");
	}
	printf("summary reads=%lu read_ok=%lu read_bad=%lu read_err=%lu writes=%lu"
	       " write_ok=%lu write_err=%lu readback_bad=%lu final_bad=%lu\n",
	       reads, read_ok, read_bad, read_err, writes, write_ok, write_err,
	       rb_bad, final_bad);
	close(fd);
	free(wc);
	free(buf);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: blkpat fill FILE SECTORS\n"
		"       blkpat check DEV FIRST COUNT\n"
		"       blkpat loop DEV --read FIRST COUNT [--write FIRST COUNT]\n"
		"                   [--chunk SECTORS] [--interval MS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t a, b;

	if (argc == 4 && !strcmp(argv[1], "fill")) {
		if (parse_u64(argv[3], &a) || !a)
			return usage();
		return cmd_fill(argv[2], a);
	}
	if (argc == 5 && !strcmp(argv[1], "check")) {
		if (parse_u64(argv[3], &a) || parse_u64(argv[4], &b) || !b)
			return usage();
		return cmd_check(argv[2], a, b);
	}
	if (argc >= 3 && !strcmp(argv[1], "loop")) {
		uint64_t rf = 0, rc = 0, wf = 0, wcnt = 0, chunk = CHUNK_DEFAULT, iv = 0;

		for (int i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "--read") && i + 2 < argc) {
				if (parse_u64(argv[i + 1], &rf) || parse_u64(argv[i + 2], &rc))
					return usage();
				i += 2;
			} else if (!strcmp(argv[i], "--write") && i + 2 < argc) {
				if (parse_u64(argv[i + 1], &wf) || parse_u64(argv[i + 2], &wcnt))
					return usage();
				i += 2;
			} else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
				if (parse_u64(argv[++i], &chunk) || !chunk || chunk > CHUNK_MAX)
					return usage();
			} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
				if (parse_u64(argv[++i], &iv) || iv > 10000)
					return usage();
			} else {
				return usage();
			}
		}
		if (!rc)
			return usage();
		if (wcnt && wf < rf + rc && rf < wf + wcnt) {
			fprintf(stderr, "blkpat: the read and write regions overlap\n");
			return 2;
		}
		return cmd_loop(argv[2], rf, rc, wf, wcnt, (unsigned int)chunk,
				(unsigned int)iv);
	}
	return usage();
}

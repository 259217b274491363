// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udp-stream: a numbered, timestamped UDP stream and its echo, for the VM
 * driver suite (tests/vm/driver-scenarios): traffic through a NIC while its
 * slot is frozen and recovered, every packet accounted for.
 *
 *   udp-stream echo PORT
 *       send every datagram back to where it came from, until SIGTERM
 *   udp-stream send ADDR PORT INTERVAL_MS [COUNT]
 *       every INTERVAL_MS a datagram {magic, seq, send time}, until SIGTERM
 *       or SIGINT, or with COUNT: COUNT of them, then it waits for their
 *       echoes (3 s at most after the last was sent) and exits; one line
 *       per event, flushed at once:
 *         s SEQ SENT_NS             sent
 *         x SEQ SENT_NS ERRNO       sendto failed (counts as not delivered)
 *         r SEQ SENT_NS RECV_NS     its echo came back
 *         end SENT                  (on the signal)
 * Times are CLOCK_REALTIME nanoseconds (the guest's `date +%s%N`). The
 * scenario (drivers-lib.sh: stream_stats) splits the stream at the
 * injection and at RecoveryFinished.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x70636965u	/* "pcie" */

struct pkt {
	uint32_t magic;
	uint32_t seq;
	uint64_t sent_ns;
};

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

static int parse_port(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return (*s && !*end && v > 0 && v < 65536) ? (int)v : -1;
}

static int cmd_echo(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[2048];

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "udp-stream: bind port %d: %s\n", port, strerror(errno));
		return 1;
	}
	while (!stop) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

		if (n < 0)
			continue;
		sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
	close(fd);
	return 0;
}

#define LINGER_NS 3000000000ull

static int cmd_send(const char *addr, int port, unsigned int interval_ms,
		    uint32_t count)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	uint64_t next, iv = (uint64_t)interval_ms * 1000000u;
	uint32_t seq = 0, answered = 0;
	uint64_t last_sent = 0;
	int fd;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "udp-stream: bad address %s\n", addr);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		fprintf(stderr, "udp-stream: socket: %s\n", strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	next = now_ns();
	while (!stop) {
		uint64_t t = now_ns();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int wait_ms;

		if (count && seq >= count) {
			if (answered >= count || t - last_sent >= LINGER_NS)
				break;
			next = t + 100000000u;	/* poll in 100 ms steps */
		} else if (t >= next) {
			struct pkt k = { .magic = MAGIC, .seq = ++seq, .sent_ns = t };

			if (sendto(fd, &k, sizeof(k), 0, (struct sockaddr *)&a, sizeof(a)) < 0)
				printf("x %" PRIu32 " %" PRIu64 " %d\n", seq, t, errno);
			else
				printf("s %" PRIu32 " %" PRIu64 "\n", seq, t);
			last_sent = t;
			next += iv;
			if (next < t)	/* fell behind (the guest stalled): no burst */
				next = t + iv;
			continue;
		}
		wait_ms = (int)((next - t) / 1000000u) + 1;
		if (poll(&p, 1, wait_ms) > 0) {
			struct pkt k;
			ssize_t n = recv(fd, &k, sizeof(k), 0);

			if (n == (ssize_t)sizeof(k) && k.magic == MAGIC && ++answered)
				printf("r %" PRIu32 " %" PRIu64 " %" PRIu64 "\n", k.seq,
				       k.sent_ns, now_ns());
		}
	}
	printf("end %" PRIu32 "\n", seq);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (argc == 3 && !strcmp(argv[1], "echo") && parse_port(argv[2]) > 0)
		return cmd_echo(parse_port(argv[2]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "send") && parse_port(argv[3]) > 0) {
		char *end, *cend = "";
		long iv = strtol(argv[4], &end, 10);
		long cnt = argc == 6 ? strtol(argv[5], &cend, 10) : 0;

		if (*argv[4] && !*end && iv > 0 && iv <= 10000 && !*cend &&
		    cnt >= 0 && cnt <= 1000000)
			return cmd_send(argv[2], parse_port(argv[3]), (unsigned int)iv,
					(uint32_t)cnt);
	}
	fprintf(stderr, "usage: udp-stream echo PORT\n"
		"       udp-stream send ADDR PORT INTERVAL_MS [COUNT]\n");
	return 2;
}

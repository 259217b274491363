// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nl-fuzz: random and mutated generic netlink messages against the pcierr
 * family (issue 11), reproducible by seed.
 *
 *   nl-fuzz [--seed N] [--count N] [--show I] [--quiet]
 *
 * Each datagram holds one message (sometimes several), drawn from:
 *   - near-valid: a command of the family with the attributes it takes,
 *     well typed, naming no present device (GET_PE: sometimes one), ids
 *     and enum values from an interesting set: what reaches the handlers;
 *   - structured: a genl header (a command of the family or not, any
 *     version, sometimes a non-zero reserved byte) and 0..8 attributes of
 *     any type (known, unknown, 0, with the NESTED/BYTEORDER bits), of
 *     wrong lengths, wrong types, nested where none is expected, oversized
 *     (up to 4 KiB), strings without their NUL or with one inside,
 *     malformed and non-existent PCI addresses, interesting integers;
 *     nlmsg flags usually REQUEST|ACK, sometimes DUMP, ECHO, random bits or
 *     no REQUEST; nlmsg_len sometimes wrong (short of the headers, past
 *     the end, off by a few);
 *   - mutated: a near-valid or structured message with random bytes flipped, inserted
 *     or cut;
 *   - raw: random bytes.
 * nlmsg_type is the family's id, sometimes the controller's, a control
 * type (< 0x10) or a generic netlink id no family holds; never another
 * family's (fuzzing nl80211 or devlink as root would change the machine).
 *
 *   - stale target (one datagram in twenty, privileged or not): a
 *     mutating command, well formed, naming a device present in
 *     /sys/bus/pci/devices (as its PE or as its device) with a PE id that
 *     cannot be current (bit 63 set: ids count up from the boot time in
 *     ns), sent alone, neither scrubbed nor mutated. It reaches the
 *     handlers past the address lookup, and each must refuse it (ESTALE,
 *     or ENODEV for a device that heads no PE); "stale_estale" counts the
 *     ESTALEs, and one accepted is a valid mutation.
 *
 * No device may change state except through a valid message, and apart
 * from the stale targets (whose id no PE can have) this fuzzer sends none
 * that could name one: before each datagram is sent
 * every message of the family but GET_PE and GET_STATS (as the kernel
 * walks them) is scrubbed of anything that looks like the address of a device
 * present in /sys/bus/pci/devices ("BB:DD.F", any case). A mutating
 * command then fails with EINVAL or ENODEV at worst; one that succeeds
 * anyway is tallied ("valid_mutations", with the message, which --show
 * prints again) and makes the exit status non-zero.
 *
 * Run without CAP_NET_ADMIN, every processed message of a mutating command
 * whose headers pass the generic netlink core's checks must be answered
 * EPERM ("eperm_violations" counts those that were not).
 *
 * Output: one line of counters per 20000 messages and a summary
 * (key=value). Exit status: 0 when no oracle failed, 1 when one did, 2 on
 * a usage or setup error, 3 when the family is missing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/pcierr.h>

#define BUF_MAX		(64 * 1024)
#define MAX_DEVS	256
#define MAX_FAMILIES	256
#define MSGS_PER_DGRAM	4

/* ------------------------------------------------------------------ */
/* randomness: xorshift64*, one stream per run                         */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd(uint32_t n)	/* 0..n-1 */
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

/* ------------------------------------------------------------------ */
/* what exists: devices (never to be named), families (never to be hit) */

static char devs[MAX_DEVS][8];	/* "bb:dd.f", lower case */
static size_t n_devs;
static uint16_t families[MAX_FAMILIES];
static size_t n_families;
static int family_id;

static void load_devices(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;

	if (!d) {
		perror("nl-fuzz: /sys/bus/pci/devices");
		exit(2);
	}
	while ((e = readdir(d)) && n_devs < MAX_DEVS) {
		const char *c = strchr(e->d_name, ':');

		/* "DDDD:BB:DD.F" -> "bb:dd.f" */
		if (!c || strlen(c + 1) != 7)
			continue;
		for (size_t i = 0; i < 7; i++)
			devs[n_devs][i] = (char)(c[1 + i] >= 'A' && c[1 + i] <= 'F' ?
						 c[1 + i] - 'A' + 'a' : c[1 + i]);
		devs[n_devs][7] = 0;
		n_devs++;
	}
	closedir(d);
	if (n_devs == 0) {
		fprintf(stderr, "nl-fuzz: no PCI devices found\n");
		exit(2);
	}
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Does p[0..len) hold "bb:dd.f" of a present device anywhere (any case)?
 * If so, break each such spot (its first byte becomes 'x'). */
static unsigned int scrub(uint8_t *p, size_t len)
{
	unsigned int hits = 0;

	for (size_t i = 0; i + 7 <= len; i++) {
		if (p[i + 2] != ':' || p[i + 5] != '.')
			continue;
		for (size_t k = 0; k < n_devs; k++) {
			size_t j;

			for (j = 0; j < 7; j++)
				if (lower((char)p[i + j]) != devs[k][j])
					break;
			if (j == 7) {
				p[i] = 'x';
				hits++;
				break;
			}
		}
	}
	return hits;
}

static bool family_registered(uint16_t id)
{
	for (size_t i = 0; i < n_families; i++)
		if (families[i] == id)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* the socket                                                           */

static int sock;
static uint8_t rbuf[BUF_MAX];

static int open_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("nl-fuzz: socket");
		exit(2);
	}
	/* extended acks: the kernel's parsing of them is exercised too */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static int send_dgram(const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(sock, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* Resolve the family and list every registered family id (a dump of the
 * controller). */
static void resolve_families(void)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = GENL_ID_CTRL,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 2 },
	};
	bool done = false;

	if (send_dgram(&req, sizeof(req)) < 0) {
		perror("nl-fuzz: family dump");
		exit(2);
	}
	while (!done) {
		ssize_t n = recv(sock, rbuf, sizeof(rbuf), 0);
		struct nlmsghdr *h;
		size_t rem;

		if (n < 0) {
			perror("nl-fuzz: family dump");
			exit(2);
		}
		rem = (size_t)n;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			struct nlattr *a;
			int alen;
			uint16_t id = 0;
			const char *name = NULL;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
			alen = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			while (alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= alen) {
				if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
					memcpy(&id, (char *)a + NLA_HDRLEN, sizeof(id));
				if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_NAME)
					name = (const char *)a + NLA_HDRLEN;
				alen -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			if (id && n_families < MAX_FAMILIES)
				families[n_families++] = id;
			if (id && name && strcmp(name, PCIERR_GENL_NAME) == 0)
				family_id = id;
		}
	}
}

/* ------------------------------------------------------------------ */
/* building messages                                                    */

struct msg {
	uint8_t b[8192];
	size_t len;
};

static void put(struct msg *m, const void *p, size_t n)
{
	if (m->len + n > sizeof(m->b))
		n = sizeof(m->b) - m->len;
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void pad4(struct msg *m)
{
	static const uint8_t z[4];

	put(m, z, NLA_ALIGN(m->len) - m->len);
}

static const char *const bogus_addrs[] = {
	"0000:ee:00.0", "0001:00:10.0", "ffffffff:ff:1f.7", "0000:00:1e.7",
	"0000:01:1f.7", "00000000:fe:00.0", "0000:7f:03.3",
	/* malformed */
	"", ":", "0000", "0000:01", "0000:01:00", "0000:01:00.", "0000:01:00.8",
	"0000:01:20.0", "0000:01:00.00", "0000:001:00.0", "000:01:00.0",
	"000000000:01:00.0", "zzzz:01:00.0", "0000:0g:00.0", "0000-01-00.0",
	"0000:01:00.0x", " 0000:ee:00.0", "0000:ee:00.0 ", "0000:EE:00.0",
	"-1:ee:00.0", "0x0000:ee:00.0", "0000:ee:00.-1", "%s%s%s%n",
	"0000:ee:00.0\n", "\xff\xfe\xfd",
};

static const uint32_t interesting[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 255, 256, 1000, 3600000,
	3600001, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe,
	0xffffffff,
};

static void put_attr_hdr(struct msg *m, uint16_t len, uint16_t type)
{
	struct nlattr a = { .nla_len = len, .nla_type = type };

	put(m, &a, sizeof(a));
}

static uint16_t rand_attr_type(void)
{
	uint16_t t;

	if (chance(80))
		t = (uint16_t)rnd(PCIERR_A_MAX + 3);
	else if (chance(50))
		t = (uint16_t)rnd(64);
	else
		t = (uint16_t)rnd(NLA_TYPE_MASK + 1);
	if (chance(5))
		t |= NLA_F_NESTED;
	if (chance(3))
		t |= NLA_F_NET_BYTEORDER;
	return t;
}

static void put_rand_attr(struct msg *m, int depth);

static void put_string_payload(struct msg *m, uint16_t type)
{
	uint8_t s[4200];
	size_t n;
	uint32_t how = rnd(100);

	if (how < 70) {
		const char *a = bogus_addrs[rnd(sizeof(bogus_addrs) / sizeof(bogus_addrs[0]))];

		n = strlen(a);
		memcpy(s, a, n);
		if (chance(85))
			s[n++] = 0;		/* the NUL, usually */
		else if (chance(50)) {
			s[n++] = 0;		/* a NUL inside, more after it */
			memcpy(s + n, "0000:ee:00.0", 13);
			n += 13;
		}
	} else if (how < 85) {
		/* oversized */
		n = 20 + rnd(4000);
		memset(s, '0' + (int)rnd(10), n);
		if (chance(50))
			s[n - 1] = 0;
	} else {
		n = rnd(40);
		for (size_t i = 0; i < n; i++)
			s[i] = (uint8_t)rnd(256);
	}
	put_attr_hdr(m, (uint16_t)(NLA_HDRLEN + n), type);
	put(m, s, n);
	pad4(m);
}

static void put_int_payload(struct msg *m, uint16_t type)
{
	static const uint8_t lens[] = { 0, 1, 2, 3, 4, 4, 4, 4, 5, 7, 8, 8, 9, 16 };
	uint8_t p[16];
	size_t n = lens[rnd(sizeof(lens))];
	uint64_t v = chance(80) ? interesting[rnd(sizeof(interesting) / sizeof(interesting[0]))]
				: rnd64();

	if (chance(10))
		v |= (uint64_t)rnd64() << 32;
	memset(p, 0, sizeof(p));
	memcpy(p, &v, n < 8 ? n : 8);
	put_attr_hdr(m, (uint16_t)(NLA_HDRLEN + n), type);
	put(m, p, n);
	pad4(m);
}

static void put_nest(struct msg *m, uint16_t type, int depth)
{
	size_t start = m->len;
	unsigned int n = rnd(4);
	struct nlattr *a;

	put_attr_hdr(m, 0, type | (chance(70) ? NLA_F_NESTED : 0));
	for (unsigned int i = 0; i < n; i++)
		put_rand_attr(m, depth + 1);
	a = (struct nlattr *)(m->b + start);
	a->nla_len = (uint16_t)(m->len - start);
}

static void put_rand_attr(struct msg *m, int depth)
{
	uint16_t type = rand_attr_type();
	uint16_t t = type & NLA_TYPE_MASK;
	uint32_t how = rnd(100);

	if (m->len > sizeof(m->b) - 4400)
		return;
	if (depth < 3 && (how < 8 || t == PCIERR_A_PE_DEVICES || t == PCIERR_A_RESULTS ||
			  t == PCIERR_A_STATS))
		put_nest(m, type, depth);
	else if (how < 55 || t == PCIERR_A_PE || t == PCIERR_A_DEVICE)
		put_string_payload(m, type);
	else
		put_int_payload(m, type);
}

static uint16_t rand_nlmsg_type(void)
{
	uint32_t how = rnd(100);
	uint16_t t;

	if (how < 86)
		return (uint16_t)family_id;
	if (how < 90)
		return GENL_ID_CTRL;
	if (how < 95)
		return (uint16_t)rnd(NLMSG_MIN_TYPE);
	do
		t = (uint16_t)(NLMSG_MIN_TYPE + rnd(0x10000 - NLMSG_MIN_TYPE));
	while (family_registered(t));
	return t;
}

static uint16_t rand_flags(void)
{
	uint32_t how = rnd(100);

	if (how < 75)
		return NLM_F_REQUEST | NLM_F_ACK;
	if (how < 82)
		return NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;
	if (how < 86)
		return NLM_F_REQUEST;
	if (how < 90)
		return NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO;
	if (how < 95)
		return (uint16_t)rnd(0x10000);
	return NLM_F_ACK;
}

static uint8_t rand_cmd(void)
{
	if (chance(80))
		return (uint8_t)(1 + rnd(PCIERR_CMD_MAX));
	return (uint8_t)rnd(256);
}

static uint32_t next_seq = 1;

static void build_structured(struct msg *m)
{
	struct nlmsghdr h = {
		.nlmsg_type = rand_nlmsg_type(),
		.nlmsg_flags = rand_flags(),
		.nlmsg_seq = next_seq++,
		.nlmsg_pid = 0,
	};
	struct genlmsghdr g = {
		.cmd = rand_cmd(),
		.version = chance(90) ? PCIERR_GENL_VERSION : (uint8_t)rnd(256),
		.reserved = chance(5) ? (uint16_t)(1 + rnd(0xffff)) : 0,
	};
	unsigned int n = rnd(9);
	struct nlmsghdr *hp;

	m->len = 0;
	put(m, &h, sizeof(h));
	put(m, &g, sizeof(g));
	for (unsigned int i = 0; i < n; i++)
		put_rand_attr(m, 0);
	hp = (struct nlmsghdr *)m->b;
	hp->nlmsg_len = (uint32_t)m->len;
	if (chance(8)) {
		/* a wrong length */
		switch (rnd(5)) {
		case 0: hp->nlmsg_len = rnd(NLMSG_HDRLEN); break;
		case 1: hp->nlmsg_len = NLMSG_HDRLEN + rnd(GENL_HDRLEN); break;
		case 2: hp->nlmsg_len = (uint32_t)m->len + 1 + rnd(64); break;
		case 3: hp->nlmsg_len = (uint32_t)(m->len > 4 ? m->len - 1 - rnd(4) : 0); break;
		default: hp->nlmsg_len = (uint32_t)rnd64(); break;
		}
	}
	if (chance(3) && m->len > NLMSG_HDRLEN)
		m->len = NLMSG_HDRLEN + rnd((uint32_t)(m->len - NLMSG_HDRLEN));	/* cut short */
}

static void put_u32_attr(struct msg *m, uint16_t type, uint32_t v)
{
	put_attr_hdr(m, NLA_HDRLEN + 4, type);
	put(m, &v, 4);
}

static void put_u64_attr(struct msg *m, uint16_t type, uint64_t v)
{
	put_attr_hdr(m, NLA_HDRLEN + 8, type);
	put(m, &v, 8);
}

static void put_str_attr(struct msg *m, uint16_t type, const char *str)
{
	size_t n = strlen(str) + 1;

	put_attr_hdr(m, (uint16_t)(NLA_HDRLEN + n), type);
	put(m, str, n);
	pad4(m);
}

/* a well-formed address: mostly of no device, sometimes (read-only
 * commands only) of a present one */
static const char *addr_for(bool may_exist)
{
	static char buf[PCIERR_ADDR_MAX];

	if (may_exist && chance(50)) {
		snprintf(buf, sizeof(buf), "0000:%.7s", devs[rnd((uint32_t)n_devs)]);
		return buf;
	}
	/* the first 7 are well-formed */
	return bogus_addrs[rnd(chance(30) ? sizeof(bogus_addrs) / sizeof(bogus_addrs[0]) : 7)];
}

/*
 * Near-valid: a command of the family with the attributes it takes, of
 * the right types, but with addresses of no device (read-only commands:
 * sometimes of a present one), ids and enum values from the interesting
 * set: what gets past the policy into the handlers.
 */
static void build_near_valid(struct msg *m)
{
	static const uint8_t cmds[] = {
		PCIERR_CMD_GET_PE, PCIERR_CMD_GET_STATS, PCIERR_CMD_INJECT, PCIERR_CMD_REPORT,
		PCIERR_CMD_ENABLE_IO, PCIERR_CMD_RESET, PCIERR_CMD_REMOVE, PCIERR_CMD_RESCAN,
		PCIERR_CMD_DISABLE, PCIERR_CMD_ENABLE, PCIERR_CMD_WATCH, PCIERR_CMD_RECOVER,
		PCIERR_CMD_ARM,
	};
	struct nlmsghdr h = {
		.nlmsg_type = (uint16_t)family_id,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nlmsg_seq = next_seq++,
	};
	struct genlmsghdr g = { .cmd = cmds[rnd(sizeof(cmds))], .version = PCIERR_GENL_VERSION };
	bool ro = g.cmd == PCIERR_CMD_GET_PE || g.cmd == PCIERR_CMD_GET_STATS;
	uint32_t small = chance(70) ? rnd(9) : interesting[rnd(sizeof(interesting) / sizeof(interesting[0]))];

	if (g.cmd == PCIERR_CMD_GET_PE && chance(20))
		h.nlmsg_flags |= NLM_F_DUMP;
	m->len = 0;
	put(m, &h, sizeof(h));
	put(m, &g, sizeof(g));
	if (g.cmd == PCIERR_CMD_INJECT || (g.cmd == PCIERR_CMD_GET_PE && chance(30)) ||
	    (g.cmd == PCIERR_CMD_REMOVE && chance(30)))
		put_str_attr(m, PCIERR_A_DEVICE, addr_for(ro));
	if (g.cmd != PCIERR_CMD_INJECT && g.cmd != PCIERR_CMD_GET_STATS && chance(90))
		put_str_attr(m, PCIERR_A_PE, addr_for(ro));
	if (!ro && chance(90))
		put_u64_attr(m, PCIERR_A_PE_ID, chance(60) ? rnd(64) : rnd64());
	switch (g.cmd) {
	case PCIERR_CMD_INJECT:
		if (chance(50))
			put_u32_attr(m, PCIERR_A_STATE, small);
		if (chance(30))
			put_u32_attr(m, PCIERR_A_TIME_UNAVAIL_MS, small * 1000);
		break;
	case PCIERR_CMD_REPORT:
		if (chance(90))
			put_u32_attr(m, PCIERR_A_STEP, small);
		if (chance(40))
			put_u32_attr(m, PCIERR_A_STATE, rnd(6));
		break;
	case PCIERR_CMD_RESET:
		if (chance(70))
			put_u32_attr(m, PCIERR_A_RESET_TYPE, small);
		break;
	case PCIERR_CMD_RECOVER:
		if (chance(40))
			put_u32_attr(m, PCIERR_A_STATE, rnd(6));
		if (chance(40))
			put_u32_attr(m, PCIERR_A_RESET_TYPE, small);
		break;
	case PCIERR_CMD_ARM:
		if (chance(90))
			put_u32_attr(m, PCIERR_A_AUTO_BUDGET, small);
		if (chance(40))
			put_u32_attr(m, PCIERR_A_RESET_TYPE, small);
		break;
	case PCIERR_CMD_WATCH:
		if (chance(80))
			put_u32_attr(m, PCIERR_A_WATCH_INTERVAL_MS,
				     interesting[rnd(sizeof(interesting) / sizeof(interesting[0]))]);
		break;
	default:
		break;
	}
	/* sometimes one attribute more, of any kind */
	if (chance(15))
		put_rand_attr(m, 0);
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
}

/* bit 63 set: never a PE's id (they count up from the boot time in ns) */
#define STALE_PE_ID_BIT	(1ULL << 63)

/*
 * A stale target: a mutating command, with the attributes it needs, that
 * names a present device (as a PE and, for INJECT and REMOVE, as the
 * device) with an id no PE can have. Sent as built.
 */
static void build_stale_target(struct msg *m)
{
	static const uint8_t cmds[] = {
		PCIERR_CMD_INJECT, PCIERR_CMD_REPORT, PCIERR_CMD_ENABLE_IO, PCIERR_CMD_RESET,
		PCIERR_CMD_REMOVE, PCIERR_CMD_RESCAN, PCIERR_CMD_DISABLE, PCIERR_CMD_ENABLE,
		PCIERR_CMD_WATCH, PCIERR_CMD_RECOVER, PCIERR_CMD_ARM,
	};
	struct nlmsghdr h = {
		.nlmsg_type = (uint16_t)family_id,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.nlmsg_seq = next_seq++,
	};
	struct genlmsghdr g = { .cmd = cmds[rnd(sizeof(cmds))], .version = PCIERR_GENL_VERSION };
	char addr[PCIERR_ADDR_MAX];

	snprintf(addr, sizeof(addr), "0000:%.7s", devs[rnd((uint32_t)n_devs)]);
	m->len = 0;
	put(m, &h, sizeof(h));
	put(m, &g, sizeof(g));
	if (g.cmd == PCIERR_CMD_INJECT || (g.cmd == PCIERR_CMD_REMOVE && chance(50)))
		put_str_attr(m, PCIERR_A_DEVICE, addr);
	if (g.cmd != PCIERR_CMD_INJECT)
		put_str_attr(m, PCIERR_A_PE, addr);
	put_u64_attr(m, PCIERR_A_PE_ID, STALE_PE_ID_BIT | rnd64());
	switch (g.cmd) {
	case PCIERR_CMD_REPORT:
		put_u32_attr(m, PCIERR_A_STEP, PCIERR_STEP_ERROR_DETECTED + rnd(PCIERR_STEP_MAX));
		break;
	case PCIERR_CMD_ARM:
		put_u32_attr(m, PCIERR_A_AUTO_BUDGET, rnd(3));
		break;
	case PCIERR_CMD_WATCH:
		put_u32_attr(m, PCIERR_A_WATCH_INTERVAL_MS, chance(50) ? 0 : 1000);
		break;
	default:
		break;
	}
	((struct nlmsghdr *)m->b)->nlmsg_len = (uint32_t)m->len;
}

static void build_mutated(struct msg *m)
{
	unsigned int k = 1 + rnd(8);

	if (chance(50))
		build_near_valid(m);
	else
		build_structured(m);
	for (unsigned int i = 0; i < k && m->len > 0; i++) {
		size_t at = rnd((uint32_t)m->len);

		switch (rnd(4)) {
		case 0:
		case 1:
			m->b[at] ^= (uint8_t)(1u << rnd(8));
			break;
		case 2:
			m->b[at] = (uint8_t)rnd(256);
			break;
		default:
			if (chance(50) && m->len < sizeof(m->b) - 8) {
				unsigned int ins = 1 + rnd(8);

				memmove(m->b + at + ins, m->b + at, m->len - at);
				for (unsigned int j = 0; j < ins; j++)
					m->b[at + j] = (uint8_t)rnd(256);
				m->len += ins;
			} else {
				unsigned int del = 1 + rnd(8);

				if (at + del > m->len)
					del = (unsigned int)(m->len - at);
				memmove(m->b + at, m->b + at + del, m->len - at - del);
				m->len -= del;
			}
			break;
		}
	}
	/* keep the type away from other families even so */
	if (m->len >= NLMSG_HDRLEN) {
		struct nlmsghdr *h = (struct nlmsghdr *)m->b;

		if (h->nlmsg_type >= NLMSG_MIN_TYPE && h->nlmsg_type != family_id &&
		    h->nlmsg_type != GENL_ID_CTRL && family_registered(h->nlmsg_type))
			h->nlmsg_type = (uint16_t)family_id;
	}
}

static void build_raw(struct msg *m)
{
	m->len = rnd(72);
	for (size_t i = 0; i < m->len; i++)
		m->b[i] = (uint8_t)rnd(256);
	if (m->len >= NLMSG_HDRLEN && chance(70)) {
		struct nlmsghdr *h = (struct nlmsghdr *)m->b;

		h->nlmsg_type = (uint16_t)family_id;
		if (chance(50))
			h->nlmsg_len = (uint32_t)m->len;
		if (chance(50))
			h->nlmsg_flags |= NLM_F_REQUEST;
	} else if (m->len >= NLMSG_HDRLEN) {
		struct nlmsghdr *h = (struct nlmsghdr *)m->b;

		if (h->nlmsg_type >= NLMSG_MIN_TYPE && h->nlmsg_type != family_id &&
		    h->nlmsg_type != GENL_ID_CTRL && family_registered(h->nlmsg_type))
			h->nlmsg_type = (uint16_t)family_id;
	}
}

/* ------------------------------------------------------------------ */
/* as the kernel sees a datagram (netlink_rcv_skb(), genl_family_rcv_msg()) */

static bool is_mutating(uint8_t cmd)
{
	return (cmd >= PCIERR_CMD_INJECT && cmd <= PCIERR_CMD_WATCH) ||
	       cmd == PCIERR_CMD_RECOVER || cmd == PCIERR_CMD_ARM;
}

struct sent {
	uint32_t seq;
	uint8_t cmd;
	bool ours;		/* processed, of the family, a request */
	bool expect_eperm;	/* ... and its headers pass: EPERM unprivileged */
	bool stale_target;	/* names a present device, with a stale id */
	bool answered;
	int error;		/* the ack's, when answered */
};

/* Walk the datagram as netlink_rcv_skb() does; scrub the attributes of
 * the family's messages; note what the kernel will make of each. */
static uint32_t unique_seq = 0x40000000;

static size_t classify(uint8_t *buf, size_t len, struct sent *out, size_t max,
		       bool stale_target, unsigned int *scrubbed)
{
	size_t n = 0, off = 0;

	while (len - off >= NLMSG_HDRLEN && n < max) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + off);
		size_t msglen;

		if (h->nlmsg_len < NLMSG_HDRLEN || len - off < h->nlmsg_len)
			break;
		/* a sequence number of its own, so that its ack cannot be taken
		 * for another's (a message without NLM_F_REQUEST but with
		 * NLM_F_ACK is acked with 0; found by this fuzzer's seed
		 * 20261203) */
		h->nlmsg_seq = unique_seq++;
		out[n] = (struct sent) { .seq = h->nlmsg_seq };
		if (h->nlmsg_type == family_id && (h->nlmsg_flags & NLM_F_REQUEST) &&
		    h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN) {
			struct genlmsghdr *g = NLMSG_DATA(h);
			uint16_t fl = h->nlmsg_flags;

			if ((fl & NLM_F_DUMP) == NLM_F_DUMP)
				fl &= (uint16_t)~NLM_F_DUMP;
			out[n].ours = true;
			out[n].cmd = g->cmd;
			out[n].stale_target = stale_target;
			out[n].expect_eperm = is_mutating(g->cmd) &&
				(g->cmd < PCIERR_CMD_GET_PE ||
				 (g->reserved == 0 &&
				  !(fl & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO))));
			/* every byte after the genl header, not only what
			 * parses as attributes: the kernel's parser and ours
			 * may disagree on a broken one. GET_PE and GET_STATS
			 * change nothing: they may name anything. */
			if (g->cmd != PCIERR_CMD_GET_PE && g->cmd != PCIERR_CMD_GET_STATS &&
			    !stale_target)
				*scrubbed += scrub(buf + off + NLMSG_HDRLEN + GENL_HDRLEN,
					   h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
		}
		n++;
		msglen = NLMSG_ALIGN(h->nlmsg_len);
		if (msglen > len - off)
			msglen = len - off;
		off += msglen;
	}
	return n;
}

/* ------------------------------------------------------------------ */

struct tally {
	uint64_t messages, datagrams, send_errors, replies, acks_ok, data_msgs;
	uint64_t errors[160];	/* by errno */
	uint64_t mutating, eperm_expected, eperm_seen, eperm_violations;
	uint64_t valid_mutations, scrubbed, enobufs;
	uint64_t stale_targets, stale_estale;
};

static struct tally T;
static bool privileged;
static bool quiet;
static uint64_t show_index = UINT64_MAX;

static void hexdump(const char *what, uint64_t index, const uint8_t *p, size_t n)
{
	printf("%s %" PRIu64 " (%zu bytes):", what, index, n);
	for (size_t i = 0; i < n; i++)
		printf("%s%02x", i % 32 ? " " : "\n  ", p[i]);
	printf("\n");
}

/* read every reply now queued (generic netlink answers in sendmsg(); a dump
 * goes on with each recv) and match the acks to what was sent */
static void drain(struct sent *s, size_t n_sent)
{
	for (;;) {
		ssize_t n = recv(sock, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		size_t rem;
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				T.enobufs++;
				continue;
			}
			return;	/* EAGAIN: all read */
		}
		rem = (size_t)n;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			T.replies++;
			if (h->nlmsg_type != NLMSG_ERROR) {
				T.data_msgs++;
				continue;
			}
			if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(struct nlmsgerr))
				continue;
			{
				const struct nlmsgerr *e = NLMSG_DATA(h);
				int err = -e->error;

				if (err == 0)
					T.acks_ok++;
				else if (err > 0 && err < 160)
					T.errors[err]++;
				for (size_t i = 0; i < n_sent; i++)
					if (s[i].ours && !s[i].answered && s[i].seq == h->nlmsg_seq) {
						s[i].answered = true;
						s[i].error = err;
						break;
					}
			}
		}
	}
}

static int run(uint64_t count)
{
	static struct msg m;
	static uint8_t dgram[BUF_MAX];
	uint64_t index = 0;
	int status = 0;

	while (index < count) {
		struct sent s[MSGS_PER_DGRAM];
		size_t len = 0, n_sent, k = chance(10) ? 2 + rnd(MSGS_PER_DGRAM - 1) : 1;
		bool stale = n_devs > 0 && chance(5);
		uint64_t first = index;
		int r;

		if (stale) {
			build_stale_target(&m);
			memcpy(dgram, m.b, m.len);
			len = m.len;
			index++;
			k = 0;
		}
		for (size_t i = 0; i < k && index < count; i++, index++) {
			uint32_t how = rnd(100);

			if (how < 30)
				build_near_valid(&m);
			else if (how < 60)
				build_structured(&m);
			else if (how < 90)
				build_mutated(&m);
			else
				build_raw(&m);
			if (len + NLMSG_ALIGN(m.len) > sizeof(dgram))
				break;
			memcpy(dgram + len, m.b, m.len);
			/* padded, except (sometimes) the last */
			if (i + 1 < k || chance(50)) {
				memset(dgram + len + m.len, 0, NLMSG_ALIGN(m.len) - m.len);
				len += NLMSG_ALIGN(m.len);
			} else {
				len += m.len;
			}
		}
		{
			unsigned int scrubbed = 0;

			n_sent = classify(dgram, len, s, MSGS_PER_DGRAM, stale, &scrubbed);
			T.scrubbed += scrubbed;
		}
		if (first <= show_index && show_index < index)
			hexdump("datagram of message", first, dgram, len);

		T.messages += index - first;
		T.datagrams++;
		r = send_dgram(dgram, len);
		if (r < 0)
			T.send_errors++;
		drain(s, n_sent);

		for (size_t i = 0; i < n_sent; i++) {
			if (!s[i].ours || !is_mutating(s[i].cmd))
				continue;
			T.mutating++;
			if (s[i].stale_target) {
				T.stale_targets++;
				if (s[i].answered && s[i].error == ESTALE)
					T.stale_estale++;
			}
			if (s[i].answered && s[i].error == 0) {
				T.valid_mutations++;
				status = 1;
				printf("VALID MUTATION: cmd %u accepted (seed's datagram of message %" PRIu64 ")\n",
				       s[i].cmd, first);
				hexdump("datagram of message", first, dgram, len);
			}
			if (!privileged && s[i].expect_eperm) {
				T.eperm_expected++;
				if (s[i].answered && s[i].error == EPERM) {
					T.eperm_seen++;
				} else {
					T.eperm_violations++;
					status = 1;
					printf("NOT EPERM: cmd %u answered %s%d (datagram of message %" PRIu64 ")\n",
					       s[i].cmd, s[i].answered ? "" : "nothing, ",
					       s[i].answered ? -s[i].error : 0, first);
					hexdump("datagram of message", first, dgram, len);
				}
			}
		}
		if (!quiet && index / 20000 != first / 20000)
			printf("progress messages=%" PRIu64 " replies=%" PRIu64 " acks_ok=%" PRIu64
			       " einval=%" PRIu64 " enodev=%" PRIu64 " eperm=%" PRIu64 "\n",
			       T.messages, T.replies, T.acks_ok, T.errors[EINVAL], T.errors[ENODEV],
			       T.errors[EPERM]);
	}
	return status;
}

/* CAP_NET_ADMIN (12) in CapEff of /proc/self/status */
static bool has_net_admin(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 12);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "show", required_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{}
	};
	uint64_t seed = 1, count = 200000;
	struct timespec t0, t1;
	double secs;
	int c, status;

	while ((c = getopt_long(argc, argv, "s:n:S:q", opts, NULL)) >= 0) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'S': show_index = strtoull(optarg, NULL, 0); break;
		case 'q': quiet = true; break;
		default:
			fprintf(stderr, "usage: nl-fuzz [--seed N] [--count N] [--show I] [--quiet]\n");
			return 2;
		}
	}
	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	privileged = has_net_admin();
	load_devices();
	sock = open_socket();
	resolve_families();
	if (!family_id) {
		fprintf(stderr, "nl-fuzz: no generic netlink family '%s'\n", PCIERR_GENL_NAME);
		return 3;
	}
	printf("nl-fuzz seed=%" PRIu64 " count=%" PRIu64 " family=%d privileged=%d devices=%zu families=%zu\n",
	       seed, count, family_id, privileged, n_devs, n_families);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = run(count);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("summary seed=%" PRIu64 " privileged=%d messages=%" PRIu64 " datagrams=%" PRIu64
	       " seconds=%.1f msgs_per_s=%.0f replies=%" PRIu64 " data=%" PRIu64
	       " acks_ok=%" PRIu64 " einval=%" PRIu64 " enodev=%" PRIu64 " eperm=%" PRIu64
	       " eopnotsupp=%" PRIu64 " enoent=%" PRIu64 " erange=%" PRIu64 " ebusy=%" PRIu64
	       " emsgsize=%" PRIu64 " send_errors=%" PRIu64 " enobufs=%" PRIu64
	       " mutating=%" PRIu64 " valid_mutations=%" PRIu64 " eperm_expected=%" PRIu64
	       " eperm_seen=%" PRIu64 " eperm_violations=%" PRIu64 " scrubbed=%" PRIu64
	       " estale=%" PRIu64 " stale_targets=%" PRIu64 " stale_estale=%" PRIu64 "\n",
	       seed, privileged, T.messages, T.datagrams, secs, secs > 0 ? (double)T.messages / secs : 0,
	       T.replies, T.data_msgs, T.acks_ok, T.errors[EINVAL], T.errors[ENODEV],
	       T.errors[EPERM], T.errors[EOPNOTSUPP], T.errors[ENOENT], T.errors[ERANGE],
	       T.errors[EBUSY], T.errors[EMSGSIZE], T.send_errors, T.enobufs, T.mutating,
	       T.valid_mutations, T.eperm_expected, T.eperm_seen, T.eperm_violations, T.scrubbed,
	       T.errors[ESTALE], T.stale_targets, T.stale_estale);
	return status;
}

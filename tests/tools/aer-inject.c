// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * aer-inject: inject a PCIe AER error through the kernel's software
 * injector (drivers/pci/pcie/aer_inject.c, module aer_inject, device
 * /dev/aer_inject), which drives the kernel's own AER recovery
 * (error_detected -> reset -> slot_reset -> resume, uevents
 * ERROR_EVENT=...). The VM scenarios use it to compare pcierrd with the
 * kernel's recovery and to make that recovery fail on purpose.
 *
 * usage: aer-inject [-u MASK] [-c MASK] [-H H0,H1,H2,H3] [-d DEV] ADDRESS
 *
 * The record written is the kernel's struct aer_error_inj (unchanged
 * from 2.6.31 to 6.x): u8 bus, dev, fn; u32 uncor_status, cor_status,
 * header_log0..3, domain -- natural alignment, 32 bytes. The kernel
 * accepts it from the offset of domain up to its full size.
 *
 * Exit status: 0 injected; 1 the kernel refused (its errno said, e.g.
 * ENODEV no such device or no AER service on its root port,
 * EPROTONOSUPPORT no AER capability, EINVAL the error is masked, EPERM
 * not root); 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "aer-inject"
#define EXIT_USAGE 2

/* drivers/pci/pcie/aer_inject.c */
struct aer_error_inj {
	uint8_t bus;
	uint8_t dev;
	uint8_t fn;
	uint32_t uncor_status;
	uint32_t cor_status;
	uint32_t header_log0;
	uint32_t header_log1;
	uint32_t header_log2;
	uint32_t header_log3;
	uint32_t domain;
};

_Static_assert(offsetof(struct aer_error_inj, uncor_status) == 4, "layout");
_Static_assert(offsetof(struct aer_error_inj, domain) == 28, "layout");
_Static_assert(sizeof(struct aer_error_inj) == 32, "layout");

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options] ADDRESS\n"
		"Inject a PCIe AER error into the device at ADDRESS ([DDDD:]BB:DD.F, hex)\n"
		"through the kernel's software injector (modprobe aer_inject).\n"
		"\n"
		"  -u, --uncor MASK        uncorrectable error status bits (PCI_ERR_UNCOR_STATUS)\n"
		"  -c, --cor MASK          correctable error status bits (PCI_ERR_COR_STATUS)\n"
		"  -s, --surprise-down     same as --uncor 0x20 (Surprise Down, fatal by default)\n"
		"  -H, --header-log H0,H1,H2,H3   the TLP header log (4 numbers)\n"
		"  -d, --device PATH       the injector (default /dev/aer_inject)\n"
		"  -h, --help              this text\n"
		"\n"
		"At least one of --uncor, --cor, --surprise-down. Numbers are C style\n"
		"(0x.. hex). Whether an uncorrectable error is fatal follows the device's\n"
		"severity register. Exit status: 0 injected, 1 refused, 2 usage.\n",
		PROG);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s%s\nTry '%s --help'.\n", PROG, what,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "", PROG);
	return EXIT_USAGE;
}

static int parse_u32(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int parse_hex(const char *s, size_t len, unsigned long max,
		     unsigned long *ret)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 4)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = s[i];
		int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		v = v * 16 + (unsigned long)d;
	}
	if (v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* [DDDD:]BB:DD.F */
static int parse_address(const char *s, struct aer_error_inj *e)
{
	const char *c1, *c2, *dot;
	unsigned long dom = 0, bus, dev, fn;
	const char *b;

	c1 = strchr(s, ':');
	if (!c1)
		return -EINVAL;
	c2 = strchr(c1 + 1, ':');
	if (c2) {
		if (parse_hex(s, (size_t)(c1 - s), 0xffff, &dom) < 0)
			return -EINVAL;
		b = c1 + 1;
		c1 = c2;
	} else {
		b = s;
	}
	dot = strchr(c1 + 1, '.');
	if (!dot || strchr(dot + 1, ':') || strchr(dot + 1, '.'))
		return -EINVAL;
	if (parse_hex(b, (size_t)(c1 - b), 0xff, &bus) < 0 ||
	    parse_hex(c1 + 1, (size_t)(dot - c1 - 1), 0x1f, &dev) < 0 ||
	    parse_hex(dot + 1, strlen(dot + 1), 7, &fn) < 0)
		return -EINVAL;
	e->domain = (uint32_t)dom;
	e->bus = (uint8_t)bus;
	e->dev = (uint8_t)dev;
	e->fn = (uint8_t)fn;
	return 0;
}

static int parse_header_log(const char *s, struct aer_error_inj *e)
{
	uint32_t v[4];
	char buf[128];
	char *p, *save = NULL;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n == 4 || parse_u32(p, &v[n]) < 0)
			return -EINVAL;
		n++;
	}
	if (n != 4)
		return -EINVAL;
	e->header_log0 = v[0];
	e->header_log1 = v[1];
	e->header_log2 = v[2];
	e->header_log3 = v[3];
	return 0;
}

static const char *errno_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "?";
}

static const char *hint(int err)
{
	switch (err) {
	case ENODEV:
		return " (no such device, no root port above it, or no AER service on the root port)";
	case EPROTONOSUPPORT:
		return " (the device or its root port has no AER capability, or AER is not initialised)";
	case EINVAL:
		return " (the error is masked by the device's mask register)";
	case EPERM:
		return " (needs CAP_SYS_ADMIN)";
	default:
		return "";
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uncor", required_argument, NULL, 'u' },
		{ "cor", required_argument, NULL, 'c' },
		{ "surprise-down", no_argument, NULL, 's' },
		{ "header-log", required_argument, NULL, 'H' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct aer_error_inj e;
	const char *path = "/dev/aer_inject";
	uint32_t v;
	ssize_t n;
	int c, fd;

	memset(&e, 0, sizeof(e));
	while ((c = getopt_long(argc, argv, "u:c:sH:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (parse_u32(optarg, &v) < 0)
				return usage_error("bad --uncor mask", optarg);
			e.uncor_status |= v;
			break;
		case 'c':
			if (parse_u32(optarg, &v) < 0)
				return usage_error("bad --cor mask", optarg);
			e.cor_status |= v;
			break;
		case 's':
			e.uncor_status |= 0x20;	/* PCI_ERR_UNC_SURPDN */
			break;
		case 'H':
			if (parse_header_log(optarg, &e) < 0)
				return usage_error("bad --header-log (want 4 comma-separated numbers):", optarg);
			break;
		case 'd':
			path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try '%s --help'.\n", PROG);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return usage_error(optind == argc ? "missing ADDRESS" : "too many arguments", NULL);
	if (parse_address(argv[optind], &e) < 0)
		return usage_error("bad address (want [DDDD:]BB:DD.F, hex):", argv[optind]);
	if (!e.uncor_status && !e.cor_status)
		return usage_error("nothing to inject: give --uncor, --cor or --surprise-down", NULL);

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "%s: cannot open %s: %s (errno %s)%s\n", PROG, path,
			strerror(err), errno_name(err),
			err == ENOENT ? " (modprobe aer_inject)" : "");
		return EXIT_FAILURE;
	}
	n = write(fd, &e, sizeof(e));
	if (n < 0) {
		int err = errno;

		fprintf(stderr, "%s: %04x:%02x:%02x.%x: the kernel refused: %s (errno %s)%s\n",
			PROG, e.domain, e.bus, e.dev, e.fn, strerror(err),
			errno_name(err), hint(err));
		close(fd);
		return EXIT_FAILURE;
	}
	if ((size_t)n != sizeof(e)) {
		fprintf(stderr, "%s: short write (%zd of %zu bytes)\n", PROG, n, sizeof(e));
		close(fd);
		return EXIT_FAILURE;
	}
	close(fd);
	printf("injected dev=%04x:%02x:%02x.%x uncor=0x%08x cor=0x%08x\n",
	       e.domain, e.bus, e.dev, e.fn, e.uncor_status, e.cor_status);
	return 0;
}

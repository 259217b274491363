// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The pure part of pcierr's pseries backend (pseries-rtas.h): state
 * mapping, availability-wait arithmetic, RTAS status to errno, the RTAS
 * error log header. Builds in the kernel and in userspace.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#else
#include <errno.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#include "pseries-rtas.h"

enum pseries_verdict pseries_check_verdict(int rc, const int rets[3],
					   bool slot_empty, u32 *time_ms)
{
	*time_ms = 0;
	/* a parameter error: firmware does not know the PE as an EEH PE */
	if (rc == PSERIES_RTAS_PARAM_ERROR)
		return PSERIES_V_NO_EEH;
	if (rc)
		return PSERIES_V_CALL_FAILED;
	if (!rets[1])
		return PSERIES_V_NO_EEH;
	switch (rets[0]) {
	case PSERIES_STATE_NORMAL:
	case PSERIES_STATE_RESET:
		return PSERIES_V_HEALTHY;
	case PSERIES_STATE_STOPPED:
	case PSERIES_STATE_MMIO:
		return PSERIES_V_FROZEN;
	case PSERIES_STATE_UNAVAIL:
		/* config cycles to an empty slot fail: not an error */
		if (slot_empty)
			return PSERIES_V_EMPTY_SLOT;
		/* the daemon decides whether that is for good */
		if (rets[2] > 0)
			*time_ms = rets[2];
		return PSERIES_V_PERM_FAILURE;
	default:
		/* not a state we know: as the seed, punt */
		return PSERIES_V_HEALTHY;
	}
}

enum pseries_wait pseries_wait_step(int rc, const int rets[3],
				    unsigned int waited_ms,
				    unsigned int max_ms,
				    unsigned int *sleep_ms)
{
	unsigned int left = waited_ms < max_ms ? max_ms - waited_ms : 0;
	unsigned int want;

	*sleep_ms = 0;
	if (rc || !rets[1])
		return PSERIES_W_ERROR;
	switch (rets[0]) {
	case PSERIES_STATE_NORMAL:
	case PSERIES_STATE_STOPPED:
	case PSERIES_STATE_MMIO:
		return PSERIES_W_AVAILABLE;
	case PSERIES_STATE_RESET:
		want = PSERIES_RESET_POLL_MS;
		break;
	case PSERIES_STATE_UNAVAIL:
		if (rets[2] <= 0 || rets[2] > PSERIES_MAX_UNAVAIL_MS)
			return PSERIES_W_PERMANENT;
		want = rets[2];
		break;
	default:
		return PSERIES_W_ERROR;
	}
	if (!left)
		return PSERIES_W_TIMEOUT;
	*sleep_ms = want < left ? want : left;
	return PSERIES_W_SLEEP;
}

int pseries_busy_ms(int rc, unsigned int cap_ms)
{
	unsigned int ms = 1;
	int i;

	if (rc == PSERIES_RTAS_BUSY)
		return 1;
	if (rc < PSERIES_RTAS_DELAY_MIN || rc > PSERIES_RTAS_DELAY_MAX)
		return -1;
	for (i = PSERIES_RTAS_DELAY_MIN; i < rc; i++)
		ms *= 10;
	if (ms > cap_ms)
		ms = cap_ms;
	return (int)ms;
}

int pseries_errno(int rc)
{
	switch (rc) {
	case 0:
		return 0;
	case PSERIES_RTAS_BUSY:
		return -EBUSY;
	case PSERIES_RTAS_PARAM_ERROR:
		/* firmware does not know this PE (no EEH on it) */
		return -ENXIO;
	case PSERIES_RTAS_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case PSERIES_RTAS_HW_ERROR:
	default:
		if (rc >= PSERIES_RTAS_DELAY_MIN && rc <= PSERIES_RTAS_DELAY_MAX)
			return -EBUSY;
		return -EIO;
	}
}

int pseries_log_decode(const u8 *buf, unsigned int len,
		       struct pseries_log_header *h)
{
	unsigned int total = PSERIES_LOG_HEADER_LEN;

	if (len < PSERIES_LOG_HEADER_LEN)
		return -1;
	h->version = buf[0];
	h->severity = (buf[1] & 0xe0) >> 5;
	h->disposition = (buf[1] & 0x18) >> 3;
	h->extended = buf[1] & 0x04;
	h->initiator = (buf[2] & 0xf0) >> 4;
	h->target = buf[2] & 0x0f;
	h->type = buf[3];
	h->ext_len = (u32)buf[4] << 24 | (u32)buf[5] << 16 |
		     (u32)buf[6] << 8 | buf[7];
	if (h->extended && h->ext_len < len - PSERIES_LOG_HEADER_LEN)
		total += h->ext_len;
	else if (h->extended)
		total = len;
	return (int)total;
}

const char *pseries_log_severity_name(unsigned int severity)
{
	static const char *const names[] = {
		"no-error", "event", "warning", "error-sync", "error", "fatal",
	};

	if (severity < ARRAY_SIZE(names))
		return names[severity];
	return "unknown";
}

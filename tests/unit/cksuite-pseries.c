/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure part of the shim's pseries backend
 * (kernel/pcierr_shim/pseries-rtas.c, built here for userspace): what the
 * answers of ibm,read-slot-reset-state2 mean for an all-ones read, the
 * availability wait after a reset, RTAS busy delays, statuses to errno,
 * the RTAS error log header.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "../../kernel/pcierr_shim/pseries-rtas.h"
#include "cksuites.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	int rc, rets[3];
	bool empty;
	enum pseries_verdict v;
	uint32_t time;
} verdicts[] = {
	/* firmware does not know the PE (QEMU without VFIO): no opinion */
	{ -3, { 0, 0, 0 }, false, PSERIES_V_NO_EEH, 0 },
	/* any other failure of the call: a false positive, as the seed */
	{ -1, { 0, 1, 0 }, false, PSERIES_V_CALL_FAILED, 0 },
	/* EEH not supported on the PE */
	{ 0, { 2, 0, 0 }, false, PSERIES_V_NO_EEH, 0 },
	/* healthy or still in reset: the all-ones value was genuine */
	{ 0, { 0, 1, 0 }, false, PSERIES_V_HEALTHY, 0 },
	{ 0, { 1, 1, 0 }, false, PSERIES_V_HEALTHY, 0 },
	/* stopped (MMIO and DMA) or MMIO only: frozen */
	{ 0, { 2, 1, 0 }, false, PSERIES_V_FROZEN, 0 },
	{ 0, { 4, 1, 0 }, false, PSERIES_V_FROZEN, 0 },
	/* unavailable: for a while, for good, too long (the daemon decides) */
	{ 0, { 5, 1, 3000 }, false, PSERIES_V_PERM_FAILURE, 3000 },
	{ 0, { 5, 1, 0 }, false, PSERIES_V_PERM_FAILURE, 0 },
	{ 0, { 5, 1, 20000 }, false, PSERIES_V_PERM_FAILURE, 20000 },
	{ 0, { 5, 1, -1 }, false, PSERIES_V_PERM_FAILURE, 0 },
	/* ... of an empty slot: a false alarm */
	{ 0, { 5, 1, 0 }, true, PSERIES_V_EMPTY_SLOT, 0 },
	{ 0, { 5, 1, 3000 }, true, PSERIES_V_EMPTY_SLOT, 0 },
	/* an empty slot that is frozen is still frozen */
	{ 0, { 2, 1, 0 }, true, PSERIES_V_FROZEN, 0 },
	/* a state PAPR does not define: punt */
	{ 0, { 3, 1, 0 }, false, PSERIES_V_HEALTHY, 0 },
};

START_TEST(test_verdict)
{
	uint32_t time = 12345;

	ck_assert_int_eq(pseries_check_verdict(verdicts[_i].rc,
					       verdicts[_i].rets,
					       verdicts[_i].empty, &time),
			 verdicts[_i].v);
	ck_assert_uint_eq(time, verdicts[_i].time);
}
END_TEST

static const struct {
	int rc, rets[3];
	unsigned int waited, max;
	enum pseries_wait w;
	unsigned int sleep;
} waits[] = {
	/* available: normal, stopped, MMIO */
	{ 0, { 0, 1, 0 }, 0, 1000, PSERIES_W_AVAILABLE, 0 },
	{ 0, { 2, 1, 0 }, 500, 1000, PSERIES_W_AVAILABLE, 0 },
	{ 0, { 4, 1, 0 }, 0, 1000, PSERIES_W_AVAILABLE, 0 },
	/* available even past the bound: the answer counts, not the clock */
	{ 0, { 0, 1, 0 }, 5000, 1000, PSERIES_W_AVAILABLE, 0 },
	/* reset still asserted: poll */
	{ 0, { 1, 1, 0 }, 0, 1000, PSERIES_W_SLEEP, PSERIES_RESET_POLL_MS },
	{ 0, { 1, 1, 0 }, 980, 1000, PSERIES_W_SLEEP, 20 },
	{ 0, { 1, 1, 0 }, 1000, 1000, PSERIES_W_TIMEOUT, 0 },
	/* firmware's wait is honoured, up to what is left */
	{ 0, { 5, 1, 1500 }, 0, 60000, PSERIES_W_SLEEP, 1500 },
	{ 0, { 5, 1, 1500 }, 59000, 60000, PSERIES_W_SLEEP, 1000 },
	{ 0, { 5, 1, 1500 }, 60000, 60000, PSERIES_W_TIMEOUT, 0 },
	{ 0, { 5, 1, 15000 }, 0, 60000, PSERIES_W_SLEEP, 15000 },
	/* no wait, or longer than 15 s: unavailable for good */
	{ 0, { 5, 1, 0 }, 0, 60000, PSERIES_W_PERMANENT, 0 },
	{ 0, { 5, 1, 15001 }, 0, 60000, PSERIES_W_PERMANENT, 0 },
	{ 0, { 5, 1, -5 }, 0, 60000, PSERIES_W_PERMANENT, 0 },
	/* the call failed, EEH not supported, a state PAPR does not define */
	{ -3, { 0, 0, 0 }, 0, 60000, PSERIES_W_ERROR, 0 },
	{ -1, { 0, 1, 0 }, 0, 60000, PSERIES_W_ERROR, 0 },
	{ 0, { 0, 0, 0 }, 0, 60000, PSERIES_W_ERROR, 0 },
	{ 0, { 3, 1, 0 }, 0, 60000, PSERIES_W_ERROR, 0 },
};

START_TEST(test_wait)
{
	unsigned int sleep = 777;

	ck_assert_int_eq(pseries_wait_step(waits[_i].rc, waits[_i].rets,
					   waits[_i].waited, waits[_i].max,
					   &sleep),
			 waits[_i].w);
	ck_assert_uint_eq(sleep, waits[_i].sleep);
}
END_TEST

/* A whole availability loop: the sleeps add up to firmware's waits. */
START_TEST(test_wait_loop)
{
	const int seq[][3] = {
		{ 1, 1, 0 }, { 5, 1, 400 }, { 5, 1, 1000 }, { 2, 1, 0 },
	};
	unsigned int waited = 0, sleep;
	size_t i;

	for (i = 0; i < N(seq); i++) {
		enum pseries_wait w = pseries_wait_step(0, seq[i], waited,
							 60000, &sleep);

		if (w == PSERIES_W_AVAILABLE)
			break;
		ck_assert_int_eq(w, PSERIES_W_SLEEP);
		waited += sleep;
	}
	ck_assert_uint_eq(i, 3);
	ck_assert_uint_eq(waited, PSERIES_RESET_POLL_MS + 400 + 1000);

	/* firmware asking 10 s each time hits a 25 s bound after 3 asks */
	waited = 0;
	for (i = 0; i < 10; i++) {
		const int r[3] = { 5, 1, 10000 };

		if (pseries_wait_step(0, r, waited, 25000, &sleep) !=
		    PSERIES_W_SLEEP)
			break;
		waited += sleep;
	}
	ck_assert_uint_eq(i, 3);
	ck_assert_uint_eq(waited, 25000);
}
END_TEST

START_TEST(test_busy)
{
	ck_assert_int_eq(pseries_busy_ms(0, 100), -1);
	ck_assert_int_eq(pseries_busy_ms(-1, 100), -1);
	ck_assert_int_eq(pseries_busy_ms(-3, 100), -1);
	ck_assert_int_eq(pseries_busy_ms(-2, 100), 1);
	ck_assert_int_eq(pseries_busy_ms(9900, 100), 1);
	ck_assert_int_eq(pseries_busy_ms(9901, 100), 10);
	ck_assert_int_eq(pseries_busy_ms(9902, 100), 100);
	ck_assert_int_eq(pseries_busy_ms(9903, 100), 100);
	ck_assert_int_eq(pseries_busy_ms(9905, 100000), 100000);
	ck_assert_int_eq(pseries_busy_ms(9906, 100), -1);
	ck_assert_int_eq(pseries_busy_ms(9899, 100), -1);
}
END_TEST

START_TEST(test_errno)
{
	ck_assert_int_eq(pseries_errno(0), 0);
	ck_assert_int_eq(pseries_errno(-1), -EIO);
	ck_assert_int_eq(pseries_errno(-2), -EBUSY);
	ck_assert_int_eq(pseries_errno(-3), -ENXIO);
	ck_assert_int_eq(pseries_errno(-8), -EOPNOTSUPP);
	ck_assert_int_eq(pseries_errno(9902), -EBUSY);
	ck_assert_int_eq(pseries_errno(-9999), -EIO);
	ck_assert_int_eq(pseries_errno(1), -EIO);
}
END_TEST

START_TEST(test_log_header)
{
	/* version 6, severity error (4), disposition 1, extended; initiator
	 * 2, target 3; type 0x40; 16 extended bytes */
	uint8_t log[32] = { 0x06, 0x80 | 0x08 | 0x04, 0x23, 0x40,
			    0x00, 0x00, 0x00, 0x10 };
	struct pseries_log_header h;

	ck_assert_int_eq(pseries_log_decode(log, 7, &h), -1);
	ck_assert_int_eq(pseries_log_decode(log, sizeof(log), &h), 24);
	ck_assert_uint_eq(h.version, 6);
	ck_assert_uint_eq(h.severity, 4);
	ck_assert_str_eq(pseries_log_severity_name(h.severity), "error");
	ck_assert_uint_eq(h.disposition, 1);
	ck_assert(h.extended);
	ck_assert_uint_eq(h.initiator, 2);
	ck_assert_uint_eq(h.target, 3);
	ck_assert_uint_eq(h.type, 0x40);
	ck_assert_uint_eq(h.ext_len, 16);

	/* an extended length past the buffer is cut to the buffer */
	log[7] = 0xff;
	ck_assert_int_eq(pseries_log_decode(log, sizeof(log), &h), 32);
	/* not extended: the header alone */
	log[1] = 0xa0;
	ck_assert_int_eq(pseries_log_decode(log, sizeof(log), &h), 8);
	ck_assert_uint_eq(h.severity, 5);
	ck_assert_str_eq(pseries_log_severity_name(h.severity), "fatal");
	ck_assert_str_eq(pseries_log_severity_name(7), "unknown");
}
END_TEST

Suite *suite_pseries(void)
{
	Suite *s = suite_create("pseries");
	TCase *tc;

	tc = tcase_create("verdict");
	tcase_add_loop_test(tc, test_verdict, 0, N(verdicts));
	suite_add_tcase(s, tc);

	tc = tcase_create("wait");
	tcase_add_loop_test(tc, test_wait, 0, N(waits));
	tcase_add_test(tc, test_wait_loop);
	tcase_add_test(tc, test_busy);
	suite_add_tcase(s, tc);

	tc = tcase_create("status");
	tcase_add_test(tc, test_errno);
	tcase_add_test(tc, test_log_header);
	suite_add_tcase(s, tc);
	return s;
}

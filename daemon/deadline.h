/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd: a deadline for pthread_cond_timedwait() on a condition variable
 * created with CLOCK_MONOTONIC (pthread_condattr_setclock()): the writer
 * threads' waits must not stretch or shrink when the wall clock is set.
 */
#ifndef PCIERRD_DEADLINE_H
#define PCIERRD_DEADLINE_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now plus usec */
static inline struct timespec deadline_in(uint64_t usec)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += (time_t)(usec / 1000000);
	t.tv_nsec += (long)(usec % 1000000) * 1000;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

#endif /* PCIERRD_DEADLINE_H */

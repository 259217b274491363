/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small systemd-style helpers for pcierrd. Deliberately independent of the
 * library's internal lib/libpcierr/macros.h: never include both in one
 * translation unit.
 */
#ifndef PCIERRD_MACRO_H
#define PCIERRD_MACRO_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)	__attribute__((cleanup(f)))
#define _unused_	__attribute__((unused))
#define _pure_		__attribute__((pure))
#define _printf_(a, b)	__attribute__((format(printf, a, b)))
#define _likely_(x)	__builtin_expect(!!(x), 1)
#define _unlikely_(x)	__builtin_expect(!!(x), 0)

#define ELEMENTSOF(x)	(sizeof(x) / sizeof((x)[0]))

#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)			\
	static inline void func##p(type *p)			\
	{							\
		if (*p)						\
			func(*p);				\
	}

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_	_cleanup_(freep)

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_fclose_	_cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}
#define _cleanup_closedir_	_cleanup_(closedirp)

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_	_cleanup_(closep)

#define TAKE_PTR(p)						\
	({							\
		__typeof__(p) _took = (p);			\
		(p) = NULL;					\
		_took;						\
	})

/* errno as a negative return value; never 0 */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif /* PCIERRD_MACRO_H */

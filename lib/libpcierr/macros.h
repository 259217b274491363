/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small helpers for the library internals (systemd style).
 * Not installed; not part of the API.
 */
#ifndef PCIERR_MACROS_H
#define PCIERR_MACROS_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)	__attribute__((cleanup(f)))
#define _unused_	__attribute__((unused))
#define _pure_		__attribute__((pure))
#define _public_	__attribute__((visibility("default")))
#define _likely_(x)	__builtin_expect(!!(x), 1)
#define _unlikely_(x)	__builtin_expect(!!(x), 0)

#define ELEMENTSOF(x)	(sizeof(x) / sizeof((x)[0]))

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

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}
#define _cleanup_close_	_cleanup_(closep)

/* Hand a pointer over to someone else: the cleanup of the old owner
 * then sees NULL. */
#define TAKE_PTR(p)						\
	({							\
		__typeof__(p) _took = (p);			\
		(p) = NULL;					\
		_took;						\
	})

#define TAKE_FD(fd)						\
	({							\
		int _took = (fd);				\
		(fd) = -1;					\
		_took;						\
	})

/* errno as a negative return value; never 0 */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif /* PCIERR_MACROS_H */

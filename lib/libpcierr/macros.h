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

/* One hex digit's value, or -1 (the project's one copy, as systemd's) */
static inline int unhexchar(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Free a NULL-terminated array of strings (NULL is fine); returns NULL */
static inline char **strv_free(char **l)
{
	if (!l)
		return NULL;
	for (char **i = l; *i; i++)
		free(*i);
	free(l);
	return NULL;
}

static inline void strv_freep(char ***l)
{
	strv_free(*l);
}
#define _cleanup_strv_free_	_cleanup_(strv_freep)

#endif /* PCIERR_MACROS_H */

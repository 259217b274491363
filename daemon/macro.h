/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's helpers: the project's one set of systemd-style macros
 * (lib/libpcierr/macros.h, shared with the library), plus what only the
 * daemon needs.
 */
#ifndef PCIERRD_MACRO_H
#define PCIERRD_MACRO_H

#include <dirent.h>
#include <stdio.h>

#include "../lib/libpcierr/macros.h"

#define _printf_(a, b)	__attribute__((format(printf, a, b)))

#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

DEFINE_TRIVIAL_CLEANUP_FUNC(FILE *, fclose)
#define _cleanup_fclose_	_cleanup_(fclosep)

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)
#define _cleanup_closedir_	_cleanup_(closedirp)

#endif /* PCIERRD_MACRO_H */

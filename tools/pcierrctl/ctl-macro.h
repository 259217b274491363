/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrctl's helpers: the project's systemd-style macros
 * (lib/libpcierr/macros.h) and logging to stderr.
 */
#ifndef PCIERRCTL_CTL_MACRO_H
#define PCIERRCTL_CTL_MACRO_H

#include <stdio.h>

#include "../../lib/libpcierr/macros.h"

#define _printf_(a, b)	__attribute__((format(printf, a, b)))

#define log_error(...)	(fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

#endif /* PCIERRCTL_CTL_MACRO_H */

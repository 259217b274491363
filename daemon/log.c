// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcierrd logging: journal (structured) or console (one line each).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"

#define LOG_LINE_MAX	2048
#define LOG_FIELDS_MAX	24

static enum log_target log_target = LOG_TARGET_CONSOLE;
static int log_max_level = LOG_INFO;

/* stderr is the journal's stream when JOURNAL_STREAM names its inode */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_setup(enum log_target target, int max_level)
{
	if (target == LOG_TARGET_AUTO)
		target = stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_CONSOLE;
	log_target = target;
	if (max_level >= LOG_EMERG && max_level <= LOG_DEBUG)
		log_max_level = max_level;
}

int log_parse_target(const char *s, enum log_target *ret)
{
	static const char *const names[] = {
		[LOG_TARGET_AUTO] = "auto",
		[LOG_TARGET_CONSOLE] = "console",
		[LOG_TARGET_JOURNAL] = "journal",
	};

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (s && strcmp(s, names[i]) == 0) {
			*ret = (enum log_target)i;
			return 0;
		}
	return -EINVAL;
}

int log_parse_level(const char *s, int *ret)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
	};

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (s && strcmp(s, names[i]) == 0) {
			*ret = (int)i;
			return 0;
		}
	return -EINVAL;
}

static int log_dispatch(int level, int error, const char *file, int line,
			const char *func, const char *message_id,
			const char *slot, const char *device,
			const char *const *extra, const char *fmt, va_list ap)
{
	char msg[LOG_LINE_MAX];
	int saved = errno;

	if (error < 0)
		error = -error;
	if (level > log_max_level)
		return -error;

	/* %m in fmt means the error passed, as in systemd */
	errno = error;
	vsnprintf(msg, sizeof(msg), fmt, ap);

	if (log_target == LOG_TARGET_JOURNAL) {
		char buf[LOG_FIELDS_MAX][LOG_LINE_MAX + 16];
		struct iovec iov[LOG_FIELDS_MAX];
		size_t n = 0;

#define FIELD(...) do {							\
		if (n < LOG_FIELDS_MAX) {				\
			snprintf(buf[n], sizeof(buf[n]), __VA_ARGS__);	\
			iov[n].iov_base = buf[n];			\
			iov[n].iov_len = strlen(buf[n]);		\
			n++;						\
		}							\
	} while (0)
		FIELD("MESSAGE=%s", msg);
		FIELD("PRIORITY=%d", level);
		FIELD("SYSLOG_IDENTIFIER=pcierrd");
		FIELD("CODE_FILE=%s", file);
		FIELD("CODE_LINE=%d", line);
		FIELD("CODE_FUNC=%s", func);
		if (error > 0)
			FIELD("ERRNO=%d", error);
		if (message_id)
			FIELD("MESSAGE_ID=%s", message_id);
		if (slot && *slot)
			FIELD("PCIERR_SLOT=%s", slot);
		if (device && *device)
			FIELD("PCIERR_DEVICE=%s", device);
		for (size_t i = 0; extra && extra[i] && i < 8; i++)
			FIELD("%s", extra[i]);
#undef FIELD
		if (sd_journal_sendv(iov, (int)n) >= 0)
			goto out;
		/* no journal after all: fall back to the console */
	}
	fprintf(stderr, "pcierrd: %s\n", msg);
out:
	errno = saved;
	return -error;
}

int log_internal(int level, int error, const char *file, int line,
		 const char *func, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_dispatch(level, error, file, line, func, NULL, NULL, NULL, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int log_struct_internal(int level, int error, const char *file, int line,
			const char *func, const char *message_id,
			const char *slot, const char *device,
			const char *const *extra, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = log_dispatch(level, error, file, line, func, message_id, slot, device,
			 extra, fmt, ap);
	va_end(ap);
	return r;
}

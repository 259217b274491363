/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd's logging, in the manner of systemd's: to the journal with
 * structured fields when journald is there (under systemd), else one line
 * per message on stderr (the test VM, a terminal).
 *
 *   log_info("Slot %s recovered.", addr);
 *   return log_error_errno(r, "Failed to dump PEs: %m");
 *   log_slot(LOG_NOTICE, PCIERR_MESSAGE_RECOVERED, slot, NULL,
 *            "DURATION_USEC=%llu", ...);
 *
 * The *_errno() forms set errno from r for %m and return -abs(r). The
 * MESSAGE_IDs are documented in the journal catalog (systemd/pcierr.catalog).
 */
#ifndef PCIERRD_LOG_H
#define PCIERRD_LOG_H

#include <stdarg.h>
#include <syslog.h>

#include "macro.h"

/* journal MESSAGE_IDs of the events an administrator looks for */
#define PCIERR_MESSAGE_ERROR_DETECTED	"2c54461efc9740469880915cbb0c3b1b"
#define PCIERR_MESSAGE_RECOVERED	"d1697d94ee4b45f2a2900625fa79887d"
#define PCIERR_MESSAGE_HOTPLUG_FALLBACK	"c8722ce926f6422fa459f5fda21ad0e2"
#define PCIERR_MESSAGE_DISABLED		"eb98167851494c268f59b754ddf2d4a7"
#define PCIERR_MESSAGE_RECOVERY_FAILED	"678d92110b9e4feb83bdbf52778a3a9f"
#define PCIERR_MESSAGE_STUCK		"6a3222d1dbae48f3bd49a61f737aa75f"
#define PCIERR_MESSAGE_STATE_RESET	"b51a94db2dd549aa807d7448b50e793f"

enum log_target {
	LOG_TARGET_AUTO,	/* the journal if stderr is connected to it
				 * or there is no terminal, else console */
	LOG_TARGET_CONSOLE,
	LOG_TARGET_JOURNAL,
};

void log_setup(enum log_target target, int max_level);
int log_parse_target(const char *s, enum log_target *ret);
int log_parse_level(const char *s, int *ret);

int log_internal(int level, int error, const char *file, int line,
		 const char *func, const char *fmt, ...) _printf_(6, 7);

/*
 * A message with a MESSAGE_ID and the fields PCIERR_SLOT= and (when not
 * NULL) PCIERR_DEVICE=, plus up to 8 more "KEY=VALUE" fields given as
 * extra (NULL-terminated array, may be NULL).
 */
int log_struct_internal(int level, int error, const char *file, int line,
			const char *func, const char *message_id,
			const char *slot, const char *device,
			const char *const *extra, const char *fmt, ...)
	_printf_(10, 11);

#define log_full_errno(level, error, ...) \
	log_internal((level), (error), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define log_debug(...)		log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)		log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)		log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...)	log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)		log_full_errno(LOG_ERR, 0, __VA_ARGS__)

#define log_debug_errno(e, ...)		log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...)		log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_notice_errno(e, ...)	log_full_errno(LOG_NOTICE, (e), __VA_ARGS__)
#define log_warning_errno(e, ...)	log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)		log_full_errno(LOG_ERR, (e), __VA_ARGS__)

#define log_struct(level, id, slot, device, extra, ...) \
	log_struct_internal((level), 0, __FILE__, __LINE__, __func__, (id), \
			    (slot), (device), (extra), __VA_ARGS__)

#endif /* PCIERRD_LOG_H */

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcierrd: authorising method calls through polkit, as systemd's services
 * do (issue 10 point 9; docs/dbus.md "Authorisation").
 *
 * A method that changes something starts with
 *
 *	r = bus_verify_polkit_async(message, PCIERR_POLKIT_INJECT, details, error);
 *	if (r != 0)
 *		return r;
 *
 * after it has validated its arguments (a caller is never asked for a
 * password for a call that would be refused as malformed anyway).
 * details is NULL or a NULL-terminated list of key, value strings passed
 * to polkit as the question's details: pcierrd passes "address" (the
 * normalised PCI address) and "verb" (inject, reset, enable,
 * clear-freeze-count), so a rules file can decide per device.
 *
 * and bus_verify_polkit_async() answers
 *   0    authorised: go on. The caller's effective uid is root (the bus
 *        daemon's record of the connection, never /proc), or polkit said
 *        yes for this very message;
 *   1    asked polkit: return 1 at once, without a reply. The question
 *        (org.freedesktop.PolicyKit1.Authority.CheckAuthorization) is
 *        asynchronous on the caller's sd-bus connection, so the event loop
 *        goes on meanwhile. When the answer comes, the same message is put
 *        back into the connection's read queue (sd_bus_enqueue_for_read())
 *        and the method runs again, this time getting 0 or an error;
 *   < 0  refused, with *error set:
 *        org.freedesktop.DBus.Error.AccessDenied when polkit said no, or
 *          when polkit is not installed or not running (then only root may:
 *          the fallback), or the question failed;
 *        org.freedesktop.DBus.Error.InteractiveAuthorizationRequired when
 *          polkit would ask for a password but the caller did not allow
 *          interaction (the ALLOW_INTERACTIVE_AUTHORIZATION header flag,
 *          sd_bus_set_allow_interactive_authorization(); pcierrctl sets it
 *          unless --no-ask-password). The flag is passed on to polkit as
 *          AllowUserInteraction.
 *
 * Pending questions are kept in a list of this module (one per message),
 * at most 256, at most 16 per sender: beyond, a call is refused with
 * org.freedesktop.DBus.Error.LimitsExceeded; bus_polkit_flush() drops them
 * (call it before closing the bus).
 */
#ifndef PCIERRD_BUS_POLKIT_H
#define PCIERRD_BUS_POLKIT_H

#include <systemd/sd-bus.h>

/* The actions of /usr/share/polkit-1/actions/org.pcierr1.policy */
#define PCIERR_POLKIT_INJECT		"org.pcierr1.inject"
#define PCIERR_POLKIT_RESET		"org.pcierr1.reset"
#define PCIERR_POLKIT_ENABLE		"org.pcierr1.enable"
#define PCIERR_POLKIT_CLEAR_FREEZE_COUNT "org.pcierr1.clear-freeze-count"

/* details for bus_verify_polkit_async(): key, value, ..., a compound literal */
#define POLKIT_DETAILS(...) ((const char *const[]) { __VA_ARGS__, NULL })

int bus_verify_polkit_async(sd_bus_message *call, const char *action,
			    const char *const *details, sd_bus_error *error);

/* Forget every pending question (their replies are never sent) */
void bus_polkit_flush(void);

/* CheckAuthorization calls sent (tests) */
extern unsigned int bus_polkit_asked;

#endif /* PCIERRD_BUS_POLKIT_H */

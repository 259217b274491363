#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 480
#
# Matrix: an i6300esb watchdog (i6300esb, driver "i6300ESB timer"): its
# watchdog device must come back (it is never armed during the freeze: a
# start whose stop the freeze swallowed would reset the VM). 6.1's
# i6300esb does not set the watchdog's parent, so its watchdogN is in
# /sys/devices/virtual, not below the PCI device: found by its identity
# (and pcierrd's own check sees only its driver bound). Afterwards its
# /dev/watchdogN opens and magic-closes (nowayout=0: the write of 'V'
# stops it again) (tests/vm/matrix-lib.sh).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"

# esb_watchdogs DEV GLOB: the watchdogs the i6300esb driver registered
esb_watchdogs() {
	for _w in /sys/class/watchdog/watchdog*; do
		[ "$(cat "$_w/identity" 2>/dev/null)" = "i6300ESB timer" ] && basename "$_w"
	done
	return 0
}
MX_CLASS_OF=esb_watchdogs
mx_class wdt "$RP_WDT" "$WDT" "i6300ESB timer" "watchdog/watchdog*" -
wdt=$(esb_watchdogs | head -n 1)
[ -c "/dev/$wdt" ] || fail "no /dev/$wdt"
timeout 10 sh -c "printf V > /dev/$wdt" || fail "/dev/$wdt: open, write and magic close failed"
ok "/dev/$wdt opens and magic-closes after the recovery"

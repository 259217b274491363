#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 8 (issue 25): verified recovery on a pci-serial (serial,
# 8250_pci: error_detected, slot_reset, resume) as pcierrd is installed:
# with systemd/pcierrd.conf.d/50-known-broken.conf ([Driver serial]
# Method=hotplug) a freeze goes to the hotplug path at once
# (RecoveryStarted full-hotplug, no callback called), recovered and
# verified, the ttyS back and writing (bytes written to it reach QEMU's
# chardev file before the freeze and after). The same card through its
# own callbacks (the ttyS lost, pcierrd's check escalating to hotplug) is
# driver scenario 96, a known driver defect outside make check (its resume
# may WARN: see there).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_SERIAL
DEV=$SERIAL
CLEANUP_PES=$PE
SEROUT=$PCIERR_OUT/pci-serial.out
require_normal "$PE"
bound_to "$DEV" serial || fail "$DEV is not bound to serial (driver $(driver_of "$DEV"))"

TTY0=$(tty_of "$DEV") || fail "$DEV has no ttyS"
ok "$DEV is bound to serial with $TTY0"
serial_io before

# --- the shipped list: hotplug at once ---
mkdir -p "$PD_CONFD"
cp "$PCIERR_TREE/systemd/pcierrd.conf.d/50-known-broken.conf" "$PD_CONFD/"
sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
h=$(handlers_of "$DEV")
recovery_of "$PE" "$DEV"
expect "RecoveryStarted mode (Method=hotplug)" "$rec_mode" full-hotplug
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
grep -q "Method=hotplug" "$PD_LOG" || fail "pcierrd's log does not name Method=hotplug"
has_tty || fail "RecoveryFinished recovered, but $DEV has no ttyS"
serial_io after-list
row "$DEV" serial "$h" "Method=hotplug (shipped list)" "$(ms "$fin_usec")" \
	"pcierr-before written" - "pcierr-after-list written" "ttyS back, verified"
pcierrd_stop
rm -f "$PD_CONFD/50-known-broken.conf"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 60
#
# systemd 6: "systemctl stop pcierrd": pcierrd exits 0 on SIGTERM within
# the stop timeout, the unit is inactive with Result success, the bus name
# is released, the journal has "pcierrd stopped."; then a call of
# pcierrctl starts it again by D-Bus activation (org.pcierr1.service),
# and it stops cleanly again.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"

pcierrd_active
pid=$(uprop MainPID)
cursor=$(journal_cursor)
t0=$(now_ns)
run systemctl stop "$UNIT"
expect "systemctl stop exit status" "$rc" 0
ok "stopped in $(ms_between "$t0" "$(now_ns)") ms"
uexpect ActiveState inactive
uexpect Result success
uexpect ExecMainCode 1
uexpect ExecMainStatus 0
gone "$pid" || fail "pcierrd $pid still exists"
bus_has_owner && fail "$BUS_NAME still has an owner"
ok "$BUS_NAME released"
echo "--- journal ---"
journal_since "$cursor" "$UNIT"
journal_since "$cursor" "$UNIT" | grep -q "pcierrd stopped\." || fail "no 'pcierrd stopped.' in the journal"
ok "journal: pcierrd stopped."

# D-Bus activation (org.pcierr1.service: SystemdService=pcierrd.service):
# a client's call starts pcierrd again
ctl status "$E1000E"
expect "pcierrctl status (activating pcierrd) exit status" "$rc" 0
uexpect ActiveState active
uexpect SubState running
pid2=$(uprop MainPID)
{ [ "$pid2" != "$pid" ] && [ "$pid2" -gt 0 ]; } || fail "MainPID $pid2 after the activation"
journal_since "$cursor" dbus.service | grep -q "Activating via systemd: service name='org.pcierr1'" ||
	fail "dbus-daemon did not say it activated org.pcierr1 via systemd"
ok "activated by D-Bus: pcierrd $pid2"
run systemctl stop "$UNIT"
expect "systemctl stop exit status" "$rc" 0
uexpect Result success

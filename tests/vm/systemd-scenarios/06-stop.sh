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
gone "$pid" || fail "pcierrd $pid still exists"
bus_has_owner && fail "$BUS_NAME still has an owner"
ok "$BUS_NAME released"
journal_has "$cursor" 5 "pcierrd\[$pid\]: pcierrd stopped\.$" ||
	fail "no 'pcierrd[$pid]: pcierrd stopped.' in the journal"
ok "journal: pcierrd stopped."
# (the unit's ExecMain* properties are gone with the unit, unloaded once
# inactive: systemd's own words say how it ended)
journal_has "$cursor" 5 "systemd\[1\]: pcierrd.service: Deactivated successfully\.$" ||
	fail "no 'pcierrd.service: Deactivated successfully.' (a clean exit) in the journal"
ok "journal: Deactivated successfully (exit status 0)"
echo "--- the journal since systemctl stop ---"
journal_since "$cursor"

# D-Bus activation (org.pcierr1.service: SystemdService=pcierrd.service):
# a client's call starts pcierrd again
ctl status "$E1000E"
expect "pcierrctl status (activating pcierrd) exit status" "$rc" 0
uexpect ActiveState active
uexpect SubState running
pid2=$(uprop MainPID)
{ [ "$pid2" != "$pid" ] && [ "$pid2" -gt 0 ]; } || fail "MainPID $pid2 after the activation"
journal_has "$cursor" 5 "dbus-daemon\[[0-9]+\]: \[system\] Activating via systemd: service name='org.pcierr1' unit='pcierrd.service'" ||
	fail "dbus-daemon did not say it activated org.pcierr1 via systemd"
ok "activated by D-Bus: pcierrd $pid2"
run systemctl stop "$UNIT"
expect "systemctl stop exit status" "$rc" 0
uexpect Result success

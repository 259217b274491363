#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# systemd 8: the system bus restarted under pcierrd (issue 10 point 3).
#   "systemctl restart dbus": pcierrd loses its bus connection, says so
#   and exits with a failure (exit-on-disconnect), so systemd restarts it
#   (Restart=on-failure): a new MainPID, NRestarts one more, the new
#   process owning org.pcierr1 on the new bus, the state intact. Never a
#   half-alive daemon that runs on without the bus.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"
pid0=$(uprop MainPID)
nr0=$(uprop NRestarts)
fc0=$(dev_prop "$DEV" FreezeCount)

cursor=$(journal_cursor)
run systemctl restart dbus.service
expect "systemctl restart dbus exit status" "$rc" 0

restarted() {
	_p=$(uprop MainPID)
	[ "$_p" -gt 0 ] && [ "$_p" != "$pid0" ] &&
		[ "$(uprop ActiveState)" = active ] && [ "$(uprop SubState)" = running ]
}
wait_until 60 restarted || fail "pcierrd not restarted within 60 s: $(systemctl status "$UNIT" --no-pager 2>&1)"
pid1=$(uprop MainPID)
ok "restarted: MainPID $pid0 -> $pid1"
gone "$pid0" || fail "the old pcierrd $pid0 still exists"
# (one restart, or more if the first came before the new bus was up)
nr1=$(uprop NRestarts)
[ "$nr1" -gt "$nr0" ] 2>/dev/null || fail "NRestarts $nr1, expected more than $nr0"
ok "NRestarts $nr0 -> $nr1"
journal_has "$cursor" 10 "pcierrd\[$pid0\]: Lost the connection to the system bus; exiting with a failure\.$" ||
	fail "the journal lacks pcierrd's 'Lost the connection to the system bus'"
ok "journal: the old pcierrd said it lost the bus"
journal_has "$cursor" 10 "systemd\[1\]: pcierrd.service: Main process exited, code=exited, status=1/FAILURE$" ||
	fail "the journal lacks 'Main process exited, code=exited, status=1/FAILURE'"
ok "journal: Main process exited, status=1/FAILURE"
wait_until 20 sh -c "[ -n \"\$(busctl --system status $BUS_NAME 2>/dev/null | grep '^PID=$pid1\$')\" ]" ||
	fail "org.pcierr1 is not owned by the new pcierrd $pid1"
expect "owner of $BUS_NAME" "$(bus_owner_pid)" "$pid1"
echo "--- the journal since the bus restart ---"
journal_since "$cursor" | grep -E "pcierrd|dbus" | tail -n 20
expect_prop dev "$DEV" FreezeCount "$fc0"
expect_prop slot "$PE" State normal

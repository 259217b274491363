#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# systemd 5: "systemctl kill -s KILL pcierrd".
#   systemd sees the main process killed by SIGKILL and restarts it
#   (Restart=on-failure): a new MainPID, NRestarts one more, active
#   (running) again with READY=1, the new process owning org.pcierr1; the
#   journal says so. The state is intact: the e1000e's freeze count, its
#   last error time, the slots' states and the whole history are those
#   from before the kill, and the next freeze counts on from there
#   (pcierrctl --json inject: valid JSON, recovered, the four steps).
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"
pid0=$(uprop MainPID)
nr0=$(uprop NRestarts)
fc0=$(dev_prop "$DEV" FreezeCount)
max=$(dev_prop "$DEV" MaxFreezes)
le0=$(dev_prop "$DEV" LastErrorUSec)
[ "$fc0" -ge 1 ] 2>/dev/null || info "FreezeCount is $fc0 before the kill (scenario run alone?)"
ctl_json history
[ "$rc" = 0 ] || fail "pcierrctl --json history exited $rc"
json_valid "$json" "pcierrctl --json history"
hist0=$json
echo "-- $(jget "$json" . | sed 's/^array //') history entries"
ctl history "$DEV"
htext0=$out

cursor=$(journal_cursor)
run systemctl kill -s KILL "$UNIT"
expect "systemctl kill -s KILL exit status" "$rc" 0

restarted() {
	_p=$(uprop MainPID)
	[ "$_p" -gt 0 ] && [ "$_p" != "$pid0" ] &&
		[ "$(uprop ActiveState)" = active ] && [ "$(uprop SubState)" = running ]
}
wait_until 30 restarted || fail "pcierrd not restarted within 30 s: $(systemctl status "$UNIT" --no-pager 2>&1)"
pid1=$(uprop MainPID)
ok "restarted: MainPID $pid0 -> $pid1"
gone "$pid0" || fail "the old pcierrd $pid0 still exists"
uexpect NRestarts $((nr0 + 1))
uexpect StatusText "Watching PCI slots."
wait_until 10 sh -c "[ -n \"\$(busctl --system status $BUS_NAME 2>/dev/null | grep '^PID=$pid1\$')\" ]" ||
	fail "org.pcierr1 is not owned by the new pcierrd $pid1"
expect "owner of $BUS_NAME" "$(bus_owner_pid)" "$pid1"
expect "main process" "$(readlink "/proc/$pid1/exe")" /usr/sbin/pcierrd

journal_has "$cursor" 5 "systemd\[1\]: pcierrd.service: Main process exited, code=killed, status=9/KILL$" ||
	fail "the journal lacks 'Main process exited, code=killed, status=9/KILL'"
ok "journal: Main process exited, code=killed, status=9/KILL"
journal_has "$cursor" 5 "systemd\[1\]: pcierrd.service: Scheduled restart job, restart counter is at $((nr0 + 1))\.$" ||
	fail "the journal lacks 'Scheduled restart job, restart counter is at $((nr0 + 1)).'"
ok "journal: Scheduled restart job, restart counter is at $((nr0 + 1))"
journal_has "$cursor" 5 "pcierrd\[$pid1\]: pcierrd [^ ]* started \([0-9]+ slots\)\.$" ||
	fail "no start message of the new pcierrd $pid1"
ok "journal: the new pcierrd started"
echo "--- the journal since the kill ---"
journal_since "$cursor"

# the state is intact
le_restart=$(dev_prop "$DEV" LastErrorUSec)
expect_prop dev "$DEV" FreezeCount "$fc0"
expect_prop dev "$DEV" MaxFreezes "$max"
expect_prop dev "$DEV" State normal
expect_prop slot "$PE" State normal
ctl_json history
[ "$rc" = 0 ] || fail "pcierrctl --json history exited $rc"
json_valid "$json" "pcierrctl --json history after the restart"
expect "the history after the restart (pcierrctl --json history)" "$json" "$hist0"
ctl history "$DEV"
expect "pcierrctl history $DEV after the restart" "$out" "$htext0"
ctl status "$DEV"
case "$(ctl_line "$out" "$DEV")" in
*" $fc0/$max "*) ok "pcierrctl status shows $fc0/$max after the restart" ;;
*) fail "pcierrctl status after the restart: no $fc0/$max on the line of $DEV" ;;
esac

# the next freeze counts on
ctl_json inject "$DEV"
expect "pcierrctl --json inject exit status" "$rc" 0
json_valid "$json" "pcierrctl --json inject"
jexpect "$json" Slot "$PE"
jexpect "$json" Result recovered
s=$(jget "$json" Seq)
[ "$s" -gt 0 ] 2>/dev/null || fail "seq is '$s'"
jexpect "$json" Steps "array 4"
steps=
for i in 0 1 2 3; do
	steps="$steps$(jget "$json" "Steps[$i].Step")=$(jget "$json" "Steps[$i].Result") "
done
expect "pcierrctl --json inject: steps" "$steps" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered "
jexpect "$json" Reason null
jexpect "$json" DurationUSec "$(slot_prop "$PE" LastDurationUSec)"
expect_prop dev "$DEV" FreezeCount $((fc0 + 1))
uexpect MainPID "$pid1"
uexpect NRestarts $((nr0 + 1))
nic_works "$DEV" "after the restart and a recovery"

# last (so that the rest is checked first): the time of the last freeze
# survives the restart as the freeze count does (the state store's freeze
# record holds it)
expect "LastErrorUSec right after the restart (as before the kill)" "$le_restart" "$le0"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# systemd 2: "pcierrctl inject" on the e1000e under systemd.
#   pcierrctl inject E1000E shows the detection, the steps error_detected
#   (need_reset), reset, slot_reset (recovered), resume in this order and
#   "recovered", and exits 0; the NIC works afterwards. pcierrctl status
#   shows the e1000e with 1/5 freezes (one more than before) and its slot's
#   last recovery; pcierrctl --json status is valid JSON and holds the
#   same facts, which are also those of D-Bus (FreezeCount, MaxFreezes,
#   LastResult, LastDurationUSec, the Manager's counters).
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"
fc0=$(dev_prop "$DEV" FreezeCount)
max=$(dev_prop "$DEV" MaxFreezes)
succ0=$(mgr_prop RecoveriesSucceeded)
expect "MaxFreezes (the default)" "$max" 5
nic_works "$DEV" "before the error"

cursor=$(journal_cursor)
ctl inject "$DEV"
expect "pcierrctl inject $DEV exit status" "$rc" 0
inj=$out
printf '%s\n' "$inj" | grep -q "$PE: error detected on $DEV: frozen (inject)" ||
	fail "pcierrctl inject shows no '$PE: error detected on $DEV: frozen (inject)'"
ok "inject shows the detection"
# the step lines: "SLOT:   STEP  RESULT  DURATION"
steps=$(printf '%s\n' "$inj" | sed -n "s/^.*$PE:   \([a-z_]*\) *\([a-z_]*\) .*/\1=\2/p" | tr '\n' ' ')
expect "steps shown by pcierrctl inject" "$steps" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered "
printf '%s\n' "$inj" | grep -q "$PE: recovered in " || fail "pcierrctl inject shows no '$PE: recovered in ...'"
ok "inject shows the recovery's result"

expect_prop dev "$DEV" FreezeCount $((fc0 + 1))
expect_prop slot "$PE" LastResult recovered
expect_prop mgr - RecoveriesSucceeded $((succ0 + 1))
nic_works "$DEV" "after the recovery"

# pcierrctl status (text)
ctl status
expect "pcierrctl status exit status" "$rc" 0
l=$(ctl_line "$out" "$DEV")
[ -n "$l" ] || fail "pcierrctl status has no line for $DEV"
case "$l" in
*" $((fc0 + 1))/$max "*) ok "pcierrctl status: $DEV with $((fc0 + 1))/$max freezes: $l" ;;
*) fail "pcierrctl status: the line of $DEV lacks ' $((fc0 + 1))/$max ': $l" ;;
esac
case "$l" in *e1000e*) ok "the line names the driver" ;; *) fail "the line of $DEV does not name e1000e" ;; esac
sl=$(ctl_line "$out" "$PE")
case "$sl" in *recovered*) ok "the slot line shows the last recovery: $sl" ;;
*) fail "the slot line of $PE does not show 'recovered': $sl" ;; esac
ctl status "$DEV"
expect "pcierrctl status $DEV exit status" "$rc" 0
case "$(ctl_line "$out" "$DEV")" in *" $((fc0 + 1))/$max "*) ok "pcierrctl status $DEV shows $((fc0 + 1))/$max" ;;
*) fail "pcierrctl status $DEV does not show $((fc0 + 1))/$max" ;; esac

# pcierrctl --json status: valid, and the same facts as D-Bus
ctl_json status
expect "pcierrctl --json status exit status" "$rc" 0
json_valid "$json" "pcierrctl --json status"
d="Devices[Address=$DEV]"
s="Slots[Address=$PE]"
jexpect "$json" "$d.FreezeCount" $((fc0 + 1))
jexpect "$json" "$d.MaxFreezes" "$max"
jexpect "$json" "$d.Driver" e1000e
jexpect "$json" "$d.Slot" "$PE"
jexpect "$json" "$d.State" "$(dev_prop "$DEV" State)"
jexpect "$json" "$d.Disabled" false
jexpect "$json" "$d.LastErrorUSec" "$(dev_prop "$DEV" LastErrorUSec)"
jexpect "$json" "$d.VendorId" $((0x8086))
jexpect "$json" "$d.DeviceId" $((0x10d3))
jexpect "$json" "$s.LastResult" recovered
jexpect "$json" "$s.LastDurationUSec" "$(slot_prop "$PE" LastDurationUSec)"
jexpect "$json" "$s.State" normal
# the slot's devices: those of D-Bus (object paths), in the same order
devs=$(slot_prop "$PE" Devices)
echo "  D-Bus Slot.Devices: $devs"
n=$(echo "$devs" | awk '{ print $1 }')
jexpect "$json" "$s.Devices" "array $n"
i=0
while [ "$i" -lt "$n" ]; do
	a=$(jget "$json" "$s.Devices[$i]")
	p=$(echo "$devs" | awk -v i="$i" '{ gsub(/"/, ""); print $(i + 2) }')
	expect "json $s.Devices[$i] ($a) is D-Bus's" "$(dev_path "$a")" "$p"
	i=$((i + 1))
done
case " $(jget "$json" "$s.Devices[0]") $(jget "$json" "$s.Devices[1]" 2>/dev/null) " in
*" $DEV "*) ok "the slot's devices include $DEV" ;;
*) fail "the slot's devices lack $DEV" ;;
esac
jexpect "$json" "Manager.MaxFreezes" "$max"
jexpect "$json" "Manager.KernelConnected" true
jexpect "$json" "Manager.RecoveriesSucceeded" $((succ0 + 1))
jexpect "$json" "Manager.RecoveriesStarted" "$(mgr_prop RecoveriesStarted)"
jexpect "$json" "Manager.Version" "$(mgr_prop Version)"

# with an address: that slot and its devices only
ctl_json status "$DEV"
expect "pcierrctl --json status $DEV exit status" "$rc" 0
json_valid "$json" "pcierrctl --json status $DEV"
jexpect "$json" Slots "array 1"
jexpect "$json" "Slots[0].Address" "$PE"
jexpect "$json" "$d.FreezeCount" $((fc0 + 1))

journal_has "$cursor" 5 "pcierrd\[[0-9]+\]: Slot $PE recovered in [0-9]+ ms \(callbacks\)\.$" ||
	fail "no 'Slot $PE recovered in N ms (callbacks).' of pcierrd in the journal"
ok "journal: pcierrd says the slot recovered"
echo "--- the journal since the injection ---"
journal_since "$cursor"

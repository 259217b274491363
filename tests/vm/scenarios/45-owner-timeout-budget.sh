#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 45: the shim's owner timeout without a daemon (owner_timeout_ms
# 3000 here), err.c's rules and its budget (review R2, R9).
#   A driver without resume (the test driver's pcierr_ipr profile:
#   error_detected need_reset, slot_reset recovered) on testdev B: the
#   owner timeout recovers its PE by callbacks (error_detected, reset,
#   slot_reset; no resume to call, as err.c), and does not remove it: the
#   PE keeps its id, the device stays bound to pcierr_ipr and decodes
#   memory, and the kernel log says "recovered by the shim itself" and
#   nothing of removing.
#   A card that fails again after every rescan (the mixed PE: its edu has
#   no callbacks, so each owner recovery removes and rescans the PE, and
#   the test freezes it again each time it is back), owner_budget 2: two
#   owner recoveries, then the third freeze stays frozen, the kernel log
#   saying why (owner_budget), still frozen two timeouts later.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PARAM=/sys/module/pcierr_shim/parameters/owner_timeout_ms
BUDGET=/sys/module/pcierr_shim/parameters/owner_budget
[ -w "$PARAM" ] || fail "no writable $PARAM"
[ -w "$BUDGET" ] || fail "no writable $BUDGET"
old_timeout=$(cat "$PARAM")
old_budget=$(cat "$BUDGET")
restore() {
	echo "$old_timeout" > "$PARAM"
	echo "$old_budget" > "$BUDGET"
	echo > "$SYS/$TESTDEV_B/driver_override"
	[ -e "$SYS/$TESTDEV_B/driver" ] && echo "$TESTDEV_B" > "$SYS/$TESTDEV_B/driver/unbind"
	echo "$TESTDEV_B" > /sys/bus/pci/drivers_probe
}
CLEANUP_CMD=restore
CLEANUP_PES="$RP_TESTDEV_B $MIXED_BRIDGE"
require_normal "$RP_TESTDEV_B" "$MIXED_BRIDGE"
td_defaults
pe_is_normal() { [ "$(pe_state "$1")" = normal ]; }
echo "+ echo 3000 > $PARAM; echo 0 > $BUDGET"
echo 3000 > "$PARAM"
echo 0 > "$BUDGET"

info "a driver without resume (pcierr_ipr): recovered by callbacks, not removed"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
echo "+ echo pcierr_ipr > $SYS/$DEV/driver_override; unbind; drivers_probe"
echo pcierr_ipr > "$SYS/$DEV/driver_override" || fail "cannot set driver_override of $DEV"
[ -e "$SYS/$DEV/driver" ] && echo "$DEV" > "$SYS/$DEV/driver/unbind"
echo "$DEV" > /sys/bus/pci/drivers_probe
wait_until 10 bound_to "$DEV" pcierr_ipr || fail "$DEV is bound to '$(driver_of "$DEV")', not pcierr_ipr"
ok "$DEV bound to pcierr_ipr"
td_clear "$DEV"
pe_id0=$(kv pe_id "$(pe_line "$PE")")
klines=$(dmesg | wc -l)
t0=$(now_ns)
must_nl inject "$DEV"
wait_until 60 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 60 s after the freeze"
ok "PE $PE normal again $(ms_between "$t0" "$(now_ns)") ms after the freeze (owner timeout 3000 ms)"
expect "the driver's calls" "$(td_calls "$DEV")" "error_detected(frozen)=need_reset slot_reset=recovered"
expect "PE $PE's id (a REMOVE or RESCAN changes it)" "$(kv pe_id "$(pe_line "$PE")")" "$pe_id0"
bound_to "$DEV" pcierr_ipr || fail "$DEV is bound to '$(driver_of "$DEV")', not pcierr_ipr"
[ $(($(cmdreg "$DEV") & CMD_MEM)) != 0 ] || fail "$DEV decodes no memory after the recovery"
ok "$DEV still bound to pcierr_ipr, decoding memory"
kl=$(dmesg | tail -n +"$((klines + 1))")
printf '%s\n' "$kl" | grep -q "$PE: pcierr: recovered by the shim itself" ||
	fail "no '$PE: pcierr: recovered by the shim itself' in the kernel log"
printf '%s\n' "$kl" | grep -q "removing and rescanning" &&
	fail "the shim removed and rescanned a PE whose driver recovered"
ok "the kernel log says the shim recovered it, and nothing of removing"

info "a card that fails again after every rescan: owner_budget 2"
PE=$MIXED_BRIDGE
DEV=$MIXED_EDU
echo "+ echo 2 > $BUDGET"
echo 2 > "$BUDGET"
klines=$(dmesg | wc -l)
for n in 1 2; do
	id=$(kv pe_id "$(pe_line "$PE")")
	must_nl inject "$DEV"
	wait_until 60 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 60 s after freeze $n"
	wait_until 10 bound_to "$DEV" pcierr_test_unaware || fail "$DEV did not come back bound"
	[ "$(kv pe_id "$(pe_line "$PE")")" != "$id" ] || fail "PE $PE kept its id: not removed and rescanned"
	ok "freeze $n: PE $PE removed, rescanned and normal again (owner recovery $n of 2)"
done
must_nl inject "$DEV"
spent() { dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: nobody recovered the PE in 3000 ms, but the shim already recovered it 2 times within an hour (owner_budget)"; }
wait_until 30 spent || fail "no 'owner_budget' message for $PE in the kernel log"
ok "the kernel log says the budget is used up"
expect "PE $PE's state when the budget is used up" "$(pe_state "$PE")" frozen
sleep 7
expect "PE $PE's state two owner timeouts later" "$(pe_state "$PE")" frozen
n=$(dmesg | tail -n +"$((klines + 1))" | grep -c "$PE: pcierr: rescanned by the shim itself")
expect "owner recoveries of $PE (rescans)" "$n" 2

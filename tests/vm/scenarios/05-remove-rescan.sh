#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 5: hotplug on a pci-testdev PE.
#   remove -> the device is gone; rescan -> back, pcierr_test bound
#   disable -> perm_failure to the driver, gone, and kept away across a
#   kernel-wide rescan (echo 1 > /sys/bus/pci/rescan); enable -> back, bound
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
bound_to "$DEV" pcierr_test || fail "$DEV is not bound to pcierr_test at the start"
hot0=$(nl_stat hotplugs)

info "remove, rescan"
id0=$(kv pe_id "$(pe_line "$PE")")
op remove "$PE"
# ABI v2: the PE changed, so did its id; OP_DONE and GET_PE say the new one
id1=$(kv pe_id "$op")
[ -n "$id1" ] && [ "$id1" != "$id0" ] || fail "pe_id after remove is '$id1', before '$id0'"
expect "pe_id in the dump after remove" "$(kv pe_id "$(pe_line "$PE")")" "$id1"
ok "remove changed the PE id ($id0 -> $id1)"
# an old request (the id from before) is refused and changes nothing
pnl rescan "$PE" --pe-id "$id0"
[ "$rc" = 1 ] || fail "rescan with the old PE id exited $rc, expected 1"
printf '%s\n' "$out" | grep -q 'ESTALE' || fail "rescan with the old PE id: no ESTALE"
expect "PE state after the stale rescan" "$(pe_state "$PE")" removed
ok "the stale rescan got ESTALE and did nothing"
# the last operation's outcome is in GET_PE (a lost OP_DONE recovered, D18)
expect "last_op of $PE" "$(kv last_op "$(pe_line "$PE")")" "$(kv op_id "$op"):remove:0"
expect "PE state after remove" "$(kv pe_state "$op")" removed
present "$DEV" && fail "$DEV is still in $SYS after remove"
ok "$DEV is gone from $SYS"
must_nl pe "$PE"
printf '%s\n' "$out" | grep -q " dev=$DEV " && fail "pe $PE still lists $DEV after remove"
ok "pe $PE no longer lists $DEV"
op rescan "$PE"
wait_until 10 bound_to "$DEV" pcierr_test || fail "$DEV did not come back bound to pcierr_test (driver $(driver_of "$DEV"))"
ok "$DEV is back, bound to pcierr_test"
expect "PE state after rescan" "$(pe_state "$PE")" normal
line=$(dev_line "$DEV")
expect "driver in the dump" "$(kv driver "$line")" pcierr_test

info "disable, a kernel rescan, enable"
klines=$(dmesg | wc -l)
op disable "$PE"
expect "PE state after disable" "$(kv pe_state "$op")" disabled
present "$DEV" && fail "$DEV is still in $SYS after disable"
ok "$DEV is gone"
dmesg | tail -n +"$((klines + 1))" | grep -q "pcierr_test $DEV: error_detected(perm_failure)" ||
	fail "the driver was not told perm_failure (no 'error_detected(perm_failure)' in the kernel log)"
ok "the driver got error_detected(perm_failure)"
flags=$(pe_flags "$PE")
[ $((flags & 4)) != 0 ] || fail "pe_flags $flags lacks DISABLED (0x4)"
ok "pe_flags $flags has DISABLED"

echo "+ echo 1 > /sys/bus/pci/rescan"
echo 1 > /sys/bus/pci/rescan
# it may reappear for a moment, but must never bind and must go away again
i=0
while [ $i -lt 30 ]; do
	bound_to "$DEV" - || fail "$DEV got bound to $(driver_of "$DEV") while disabled"
	i=$((i + 1))
	sleep 0.1
done
wait_until 10 absent "$DEV" || fail "$DEV is present after the rescan while disabled"
ok "$DEV stayed away across a kernel rescan"
expect "PE state after the kernel rescan" "$(pe_state "$PE")" disabled

op enable "$PE"
wait_until 10 bound_to "$DEV" pcierr_test || fail "$DEV did not come back bound after enable (driver $(driver_of "$DEV"))"
ok "$DEV is back, bound to pcierr_test"
expect "PE state after enable" "$(pe_state "$PE")" normal
flags=$(pe_flags "$PE")
[ $((flags & 4)) = 0 ] || fail "pe_flags $flags still has DISABLED"
hot1=$(nl_stat hotplugs)
[ "$hot1" -ge $((hot0 + 4)) ] || fail "hotplugs went from $hot0 to $hot1, expected +4"
ok "hotplugs counted ($hot0 -> $hot1)"

# the device works through the normal path again
td_clear "$DEV"
must_nl inject "$DEV"
report_expect "$PE" error_detected need_reset --state frozen
op reset "$PE"
report_expect "$PE" slot_reset recovered
op report "$PE" resume
expect_calls "$DEV" "error_detected(frozen)=need_reset slot_reset=recovered resume"

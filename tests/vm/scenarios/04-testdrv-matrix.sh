#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 200
#
# Scenario 4: the recovery paths through the test driver (pcierr_test on
# QEMU pci-testdev, tests/vm/testdrv).
#   a. every driver says can_recover -> enable-io -> mmio_enabled
#      (recovered) -> resume, no reset; the call log shows exactly that
#   b. a disconnect answer makes the merged result disconnect; a driver
#      without slot_reset answers none
#   c. a mixed PE (pcierr_test + the handler-less pcierr_test_unaware):
#      none/no-handler answers do not change the merge
#   d. one PE's error_detected sleeps 30 s while another PE does a whole
#      recovery in under 1 s of guest time; a second operation on the
#      sleeping PE is refused with EBUSY
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
PE_A=$RP_TESTDEV_A
PE_B=$RP_TESTDEV_B
PE_M=$MIXED_BRIDGE
CLEANUP_PES="$PE_A $PE_B $PE_M"
require_normal "$PE_A" "$PE_B" "$PE_M"
td_defaults
td_clear "$A"
td_clear "$B"
td_clear "$MIXED_TESTDEV"

info "a. can_recover -> enable-io -> mmio_enabled -> resume"
td_set "$A" result_error_detected can_recover
td_set "$A" result_mmio_enabled recovered
resets0=$(nl_stat resets)
must_nl inject "$A"
report_expect "$PE_A" error_detected can_recover --state frozen
expect "A's answer" "$(dev_result "$A")" can_recover
op enable-io "$PE_A"
expect "PE state after enable-io" "$(kv pe_state "$op")" mmio_enabled
c=$(cmdreg "$A")
[ $((c & CMD_MEM)) != 0 ] || fail "memory decode off after enable-io (command $(printf 0x%04x "$c"))"
[ $((c & CMD_MASTER)) = 0 ] || fail "bus mastering on after enable-io (command $(printf 0x%04x "$c"))"
ok "after enable-io: memory decode on, bus mastering off"
report_expect "$PE_A" mmio_enabled recovered
op report "$PE_A" resume
expect "PE state after resume" "$(pe_state "$PE_A")" normal
expect_calls "$A" "error_detected(frozen)=can_recover mmio_enabled=recovered resume"
expect "resets (none on this path)" "$(nl_stat resets)" "$resets0"
td_clear "$A"

info "b. disconnect wins; a missing slot_reset answers none"
td_set "$A" result_error_detected disconnect
must_nl inject "$A"
report_expect "$PE_A" error_detected disconnect --state frozen
expect "A's answer" "$(dev_result "$A")" disconnect
op reset "$PE_A"
td_handlers error_detected,resume
report_expect "$PE_A" slot_reset none
expect "A's answer without slot_reset" "$(dev_result "$A")" none
op report "$PE_A" resume
td_handlers all
expect "PE state after resume" "$(pe_state "$PE_A")" normal
expect_calls "$A" "error_detected(frozen)=disconnect resume"
td_set "$A" config_reset 1

info "c. a mixed PE: the unaware driver does not change the merge"
must_nl inject "$MIXED_TESTDEV"
report_expect "$PE_M" error_detected need_reset --state frozen
expect "MIXED_TESTDEV's answer" "$(dev_result "$MIXED_TESTDEV")" need_reset
expect "MIXED_EDU's answer (no err_handler)" "$(dev_result "$MIXED_EDU")" none
op reset "$PE_M"
report_expect "$PE_M" slot_reset recovered
op report "$PE_M" resume
expect "mixed PE state" "$(pe_state "$PE_M")" normal
expect_calls "$MIXED_TESTDEV" "error_detected(frozen)=need_reset slot_reset=recovered resume"
td_set "$MIXED_TESTDEV" result_error_detected disconnect
must_nl inject "$MIXED_EDU"
report_expect "$PE_M" error_detected disconnect --state frozen
op reset "$PE_M"
report_expect "$PE_M" slot_reset recovered
op report "$PE_M" resume
td_set "$MIXED_TESTDEV" config_reset 1

info "d. a 30 s error_detected on A does not hold up B"
td_clear "$A"
td_clear "$B"
# 30 s: B's four CLI steps took up to 17 s of guest time on a loaded
# host (TCG); what is tested is that B does not wait for A, not speed
td_set "$A" delay_error_detected 30000
listen_start "$TMP/ops" --timeout 90
must_nl inject "$A"
must_nl inject "$B"
tA=$(now_ns)
must_nl report "$PE_A" error_detected --state frozen --no-wait
opA=$(kv op_id "$(line_with op_id= "$out")")
[ -n "$opA" ] || fail "report --no-wait printed no op_id"
wait_until 5 grep -q error_detected "$SYS/$A/running" ||
	fail "A's error_detected is not running"
ok "A's error_detected is running (sleeping 30 s)"

# one operation per PE: A is busy
pnl reset "$PE_A"
[ "$rc" = 1 ] || fail "a second operation on the busy PE exited $rc, expected 1"
printf '%s\n' "$out" | grep -q 'Device or resource busy' ||
	fail "a second operation on the busy PE did not fail with EBUSY"
ok "a second operation on the busy PE fails with EBUSY"

tB=$(now_ns)
durB=0
for step in "report $PE_B error_detected --state frozen" "reset $PE_B" \
	    "report $PE_B slot_reset" "report $PE_B resume"; do
	# shellcheck disable=SC2086
	op $step
	d=$(kv duration_ns "$op")
	durB=$((durB + d))
done
tB2=$(now_ns)
wallB=$(ms_between "$tB" "$tB2")
info "B's recovery: operations took $((durB / 1000000)) ms in the kernel, $wallB ms of guest time with the CLI"
[ "$durB" -lt 1000000000 ] || fail "B's recovery took $((durB / 1000000)) ms of operation time, expected < 1 s"
ok "B's whole recovery took $((durB / 1000000)) ms (< 1 s) of operation time"
expect "PE B state" "$(pe_state "$PE_B")" normal
expect_calls "$B" "error_detected(frozen)=need_reset slot_reset=recovered resume"
grep -q error_detected "$SYS/$A/running" ||
	fail "A's error_detected finished before B's recovery did ($(ms_between "$tA" "$(now_ns)") ms)"
ok "A's error_detected still running after B recovered ($(ms_between "$tA" "$(now_ns)") ms in)"

# now wait for A
wait_until 40 grep -q "^op_done op_id=$opA " "$TMP/ops" || {
	sed 's/^/  | /' "$TMP/ops"
	fail "no op_done for A's report (op_id=$opA) within 40 s"
}
doneA=$(grep -m 1 "^op_done op_id=$opA " "$TMP/ops")
echo "  | $doneA"
expect "A's report result" "$(kv result "$doneA")" need_reset
expect "A's report errno" "$(kv errno "$doneA")" 0
dA=$(kv duration_ns "$doneA")
[ "$dA" -ge 29900000000 ] || fail "A's report took $dA ns, expected >= 30 s"
ok "A's report took $((dA / 1000000)) ms"
kill "$LPID" 2>/dev/null
td_set "$A" delay_error_detected 0
op reset "$PE_A"
report_expect "$PE_A" slot_reset recovered
op report "$PE_A" resume
expect "PE A state" "$(pe_state "$PE_A")" normal
expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"

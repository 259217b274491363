#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 15: slots recover independently under pcierrd.
#   Testdevs A and B frozen together (two Manager.Inject), A's driver
#   sleeping 10 s in error_detected: B's RecoveryFinished (recovered)
#   comes first, with a duration under 1 s; A's comes after, recovered,
#   after >= 10 s.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
PE_A=$RP_TESTDEV_A
PE_B=$RP_TESTDEV_B
CLEANUP_PES="$PE_A $PE_B"
require_normal "$PE_A" "$PE_B"
td_defaults
td_clear "$A"
td_clear "$B"
td_set "$A" delay_error_detected 10000

sig_start
pcierrd_start
bus_objects "$PE_A" "$A"
bus_objects "$PE_B" "$B"
sig_mark
t0=$(now_ns)
must_call Inject ssu "$A" frozen 0
must_call Inject ssu "$B" frozen 0
wait_until 10 grep -q error_detected "$SYS/$A/running" || fail "A's error_detected is not running"
ok "A's error_detected is running (sleeping 10 s)"

finish_of "$PE_B" 30
tB=$(ms_between "$t0" "$(now_ns)")
echo "  B: $fin_result in $fin_usec us; seen $tB ms after the injections; steps: $(steps_since "$PE_B")"
expect "B's RecoveryFinished" "$fin_result" recovered
[ "$fin_usec" -lt 1000000 ] || fail "B's recovery took $fin_usec us, expected < 1 s"
ok "B recovered in $fin_usec us (< 1 s)"
# by the order pcierrd sent its signals, not by how fast this shell looks
# (a loaded TCG guest may take seconds between two checks): B's
# RecoveryFinished comes before A's error_detected step is reported done
b_line=$((SIG_FROM - 1))
SIG_FROM=$SIG_MARK
a_ed=$(sig_find RecoveryStep "\"$PE_A\"" '"error_detected"')
a_fin=$(sig_find RecoveryFinished "\"$PE_A\"")
SIG_FROM=$((b_line + 1))
[ -z "$a_fin" ] || [ "$a_fin" -gt "$b_line" ] || fail "A's RecoveryFinished came before B's"
[ -z "$a_ed" ] || [ "$a_ed" -gt "$b_line" ] ||
	fail "A's error_detected finished before B's recovery did"
ok "A was still in error_detected when B had recovered (signal order)"
expect_calls "$B" "error_detected(frozen)=need_reset slot_reset=recovered resume"

SIG_FROM=$SIG_MARK
finish_of "$PE_A" 30
tA=$(ms_between "$t0" "$(now_ns)")
echo "  A: $fin_result in $fin_usec us; seen $tA ms after the injections; steps: $(steps_since "$PE_A")"
expect "A's RecoveryFinished" "$fin_result" recovered
[ "$fin_usec" -ge 10000000 ] || fail "A's recovery took $fin_usec us, expected >= 10 s"
ok "A recovered in $fin_usec us"
order=$(sig_all RecoveryFinished | sed 's/^RecoveryFinished(\([^,]*\),.*/\1/' | tr '\n' ' ')
expect "order of RecoveryFinished" "$order" "$PE_B $PE_A "
expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect "shim: PE A" "$(pe_state "$PE_A")" normal
expect "shim: PE B" "$(pe_state "$PE_B")" normal
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 24: a driver callback that never returns (issue 11 point 6).
#   Testdev A's error_detected hangs (test driver: delay_error_detected
#   hang). pcierrd (StepTimeoutSec=3) recovers A: after the step timeout
#   the slot is reported Stuck (property, log); meanwhile testdev B is
#   injected and recovers completely, and Manager properties answer
#   (busctl, each answered within 5 s; the latency is printed). Then the
#   callback is released (the test driver's release knob): A's recovery
#   goes on and finishes recovered, Stuck is false again, the PE normal.
#   (The same with rmmod of the test driver as the release is scenario 28,
#   which fails today: docs/reliability.md.)
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
PA=$RP_TESTDEV_A
PB=$RP_TESTDEV_B
CLEANUP_PES="$PA $PB"
require_normal "$PA" "$PB"
td_defaults
td_clear "$A"
td_clear "$B"
td_set "$A" delay_error_detected hang
expect "delay_error_detected reads" "$(cat "$SYS/$A/delay_error_detected")" hang

pd_conf "[Policy]
StepTimeoutSec=3"
sig_start
pcierrd_start
bus_objects "$PA" "$A"
bus_objects "$PB" "$B"
sig_mark
t0=$(now_ns)
must_call Inject ssu "$A" frozen 0
wait_until 20 grep -q error_detected "$SYS/$A/running" ||
	fail "A's error_detected is not running"
ok "A's error_detected is running and hangs"
wait_prop 30 slot "$PA" Stuck true
ok "slot $PA Stuck after $(ms_between "$t0" "$(now_ns)") ms (StepTimeoutSec=3)"
grep -q "stuck" "$PD_LOG" || fail "pcierrd's log does not say the slot is stuck"
ok "pcierrd's log says so: $(grep -m 1 -i 'stuck' "$PD_LOG")"

info "the other PE recovers meanwhile"
must_call Inject ssu "$B" frozen 0
finish_of "$PB" 60
expect "B's recovery" "$fin_result" recovered
expect_calls "$B" "error_detected(frozen)=need_reset slot_reset=recovered resume"
# responsive: every read answered within 5 s (a blocked event loop would
# not answer at all); the latency, busctl's start included, is a figure
for p in Version KernelConnected Resyncs; do
	t1=$(now_ns)
	BUS_TIMEOUT=5 mgr_prop "$p" > /dev/null || fail "Manager.$p not answered within 5 s"
	echo "  Manager.$p answered in $(ms_between "$t1" "$(now_ns)") ms (busctl's start included)"
done
ok "pcierrd answers while A is stuck"
expect "A is still running" "$(cat "$SYS/$A/running")" error_detected
expect_prop slot "$PA" Stuck true

info "the callback is released"
echo "+ echo 1 > $SYS/$A/release"
echo 1 > "$SYS/$A/release"
finish_of "$PA" 90
echo "  A: $fin_result; steps: $(steps_since "$PA")"
expect "A's recovery after the release" "$fin_result" recovered
expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"
wait_prop 10 slot "$PA" Stuck false
expect_prop slot "$PA" Step idle
expect "shim: A's PE" "$(pe_state "$PA")" normal
pcierrd_stop

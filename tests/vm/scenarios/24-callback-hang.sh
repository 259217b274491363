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
#   (Scenario 28 is the same with rmmod of the test driver as the
#   release: RELEASE_BY=rmmod.)
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
PA=$RP_TESTDEV_A
PB=$RP_TESTDEV_B
CLEANUP_PES="$PA $PB"
TD_KO=$PCIERR_TREE/tests/vm/testdrv/pcierr_testdrv.ko
if [ "${RELEASE_BY:-knob}" = rmmod ]; then
	# the test driver must be back for the next scenarios
	CLEANUP_CMD='grep -q "^pcierr_testdrv " /proc/modules || insmod "$TD_KO"'
	[ -f "$TD_KO" ] || fail "no $TD_KO"
fi
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

if [ "${RELEASE_BY:-knob}" = rmmod ]; then
	info "rmmod of the test driver"
	t1=$(now_ns)
	run timeout 60 rmmod pcierr_testdrv
	[ "$rc" = 0 ] || fail "rmmod pcierr_testdrv exited $rc"
	ok "rmmod took $(ms_between "$t1" "$(now_ns)") ms"
	bound_to "$A" - || fail "$A still has driver $(driver_of "$A")"
else
	info "the callback is released"
	echo "+ echo 1 > $SYS/$A/release"
	echo 1 > "$SYS/$A/release"
fi
finish_of "$PA" 90
echo "  A: $fin_result; steps: $(steps_since "$PA")"
expect "A's recovery after the release (${RELEASE_BY:-knob})" "$fin_result" recovered
[ "${RELEASE_BY:-knob}" = rmmod ] ||
	expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"
wait_prop 10 slot "$PA" Stuck false
expect_prop slot "$PA" Step idle
expect "shim: A's PE" "$(pe_state "$PA")" normal
if [ "${RELEASE_BY:-knob}" = rmmod ]; then
	dmesg | grep -q "$A: error_detected released" ||
		fail "the kernel log lacks 'error_detected released'"
	ok "the unload released the callback"
	run insmod "$TD_KO"
	[ "$rc" = 0 ] || fail "insmod $TD_KO failed"
	wait_until 10 bound_to "$A" pcierr_test || fail "$A not bound again"
	wait_until 10 bound_to "$B" pcierr_test || fail "$B not bound again"
	ok "the test driver is back, both cards bound"
fi
pcierrd_stop

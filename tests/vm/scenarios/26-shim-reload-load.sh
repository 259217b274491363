#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 26: rmmod and insmod of the shim under load (issue 11 point 8).
#   pcierrd runs; three PEs are recovering at once (testdev A's
#   error_detected and testdev B's slot_reset hang in the test driver, the
#   edu has no err_handler: the hotplug path), when the shim is unloaded
#   (no storm here: 2 000 reports folded into A's recovery count as
#   freezes, and MaxFreezes then disables A, by policy): rmmod waits
#   for the operations in flight (checked: still running 2 s later), the
#   callbacks are released, rmmod completes; the shim is loaded again. pcierrd stays the same
#   process, says it lost the kernel (KernelConnected false, its log),
#   reconnects (KernelConnected true), resyncs (Resyncs goes up); every
#   slot ends idle, every PE normal in the new shim, the devices bound;
#   every freeze it had counted is still counted (FreezeCount of A, B and
#   the edu at least one more than before). Then a new injection on each
#   testdev recovers normally. No oops (the runner's scan).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
E=$EDU
PA=$RP_TESTDEV_A
PB=$RP_TESTDEV_B
PE_E=$RP_EDU
SHIM=$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko
CLEANUP_PES="$PA $PB $PE_E"
CLEANUP_CMD='grep -q "^pcierr_shim " /proc/modules || insmod "$SHIM"'
[ -f "$SHIM" ] || fail "no $SHIM"
require_normal "$PA" "$PB" "$PE_E"
td_defaults
td_clear "$A"
td_clear "$B"

sig_start
pcierrd_start
pid=$PD_PID
bus_objects "$PA" "$A"
bus_objects "$PB" "$B"
bus_objects "$PE_E" "$E"
expect_prop mgr - KernelConnected true
fa=$(dev_prop "$A" FreezeCount)
fb=$(dev_prop "$B" FreezeCount)
fe=$(dev_prop "$E" FreezeCount)
rs0=$(mgr_prop Resyncs)
echo "  FreezeCount before: A $fa, B $fb, edu $fe; Resyncs $rs0"

td_set "$A" delay_error_detected hang
td_set "$B" delay_slot_reset hang
sig_mark
must_call Inject ssu "$A" frozen 0
must_call Inject ssu "$B" frozen 0
must_call Inject ssu "$E" frozen 0
wait_until 30 grep -q error_detected "$SYS/$A/running" || fail "A's error_detected is not running"
wait_until 30 grep -q slot_reset "$SYS/$B/running" || fail "B's slot_reset is not running"
ok "recoveries in flight (A in error_detected, B in slot_reset, both held; the edu's)"

t0=$(now_ns)
echo "+ rmmod pcierr_shim &"
timeout 120 rmmod pcierr_shim > "$TMP/rmmod" 2>&1 &
RMPID=$!
BG_PIDS="$BG_PIDS $RMPID"
sleep 2
gone "$RMPID" && { wait "$RMPID"; fail "rmmod ended ($?) with two callbacks held: $(cat "$TMP/rmmod")"; }
ok "rmmod waits for the operations in flight"
# (no more hangs: a callback called again must return)
td_set "$A" delay_error_detected 0
td_set "$B" delay_slot_reset 0
echo "+ echo 1 > $TD_DRIVER/release_all"
echo 1 > "$TD_DRIVER/release_all"
wait_until 60 gone "$RMPID" || fail "rmmod still runs 60 s after the callbacks were released"
wait "$RMPID"
rc=$?
[ "$rc" = 0 ] || fail "rmmod pcierr_shim exited $rc: $(cat "$TMP/rmmod")"
ok "rmmod took $(ms_between "$t0" "$(now_ns)") ms"
wait_prop 20 mgr - KernelConnected false
pcierrd_running || fail "pcierrd died when the shim went"
sleep 1
run insmod "$SHIM"
[ "$rc" = 0 ] || fail "insmod $SHIM failed"
wait_prop 30 mgr - KernelConnected true
[ "$PD_PID" = "$pid" ] && pcierrd_running || fail "pcierrd is not the same process"
ok "pcierrd (pid $pid) reconnected"
end=$(( $(date +%s) + 30 ))
while rs=$(mgr_prop Resyncs) && [ "${rs:-0}" -le "${rs0:-0}" ]; do
	[ "$(date +%s)" -lt "$end" ] || fail "Resyncs still $rs after the reload"
	sleep 0.5
done
ok "Resyncs $rs0 -> $rs"

for s in "$PA" "$PB" "$PE_E"; do
	wait_prop 90 slot "$s" Step idle
	echo "  $s: LastResult $(slot_prop "$s" LastResult)"
done
td_defaults
for s in "$PA" "$PB" "$PE_E"; do
	wait_until 30 sh -c "timeout 5 $NL pe $s 2>/dev/null | head -n 1 | grep -q 'pe_state=normal'" ||
		fail "PE $s is '$(pe_state "$s")' in the new shim, not normal"
done
ok "the three PEs are normal in the new shim"
wait_until 20 bound_to "$A" pcierr_test || fail "A lost its driver"
wait_until 20 bound_to "$B" pcierr_test || fail "B lost its driver"
wait_until 20 bound_to "$E" pcierr_test_unaware || fail "the edu lost its driver"
for d in A B E; do
	eval "addr=\$$d"
	unset "_pathcache_GetDevice_$(printf '%s' "$addr" | tr -c 'A-Za-z0-9' '_')"
	wait_until 10 dev_path "$addr" || fail "no Device object for $addr"
done
ga=$(dev_prop "$A" FreezeCount)
gb=$(dev_prop "$B" FreezeCount)
ge=$(dev_prop "$E" FreezeCount)
echo "  FreezeCount after: A $ga (was $fa), B $gb (was $fb), edu $ge (was $fe)"
[ "$ga" -ge $((fa + 1)) ] && [ "$gb" -ge $((fb + 1)) ] && [ "$ge" -ge $((fe + 1)) ] ||
	fail "a freeze pcierrd had counted was lost"
[ "$gb" = $((fb + 1)) ] && [ "$ge" = $((fe + 1)) ] || fail "B or the edu counted twice"
[ "$ga" = $((fa + 1)) ] || fail "A counted twice"
ok "every counted freeze kept, none twice"

info "the new shim recovers"
for d in "$A" "$B"; do
	td_clear "$d"
	sig_mark
	must_call Inject ssu "$d" frozen 0
	case $d in "$A") s=$PA ;; *) s=$PB ;; esac
	finish_of "$s" 60
	expect "recovery of $d after the reload" "$fin_result" recovered
	expect_calls "$d" "error_detected(frozen)=need_reset slot_reset=recovered resume"
done
grep -i -m 3 "shim\|kernel" "$PD_LOG" | sed 's/^/  log: /'
pcierrd_stop

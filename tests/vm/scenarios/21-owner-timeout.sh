#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 21: without a daemon a freeze is not forever (module parameter
# owner_timeout_ms, set to 4000 here).
#   pcierrd is killed (SIGKILL) in the middle of a recovery of testdev A
#   and not restarted: nobody listens to the events any more and nobody
#   acts. Within the timeout the shim recovers the PE itself as AER would:
#   error_detected, reset, slot_reset, resume; the driver's call log ends
#   in resume, the PE and the device are normal, decode is back, and the
#   kernel log says so ("recovered by the shim itself").
#   No daemon at all, and a driver without recovery callbacks (edu): the
#   shim says nobody listens when it freezes; at the timeout it removes
#   and rescans the PE; the edu comes back bound, the PE normal.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
PARAM=/sys/module/pcierr_shim/parameters/owner_timeout_ms
[ -w "$PARAM" ] || fail "no writable $PARAM"
old_timeout=$(cat "$PARAM")
CLEANUP_CMD="echo $old_timeout > $PARAM"
CLEANUP_PES="$PE $RP_EDU"
require_normal "$PE" "$RP_EDU"
td_defaults
td_clear "$DEV"
echo "+ echo 4000 > $PARAM"
echo 4000 > "$PARAM"

pe_is_normal() { [ "$(pe_state "$1")" = normal ]; }

info "pcierrd killed during a recovery, not restarted"
td_set "$DEV" delay_slot_reset 2000
sig_start
pcierrd_start
sig_mark
must_call Inject ssu "$DEV" frozen 0
must_signal 30 RecoveryStep "\"$PE\"" '"reset"'
pcierrd_kill9
t0=$(now_ns)
klines=$(dmesg | wc -l)
echo "  the driver's call log at the kill: $(td_calls "$DEV")"
wait_until 40 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 40 s after the daemon died"
ok "PE $PE normal again $(ms_between "$t0" "$(now_ns)") ms after the kill (owner timeout 4000 ms)"
calls=$(td_calls "$DEV")
echo "  call log: $calls"
case "$calls" in
"error_detected(frozen)=need_reset"*"slot_reset=recovered resume") ok "the driver's recovery ended in slot_reset, resume" ;;
*) fail "unexpected call log: $calls" ;;
esac
expect "$DEV's channel state" "$(dev_state "$DEV")" normal
[ $(($(cmdreg "$DEV") & CMD_MEM)) != 0 ] || fail "$DEV decodes no memory after the recovery"
ok "$DEV decodes memory again"
bound_to "$DEV" pcierr_test || fail "$DEV lost its driver"
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: recovered by the shim itself" ||
	fail "no '$PE: pcierr: recovered by the shim itself' in the kernel log"
ok "the kernel log says the shim recovered it"

info "no daemon, a driver without callbacks: removed and rescanned"
bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound to pcierr_test_unaware"
klines=$(dmesg | wc -l)
t0=$(now_ns)
must_nl inject "$EDU"
dmesg | tail -n +"$((klines + 1))" | grep -q "$RP_EDU: pcierr: nobody listens to pcierr events" ||
	fail "the shim did not say that nobody listens"
ok "the shim says nobody listens"
wait_until 40 pe_is_normal "$RP_EDU" || fail "PE $RP_EDU is '$(pe_state "$RP_EDU")' 40 s after the freeze"
wait_until 10 bound_to "$EDU" pcierr_test_unaware || fail "$EDU did not come back bound"
ok "PE $RP_EDU normal, $EDU bound again $(ms_between "$t0" "$(now_ns)") ms after the freeze"
expect "$EDU's channel state" "$(dev_state "$EDU")" normal
dmesg | tail -n +"$((klines + 1))" | grep -q "$RP_EDU: pcierr: drivers cannot recover: removing and rescanning the PE" ||
	fail "no 'removing and rescanning' for $RP_EDU in the kernel log"
ok "the kernel log says why it was removed and rescanned"

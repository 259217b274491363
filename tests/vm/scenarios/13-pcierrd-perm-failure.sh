#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 13: perm_failure and its time_unavail (MaxWaitSec 15) on a
# pci-testdev (pcierr_test), so that the e1000e is not disturbed.
#   Manager.Inject perm_failure, unavailable 0 ms -> permanent failure:
#   RecoveryFinished disabled, PermanentlyDisabled, the driver told
#   error_detected(perm_failure), the device gone; Enable brings it back.
#   The same with 20000 ms (above 15 s). With 3000 ms pcierrd waits the
#   3 s and recovers the slot: RecoveryFinished recovered after >= 3 s,
#   error_detected first, then the wait (as EEH: review U5), the
#   driver's slot_reset and resume called.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
bound_to "$DEV" pcierr_test || fail "$DEV is not bound to pcierr_test at the start"

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
expect_prop mgr - MaxWaitUSec 15000000

# perm_disables MS: inject perm_failure with MS, expect the disable, Enable
perm_disables() {
	info "perm_failure, unavailable $1 ms: a permanent failure"
	klines=$(dmesg | wc -l)
	sig_mark
	must_call Inject ssu "$DEV" perm_failure "$1"
	must_signal 30 ErrorDetected "\"$PE\""
	expect "ErrorDetected state" "$(sig_arg "$sig" 3)" perm_failure
	expect "ErrorDetected unavailable_ms" "$(sig_arg "$sig" 4)" "$1"
	finish_of "$PE" 60
	expect "RecoveryFinished ($1 ms)" "$fin_result" disabled
	must_signal 10 PermanentlyDisabled "\"$PE\""
	echo "  reason: $(sig_arg "$sig" 3); steps: $(steps_since "$PE")"
	expect "PermanentlyDisabled device" "$(sig_arg "$sig" 2)" "$DEV"
	wait_until 10 absent "$DEV" || fail "$DEV still present after the permanent failure"
	ok "$DEV is gone"
	dmesg | tail -n +"$((klines + 1))" | grep -q "pcierr_test $DEV: error_detected(perm_failure)" ||
		fail "the driver was not told perm_failure (no 'error_detected(perm_failure)' in the kernel log)"
	ok "the driver got error_detected(perm_failure)"
	expect_prop slot "$PE" Disabled true
	expect "shim: PE state" "$(pe_state "$PE")" disabled
	must_call Enable s "$PE"
	wait_until 20 bound_to "$DEV" pcierr_test ||
		fail "$DEV did not come back bound after Enable (driver $(driver_of "$DEV"))"
	ok "Enable: $DEV back, bound to pcierr_test"
	wait_prop 10 slot "$PE" Disabled false
	wait_prop 10 dev "$DEV" FreezeCount 0
	expect "shim: PE state" "$(pe_state "$PE")" normal
}
perm_disables 0
perm_disables 20000

info "perm_failure, unavailable 3000 ms: wait, then recover"
td_clear "$DEV"
sig_mark
t0=$(now_ns)
must_call Inject ssu "$DEV" perm_failure 3000
finish_of "$PE" 60
wall=$(ms_between "$t0" "$(now_ns)")
steps=$(steps_since "$PE")
echo "  RecoveryFinished after $wall ms (guest), duration $fin_usec us; steps: $steps"
expect "RecoveryFinished (3000 ms)" "$fin_result" recovered
[ "$fin_usec" -ge 3000000 ] || fail "the recovery took $fin_usec us, less than the 3 s unavailability"
ok "the recovery took >= 3 s ($fin_usec us)"
# U5: the drivers are told before the wait, as EEH does
case " $(step_names "$PE") " in
" error_detected wait "*) ok "error_detected first, then the wait" ;;
*) fail "not error_detected, then the wait: $steps" ;;
esac
case " $(step_names "$PE") " in
*" reset slot_reset resume ") ok "it ended in reset, slot_reset, resume" ;;
*) fail "it did not end in reset, slot_reset, resume: $steps" ;;
esac
calls=$(td_calls "$DEV")
echo "  call log: $calls"
case "$calls" in
error_detected*"slot_reset=recovered resume") ok "the driver saw error_detected ... slot_reset, resume" ;;
*) fail "unexpected call log: $calls" ;;
esac
absent "$DEV" && fail "$DEV is gone after a recovery"
bound_to "$DEV" pcierr_test || fail "$DEV lost its driver"
expect_prop dev "$DEV" FreezeCount 1
expect_prop dev "$DEV" State normal
expect_prop slot "$PE" Disabled false
expect "shim: PE state" "$(pe_state "$PE")" normal
pcierrd_stop

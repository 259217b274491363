#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 14: pcierrd's recovery modes through the test drivers.
#   a. the edu PE (pcierr_test_unaware only, no err_handler): full hotplug:
#      RecoveryStarted full-hotplug, steps remove, wait_udev, reset,
#      rescan; recovered; the edu rebound to pcierr_test_unaware;
#      HotplugFallbacks + 1
#   b. the mixed PE (the pcie-pci-bridge below 00:14.0, which names it:
#      pci-testdev with pcierr_test + edu with pcierr_test_unaware):
#      partial hotplug: error_detected, remove (the edu), wait_udev, reset,
#      slot_reset, resume, rescan; the testdev recovered by its callbacks,
#      the edu rebound
#   c. a testdev answering can_recover: error_detected, enable_io,
#      mmio_enabled, resume -- no reset (the shim's reset count unchanged)
#   d. a testdev answering disconnect: disabled (RecoveryFinished disabled,
#      PermanentlyDisabled), gone; Enable brings it back bound
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
PE_A=$RP_TESTDEV_A
PE_E=$RP_EDU
PE_M=$MIXED_BRIDGE
CLEANUP_PES="$PE_A $PE_E $PE_M"
require_normal "$PE_A" "$PE_E" "$PE_M"
td_defaults
bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound to pcierr_test_unaware at the start"
bound_to "$MIXED_EDU" pcierr_test_unaware || fail "$MIXED_EDU is not bound to pcierr_test_unaware at the start"

sig_start
pcierrd_start
bus_objects "$PE_A" "$A"
bus_objects "$PE_E" "$EDU"
bus_objects "$PE_M" "$MIXED_TESTDEV" "$MIXED_EDU"

info "a. all-unaware PE $PE_E: full hotplug"
hp0=$(mgr_prop HotplugFallbacks)
sig_mark
must_call Inject ssu "$EDU" frozen 0
must_signal 30 RecoveryStarted "\"$PE_E\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" full-hotplug
finish_of "$PE_E" 60
echo "  duration $fin_usec us; steps: $(steps_since "$PE_E")"
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(step_names "$PE_E")" "remove wait_udev reset rescan"
wait_until 15 bound_to "$EDU" pcierr_test_unaware ||
	fail "$EDU not rebound to pcierr_test_unaware (driver $(driver_of "$EDU"))"
ok "$EDU is bound to pcierr_test_unaware again"
expect_prop mgr - HotplugFallbacks $((hp0 + 1))
wait_prop 10 dev "$EDU" Driver pcierr_test_unaware
expect_prop dev "$EDU" FreezeCount 1
expect "shim: PE state" "$(pe_state "$PE_E")" normal

info "b. mixed PE $PE_M: partial hotplug"
td_clear "$MIXED_TESTDEV"
sig_mark
must_call Inject ssu "$MIXED_TESTDEV" frozen 0
must_signal 30 RecoveryStarted "\"$PE_M\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" partial-hotplug
finish_of "$PE_M" 60
echo "  duration $fin_usec us; steps: $(steps_since "$PE_M")"
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(step_names "$PE_M")" "error_detected remove wait_udev reset slot_reset resume rescan"
wait_until 15 bound_to "$MIXED_EDU" pcierr_test_unaware ||
	fail "$MIXED_EDU not rebound to pcierr_test_unaware (driver $(driver_of "$MIXED_EDU"))"
ok "$MIXED_EDU is bound to pcierr_test_unaware again"
bound_to "$MIXED_TESTDEV" pcierr_test || fail "$MIXED_TESTDEV lost its driver"
expect_calls "$MIXED_TESTDEV" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect_prop mgr - HotplugFallbacks $((hp0 + 2))
expect "shim: PE state" "$(pe_state "$PE_M")" normal

info "c. can_recover on $A: no reset"
td_clear "$A"
td_set "$A" result_error_detected can_recover
td_set "$A" result_mmio_enabled recovered
resets0=$(nl_stat resets)
sig_mark
must_call Inject ssu "$A" frozen 0
must_signal 30 RecoveryStarted "\"$PE_A\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" callbacks
finish_of "$PE_A" 60
echo "  duration $fin_usec us; steps: $(steps_since "$PE_A")"
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(step_names "$PE_A")" "error_detected enable_io mmio_enabled resume"
expect_calls "$A" "error_detected(frozen)=can_recover mmio_enabled=recovered resume"
expect "shim: resets (none on this path)" "$(nl_stat resets)" "$resets0"
expect "shim: PE state" "$(pe_state "$PE_A")" normal

info "d. disconnect on $A: disabled"
td_clear "$A"
td_set "$A" result_error_detected disconnect
sig_mark
must_call Inject ssu "$A" frozen 0
finish_of "$PE_A" 60
echo "  duration $fin_usec us; steps: $(steps_since "$PE_A")"
expect "RecoveryFinished" "$fin_result" disabled
must_signal 10 PermanentlyDisabled "\"$PE_A\""
echo "  reason: $(sig_arg "$sig" 3)"
expect "PermanentlyDisabled device" "$(sig_arg "$sig" 2)" "$A"
case " $(step_names "$PE_A") " in
" error_detected "*) ;;
*) fail "the first step was not error_detected" ;;
esac
wait_until 10 absent "$A" || fail "$A still present after the disable"
ok "$A is gone"
expect_prop slot "$PE_A" Disabled true
must_call Enable s "$PE_A"
wait_until 20 bound_to "$A" pcierr_test || fail "$A did not come back bound after Enable (driver $(driver_of "$A"))"
ok "Enable: $A back, bound to pcierr_test"
wait_prop 10 slot "$PE_A" Disabled false
expect "shim: PE state" "$(pe_state "$PE_A")" normal
pcierrd_stop

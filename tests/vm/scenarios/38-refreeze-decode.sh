#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 90
#
# Scenario 38: a freeze is a freeze every time (review R4, issue 22). After
# ENABLE_IO gave memory decode back to a frozen device, a new detection
# must cut decode again, read back from config space:
#   - a detection after ENABLE_IO (INJECT);
#   - a detection by the driver from its own mmio_enabled() (the test
#     driver's fail_in_mmio_enabled), in single steps and in a RECOVER,
#     which stops as frozen_again.
# Before the fix decode stayed on until the next reset: the device was
# "frozen" with its BARs answering.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
CLEANUP_PES=$PE
require_normal "$PE"
bound_to "$DEV" pcierr_test || fail "$DEV is not bound to pcierr_test"
mem_on() { [ $(($(cmdreg "$DEV") & CMD_MEM)) != 0 ]; }
mem_off() { ! mem_on; }
mem_on || fail "$DEV does not decode memory at the start (command $(cmdreg "$DEV"))"

# to_mmio_enabled: freeze, error_detected (can_recover), ENABLE_IO
to_mmio_enabled() {
	must_nl inject "$DEV"
	mem_off || fail "$DEV still decodes memory after inject"
	report_expect "$PE" error_detected can_recover --state frozen
	op enable-io "$PE"
	expect "PE state after ENABLE_IO" "$(pe_state "$PE")" mmio_enabled
	mem_on || fail "ENABLE_IO did not give decode back (command $(cmdreg "$DEV"))"
	ok "decode on after ENABLE_IO"
}
# recovered: finish with a reset, slot_reset, resume; decode on again
recovered() {
	op reset "$PE"
	report_expect "$PE" slot_reset recovered
	op report "$PE" resume
	expect "PE state after the recovery" "$(pe_state "$PE")" normal
	mem_on || fail "$DEV does not decode memory after the recovery"
}

td_defaults
td_set "$DEV" result_error_detected can_recover

info "a detection after ENABLE_IO"
to_mmio_enabled
must_nl inject "$DEV"
wait_until 10 mem_off || fail "decode still on after a detection following ENABLE_IO (command $(cmdreg "$DEV"))"
expect "PE state" "$(pe_state "$PE")" frozen
ok "the detection after ENABLE_IO cut decode again"
recovered

info "a detection by the driver during mmio_enabled (single steps)"
to_mmio_enabled
td_set "$DEV" fail_in_mmio_enabled 1
must_nl report "$PE" mmio_enabled
wait_until 10 mem_off || fail "decode still on after a failure reported in mmio_enabled (command $(cmdreg "$DEV"))"
expect "PE state" "$(pe_state "$PE")" frozen
expect "$DEV's channel state" "$(dev_state "$DEV")" frozen
ok "the failure reported in mmio_enabled cut decode again"
td_set "$DEV" fail_in_mmio_enabled 0
recovered

info "the same in a RECOVER"
td_set "$DEV" fail_in_mmio_enabled 1
must_nl inject "$DEV"
must_nl recover "$PE"
rd=$(line_with "recover_done " "$out")
[ -n "$rd" ] || fail "pcierr-nl recover printed no recover_done line"
expect "how the RECOVER stopped" "$(kv stop "$rd")" frozen_again
wait_until 10 mem_off || fail "decode still on after the RECOVER stopped frozen_again (command $(cmdreg "$DEV"))"
expect "PE state" "$(pe_state "$PE")" frozen
ok "the RECOVER stopped frozen_again with decode off"
td_set "$DEV" fail_in_mmio_enabled 0
recovered
td_defaults

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 51: the channel state a driver's slot_reset sees is the one the
# kernel's own err.c would give it (review R10, docs/kernels.md): on 6.12
# err.c sets it back to normal before slot_reset (pci_channel_offline()
# false: the reset is done), on 6.1 it stays frozen until resume. Testdev
# A frozen, REPORT error_detected, RESET, REPORT slot_reset: the test
# driver records what slot_reset saw (slot_reset_state); then resume, and
# A is normal and answers.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
CLEANUP_PES="$RP_TESTDEV_A"
require_normal "$RP_TESTDEV_A"
td_defaults
A=$TESTDEV_A
PA=$RP_TESTDEV_A
bound_to "$A" pcierr_test || fail "$A is not bound to pcierr_test at the start"
io_want=$(cat "$SYS/$A/io") || fail "cannot read $A's io"
case $(uname -r) in
6.1.*) want=frozen ;;
*) want=normal ;;
esac
info "kernel $(uname -r): slot_reset should see the channel $want"
td_clear "$A"
must_nl inject "$A"
expect "PE state after inject" "$(pe_state "$PA")" frozen
report_expect "$PA" error_detected need_reset --state frozen
op reset "$PA"
report_expect "$PA" slot_reset recovered
expect "channel state $A's slot_reset saw" "$(cat "$SYS/$A/slot_reset_state")" "$want"
expect "$A's channel state after slot_reset" "$(dev_state "$A")" "$want"
report_expect "$PA" resume recovered
expect_calls "$A" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect "PE state after resume" "$(pe_state "$PA")" normal
expect "$A's channel state" "$(dev_state "$A")" normal
expect "$A's io after the recovery" "$(cat "$SYS/$A/io")" "$io_want"

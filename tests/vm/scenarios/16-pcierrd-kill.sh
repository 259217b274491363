#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 16: pcierrd killed (SIGKILL) in the middle of a recovery.
#   Testdev B's slot_reset sleeps 15 s; Manager.Inject; when the driver is
#   in slot_reset (the shim runs the recovery as one RECOVER operation, so
#   pcierrd's per-step signals only come at its end) pcierrd is killed.
#   The kernel finishes the operation without its owner. pcierrd started again on the
#   same state directory resyncs and completes the recovery:
#   RecoveryFinished recovered, the driver's call log ends in resume, the
#   channel state normal, the driver bound, and the freeze counted once
#   (FreezeCount 1, not lost, not 2).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"
td_set "$DEV" delay_slot_reset 15000

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
expect_prop dev "$DEV" FreezeCount 0
sig_mark
must_call Inject ssu "$DEV" frozen 0
wait_until 30 grep -q slot_reset "$SYS/$DEV/running" ||
	fail "the driver's slot_reset is not running"
pcierrd_kill9
echo "  steps before the kill: $(steps_since "$PE")"
echo "  the driver is in: $(cat "$SYS/$DEV/running"); its call log: $(td_calls "$DEV")"
expect "shim: PE state after the kill" "$(pe_state "$PE")" reset

sig_mark
pcierrd_start
finish_of "$PE" 60
echo "  after the restart: $fin_result in $fin_usec us; steps: $(steps_since "$PE")"
expect "RecoveryFinished after the restart" "$fin_result" recovered
calls=$(td_calls "$DEV")
echo "  call log: $calls"
case "$calls" in
"error_detected(frozen)=need_reset slot_reset=recovered"*" resume") ok "the driver saw error_detected, slot_reset, ..., resume" ;;
*) fail "unexpected call log: $calls" ;;
esac
bound_to "$DEV" pcierr_test || fail "$DEV lost its driver"
expect_prop dev "$DEV" State normal
expect_prop dev "$DEV" FreezeCount 1
expect_prop slot "$PE" State normal
expect_prop slot "$PE" Step idle
r=$(mgr_prop Resyncs)
[ "${r:-0}" -ge 1 ] || fail "Resyncs is '$r' after a restart"
ok "Resyncs $r"
expect "shim: PE state" "$(pe_state "$PE")" normal
pcierrd_stop

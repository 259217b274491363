#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 10: partial hotplug on the mixed PE (REMOVE with PCIERR_A_DEVICE).
#   remove --device of a device of another PE -> EINVAL; of a well-formed
#   address naming no device -> ENODEV; nothing removed.
#   inject on MIXED_TESTDEV, error_detected (testdev need_reset, edu none),
#   remove --device MIXED_EDU (the unaware one: gone, the testdev stays
#   bound, the PE stays frozen), reset, slot_reset recovered, resume;
#   rescan brings the edu back bound to pcierr_test_unaware; PE normal.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$MIXED_BRIDGE
TD=$MIXED_TESTDEV
EDU=$MIXED_EDU
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test at the start"
bound_to "$EDU" pcierr_test_unaware ||
	fail "$EDU is not bound to pcierr_test_unaware at the start (driver $(driver_of "$EDU"))"
td_clear "$TD"

info "errors: a device of another PE, a device that does not exist"
pnl remove "$PE" --device "$TESTDEV_B"
[ "$rc" = 1 ] || fail "remove --device of another PE's device exited $rc, expected 1"
printf '%s\n' "$out" | grep -q 'errno EINVAL' || fail "remove --device of another PE's device: no EINVAL"
printf '%s\n' "$out" | grep -q 'kernel says: ' || fail "remove --device of another PE's device: no extack message"
ok "another PE's device: EINVAL with a message"
pnl remove "$PE" --device 0000:06:1f.0
[ "$rc" = 1 ] || fail "remove --device of a missing device exited $rc, expected 1"
printf '%s\n' "$out" | grep -q 'errno ENODEV' || fail "remove --device of a missing device: no ENODEV"
ok "a missing device: ENODEV"
pnl remove "$PE" --device 06:02
[ "$rc" = 2 ] || fail "remove --device with a malformed address exited $rc, expected 2 (usage)"
ok "a malformed --device is a usage error"
for d in "$TESTDEV_B" "$EDU" "$TD"; do
	present "$d" || fail "$d went away after the failed removes"
done
bound_to "$TESTDEV_B" pcierr_test || fail "$TESTDEV_B lost its driver"
expect "PE state after the failed removes" "$(pe_state "$PE")" normal

info "inject, error_detected, remove the unaware device"
hot0=$(nl_stat hotplugs)
must_nl inject "$TD"
expect "PE state after inject" "$(pe_state "$PE")" frozen
report_expect "$PE" error_detected need_reset --state frozen
expect "$TD's answer" "$(dev_result "$TD")" need_reset
expect "$EDU's answer (no err_handler)" "$(dev_result "$EDU")" none

op remove "$PE" --device "$EDU"
expect "op of the partial remove" "$(kv op "$op")" remove
expect "PE state after the partial remove" "$(kv pe_state "$op")" frozen
wait_until 10 absent "$EDU" || fail "$EDU is still in $SYS after remove --device"
ok "$EDU is gone from $SYS"
bound_to "$TD" pcierr_test || fail "$TD lost its driver (driver $(driver_of "$TD"))"
ok "$TD is still bound to pcierr_test"
must_nl pe "$PE"
printf '%s\n' "$out" | grep -q " dev=$EDU " && fail "pe $PE still lists $EDU after the partial remove"
printf '%s\n' "$out" | grep -q " dev=$TD " || fail "pe $PE no longer lists $TD"
ok "pe $PE lists $TD, not $EDU"
hot1=$(nl_stat hotplugs)
[ "$hot1" -ge $((hot0 + 1)) ] || fail "hotplugs went from $hot0 to $hot1, expected +1"
ok "hotplugs counted ($hot0 -> $hot1)"

info "recover the rest: reset, slot_reset, resume"
op reset "$PE"
report_expect "$PE" slot_reset recovered
expect "$TD's slot_reset answer" "$(dev_result "$TD")" recovered
expect "$EDU in the slot_reset results" "$(dev_result "$EDU")" ""
op report "$PE" resume
expect "PE state after resume" "$(pe_state "$PE")" normal

info "rescan brings the removed device back"
op rescan "$PE"
wait_until 10 bound_to "$EDU" pcierr_test_unaware ||
	fail "$EDU did not come back bound to pcierr_test_unaware (driver $(driver_of "$EDU"))"
ok "$EDU is back, bound to pcierr_test_unaware"
bound_to "$TD" pcierr_test || fail "$TD lost its driver after the rescan"
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect "PE state after rescan" "$(pe_state "$PE")" normal
expect "$EDU's channel state" "$(dev_state "$EDU")" normal
expect "$TD's channel state" "$(dev_state "$TD")" normal

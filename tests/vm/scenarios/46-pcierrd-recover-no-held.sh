#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 46: one owner of a frozen PE (issue 21 point 4, review U4).
# [Device TESTDEV_B] Recover=no; owner_timeout_ms 4000 here.
#   With pcierrd running, testdev B frozen: pcierrd records the freeze and
#   does nothing, holding the PE in the shim (PCIERR_CMD_HOLD): 20 s (five
#   owner timeouts) later the PE is still frozen, HELD, and the driver was
#   never called.
#   pcierrd stopped: its socket's release ends the hold (kernel log) and
#   the shim's owner timeout recovers the PE (error_detected, reset,
#   slot_reset, resume). pcierrd started again finds that recovery (the
#   PE's LAST_OP) and records it: GetHistory has a "recovery owner-timeout
#   recovered" entry, the slot's LastResult is "recovered", and a restart
#   after that does not record it twice.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
PARAM=/sys/module/pcierr_shim/parameters/owner_timeout_ms
BUDGET=/sys/module/pcierr_shim/parameters/owner_budget
[ -w "$PARAM" ] || fail "no writable $PARAM"
old_timeout=$(cat "$PARAM")
old_budget=$(cat "$BUDGET")
CLEANUP_CMD="echo $old_timeout > $PARAM; echo $old_budget > $BUDGET"
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"
pe_is_normal() { [ "$(pe_state "$1")" = normal ]; }
held() { [ $(($(pe_flags "$1") & 0x10)) != 0 ]; }
# the history's "recovery owner-timeout recovered" entries of the PE since
# this scenario's freeze (an earlier scenario of the same boot may have
# left an owner-timeout recovery of this PE, which pcierrd records too)
SINCE_US=0
owner_entries() {
	timeout -k 2 "$BUS_TIMEOUT" busctl --system "--timeout=$BUS_TIMEOUT" \
		call "$BUS_NAME" "$BUS_PATH" "$MGR_IFACE" GetHistory tsu "$SINCE_US" "$PE" 0 2>/dev/null |
		grep -o '"recovery" "owner-timeout" "recovered"' | wc -l
}
echo "+ echo 4000 > $PARAM; echo 0 > $BUDGET"
echo 4000 > "$PARAM"
echo 0 > "$BUDGET"
pd_conf "[Device $DEV]
Recover=no"
pcierrd_start
SINCE_US=$(date +%s%6N)
must_nl inject "$DEV"
wait_until 20 held "$PE" || fail "PE $PE is not HELD (flags $(pe_flags "$PE"))"
ok "PE $PE held by pcierrd"
grep -q "Slot $PE: Recover=no: the freeze is recorded, nothing done." "$PD_LOG" ||
	fail "pcierrd did not say Recover=no"
sleep 20
expect "PE $PE's state 20 s (five owner timeouts) into Recover=no" "$(pe_state "$PE")" frozen
held "$PE" || fail "PE $PE is no longer HELD"
expect "the driver's calls with Recover=no" "$(td_calls "$DEV")" ""
ok "Recover=no: frozen, held, nothing done"

info "pcierrd stopped: the shim's owner timeout recovers the PE"
klines=$(dmesg | wc -l)
pcierrd_stop
t0=$(now_ns)
wait_until 60 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 60 s after pcierrd stopped"
ok "PE $PE normal $(ms_between "$t0" "$(now_ns)") ms after pcierrd stopped"
kl=$(dmesg | tail -n +"$((klines + 1))")
printf '%s\n' "$kl" | grep -q "$PE: pcierr: hold ended: its holder's socket closed" ||
	fail "no 'hold ended: its holder's socket closed' for $PE in the kernel log"
printf '%s\n' "$kl" | grep -q "$PE: pcierr: recovered by the shim itself" ||
	fail "no '$PE: pcierr: recovered by the shim itself' in the kernel log"
expect "the driver's calls" "$(td_calls "$DEV")" "error_detected(frozen)=need_reset slot_reset=recovered resume"

info "pcierrd started again records that recovery, once"
pcierrd_start
one_entry() { [ "$(owner_entries)" = 1 ]; }
wait_until 10 one_entry || fail "GetHistory of $PE has $(owner_entries) owner-timeout recoveries, not 1"
ok "GetHistory of $PE has the owner-timeout recovery"
expect_prop slot "$PE" LastResult recovered
pcierrd_stop
pcierrd_start
sleep 2
expect "owner-timeout recoveries in GetHistory of $PE after another restart" "$(owner_entries)" 1
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 7: unload the shim while a listener is connected and an
# operation is in flight (a 3 s error_detected), then load it again.
# rmmod completes (it may wait for the operation), the listener does not
# hang (it ends on "family_removed", status 4), the family comes back
# with sequence numbers from 1, and the kernel log stays clean (checked
# by the runner). A, frozen when the shim went, has its freeze lifted by
# the unload (command register as before the freeze, a log line), and
# the new shim recovers it with a reset, without a remove and rescan.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
PE=$RP_TESTDEV_A
SHIM=$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko
CLEANUP_PES=$PE
[ -f "$SHIM" ] || fail "no $SHIM"
grep -q '^pcierr_shim ' /proc/modules || fail "pcierr_shim is not loaded at the start"
require_normal "$PE"
td_defaults
td_clear "$A"
td_set "$A" delay_error_detected 3000

cmd0=$(od -An -tx2 -j4 -N2 "$SYS/$A/config" | tr -d ' ')
lifted0=$(dmesg | grep -c 'pcierr: module unload: freeze of')
listen_start "$TMP/events" --timeout 60
must_nl inject "$A"
must_nl report "$PE" error_detected --state frozen --no-wait
wait_until 5 grep -q error_detected "$SYS/$A/running" ||
	fail "A's error_detected is not running"
ok "A's error_detected is running (3 s)"

t0=$(now_ns)
run timeout 60 rmmod pcierr_shim
t1=$(now_ns)
[ "$rc" = 0 ] || fail "rmmod pcierr_shim exited $rc after $(ms_between "$t0" "$t1") ms"
ok "rmmod took $(ms_between "$t0" "$t1") ms"
grep -q '^pcierr_shim ' /proc/modules && fail "pcierr_shim is still loaded"

# the listener must not hang: it learns from the generic netlink
# controller that its family is gone, says so on its last line and exits
# with status 4
if wait_until 10 gone "$LPID"; then
	wait "$LPID"
	rc=$?
else
	kill "$LPID" 2>/dev/null
	sed 's/^/  | /' "$TMP/events"
	fail "the listener still runs 10 s after the unload"
fi
sed 's/^/  | /' "$TMP/events"
[ "$rc" = 4 ] || fail "the listener exited $rc after the unload, not 4 (family removed)"
expect "family_removed lines" "$(grep -c '^family_removed ' "$TMP/events")" 1
tail -n 1 "$TMP/events" | grep -Eq '^family_removed family_id=[0-9]+$' ||
	fail "the listener's last line is not 'family_removed family_id=ID'"
ok "the listener exited (status 4) on family_removed after the unload"

# the callback in flight ran to its end (now or before the unload)
wait_until 10 grep -q '^-$' "$SYS/$A/running" || fail "A's callback still running"
expect_calls "$A" "error_detected(frozen)=need_reset"

run insmod "$SHIM"
[ "$rc" = 0 ] || fail "insmod $SHIM failed"
ok "pcierr_shim loaded again"
must_nl dump
printf '%s\n' "$out" | grep -q " dev=$A " || fail "the dump after reload lacks $A"
ok "the family is back: the dump lists $A"

# A was frozen when the shim went away: the unload lifted the freeze
# (docs/shim-mechanism.md, "Module unload"), so the new shim took a
# healthy snapshot of it at load and the cycle below can reset it, with
# no remove and rescan in between.
td_set "$A" delay_error_detected 0
expect "lines 'module unload: freeze of ... lifted' in the kernel log" \
	"$(dmesg | grep -c 'pcierr: module unload: freeze of')" $((lifted0 + 1))
expect "A's command register after the unload (as before the freeze)" \
	"$(od -An -tx2 -j4 -N2 "$SYS/$A/config" | tr -d ' ')" "$cmd0"
expect "A's PE state in the new shim" "$(pe_state "$PE")" normal

# a full cycle on the new module: sequence numbers start at 1
must_nl inject "$A"
expect "first seq after the reload" "$(kv seq "$out")" 1
report_expect "$PE" error_detected need_reset --state frozen
op reset "$PE"
report_expect "$PE" slot_reset recovered
op report "$PE" resume
expect "PE state" "$(pe_state "$PE")" normal

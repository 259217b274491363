#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 8: a device hot-removed while an operation on its PE is in
# flight (its driver sleeps 3 s in error_detected while the PCI core
# removes it). The operation completes with an answer for it (its
# driver's own, or "gone" if the removal won), the removal completes, the
# shim forgets the device, an operation on the now empty PE neither hangs
# nor fails oddly, and a rescan brings the device back, bound and normal.
# No leak, hang or oops (the kernel log is checked by the runner).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
B=$TESTDEV_B
PE=$RP_TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$B"
td_set "$B" delay_error_detected 3000

listen_start "$TMP/events" --timeout 60
must_nl inject "$B"
must_nl report "$PE" error_detected --state frozen --no-wait
opid=$(kv op_id "$out")
[ -n "$opid" ] || fail "report --no-wait printed no op_id"
wait_until 5 grep -q error_detected "$SYS/$B/running" ||
	fail "B's error_detected is not running"
ok "B's error_detected is running (3 s), op $opid"

echo "+ echo 1 > $SYS/$B/remove &"
( echo 1 > "$SYS/$B/remove" ) &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"

done_line() { grep -m 1 "^op_done op_id=$opid " "$TMP/events"; }
wait_until 20 done_line || fail "no op_done for op $opid within 20 s: $(cat "$TMP/events")"
op=$(done_line)
echo "  | $op"
expect "op $opid errno" "$(kv errno "$op")" 0
r=$(dev_result "$B")
case "$r" in
need_reset|gone) ok "B answered '$r'" ;;
*) fail "B's answer is '$r', expected need_reset or gone" ;;
esac

wait_until 20 gone "$RPID" || fail "the removal of $B did not finish in 20 s"
absent "$B" || fail "$B is still present after its removal"
ok "$B removed"
listed() { "$NL" dump | grep -q " dev=$1 "; }
wait_until 5 sh -c "! $NL dump | grep -q ' dev=$B '" ||
	fail "the shim still lists $B after its removal"
ok "the shim no longer lists $B"

# the PE is empty now (its root port stays): a step on it completes
pnl report "$PE" resume
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "report resume on the empty PE exited $rc"
ok "report resume on the empty PE completed (exit $rc)"

echo 1 > /sys/bus/pci/rescan
wait_until 10 bound_to "$B" pcierr_test || fail "$B did not come back after a rescan"
wait_until 10 listed "$B" || fail "the shim does not list $B after the rescan"
expect "B's channel state after the rescan" "$(dev_state "$B")" normal
ok "$B is back, bound to pcierr_test and listed"

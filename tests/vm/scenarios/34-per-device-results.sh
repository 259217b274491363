#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 34: the per-device results a driver cannot give, and the order
# of an armed RECOVER's EVENT and OP_DONE (issue 8).
#  a) no_driver: testdev B unbound from pcierr_test, inject, REPORT
#     error_detected: B's result no_driver (merged none); reset,
#     slot_reset and resume say no_driver too; bound again afterwards, its
#     channel state normal and its io working.
#  b) gone: on the mixed PE the testdev's error_detected hangs while the
#     edu behind it is removed through sysfs: the REPORT's snapshot still
#     holds the edu, which is reported gone (recovery.c: removed
#     meanwhile), the testdev's need_reset; then the PE is recovered and
#     rescanned, the edu back bound to pcierr_test_unaware.
#  c) EVENT before OP_DONE: one listening context arms testdev A's PE
#     (pcierr-nl listen --arm, which arms again after each RECOVER of it)
#     and storms of 1 to 64 failure reports from atomic context hit it,
#     round after round: every detection that starts a RECOVER has an
#     EVENT with auto_op_id, and every RECOVER's end (recover_done, the
#     OP_DONE of a RECOVER) on that socket comes after the EVENT with its
#     id. The pairs are counted (a figure); the last round, one report,
#     recovers the PE completely. Closing the context disarms the PE.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
CLEANUP_PES="$RP_TESTDEV_A $RP_TESTDEV_B $MIXED_BRIDGE"
# whatever happens, testdev B is bound and the edu there again (expanded then)
# shellcheck disable=SC2016
CLEANUP_CMD='[ -e "$SYS/$TESTDEV_B/driver" ] || echo "$TESTDEV_B" > "$TD_DRIVER/bind";
[ -e "$SYS/$MIXED_EDU" ] || "$NL" rescan "$MIXED_BRIDGE"'
require_normal "$RP_TESTDEV_A" "$RP_TESTDEV_B" "$MIXED_BRIDGE"
td_defaults
for d in "$TESTDEV_A" "$TESTDEV_B" "$MIXED_TESTDEV"; do
	bound_to "$d" pcierr_test || fail "$d is not bound to pcierr_test at the start"
	td_clear "$d"
done
bound_to "$MIXED_EDU" pcierr_test_unaware ||
	fail "$MIXED_EDU is not bound to pcierr_test_unaware at the start"
io_want=$(cat "$SYS/$TESTDEV_B/io") || fail "cannot read $TESTDEV_B's io"

# --- a) no_driver ----------------------------------------------------------
B=$TESTDEV_B
PB=$RP_TESTDEV_B
info "no_driver: $B without its driver"
echo "+ echo $B > $TD_DRIVER/unbind"
echo "$B" > "$TD_DRIVER/unbind" || fail "cannot unbind $B"
bound_to "$B" - || fail "$B still has driver $(driver_of "$B")"
expect "driver of $B in the dump" "$(kv driver "$(dev_line "$B")")" -
must_nl inject "$B"
expect "PE state after inject" "$(pe_state "$PB")" frozen
report_expect "$PB" error_detected none --state frozen
expect "$B's error_detected result" "$(kv results "$op")" "$B:no_driver"
op reset "$PB"
report_expect "$PB" slot_reset none
expect "$B's slot_reset result" "$(kv results "$op")" "$B:no_driver"
report_expect "$PB" resume none
expect "$B's resume result" "$(kv results "$op")" "$B:no_driver"
expect "PE state after resume" "$(pe_state "$PB")" normal
expect "$B's channel state" "$(dev_state "$B")" normal
echo "+ echo $B > $TD_DRIVER/bind"
echo "$B" > "$TD_DRIVER/bind" || fail "cannot bind $B again"
wait_until 10 bound_to "$B" pcierr_test || fail "$B not bound again (driver $(driver_of "$B"))"
expect "$B's io after the rebind" "$(cat "$SYS/$B/io")" "$io_want"
expect_calls "$B" ""

# --- b) gone ---------------------------------------------------------------
PM=$MIXED_BRIDGE
MT=$MIXED_TESTDEV
EDU=$MIXED_EDU
info "gone: $EDU removed while $MT's error_detected hangs"
must_nl inject "$MT"
td_set "$MT" delay_error_detected hang
echo "+ $NL report $PM error_detected --state frozen --timeout 120 > $TMP/report &"
"$NL" report "$PM" error_detected --state frozen --timeout 120 > "$TMP/report" 2>&1 &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
wait_until 30 grep -q error_detected "$SYS/$MT/running" ||
	fail "$MT's error_detected is not running: $(cat "$TMP/report")"
ok "$MT's error_detected is running and hangs"
echo "+ echo 1 > $SYS/$EDU/remove"
echo 1 > "$SYS/$EDU/remove" || fail "cannot remove $EDU"
wait_until 10 absent "$EDU" || fail "$EDU is still in $SYS"
ok "$EDU removed during the REPORT"
echo "+ echo 1 > $SYS/$MT/release"
echo 1 > "$SYS/$MT/release"
listen_wait "$RPID" 60
sed 's/^/  | /' "$TMP/report"
[ "$rc" = 0 ] || fail "the REPORT exited $rc"
op=$(grep -m 1 '^op_done ' "$TMP/report")
[ -n "$op" ] || fail "the REPORT printed no op_done line"
expect "errno of the REPORT" "$(kv errno "$op")" 0
expect "merged result" "$(kv result "$op")" need_reset
expect "per-device results" "$(kv results "$op")" "$MT:need_reset,$EDU:gone"
expect_calls "$MT" "error_detected(frozen)=need_reset"
op reset "$PM"
report_expect "$PM" slot_reset recovered
expect "slot_reset results (no $EDU)" "$(kv results "$op")" "$MT:recovered"
report_expect "$PM" resume recovered
expect "PE state after resume" "$(pe_state "$PM")" normal
op rescan "$PM"
wait_until 10 bound_to "$EDU" pcierr_test_unaware ||
	fail "$EDU did not come back bound to pcierr_test_unaware (driver $(driver_of "$EDU"))"
ok "$EDU is back, bound to pcierr_test_unaware"
expect "$EDU's channel state" "$(dev_state "$EDU")" normal
expect "$MT's channel state" "$(dev_state "$MT")" normal
bound_to "$MT" pcierr_test || fail "$MT lost its driver"
expect "PE state after the rescan" "$(pe_state "$PM")" normal

# --- c) EVENT before OP_DONE -----------------------------------------------
A=$TESTDEV_A
PA=$RP_TESTDEV_A
info "armed RECOVERs of $PA: each EVENT before its RECOVER's end"
# can_recover: the short path (enable_io, mmio_enabled, resume)
td_set "$A" result_error_detected can_recover
td_clear "$A"
listen_start "$TMP/armed" --arm "$PA"
LPID_ARM=$LPID
# armed: the PE's flags have PCIERR_PE_F_ARMED (1 << 3)
armed() { [ $(( $(pe_flags "$PA") & 8 )) -ne 0 ]; }
disarmed() { ! armed; }
# ended N: N ends of its RECOVERs heard
ended() { [ "$(grep -c "^recover_done .* pe=$PA " "$TMP/armed")" -ge "$1" ]; }
ROUNDS="1 8 32 64 1 8 32 64 1 8 32 64 1"
n=0
for m in $ROUNDS; do
	n=$((n + 1))
	wait_until 30 armed || fail "round $n: $PA not armed: $(tail -n 3 "$TMP/armed")"
	echo "$m" > "$SYS/$A/storm" || fail "round $n: storm $m refused"
	wait_until 60 ended "$n" ||
		fail "round $n (storm $m): no end of the armed RECOVER: $(tail -n 3 "$TMP/armed")"
done
ok "$n rounds, each ended by its RECOVER (storms: $ROUNDS)"
wait_until 30 armed || fail "$PA not armed again after the last round"
kill "$LPID_ARM"
wait_until 10 gone "$LPID_ARM" || fail "the listener did not exit"
echo "  listener: $(grep -c '^event ' "$TMP/armed") event lines, the others and those with auto_op_id:"
grep -E '^(armed|recover_done|overflow|op_done)|auto_op_id=' "$TMP/armed" | sed 's/^/  | /'
wait_until 10 disarmed || fail "$PA still armed after the listener's context closed"
ok "closing the listening context disarmed $PA"

# Every recover_done of the PE after the EVENT with its id, on this socket;
# every EVENT with an auto_op_id followed by its end; no loss.
awk -v pe="$PA" '
function val(k,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1)
			return substr($i, length(k) + 2)
	return ""
}
/^event / {
	id = val("auto_op_id")
	if (id != "") {
		if (val("pe") != pe) { print "auto_op_id on another PE: " $0; bad++ }
		if (id in ev) { print "auto_op_id twice: " $0; bad++ }
		ev[id] = NR; nev++
	}
}
/^recover_done / && val("pe") == pe {
	id = val("op_id"); nd++
	if (!(id in ev)) { print "recover_done before (or without) its EVENT: " $0; bad++ }
	else { pairs++; done[id] = 1 }
	last = val("stop") " " val("pe_state")
}
/^overflow/ { print "lost notifications: " $0; bad++ }
/^op_done / && val("pe") == pe { print "an operation other than the armed RECOVERs: " $0; bad++ }
END {
	for (id in ev)
		if (!(id in done)) { print "EVENT auto_op_id=" id " without its end"; bad++ }
	printf "pairs=%d recover_done=%d auto_events=%d bad=%d last=%s\n", pairs, nd, nev, bad, last
}' "$TMP/armed" > "$TMP/order"
sed 's/^/  | /' "$TMP/order"
sum=$(tail -n 1 "$TMP/order")
pairs=$(kv pairs "$sum")
expect "notifications out of order, lost or unmatched" "$(kv bad "$sum")" 0
expect "armed RECOVERs ended (one a round)" "$(kv recover_done "$sum")" "$n"
expect "EVENT/end pairs" "$pairs" "$n"
[ "$pairs" -gt 0 ] || fail "no pair seen"
echo "figure armed_event_op_done_pairs $pairs (rounds $n, storms $ROUNDS)"
ok "every armed RECOVER's end came after its EVENT on the same socket: $pairs pairs"
expect "the last RECOVER (one report)" "$(tail -n 1 "$TMP/order" | sed 's/.*last=//')" "recovered normal"
expect "PE state at the end" "$(pe_state "$PA")" normal
expect "$A's channel state" "$(dev_state "$A")" normal
expect "$A's io" "$(cat "$SYS/$A/io")" "$io_want"

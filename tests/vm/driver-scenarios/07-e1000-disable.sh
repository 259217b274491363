#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 400
#
# Driver suite 7: the sixth freeze of the e1000 within the window (pcierrd's
# defaults: MaxFreezes 5 in FreezeWindowSec 3600) disables it, while
# streams run through the e1000, the e100 and the e1000e.
#   Freezes 1-5 (`pcierrctl -q inject`): recovered, FreezeCount 1..5, the
#   e1000 echoes after each. Freeze 6: RecoveryFinished disabled,
#   PermanentlyDisabled naming the e1000 with a reason that says to reseat
#   or replace the card, and pcierrd's log says so too; pcierrctl inject
#   exits 1; the device is gone; its stream stops (no echo after it); the
#   streams of the e100 and the e1000e lose nothing all along. Then
#   Manager.Enable brings the e1000 back (a new interface, set up again)
#   and it echoes 20 of 20.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_E1000
DEV=$E1000
CLEANUP_PES="$PE $RP_E100 $RP_E1000E"
# a failure here happened 1 in 14 runs, its reason lost in CI's log
FAIL_CMD=stream_dump
require_normal $CLEANUP_PES
peer_setup
nic_setup e1000 "$DEV" 12
nic_setup e100 "$E100" 11
nic_setup e1000e "$E1000E" 14

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
handlers=$(handlers_of "$DEV")
expect_prop dev "$DEV" FreezeCount 0
stream_start e100 11
stream_start e1000e 14
t_start=$(now_ns)

i=1
while [ $i -le 5 ]; do
	run "$PCIERRCTL" --no-pager -q inject --timeout=90 "$DEV"
	[ "$rc" = 0 ] || fail "freeze $i: pcierrctl inject exited $rc"
	expect_prop dev "$DEV" FreezeCount $i
	i=$((i + 1))
done
# the e1000 brings its link up again after resume (autonegotiation), and
# five recoveries as single RECOVER operations end within a second: its
# traffic must resume within 5 s of the last recovery (issue 9, scenario
# 1's bound), then every packet is answered. The bound is judged on the
# first echo's own time stamp in a stream started at once: a probe that
# starts while the link is still down waits 3 s for its echoes, so polling
# with probes measured the probes (CI run of 2026-12-04: link up 2.0 s
# after the recovery, no probe answered within 5 s).
e1000_echoed() { grep -q '^r ' "$TMP/stream.e1000"; }
t_rec=$(now_ns)
stream_start e1000 12
wait_until 15 e1000_echoed || fail "e1000 (10.77.0.12): no echo within 15 s of its fifth recovery"
stream_stop e1000
first_echo=$(awk '$1 == "r" { print $4; exit }' "$TMP/stream.e1000")
echo_ms=$(ms_between "$t_rec" "$first_echo")
[ "$echo_ms" -le 5000 ] ||
	fail "e1000 (10.77.0.12): first echo $echo_ms ms after its fifth recovery (bound 5000 ms)"
ok "e1000 answers again $echo_ms ms after its fifth recovery"
must_reach e1000 12

info "freeze 6"
stream_start e1000 12
sleep 2
pdl=$(pd_log_lines)
recovery_of "$PE" "$DEV"
expect "freeze 6: RecoveryFinished" "$fin_result" disabled
expect "freeze 6: pcierrctl inject exit status" "$INJ_RC" 1
must_signal 10 PermanentlyDisabled "\"$PE\""
reason=$(sig_arg "$sig" 3)
echo "  reason: $reason"
expect "PermanentlyDisabled device" "$(sig_arg "$sig" 2)" "$DEV"
case "$reason" in
*reseat*|*replace*) ok "the reason says to reseat or replace the card" ;;
*) fail "the reason does not say to reseat or replace: $reason" ;;
esac
tail -n +"$((pdl + 1))" "$PD_LOG" | grep -E 'reseat|replace' | head -n 3 | sed 's/^/  | /'
tail -n +"$((pdl + 1))" "$PD_LOG" | grep -qE 'reseat|replace' ||
	fail "pcierrd's log does not say to reseat or replace the card"
ok "pcierrd's log says to reseat or replace the card"
wait_until 10 absent "$DEV" || fail "$DEV is still present after the disable"
ok "$DEV is gone"
sleep 4
stream_stop e1000
stream_stop e100
stream_stop e1000e
stream_stats e1000 "$INJ_T0" "$INJ_T1"
d_before=$st_before d_during=$st_during d_after=$st_after
expect "e1000: echoes after RecoveryFinished (disabled)" "$st_resume_ms" -1
others=
for n in e100 e1000e; do
	stream_stats "$n" "$t_start" "$t_start"
	[ "$st_resume_ms" -ge 0 ] || fail "$n: no echo at all"
	expect "$n: packets lost while the e1000 was frozen six times" "$st_after_gaps" 0
	others="$others$n $st_after, "
done

must_call Enable s "$PE"
wait_until 20 bound_to "$DEV" e1000 || fail "$DEV did not come back bound to e1000 after Enable"
nic_setup e1000 "$DEV" 12
must_reach e1000 12
row "$DEV" e1000 "$handlers" "disabled (6th freeze)" "$(ms "$fin_usec")" \
	"$d_before" "$d_during" "$d_after (none: disabled)" \
	"$others echoed meanwhile; reseat/replace said; after Enable $reach_got/$reach_sent echoed"
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 420
#
# Scenario 21: without a daemon a freeze is not forever (module parameter
# owner_timeout_ms, set to 20000 here).
#   pcierrd is killed (SIGKILL) in the middle of a recovery of testdev A
#   (while its slot_reset sleeps 15 s) and not restarted: the shim finishes
#   the RECOVER operation without its owner. Then testdev A is frozen again
#   with no daemon: within the timeout the shim recovers the PE itself as
#   AER would: error_detected, reset, slot_reset, resume; the driver's
#   call log is exactly that, the PE and the device are normal, decode is
#   back, the kernel log says so ("recovered by the shim itself"), and a
#   listener gets its OP_DONE (op owner_recover, errno 0, pe_state normal).
#   No daemon at all, and a driver without recovery callbacks (edu): at
#   the timeout the shim says nobody listens, removes and rescans the PE
#   (its RECOVER stopped at no_handler); the edu comes back bound, the PE
#   normal.
#   A hold (PCIERR_CMD_HOLD, owner timeout 4000 ms here): a holder that
#   renews its 3000 ms lease keeps the frozen PE away from the owner
#   timeout for 15 s (GET_PE flags HELD); when it exits, its socket's
#   release ends the hold and the owner timeout recovers the PE. A wedged
#   holder (alive, never renewing) loses its 2000 ms lease: the PE is
#   recovered while the holder still runs, the kernel log saying the hold
#   lapsed.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
PARAM=/sys/module/pcierr_shim/parameters/owner_timeout_ms
[ -w "$PARAM" ] || fail "no writable $PARAM"
BUDGET=/sys/module/pcierr_shim/parameters/owner_budget
old_timeout=$(cat "$PARAM")
old_budget=$(cat "$BUDGET")
CLEANUP_CMD="echo $old_timeout > $PARAM; echo $old_budget > $BUDGET"
CLEANUP_PES="$PE $RP_EDU"
require_normal "$PE" "$RP_EDU"
td_defaults
td_clear "$DEV"
# no budget (scenario 45 tests it): each owner recovery here counts none
echo "+ echo 20000 > $PARAM; echo 0 > $BUDGET"
echo 20000 > "$PARAM"
echo 0 > "$BUDGET"

pe_is_normal() { [ "$(pe_state "$1")" = normal ]; }

info "pcierrd killed during a recovery, not restarted"
# slot_reset sleeps 15 s: pcierrd is killed while the kernel runs it. The
# recovery is one RECOVER operation, which the shim finishes without its
# owner (resume included)
td_set "$DEV" delay_slot_reset 15000
sig_start
pcierrd_start
sig_mark
must_call Inject ssu "$DEV" frozen 0
wait_until 30 grep -q slot_reset "$SYS/$DEV/running" ||
	fail "the driver's slot_reset is not running"
pcierrd_kill9
t0=$(now_ns)
calls=$(td_calls "$DEV")
echo "  the driver's call log at the kill: $calls"
case "$calls" in
*resume*) fail "pcierrd finished the recovery before it was killed: $calls" ;;
esac
wait_until 60 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 60 s after the daemon died"
ok "PE $PE normal again $(ms_between "$t0" "$(now_ns)") ms after the kill (the RECOVER finished by the kernel)"
calls=$(td_calls "$DEV")
case "$calls" in
"error_detected(frozen)=need_reset"*"slot_reset=recovered resume") ok "the driver's recovery ended in slot_reset, resume" ;;
*) fail "unexpected call log: $calls" ;;
esac

info "no daemon, a driver with callbacks: the shim recovers it at the owner timeout"
td_set "$DEV" delay_slot_reset 0
td_clear "$DEV"
klines=$(dmesg | wc -l)
LOG21=$TMP/listen21
listen_start "$LOG21" --count 2 --timeout 120
t0=$(now_ns)
must_nl inject "$DEV"
wait_until 90 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 90 s after a freeze without a daemon"
ok "PE $PE normal again $(ms_between "$t0" "$(now_ns)") ms after the freeze (owner timeout 20000 ms, the shim's own recovery)"
listen_wait "$LPID" 30
sed 's/^/  | /' "$LOG21"
done21=$(grep -m 1 "^op_done .* op=owner_recover pe=$PE " "$LOG21") ||
	fail "no OP_DONE of an owner_recover of $PE"
expect "the owner_recover's errno" "$(kv errno "$done21")" 0
expect "the owner_recover's pe_state" "$(kv pe_state "$done21")" normal
calls=$(td_calls "$DEV")
echo "  call log: $calls"
case "$calls" in
"error_detected(frozen)=need_reset slot_reset=recovered resume") ok "the driver saw error_detected, slot_reset, resume" ;;
*) fail "unexpected call log: $calls" ;;
esac
expect "$DEV's channel state" "$(dev_state "$DEV")" normal
[ $(($(cmdreg "$DEV") & CMD_MEM)) != 0 ] || fail "$DEV decodes no memory after the recovery"
ok "$DEV decodes memory again"
bound_to "$DEV" pcierr_test || fail "$DEV lost its driver"
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: recovered by the shim itself" ||
	fail "no '$PE: pcierr: recovered by the shim itself' in the kernel log"
ok "the kernel log says the shim recovered it"

info "no daemon, a driver without callbacks: removed and rescanned"
bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound to pcierr_test_unaware"
# who is subscribed to generic netlink groups now (protocol 16, with
# groups): for the log, should the check below fail
awk 'NR == 1 || ($2 == 16 && $4 != "00000000") { print "  | " $0 }' /proc/net/netlink
for _i in $(awk 'NR > 1 && $2 == 16 && $4 != "00000000" { print $NF }' /proc/net/netlink); do
	ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q "socket:\[$_i\]" &&
		for _p in /proc/[0-9]*; do
			ls -l "$_p/fd" 2>/dev/null | grep -q "socket:\[$_i\]" &&
				echo "  | socket $_i: pid ${_p#/proc/} $(tr '\0' ' ' < "$_p/cmdline")"
		done
done
klines=$(dmesg | wc -l)
t0=$(now_ns)
must_nl inject "$EDU"
wait_until 90 pe_is_normal "$RP_EDU" || fail "PE $RP_EDU is '$(pe_state "$RP_EDU")' 90 s after the freeze"
wait_until 10 bound_to "$EDU" pcierr_test_unaware || fail "$EDU did not come back bound"
ok "PE $RP_EDU normal, $EDU bound again $(ms_between "$t0" "$(now_ns)") ms after the freeze"
dmesg | tail -n +"$((klines + 1))" | grep -q "$RP_EDU: pcierr: nobody recovered the PE in 20000 ms (nobody listens to pcierr events)" ||
	fail "the shim did not say that nobody listens and nobody recovered the PE"
ok "the shim says that nobody listens and nobody recovered the PE"
expect "$EDU's channel state" "$(dev_state "$EDU")" normal
dmesg | tail -n +"$((klines + 1))" | grep -q "$RP_EDU: pcierr: drivers cannot recover: removing and rescanning the PE" ||
	fail "no 'removing and rescanning' for $RP_EDU in the kernel log"
ok "the kernel log says why it was removed and rescanned"

info "a hold keeps the owner timeout away while its holder renews it"
echo 4000 > "$PARAM"
td_clear "$DEV"
held() { [ $(($(pe_flags "$1") & 0x10)) != 0 ]; }
klines=$(dmesg | wc -l)
must_nl inject "$DEV"
echo "+ $NL hold $PE 3000 --stay 15 --renew &"
"$NL" hold "$PE" 3000 --stay 15 --renew > "$TMP/hold21" 2>&1 &
HPID=$!
BG_PIDS="$BG_PIDS $HPID"
wait_until 10 held "$PE" || fail "PE $PE is not HELD (flags $(pe_flags "$PE"))"
ok "PE $PE is held (flags $(pe_flags "$PE"))"
sleep 12
expect "PE $PE's state 12 s into a renewed hold (owner timeout 4000 ms)" "$(pe_state "$PE")" frozen
expect "the driver's call log while held" "$(td_calls "$DEV")" ""
wait_until 30 gone "$HPID" || fail "the holder did not end"
wait "$HPID"
[ $? = 0 ] || fail "pcierr-nl hold failed: $(cat "$TMP/hold21")"
t0=$(now_ns)
wait_until 30 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 30 s after its holder exited"
ok "PE $PE recovered $(ms_between "$t0" "$(now_ns)") ms after its holder exited"
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: hold ended: its holder's socket closed" ||
	fail "no 'hold ended: its holder's socket closed' in the kernel log"
ok "the kernel log says the holder's socket closed"

info "a wedged holder: its lease lapses"
td_clear "$DEV"
klines=$(dmesg | wc -l)
must_nl inject "$DEV"
# before the holder starts: the hold is younger than what is measured
t0=$(now_ns)
echo "+ $NL hold $PE 2000 --stay 30 &"
"$NL" hold "$PE" 2000 --stay 30 > "$TMP/hold21b" 2>&1 &
HPID=$!
BG_PIDS="$BG_PIDS $HPID"
wait_until 10 held "$PE" || fail "PE $PE is not HELD"
wait_until 25 pe_is_normal "$PE" || fail "PE $PE is '$(pe_state "$PE")' 25 s after a 2000 ms lease that nobody renewed"
gone "$HPID" && fail "the holder ended before the PE was recovered"
took=$(ms_between "$t0" "$(now_ns)")
# the owner timeout counts from the end of the lease: 2000 + 4000 ms
[ "$took" -ge 6000 ] || fail "PE $PE recovered $took ms after the hold began: before its lease (2000 ms) and the owner timeout after it (4000 ms)"
ok "PE $PE recovered $took ms after the hold began (lease 2000 ms, then the owner timeout 4000 ms), its holder still running"
kill "$HPID" 2>/dev/null
wait "$HPID" 2>/dev/null
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: the hold on the PE lapsed" ||
	fail "no 'the hold on the PE lapsed' in the kernel log"
ok "the kernel log says the hold lapsed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 11: pcierrd recovers the e1000e by its own callbacks.
#   Manager.Inject (as root, over D-Bus) on the e1000e: ErrorDetected
#   (source inject), RecoveryStarted (callbacks), RecoveryStep
#   error_detected (need_reset) -> reset -> slot_reset (recovered) ->
#   resume, in this order, RecoveryFinished recovered with a duration > 0;
#   the Slot's Backend is generic (x86);
#   the Device's FreezeCount is 1, the Slot's LastResult recovered, the
#   channel state normal; the NIC works afterwards (driver bound, carrier,
#   sane registers read through the driver).
#   Issue 12, pre-authorised auto-recover: pcierrd arms the PE
#   (PCIERR_PE_F_ARMED in the shim's dump) and the shim starts the
#   RECOVER itself (pcierrd sends none and says it awaits the shim's); the
#   PE is armed again after the recovery and disarmed when pcierrd exits
#   (its socket closes: NETLINK_URELEASE).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_E1000E
DEV=$E1000E
CLEANUP_PES=$PE
require_normal "$PE"
nic_works "$DEV" "before the error"

sig_start
# the Prometheus textfile, written by pcierrd on every change
METRICS=$PD_DIR/pcierr.prom
pd_conf "[Policy]
MetricsPath=$METRICS"
pcierrd_start
bus_objects "$PE" "$DEV"
expect_prop dev "$DEV" Driver e1000e
expect_prop dev "$DEV" State normal
expect_prop dev "$DEV" FreezeCount 0
expect_prop dev "$DEV" MaxFreezes 5
# names from the udev hwdb (built from pci.ids), as lspci shows them
expect_prop dev "$DEV" VendorName "Intel Corporation"
expect_prop dev "$DEV" DeviceName "82574L Gigabit Network Connection"
expect_prop slot "$PE" State normal
expect_prop slot "$PE" Step idle
expect_prop slot "$PE" LastResult ""
# who recovers it (docs/pseries.md): on x86 always the generic backend
expect_prop slot "$PE" Backend generic
h=$(dev_prop "$DEV" Handlers)
echo "  Handlers: $h"
case "$h" in *'"error_detected"'*'"slot_reset"'*) ;; *) fail "Handlers of the e1000e lack error_detected/slot_reset: $h" ;; esac
ok "Handlers name error_detected and slot_reset"
# issue 12: armed (PCIERR_PE_F_ARMED = 0x8)
armed() { [ $(($(pe_flags "$PE") & 8)) -ne 0 ]; }
not_armed() { ! armed; }
wait_until 10 armed || fail "pcierrd did not arm $PE (pe_flags $(pe_flags "$PE"))"
ok "$PE armed by pcierrd (pe_flags $(pe_flags "$PE"))"
started0=$(mgr_prop RecoveriesStarted)
succ0=$(mgr_prop RecoveriesSucceeded)
resets0=$(nl_stat resets)

sig_mark
t0=$(now_ns)
must_call Inject ssu "$DEV" frozen 0
seq=$(bus_value "$out")
[ "$seq" -gt 0 ] 2>/dev/null || fail "Inject returned '$out', expected a sequence number"
ok "Inject returned seq $seq"
must_signal 30 ErrorDetected "\"$PE\""
expect "ErrorDetected device" "$(sig_arg "$sig" 2)" "$DEV"
expect "ErrorDetected state" "$(sig_arg "$sig" 3)" frozen
expect "ErrorDetected source" "$(sig_arg "$sig" 5)" inject
must_signal 30 RecoveryStarted "\"$PE\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" callbacks
finish_of "$PE" 60
wall=$(ms_between "$t0" "$(now_ns)")
echo "-- RecoveryFinished after $wall ms of guest time; the steps: $(steps_since "$PE")"
expect "RecoveryFinished result" "$fin_result" recovered
[ "$fin_usec" -gt 0 ] || fail "RecoveryFinished duration is $fin_usec"
ok "recovery took $fin_usec us (pcierrd's measure)"
# pcierrd's own share: the recovery's duration less the shim's steps
# (reported, not asserted: guest time on a TCG VM)
steps_us=$(tail -n +"$SIG_MARK" "$SIG_FILE" | grep '"member":"RecoveryStep"' | grep -F "\"$PE\"" |
	while IFS= read -r _l; do sig_arg "$_l" 4; done | awk '{ s += $1 } END { print s + 0 }')
echo "-- pcierrd's own share: $((fin_usec - steps_us)) us of $fin_usec us (the shim's steps: $steps_us us, MetricsPath set)"
expect "steps, in order" "$(step_names "$PE")" "error_detected reset slot_reset resume"
expect "error_detected and slot_reset answers" \
	"$(steps_since "$PE" | tr ' ' '\n' | grep -E '^(error_detected|slot_reset)=' | tr '\n' ' ')" \
	"error_detected=need_reset slot_reset=recovered "

expect_prop dev "$DEV" FreezeCount 1
expect_prop dev "$DEV" State normal
expect_prop dev "$DEV" Driver e1000e
expect_prop slot "$PE" State normal
expect_prop slot "$PE" Step idle
expect_prop slot "$PE" LastResult recovered
expect_prop slot "$PE" LastDurationUSec "$fin_usec"
expect_prop mgr - RecoveriesStarted $((started0 + 1))
expect_prop mgr - RecoveriesSucceeded $((succ0 + 1))
le=$(dev_prop "$DEV" LastErrorUSec)
[ "$le" -gt 0 ] || fail "LastErrorUSec is $le after a freeze"
ok "LastErrorUSec $le"
expect "shim: PE state" "$(pe_state "$PE")" normal
expect "shim: resets" "$(nl_stat resets)" $((resets0 + 1))
# the metrics file says the same
wait_until 5 grep -q '^pcierr_recoveries_succeeded_total 1$' "$METRICS" ||
	{ sed 's/^/  | /' "$METRICS" 2>/dev/null; fail "metrics: no pcierr_recoveries_succeeded_total 1 in $METRICS"; }
grep -q "^pcierr_device_window_freezes{address=\"$DEV\",.*} 1\$" "$METRICS" ||
	{ grep window_freezes "$METRICS" | sed 's/^/  | /'; fail "metrics: $DEV's freeze count is not 1"; }
grep -q '^pcierr_kernel_connected 1$' "$METRICS" || fail "metrics: kernel not connected"
ok "metrics $METRICS: 1 recovery succeeded, $DEV froze once, kernel connected"
# Prometheus' own linter (Debian's prometheus package, from the host root)
command -v promtool >/dev/null || fail "promtool not found (scripts/install-deps installs prometheus)"
lint=$(promtool check metrics < "$METRICS" 2>&1) ||
	{ printf '%s\n' "$lint" | sed 's/^/  | /'; fail "promtool check metrics flags $METRICS"; }
[ -z "$lint" ] || { printf '%s\n' "$lint" | sed 's/^/  | /'; fail "promtool check metrics: $lint"; }
ok "promtool check metrics: $METRICS passes"
# the history: the event, each step, the recovery (kind, step, result)
must_call GetHistory tsu 0 "$PE" 0
kinds=$(printf '%s\n' "$out" | grep -o '"event"\|"step" "[a-z_]*" "[a-z_]*"\|"recovery" "[a-z-]*" "[a-z]*"' | tr -d '"' | tr '\n' ',')
echo "  history: $kinds"
expect "GetHistory of $PE (kind step result)" "$kinds" \
	"event,step error_detected need_reset,step reset ok,step slot_reset recovered,step resume recovered,recovery callbacks recovered,"

nic_works "$DEV" "after the recovery"
# issue 12: the shim's own RECOVER, awaited; armed again; disarmed at exit
grep -q "Slot $PE: recover [0-9]* started by the shim itself (armed)" "$PD_LOG" ||
	fail "pcierrd did not take up the shim's own RECOVER (no 'started by the shim itself' in $PD_LOG)"
ok "the freeze was recovered by the shim's own RECOVER (armed)"
wait_until 10 armed || fail "$PE not armed again after the recovery (pe_flags $(pe_flags "$PE"))"
ok "$PE armed again after the recovery"
pcierrd_stop
wait_until 5 not_armed || fail "$PE still armed after pcierrd exited (pe_flags $(pe_flags "$PE"))"
ok "$PE disarmed when pcierrd's socket closed"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 30: pcierrd SIGKILLed during the hotplug path of a recovery
# (issue 11 point 7: remove, rescan; vm-faults-defects: fails today, see
# docs/reliability.md). Scenario 25's rounds, on testdev B whose driver
# has no err_handler (pcierrd then removes, waits for udev, resets and
# rescans):
#   - remove: killed while the driver's remove() hangs (delay_remove hang),
#     started again, remove() released;
#   - rescan: remove() released and pcierrd killed at once.
#   After each restart the recovery must complete: RecoveryFinished
#   recovered, the device bound, the PE normal, FreezeCount +1 exactly.
# Measured (as rounds 5-6 of scenario 25, run of 16:41): after the kill in
# remove, the restarted pcierrd waits for the operation, then says "Slot
# 0000:00:12.0 was left hot-unplugged; rescanning" and "rescan done": the
# card comes back bound, but without the reset step and without any
# RecoveryFinished signal (the round waits for it in vain).
# Mended (branch d-faults): the resync finishes the cut recovery (reset,
# rescan, RecoveryFinished); passed 3 of 3 runs; in vm-check now.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"
command -v sqlite3 >/dev/null || fail "no sqlite3 (scripts/install-deps)"

# (six rounds: more freezes than the default 5 of an hour allow)
pd_conf "[Policy]
MaxFreezes=1000"
sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
fc0=$(dev_prop "$DEV" FreezeCount)
h0=$(history_count "$PE")
n=0
summary=

# round NAME: inject, kill pcierrd at NAME (see above), restart, finish
round() {
	_name=$1
	n=$((n + 1))
	info "round $n: SIGKILL at $_name"
	td_clear "$DEV"
	case "$_name" in
	error_detected|slot_reset|resume) td_set "$DEV" "delay_$_name" hang ;;
	reset) td_set "$DEV" delay_error_detected hang ;;
	remove|rescan) td_set "$DEV" delay_remove hang ;;
	esac
	_nh=$(dmesg | grep -c "$DEV: remove hangs")
	sig_mark
	must_call Inject ssu "$DEV" frozen 0
	case "$_name" in
	error_detected|slot_reset|resume|reset)
		_cb=$_name
		[ "$_name" = reset ] && _cb=error_detected
		wait_until 30 grep -q "$_cb" "$SYS/$DEV/running" ||
			fail "the driver's $_cb is not running"
		;;
	remove|rescan)
		wait_until 30 sh -c "[ \$(dmesg | grep -c '$DEV: remove hangs') -gt $_nh ]" ||
			fail "the driver's remove() did not start"
		;;
	esac
	case "$_name" in
	reset)
		td_set "$DEV" delay_error_detected 0
		echo "+ echo 1 > $SYS/$DEV/release; kill -KILL $PD_PID"
		echo 1 > "$SYS/$DEV/release"
		;;
	rescan)
		echo "+ echo 1 > $TD_DRIVER/release_all; kill -KILL $PD_PID"
		echo 1 > "$TD_DRIVER/release_all"
		;;
	esac
	pcierrd_kill9
	_before=$(steps_since "$PE")
	echo "  steps before the kill: [$_before]; the driver runs: $(cat "$SYS/$DEV/running" 2>/dev/null || echo "(no device)")"
	sig_mark
	pcierrd_start
	case "$_name" in
	error_detected|slot_reset|resume)
		expect "still hanging after the restart" "$(cat "$SYS/$DEV/running")" "$_name"
		# (no more hang: called again, the callback must return)
		td_set "$DEV" "delay_$_name" 0
		echo "+ echo 1 > $SYS/$DEV/release"
		echo 1 > "$SYS/$DEV/release"
		;;
	remove)
		echo "+ echo 1 > $TD_DRIVER/release_all"
		echo 1 > "$TD_DRIVER/release_all"
		;;
	esac
	finish_of "$PE" 90
	_after=$(steps_since "$PE")
	echo "  after the restart: $fin_result; steps: $_after"
	expect "round $n ($_name): RecoveryFinished" "$fin_result" recovered
	wait_until 20 bound_to "$DEV" pcierr_test || fail "$DEV is not bound to pcierr_test"
	expect "round $n: shim PE state" "$(pe_state "$PE")" normal
	wait_prop 10 slot "$PE" Step idle
	# after a remove the Device object is a new one: look it up again
	unset _pathcache_GetDevice_0000_03_00_0 2>/dev/null
	wait_until 10 dev_path "$DEV" || fail "no Device object for $DEV"
	expect_prop dev "$DEV" FreezeCount $((fc0 + n))
	echo "  history entries of $PE: $(history_count "$PE")"
	echo 1 > "$SYS/$DEV/config_reset"
	summary="$summary
  $_name: before the kill [$_before], after [$_after] $fin_result"
}

# the hotplug path: no err_handler, pcierrd removes and rescans
td_handlers -
CLEANUP_CMD='td_handlers all'
# pcierrd learns a driver's callbacks from the dump; the test driver's
# switch makes no event, so a pcierrd started before it would still take
# the callbacks path (no remove): start it afresh
pcierrd_stop
pcierrd_start
round remove
round rescan
td_handlers all

echo "rounds:$summary"
must_call GetHistory tsu 0 "$PE" 0
printf '%s\n' "$out" | head -n 3
h1=$(history_count "$PE")
[ "${h1:-0}" -gt "${h0:-0}" ] || fail "no history was added ($h0 -> $h1)"
# one "recovery" entry per round, result recovered (callbacks or full-hotplug)
got=$(printf '%s\n' "$out" | grep -o '"recovery" "[a-z-]*" "recovered"' | wc -l)
[ "$got" -ge "$n" ] || fail "the history has $got recovered recoveries for $n rounds"
ok "the history has $((h1 - h0)) entries more, $got recoveries 'recovered' ($n rounds)"
r=$(mgr_prop Resyncs)
echo "  Resyncs $r"
pcierrd_stop
run sqlite3 "$PD_STATE/state.db" 'PRAGMA integrity_check;'
expect "integrity_check" "$out" ok

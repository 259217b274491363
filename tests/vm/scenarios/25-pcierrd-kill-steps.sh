#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 25: pcierrd SIGKILLed at each step of a recovery in turn (issue
# 11 point 7; scenario 16 kills it once, at the reset).
#   Testdev B; one injection per round; the kill points are held by the
#   test driver's hangs (delay_<cb> hang, delay_remove hang), so that none
#   depends on timing:
#   - error_detected, slot_reset, resume: pcierrd is killed while that
#     callback hangs in the driver, started again, then the callback is
#     released;
#   - reset (scenario 31, KILL_ROUNDS=reset): error_detected hangs, is
#     released and pcierrd killed at once (the kernel's RECOVER goes on to
#     the reset and may end before pcierrd is back);
#   - remove, rescan (scenario 30, KILL_HOTPLUG=1, the driver without
#     err_handler): killed while remove() hangs; remove() released and
#     pcierrd killed at once;
#   - disable: pcierrd restarted with MaxFreezes = FreezeCount, so that
#     the injection disables the slot; killed while the DISABLE's remove()
#     hangs, started again, remove() released. The restarted pcierrd must
#     record the end once: RecoveryFinished disabled and PermanentlyDisabled
#     (one each), the card gone, the slot Disabled, the PE disabled; in the
#     state one disabled identity, its freeze count FreezeCount + 1; in the
#     history one "disable" entry and one "recovery ... disabled". Enable
#     brings the card back (FreezeCount 0 after it).
#   After each kill pcierrd is started again on the same state directory
#   and the recovery completes (RecoveryFinished recovered, the device
#   bound, the PE normal); FreezeCount goes up by exactly one per round
#   (no freeze lost or counted twice); the history has each round's
#   recovery; at the end PRAGMA integrity_check says ok.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"
command -v sqlite3 >/dev/null || fail "no sqlite3 (scripts/install-deps)"

# (more freezes than the default 5 of an hour allow, with the runs before)
pd_conf "[Policy]
MaxFreezes=1000"
sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
fc0=$(dev_prop "$DEV" FreezeCount)
h0=$(history_count "$PE")
n=0
n_disabled=0
summary=
DB=$PD_STATE/state.db
db() { sqlite3 -readonly "$DB" "$1" 2>&1; }
db_is() { [ "$(db "$1")" = "$2" ]; }
remove_hangs_more() { [ "$(dmesg | grep -c "$DEV: remove hangs")" -gt "$1" ]; }
SQL_DISABLED_END="SELECT COUNT(*) FROM history WHERE pe = '$PE' AND kind = 'recovery' AND result = 'disabled';"

# disable_round: the disable kill point (see above)
disable_round() {
	n=$((n + 1))
	n_disabled=$((n_disabled + 1))
	_c=$(dev_prop "$DEV" FreezeCount)
	info "round $n: SIGKILL at disable (MaxFreezes=$_c: this freeze, the $((_c + 1))th, disables)"
	pd_conf "[Policy]
MaxFreezes=$_c"
	pcierrd_stop
	pcierrd_start
	_d0=$(db "SELECT COUNT(*) FROM history WHERE pe = '$PE' AND kind = 'disable';")
	td_clear "$DEV"
	td_set "$DEV" delay_remove hang
	_nh=$(dmesg | grep -c "$DEV: remove hangs")
	sig_mark
	must_call Inject ssu "$DEV" frozen 0
	wait_until 30 remove_hangs_more "$_nh" || fail "the DISABLE's remove() did not start"
	pcierrd_kill9
	echo "  killed in the DISABLE: shim PE state $(pe_state "$PE"); the driver runs: $(cat "$SYS/$DEV/running" 2>/dev/null || echo "(no device file)")"
	sig_mark
	pcierrd_start
	echo "+ echo 1 > $TD_DRIVER/release_all"
	echo 1 > "$TD_DRIVER/release_all"
	finish_of "$PE" 90
	echo "  after the restart: $fin_result"
	expect "round $n (disable): RecoveryFinished" "$fin_result" disabled
	must_signal 10 PermanentlyDisabled "\"$PE\""
	echo "  PermanentlyDisabled: $(sig_arg "$sig" 3)"
	wait_until 10 absent "$DEV" || fail "$DEV is still in $SYS after the disable"
	expect "round $n: shim PE state" "$(pe_state "$PE")" disabled
	wait_prop 10 slot "$PE" Step idle
	expect_prop slot "$PE" Disabled true
	expect_prop slot "$PE" LastResult disabled
	# once: one of each signal since the restart (a second end would come
	# at once: 3 s to show)
	sleep 3
	_fin=$(tail -n +"$SIG_MARK" "$SIG_FILE" | grep '"member":"RecoveryFinished"' | grep -cF "\"$PE\"")
	_dis=$(tail -n +"$SIG_MARK" "$SIG_FILE" | grep '"member":"PermanentlyDisabled"' | grep -cF "\"$PE\"")
	expect "round $n: RecoveryFinished signals" "$_fin" 1
	expect "round $n: PermanentlyDisabled signals" "$_dis" 1
	# the state: the identity disabled once, its freeze counted once
	wait_until 10 db_is "$SQL_DISABLED_END" "$n_disabled" ||
		fail "'recovery ... disabled' history entries: $(db "$SQL_DISABLED_END"), not $n_disabled"
	ok "the history has the recovery's end ('disabled'), once"
	expect "round $n: 'disable' history entries added" \
		"$(db "SELECT COUNT(*) FROM history WHERE pe = '$PE' AND kind = 'disable';")" $((_d0 + 1))
	expect "round $n: disabled identities of $PE" \
		"$(db "SELECT COUNT(*) FROM disabled WHERE pe = '$PE';")" 1
	expect "round $n: freeze count of the disabled identity" \
		"$(db "SELECT f.count FROM freeze f JOIN disabled d ON f.identity = d.identity WHERE d.pe = '$PE';")" $((_c + 1))
	info "Enable: the card comes back"
	must_call Enable s "$PE"
	wait_until 20 bound_to "$DEV" pcierr_test || fail "$DEV is not bound to pcierr_test after Enable"
	wait_prop 10 slot "$PE" Disabled false
	expect "shim PE state after Enable" "$(pe_state "$PE")" normal
	unset _pathcache_GetDevice_0000_03_00_0 2>/dev/null
	wait_until 10 dev_path "$DEV" || fail "no Device object for $DEV"
	wait_prop 10 dev "$DEV" FreezeCount 0
	# the rounds after count from 0 again, with the usual MaxFreezes
	fc0=$((0 - n))
	pd_conf "[Policy]
MaxFreezes=1000"
	pcierrd_stop
	pcierrd_start
	summary="$summary
  disable: after the restart $fin_result, MaxFreezes $_c, freeze count $((_c + 1))"
}

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

# (31 runs the "reset" round alone: a known defect under RECOVER; 30 the
# hotplug path's rounds, KILL_HOTPLUG=1)
if [ -n "${KILL_HOTPLUG:-}" ]; then
	# no err_handler: pcierrd removes and rescans. pcierrd learns a
	# driver's callbacks from the dump and the test driver's switch makes
	# no event: start it afresh
	td_handlers -
	CLEANUP_CMD='td_handlers all'
	pcierrd_stop
	pcierrd_start
fi
for _r in ${KILL_ROUNDS:-error_detected slot_reset resume disable}; do
	if [ "$_r" = disable ]; then
		disable_round
	else
		round "$_r"
	fi
done
[ -z "${KILL_HOTPLUG:-}" ] || td_handlers all
echo "rounds:$summary"
must_call GetHistory tsu 0 "$PE" 0
printf '%s\n' "$out" | head -n 3
h1=$(history_count "$PE")
[ "${h1:-0}" -gt "${h0:-0}" ] || fail "no history was added ($h0 -> $h1)"
# one "recovery" entry per round, result recovered (callbacks or full-hotplug)
got=$(printf '%s\n' "$out" | grep -o '"recovery" "[a-z-]*" "recovered"' | wc -l)
[ "$got" -ge $((n - n_disabled)) ] ||
	fail "the history has $got recovered recoveries for $((n - n_disabled)) rounds"
ok "the history has $((h1 - h0)) entries more, $got recoveries 'recovered' ($n rounds, $n_disabled disabling)"
r=$(mgr_prop Resyncs)
echo "  Resyncs $r"
pcierrd_stop
run sqlite3 "$PD_STATE/state.db" 'PRAGMA integrity_check;'
expect "integrity_check" "$out" ok

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 22: pcierrd is never wedged (issue 10 points 1 and 6).
#   A corrupt state database at start: pcierrd moves it aside
#   (state.db.corrupt-<time>), starts with a fresh one and says so in its
#   log; recovery goes on.
#   A lost OP_DONE (the test hook PCIERRD_TEST_DROP_OP_DONE drops the
#   e1000e's error_detected completion): at StepTimeoutSec pcierrd asks the
#   shim (GET_PE's last operation, ABI v2), learns how the step ended
#   (need_reset) and goes on with a reset; the NIC is recovered and works,
#   the slot is idle.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_E1000E
DEV=$E1000E
CLEANUP_PES=$PE
require_normal "$PE"

sig_start
info "a corrupt state database"
mkdir -p "$PD_STATE"
head -c 16384 /dev/urandom > "$PD_STATE/state.db"
pd_conf "[Policy]
StepTimeoutSec=3"
export PCIERRD_TEST_DROP_OP_DONE=error_detected
pcierrd_start
unset PCIERRD_TEST_DROP_OP_DONE
aside=
for _f in "$PD_STATE"/state.db.corrupt-*; do
	case "$_f" in *-wal|*-shm) continue ;; esac
	[ -e "$_f" ] && aside=${_f##*/}
done
[ -n "$aside" ] || { ls -l "$PD_STATE"; fail "no state.db.corrupt-* in $PD_STATE"; }
ok "the corrupt database was moved aside as $aside"
grep -q "could not be used.*moved to .*$aside" "$PD_LOG" ||
	fail "pcierrd's log does not say the database was moved aside"
ok "pcierrd's log says so"
expect_prop dev "$DEV" FreezeCount 0

info "a lost OP_DONE"
sig_mark
must_call Inject ssu "$DEV" frozen 0
must_signal 30 RecoveryStarted "\"$PE\""
finish_of "$PE" 90
echo "  steps: $(steps_since "$PE")"
expect "RecoveryFinished result" "$fin_result" recovered
expect "steps, in order" "$(steps_since "$PE")" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered"
grep -q "PCIERRD_TEST_DROP_OP_DONE: dropping the OP_DONE of error_detected" "$PD_LOG" ||
	fail "the test hook did not drop the OP_DONE"
grep -q "completion never came" "$PD_LOG" || fail "pcierrd did not say the completion never came"
ok "the step timeout asked the kernel and went on"
expect_prop slot "$PE" Step idle
expect_prop slot "$PE" LastResult recovered
expect_prop dev "$DEV" FreezeCount 1
# the fresh database holds it
must_call GetHistory tsu 0 "$PE" 0
printf '%s\n' "$out" | grep -q '"step" "error_detected" "need_reset"' ||
	fail "the history lacks the step: $out"
ok "the history has the step whose completion was lost"
nic_works "$DEV" "after the recovery"
pcierrd_stop

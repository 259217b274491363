#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 3: nvme with reads and verified writes across a freeze.
#   blkpat loop on the namespace: reads of the first half (the pattern,
#   generation 0) and, after each, a write of the next chunk of a scratch
#   region (the second half) with a new generation, O_DIRECT|O_DSYNC, read
#   back and checked; `pcierrctl inject` freezes the slot meanwhile and
#   pcierrd recovers it by nvme's callbacks (error_detected need_reset:
#   "frozen state error detected, reset controller"; reset; slot_reset
#   recovered: "restart after slot reset"; resume waits for the controller
#   reset). Checked: no read or read-back returned wrong bytes; all right
#   after RecoveryFinished; the final pass finds every scratch chunk
#   holding its last successful write (or the failed one after it); the
#   read region is intact; exactly one controller reset: nvme's
#   reset_work (nvme_reset_work) runs once, counted with the function
#   tracer, and the driver logs one "restart after slot reset". (A reset
#   of the slot that calls the driver's reset_prepare/reset_done, as
#   pci_reset_bus() does, makes nvme_reset_done run a controller reset of
#   its own before slot_reset schedules another: two -- review D3.)
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_NVME
DEV=$NVME
CLEANUP_PES=$PE
require_normal "$PE"
disk_ready "$DEV" nvme
half=$((DISK_NVME_SECTORS / 2))
ok "the namespace of $DEV is /dev/$disk; reads of sectors 0-$((half - 1)), writes to $half-$((DISK_NVME_SECTORS - 1))"

pd_begin "$PE" "$DEV"
klines=$(dmesg | wc -l)
nvme_resets_start

blk_start nvme "$disk" --read 0 "$half" --write "$half" "$half" --interval 20
sleep 3
recovery_of "$PE" "$DEV"
while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt 5000 ]; do
	sleep 0.5
done
blk_stop nvme 60
blk_stats nvme "$INJ_T0" "$INJ_T1"
nvme_resets_stop
kl=$(dmesg | tail -n +"$((klines + 1))")
printf '%s\n' "$kl" | grep -E 'nvme' | head -n 30 | sed 's/^/  | /'

sum=$(grep '^summary ' "$TMP/blk.nvme")
row "$DEV" nvme "$handlers" "$rec_mode" "$(ms "$fin_usec")" \
	"reads $bk_before" "$bk_during (longest op $bk_longest_ms ms)" "$bk_after (first +$bk_resume_ms ms)" \
	"wrong bytes: $bk_bad; writes $(kv write_ok "$sum") ok/$(kv write_err "$sum") failed, final pass bad $(kv final_bad "$sum"); $resets controller reset(s)$([ "$bk_hung" = 1 ] && echo '; I/O HUNG')"
expect "nvme: controller resets (nvme_reset_work runs)" "$resets" 1
[ "$bk_hung" = 0 ] || fail "the I/O is stuck after the recovery (blkpat did not stop within 60 s)"
expect "RecoveryStarted mode" "$rec_mode" callbacks
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(steps_since "$PE")" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered"
expect "nvme: 'frozen state error detected' lines" \
	"$(printf '%s\n' "$kl" | grep -c 'frozen state error detected, reset controller')" 1
expect "nvme: slot_reset's 'restart after slot reset'" \
	"$(printf '%s\n' "$kl" | grep -c 'restart after slot reset')" 1
expect "reads and read-backs that returned wrong bytes" "$bk_bad" 0
expect "reads started after RecoveryFinished that were not right" "$bk_after_bad" 0
expect "read-backs of successful writes that were wrong" "$(kv readback_bad "$sum")" 0
expect "scratch chunks not holding their last write (final pass)" "$(kv final_bad "$sum")" 0
[ "$(kv write_ok "$sum")" -gt 0 ] || fail "no write succeeded"
[ "$bk_resume_ms" -ge 0 ] || fail "no right read after RecoveryFinished"
run "$BLKPAT" check "/dev/$disk" 0 "$half"
[ "$rc" = 0 ] || fail "the read region of /dev/$disk is not intact"
bound_to "$DEV" nvme || fail "$DEV lost its driver"
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 2: sym53c8xx_2 (lsi53c895a) under I/O, as seed 007 tested it.
#   A reader (blkpat loop, O_DIRECT, 32 KiB reads round the whole disk)
#   checks every read against the pattern while `pcierrctl inject` freezes
#   the slot and pcierrd recovers it by sym53c8xx's callbacks: its
#   error_detected answers can_recover (it wants its registers dumped), so
#   enable_io and mmio_enabled (the dump, need_reset), reset, slot_reset
#   (recovered: "recovering from a PCI slot reset", a SCSI bus reset),
#   resume. Checked: no read ever returned wrong bytes (each failed
#   visibly or was right); every read started after RecoveryFinished is
#   right; the reader stops within 60 s of SIGTERM (no deadlock between the
#   SCSI midlayer's error handling and the recovery); the whole disk reads
#   right afterwards; no hung task (the run's kernel-log check).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_SYM
DEV=$SYM
CLEANUP_PES=$PE
require_normal "$PE"
disk_ready "$DEV" sym53c8xx

pd_begin "$PE" "$DEV"
klines=$(dmesg | wc -l)

blk_start sym "$disk" --read 0 "$DISK_SYM_SECTORS" --interval 20
sleep 3
recovery_of "$PE" "$DEV"
while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt 5000 ]; do
	sleep 0.5
done
blk_stop sym 60
blk_stats sym "$INJ_T0" "$INJ_T1"
dmesg | tail -n +"$((klines + 1))" | grep -E 'sym0|scsi|sd |pcierr' | head -n 40 | sed 's/^/  | /'

row "$DEV" sym53c8xx "$handlers" "$rec_mode" "$(ms "$fin_usec")" \
	"reads $bk_before" "$bk_during (longest read $bk_longest_ms ms)" "$bk_after (first +$bk_resume_ms ms)" \
	"wrong bytes: $bk_bad$([ "$bk_hung" = 1 ] && echo '; I/O HUNG')"
[ "$bk_hung" = 0 ] || fail "the reader's I/O is stuck after the recovery (blkpat did not stop within 60 s)"
expect "RecoveryStarted mode" "$rec_mode" callbacks
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(steps_since "$PE")" \
	"error_detected=can_recover enable_io=ok mmio_enabled=need_reset reset=ok slot_reset=recovered resume=recovered"
dmesg | tail -n +"$((klines + 1))" | grep -q 'recovering from a PCI slot reset' ||
	fail "sym53c8xx did not log 'recovering from a PCI slot reset'"
ok "sym53c8xx logged 'recovering from a PCI slot reset'"
expect "reads that returned wrong bytes" "$bk_bad" 0
expect "reads started after RecoveryFinished that were not right" "$bk_after_bad" 0
[ "$bk_resume_ms" -ge 0 ] || fail "no right read after RecoveryFinished"
ok "the first read after RecoveryFinished was right, $bk_resume_ms ms after it"
run "$BLKPAT" check "/dev/$disk" 0 "$DISK_SYM_SECTORS"
[ "$rc" = 0 ] || fail "/dev/$disk does not hold the pattern after the recovery"
bound_to "$DEV" sym53c8xx || fail "$DEV lost its driver"
pcierrd_stop

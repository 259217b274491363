#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Driver suite 99 (last on purpose): megaraid_sas (no handlers) with disk
# reads running: the full hotplug fallback.
#
# KNOWN TO FAIL: before the shim's surprise removal, megaraid_sas's
# remove waited for the frozen card's firmware and hung; with it (merged
# at 802fd59) the freeze is lifted for the teardown, but with this
# reader's I/O in flight megasas_detach_one still blocks in
# scsi_remove_host -> __scsi_remove_device (docs/drivers.md). This scenario does not hang the run: it
# waits at most 60 s for RecoveryFinished and fails saying so; it is the
# last of the suite because the stuck removal holds the PCI rescan lock
# (the kernel-log check then reports the blocked task too).
#
#   A reader (blkpat loop, O_DIRECT) on the megasas disk; `pcierrctl
#   inject` freezes the slot: RecoveryStarted full-hotplug, steps remove,
#   wait_udev, reset, rescan; recovered within 60 s. The reader's reads
#   fail visibly once the disk is gone (never wrong bytes); megaraid_sas
#   binds the new device by itself, its new disk holds the pattern, all
#   of it, and reads right.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_MEGASAS
DEV=$MEGASAS
CLEANUP_PES=$PE
require_normal "$PE"
disk_ready "$DEV" megaraid_sas

pd_begin "$PE" "$DEV"
blk_start megasas "$disk" --read 0 "$DISK_MEGASAS_SECTORS" --interval 20
sleep 3
sig_mark
inject_bg "$DEV"
must_signal 30 RecoveryStarted "\"$PE\""
rec_mode=$(sig_arg "$sig" 2)
expect "RecoveryStarted mode" "$rec_mode" full-hotplug
if ! wait_signal 60 RecoveryFinished "\"$PE\""; then
	echo "-- steps so far: $(steps_since "$PE"); slot Step: $(slot_prop "$PE" Step 2>/dev/null)"
	echo "-- blocked tasks:"
	echo w > /proc/sysrq-trigger 2>/dev/null
	# the PE's removal is stuck: the clean-up must not wait on it
	CLEANUP_PES=
	row "$DEV" megaraid_sas "$handlers" "full hotplug: HUNG" "> 60 s" - - - \
		"KNOWN: the removal blocks (megasas_detach_one, scsi_remove_host) with I/O in flight"
	fail "KNOWN FAILURE: no RecoveryFinished within 60 s; megaraid_sas's removal is stuck (see the blocked tasks above)"
fi
fin_result=$(sig_arg "$sig" 2)
fin_usec=$(sig_arg "$sig" 3)
INJ_T1=$(now_ns)
inject_wait
echo "  steps: $(steps_since "$PE")"
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
wait_until 30 bound_to "$DEV" megaraid_sas || fail "$DEV not rebound to megaraid_sas (driver $(driver_of "$DEV"))"
wait_until 30 disk_of "$DEV" || fail "no disk below the rescanned $DEV"
back_ms=$(( ($(now_ns) - INJ_T1) / 1000000 ))
new=$(disk_of "$DEV")
ok "$DEV rebound to megaraid_sas, its disk back as /dev/$new $back_ms ms after RecoveryFinished"
blk_stop megasas 60
[ "$bk_hung" = 0 ] || fail "the reader's I/O on the removed disk is stuck (blkpat did not stop within 60 s)"
blk_stats megasas "$INJ_T0" "$INJ_T1"
expect "reads that returned wrong bytes" "$bk_bad" 0
run "$BLKPAT" check "/dev/$new" 0 "$DISK_MEGASAS_SECTORS"
[ "$rc" = 0 ] || fail "/dev/$new does not hold the pattern after the hotplug"
row "$DEV" megaraid_sas "$handlers" "full hotplug" "$(ms "$fin_usec")" \
	"reads $bk_before" "$bk_during" "disk back as /dev/$new +$back_ms ms" \
	"wrong bytes: $bk_bad; new disk all right"
pcierrd_stop

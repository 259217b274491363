#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 1800
#
# Matrix 1: no freeze hangs (issue 25 point 3). A virtio-scsi HBA
# (virtio-pci has no handlers: pcierrd's full hotplug fallback) frozen
# LOOPS (10) times with a reader's O_DIRECT
# reads running. pcierrd is stopped for 2 s around each injection (a
# daemon slow to act, as under load), so that the reader posts reads to
# the frozen HBA and at least one is lost for sure: its notification never
# reaches the device. virtio_scsi never gives up a command by itself (its
# eh_timed_out rearms the timer for ever), so before the shim failed such
# commands (kernel/pcierr_shim/surprise.c) sd_remove() waited in
# del_gendisk() for ever, the reader in D state.
#   Each freeze must end, RecoveryFinished "recovered" within 60 s of
#   RecoveryStarted (the steps remove, wait_udev, reset, rescan); the
#   reader stop within 30 s of SIGTERM (no read stuck), with its reads
#   failed visibly once the disk was gone (an I/O error, never wrong
#   bytes); the shim say it failed the lost commands; the new disk, read
#   right after the rescan, hold the whole pattern. Prints the count of
#   freezes and of hangs; any hang fails (with the blocked tasks).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
# shellcheck source=tests/vm/matrix-lib.sh
. "$PCIERR_TREE/tests/vm/matrix-lib.sh"
PE=$RP_VSCSI
DEV=$VSCSI
LOOPS=10
CLEANUP_PES=$PE
require_normal "$PE"
wait_until 20 bound_to "$DEV" virtio-pci || fail "$DEV is bound to '$(driver_of "$DEV")', not virtio-pci"
wait_until 20 disk_of "$DEV" || fail "no disk below $DEV (virtio_scsi)"
disk=$(disk_of "$DEV")
ok "the disk of $DEV (virtio_scsi) is /dev/$disk"

# virtio_break_device() calls, counted by the function tracer: the
# marking reaches virtio_pci_remove()'s presence check (one call a freeze
# there), which breaks the device but fails no command
TR=/sys/kernel/debug/tracing
# shellcheck disable=SC2016 # lib.sh evals it when the scenario ends
CLEANUP_CMD='echo 0 > $TR/tracing_on; echo nop > $TR/current_tracer; echo > $TR/set_ftrace_filter'
echo virtio_break_device > "$TR/set_ftrace_filter" || fail "cannot trace virtio_break_device"
echo function > "$TR/current_tracer"
echo > "$TR/trace"
echo 1 > "$TR/tracing_on"

# ten freezes within minutes: more than the default policy recovers
# (MaxFreezes=5 an hour, then the device is disabled)
pd_conf "[Policy]
MaxFreezes=20"
pd_begin "$PE" "$DEV"
freezes=0 hangs=0 lost=0 failed_reads=0 worst_ms=0
i=0
while [ "$i" -lt "$LOOPS" ]; do
	i=$((i + 1))
	info "freeze $i of $LOOPS, reader on /dev/$disk"
	klines=$(dmesg | wc -l)
	blk_start "vscsi$i" "$disk" --read 0 "$DISK_VSCSI_SECTORS" --interval 20
	sleep 2
	sig_mark
	INJ_T0=$(now_ns)
	kill -STOP "$PD_PID"
	must_nl inject "$DEV"
	sleep 2
	kill -CONT "$PD_PID"
	freezes=$((freezes + 1))
	must_signal 30 RecoveryStarted "\"$PE\""
	expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" full-hotplug
	T_START=$(now_ns)
	if ! wait_signal 60 RecoveryFinished "\"$PE\""; then
		hangs=$((hangs + 1))
		echo "-- steps so far: $(steps_since "$PE"); slot Step: $(slot_prop "$PE" Step 2>/dev/null)"
		echo "-- blocked tasks:"
		echo w > /proc/sysrq-trigger 2>/dev/null
		dmesg | tail -n +"$((klines + 1))" | tail -n 60 | sed 's/^/  | /'
		echo "virtio-scsi freeze loop: $freezes freezes, $hangs hangs"
		CLEANUP_PES=
		fail "freeze $i: no RecoveryFinished within 60 s of RecoveryStarted: the hotplug fallback hangs"
	fi
	fin_result=$(sig_arg "$sig" 2)
	took_ms=$(ms_between "$T_START" "$(now_ns)")
	[ "$took_ms" -gt "$worst_ms" ] && worst_ms=$took_ms
	INJ_T1=$(now_ns)
	expect "freeze $i: RecoveryFinished" "$fin_result" recovered
	expect "freeze $i: steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
	blk_stop "vscsi$i" 30
	if [ "$bk_hung" = 1 ]; then
		hangs=$((hangs + 1))
		echo w > /proc/sysrq-trigger 2>/dev/null
		echo "virtio-scsi freeze loop: $freezes freezes, $hangs hangs"
		fail "freeze $i: the reader's I/O is stuck (blkpat did not stop within 30 s)"
	fi
	blk_stats "vscsi$i" "$INJ_T0" "$INJ_T1"
	expect "freeze $i: reads that returned wrong bytes" "$bk_bad" 0
	nf=$(awk '$3 == "read" && $5 != "ok" && $5 != "bad"' "$TMP/blk.vscsi$i" | wc -l)
	[ "$nf" -gt 0 ] || fail "freeze $i: no read failed: the reader never saw the disk go"
	failed_reads=$((failed_reads + nf))
	n=$(dmesg | tail -n +"$((klines + 1))" | sed -n 's/.*pcierr: \([0-9]*\) commands lost in the freeze failed.*/\1/p' | head -n 1)
	lost=$((lost + ${n:-0}))
	echo "  freeze $i: recovered $took_ms ms after RecoveryStarted; $nf reads failed; ${n:-0} lost commands failed by the shim"
	wait_until 30 bound_to "$DEV" virtio-pci || fail "freeze $i: $DEV not rebound to virtio-pci"
	wait_until 30 disk_of "$DEV" || fail "freeze $i: no disk below the rescanned $DEV"
	disk=$(disk_of "$DEV")
	run "$BLKPAT" check "/dev/$disk" 0 "$DISK_VSCSI_SECTORS"
	[ "$rc" = 0 ] || fail "freeze $i: /dev/$disk does not hold the pattern after the rescan"
	ok "freeze $i: the new /dev/$disk holds the whole pattern"
done
echo "virtio-scsi freeze loop: $freezes freezes, $hangs hangs ($lost lost commands failed by the shim, $failed_reads reads failed visibly, slowest recovery $worst_ms ms)"
echo 0 > "$TR/tracing_on"
grep ' virtio_break_device <-' "$TR/trace" | awk '{ print $NF }' | sort | uniq -c | sed 's/^/  virtio_break_device from /'
brk=$(grep -c ' virtio_break_device <-virtio_pci_remove' "$TR/trace")
expect "virtio_break_device() calls from virtio_pci_remove() (one a freeze: the device was seen gone)" "$brk" "$freezes"
[ "$lost" -gt 0 ] || fail "no freeze lost a command: the loop did not test the case"
ok "$freezes freezes, none hung; every reader got its I/O errors and stopped"
mx_row "$DEV" virtio_scsi - "full hotplug x$freezes" "slowest $worst_ms ms" "reads" \
	"$failed_reads failed (I/O error)" "pattern right" "$freezes freezes, $hangs hangs" "yes"
pcierrd_stop

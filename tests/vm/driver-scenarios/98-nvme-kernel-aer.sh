#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Driver suite 98 (in make vm-drivers-defects, as the contrast to 03-nvme):
# the kernel's OWN AER recovery of the nvme, with the reader and writer of
# scenario 03 running, and no pcierr in the way (pcierrd not started, the
# shim takes no step). 03-nvme's hang needs a request that
# nvme_dev_disable() cancels and nvme requeues: nvme_reset_work() (Debian
# 6.1) sends it again BEFORE it re-enables the shadow doorbells
# (nvme_dbbuf_set), QEMU 7.2's Doorbell Buffer Config then leaves that
# queue's event index at 0, and the driver's next submission on it writes
# only the shadow doorbell (docs/drivers.md, "03-nvme"). Under pcierr's
# freeze there always is such a request (its doorbell write was dropped
# with decode off); with QEMU's injected AER the device is never cut off
# and completes what it was sent before error_detected runs.
#
# Injects up to 10 times (aer_inject, a fatal Surprise Down on the nvme's
# root port: QEMU's nvme has no AER capability; err.c reports to the nvme
# below it and resets the link, as for the nvme's own error) and stops
# early if the reader makes no progress for 4 s, then waits for nvme's
# "timeout, aborting". Passes only if the I/O never stalls and no nvme
# timeout is logged (measured: 10 recoveries, no stall, no failed I/O).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_NVME
DEV=$NVME
CLEANUP_CMD='rmmod aer_inject'
require_normal "$PE"
disk_ready "$DEV" nvme
half=$((DISK_NVME_SECTORS / 2))
aer_inject_load
klines=$(dmesg | wc -l)

blk_start nvme "$disk" --read 0 "$half" --write "$half" "$half" --interval 20
sleep 3
stalled=0
i=0
while [ $i -lt 10 ] && [ $stalled = 0 ]; do
	i=$((i + 1))
	n0=$(dmesg | grep -c 'AER: device recovery')
	run "$AER_INJECT" --surprise-down "$PE"
	[ "$rc" = 0 ] || fail "aer-inject failed"
	wait_until 20 sh -c "[ \$(dmesg | grep -c 'AER: device recovery') -gt $n0 ]" ||
		fail "no 'AER: device recovery' line 20 s after injection $i"
	sleep 2
	l0=$(wc -l < "$TMP/blk.nvme")
	sleep 4
	l1=$(wc -l < "$TMP/blk.nvme")
	echo "  injection $i: $(dmesg | grep 'AER: device recovery' | tail -n 1 | sed 's/^\[[^]]*\] //'); reader $((l1 - l0)) lines in 4 s"
	[ "$l1" -gt "$l0" ] || stalled=1
done
if [ $stalled = 1 ]; then
	echo "-- the reader made no progress for 4 s after the kernel's recovery $i; waiting for nvme's timeout"
	wait_until 45 sh -c "dmesg | tail -n +$((klines + 1)) | grep -q 'timeout, aborting'" || true
fi
kl=$(dmesg | tail -n +"$((klines + 1))")
printf '%s\n' "$kl" | grep -E 'nvme|AER: device recovery' | head -n 40 | sed 's/^/  | /'
blk_stop nvme 60
timeouts=$(printf '%s\n' "$kl" | grep -c 'timeout, aborting')
row "$DEV" nvme error_detected,slot_reset,resume "kernel AER x$i" - - - - \
	"reader stalled: $stalled; nvme timeouts: $timeouts$([ "$bk_hung" = 1 ] && echo '; I/O HUNG')"
expect "nvme I/O timeouts after the kernel's own recoveries" "$timeouts" 0
[ $stalled = 0 ] || fail "the reader stalled after the kernel's own AER recovery $i (no pcierr involved)"
[ "$bk_hung" = 0 ] || fail "the I/O is stuck after the kernel's own AER recovery (blkpat did not stop within 60 s)"

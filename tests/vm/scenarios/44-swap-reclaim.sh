#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 44: recovering the disk that memory reclaim needs (review R3,
# issue 22). The nvme below the switch holds a swap file and a busy ext4
# file system; a memory hog (files in a tmpfs, which only swap can take
# out of memory) pushes the guest into reclaim while the nvme is frozen, so
# that swap-out and writeback wait for the frozen disk. The RECOVER must
# still run (its queue has a rescuer, WQ_MEM_RECLAIM; its allocations do
# not start I/O, memalloc_noio) and end recovered; then every page the hog
# wrote reads back right (swapped in from the recovered disk), so does
# every file the writer wrote, there is no hung-task report and no OOM
# kill. The disk's 4 MiB of known contents are put back at the end.
# Debian 6.1's nvme-pci with QEMU 7.2's shadow doorbells loses the first
# submission on a queue after a reset that had requests to send again
# (docs/drivers.md, "03-nvme"): nvme only gets it going again with its
# own timeout and controller reset. A freeze under load always has such
# requests, so the namespace's timeout is cut to 5 s here (from 30 s, the
# guest's hung-task limit): that driver defect then costs seconds, not a
# hung task, and what is checked is the shim's part and the data.
# And nvme_reset_work() itself allocates with GFP_KERNEL
# (pci_enable_device() -> acpi_pci_irq_enable() -> sysfs nodes) while the
# namespace's queue is still frozen: if that allocation has to reclaim
# and reclaim picks a page to swap to this very disk, the reset waits for
# itself (seen here: nvme-reset-wq in __bio_queue_enter(), under
# shmem_writepage(); the kernel's own AER recovery runs the same reset
# work). So the hog stops 48 MiB above the min watermark and, once the
# disk is frozen, kswapd's band is widened (watermark_scale_factor 1000:
# kswapd works until 20% of memory above it is free): kswapd is in
# reclaim, its swap-out waits for the frozen disk, and the reset's
# allocations are served without reclaim.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$SW_DOWN2
NV=$NVME
IMG=${PCIERR_OUT:?}/nvme.img
MNT=$TMP/mnt
HOG=$TMP/hog
CLEANUP_PES=$PE
PATTERN_MB=4
undo() {
	touch "$TMP/stop"
	[ -n "${WSF0:-}" ] && echo "$WSF0" > /proc/sys/vm/watermark_scale_factor
	[ -n "${TO0:-}" ] && echo "$TO0" > "$QTO"
	swapoff "$MNT/swap" 2>/dev/null
	umount "$MNT" 2>/dev/null
	umount "$HOG" 2>/dev/null
	_d=$(nvme_disk "$NV") && [ -s "$TMP/pattern" ] &&
		dd if="$TMP/pattern" of="/dev/$_d" bs=64k oflag=direct conv=fsync 2>/dev/null
	return 0
}
CLEANUP_CMD=undo
FAIL_CMD='grep -E "Swap|Mem|Dirty|Writeback" /proc/meminfo; dmesg | tail -n 30'

require_normal "$PE"
wait_until 30 bound_to "$NV" nvme || fail "$NV is not bound to nvme"
wait_until 30 nvme_disk "$NV" || fail "no namespace of $NV"
disk=$(nvme_disk "$NV")
QTO=/sys/block/$disk/queue/io_timeout
TO0=$(cat "$QTO")
echo 5000 > "$QTO" || fail "cannot set $QTO"
# what the other scenarios read back: kept here and written back at the end
run dd if="/dev/$disk" of="$TMP/pattern" bs=64k count=64 iflag=direct
cmp -s -n $((PATTERN_MB << 20)) "$TMP/pattern" "$IMG" || fail "/dev/$disk does not hold the known contents at the start"
ok "/dev/$disk holds its known contents (saved for the end)"

info "a swap file and a file system on the nvme"
mkdir -p "$MNT" "$HOG"
run mkfs.ext4 -q -F "/dev/$disk"
[ "$rc" = 0 ] || fail "mkfs.ext4 failed"
mount "/dev/$disk" "$MNT" || fail "cannot mount /dev/$disk"
run dd if=/dev/zero of="$MNT/swap" bs=1M count=128 conv=fsync
chmod 600 "$MNT/swap"
run mkswap "$MNT/swap"
swapon "$MNT/swap" || fail "swapon $MNT/swap failed"
ok "swap on $MNT/swap (128 MiB) on /dev/$disk"
mount -t tmpfs -o size=1200m tmpfs "$HOG" || fail "cannot mount a tmpfs"

# writer: rewrites 8 files with the known contents, each with an fsync
writer() {
	w=0
	while [ ! -e "$TMP/stop" ]; do
		dd if="$TMP/pattern" of="$MNT/f.$((w % 8))" bs=64k conv=fsync 2>/dev/null
		w=$((w + 1))
	done
	echo "$w" > "$TMP/writes"
}
# hog FROM TO: copies FROM..TO of the known contents into the tmpfs
hog() {
	h=$1
	while [ "$h" -le "$2" ]; do
		cat "$TMP/pattern" > "$HOG/p.$h" || return 1
		h=$((h + 1))
	done
}
# hog_down FROM KB: more copies while MemFree is above KB; the last one's
# number in $HOG/last
hog_down() {
	h=$1
	while [ "$(free_kb)" -gt "$2" ]; do
		cat "$TMP/pattern" > "$HOG/p.$h" || return 1
		h=$((h + 1))
	done
	echo $((h - 1)) > "$HOG/last"
}
avail_mb() { echo $(( $(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024 )); }
free_kb() { sed -n 's/^MemFree: *\([0-9]*\) kB/\1/p' /proc/meminfo; }
pswpout() { sed -n 's/^pswpout \([0-9]*\)/\1/p' /proc/vmstat; }
hung() { dmesg | grep -cE 'blocked for more than|Out of memory|oom-kill'; }
hung0=$(hung)
WSF0=$(cat /proc/sys/vm/watermark_scale_factor)
floor=$(( $(cat /proc/sys/vm/min_free_kbytes) + 48 * 1024 ))

# first fill most of the memory while the disk works
n1=$(( ($(avail_mb) - 48) / PATTERN_MB ))
[ "$n1" -gt 10 ] || fail "only $(avail_mb) MiB available"
hog 1 "$n1" || fail "the hog failed before the freeze"
ok "$n1 x $PATTERN_MB MiB in the tmpfs, $(avail_mb) MiB available"
writer &
WRITER=$!
BG_PIDS="$BG_PIDS $WRITER"
sleep 1

info "the nvme frozen, the hog pushing into swap"
out0=$(pswpout)
must_nl inject "$NV"
expect "PE state after inject" "$(pe_state "$PE")" frozen
# kswapd's band widened now: it wakes at once and reclaims, into swap
echo 1000 > /proc/sys/vm/watermark_scale_factor
hog_down $((n1 + 1)) "$floor" || fail "the hog failed while the disk was frozen"
n2=$(cat "$HOG/last")
info "$((n2 - n1)) more copies while frozen, MemFree $(( $(free_kb) / 1024 )) MiB"
grep -E '^(pswpout|pgscan_kswapd) ' /proc/vmstat | sed 's/^/  | /'
sleep 2
outf=$(pswpout)
info "pages sent to swap while frozen: $((outf - out0))"
[ $((outf - out0)) -gt 0 ] || fail "nothing was sent to swap while frozen: the guest did not reach reclaim"
ok "reclaim sent $((outf - out0)) pages to swap on the frozen disk"
t0=$(now_ns)
must_nl recover "$PE"
rd=$(line_with "recover_done " "$out")
[ -n "$rd" ] || fail "pcierr-nl recover printed no recover_done line"
expect "how the RECOVER under memory pressure stopped" "$(kv stop "$rd")" recovered
info "RECOVER took $(ms_between "$t0" "$(now_ns)") ms"

info "the data"
touch "$TMP/stop"
wait "$WRITER"
info "writer: $(cat "$TMP/writes") files written"
h=1
while [ "$h" -le "$n2" ]; do
	cmp -s "$HOG/p.$h" "$TMP/pattern" || fail "the hog's copy $h differs (swapped in wrong?)"
	h=$((h + 1))
done
ok "all $n2 copies in the tmpfs read back right"
sync
echo 3 > /proc/sys/vm/drop_caches
for f in "$MNT"/f.*; do
	cmp -s "$f" "$TMP/pattern" || fail "$f differs after the recovery"
done
ok "the writer's files read back right from the disk"
expect "hung-task or OOM reports" "$(hung)" "$hung0"
swapoff "$MNT/swap" || fail "swapoff failed"
ok "swapoff"
umount "$HOG"
umount "$MNT" || fail "cannot unmount $MNT"
dd if="$TMP/pattern" of="/dev/$disk" bs=64k oflag=direct conv=fsync 2>/dev/null ||
	fail "cannot write the known contents back"
nvme_reads "$NV" "$IMG" || fail "/dev/$disk does not read its known contents after the clean-up"
ok "the known contents are back on /dev/$disk"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Driver suite 0: the cards and their drivers before anything is frozen.
#   Every card of topology-drivers is bound to its real driver (e100, e1000,
#   sym53c8xx, e1000e, nvme, 8139cp -- the 8139C+ that QEMU models is left
#   to 8139cp by 8139too --, megaraid_sas, virtio-pci for the peer), and
#   the two pci-testdev are moved to the profiles pcierr_ipr and pcierr_ixgb
#   (driver_override); the shim dumps the handlers each driver has; every
#   NIC is set up in its namespace and echoes the peer's stream; the three
#   disks read right (blkpat's pattern, O_DIRECT).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"

for pair in "$E100 e100" "$E1000 e1000" "$SYM sym53c8xx" "$E1000E e1000e" \
	"$NVME nvme" "$RTL 8139cp" "$MEGASAS megaraid_sas" "$MIXED_E1000 e1000" \
	"$MIXED_RTL 8139cp" "$PEER virtio-pci"; do
	set -- $pair
	wait_until 20 bound_to "$1" "$2" || fail "$1 is bound to '$(driver_of "$1")', not $2"
	ok "$1 bound to $2"
done

# the profiles: pci-testdev, bound to pcierr_test by its id, moved
for pair in "$IPR pcierr_ipr" "$IXGB pcierr_ixgb"; do
	set -- $pair
	echo "+ echo $2 > $SYS/$1/driver_override; unbind; drivers_probe"
	echo "$2" > "$SYS/$1/driver_override" || fail "cannot set driver_override of $1"
	[ -e "$SYS/$1/driver" ] && echo "$1" > "$SYS/$1/driver/unbind"
	echo "$1" > /sys/bus/pci/drivers_probe
	wait_until 10 bound_to "$1" "$2" || fail "$1 is bound to '$(driver_of "$1")', not $2"
	ok "$1 bound to $2"
done

# the handlers each driver has, as the shim sees them (its dump)
must_nl dump
for pair in "$E100 error_detected,slot_reset,resume" "$E1000 error_detected,slot_reset,resume" \
	"$SYM error_detected,mmio_enabled,slot_reset,resume" "$E1000E error_detected,slot_reset,resume" \
	"$NVME error_detected,slot_reset,resume,reset_prepare,reset_done" "$RTL -" "$MEGASAS -" \
	"$IPR error_detected,slot_reset" "$IXGB error_detected,slot_reset,resume"; do
	set -- $pair
	h=$(kv handlers "$(printf '%s\n' "$out" | grep -m 1 " dev=$1 ")")
	expect "handlers of $1 ($(driver_of "$1"))" "$h" "$2"
done

peer_setup
nic_setup e100 "$E100" 11
nic_setup e1000 "$E1000" 12
nic_setup e1000e "$E1000E" 14
nic_setup rtl "$RTL" 16
nic_setup me1000 "$MIXED_E1000" 26
nic_setup mrtl "$MIXED_RTL" 27
REACH_COUNT=10
for pair in "e100 11" "e1000 12" "e1000e 14" "rtl 16" "me1000 26" "mrtl 27"; do
	set -- $pair
	must_reach "$1" "$2"
done

for pair in "$SYM $DISK_SYM_SECTORS" "$MEGASAS $DISK_MEGASAS_SECTORS" "$NVME $DISK_NVME_SECTORS"; do
	set -- $pair
	wait_until 20 disk_of "$1" || fail "no disk below $1 ($(driver_of "$1"))"
	b=$(disk_of "$1")
	run "$BLKPAT" check "/dev/$b" 0 "$2"
	[ "$rc" = 0 ] || fail "/dev/$b ($1) does not hold the pattern"
	ok "/dev/$b ($1, $(driver_of "$1")): all $2 sectors right"
done

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 23: a card hot-unplugged during its recovery (issue 11 point 5).
#   Testdev B sits alone below its ioh3420 root port, which pciehp drives
#   (native PCIe hotplug: topology's -global
#   ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off). Its error_detected
#   hangs (test driver). pcierrd recovers it (Manager.Inject); while
#   error_detected runs, QEMU's monitor unplugs the card (device_del:
#   attention button; 5 s later pciehp removes it, and the removal waits
#   for the device lock the callback holds). Once pciehp's thread is seen
#   blocked (state D), the callback is released: the removal and the
#   recovery's next steps (reset, slot_reset) race, the removal first in
#   line for the device lock.
#   The recovery ends with result "gone", the Device object vanishes from
#   D-Bus (GetDevice: NoSuchDevice), the slot is idle, pcierrd is the same
#   process; the shim forgets the device. A device_add of a new card at the
#   same place gives a fresh PE (new id), bound, normal, which recovers
#   from an injection. No oops (the runner's kernel-log scan).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
# whatever happens, a card is put back at 03:00.0 for the next scenarios
CLEANUP_CMD='present "$DEV" || qemu_monitor device_add pci-testdev,id=testdev_b_$$,bus=rp_testdev_b,addr=0x0'
require_normal "$PE"
ls -d "/sys/bus/pci_express/drivers/pciehp/$PE:"* >/dev/null 2>&1 ||
	fail "pciehp does not drive $PE (native hotplug off?): $(ls /sys/bus/pci_express/drivers/pciehp/ 2>&1)"
ok "pciehp drives the root port $PE"
id0=$(kv pe_id "$(pe_line "$PE")")
td_defaults
td_clear "$DEV"
td_set "$DEV" delay_error_detected hang

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
sig_mark
must_call Inject ssu "$DEV" frozen 0
must_signal 30 RecoveryStarted "\"$PE\""
wait_until 20 grep -q error_detected "$SYS/$DEV/running" ||
	fail "the driver's error_detected is not running"
ok "error_detected is running (it hangs until released)"

t0=$(now_ns)
# the card's QEMU id: testdev_b at boot (tests/vm/topology)
qemu_monitor device_del testdev_b
[ "$monitor_error" = 0 ] || fail "device_del failed: $out"
# pciehp's interrupt thread: blocked (D) in the removal, on the device lock
pciehp_blocked() {
	for _c in /proc/[0-9]*/comm; do
		case "$(cat "$_c" 2>/dev/null)" in
		*pciehp*)
			_st=$(sed 's/^.*) \(.\).*/\1/' "${_c%/comm}/stat" 2>/dev/null)
			[ "$_st" = D ] && return 0
			;;
		esac
	done
	return 1
}
wait_until 30 pciehp_blocked || fail "no pciehp thread blocked in the removal within 30 s of device_del"
ok "pciehp's removal waits ($(ms_between "$t0" "$(now_ns)") ms after device_del); the callback is released"
expect "the driver still runs" "$(cat "$SYS/$DEV/running")" error_detected
echo "+ echo 1 > $SYS/$DEV/release"
echo 1 > "$SYS/$DEV/release"
finish_of "$PE" 60
echo "  steps: $(steps_since "$PE")"
expect "RecoveryFinished result" "$fin_result" gone
wait_until 30 absent "$DEV" || fail "$DEV still in sysfs 30 s after device_del"
ok "$DEV left sysfs $(ms_between "$t0" "$(now_ns)") ms after device_del"
pcierrd_running || fail "pcierrd died"
call_expect_error org.pcierr1.Error.NoSuchDevice GetDevice "string:$DEV"
run timeout -k 2 "$BUS_TIMEOUT" busctl --system introspect "$BUS_NAME" "$(dev_path "$DEV")"
[ "$rc" != 0 ] || fail "the old Device object $(dev_path "$DEV") still answers"
ok "the Device object is gone from D-Bus"
wait_prop 10 slot "$PE" Step idle
expect_prop slot "$PE" LastResult gone
# the shim: the PE is empty, no operation left on it
pnl pe "$PE"
printf '%s\n' "$out" | grep -q " dev=$DEV " && fail "the shim still lists $DEV"
ok "the shim forgot $DEV"
must_call GetHistory tsu 0 "$PE" 0
printf '%s\n' "$out" | grep -q '"gone"' || fail "the history does not say gone"
ok "the history says gone"

info "a new card in the same slot"
# QEMU frees the id when the guest powered the slot off
sleep 1
qemu_monitor device_add pci-testdev,id=testdev_b,bus=rp_testdev_b,addr=0x0
[ "$monitor_error" = 0 ] || fail "device_add failed: $out"
wait_until 30 bound_to "$DEV" pcierr_test || fail "the new card is not bound to pcierr_test within 30 s"
ok "the new card is bound to pcierr_test"
wait_until 10 sh -c "[ \"\$(timeout 5 $NL pe $PE 2>/dev/null | head -n 1 | grep -o 'pe_state=[a-z_]*')\" = pe_state=normal ]" ||
	fail "the new PE is '$(pe_state "$PE")', not normal"
id1=$(kv pe_id "$(pe_line "$PE")")
[ -n "$id1" ] && [ "$id1" != "$id0" ] || fail "the PE id is '$id1' after the replug, '$id0' before"
ok "a fresh PE: id $id0 -> $id1, normal"
# pcierrd sees the new device
unset _pathcache_GetDevice_0000_03_00_0 2>/dev/null
wait_until 20 dev_path "$DEV" || fail "pcierrd has no Device object for the new card"
bus_objects "$PE" "$DEV"
expect_prop dev "$DEV" State normal
echo "  FreezeCount of the new card: $(dev_prop "$DEV" FreezeCount) (its identity's record)"
td_clear "$DEV"
sig_mark
must_call Inject ssu "$DEV" frozen 0
finish_of "$PE" 60
expect "the new card's recovery" "$fin_result" recovered
expect_calls "$DEV" "error_detected(frozen)=need_reset slot_reset=recovered resume"
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 37: an SR-IOV PF with its VFs (QEMU's nvme, sriov_max_vfs=2),
# review R1 / issue 22. The VFs join their PF's PE; each is bound to
# pcierr_test through driver_override (a VF of QEMU's nvme has no queue
# resources until an admin assigns them, so nvme cannot drive it; an
# unbound VF would make the recovery stop at error_detected, as err.c's).
#   - a freeze recovered by callbacks (RECOVER): nvme on the PF and the
#     test driver on the VFs are called, the VFs stay, the PF's
#     controller comes back live;
#   - REMOVE with the VFs enabled: VFs first, then the PF (the shim
#     disables SR-IOV of a PF whose driver left it on: nvme does, and a
#     PF released with VFs counted hits BUG_ON in sriov_release()); the
#     removal walk must not go through a VF's bus->self;
#   - RESCAN: the PF comes back with SR-IOV off, as after the kernel's own
#     hot-add; sriov_numvfs brings the VFs back into the PE;
#   - DISABLE with VFs, ENABLE.
# The kernel log check at the end of the run catches any oops.
# QEMU 7.2 puts every VF on its PF's own bus (hw/pci/pcie_sriov.c
# register_vf() realizes them on the PF's bus), so no layout gives VFs on a
# virtual bus of their own (routing IDs past devfn 255) here.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_SRIOV
PF=$SRIOV_PF
bus=${PF%:*}
VF0=$bus:00.1
VF1=$bus:00.2
CLEANUP_PES=$PE
sriov_off() {
	[ -e "$SYS/$PF/sriov_numvfs" ] && echo 0 > "$SYS/$PF/sriov_numvfs"
	return 0
}
CLEANUP_CMD=sriov_off
FAIL_CMD='dmesg | grep -E "pcierr|nvme|$bus" | tail -n 40'

require_normal "$PE"
wait_until 30 bound_to "$PF" nvme || fail "$PF is not bound to nvme (driver $(driver_of "$PF"))"
ctrl_state() {
	for _c in "$SYS/$PF"/nvme/nvme*; do
		[ -e "$_c/state" ] && { cat "$_c/state"; return 0; }
	done
	echo -
}
ctrl_live() { [ "$(ctrl_state)" = live ]; }
wait_until 30 ctrl_live || fail "$PF's controller is $(ctrl_state), not live"
expect "$PF sriov_totalvfs" "$(cat "$SYS/$PF/sriov_totalvfs")" 2

# vfs_up: enable both VFs, each bound to pcierr_test
vfs_up() {
	echo "+ echo 0 > $SYS/$PF/sriov_drivers_autoprobe; echo 2 > $SYS/$PF/sriov_numvfs"
	echo 0 > "$SYS/$PF/sriov_drivers_autoprobe"
	echo 2 > "$SYS/$PF/sriov_numvfs" || fail "cannot enable the VFs"
	for v in "$VF0" "$VF1"; do
		wait_until 10 present "$v" || fail "VF $v did not appear"
		[ "$(readlink -f "$SYS/$v/physfn")" = "$(readlink -f "$SYS/$PF")" ] ||
			fail "$v has no physfn link to $PF"
		echo pcierr_test > "$SYS/$v/driver_override"
		echo "$v" > /sys/bus/pci/drivers_probe
		wait_until 10 bound_to "$v" pcierr_test ||
			fail "$v is not bound to pcierr_test (driver $(driver_of "$v"))"
		expect "PE of VF $v" "$(kv pe "$(dev_line "$v")")" "$PE"
	done
	ok "2 VFs enabled, bound to pcierr_test, in the PF's PE"
}
vfs_up

info "a freeze of the PF's PE, recovered by callbacks"
td_clear "$VF0"
td_clear "$VF1"
klines=$(dmesg | wc -l)
must_nl inject "$PF"
expect "PE state after inject" "$(pe_state "$PE")" frozen
for d in "$PF" "$VF0" "$VF1"; do
	expect "$d's channel state" "$(dev_state "$d")" frozen
done
must_nl recover "$PE"
rd=$(line_with "recover_done " "$out")
[ -n "$rd" ] || fail "pcierr-nl recover printed no recover_done line"
expect "how the RECOVER stopped" "$(kv stop "$rd")" recovered
expect "its steps" "$(kv steps "$rd")" "error_detected,reset,slot_reset,resume"
expect "PE state" "$(pe_state "$PE")" normal
for v in "$VF0" "$VF1"; do
	expect_calls "$v" "error_detected(frozen)=need_reset slot_reset=recovered resume"
	expect "$v's channel state" "$(dev_state "$v")" normal
done
ctrl=$(basename "$(ls -d "$SYS/$PF"/nvme/nvme* | head -n 1)")
dmesg | tail -n +"$((klines + 1))" | grep -q "nvme $ctrl: frozen state error detected" ||
	fail "nvme's error_detected did not run for $ctrl ($PF)"
ok "nvme's callbacks ran for $ctrl"
wait_until 30 ctrl_live || fail "$PF's controller is $(ctrl_state) after the recovery"
echo "+ echo 1 > reset_controller"
for c in "$SYS/$PF"/nvme/nvme*; do echo 1 > "$c/reset_controller"; done
wait_until 30 ctrl_live || fail "$PF's controller is $(ctrl_state) after a controller reset"
ok "the PF's controller is live and takes a controller reset (admin commands) after the recovery"
expect "sriov_numvfs after the recovery" "$(cat "$SYS/$PF/sriov_numvfs")" 2

info "REMOVE with the VFs enabled, then RESCAN"
klines=$(dmesg | wc -l)
op remove "$PE"
expect "PE state after remove" "$(kv pe_state "$op")" removed
for d in "$VF1" "$VF0" "$PF"; do
	present "$d" && fail "$d is still in $SYS after remove"
done
ok "PF and VFs are gone"
dmesg | tail -n +"$((klines + 1))" | grep -q "disabling its 2 VFs before the removal" ||
	fail "no 'disabling its 2 VFs' in the kernel log"
ok "the PF's VFs were disabled before its removal"
op rescan "$PE"
wait_until 30 bound_to "$PF" nvme || fail "$PF did not come back bound to nvme (driver $(driver_of "$PF"))"
wait_until 30 ctrl_live || fail "$PF's controller is $(ctrl_state) after the rescan"
expect "sriov_numvfs after the rescan (as after the kernel's own hot-add)" \
	"$(cat "$SYS/$PF/sriov_numvfs")" 0
expect "PE state after rescan" "$(pe_state "$PE")" normal
vfs_up

info "DISABLE with the VFs enabled, then ENABLE"
klines=$(dmesg | wc -l)
op disable "$PE"
expect "PE state after disable" "$(kv pe_state "$op")" disabled
for d in "$VF1" "$VF0" "$PF"; do
	present "$d" && fail "$d is still in $SYS after disable"
done
for v in "$VF0" "$VF1"; do
	dmesg | tail -n +"$((klines + 1))" | grep -q "pcierr_test $v: error_detected(perm_failure)" ||
		fail "$v was not told perm_failure"
done
ok "PF and VFs are gone, the VFs' driver was told perm_failure"
op enable "$PE"
wait_until 30 bound_to "$PF" nvme || fail "$PF did not come back bound to nvme after enable"
wait_until 30 ctrl_live || fail "$PF's controller is $(ctrl_state) after enable"
expect "PE state after enable" "$(pe_state "$PE")" normal
ok "the PF is back after enable"

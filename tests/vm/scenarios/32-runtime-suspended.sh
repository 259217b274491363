#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 32: a device runtime-suspended when the shim is loaded comes
# back intact from a freeze (issue 8 "Tests"; review D1, D2, D10).
#   TESTDEV_A's driver (pcierr_test) supports runtime PM; its BARs, command
#   register and I/O (the `io` attribute: pci-testdev's MMIO test header,
#   written and read back) are recorded while it is active. Then
#   power/control=auto with autosuspend delay 0: runtime_status must read
#   suspended. The shim is unloaded and loaded again while the device
#   sleeps: the load must not wake it (D1: no snapshot wakes a device),
#   and must still get a healthy snapshot of it (the config space the PCI
#   core saved as it suspended the device; "healthy snapshot taken from
#   the state saved at its suspend" in the kernel log). Without one,
#   RESET fails with ENODATA and the device stays frozen (D2).
#   inject (frozen): the freeze takes its runtime-PM reference, so the
#   device is resumed (err.c's pm_runtime_get_sync) and then cut off
#   (memory decode off). error_detected, RESET, slot_reset, resume: the
#   BARs and command register after the RESET equal the recorded ones;
#   the driver saw error_detected, slot_reset, resume; after RESUME the
#   shim's reference is dropped and the device suspends again by itself;
#   its I/O gives the same answer as before; its config is still the
#   recorded one.
#   QEMU's pci-testdev has no PM capability: runtime suspend leaves it in
#   D0 (the PCI core still saves and restores its config space around
#   it), so this proves the runtime-PM status handling, not a D3hot
#   power-down.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
TD=$TESTDEV_A
PE=$RP_TESTDEV_A
SHIM=$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko
PWR=$SYS/$TD/power
CLEANUP_PES="$PE"
# shellcheck disable=SC2016 # evaluated by the clean-up
CLEANUP_CMD='echo on > "$PWR/control"; grep -q "^pcierr_shim " /proc/modules || insmod "$SHIM"'
[ -f "$SHIM" ] || fail "no $SHIM"
require_normal "$PE"
td_defaults
bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test"

bars() { od -An -tx4 -j16 -N24 "$SYS/$1/config" | tr '\n' ' ' | tr -s ' '; }
rpm_status() { cat "$PWR/runtime_status"; }
rpm_is() { [ "$(rpm_status)" = "$1" ]; }
mem_off() { [ $(( $(cmdreg "$TD") & CMD_MEM )) = 0 ]; }
td_io() { cat "$SYS/$TD/io" 2>&1; }
power_info() {
	echo "  $TD: runtime_status $(rpm_status), power_state $(cat "$SYS/$TD/power_state" 2>/dev/null)," \
		"driver: $(cat "$SYS/$TD/runtime_pm");" \
		"$PE: runtime_status $(cat "$SYS/$PE/power/runtime_status")"
}

info "the device while active: config and I/O"
expect "power/control at the start (runtime PM forbidden)" "$(cat "$PWR/control")" on
bars0=$(bars "$TD")
cmd0=$(cmdreg "$TD")
echo "  BARs: $bars0; command: $cmd0"
[ $((cmd0 & CMD_MEM)) != 0 ] || fail "$TD decodes no memory at the start (command $cmd0)"
expect "I/O with $TD" "$(td_io)" "mmio-no-eventfd 3"

info "runtime suspend (power/control=auto, autosuspend delay 0)"
td_set "$TD" power/autosuspend_delay_ms 0
td_set "$TD" power/control auto
wait_until 10 rpm_is suspended || fail "$TD is '$(rpm_status)' 10 s after power/control=auto, not suspended"
power_info
ok "$TD runtime suspended"
resumes0=$(sed 's/.*resumes //' "$SYS/$TD/runtime_pm")
expect "config while suspended (BARs)" "$(bars "$TD")" "$bars0"

info "the shim loaded while the device sleeps"
run timeout 60 rmmod pcierr_shim
[ "$rc" = 0 ] || fail "rmmod pcierr_shim exited $rc"
log0=$(dmesg | wc -l)
run insmod "$SHIM"
[ "$rc" = 0 ] || fail "insmod $SHIM failed"
newlog=$(dmesg | tail -n +"$((log0 + 1))")
printf '%s\n' "$newlog" | grep "$TD" | sed 's/^/  | /'
rpm_is suspended || fail "the shim's load woke $TD up: runtime_status '$(rpm_status)'"
ok "$TD still runtime suspended after the load"
wait_until 10 sh -c "$NL pe $PE 2>/dev/null | head -n 1 | grep -q 'pe_state=normal'" ||
	fail "PE $PE is '$(pe_state "$PE")' in the new shim, not normal"

info "freeze and recovery of the device that was suspended at load"
td_clear "$TD"
must_nl inject "$TD"
wait_until 10 mem_off || fail "$TD still decodes memory 10 s after the inject (command $(cmdreg "$TD"))"
ok "$TD cut off (command $(cmdreg "$TD"))"
rpm_is active || fail "$TD is '$(rpm_status)' while frozen: the freeze holds no runtime-PM reference"
power_info
ok "the freeze resumed $TD and holds it awake"
report_expect "$PE" error_detected need_reset --state frozen
op reset "$PE"
expect "$TD's BARs after the reset" "$(bars "$TD")" "$bars0"
expect "$TD's command register after the reset" "$(cmdreg "$TD")" "$cmd0"
report_expect "$PE" slot_reset recovered
op report "$PE" resume
expect "PE state after resume" "$(pe_state "$PE")" normal
expect "$TD's channel state" "$(dev_state "$TD")" normal
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"

info "after the recovery: the reference dropped, the device intact"
wait_until 10 rpm_is suspended || fail "$TD is '$(rpm_status)' 10 s after RESUME: the freeze's runtime-PM reference was not dropped"
power_info
ok "$TD suspends again after RESUME"
expect "I/O with $TD after the recovery" "$(td_io)" "mmio-no-eventfd 3"
expect "$TD's BARs after I/O" "$(bars "$TD")" "$bars0"
expect "$TD's command register after I/O" "$(cmdreg "$TD")" "$cmd0"
resumes1=$(sed 's/.*resumes //' "$SYS/$TD/runtime_pm")
[ "${resumes1:-0}" -gt "${resumes0:-0}" ] || fail "the driver saw no runtime resume ($resumes0 -> $resumes1)"
ok "driver runtime resumes $resumes0 -> $resumes1"

# last, so that without it the RESET above says what goes wrong (ENODATA)
printf '%s\n' "$newlog" | grep -q "$TD: pcierr: runtime suspended: healthy snapshot taken" ||
	fail "no healthy snapshot of the suspended $TD at load (kernel log above)"
ok "the load took $TD's healthy snapshot from the state saved at its suspend"

echo on > "$PWR/control"
wait_until 10 rpm_is active || fail "$TD is '$(rpm_status)' after power/control=on"
ok "runtime PM forbidden again"

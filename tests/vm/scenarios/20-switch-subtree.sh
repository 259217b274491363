#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 20: the PE is its whole subtree, on a PCIe switch
# (x3130-upstream + two xio3130-downstream below the ioh3420 RP_SWITCH),
# a pci-testdev (pcierr_test) on one downstream port and an nvme (disk of
# known contents, $PCIERR_OUT/nvme.img) on the other.
#   A freeze of the root port's PE (a failure of the root port reported
#   by a driver: the test driver's report_upstream, 3 bridges up) freezes
#   both devices; REPORT reaches both drivers; RESET (a secondary
#   bus reset of the root port) resets everything below and restores the
#   switch ports' and the devices' config space (the devices answer with
#   their ids and BARs again); slot_reset and resume reach both; the nvme
#   reads the image again, and its controller was reset once, by its
#   slot_reset (function tracer: nvme_reset_work once, no
#   nvme_reset_prepare/nvme_reset_done: no function-reset wrapper).
#   The switch's three ports are reported to as err.c's walk does
#   (pcieport: error_detected need_reset, slot_reset recovered, each port
#   before what sits below it), and pcieport's slot_reset runs once per
#   port, calling pciehp's slot_reset for every downstream port that
#   pciehp drives (function tracer), so pciehp logs no link change and
#   removes nothing after the reset.
#   Last, the same failure with pcierrd running: it recovers the root
#   port's PE by callbacks (error_detected need_reset, reset, slot_reset,
#   resume), the ports' answers merged among those of the devices below.
#   A freeze of one downstream port's PE (a failure of the testdev's port,
#   report_upstream 1) leaves the other alone: the testdev keeps decoding and its driver hears
#   nothing while the nvme's PE is recovered.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
RP=$RP_SWITCH
TD=$SW_TESTDEV
NV=$NVME
IMG=${PCIERR_OUT:?}/nvme.img
TR=/sys/kernel/debug/tracing
CLEANUP_PES="$RP $SW_DOWN1 $SW_DOWN2"
CLEANUP_CMD=trace_off
trace_off() {
	if [ -w "$TR/current_tracer" ]; then
		echo 0 > "$TR/tracing_on"
		echo nop > "$TR/current_tracer"
		echo > "$TR/set_ftrace_filter"
	fi
}
require_normal "$RP" "$SW_DOWN1" "$SW_DOWN2"
td_defaults
[ -e "$SYS/$TD/config_reset" ] && echo 1 > "$SYS/$TD/config_reset"

bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test (driver $(driver_of "$TD"))"
bound_to "$NV" nvme || fail "$NV is not bound to nvme (driver $(driver_of "$NV"))"
wait_until 20 nvme_reads "$NV" "$IMG" || fail "the nvme disk does not read the contents of $IMG"
ok "/dev/$(nvme_disk "$NV") reads the 4 MiB of $IMG"

must_nl pe "$RP"
printf '%s\n' "$out" | grep -q " dev=$SW_UP " || fail "pe $RP does not list $SW_UP"
must_nl pe "$SW_UP"
for d in "$SW_DOWN1" "$SW_DOWN2"; do
	printf '%s\n' "$out" | grep -q " dev=$d " || fail "pe $SW_UP does not list $d"
done
ok "the root port's PE lists the switch's upstream port, the downstream ports are in $SW_UP's PE"
expect "PE of $TD" "$(kv pe "$(dev_line "$TD")")" "$SW_DOWN1"
expect "PE of $NV" "$(kv pe "$(dev_line "$NV")")" "$SW_DOWN2"

tracing=0
if [ -w "$TR/set_ftrace_filter" ] &&
   echo 'nvme_reset_work nvme_reset_prepare nvme_reset_done nvme_slot_reset pcie_portdrv_slot_reset pciehp_slot_reset' > "$TR/set_ftrace_filter" 2>/dev/null; then
	echo function > "$TR/current_tracer"
	echo > "$TR/trace"
	echo 1 > "$TR/tracing_on"
	tracing=1
	ok "tracing nvme_reset_work, nvme_reset_prepare, nvme_reset_done, nvme_slot_reset, pcie_portdrv_slot_reset, pciehp_slot_reset"
else
	fail "the function tracer cannot trace the nvme driver"
fi
ncalls() { grep -c " $1 <-" "$TR/trace"; }
ids() { od -An -tx4 -N4 "$SYS/$1/config" | tr -d ' '; }
bars() { od -An -tx4 -j16 -N24 "$SYS/$1/config" | tr -s ' '; }
busnrs() { od -An -tx1 -j24 -N3 "$SYS/$1/config" | tr -s ' '; }

info "a freeze of the root port's PE covers the whole switch"
td_bars=$(bars "$TD") nv_bars=$(bars "$NV")
up_bus=$(busnrs "$SW_UP") d1_bus=$(busnrs "$SW_DOWN1") d2_bus=$(busnrs "$SW_DOWN2")
td_clear "$TD"
td_set "$TD" report_upstream 3
wait_until 10 sh -c "[ \"\$($NL pe $RP 2>/dev/null | head -n 1 | grep -o 'pe_state=[a-z_]*')\" = pe_state=frozen ]" ||
	fail "the root port's PE did not freeze"
expect "root port PE state after inject" "$(pe_state "$RP")" frozen
for d in "$TD" "$NV"; do
	[ $(($(cmdreg "$d") & (CMD_MEM | CMD_MASTER))) = 0 ] ||
		fail "$d still decodes memory or masters the bus (command $(cmdreg "$d"))"
	expect "$d's channel state" "$(dev_state "$d")" frozen
done
ok "both devices below the switch are frozen"
for d in "$SW_UP" "$SW_DOWN1" "$SW_DOWN2"; do
	bound_to "$d" pcieport || fail "$d is not bound to pcieport (driver $(driver_of "$d"))"
done
# the switch's downstream ports that pciehp drives (a pcie_port service
# device named after the port, pcieNN4: hot-plug)
hp_ports=0
for d in "$SW_DOWN1" "$SW_DOWN2"; do
	for s in /sys/bus/pci_express/devices/"$d":pcie*4; do
		[ "$(basename "$(readlink -f "$s/driver" 2>/dev/null)")" = pciehp ] &&
			hp_ports=$((hp_ports + 1))
	done
done
info "downstream ports driven by pciehp: $hp_ports"
# none would make the pciehp_slot_reset count below check nothing
[ "$hp_ports" -gt 0 ] || fail "pciehp drives neither of the switch's downstream ports"
dmesg_lines=$(dmesg | wc -l)
report_expect "$RP" error_detected need_reset --state frozen
# err.c's walk: every port below the root port, each before its subtree
expect "results of the root port's error_detected" "$(kv results "$op")" \
	"$SW_UP:need_reset,$SW_DOWN1:need_reset,$TD:need_reset,$SW_DOWN2:need_reset,$NV:need_reset"
for d in "$SW_UP" "$SW_DOWN1" "$SW_DOWN2"; do
	expect "$d's channel state at error_detected" "$(dev_state "$d")" frozen
done
echo > "$TR/trace"
op reset "$RP"
for d in "$TD" "$NV"; do
	case "$(ids "$d")" in
	ffffffff|"") fail "$d does not answer after the reset" ;;
	esac
done
expect "$SW_UP's bus numbers after the reset" "$(busnrs "$SW_UP")" "$up_bus"
expect "$SW_DOWN1's bus numbers after the reset" "$(busnrs "$SW_DOWN1")" "$d1_bus"
expect "$SW_DOWN2's bus numbers after the reset" "$(busnrs "$SW_DOWN2")" "$d2_bus"
expect "$TD's BARs after the reset" "$(bars "$TD")" "$td_bars"
expect "$NV's BARs after the reset" "$(bars "$NV")" "$nv_bars"
report_expect "$RP" slot_reset recovered
expect "results of the root port's slot_reset" "$(kv results "$op")" \
	"$SW_UP:recovered,$SW_DOWN1:recovered,$TD:recovered,$SW_DOWN2:recovered,$NV:recovered"
expect "pcie_portdrv_slot_reset calls (the switch's ports)" "$(ncalls pcie_portdrv_slot_reset)" 3
expect "pciehp_slot_reset calls (its hotplug ports)" "$(ncalls pciehp_slot_reset)" "$hp_ports"
op report "$RP" resume
# pcieport has no resume callback: no vote
expect "results of the root port's resume" "$(kv results "$op")" \
	"$SW_UP:none,$SW_DOWN1:none,$TD:recovered,$SW_DOWN2:none,$NV:recovered"
expect "root port PE state after resume" "$(pe_state "$RP")" normal
for d in "$SW_UP" "$SW_DOWN1" "$SW_DOWN2"; do
	expect "$d's channel state after resume" "$(dev_state "$d")" normal
	bound_to "$d" pcieport || fail "$d lost pcieport after the recovery"
done
hp_log=$(dmesg | tail -n +"$((dmesg_lines + 1))" | grep -E 'pciehp.*(Link Down|Link Up|Card not present|Card present|Slot\(.*\):)' || true)
[ -z "$hp_log" ] || { echo "$hp_log" | sed 's/^/  | /'; fail "pciehp took the reset for a link change"; }
ok "pciehp logged no link change during the recovery"
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"
wait_until 30 nvme_reads "$NV" "$IMG" || fail "the nvme disk does not read $IMG after the recovery"
ok "the nvme reads the same 4 MiB after the recovery"
expect "nvme_reset_prepare calls" "$(ncalls nvme_reset_prepare)" 0
expect "nvme_reset_done calls" "$(ncalls nvme_reset_done)" 0
expect "nvme_slot_reset calls" "$(ncalls nvme_slot_reset)" 1
expect "nvme_reset_work calls (controller resets)" "$(ncalls nvme_reset_work)" 1

info "a freeze of one downstream port's PE leaves the other alone"
td_clear "$TD"
nv_cmd=$(cmdreg "$NV")
echo > "$TR/trace"
td_set "$TD" report_upstream 1
wait_until 10 sh -c "[ \"\$($NL pe $SW_DOWN1 2>/dev/null | head -n 1 | grep -o 'pe_state=[a-z_]*')\" = pe_state=frozen ]" ||
	fail "$SW_DOWN1's PE did not freeze"
expect "$SW_DOWN2's PE state" "$(pe_state "$SW_DOWN2")" normal
expect "the root port's PE state" "$(pe_state "$RP")" normal
[ $(($(cmdreg "$TD") & CMD_MEM)) = 0 ] || fail "$TD still decodes memory"
expect "$NV's command register" "$(cmdreg "$NV")" "$nv_cmd"
expect "$NV's channel state" "$(dev_state "$NV")" normal
report_expect "$SW_DOWN1" error_detected need_reset --state frozen
expect "results of $SW_DOWN1's error_detected" "$(kv results "$op")" "$TD:need_reset"
op reset "$SW_DOWN1"
expect "$TD's BARs after the reset" "$(bars "$TD")" "$td_bars"
report_expect "$SW_DOWN1" slot_reset recovered
op report "$SW_DOWN1" resume
expect "$SW_DOWN1's PE state after resume" "$(pe_state "$SW_DOWN1")" normal
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect "$NV's command register after the other port's recovery" "$(cmdreg "$NV")" "$nv_cmd"
expect "nvme callbacks during the other port's recovery" "$(grep -c ' nvme_' "$TR/trace")" 0
wait_until 30 nvme_reads "$NV" "$IMG" || fail "the nvme disk does not read $IMG after the other port's recovery"
ok "the nvme was left alone and still reads the same 4 MiB"

# every device of the subtree, the bridges that the detections named
# included, is back in normal channel state (a bridge left frozen would
# make a daemon started later take a healthy PE for a frozen one)
must_nl dump
left=
for _d in $RP_SWITCH $SW_UP $SW_DOWN1 $SW_DOWN2 $TD $NV; do
	echo "$out" | grep " dev=$_d " | grep -q " state=normal " || left="$left $_d"
done
[ -z "$left" ] || fail "devices not in normal channel state after the recoveries: $left"
ok "every device of the subtree, bridges included, is in normal channel state"

info "pcierrd recovers the root port's PE, the switch's ports answering too"
# the same failure of the root port, now with pcierrd: its policy takes the
# ports' answers among the results of the devices below its PE (which lists
# the upstream port alone) and the recovery ends recovered, not "gone"
td_clear "$TD"
sig_start
pcierrd_start
bus_objects "$RP" "$SW_UP"
echo > "$TR/trace"
sig_mark
td_set "$TD" report_upstream 3
must_signal 30 RecoveryStarted "\"$RP\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" callbacks
finish_of "$RP" 60
echo "  duration $fin_usec us; steps: $(steps_since "$RP")"
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(steps_since "$RP")" "error_detected=need_reset reset=ok slot_reset=recovered resume=recovered"
expect "pcie_portdrv_slot_reset calls under pcierrd" "$(ncalls pcie_portdrv_slot_reset)" 3
expect "pciehp_slot_reset calls under pcierrd" "$(ncalls pciehp_slot_reset)" "$hp_ports"
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"
expect "root port PE state after pcierrd's recovery" "$(pe_state "$RP")" normal
wait_until 30 nvme_reads "$NV" "$IMG" || fail "the nvme disk does not read $IMG after pcierrd's recovery"
ok "the nvme reads the same 4 MiB after pcierrd's recovery"
pcierrd_stop

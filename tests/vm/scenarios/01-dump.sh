#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 1: the dump (GET_PE) shows every PCI device of the topology, in
# the right PE, with the right ids, driver and recovery handlers.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"

must_nl dump
dump=$out
[ -n "$dump" ] || fail "empty dump"
printf '%s\n' "$dump" > "$TMP/dump"

# Every device in sysfs appears exactly once, with sysfs's ids and driver,
# and, if it sits below a bridge, in the PE named by that bridge.
n=0
for d in "$SYS"/*; do
	a=${d##*/}
	n=$((n + 1))
	lines=$(grep " dev=$a " "$TMP/dump")
	[ -n "$lines" ] || fail "device $a is not in the dump"
	[ "$lines" = "${lines%%
*}" ] || fail "device $a appears more than once in the dump"
	line=$lines
	# shell builtins where possible: every process costs ~50 ms under TCG
	read -r vendor < "$d/vendor"
	read -r device < "$d/device"
	read -r class < "$d/class"
	vendor=${vendor#0x} device=${device#0x} class=${class#0x}
	drv=-
	while read -r l; do
		case "$l" in DRIVER=*) drv=${l#DRIVER=} ;; esac
	done < "$d/uevent"
	[ "$(kv vendor "$line")" = "$vendor" ] || fail "$a: vendor $(kv vendor "$line"), sysfs $vendor"
	[ "$(kv device "$line")" = "$device" ] || fail "$a: device $(kv device "$line"), sysfs $device"
	[ "$(kv class "$line")" = "$class" ] || fail "$a: class $(kv class "$line"), sysfs $class"
	[ "$(kv driver "$line")" = "$drv" ] || fail "$a: driver $(kv driver "$line"), sysfs $drv"
	[ "$(kv state "$line")" = normal ] || fail "$a: state $(kv state "$line"), expected normal"
	if [ "$drv" = - ]; then
		[ "$(kv handlers "$line")" = - ] || fail "$a: unbound but handlers=$(kv handlers "$line")"
	fi
	parent=$(readlink -f "$d")
	parent=${parent%/*}
	parent=${parent##*/}
	case "$parent" in
	pci*) ;; # on a root bus: a PE of its own, not checked here
	*)
		[ "$(kv pe "$line")" = "$parent" ] ||
			fail "$a: pe=$(kv pe "$line"), expected the bridge above it, $parent"
		;;
	esac
done
ok "all $n devices of /sys/bus/pci/devices are in the dump with sysfs's ids and driver"

# No device in the dump that sysfs does not have
for a in $(sed -n 's/.* dev=\([^ ]*\) .*/\1/p' "$TMP/dump"); do
	[ "$a" = - ] && continue
	[ -e "$SYS/$a" ] || fail "the dump has $a, which is not in /sys/bus/pci/devices"
done
ok "no device in the dump that sysfs lacks"

# Each topology device, by name
check_dev() { # NAME DRIVER HANDLERS(exact, or "+list" for at least)
	a=$(eval echo "\$$1")
	line=$(grep " dev=$a " "$TMP/dump") || fail "$1 ($a) not in the dump"
	expect "$1 ($a) driver" "$(kv driver "$line")" "$2"
	h=$(kv handlers "$line")
	case "$3" in
	+*)
		for want in $(echo "${3#+}" | tr ',' ' '); do
			case ",$h," in
			*",$want,"*) ;;
			*) fail "$1 ($a) handlers=$h lacks $want" ;;
			esac
		done
		ok "$1 ($a) handlers=$h include ${3#+}"
		;;
	*) expect "$1 ($a) handlers" "$h" "$3" ;;
	esac
}
all4=error_detected,mmio_enabled,slot_reset,resume
check_dev E1000E e1000e +error_detected,slot_reset,resume
check_dev TESTDEV_A pcierr_test $all4
check_dev TESTDEV_B pcierr_test $all4
check_dev MIXED_TESTDEV pcierr_test $all4
check_dev EDU pcierr_test_unaware -
check_dev MIXED_EDU pcierr_test_unaware -
# shpchp drives the pcie-pci-bridge's SHPC since the topology has native
# hotplug (-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off;
# before, acpiphp held the slot and shpchp's registration failed)
check_dev MIXED_BRIDGE shpchp -
check_dev HOSTROOT_9P virtio-pci -

# The PEs of the topology: the bridge above each device
expect "PE of E1000E" "$(kv pe "$(grep " dev=$E1000E " "$TMP/dump")")" "$RP_E1000E"
expect "PE of TESTDEV_A" "$(kv pe "$(grep " dev=$TESTDEV_A " "$TMP/dump")")" "$RP_TESTDEV_A"
expect "PE of TESTDEV_B" "$(kv pe "$(grep " dev=$TESTDEV_B " "$TMP/dump")")" "$RP_TESTDEV_B"
expect "PE of EDU" "$(kv pe "$(grep " dev=$EDU " "$TMP/dump")")" "$RP_EDU"
expect "PE of MIXED_BRIDGE" "$(kv pe "$(grep " dev=$MIXED_BRIDGE " "$TMP/dump")")" "$RP_MIXED"
expect "PE of MIXED_TESTDEV" "$(kv pe "$(grep " dev=$MIXED_TESTDEV " "$TMP/dump")")" "$MIXED_BRIDGE"
expect "PE of MIXED_EDU" "$(kv pe "$(grep " dev=$MIXED_EDU " "$TMP/dump")")" "$MIXED_BRIDGE"
for pe in "$RP_E1000E" "$RP_TESTDEV_A" "$RP_TESTDEV_B" "$RP_EDU" "$MIXED_BRIDGE"; do
	expect "pe_state of $pe" "$(kv pe_state "$(grep -m 1 "^pe=$pe " "$TMP/dump")")" normal
done

# "pe ADDR" gives the same lines as the dump for that PE
must_nl pe "$MIXED_BRIDGE"
expect "pe $MIXED_BRIDGE" "$out" "$(grep "^pe=$MIXED_BRIDGE " "$TMP/dump")"
[ "$(printf '%s\n' "$out" | grep -c ' dev=')" = 2 ] || fail "pe $MIXED_BRIDGE should list 2 devices"
ok "pe $MIXED_BRIDGE lists its 2 devices"

# Handlers are read live from the driver: the test driver's presence switch
a_line() {
	must_nl pe "$RP_TESTDEV_A"
	line=$(printf '%s\n' "$out" | grep " dev=$TESTDEV_A ") ||
		fail "pe $RP_TESTDEV_A does not list $TESTDEV_A"
}
td_handlers error_detected,resume
a_line
expect "TESTDEV_A handlers after the switch" "$(kv handlers "$line")" error_detected,resume
td_handlers -
a_line
expect "TESTDEV_A handlers with no err_handler" "$(kv handlers "$line")" -
expect "TESTDEV_A driver with no err_handler" "$(kv driver "$line")" pcierr_test
td_handlers all
a_line
expect "TESTDEV_A handlers restored" "$(kv handlers "$line")" $all4

# An unknown PE
pnl pe 0000:7f:1f.7
[ "$rc" = 1 ] || fail "pe of a missing address exited $rc, expected 1"
ok "pe of a missing address fails ($out)"

# stats has every counter
must_nl stats
for c in checks all_ones false_positives ignored freezes events_sent \
	 events_dropped resets hotplugs ops ops_failed; do
	printf '%s\n' "$out" | grep -q "^$c=[0-9][0-9]*$" || fail "stats lacks $c"
done
ok "stats has every counter"

# ABI v2: every PE has an id (never 0), the same in every line of the PE
# and in the next dump (nothing changed in between)
for pe in "$RP_E1000E" "$RP_TESTDEV_A" "$MIXED_BRIDGE"; do
	ids=$(grep "^pe=$pe " "$TMP/dump" | sed 's/.* pe_id=\([0-9]*\).*/\1/' | sort -u)
	case "$ids" in
	''|0|*[!0-9]*) fail "PE $pe: pe_id '$ids' is not one number above 0" ;;
	esac
done
n_ids=$(sed 's/.* pe_id=\([0-9]*\).*/\1/' "$TMP/dump" | sort -u | wc -l)
n_pes=$(sed 's/^pe=\([^ ]*\) .*/\1/' "$TMP/dump" | sort -u | wc -l)
expect "distinct PE ids" "$n_ids" "$n_pes"
must_nl dump
expect "a second dump (ids included)" "$out" "$dump"

# D6: a PE larger than one message is split across dump messages, and
# libpcierr puts it back together. The test parameter puts at most one
# device in each message: every PE with N devices comes as N messages
# with its id, and the merged dump is the same as before.
P=/sys/module/pcierr_shim/parameters/test_dump_split
must_nl dump-parts
printf '%s\n' "$out" | grep -q "^part pe=$MIXED_BRIDGE .* devices=2$" ||
	fail "unsplit: $MIXED_BRIDGE should come in one message with its 2 devices"
parts0=$(kv parts "$(line_with parts= "$out")")
echo 1 > "$P"
must_nl dump-parts
parts1=$(kv parts "$(line_with parts= "$out")")
mb=$(printf '%s\n' "$out" | grep -c "^part pe=$MIXED_BRIDGE .* devices=1$")
must_nl dump
split_dump=$out
echo 0 > "$P"
expect "messages for $MIXED_BRIDGE with one device each" "$mb" 2
[ "$parts1" -gt "$parts0" ] || fail "split dump has $parts1 messages, unsplit $parts0"
ok "split dump: $parts1 messages instead of $parts0"
expect "the split dump, put back together" "$split_dump" "$dump"

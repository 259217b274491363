#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The demo (make demo), first version: the kernel shim driven step by step
# through libpcierr (build/pcierr-nl), on the test VM's real devices. The
# decisions shown here by hand are pcierrd's job once it exists.
set -eu
set -a
# shellcheck disable=SC1090
. "${VM_TOPOLOGY:?}"
set +a
NL=${NL:?}
SYS=/sys/bus/pci/devices

title() { printf '\n=== %s\n' "$*"; }
# step DESCRIPTION CMD...: run a pcierr-nl step, show its outcome compactly
step() {
	d=$1
	shift
	t0=$(date +%s%N)
	o=$("$NL" "$@") || { echo "$o"; echo "demo: step failed: $d"; exit 1; }
	t1=$(date +%s%N)
	res=$(printf '%s\n' "$o" | sed -n 's/.* result=\([^ ]*\).*/\1/p')
	results=$(printf '%s\n' "$o" | sed -n 's/.* results=\([^ ]*\).*/\1/p')
	printf '  %-34s %6d ms  %s %s\n' "$d" $(( (t1 - t0) / 1000000 )) \
		"${res:+merged=$res}" "${results:+[$results]}"
}
driver() { basename "$(readlink "$SYS/$1/driver" 2>/dev/null)" 2>/dev/null || echo -; }

title "Topology: every PCI device, its PE, driver and recovery handlers"
"$NL" dump | awk '{ printf "  %-14s %-14s %-20s %-42s %s\n", $1, $4, $8, $9, $10 }' |
	sed 's/pe=//; s/dev=//; s/driver=//; s/handlers=//; s/state=//'

title "1. A frozen e1000e NIC, recovered with its driver's own callbacks"
nic=$(ls "$SYS/$E1000E/net")
echo "  $E1000E ($nic): injecting a freeze (decode and DMA cut off)"
"$NL" listen --count 1 --timeout 10 > /tmp/demo-event &
sleep 0.3
"$NL" inject "$E1000E" > /dev/null
wait
echo "  event: $(cat /tmp/demo-event)"
echo "  command register now: $(setpci -s "$E1000E" COMMAND)"
step "error_detected(frozen)" report "$RP_E1000E" error_detected --state frozen
step "hot reset (secondary bus reset)" reset "$RP_E1000E"
step "slot_reset" report "$RP_E1000E" slot_reset
step "resume" report "$RP_E1000E" resume
echo "  command register now: $(setpci -s "$E1000E" COMMAND)"
ip link set "$nic" up
i=0
while [ "$(cat "/sys/class/net/$nic/carrier" 2>/dev/null)" != 1 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "  $nic carrier: $(cat "/sys/class/net/$nic/carrier")  address: $(cat "/sys/class/net/$nic/address")"

title "2. A card whose driver has no handlers (edu): hotplug fallback"
echo "  $EDU driver: $(driver "$EDU")"
"$NL" inject "$EDU" > /dev/null
step "error_detected(frozen)" report "$RP_EDU" error_detected --state frozen
step "remove (hot-unplug)" remove "$RP_EDU"
step "rescan" rescan "$RP_EDU"
echo "  $EDU back, driver: $(driver "$EDU")"

title "3. A card that keeps failing: disabled, and kept away"
step "perm_failure to every driver" disable "$RP_TESTDEV_B"
echo 1 > /sys/bus/pci/rescan
[ -e "$SYS/$TESTDEV_B" ] && echo "  $TESTDEV_B: still there" || echo "  $TESTDEV_B: gone, and stays gone after a rescan"
echo "  pcierr: $TESTDEV_B permanently disabled; please try reseating or replacing the card"
step "enable (after the card was replaced)" enable "$RP_TESTDEV_B"
echo "  $TESTDEV_B back, driver: $(driver "$TESTDEV_B")"

title "Kernel counters"
"$NL" stats | tr '\n' ' ' | fold -s -w 76 | sed 's/^/  /'
echo

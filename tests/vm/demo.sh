#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The demo (make demo, make vm-demo): pcierrd at work on the test VM's real
# devices, shown with pcierrctl itself, as a terminal session. Run by the
# guest runner (tests/vm/guest/runner, demo mode), which has loaded the
# drivers and the shim and started the system bus; pcierrd is started here
# the way the scenarios start it (lib.sh: pcierrd_start).
#
#   1. pcierrctl status: the slots and devices
#   2. pcierrctl inject on the e1000e: recovered by its driver's callbacks
#      (error_detected -> reset -> slot_reset -> resume); 1/5 freezes; the
#      NIC works -- with traffic running: a ping to QEMU's user-mode
#      gateway (10.0.2.2, answered by QEMU itself: restrict=on, nothing
#      leaves the VM) goes on across the recovery (make vm-drivers-check,
#      docs/drivers.md, does this for every driver, with disks too)
#   3. pcierrctl inject on the edu (pcierr_test_unaware, no handlers): the
#      hotplug fallback (remove -> wait_udev -> reset -> rescan), rebound
#   4. a pci-testdev (pcierr_test) frozen six times: five recoveries, the
#      sixth disables it ("reseat or replace"); pcierrctl enable
#   5. pcierrctl stats and history
#
# Every step is checked: the demo exits non-zero (and says which step) when
# one does not do what it shows. Its commands' details (lib.sh's "+ ..."
# and "ok: ..." lines) go to $DEMO_LOG, shown when it fails.
PCIERR_SCENARIO=${PCIERR_SCENARIO:-demo}
# shellcheck source=tests/vm/lib.sh
. "${VM_LIB:?}"

PATH=$BUILD:$PATH
# pcierrctl draws its trees with UTF-8 glyphs where the locale says UTF-8
export PATH NO_COLOR=1 PAGER=cat LC_ALL=C.UTF-8
DEMO_LOG=${PCIERR_OUT:-$TMP}/log/demo.details.log
: > "$DEMO_LOG"
CLEANUP_PES="$RP_E1000E $RP_EDU $RP_TESTDEV_B"
# the terminal (stdout) stays on fd 7, whatever a helper redirects
exec 7>&1

# on a failure, the details first; then lib.sh's clean-up (which stops
# pcierrd, shows its log on a failure, and exits with the status)
_demo_exit() {
	_st=$?
	if [ "$_st" != 0 ]; then
		{
			echo
			echo "demo: FAILED (exit status $_st); the last details ($DEMO_LOG):"
			tail -n 25 "$DEMO_LOG" | sed 's/^/  | /'
		} >&7
	fi
	return "$_st"
}
trap '_demo_exit; _cleanup' EXIT

die() {
	echo "demo: FAILED: $*" >&7
	exit 1
}

# quiet CMD...: a helper of lib.sh, its output to $DEMO_LOG
quiet() {
	"$@" >> "$DEMO_LOG" 2>&1
}

heading() {
	printf '\n=== %s\n\n' "$*"
}

# sh_ WANT CMD...: show "# CMD" and run it (bounded); its exit status must
# be WANT (0, 1, ...)
sh_() {
	_want=$1
	shift
	echo "# $*"
	timeout -k 5 150 "$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || die "'$*' exited with status $_rc, expected $_want"
	[ "$_want" = 0 ] || echo "(exit status $_rc)"
	return 0
}
# show CMD...: as sh_ 0
show() { sh_ 0 "$@"; }

# short CMD: the pcierrctl command as shown (01:00.0 for 0000:01:00.0)
short() { echo "${1#0000:}"; }

E=$(short "$E1000E")
EDUA=$(short "$EDU")
TB=$(short "$TESTDEV_B")
RPB=$(short "$RP_TESTDEV_B")

# --- set-up ------------------------------------------------------------------

quiet require_normal "$RP_E1000E" "$RP_EDU" "$RP_TESTDEV_B"
quiet td_defaults
bound_to "$E1000E" e1000e || die "$E1000E is not bound to e1000e"
bound_to "$EDU" pcierr_test_unaware || die "$EDU is not bound to pcierr_test_unaware"
bound_to "$TESTDEV_B" pcierr_test || die "$TESTDEV_B is not bound to pcierr_test"
nic=$(ls "$SYS/$E1000E/net" 2>/dev/null | head -n 1)
[ -n "$nic" ] || die "$E1000E has no network interface"

heading "pcierrd starts (the system bus is up; the shim and the drivers are loaded)"
echo "# pcierrd --state-dir $PD_STATE &"
t0=$(now_ns)
# (fd 7 closed: what runs in the background must not hold the terminal,
# a pipe to the runner's tee)
quiet pcierrd_start 7>&-
echo "pcierrd (pid $PD_PID) owns org.pcierr1 after $(ms_between "$t0" "$(now_ns)") ms"

# --- 1. status -----------------------------------------------------------------

heading "1. What pcierrd watches: the slots and their devices"
show pcierrctl status

# --- 2. e1000e -----------------------------------------------------------------

heading "2. A frozen e1000e NIC, recovered by its driver's own callbacks, traffic running"
ip addr replace 10.0.2.15/24 dev "$nic" || die "ip addr replace 10.0.2.15/24 dev $nic failed"
ip link set "$nic" up || die "ip link set $nic up failed"
wait_until 15 sh -c "[ \"\$(cat /sys/class/net/$nic/carrier 2>/dev/null)\" = 1 ]" ||
	die "$nic has no carrier before the error"
show ip -br addr show "$nic"
echo "# ping -i 0.2 10.0.2.2 > ping.log &    (QEMU's user-mode gateway answers)"
busybox ping -i 0.2 10.0.2.2 > "$TMP/ping.log" 2>&1 7>&- &
PING_PID=$!
BG_PIDS="$BG_PIDS $PING_PID"
wait_until 15 grep -q 'seq=' "$TMP/ping.log" || die "no ping reply from 10.0.2.2 before the error: $(cat "$TMP/ping.log")"
sleep 1
show pcierrctl inject "$E"
n_fin=$(grep -c 'seq=' "$TMP/ping.log")
wait_until 15 sh -c "[ \$(grep -c 'seq=' $TMP/ping.log) -gt $n_fin ]" ||
	die "the ping got no reply within 15 s of the recovery"
sleep 2
kill -INT "$PING_PID"
wait "$PING_PID"
echo "# (ping stopped) the replies around the recovery, and its summary:"
# the gap in the sequence numbers is the outage
awk -F'seq=' '/seq=/ { split($2, a, " "); s = a[1] + 0
	if (p != "" && s != p + 1) printf "   ... no reply for seq %d-%d (the NIC frozen and recovering)\n", p + 1, s - 1
	p = s }' "$TMP/ping.log"
tail -n 3 "$TMP/ping.log"
show pcierrctl status "$E"
[ "$(dev_prop "$E1000E" FreezeCount 2>/dev/null)" = 1 ] ||
	die "FreezeCount of $E1000E is $(dev_prop "$E1000E" FreezeCount 2>/dev/null), expected 1"
# the NIC works: carrier again, its status register read through the driver
wait_until 15 sh -c "[ \"\$(cat /sys/class/net/$nic/carrier 2>/dev/null)\" = 1 ]" ||
	die "$nic has no carrier after the recovery"
show ip -br link show "$nic"
echo "# ethtool -d $nic | grep -A3 '^0x00008'"
regs=$(ethtool -d "$nic" 2>&1) || die "ethtool -d $nic failed: $regs"
printf '%s\n' "$regs" | grep -A3 '^0x00008'
st=$(printf '%s\n' "$regs" | sed -n 's/^0x00008: .* \(0x[0-9A-Fa-f]\{8\}\)$/\1/p')
[ -n "$st" ] && [ "$st" != 0xFFFFFFFF ] && [ "$st" != 0xffffffff ] && [ $((st & 2)) != 0 ] ||
	die "$nic status register not sane after the recovery (${st:-unreadable})"
ip addr flush dev "$nic"
ip link set "$nic" down

# --- 3. edu, no handlers -------------------------------------------------------

heading "3. A card whose driver has no recovery handlers: the hotplug fallback"
show pcierrctl status "$EDUA"
show pcierrctl inject "$EDUA"
wait_until 15 bound_to "$EDU" pcierr_test_unaware ||
	die "$EDU not rebound to pcierr_test_unaware (driver $(driver_of "$EDU"))"
quiet wait_prop 10 dev "$EDU" Driver pcierr_test_unaware
show pcierrctl status "$EDUA"

# --- 4. six freezes --------------------------------------------------------------

heading "4. A card that keeps failing: five freezes recovered, the sixth disables it"
echo "# pcierrctl monitor > monitor.log &"
pcierrctl monitor > "$TMP/monitor.log" 2> "$TMP/monitor.err" 7>&- &
MON_PID=$!
BG_PIDS="$BG_PIDS $MON_PID"
wait_until 10 grep -q Following "$TMP/monitor.err" || die "pcierrctl monitor did not start: $(cat "$TMP/monitor.err")"
echo "# for i in 1 2 3 4 5; do pcierrctl -q inject $TB && pcierrctl --no-legend list | grep $TB; done"
i=1
while [ $i -le 5 ]; do
	timeout -k 5 150 pcierrctl -q inject "$TB" || die "pcierrctl -q inject $TB (freeze $i) exited with status $?"
	wait_until 15 bound_to "$TESTDEV_B" pcierr_test || die "$TESTDEV_B not bound after freeze $i"
	pcierrctl --no-legend list | grep "$TB" || die "pcierrctl list has no $TB after freeze $i"
	i=$((i + 1))
done
[ "$(dev_prop "$TESTDEV_B" FreezeCount 2>/dev/null)" = 5 ] || die "FreezeCount of $TESTDEV_B is not 5"
since=$(date '+%H:%M:%S')
sh_ 1 pcierrctl inject "$TB"
wait_until 10 absent "$TESTDEV_B" || die "$TESTDEV_B is still there after the disable"
[ "$(slot_prop "$RP_TESTDEV_B" Disabled 2>/dev/null)" = true ] || die "slot $RP_TESTDEV_B is not Disabled"
show pcierrctl status "$RPB"
echo "# grep 'permanently disabled' monitor.log"
grep 'permanently disabled' "$TMP/monitor.log" || die "pcierrctl monitor saw no PermanentlyDisabled"
grep -q 'reseat' "$TMP/monitor.log" || die "the PermanentlyDisabled reason does not say reseat or replace"
echo "# echo 1 > /sys/bus/pci/rescan; ls /sys/bus/pci/devices/$TESTDEV_B"
echo 1 > /sys/bus/pci/rescan
sleep 1
ls "$SYS/$TESTDEV_B" 2>&1 && die "$TESTDEV_B came back on a kernel rescan while disabled"
echo
echo "(here an administrator reseats or replaces the card)"
show pcierrctl enable "$TB"
wait_until 20 bound_to "$TESTDEV_B" pcierr_test || die "$TESTDEV_B did not come back bound after enable"
quiet wait_prop 10 slot "$RP_TESTDEV_B" Disabled false
quiet wait_prop 10 dev "$TESTDEV_B" FreezeCount 0
show pcierrctl status "$RPB"

# --- 5. counters, history ----------------------------------------------------------

heading "5. What pcierrd counted and remembers"
show pcierrctl stats --no-legend
show pcierrctl history --since "$since" "$RPB"
kill "$MON_PID" 2>/dev/null

quiet pcierrd_stop
echo
echo "demo: done, every step did what it showed"

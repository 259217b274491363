#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# systemd 1: "systemctl start pcierrd" under real systemd.
#   Before: pcierrd.service installed, not running; pcierr_shim loaded at
#   boot by systemd-modules-load (modules-load.d/pcierr.conf) from the
#   installed /lib/modules/KVER/updates. systemctl start returns 0 (Type=
#   notify: only after READY=1), and at that moment pcierrd already owns
#   org.pcierr1 (owner PID = MainPID); active (running), StatusText
#   "Watching PCI slots." (shim connected), no restarts; the main process
#   is /usr/sbin/pcierrd with CAP_NET_ADMIN and CAP_SYS_ADMIN alone and no_new_privs;
#   "systemctl status" says so; "busctl tree org.pcierr1" lists the
#   Manager, a Slot and a Device object for every slot and device of
#   "pcierrctl --json status", the e1000e's among them.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"

kver=$(uname -r)
expect "$UNIT before" "$(systemctl is-active "$UNIT")" inactive
# (not "systemctl is-enabled": it reads every unit file, over 9p under
# TCG, for a minute and more)
uexpect FragmentPath /lib/systemd/system/pcierrd.service
uexpect LoadState loaded
[ -d /sys/module/pcierr_shim ] || fail "pcierr_shim is not loaded"
expect "pcierr_shim's file" "$(modinfo -n pcierr_shim)" "/lib/modules/$kver/updates/pcierr_shim.ko"
uexpect Result success systemd-modules-load.service
journalctl -b --no-pager -o cat -t systemd-modules-load | grep -q "^Inserted module 'pcierr_shim'$" ||
	fail "systemd-modules-load did not insert pcierr_shim: $(journalctl -b --no-pager -o cat -t systemd-modules-load)"
ok "systemd-modules-load inserted pcierr_shim"
bound_to "$E1000E" e1000e || fail "$E1000E is not bound to e1000e (udev's coldplug)"
ok "$E1000E bound to e1000e"

cursor=$(journal_cursor)
t0=$(now_ns)
run systemctl start "$UNIT"
# right away, before anything else: READY=1 came after the name was owned
owner_pid=$(bus_owner_pid)
[ "$rc" = 0 ] || fail "systemctl start $UNIT exited $rc"
ok "systemctl start $UNIT returned 0 after $(ms_between "$t0" "$(now_ns)") ms"
pid=$(uprop MainPID)
[ "$pid" -gt 0 ] 2>/dev/null || fail "MainPID is '$pid'"
expect "owner of $BUS_NAME when systemctl start returned (READY=1 after the name)" "$owner_pid" "$pid"

uexpect Type notify
uexpect ActiveState active
uexpect SubState running
uexpect Result success
uexpect NRestarts 0
uexpect StatusText "Watching PCI slots."
uexpect ExecMainPID "$pid"
s=$(uprop ExecMainStartTimestampMonotonic)
a=$(uprop ActiveEnterTimestampMonotonic)
[ "$a" -ge "$s" ] 2>/dev/null || fail "active at $a before the process started at $s"
ok "active (running) $(( (a - s) / 1000 )) ms after the process started: READY=1"

expect "main process" "$(readlink "/proc/$pid/exe")" /usr/sbin/pcierrd
# CAP_NET_ADMIN (12) and CAP_SYS_ADMIN (21): the shim's ABI version 2
expect "CapEff (CAP_NET_ADMIN and CAP_SYS_ADMIN alone)" "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status")" 0000000000201000
expect "CapBnd" "$(sed -n 's/^CapBnd:[[:space:]]*//p' "/proc/$pid/status")" 0000000000201000
expect "NoNewPrivs" "$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "/proc/$pid/status")" 1
[ -d /var/lib/pcierr ] || fail "no StateDirectory /var/lib/pcierr"
ok "StateDirectory /var/lib/pcierr: $(echo /var/lib/pcierr/*)"

run systemctl status "$UNIT" --no-pager --lines=20
[ "$rc" = 0 ] || fail "systemctl status $UNIT exited $rc"
printf '%s\n' "$out" | grep -qF "Loaded: loaded (/lib/systemd/system/pcierrd.service; disabled;" ||
	fail "systemctl status does not say loaded from /lib/systemd/system/pcierrd.service, disabled"
ok "systemctl status: loaded from /lib/systemd/system/pcierrd.service, disabled (make install enables nothing)"
printf '%s\n' "$out" | grep -q "Active: active (running)" || fail "systemctl status does not say active (running)"
ok "systemctl status: Active: active (running)"
printf '%s\n' "$out" | grep -q "Main PID: $pid (pcierrd)" || fail "systemctl status does not name Main PID: $pid (pcierrd)"
ok "systemctl status: Main PID: $pid (pcierrd)"
printf '%s\n' "$out" | grep -q 'Status: "Watching PCI slots."' || fail "systemctl status shows no Status"
ok "systemctl status: Status: \"Watching PCI slots.\""
printf '%s\n' "$out" | grep -q "pcierrd .* started ([0-9]* slots)" || fail "systemctl status shows no start message of pcierrd"
ok "systemctl status shows pcierrd's start message"

run busctl --system tree --list "$BUS_NAME"
[ "$rc" = 0 ] || fail "busctl tree $BUS_NAME exited $rc"
tree=$out
printf '%s\n' "$tree" | grep -qx "$BUS_PATH" || fail "no $BUS_PATH in the tree"
bus_objects "$RP_E1000E" "$E1000E"
for p in "$(slot_path "$RP_E1000E")" "$(dev_path "$E1000E")"; do
	printf '%s\n' "$tree" | grep -qxF "$p" || fail "no $p in busctl tree"
done
ok "busctl tree holds the Manager, the e1000e's slot and device"
# every slot and device of pcierrctl's view has its object, and no more
ctl_json status
[ "$rc" = 0 ] || fail "pcierrctl --json status exited $rc"
json_valid "$json" "pcierrctl --json status"
nslots=$(jget "$json" Slots | sed -n 's/^array //p')
ndevs=$(jget "$json" Devices | sed -n 's/^array //p')
tslots=$(printf '%s\n' "$tree" | grep -c "^$BUS_PATH/slot/")
tdevs=$(printf '%s\n' "$tree" | grep -c "^$BUS_PATH/device/")
expect "Slot objects in busctl tree" "$tslots" "$nslots"
expect "Device objects in busctl tree" "$tdevs" "$ndevs"
[ "$ndevs" -ge 10 ] || fail "only $ndevs devices"
i=0
while [ "$i" -lt "$ndevs" ]; do
	a=$(jget "$json" "Devices[$i].Address")
	p=$(dev_path "$a") || fail "Manager.GetDevice $a failed"
	printf '%s\n' "$tree" | grep -qxF "$p" || fail "no $p (device $a) in busctl tree"
	i=$((i + 1))
done
ok "each of the $ndevs devices has its object in the tree"

journal_has "$cursor" 5 "systemd\[1\]: Started pcierrd.service" ||
	fail "no 'Started pcierrd.service' in the journal"
ok "journal: systemd's Started pcierrd.service"
journal_has "$cursor" 5 "pcierrd\[$pid\]: pcierrd [^ ]* started \([0-9]+ slots\)\.$" ||
	fail "no 'pcierrd\[$pid\]: pcierrd VERSION started (N slots).' in the journal"
ok "journal: pcierrd's own start message"
echo "--- the journal since systemctl start ---"
journal_since "$cursor"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 17: the kernel's own AER recovery, driven by the kernel's
# software injector (aer_inject, build/aer-inject: a fatal Surprise Down,
# uncorrectable status bit 5) on the e1000e below its ioh3420 root port.
# Measured on this kernel (Debian 6.1.x): a successful recovery sends
# "change" uevents ERROR_EVENT=BEGIN_RECOVERY (DEVICE_ONLINE=0) and then
# ERROR_EVENT=SUCCESSFUL_RECOVERY (DEVICE_ONLINE=1), both on the e1000e
# (0000:01:00.0), none on the root port; "AER: device recovery successful"
# about 0.2 s after the injection. With the driver unbound first,
# error_detected votes NO_AER_DRIVER (no uevent), the kernel still resets
# the link, and sends ERROR_EVENT=FAILED_RECOVERY (DEVICE_ONLINE=0) on the
# e1000e: "AER: device recovery failed"; the device stays in the frozen
# channel state and a plain bind fails (probe error -2) until it is
# removed and rescanned.
#   a. successful: counted as a freeze (FreezeCount 0 -> 1), ErrorDetected
#      (source aer), RecoveryStarted kernel, RecoveryFinished recovered, no
#      RecoveryStep of pcierr's own, no shim reset; the NIC works.
#   b. failed (e1000e unbound): pcierrd's fallback, full hotplug (remove,
#      wait_udev, reset, rescan), recovered: the e1000e bound and working,
#      FreezeCount 2.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_E1000E
DEV=$E1000E
CLEANUP_PES=$PE
# put the e1000e back if this fails half-way; drop the injector's bus ops
CLEANUP_CMD='
	if [ -e "$SYS/$DEV" ] && ! bound_to "$DEV" e1000e; then
		echo "$DEV" > /sys/bus/pci/drivers/e1000e/bind ||
			{ echo 1 > "$SYS/$DEV/remove"; echo 1 > /sys/bus/pci/rescan; }
	fi
	rmmod aer_inject'
require_normal "$PE"
nic_works "$DEV" "before"
aer_inject_load

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
expect_prop dev "$DEV" FreezeCount 0

info "a. the kernel recovers the e1000e"
resets0=$(nl_stat resets)
freezes0=$(nl_stat freezes)
klines=$(dmesg | wc -l)
sig_mark
run "$AER_INJECT" --surprise-down "$DEV"
[ "$rc" = 0 ] || fail "aer-inject failed"
must_signal 30 ErrorDetected "\"$PE\""
expect "ErrorDetected device" "$(sig_arg "$sig" 2)" "$DEV"
expect "ErrorDetected source" "$(sig_arg "$sig" 5)" aer
must_signal 30 RecoveryStarted "\"$PE\""
expect "RecoveryStarted mode" "$(sig_arg "$sig" 2)" kernel
finish_of "$PE" 30
echo "  RecoveryFinished $fin_result, $fin_usec us"
dmesg | tail -n +"$((klines + 1))" | grep -E 'aer_inject|AER:' | sed 's/^/  | /'
expect "RecoveryFinished" "$fin_result" recovered
dmesg | tail -n +"$((klines + 1))" | grep -q 'AER: device recovery successful' ||
	fail "the kernel did not log 'device recovery successful'"
ok "the kernel logged 'device recovery successful'"
expect "pcierr's own steps" "$(steps_since "$PE")" ""
expect "shim: resets" "$(nl_stat resets)" "$resets0"
expect "shim: freezes" "$(nl_stat freezes)" "$freezes0"
expect_prop dev "$DEV" FreezeCount 1
expect_prop slot "$PE" LastResult recovered
expect_prop slot "$PE" Step idle
nic_works "$DEV" "after the kernel's recovery"

info "b. the kernel's recovery fails (e1000e unbound): pcierrd's fallback"
echo "+ echo $DEV > /sys/bus/pci/drivers/e1000e/unbind"
echo "$DEV" > /sys/bus/pci/drivers/e1000e/unbind || fail "cannot unbind e1000e"
wait_prop 10 dev "$DEV" Driver ""
klines=$(dmesg | wc -l)
sig_mark
run "$AER_INJECT" --surprise-down "$DEV"
[ "$rc" = 0 ] || fail "aer-inject failed"
must_signal 30 RecoveryStarted "\"$PE\"" '"full-hotplug"'
finish_of "$PE" 60
echo "  RecoveryStarted: $(sig_all RecoveryStarted "\"$PE\"" | tr '\n' ' ')"
echo "  RecoveryFinished $fin_result, $fin_usec us; steps: $(steps_since "$PE")"
dmesg | tail -n +"$((klines + 1))" | grep -E 'aer_inject|AER:' | sed 's/^/  | /'
dmesg | tail -n +"$((klines + 1))" | grep -q 'AER: device recovery failed' ||
	fail "the kernel did not log 'device recovery failed'"
ok "the kernel logged 'device recovery failed'"
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
nic_works "$DEV" "after pcierrd's fallback"
wait_prop 10 dev "$DEV" Driver e1000e
expect_prop dev "$DEV" State normal
expect_prop dev "$DEV" FreezeCount 2
expect "shim: PE state" "$(pe_state "$PE")" normal
pcierrd_stop

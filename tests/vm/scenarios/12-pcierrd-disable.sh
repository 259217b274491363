#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 12: the freeze limit (MaxFreezes 5 in FreezeWindowSec 3600).
#   Six Manager.Inject on the e1000e, each after the last RecoveryFinished:
#   1-5 recovered (FreezeCount 1..5), the 6th disables: RecoveryFinished
#   disabled, PermanentlyDisabled (its reason says reseat or replace), the
#   device gone from sysfs and kept away across a kernel rescan
#   (echo 1 > /sys/bus/pci/rescan), the Slot Disabled. pcierrd restarted
#   on the same state directory: the Slot is still Disabled and the
#   history has the disable. Manager.Enable: the e1000e is back, bound,
#   working, FreezeCount 0, nothing Disabled. The shim reloaded: the
#   disabled card is taken down again, kept disabled without a new
#   PermanentlyDisabled or count (review U6).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_E1000E
DEV=$E1000E
CLEANUP_PES=$PE
require_normal "$PE"
bound_to "$DEV" e1000e || fail "$DEV is not bound to e1000e at the start"

sig_start
pcierrd_start
expect_prop mgr - MaxFreezes 5
expect_prop mgr - FreezeWindowUSec 3600000000
expect_prop dev "$DEV" FreezeCount 0
bus_objects "$PE" "$DEV"
disables0=$(mgr_prop PermanentDisables)

i=1
while [ $i -le 5 ]; do
	info "freeze $i"
	sig_mark
	must_call Inject ssu "$DEV" frozen 0
	finish_of "$PE" 60
	expect "freeze $i: RecoveryFinished" "$fin_result" recovered
	echo "  freeze $i: recovered in $fin_usec us; steps: $(steps_since "$PE")"
	expect_prop dev "$DEV" FreezeCount $i
	wait_until 15 bound_to "$DEV" e1000e || fail "$DEV not bound after freeze $i"
	i=$((i + 1))
done

info "freeze 6: over the limit"
sig_mark
must_call Inject ssu "$DEV" frozen 0
finish_of "$PE" 60
expect "freeze 6: RecoveryFinished" "$fin_result" disabled
must_signal 10 PermanentlyDisabled "\"$PE\""
reason=$(sig_arg "$sig" 3)
echo "  reason: $reason"
expect "PermanentlyDisabled device" "$(sig_arg "$sig" 2)" "$DEV"
case "$reason" in
*reseat*|*replace*) ok "the reason says to reseat or replace the card" ;;
*) fail "the reason does not mention reseating or replacing: $reason" ;;
esac
echo "  steps: $(steps_since "$PE")"
wait_until 10 absent "$DEV" || fail "$DEV is still in $SYS after the disable"
ok "$DEV is gone from $SYS"
expect_prop slot "$PE" Disabled true
expect_prop slot "$PE" LastResult disabled
expect_prop mgr - PermanentDisables $((disables0 + 1))
expect "shim: PE state" "$(pe_state "$PE")" disabled

echo "+ echo 1 > /sys/bus/pci/rescan"
echo 1 > /sys/bus/pci/rescan
n=0
while [ $n -lt 30 ]; do
	bound_to "$DEV" - || fail "$DEV got bound to $(driver_of "$DEV") while disabled"
	n=$((n + 1))
	sleep 0.1
done
wait_until 10 absent "$DEV" || fail "$DEV is present after the kernel rescan while disabled"
ok "$DEV stayed away across a kernel rescan"
expect_prop slot "$PE" Disabled true

info "restart pcierrd: the disable is remembered"
pcierrd_stop
pcierrd_start
disables1=$(mgr_prop PermanentDisables)
expect_prop slot "$PE" Disabled true
absent "$DEV" || fail "$DEV came back when pcierrd restarted"
ok "$DEV still absent after the restart"
must_call GetHistory tsu 0 "$PE" 0
printf '%s\n' "$out" | grep -q '"disable"' || fail "GetHistory of $PE has no disable entry"
ok "GetHistory of $PE has the disable"

info "the shim reloaded (as after a reboot): pcierrd takes the card down again"
SHIM_KO="$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko"
run timeout 60 rmmod pcierr_shim
[ "$rc" = 0 ] || fail "rmmod pcierr_shim exited $rc"
wait_prop 10 mgr - KernelConnected false
echo "+ echo 1 > /sys/bus/pci/rescan (no shim to keep it away)"
echo 1 > /sys/bus/pci/rescan
wait_until 20 bound_to "$DEV" e1000e || fail "$DEV did not come back without the shim"
ok "$DEV is back on the bus without the shim"
sig_mark
run insmod "$SHIM_KO"
[ "$rc" = 0 ] || fail "insmod $SHIM_KO failed"
wait_prop 10 mgr - KernelConnected true
wait_until 20 absent "$DEV" || fail "$DEV is still present: its disabled identity was not taken down again"
ok "$DEV taken down again once the shim was back (identity disabled)"
wait_prop 10 slot "$PE" Disabled true
# U6: kept disabled, not disabled anew: no PermanentlyDisabled, no count
expect "PermanentlyDisabled signals" "$(sig_all PermanentlyDisabled "\"$PE\"" | wc -l)" 0
expect_prop mgr - PermanentDisables "$disables1"
expect "shim: PE state" "$(pe_state "$PE")" disabled

info "Manager.Enable"
sig_mark
must_call Enable s "$PE"
wait_until 20 bound_to "$DEV" e1000e || fail "$DEV did not come back bound to e1000e after Enable (driver $(driver_of "$DEV"))"
ok "$DEV is back, bound to e1000e"
wait_prop 10 slot "$PE" Disabled false
wait_prop 10 dev "$DEV" FreezeCount 0
expect_prop dev "$DEV" Disabled false
expect_prop dev "$DEV" State normal
expect_prop slot "$PE" State normal
expect "shim: PE state" "$(pe_state "$PE")" normal
nic_works "$DEV" "after Enable"
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 5: the mixed slot (a pcie-pci-bridge holding an e1000 and an
# rtl8139, 8139cp, unaware) with streams running through both, recovered
# with pcierrd's shipped list of broken callbacks
# (systemd/pcierrd.conf.d/50-known-broken.conf, issue 25): the e1000's
# error_detected frees its ACPI-routed INTx under its handler (docs/drivers.md,
# "90-mixed"), so the list routes [Driver e1000] to the hotplug path.
#   `pcierrctl inject` on the e1000: no callback is called; RecoveryStarted
#   full-hotplug, steps remove (both), wait_udev, reset, rescan; recovered
#   (and verified: both drivers bound, both interfaces back). Both cards are
#   new devices bound to e1000 and 8139cp again, their new interfaces set up
#   again as they appear (nic_replumb_bg); both streams are echoed again and
#   both answer 20 of 20 afterwards. The kernel log has no WARNING (the
#   freed-IRQ one of the callbacks' path).
# Without the list the e1000 never passes traffic again (the callbacks'
# path; the kernel's own AER does the same: 97-mixed-kernel-aer).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$MIXED_BRIDGE
CLEANUP_PES=$PE
require_normal "$PE"
peer_setup
nic_setup me1000 "$MIXED_E1000" 26
nic_setup mrtl "$MIXED_RTL" 27

mkdir -p "$PD_CONFD"
cp "$PCIERR_TREE/systemd/pcierrd.conf.d/50-known-broken.conf" "$PD_CONFD/"
sig_start
pcierrd_start
bus_objects "$PE" "$MIXED_E1000" "$MIXED_RTL"
h_e=$(handlers_of "$MIXED_E1000")
h_r=$(handlers_of "$MIXED_RTL")
must_reach me1000 26
must_reach mrtl 27
stream_start me1000 26
stream_start mrtl 27
sleep 3
nic_replumb_bg me1000 "$MIXED_E1000" 26
nic_replumb_bg mrtl "$MIXED_RTL" 27
recovery_of "$PE" "$MIXED_E1000"
expect "RecoveryStarted mode" "$rec_mode" full-hotplug
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
grep -q "Method=hotplug for $MIXED_E1000 (e1000)" "$PD_LOG" ||
	fail "pcierrd's log does not say Method=hotplug for the e1000"
ok "pcierrd: Method=hotplug for $MIXED_E1000 (e1000)"
wait_until 20 bound_to "$MIXED_E1000" e1000 || fail "$MIXED_E1000 not rebound to e1000 (driver $(driver_of "$MIXED_E1000"))"
wait_until 20 bound_to "$MIXED_RTL" 8139cp || fail "$MIXED_RTL not rebound to 8139cp (driver $(driver_of "$MIXED_RTL"))"
ok "both rebound: e1000 and 8139cp"
up_e=$(replumbed_ms me1000 "$INJ_T1")
up_r=$(replumbed_ms mrtl "$INJ_T1")
[ "$up_e" != - ] || fail "the e1000's new interface was not re-plumbed"
[ "$up_r" != - ] || fail "the rtl8139's new interface was not re-plumbed"
nic_setup me1000 "$MIXED_E1000" 26
nic_setup mrtl "$MIXED_RTL" 27
up_ms=$((up_e > up_r ? up_e : up_r))
while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt $((up_ms + 5000)) ]; do
	sleep 0.5
done
stream_stop me1000
stream_stop mrtl
stream_stats me1000 "$INJ_T0" "$INJ_T1"
row "$MIXED_E1000" e1000 "$h_e" "full hotplug (Method=hotplug, shipped list)" "$(ms "$fin_usec")" \
	"$st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo, netdev back +$up_e ms)" -
[ "$st_resume_ms" -ge 0 ] || fail "no echo of the e1000 after RecoveryFinished"
[ "$st_resume_ms" -le $((up_e + 5000)) ] ||
	fail "the e1000's stream resumed $st_resume_ms ms after RecoveryFinished, more than 5 s after its interface was back"
stream_stats mrtl "$INJ_T0" "$INJ_T1"
row "$MIXED_RTL" 8139cp "$h_r" "full hotplug (no handlers)" "$(ms "$fin_usec")" \
	"$st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo, netdev back +$up_r ms)" -
[ "$st_resume_ms" -ge 0 ] || fail "no echo of the rtl8139 after RecoveryFinished"
must_reach me1000 26
must_reach mrtl 27
pcierrd_stop
rm -f "$PD_CONFD/50-known-broken.conf"

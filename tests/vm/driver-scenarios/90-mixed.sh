#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 5: the mixed slot (a pcie-pci-bridge holding an e1000, aware,
# and an rtl8139, 8139cp, unaware): partial hotplug with a stream running
# through the e1000.
#   `pcierrctl inject` on the e1000: RecoveryStarted partial-hotplug; steps
#   error_detected (e1000: need_reset), remove (the rtl8139 alone),
#   wait_udev, reset, slot_reset, resume, rescan; recovered. The e1000 kept
#   its driver, its interface and its address (callbacks), its stream
#   resumes; the rtl8139 is a new device bound to 8139cp again, its
#   interface set up again. Both answer 20 of 20 afterwards.
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
recovery_of "$PE" "$MIXED_E1000"
expect "RecoveryStarted mode" "$rec_mode" partial-hotplug
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(step_names "$PE")" "error_detected remove wait_udev reset slot_reset resume rescan"
bound_to "$MIXED_E1000" e1000 || fail "$MIXED_E1000 lost e1000"
wait_until 20 bound_to "$MIXED_RTL" 8139cp || fail "$MIXED_RTL not rebound to 8139cp (driver $(driver_of "$MIXED_RTL"))"
ok "the e1000 kept its driver; the rtl8139 is rebound to 8139cp"
ip -n ns_me1000 link show t_me1000 >/dev/null 2>&1 || fail "the e1000's interface t_me1000 is gone"
ok "the e1000's interface t_me1000 is still in ns_me1000"
nic_setup mrtl "$MIXED_RTL" 27
up_ms=$(( ($(now_ns) - INJ_T1) / 1000000 ))
while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt $((up_ms + 5000)) ]; do
	sleep 0.5
done
stream_stop me1000
stream_stop mrtl
stream_stats me1000 "$INJ_T0" "$INJ_T1"
e_before=$st_before e_during="$st_during ($st_lost lost)" e_after="$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo)"
e_resume=$st_resume_ms
# the row first (a failing driver is in the table too)
row "$MIXED_E1000" e1000 "$h_e" "partial hotplug (kept, callbacks)" "$(ms "$fin_usec")" \
	"$e_before" "$e_during" "$e_after" -
[ "$e_resume" -ge 0 ] && [ "$e_resume" -le 5000 ] ||
	fail "the e1000's stream resumed $e_resume ms after RecoveryFinished (not within 5 s)"
stream_stats mrtl "$INJ_T0" "$INJ_T1"
row "$MIXED_RTL" 8139cp "$h_r" "partial hotplug (removed, rescanned)" "$(ms "$fin_usec")" \
	"$st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo, netdev back +$up_ms ms)" -
[ "$st_resume_ms" -ge 0 ] || fail "no echo of the rtl8139 after RecoveryFinished"
must_reach me1000 26
must_reach mrtl 27
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Driver suite 4: rtl8139 (8139cp, no handlers): the full hotplug fallback
# with a stream running.
#   The peer streams to the NIC; `pcierrctl inject` freezes its slot;
#   pcierrd has no callback to call: RecoveryStarted full-hotplug, steps
#   remove, wait_udev, reset, rescan; recovered. 8139cp binds the new
#   device by itself (same address); its new interface is given its
#   namespace and address again as soon as it appears (nic_replumb_bg:
#   what udev/networkd would do), and the stream is echoed again. Checked: recovered, the driver rebound, the
#   stream's first echo after RecoveryFinished (reported, with the time
#   the interface took to come back), no loss after it, a fresh stream echoed in full.
#   (megaraid_sas, the other card without handlers, is the last scenario
#   of the suite: 99-megasas-hotplug, see there.)
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_RTL
DEV=$RTL
CLEANUP_PES=$PE
require_normal "$PE"
peer_setup
nic_setup rtl "$DEV" 16

sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
handlers=$(handlers_of "$DEV")
hp0=$(mgr_prop HotplugFallbacks)
must_reach rtl 16
stream_start rtl 16
sleep 3
nic_replumb_bg rtl "$DEV" 16
recovery_of "$PE" "$DEV"
expect "RecoveryStarted mode" "$rec_mode" full-hotplug
expect "RecoveryFinished" "$fin_result" recovered
expect "pcierrctl inject exit status" "$INJ_RC" 0
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
wait_until 20 bound_to "$DEV" 8139cp || fail "$DEV not rebound to 8139cp (driver $(driver_of "$DEV"))"
ok "$DEV rebound to 8139cp"
expect_prop mgr - HotplugFallbacks $((hp0 + 1))
up_ms=$(replumbed_ms rtl "$INJ_T1")
[ "$up_ms" != - ] || fail "the new interface of $DEV was not re-plumbed"
nic_setup rtl "$DEV" 16
ok "the new interface was up in ns_rtl $up_ms ms after RecoveryFinished"
while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt $((up_ms + 5000)) ]; do
	sleep 0.5
done
stream_stop rtl
stream_stats rtl "$INJ_T0" "$INJ_T1"
reach rtl 16
row "$DEV" 8139cp "$handlers" "full hotplug" "$(ms "$fin_usec")" \
	"$st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo, netdev back +$up_ms ms)" \
	"then $reach_got/$reach_sent echoed"
[ "$st_resume_ms" -ge 0 ] || fail "no echo at all after RecoveryFinished"
[ "$st_resume_ms" -le $((up_ms + 5000)) ] ||
	fail "the stream resumed $st_resume_ms ms after RecoveryFinished, more than 5 s after the interface was back"
[ "$reach_got" = "$reach_sent" ] || fail "then $reach_got of $reach_sent echoed"
ok "then $reach_got of $reach_sent echoed"
pcierrd_stop

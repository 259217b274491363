#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 400
#
# Driver suite 1: e100, e1000 and e1000e recovered by their own callbacks
# with a stream running through them.
#   In turn for each NIC: the peer streams UDP (10 packets a second, each
#   echoed by the NIC's namespace) for 3 s, then `pcierrctl inject` freezes
#   the NIC's slot; pcierrd recovers it by callbacks (error_detected
#   need_reset, reset, slot_reset recovered, resume); pcierrctl exits 0.
#   The stream goes on 6 s after RecoveryFinished. Checked: the first echo
#   after RecoveryFinished within 5 s of guest time; after it, no packet
#   lost (but the last, in flight when the stream stopped); nothing was
#   answered wrongly (the echo carries the sequence number); the packets
#   lost during the outage are reported. Then a fresh stream of 20 is
#   answered in full. One row per NIC.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
CLEANUP_PES="$RP_E100 $RP_E1000 $RP_E1000E"
require_normal $CLEANUP_PES

peer_setup
nic_setup e100 "$E100" 11
nic_setup e1000 "$E1000" 12
nic_setup e1000e "$E1000E" 14

sig_start
pcierrd_start

for nic in "e100 $E100 $RP_E100 11 e100" "e1000 $E1000 $RP_E1000 12 e1000" \
	"e1000e $E1000E $RP_E1000E 14 e1000e"; do
	set -- $nic
	name=$1 dev=$2 pe=$3 host=$4 drv=$5
	info "$name ($dev, $drv) below $pe"
	bus_objects "$pe" "$dev"
	handlers=$(handlers_of "$dev")
	stream_start "$name" "$host"
	sleep 3
	recovery_of "$pe" "$dev"
	# the stream goes on; 6 s of guest time after RecoveryFinished
	while [ $(( ($(now_ns) - INJ_T1) / 1000000 )) -lt 6000 ]; do
		sleep 0.5
	done
	stream_stop "$name"
	stream_stats "$name" "$INJ_T0" "$INJ_T1"
	reach "$name" "$host"
	# the row first, so that the table shows a failing driver too
	row "$dev" "$drv" "$handlers" "$rec_mode" "$(ms "$fin_usec")" \
		"$st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms, $st_after_gaps lost after a first echo)" \
		"then $reach_got/$reach_sent echoed"
	expect "$name: RecoveryStarted mode" "$rec_mode" callbacks
	expect "$name: RecoveryFinished" "$fin_result" recovered
	expect "$name: pcierrctl inject exit status" "$INJ_RC" 0
	expect "$name: steps" "$(steps_since "$pe")" \
		"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered"
	bound_to "$dev" "$drv" || fail "$dev lost its driver $drv"
	[ "$st_resume_ms" -ge 0 ] || fail "$name: no echo at all after RecoveryFinished"
	[ "$st_resume_ms" -le 5000 ] ||
		fail "$name: the stream resumed $st_resume_ms ms after RecoveryFinished (more than 5 s)"
	ok "$name: the stream resumed $st_resume_ms ms after RecoveryFinished"
	[ "$reach_got" = "$reach_sent" ] || fail "$name: then $reach_got of $reach_sent echoed"
	ok "$name: then $reach_got of $reach_sent echoed"
done
pcierrd_stop

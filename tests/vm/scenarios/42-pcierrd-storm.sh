#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# Scenario 42: an event storm under pcierrd (issue 11).
#   100000 failure reports from atomic context by the test driver
#   (pcierr_report_failure(), "storm"), 50000 on each of TESTDEV_A and
#   TESTDEV_B at once, with pcierrd running. `pcierrctl status` is timed
#   throughout (each answer within 1 s of guest time). Afterwards, and after
#   one more Inject that closes any trailing gap: every event is accounted
#   for (pcierrd's EventsReceived + EventsLost grew by what the shim sent
#   or dropped), both slots recovered and are normal, pcierrd's RSS grew by
#   less than 2 MiB (after a warm-up recovery), the kernel's unreclaimable
#   slab by less than 4 MiB. Figures: "figure storm ..." lines.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
B=$TESTDEV_B
PE_A=$RP_TESTDEV_A
PE_B=$RP_TESTDEV_B
N=${STORM_N:-50000}
CTL=$BUILD/pcierrctl
CLEANUP_PES="$PE_A $PE_B"
require_normal "$PE_A" "$PE_B"
td_defaults
[ -e "$SYS/$A/storm" ] || fail "the test driver has no storm attribute"

# CPU time (clock ticks, user + system) of a process, and of the guest
# (busy ticks of all CPUs): where the time goes, as "figure ... cpu" lines
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
dbus_pid() { pgrep -o -x dbus-daemon; }
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$PD_PID/status"; }
meminfo_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" /proc/meminfo; }
shim_total() {
	echo $(( $(nl_stat events_sent) + $(nl_stat events_dropped) ))
}
accounted() {
	echo $(( $(mgr_prop EventsReceived) + $(mgr_prop EventsLost) ))
}
both_normal() {
	[ "$(slot_prop "$PE_A" State)" = normal ] && [ "$(slot_prop "$PE_B" State)" = normal ] || return 1
	[ "$(slot_prop "$PE_A" Step)" = idle ] && [ "$(slot_prop "$PE_B" Step)" = idle ]
}

pd_conf "[Policy]
MaxFreezes=1000"
pcierrd_start
bus_objects "$PE_A" "$A"
# warm-up: one whole recovery
must_call Inject ssu "$A" frozen 0
wait_prop 30 dev "$A" FreezeCount 1
wait_prop 60 slot "$PE_A" Step idle
wait_prop 30 slot "$PE_A" State normal

sync
echo 2 > /proc/sys/vm/drop_caches
rss0=$(rss_kb)
slab0=$(meminfo_kb Slab)
sunr0=$(meminfo_kb SUnreclaim)
shim0=$(shim_total)
acc0=$(accounted)
info "before: pcierrd RSS $rss0 kB, Slab $slab0 kB (unreclaimable $sunr0 kB), shim events $shim0, pcierrd accounted $acc0"

# pcierrctl status, timed, in the background for the whole storm
echo "+ timed pcierrctl status loop &"
(
	while :; do
		t0=$(date +%s%N)
		timeout 20 "$CTL" status > /dev/null 2>&1 || echo "status-failed"
		echo "status_ms $(( ($(date +%s%N) - t0) / 1000000 ))"
		sleep 0.2
	done
) > "$TMP/status.times" 2>&1 &
STPID=$!
BG_PIDS="$BG_PIDS $STPID"

# pcierrd's own answer time apart from a process start (bus-abuse probe)
"$BUILD/bus-abuse" probe 600 > "$TMP/probe.out" 2>&1 &
PROBE=$!
BG_PIDS="$BG_PIDS $PROBE"
cpu_pd0=$(cpu_ticks "$PD_PID")
cpu_db0=$(cpu_ticks "$(dbus_pid)")
busy0=$(busy_ticks)
t0=$(now_ns)
echo "+ echo $N > $SYS/$A/storm & echo $N > $SYS/$B/storm"
echo "$N" > "$SYS/$A/storm" &
SA=$!
echo "$N" > "$SYS/$B/storm" &
SB=$!
wait "$SA" || fail "storm on $A failed"
wait "$SB" || fail "storm on $B failed"
storm_ms=$(ms_between "$t0" "$(now_ns)")
ok "$((2 * N)) failures reported from atomic context in $storm_ms ms of guest time"
dmesg | grep -E "storm: [0-9]+ failures reported" | tail -n 2 | sed 's/^/  | /'

# the shim has sent or dropped them all
shim_settled() { [ $(( $(shim_total) - shim0 )) -ge $((2 * N)) ]; }
wait_until 120 shim_settled ||
	fail "the shim did not account for $((2 * N)) events: $(( $(shim_total) - shim0 ))"
# pcierrd recovers both
wait_until 180 both_normal || fail "the slots did not both end normal and idle"
ok "both slots recovered ($(( $(ms_between "$t0" "$(now_ns)") )) ms after the storm began)"

kill -TERM "$PROBE" 2>/dev/null
wait "$PROBE" || :
echo "figure storm_probe $(grep '^probe ' "$TMP/probe.out")"
grep -q VIOLATION "$TMP/probe.out" && fail "the probe's calls failed: $(cat "$TMP/probe.out")"
echo "figure storm_cpu ticks_per_s=$(getconf CLK_TCK) pcierrd=$(( $(cpu_ticks "$PD_PID") - cpu_pd0 )) dbus_daemon=$(( $(cpu_ticks "$(dbus_pid)") - cpu_db0 )) guest_busy=$(( $(busy_ticks) - busy0 ))"
kill "$STPID" 2>/dev/null
wait "$STPID" 2>/dev/null
grep -q status-failed "$TMP/status.times" && fail "pcierrctl status failed during the storm"
nst=$(grep -c '^status_ms' "$TMP/status.times")
maxst=$(sed -n 's/^status_ms //p' "$TMP/status.times" | sort -n | tail -n 1)
echo "figure storm_status calls=$nst max_ms=$maxst"
[ "$nst" -gt 0 ] || fail "no pcierrctl status call completed during the storm"
[ "$maxst" -lt 1000 ] || fail "pcierrctl status took $maxst ms at worst during the storm"
ok "pcierrctl status answered $nst times, within $maxst ms at worst"

# one more event closes any gap at the end (lost to a socket overrun)
must_call Inject ssu "$A" frozen 0
wait_prop 60 slot "$PE_A" Step idle
wait_until 60 both_normal || fail "slot $PE_A did not recover after the closing Inject"
shim1=$(shim_total)
acc1=$(accounted)
sent=$((shim1 - shim0))
acc=$((acc1 - acc0))
echo "figure storm_events reported=$((2 * N + 1)) shim_sent_or_dropped=$sent pcierrd_received=$(mgr_prop EventsReceived) pcierrd_lost=$(mgr_prop EventsLost) pcierrd_folded=$(mgr_prop EventsFolded) pcierrd_resyncs=$(mgr_prop Resyncs) accounted=$acc"
expect "events accounted for by pcierrd (received + lost)" "$acc" "$sent"
[ "$sent" -ge $((2 * N + 1)) ] || fail "the shim accounted for $sent events, fewer than $((2 * N + 1))"

sync
echo 2 > /proc/sys/vm/drop_caches
rss1=$(rss_kb)
slab1=$(meminfo_kb Slab)
sunr1=$(meminfo_kb SUnreclaim)
echo "figure storm_memory rss_before_kb=$rss0 rss_after_kb=$rss1 slab_before_kb=$slab0 slab_after_kb=$slab1 sunreclaim_before_kb=$sunr0 sunreclaim_after_kb=$sunr1"
[ $((rss1 - rss0)) -lt 2048 ] || fail "pcierrd's RSS grew from $rss0 to $rss1 kB (2 MiB or more)"
ok "pcierrd RSS $rss0 -> $rss1 kB"
[ $((sunr1 - sunr0)) -lt 4096 ] || fail "unreclaimable slab grew from $sunr0 to $sunr1 kB (4 MiB or more)"
ok "slab $slab0 -> $slab1 kB (unreclaimable $sunr0 -> $sunr1 kB)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# Benchmark 4: footprint at rest and start-up.
#  start-up: BENCH_STARTS times, the time from starting pcierrd to its
#  owning org.pcierr1 (pcierr-bench own: polls the bus in process every
#  2 ms), with the whole bench topology; the same for systemd-timesyncd
#  (org.freedesktop.timesync1) where it starts here, and the run time of
#  "busctl --system status org.freedesktop.DBus" as the reference.
#  idle: after the start, BENCH_IDLE_SEC (60; 30 with QUICK) with
#  nothing happening: RSS, peak RSS, context switches (voluntary +
#  nonvoluntary, /proc/PID/status: wakeups) and CPU time.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
[ "$BENCH_QUICK" = 1 ] && BENCH_IDLE_SEC=30
STARTS=5
[ "$BENCH_QUICK" = 1 ] && STARTS=3
pd_bench_conf
ndev=$(ls /sys/bus/pci/devices | wc -l)

i=1
while [ "$i" -le "$STARTS" ]; do
	mkdir -p "$PD_STATE" "$PD_CONFD"
	_pd_used=1
	o=$("$BENCH" own org.pcierr1 180 "$PCIERRD" --config "$PD_CONF" \
		--config-dir "$PD_CONFD" --state-dir "$PD_STATE" 2>>"$PD_LOG") ||
		fail "pcierrd did not own org.pcierr1: $o"
	PD_PID=$(kv pid "$o")
	rec "start what=pcierrd i=$i devices=$ndev $o"
	if [ "$i" -lt "$STARTS" ]; then
		pd_stop_orphan
	fi
	i=$((i + 1))
done

# idle
sleep 2
s0=$(proc_stat "$PD_PID")
t0=$(now_ns)
sleep "$BENCH_IDLE_SEC"
s1=$(proc_stat "$PD_PID")
t1=$(now_ns)
rec "idle t0=$t0 t1=$t1 $(echo "$s0" | sed 's/\([a-z_]*\)=/\10=/g') $(echo "$s1" | sed 's/\([a-z_]*\)=/\11=/g')"
pd_stop_orphan

# references
TSD=/lib/systemd/systemd-timesyncd
if [ -x "$TSD" ]; then
	i=1
	while [ "$i" -le "$STARTS" ]; do
		o=$("$BENCH" own org.freedesktop.timesync1 60 "$TSD" 2>"$TMP/tsd.err")
		p=$(kv pid "$o")
		if [ -n "$p" ] && [ "$(kv ms "$o")" != -1 ]; then
			rec "start what=timesyncd i=$i $o"
		else
			info "systemd-timesyncd did not own its name: $(head -c 300 "$TMP/tsd.err")"
		fi
		[ -n "$p" ] && { kill "$p" 2>/dev/null; wait_until 10 gone "$p"; wait "$p" 2>/dev/null; }
		[ -n "$p" ] && [ "$(kv ms "$o")" != -1 ] || break
		i=$((i + 1))
	done
fi
"$BENCH" time "$STARTS" busctl --system status org.freedesktop.DBus |
	while read -r l; do rec "start what=busctl $l"; done
ok "start-up and idle figures recorded"

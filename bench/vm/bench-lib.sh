# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Helpers for the benchmark scripts (bench/vm/*.sh), sourced after
# tests/vm/lib.sh. A benchmark measures and records; it fails only when
# the thing it measures did not happen (no recovery, no event), never on
# a time. Raw figures go to $RAW (one file per benchmark in the results
# directory), one record a line: "KIND key=value ...", times in
# CLOCK_MONOTONIC ns (pcierr-bench) unless a key says otherwise; the host
# side (bench/report) makes the tables.

BENCH=${BUILD:?}/pcierr-bench
PCIERRCTL=$BUILD/pcierrctl
RAW=${PCIERR_OUT:?}/bench/${PCIERR_SCENARIO:?}.raw
mkdir -p "${RAW%/*}"
: > "$RAW"
# the host's choices (bench/run writes BUILD/bench/params: BENCH_QUICK=,
# BENCH_ROUNDS=, BENCH_STORM=, BENCH_IDLE_SEC=, BENCH_AER=, BENCH_AER_NF=)
BENCH_QUICK=0 BENCH_ROUNDS=20 BENCH_STORM=100000 BENCH_IDLE_SEC=60 BENCH_AER=2000 BENCH_AER_NF=100
# shellcheck disable=SC1091
[ -f "$BUILD/bench/params" ] && . "$BUILD/bench/params"
# a loaded host under TCG: pcierrd with ~90 devices may take long to start
PD_START_TIMEOUT=180
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

# rec KIND KEY=VALUE...: one record
rec() { echo "$*" >> "$RAW"; echo "  rec: $*"; }

# watch_start: pcierr-bench watch (pcierr notifications and the kernel's
# ERROR_EVENT uevents, each with its rx time) into $WATCH
WATCH=$TMP/watch.txt
watch_start() {
	_seq=$((_seq + 1))
	"$BENCH" watch --ready-file "$TMP/wready.$_seq" > "$WATCH" 2>&1 &
	WPID=$!
	BG_PIDS="$BG_PIDS $WPID"
	wait_until 10 test -e "$TMP/wready.$_seq" || fail "pcierr-bench watch did not start"
}
watch_mark() { WMARK=$(($(wc -l < "$WATCH") + 1)); }
watch_since() { tail -n +"$WMARK" "$WATCH"; }
# watch_wait SECONDS PATTERN: a line matching PATTERN (grep -E) since the mark
watch_wait() {
	"$BENCH" waitfor "$WATCH" "$WMARK" "$2" "$1" > /dev/null
}
# copy the watched lines since the mark into the record, prefixed
watch_rec() { watch_since | sed "s/^/w $1 /" >> "$RAW"; }

# proc_stat PID: "rss_kb=.. hwm_kb=.. vctx=.. nvctx=.. cpu_ms=.."
proc_stat() {
	[ -r "/proc/$1/status" ] || { echo "rss_kb=-1 hwm_kb=-1 vctx=-1 nvctx=-1 cpu_ms=-1"; return; }
	_s=$(awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
		/^voluntary_ctxt_switches:/ { v = $2 } /^nonvoluntary_ctxt_switches:/ { n = $2 }
		END { printf "rss_kb=%s hwm_kb=%s vctx=%s nvctx=%s", r, h, v, n }' "/proc/$1/status")
	# utime, stime: fields 14, 15 of /proc/PID/stat (after the "(comm)")
	_c=$(sed 's/^.*) //' "/proc/$1/stat" | awk -v hz="$HZ" '{ printf "%d", ($12 + $13) * 1000 / hz }')
	echo "$_s cpu_ms=$_c"
}

# pd_bench_conf [EXTRA]: a pcierrd.conf that never disables a device the
# benchmark freezes again and again
pd_bench_conf() {
	pd_conf "[Policy]
MaxFreezes=1000000
FreezeWindowSec=1
${1:-}"
}

# pd_idle SLOT: pcierrd has no recovery going on the slot (Step idle)
pd_idle() { [ "$(slot_prop "$1" Step 2>/dev/null)" = idle ]; }

# pd_stop_orphan: stop a pcierrd started by "pcierr-bench own" (not this
# shell's child: no exit status to read), wait until the name is free
pd_stop_orphan() {
	[ -n "$PD_PID" ] || return 0
	kill -TERM "$PD_PID" 2>/dev/null
	wait_until 20 gone "$PD_PID" || fail "pcierrd $PD_PID did not exit on SIGTERM"
	PD_PID=
	wait_until 10 sh -c '! busctl --system status org.pcierr1' ||
		fail "org.pcierr1 still owned after pcierrd exited"
}

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# Benchmark 3: event storms.
#  a. BENCH_STORM (100000) failure reports on testdev A in one burst,
#     from atomic context (the test driver's storm hook, as scenario 09):
#     the shim's events sent and dropped (its queue overflows, pcierrd
#     gets an OVERFLOW and resynchronises), pcierrd's CPU time, peak RSS
#     and the time until it is quiet again (its CPU time stops moving).
#  b. BENCH_AER (10000; QUICK 2000) AER correctable errors (Receiver Error) on the
#     e1000e through aer_inject, with pcierrd and rasdaemon (-f -r:
#     recording into its SQLite database) both running: each one's CPU
#     time and RSS over the burst.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
CLEANUP_PES="$RP_TESTDEV_A"
CLEANUP_CMD='[ -n "${RAS_PID:-}" ] && kill "$RAS_PID"; rmmod aer_inject'
require_normal "$RP_TESTDEV_A" "$RP_E1000E"
td_defaults

stat_of() { timeout -k 2 30 "$NL" stats 2>/dev/null | sed -n "s/^$1=//p"; }
cpu_of() { proc_stat "$1" | sed 's/.*cpu_ms=//'; }
# quiet PID...: wait until the processes' CPU time did not move for 1 s
# (at most 300 s); $quiet_at: the now_ns when it last moved
quiet() {
	_prev= _same=0 _end=$(( $(date +%s) + 300 ))
	quiet_at=$(now_ns)
	while [ "$(date +%s)" -lt "$_end" ]; do
		_cur=
		for _p in "$@"; do _cur="$_cur $(cpu_of "$_p")"; done
		if [ "$_cur" = "$_prev" ]; then
			_same=$((_same + 1))
			[ "$_same" -ge 4 ] && return 0
		else
			_same=0
			quiet_at=$(now_ns)
		fi
		_prev=$_cur
		sleep 0.25
	done
	return 1
}

pd_bench_conf
pcierrd_start
bus_objects "$RP_TESTDEV_A" >/dev/null
quiet "$PD_PID" || fail "pcierrd does not go quiet after its start"
sent0=$(stat_of events_sent)
drop0=$(stat_of events_dropped)
p0=$(proc_stat "$PD_PID")
t0=$(now_ns)
td_set "$TESTDEV_A" storm "$BENCH_STORM" >/dev/null
t1=$(now_ns)
quiet "$PD_PID" || fail "pcierrd still busy 300 s after the storm"
wait_until 60 pd_idle "$RP_TESTDEV_A" || fail "pcierrd still recovering testdev A"
p1=$(proc_stat "$PD_PID")
sent1=$(stat_of events_sent)
drop1=$(stat_of events_dropped)
rec "storm n=$BENCH_STORM t0=$t0 t_written=$t1 t_quiet=$quiet_at sent=$((sent1 - sent0)) dropped=$((drop1 - drop0)) cpu0_ms=$(kv cpu_ms "$p0") cpu1_ms=$(kv cpu_ms "$p1") hwm0_kb=$(kv hwm_kb "$p0") hwm1_kb=$(kv hwm_kb "$p1") rss1_kb=$(kv rss_kb "$p1")"
expect "testdev A after the storm" "$(pe_state "$RP_TESTDEV_A")" normal >/dev/null

# b. the same AER burst to pcierrd and rasdaemon
RAS=$(command -v rasdaemon || echo /usr/sbin/rasdaemon)
if [ ! -x "$RAS" ]; then
	rec "aer skipped=no-rasdaemon"
	fail "no rasdaemon (scripts/install-deps installs it)"
fi
aer_inject_load
mkdir -p /var/lib/rasdaemon
# rasdaemon reads the per-CPU raw trace buffers when poll wakes it, which
# the kernel does only once a buffer is buffer_percent (default 50) full: a
# burst of a few thousand AER records would sit unread. 0: wake on any data.
BP=/sys/kernel/debug/tracing/buffer_percent
[ -w "$BP" ] && { bp0=$(cat "$BP"); echo 0 > "$BP"; CLEANUP_CMD="echo $bp0 > $BP; $CLEANUP_CMD"; }
rm -f /var/lib/rasdaemon/ras-mc_event.db
"$RAS" -f -r > "$TMP/ras.log" 2>&1 &
RAS_PID=$!
BG_PIDS="$BG_PIDS $RAS_PID"
# ready: it has opened its database and enabled the tracepoints
wait_until 60 sh -c "grep -q 'aer' '$TMP/ras.log' && [ -e /var/lib/rasdaemon/ras-mc_event.db ]" ||
	info "rasdaemon said nothing about aer within 60 s: $(head -c 600 "$TMP/ras.log")"
sleep 2
gone "$RAS_PID" && fail "rasdaemon exited: $(cat "$TMP/ras.log")"
# rasdaemon traces in an instance of its own: its buffer_percent too
for _bp in /sys/kernel/debug/tracing/instances/*/buffer_percent; do
	[ -w "$_bp" ] && echo 0 > "$_bp" && echo "  $_bp = 0"
done
quiet "$PD_PID" "$RAS_PID" || fail "pcierrd and rasdaemon do not go quiet"
pd0=$(proc_stat "$PD_PID")
ra0=$(proc_stat "$RAS_PID")
o=$("$BENCH" aer -c 0x1 -n "$BENCH_AER" "$E1000E" 2>&1) || fail "aer_inject of correctable errors failed: $o"
quiet "$PD_PID" "$RAS_PID" || fail "still busy 300 s after the AER burst"
pd1=$(proc_stat "$PD_PID")
ra1=$(proc_stat "$RAS_PID")
nras=-1
if command -v sqlite3 >/dev/null; then
	nras=$(sqlite3 /var/lib/rasdaemon/ras-mc_event.db 'select count(*) from aer_event' 2>/dev/null || echo -1)
fi
rec "aer n=$BENCH_AER $o t_quiet=$quiet_at ras_rows=$nras pd_cpu0_ms=$(kv cpu_ms "$pd0") pd_cpu1_ms=$(kv cpu_ms "$pd1") pd_rss_kb=$(kv rss_kb "$pd1") pd_hwm_kb=$(kv hwm_kb "$pd1") ras_cpu0_ms=$(kv cpu_ms "$ra0") ras_cpu1_ms=$(kv cpu_ms "$ra1") ras_rss_kb=$(kv rss_kb "$ra1") ras_hwm_kb=$(kv hwm_kb "$ra1")"
tail -n 5 "$TMP/ras.log" | sed 's/^/  ras| /'
kill "$RAS_PID"
RAS_PID=
pcierrd_stop

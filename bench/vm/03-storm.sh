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
#  b. BENCH_AER (2000; QUICK 500) AER correctable errors (Receiver Error)
#     and BENCH_AER_NF (100; QUICK 20) non-fatal ones on the e1000e through
#     aer_inject, with pcierrd and rasdaemon (-f -r: recording into its
#     SQLite database) both running: each one's CPU time, RSS and rows
#     (below). Not more: rasdaemon needs about 50 ms of guest CPU per
#     corrected error under TCG, and quiet() waits 300 s at most.
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
if [ "$BENCH_STORM" -gt 0 ]; then
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
fi

# b. the same AER bursts to pcierrd and rasdaemon. rasdaemon (Debian 12:
# 0.6.8) reads its tracing instance's per-CPU trace_pipe_raw when poll()
# wakes it, and since Linux 6.1 (42fb0a1e84ff, "tracing/ring-buffer:
# Have polling block on watermark") poll() waits until a buffer is
# buffer_percent (default 50) full: a burst of a few thousand AER records
# (about 1 MiB per CPU buffer) sits unread and rasdaemon records nothing.
# rasdaemon sets its instance's buffer_percent to 0 itself only from 0.7.0
# on; 0.6.8 creates the instance "rasdaemon" unless it exists, so it is
# created here first with buffer_percent 0 (the same setting 0.7.0 makes).
# Two bursts, the kernel's own count (aer_dev_* TOTAL_ERR_*) as the truth:
#  cor:      BENCH_AER correctable errors (Receiver Error): rasdaemon records
#            each (aer_event rows); pcierrd is not told of them at all (the
#            kernel sends no uevent for a corrected error), so its rows stay
#            0 and its CPU time is what an unrelated event costs it;
#  nonfatal: BENCH_AER_NF uncorrectable non-fatal errors (Completion
#            Timeout), one after the other's recovery: the kernel recovers the
#            e1000e for each (error_detected, slot_reset, resume; ERROR_EVENT
#            uevents), pcierrd follows and records each (history rows, step
#            'aer': begin and end), rasdaemon records each (aer_event rows).
# A side that recorded nothing fails the benchmark: a 0 is never reported
# as a cost.
BENCH_AER_NF=${BENCH_AER_NF:-100}
RAS=$(command -v rasdaemon || echo /usr/sbin/rasdaemon)
if [ ! -x "$RAS" ]; then
	rec "aer skipped=no-rasdaemon"
	fail "no rasdaemon (scripts/install-deps installs it)"
fi
command -v sqlite3 >/dev/null || fail "no sqlite3 (scripts/install-deps installs it): the rows cannot be counted"
[ -r "/sys/bus/pci/devices/$E1000E/aer_dev_correctable" ] || fail "$E1000E has no AER statistics (aer_dev_correctable)"
aer_inject_load
TR=/sys/kernel/debug/tracing
[ -d "$TR/instances" ] || fail "no $TR/instances (debugfs/tracefs)"
[ -d "$TR/instances/rasdaemon" ] || mkdir "$TR/instances/rasdaemon" || fail "cannot create the rasdaemon tracing instance"
echo 0 > "$TR/instances/rasdaemon/buffer_percent" || fail "cannot set the rasdaemon instance's buffer_percent"
CLEANUP_CMD="$CLEANUP_CMD; sleep 1; rmdir $TR/instances/rasdaemon"
mkdir -p /var/lib/rasdaemon
RDB=/var/lib/rasdaemon/ras-mc_event.db
rm -f "$RDB"
"$RAS" -f -r > "$TMP/ras.log" 2>&1 &
RAS_PID=$!
BG_PIDS="$BG_PIDS $RAS_PID"
# ready: it has opened its database and enabled the aer tracepoint
wait_until 60 sh -c "grep -q 'aer_event' '$TMP/ras.log' && [ -e '$RDB' ]" ||
	fail "rasdaemon not recording aer_event within 60 s: $(head -c 600 "$TMP/ras.log")"
sleep 2
gone "$RAS_PID" && fail "rasdaemon exited: $(cat "$TMP/ras.log")"
grep -q 'ras:aer_event' "$TR/instances/rasdaemon/set_event" ||
	fail "rasdaemon's instance does not trace ras:aer_event: $(cat "$TR/instances/rasdaemon/set_event")"
bp=$(cat "$TR/instances/rasdaemon/buffer_percent")
PDB=$PD_STATE/state.db
ras_rows() { sqlite3 "$RDB" 'select count(*) from aer_event' 2>/dev/null || echo -1; }
pd_rows() { sqlite3 "file:$PDB?mode=ro" "select count(*) from history where step = 'aer'" 2>/dev/null || echo -1; }
# kernel_count FILE KEY: the kernel's AER statistics of the e1000e
kernel_count() { sed -n "s/^$2 //p" "/sys/bus/pci/devices/$E1000E/$1"; }

# burst KIND COUNT STATFILE STATKEY AER-OPTIONS...
burst() {
	_kind=$1 _n=$2 _sf=$3 _sk=$4
	shift 4
	quiet "$PD_PID" "$RAS_PID" || fail "pcierrd and rasdaemon do not go quiet"
	_k0=$(kernel_count "$_sf" "$_sk")
	_r0=$(ras_rows) _p0=$(pd_rows)
	_pd0=$(proc_stat "$PD_PID") _ra0=$(proc_stat "$RAS_PID")
	_rt0=$(now_ns)
	if [ "$_kind" = nonfatal ]; then
		# one at a time: an error injected while the kernel still
		# recovers from the last is only "Multiple Uncorrected" on a
		# status already cleared, no error of its own (1 of 20 in a
		# burst was an error); the next after the kernel's end uevent
		for _i in $(seq "$_n"); do
			watch_mark
			_o=$("$BENCH" aer "$@" -n 1 "$E1000E" 2>&1) || fail "aer_inject ($_kind #$_i) failed: $_o"
			watch_wait 60 "^uev .* dev=$E1000E event=(SUCCESSFUL|FAILED)_RECOVERY" ||
				fail "no end of the kernel's recovery of $E1000E after error #$_i"
		done
		_o="paced=1"
	else
		_o=$("$BENCH" aer "$@" -n "$_n" "$E1000E" 2>&1) || fail "aer_inject ($_kind) failed: $_o"
	fi
	quiet "$PD_PID" "$RAS_PID" || fail "still busy 300 s after the $_kind burst"
	if [ "$_kind" = nonfatal ]; then
		wait_until 120 pd_idle "$RP_E1000E" || info "pcierrd still follows a recovery of $RP_E1000E"
		quiet "$PD_PID" "$RAS_PID" || fail "still busy 300 s after the $_kind burst"
	fi
	_k1=$(kernel_count "$_sf" "$_sk")
	_r1=$(ras_rows) _p1=$(pd_rows)
	_pd1=$(proc_stat "$PD_PID") _ra1=$(proc_stat "$RAS_PID")
	rec "aer kind=$_kind n=$_n $_o rt0=$_rt0 rt_quiet=$quiet_at buffer_percent=$bp kernel=$((_k1 - _k0)) ras_rows=$((_r1 - _r0)) pd_rows=$((_p1 - _p0)) pd_cpu0_ms=$(kv cpu_ms "$_pd0") pd_cpu1_ms=$(kv cpu_ms "$_pd1") pd_ctx0=$(( $(kv vctx "$_pd0") + $(kv nvctx "$_pd0") )) pd_ctx1=$(( $(kv vctx "$_pd1") + $(kv nvctx "$_pd1") )) pd_rss_kb=$(kv rss_kb "$_pd1") pd_hwm_kb=$(kv hwm_kb "$_pd1") ras_cpu0_ms=$(kv cpu_ms "$_ra0") ras_cpu1_ms=$(kv cpu_ms "$_ra1") ras_rss_kb=$(kv rss_kb "$_ra1") ras_hwm_kb=$(kv hwm_kb "$_ra1")"
	[ "$((_k1 - _k0))" -gt 0 ] || fail "$_kind: the kernel reported no AER error for $E1000E ($_sk did not move)"
	[ "$((_r1 - _r0))" -gt 0 ] || fail "$_kind: rasdaemon recorded no row for $((_k1 - _k0)) errors the kernel reported: $(tail -n 5 "$TMP/ras.log")"
}
watch_start
burst cor "$BENCH_AER" aer_dev_correctable TOTAL_ERR_COR -c 0x1
burst nonfatal "$BENCH_AER_NF" aer_dev_nonfatal TOTAL_ERR_NONFATAL -u 0x4000
[ "$(pd_rows)" -gt 0 ] || fail "nonfatal: pcierrd recorded no row of the kernel's recoveries"
tail -n 5 "$TMP/ras.log" | sed 's/^/  ras| /'
ok "AER bursts recorded by both (rasdaemon $(ras_rows) rows, pcierrd $(pd_rows))"
kill "$RAS_PID"
RAS_PID=
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# Scenario 41: D-Bus abuse of pcierrd (tests/fuzz/bus-abuse.c, issue 11).
#   - every Manager method with wrong signatures, missing and extra
#     arguments, 1 MiB strings, every address form, odd numbers; Get, GetAll
#     and Set on the Manager and every Slot and Device; as root (mutating
#     calls only with addresses of no device) and as uid 65534: each call is
#     answered (no timeout), with an allowed error where it must fail;
#   - a client (uid 65534) that subscribes to every signal and never reads;
#   - 10000 read calls from uid 65534 (16 in flight), while three valid Injects
#     on TESTDEV_A recover and `pcierrctl status` is timed;
#   afterwards pcierrd is the same process, owns the name, its anonymous
#   memory (RssAnon) grew by less than 1 MiB (measured after a warm-up),
#   `pcierrctl status` answered within 1 s of guest time every time (the pcierrctl process, timed by a
#   bash started before it, see timed_status), and only the valid calls changed
#   anything (TESTDEV_A's FreezeCount is 3, every other device's as before).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
CLEANUP_PES=$PE
BA=$BUILD/bus-abuse
CTL=$BUILD/pcierrctl
LOOP=${BUSABUSE_LOOP:-10000}
[ -x "$BA" ] || fail "$BA missing"
nobody_may_run "$BA" "$CTL"
require_normal "$PE"

# CPU time (clock ticks, user + system) of a process, and of the guest
# (busy ticks of all CPUs): where the time goes, as "figure ... cpu" lines
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
dbus_pid() { pgrep -o -x dbus-daemon; }
OTHERS="$E1000E $TESTDEV_B $EDU $MIXED_TESTDEV $MIXED_EDU"
# timed_status: one `pcierrctl status` as uid 65534; $st_ms is the guest
# time of the pcierrctl process itself (fork, exec, connect, its calls,
# exit), measured with $EPOCHREALTIME by a bash started beforehand, so that
# the harness's own process starts (setpriv, timeout, bash, date: 100-1000
# ms each of guest time here, docs/reliability.md) are not in it; $chain_ms
# is the whole chain as the scenario measured it before (a figure).
# pcierrctl bounds its bus calls itself (SYSTEMD_BUS_TIMEOUT), timeout the
# rest.
max_status_ms=0
all_status_ms=
all_chain_ms=
timed_status() {
	_t0=$(now_ns)
	# shellcheck disable=SC2016 # the inner bash expands them
	as_nobody timeout 30 env SYSTEMD_BUS_TIMEOUT=20 bash -c '
		t0=$EPOCHREALTIME
		out=$("$0" status 2>&1)
		rc=$?
		t1=$EPOCHREALTIME
		echo "status_ms $(( (${t1/./} - ${t0/./}) / 1000 ))"
		[ "$rc" = 0 ] || printf "%s\n" "$out"
		exit "$rc"' "$CTL" > "$TMP/status.out" 2>&1 ||
		{ cat "$TMP/status.out"; fail "pcierrctl status failed"; }
	chain_ms=$(ms_between "$_t0" "$(now_ns)")
	st_ms=$(sed -n 's/^status_ms //p' "$TMP/status.out")
	all_status_ms="$all_status_ms $st_ms"
	all_chain_ms="$all_chain_ms $chain_ms"
	[ "$st_ms" -gt "$max_status_ms" ] && max_status_ms=$st_ms
	return 0
}

bus_abuse_start
bus_abuse_malformed busabuse

# pcierrctl status on a quiet guest, for reference
timed_status
timed_status
echo "figure busabuse_status_idle_ms $st_ms (chain $chain_ms)"
max_status_ms=0
all_status_ms=
all_chain_ms=

# a subscriber that never reads, for the rest of the scenario
echo "+ as_nobody $BA stall 600 &"
as_nobody "$BA" stall 600 > "$TMP/stall.out" 2>&1 &
STALL=$!
BG_PIDS="$BG_PIDS $STALL"
wait_until 20 grep -q '^stall subscribed' "$TMP/stall.out" || fail "the stalled subscriber did not subscribe: $(cat "$TMP/stall.out")"
ok "a subscriber (uid 65534) that never reads is connected"

# the loop, with valid Injects and timed status calls meanwhile
cpu_pd0=$(cpu_ticks "$PD_PID")
cpu_db0=$(cpu_ticks "$(dbus_pid)")
busy0=$(busy_ticks)
# pcierrd's own answer time (the calls of `pcierrctl status` on one
# connection, every 200 ms), apart from a process start: a figure
# (setpriv itself, not the as_nobody function: $! must be the probe's
# process for its SIGTERM)
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
	"$BA" probe 600 > "$TMP/probe.out" 2>&1 &
PROBE=$!
BG_PIDS="$BG_PIDS $PROBE"
echo "+ as_nobody $BA loop $LOOP &"
as_nobody "$BA" loop "$LOOP" > "$TMP/loop.out" 2>&1 &
LPID=$!
BG_PIDS="$BG_PIDS $LPID"
for i in 1 2 3; do
	timed_status
	must_call Inject ssu "$DEV" frozen 0
	timed_status
	wait_prop 30 dev "$DEV" FreezeCount "$i"
	wait_prop 60 slot "$PE" Step idle
	wait_prop 30 slot "$PE" State normal
	timed_status
done
n=0
while ! gone "$LPID"; do
	timed_status
	n=$((n + 1))
	sleep 1
done
wait "$LPID"
lrc=$?
sed 's/^/  | /' "$TMP/loop.out"
[ "$lrc" = 0 ] || fail "bus-abuse loop $LOOP exited $lrc"
kill -TERM "$PROBE" 2>/dev/null
wait "$PROBE" || :
echo "figure busabuse_probe $(grep '^probe ' "$TMP/probe.out")"
grep -q VIOLATION "$TMP/probe.out" && fail "the probe's calls failed: $(cat "$TMP/probe.out")"
echo "figure busabuse_cpu ticks_per_s=$(getconf CLK_TCK) pcierrd=$(( $(cpu_ticks "$PD_PID") - cpu_pd0 )) dbus_daemon=$(( $(cpu_ticks "$(dbus_pid)") - cpu_db0 )) guest_busy=$(( $(busy_ticks) - busy0 ))"
loopline=$(grep '^loop ' "$TMP/loop.out")
ok "uid 65534: $LOOP read calls: $loopline"
echo "figure busabuse_loop $loopline"
timed_status
echo "figure busabuse_status_ms$all_status_ms"
echo "figure busabuse_status_chain_ms$all_chain_ms"
[ "$max_status_ms" -lt 1000 ] || fail "pcierrctl status took $max_status_ms ms at worst (more than 1 s)"
ok "pcierrctl status answered within $max_status_ms ms at worst ($((n + 10)) calls during the abuse)"

gone "$STALL" && fail "the stalled subscriber was disconnected early: $(cat "$TMP/stall.out")"
bus_abuse_end busabuse 3
kill "$STALL" 2>/dev/null

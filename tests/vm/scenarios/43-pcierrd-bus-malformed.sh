#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 43: D-Bus abuse of pcierrd without the clock (issue 11 point 3),
# the part of scenario 41 that make check runs (41, in make soak, adds
# 10 000 calls and the 1 s bound on `pcierrctl status`).
#   - tests/fuzz/bus-abuse.c malformed, as root and as uid 65534: every
#     Manager method with wrong signatures, missing and extra arguments,
#     1 MiB strings, every address form; Get, GetAll and Set on the Manager
#     and every Slot and Device: each call answered, an allowed error where
#     it must fail, no mutating call succeeds (0 violations);
#   - a subscriber (uid 65534) that never reads stays connected while 2000
#     read calls run and TESTDEV_A is injected and recovered once;
#   afterwards pcierrd is the same process and owns the name, TESTDEV_A's
#   FreezeCount is 1 and every other device's as before, and pcierrd's
#   anonymous memory (RssAnon, after a warm-up) grew by less than 1 MiB:
#   before the fix of 2026-12-05 the 1 MiB arguments left about 5 MiB in
#   its heap (docs/reliability.md, "RSS under D-Bus abuse").
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
CLEANUP_PES=$PE
BA=$BUILD/bus-abuse
OTHERS="$E1000E $TESTDEV_B $EDU $MIXED_TESTDEV $MIXED_EDU"
[ -x "$BA" ] || fail "$BA missing"
nobody_may_run "$BA"
require_normal "$PE"

bus_abuse_start
bus_abuse_malformed busmalformed

echo "+ as_nobody $BA stall 300 &"
as_nobody "$BA" stall 300 > "$TMP/stall.out" 2>&1 &
STALL=$!
BG_PIDS="$BG_PIDS $STALL"
wait_until 20 grep -q '^stall subscribed' "$TMP/stall.out" ||
	fail "the stalled subscriber did not subscribe: $(cat "$TMP/stall.out")"
ok "a subscriber (uid 65534) that never reads is connected"
echo "+ as_nobody $BA loop 2000 &"
as_nobody "$BA" loop 2000 > "$TMP/loop.out" 2>&1 &
LPID=$!
BG_PIDS="$BG_PIDS $LPID"
must_call Inject ssu "$DEV" frozen 0
wait_prop 30 dev "$DEV" FreezeCount 1
wait_prop 60 slot "$PE" Step idle
wait_prop 30 slot "$PE" State normal
wait_until 240 gone "$LPID" || fail "bus-abuse loop 2000 still running after 240 s"
wait "$LPID"
lrc=$?
sed 's/^/  | /' "$TMP/loop.out"
[ "$lrc" = 0 ] || fail "bus-abuse loop 2000 exited $lrc"
gone "$STALL" && fail "the stalled subscriber was disconnected: $(cat "$TMP/stall.out")"
ok "2000 calls answered and a recovery done beside a subscriber that never reads"

bus_abuse_end busmalformed 1
kill "$STALL" 2>/dev/null
pcierrd_stop

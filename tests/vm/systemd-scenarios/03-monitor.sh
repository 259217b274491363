#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# systemd 3: "pcierrctl monitor" in the background sees a recovery.
#   pcierrctl monitor and pcierrctl --json monitor run in the background
#   (subscribed: the text one says so on stderr once its matches are in
#   place; the JSON one's matches are seen in the bus daemon's statistics);
#   an injection on the e1000e (pcierrctl inject --no-block, as root) is
#   followed: both show ErrorDetected (device, frozen, inject),
#   RecoveryStarted, the four steps and RecoveryFinished recovered, in this
#   order; every JSON line is valid and its duration is the Slot's
#   LastDurationUSec; both exit 0 on SIGTERM.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"

# bus_matches PID: the match rules the bus daemon holds for the
# connection of process PID (empty if it cannot tell)
bus_matches() {
	_u=$(busctl --system list --no-legend 2>/dev/null | awk -v p="$1" '$1 ~ /^:/ && $2 == p { print $1; exit }')
	[ -n "$_u" ] || return 1
	busctl --system call org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.Debug.Stats GetConnectionStats s "$_u" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i == "\"MatchRules\"" || $i == "\"Matches\"") { print $(i + 2); exit } }'
}

echo "+ $PCIERRCTL --json monitor > $TMP/mon.json &"
"$PCIERRCTL" --json monitor > "$TMP/mon.json" 2> "$TMP/mon.json.err" &
jpid=$!
BG_PIDS="$BG_PIDS $jpid"
echo "+ $PCIERRCTL monitor > $TMP/mon.txt &"
"$PCIERRCTL" monitor > "$TMP/mon.txt" 2> "$TMP/mon.txt.err" &
tpid=$!
BG_PIDS="$BG_PIDS $tpid"
wait_until 15 grep -q "^Following the signals of pcierrd; Ctrl-C stops.$" "$TMP/mon.txt.err" ||
	fail "pcierrctl monitor did not say it follows the signals: $(cat "$TMP/mon.txt.err")"
ok "pcierrctl monitor is subscribed: $(cat "$TMP/mon.txt.err")"
# the JSON one says nothing: its three match rules, as the bus daemon
# counts them (Debug.Stats); a second's grace if the daemon does not tell
json_subscribed() { _m=$(bus_matches "$jpid"); [ "${_m:-0}" -ge 3 ] 2>/dev/null; }
if wait_until 15 json_subscribed; then
	ok "pcierrctl --json monitor has $(bus_matches "$jpid") match rules on the bus"
else
	m=$(bus_matches "$jpid")
	[ -z "$m" ] || fail "pcierrctl --json monitor has $m match rules after 15 s"
	info "the bus daemon does not count match rules; waiting 2 s instead"
	sleep 2
fi
gone "$jpid" && fail "pcierrctl --json monitor exited: $(cat "$TMP/mon.json.err")"

ctl inject --no-block "$DEV"
expect "pcierrctl inject --no-block exit status" "$rc" 0
wait_until 60 grep -q "\"Signal\":\"RecoveryFinished\",\"Slot\":\"$PE\"" "$TMP/mon.json" ||
	fail "no RecoveryFinished of $PE in pcierrctl --json monitor's output in 60 s"
wait_until 10 grep -q "^.*$PE: [a-z]* \(in\|after\) " "$TMP/mon.txt" ||
	fail "no finish line of $PE in pcierrctl monitor's output in 10 s"

echo "--- pcierrctl monitor ---"
cat "$TMP/mon.txt"
echo "--- pcierrctl --json monitor ---"
cat "$TMP/mon.json"

# text: the signals of the recovery, in order
kinds=$(sed -n "s/^[0-9:.]* $PE: \(error detected\|recovery started\|  *[a-z_]* \|recovered\|failed\).*/\1/p" "$TMP/mon.txt" |
	sed 's/^ *//; s/ *$//' | tr '\n' ',')
expect "pcierrctl monitor: the recovery's lines" "$kinds" \
	"error detected,recovery started,error_detected,reset,slot_reset,resume,recovered,"
grep -q "^[0-9:.]* $PE: error detected on $DEV: frozen (inject)$" "$TMP/mon.txt" ||
	fail "pcierrctl monitor: no '$PE: error detected on $DEV: frozen (inject)'"
ok "pcierrctl monitor: ErrorDetected on $DEV, frozen, inject"
grep -q "^[0-9:.]* $PE: recovered in [0-9]" "$TMP/mon.txt" ||
	fail "pcierrctl monitor: no '$PE: recovered in ...'"
ok "pcierrctl monitor: RecoveryFinished recovered"

# JSON: every line valid; the ErrorDetected and RecoveryFinished of the slot
"$JSON_CHECK" --lines < "$TMP/mon.json" 2> "$TMP/jc.err" ||
	fail "pcierrctl --json monitor wrote invalid JSON: $(cat "$TMP/jc.err")"
ok "every line of pcierrctl --json monitor is valid JSON ($(grep -c . "$TMP/mon.json") lines)"
sigs=$(grep -F "\"Slot\":\"$PE\"" "$TMP/mon.json" | while IFS= read -r l; do
	printf '%s' "$l" | "$JSON_CHECK" Signal; done | tr '\n' ',')
expect "pcierrctl --json monitor: the slot's signals" "$sigs" \
	"ErrorDetected,RecoveryStarted,RecoveryStep,RecoveryStep,RecoveryStep,RecoveryStep,RecoveryFinished,"
ed=$(grep -m 1 '"Signal":"ErrorDetected"' "$TMP/mon.json")
jexpect "$ed" Slot "$PE"
jexpect "$ed" Device "$DEV"
jexpect "$ed" State frozen
jexpect "$ed" Source inject
jexpect "$ed" UnavailableMSec 0
t=$(jget "$ed" TimeUSec)
[ "$t" -gt 0 ] 2>/dev/null || fail "ErrorDetected TimeUSec is '$t'"
rf=$(grep -m 1 '"Signal":"RecoveryFinished"' "$TMP/mon.json")
jexpect "$rf" Slot "$PE"
jexpect "$rf" Result recovered
jexpect "$rf" DurationUSec "$(slot_prop "$PE" LastDurationUSec)"
steps=$(grep -F '"Signal":"RecoveryStep"' "$TMP/mon.json" | grep -F "\"Slot\":\"$PE\"" |
	while IFS= read -r l; do printf '%s=%s ' "$(jget "$l" Step)" "$(jget "$l" Result)"; done)
expect "pcierrctl --json monitor: the steps" "$steps" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered "

# both end cleanly on SIGTERM
for p in $tpid $jpid; do
	kill -TERM "$p"
	wait_until 10 gone "$p" || fail "pcierrctl monitor ($p) still runs 10 s after SIGTERM"
	wait "$p"
	expect "pcierrctl monitor ($p) exit status after SIGTERM" "$?" 0
done
BG_PIDS=

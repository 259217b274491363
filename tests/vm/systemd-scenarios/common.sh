# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Helpers of the systemd-mode scenarios (tests/vm/systemd-scenarios/*.sh),
# on top of tests/vm/lib.sh (ok/fail/expect/run/wait_until, the D-Bus
# helpers, as_nobody, nic_works). Sourced by each scenario:
#   . "$(dirname "$0")/common.sh"
# pcierrd is the installed one (/usr/sbin/pcierrd), run by systemd as
# pcierrd.service; pcierrctl is the installed /usr/bin/pcierrctl. The
# scenarios run in order in one boot and build on each other (01 starts
# pcierrd; each later one starts it if it is not running).

# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# no test driver in this mode (lib.sh restores its settings at the end)
td_defaults() { :; }

PCIERRCTL=${PCIERRCTL:-/usr/bin/pcierrctl}
JSON_CHECK=${JSON_CHECK:-$BUILD/json-check}
UNIT=pcierrd.service
# inject and reset wait for the recovery: bound the whole call
CTL_TIMEOUT=${CTL_TIMEOUT:-150}
export SYSTEMD_PAGER='' PAGER=cat NO_COLOR=1 SYSTEMD_COLORS=0

[ -x "$PCIERRCTL" ] || fail "no $PCIERRCTL (the installed pcierrctl)"
[ -x "$JSON_CHECK" ] || fail "no $JSON_CHECK (make $JSON_CHECK)"

# ctl ARGS...: pcierrctl (bounded), stdout and stderr together: $out, $rc
ctl() {
	run timeout -k 2 "$CTL_TIMEOUT" "$PCIERRCTL" --no-pager "$@"
}

# ctl_json ARGS...: pcierrctl --json ARGS; its standard output alone in
# $json (shown), its status in $rc, its standard error shown
ctl_json() {
	echo "+ $PCIERRCTL --json $*"
	json=$(timeout -k 2 "$CTL_TIMEOUT" "$PCIERRCTL" --no-pager --json "$@" 2> "$TMP/ctl.err")
	rc=$?
	printf '%s\n' "$json" | sed 's/^/  | /'
	[ -s "$TMP/ctl.err" ] && sed 's/^/  2| /' "$TMP/ctl.err"
	return 0
}

# json_valid TEXT WHAT: TEXT is one JSON text (strict)
json_valid() {
	printf '%s' "$1" | "$JSON_CHECK" > /dev/null 2> "$TMP/jc.err" ||
		fail "$2 is not valid JSON: $(cat "$TMP/jc.err")"
	ok "$2 is valid JSON"
}

# jget TEXT QUERY: one value of a JSON text (json-check's query syntax)
jget() {
	printf '%s' "$1" | "$JSON_CHECK" "$2" 2> "$TMP/jc.err" ||
		{ echo "-- $(cat "$TMP/jc.err")" >&2; return 1; }
}

# jexpect TEXT QUERY WANT
jexpect() {
	expect "json $2" "$(jget "$1" "$2")" "$3"
}

# uprop PROP [UNIT]: a property of the unit (systemctl show -P)
uprop() {
	systemctl show -P "$1" "${2:-$UNIT}"
}

# uexpect PROP WANT [UNIT]
uexpect() {
	expect "${3:-$UNIT} $1" "$(uprop "$1" "${3:-}")" "$2"
}

# bus_owner_pid: the PID of the connection that owns org.pcierr1
bus_owner_pid() {
	_o=$(bus_owner)
	[ -n "$_o" ] || return 1
	timeout -k 2 "$BUS_TIMEOUT" busctl --system call org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus GetConnectionUnixProcessID s "$_o" \
		2>/dev/null | sed -n 's/^u \([0-9]*\)$/\1/p'
}

# journal_cursor: where the journal is now; journal_since CURSOR: the
# journal after it. (Not "-u UNIT": journald attributes a message to its
# unit by the sender's cgroup, which it may not find any more for the last
# words of a process that exited; match "pcierrd[PID]:" instead.)
journal_cursor() {
	journalctl -n 0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'
}
journal_since() {
	journalctl --no-pager -o short-monotonic --after-cursor="$1"
}
# journal_has CURSOR SECONDS REGEX: the journal after CURSOR gets a line
# matching REGEX (grep -E) within SECONDS (journald writes asynchronously)
_jh() { journal_since "$_c" | grep -E -q -- "$_re"; }
journal_has() {
	_c=$1 _s=$2 _re=$3
	wait_until "$_s" _jh
}

# pcierrd_active: start pcierrd.service unless it runs (a scenario run on
# its own); then it must be active (running)
pcierrd_active() {
	if [ "$(uprop ActiveState)" != active ]; then
		run systemctl start "$UNIT"
		[ "$rc" = 0 ] || fail "systemctl start $UNIT failed"
	fi
	uexpect ActiveState active
	uexpect SubState running
	wait_until 10 bus_has_owner || fail "nobody owns $BUS_NAME"
}

# ctl_status_line TEXT ADDR: the line of pcierrctl status about ADDR
ctl_line() {
	printf '%s\n' "$1" | grep -m 1 -F "$2" || true
}

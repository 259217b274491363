# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Helpers for the VM scenarios (tests/vm/scenarios/*.sh), sourced with
#   . "$VM_LIB"
# POSIX sh (the guest's /bin/sh is dash). The guest runner exports NL (the
# pcierr-nl CLI), BUILD, VM_TOPOLOGY (NAME=ADDRESS lines, see
# tests/vm/topology) and VM_LIB.
#
# Conventions: every check prints "ok: ..." when it holds and "FAIL: ..."
# (then exits 1) when it does not; every command run is echoed with "+ "
# and its output indented with "  | ", so that the log of a failed scenario
# says what was checked. The output is only shown when the scenario fails.
#
# Clean-up: a scenario lists the PEs it touches in CLEANUP_PES; when it
# exits (pass or fail) background jobs are killed, the test driver's
# settings are restored, and those PEs are brought back to normal as far as
# possible, so that one failure does not cascade into the next scenarios.

set -u
set -a
# shellcheck disable=SC1090
. "${VM_TOPOLOGY:?}"
set +a

NL=${NL:?}
SYS=/sys/bus/pci/devices
TD_DRIVER=/sys/bus/pci/drivers/pcierr_test
# every CLI call is bounded, so that a hung kernel call fails the check
# instead of the whole run
NL_TIMEOUT=${NL_TIMEOUT:-60}
TMP=$(mktemp -d /tmp/scenario.XXXXXX)
BG_PIDS=
CLEANUP_PES=
_seq=0

ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; exit 1; }
info() { echo "-- $*"; }

now_ns() { date +%s%N; }
# milliseconds between two now_ns values
ms_between() { echo $(( ($2 - $1) / 1000000 )); }

# run CMD...: echo it, capture stdout+stderr in $out, the status in $rc
run() {
	echo "+ $*"
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  | /'
	return 0
}

# pnl ARGS...: run pcierr-nl (bounded): $out, $rc
pnl() {
	run timeout -k 2 "$NL_TIMEOUT" "$NL" "$@"
}

# must_nl ARGS...: pcierr-nl must exit 0
must_nl() {
	pnl "$@"
	[ "$rc" = 0 ] || fail "pcierr-nl $* exited $rc"
}

# kv KEY TEXT: the value of the first KEY=value word in TEXT (shell
# builtins only: every process costs ~50 ms under TCG)
kv() {
	set -f
	for _w in $2; do
		case "$_w" in
		"$1="*)
			set +f
			echo "${_w#*=}"
			return 0
			;;
		esac
	done
	set +f
}

# line_with PREFIX TEXT: the first line of TEXT that starts with PREFIX
line_with() {
	printf '%s\n' "$2" | grep -m 1 "^$1" || true
}

# expect WHAT GOT WANT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1 = $3"
	else
		fail "$1 is '$2', expected '$3'"
	fi
}

# wait_until SECONDS CMD...: poll CMD every 0.1 s; 0 if it succeeded
wait_until() {
	_end=$(( $(date +%s) + $1 ))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.1
	done
	return 0
}

# --- the CLI's answers ------------------------------------------------------

# op ARGS...: an operation (report, reset, ...) that must succeed; sets $op
# to its op_done line and $result to its merged result
op() {
	must_nl "$@"
	op=$(line_with "op_done " "$out")
	[ -n "$op" ] || fail "pcierr-nl $* printed no op_done line"
	result=$(kv result "$op")
	_errno=$(kv errno "$op")
	[ "$_errno" = 0 ] || fail "pcierr-nl $*: errno=$_errno"
}

# report_expect PE STEP RESULT [ARGS...]: REPORT a step, check the merge
report_expect() {
	_pe=$1 _step=$2 _want=$3
	shift 3
	op report "$_pe" "$_step" "$@"
	expect "report $_pe $_step: merged result" "$result" "$_want"
	expect "report $_pe $_step: step" "$(kv step "$op")" "$_step"
}

# dev_result ADDR: the per-device result of the last op_done line ($op)
dev_result() {
	_r=$(kv results "$op")
	_ifs=$IFS
	IFS=,
	for _e in $_r; do
		case "$_e" in
		"$1:"*) echo "${_e#"$1":}" ;;
		esac
	done
	IFS=$_ifs
}

# pe_line PE: the first line of "pcierr-nl pe PE"
pe_line() {
	timeout -k 2 "$NL_TIMEOUT" "$NL" pe "$1" 2>/dev/null | head -n 1
}
pe_state() { kv pe_state "$(pe_line "$1")"; }
pe_flags() { kv pe_flags "$(pe_line "$1")"; }

# dev_line DEV: the dump line of a device
dev_line() {
	timeout -k 2 "$NL_TIMEOUT" "$NL" dump 2>/dev/null | grep -m 1 " dev=$1 "
}
dev_state() { kv state "$(dev_line "$1")"; }

# nl_stat NAME: one counter of "pcierr-nl stats"
nl_stat() {
	timeout -k 2 "$NL_TIMEOUT" "$NL" stats 2>/dev/null | sed -n "s/^$1=//p"
}

# listen_start FILE ARGS...: a background "pcierr-nl listen ARGS" writing
# to FILE, started and subscribed when this returns; its pid in $LPID
listen_start() {
	_f=$1
	shift
	_seq=$((_seq + 1))
	_ready=$TMP/ready.$_seq
	echo "+ $NL listen $* --ready-file $_ready > $_f &"
	"$NL" listen "$@" --ready-file "$_ready" > "$_f" 2>&1 &
	LPID=$!
	BG_PIDS="$BG_PIDS $LPID"
	wait_until 10 test -e "$_ready" ||
		fail "listener did not become ready in 10 s: $(cat "$_f")"
}

# gone PID: the background process PID has exited (a zombie counts)
gone() {
	[ ! -e "/proc/$1" ] ||
		[ "$(sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# listen_wait PID SECONDS: wait for a listener to exit; its status in $rc
listen_wait() {
	wait_until "$2" gone "$1" || {
		kill "$1" 2>/dev/null
		fail "listener $1 still running after $2 s"
	}
	wait "$1"
	rc=$?
}

# --- the devices -------------------------------------------------------------

# cmdreg DEV: the PCI command register, as a number
cmdreg() {
	_v=$(od -An -tx2 -j4 -N2 "$SYS/$1/config" | tr -d ' ')
	echo $((0x$_v))
}
# shellcheck disable=SC2034 # used by the scenarios
CMD_IO=1 CMD_MEM=2 CMD_MASTER=4

driver_of() {
	if [ -e "$SYS/$1/driver" ]; then
		basename "$(readlink "$SYS/$1/driver")"
	else
		echo -
	fi
}

present() { [ -e "$SYS/$1" ]; }
absent() { [ ! -e "$SYS/$1" ]; }
bound_to() { [ "$(driver_of "$1")" = "$2" ]; }

# --- the test driver (tests/vm/testdrv) --------------------------------------

# td_set DEV ATTR VALUE
td_set() {
	echo "+ echo $3 > $SYS/$1/$2"
	echo "$3" > "$SYS/$1/$2" || fail "cannot write $3 to $SYS/$1/$2"
}
td_calls() { cat "$SYS/$1/calls"; }
td_clear() { echo 1 > "$SYS/$1/calls"; }
td_handlers() {
	echo "+ echo $1 > $TD_DRIVER/handlers"
	echo "$1" > "$TD_DRIVER/handlers" || fail "cannot set handlers $1"
}
# back to the defaults on every pcierr_test device
td_defaults() {
	echo all > "$TD_DRIVER/handlers" 2>/dev/null
	for _d in "$TESTDEV_A" "$TESTDEV_B" "$MIXED_TESTDEV"; do
		[ -e "$SYS/$_d/config_reset" ] && echo 1 > "$SYS/$_d/config_reset"
	done
	return 0
}
# expect_calls DEV WANT: the call log of a pcierr_test device
expect_calls() {
	expect "call log of $1" "$(td_calls "$1")" "$2"
}

# --- PE state ----------------------------------------------------------------

# pe_normalize PE: bring a PE back to normal as far as possible (quiet)
pe_normalize() {
	_st=$(pe_state "$1")
	case "$_st" in
	normal|"") ;;
	removed) "$NL" rescan "$1" ;;
	disabled) "$NL" enable "$1" ;;
	*)
		"$NL" reset "$1"
		"$NL" report "$1" slot_reset
		"$NL" report "$1" resume
		;;
	esac >/dev/null 2>&1
	return 0
}

# require_normal PE...: each PE must be (or be made) normal to start
require_normal() {
	for _pe in "$@"; do
		pe_normalize "$_pe"
		_st=$(pe_state "$_pe")
		[ "$_st" = normal ] || fail "PE $_pe is '$_st', not normal, at the start"
	done
	ok "PEs $* are normal"
}

_cleanup() {
	_exit_status=$?
	for _p in $BG_PIDS; do
		kill "$_p" 2>/dev/null
	done
	td_defaults
	for _pe in $CLEANUP_PES; do
		pe_normalize "$_pe"
	done
	rm -rf "$TMP"
	exit "$_exit_status"
}
trap _cleanup EXIT
trap 'exit 1' INT TERM

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
# Clean-up: a scenario lists the PEs it touches in CLEANUP_PES (and may set
# CLEANUP_CMD, a command run first); when it exits (pass or fail) pcierrd
# is stopped, background jobs are killed, the test driver's settings are
# restored, and those PEs are brought back to normal as far as possible,
# so that one failure does not cascade into the next scenarios.

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
# FAIL_CMD: a scenario's own diagnostics, printed when it fails
fail() {
	echo "FAIL: $*"
	if [ -n "${FAIL_CMD:-}" ]; then
		_fc=$FAIL_CMD
		FAIL_CMD=
		eval "$_fc" 2>&1 | sed 's/^/  diag| /'
	fi
	exit 1
}
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

# nvme_disk DEV: the block device of the nvme DEV's first namespace
nvme_disk() {
	for _b in "$SYS/$1"/nvme/nvme*/nvme*n1; do
		[ -e "$_b" ] && { basename "$_b"; return 0; }
	done
	return 1
}

# nvme_reads DEV IMG: DEV's first namespace reads IMG's first 4 MiB
# (direct I/O, not the page cache)
nvme_reads() {
	_d=$(nvme_disk "$1") || return 1
	[ -b "/dev/$_d" ] || return 1
	dd if="/dev/$_d" bs=64k count=64 iflag=direct 2>/dev/null |
		cmp -s -n 4194304 - "$2"
}

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
	# (the driver suite's topology has other devices: names may be unset)
	for _d in "${TESTDEV_A:-}" "${TESTDEV_B:-}" "${MIXED_TESTDEV:-}" "${IPR:-}" "${IXGB:-}"; do
		[ -n "$_d" ] && [ -e "$SYS/$_d/config_reset" ] && echo 1 > "$SYS/$_d/config_reset"
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
		# drivers that were never told (e1000e would re-enable MSI-X it
		# never disabled, and warn) hear error_detected first
		[ "$_st" = frozen ] && "$NL" report "$1" error_detected --state frozen
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

# --- pcierrd and the system bus (scenarios 11-) -----------------------------
#
# pcierrd runs from the build directory with a state and configuration
# directory of the scenario's own ($PD_STATE, $PD_CONF, $PD_CONFD: empty
# configuration = the built-in defaults unless the scenario writes one);
# its stderr goes to $PD_LOG (log/NAME.pcierrd.log next to the scenario's
# log), whose tail is shown when the scenario fails. It is stopped when
# the scenario ends. The guest runner starts the system bus (dbus-daemon,
# with the tree's dbus/org.pcierr1.conf). There is no udevd: pcierrd then
# reads the kernel's uevents itself. PCIERR_VM_UDEVD=1 starts
# systemd-udevd before pcierrd (its libudev monitor then takes udev's
# events), to test that way too.

# pcierr_pcierrd= on the kernel command line (tests/vm/run --pcierrd)
PCIERRD=${PCIERR_PCIERRD:-${PCIERRD:-$BUILD/pcierrd}}
AER_INJECT=${AER_INJECT:-$BUILD/aer-inject}
BUS_NAME=org.pcierr1
BUS_PATH=/org/pcierr1
MGR_IFACE=org.pcierr1.Manager
SLOT_IFACE=org.pcierr1.Slot
DEV_IFACE=org.pcierr1.Device
# every busctl call is bounded too
BUS_TIMEOUT=${BUS_TIMEOUT:-30}
# how long pcierrd may take to own its name after it was started
PD_START_TIMEOUT=${PD_START_TIMEOUT:-20}
PD_DIR=$TMP/pcierrd
PD_STATE=$PD_DIR/state
PD_CONF=$PD_DIR/pcierrd.conf
PD_CONFD=$PD_DIR/pcierrd.conf.d
PD_LOG=${PCIERR_OUT:-$TMP}/log/${PCIERR_SCENARIO:-scenario}.pcierrd.log
PD_PID=
_pd_used=0

# udevd_start: systemd-udevd, if it is not running (quiet; 0 if it runs)
udevd_start() {
	[ -S /run/udev/control ] && return 0
	_udevd=/lib/systemd/systemd-udevd
	[ -x "$_udevd" ] || { echo "-- no $_udevd: pcierrd sees no udev events"; return 1; }
	mkdir -p /run/udev
	echo "+ $_udevd --daemon"
	"$_udevd" --daemon >/dev/null 2>&1 ||
		{ echo "-- $_udevd --daemon failed"; return 1; }
	wait_until 10 test -S /run/udev/control ||
		{ echo "-- udevd did not create /run/udev/control in 10 s"; return 1; }
	return 0
}

# bus_owner: the unique name owning org.pcierr1 (empty: none)
bus_owner() {
	timeout -k 2 "$BUS_TIMEOUT" busctl --system call org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s "$BUS_NAME" \
		2>/dev/null | sed -n 's/^s "\(.*\)"$/\1/p'
}
bus_has_owner() { [ -n "$(bus_owner)" ]; }

# pcierrd_running: the pcierrd this scenario started is still running
pcierrd_running() { [ -n "$PD_PID" ] && ! gone "$PD_PID"; }

# pcierrd_start [ARGS...]: start pcierrd (same state directory each
# time: a restart keeps its state) and wait until it owns org.pcierr1
pcierrd_start() {
	[ -x "$PCIERRD" ] || fail "no $PCIERRD (make)"
	[ -S /run/dbus/system_bus_socket ] || fail "no system bus in the guest (see log/setup.log)"
	pcierrd_running && fail "pcierrd_start: pcierrd (pid $PD_PID) is already running"
	bus_has_owner && fail "org.pcierr1 is owned ($(bus_owner)) before pcierrd was started"
	[ "${PCIERR_VM_UDEVD:-0}" = 1 ] && udevd_start
	mkdir -p "$PD_STATE" "$PD_CONFD"
	[ -f "$PD_CONF" ] || : > "$PD_CONF"
	_pd_used=1
	echo "=== pcierrd $* ($(date +%T.%N))" >> "$PD_LOG"
	echo "+ $PCIERRD --config $PD_CONF --config-dir $PD_CONFD --state-dir $PD_STATE $* 2>> $PD_LOG &"
	_t0=$(now_ns)
	# a crash leaves a core in the results directory (guest runner's
	# core_pattern): gdb build/pcierrd build/vm/out/core.pcierrd.PID
	# shellcheck disable=SC3045 # dash has ulimit -c
	ulimit -c unlimited 2>/dev/null
	"$PCIERRD" --config "$PD_CONF" --config-dir "$PD_CONFD" \
		--state-dir "$PD_STATE" "$@" < /dev/null >> "$PD_LOG" 2>&1 &
	PD_PID=$!
	_end=$(( $(date +%s) + PD_START_TIMEOUT ))
	while ! bus_has_owner; do
		if gone "$PD_PID"; then
			wait "$PD_PID"
			_st=$?
			PD_PID=
			fail "pcierrd exited with status $_st before owning $BUS_NAME"
		fi
		[ "$(date +%s)" -lt "$_end" ] ||
			fail "pcierrd did not own $BUS_NAME within $PD_START_TIMEOUT s"
		sleep 0.1
	done
	ok "pcierrd (pid $PD_PID) owns $BUS_NAME after $(ms_between "$_t0" "$(now_ns)") ms"
}

# pcierrd_stop: SIGTERM; it must exit 0 within 10 s and give up the name
pcierrd_stop() {
	[ -n "$PD_PID" ] || fail "pcierrd_stop: pcierrd is not running"
	echo "+ kill -TERM $PD_PID (pcierrd)"
	kill -TERM "$PD_PID" 2>/dev/null
	if ! wait_until 10 gone "$PD_PID"; then
		kill -KILL "$PD_PID" 2>/dev/null
		wait "$PD_PID" 2>/dev/null
		PD_PID=
		fail "pcierrd did not exit within 10 s of SIGTERM"
	fi
	wait "$PD_PID"
	_st=$?
	PD_PID=
	[ "$_st" = 0 ] || fail "pcierrd exited with status $_st on SIGTERM"
	wait_until 5 sh -c '! busctl --system status org.pcierr1' ||
		fail "org.pcierr1 still owned after pcierrd exited"
	ok "pcierrd stopped (exit status 0)"
}

# pcierrd_kill9: SIGKILL, wait until it is gone and the name released
pcierrd_kill9() {
	[ -n "$PD_PID" ] || fail "pcierrd_kill9: pcierrd is not running"
	echo "+ kill -KILL $PD_PID (pcierrd)"
	kill -KILL "$PD_PID" 2>/dev/null
	wait_until 10 gone "$PD_PID" || fail "pcierrd survived SIGKILL for 10 s"
	wait "$PD_PID" 2>/dev/null
	PD_PID=
	echo "=== killed with SIGKILL ($(date +%T.%N))" >> "$PD_LOG"
	wait_until 5 sh -c '! busctl --system status org.pcierr1' ||
		fail "org.pcierr1 still owned after pcierrd was killed"
	ok "pcierrd killed"
}

# pd_conf TEXT: the scenario's pcierrd.conf (before pcierrd_start)
pd_conf() {
	mkdir -p "$PD_DIR"
	printf '%s\n' "$1" > "$PD_CONF"
	echo "+ pcierrd.conf:"
	sed 's/^/  | /' "$PD_CONF"
}

# pd_log_since LINES: pcierrd's log after its first LINES lines
pd_log_lines() { wc -l < "$PD_LOG" 2>/dev/null || echo 0; }

_pcierrd_cleanup() {
	if [ -n "$PD_PID" ]; then
		kill -TERM "$PD_PID" 2>/dev/null
		wait_until 10 gone "$PD_PID" || kill -KILL "$PD_PID" 2>/dev/null
		wait "$PD_PID" 2>/dev/null
		PD_PID=
	fi
	if [ "$_pd_used" = 1 ] && [ "${_exit_status:-0}" != 0 ] && [ -f "$PD_LOG" ]; then
		echo "--- pcierrd log ($PD_LOG), last 150 lines ---"
		tail -n 150 "$PD_LOG"
	fi
	if [ "$_pd_used" = 1 ]; then
		for _c in "${PCIERR_OUT:-/nonexistent}"/core.pcierrd.*; do
			[ -e "$_c" ] && echo "--- pcierrd dumped core: $_c (gdb $PCIERRD $_c)"
		done
	fi
	return 0
}

# --- D-Bus calls ---------------------------------------------------------------

# bus ARGS...: busctl --system ARGS (bounded): $out, $rc
bus() {
	run timeout -k 2 "$BUS_TIMEOUT" busctl --system "--timeout=$BUS_TIMEOUT" "$@"
}

# bus_call METHOD [SIGNATURE ARGS...]: a method of the Manager, as root
bus_call() {
	_m=$1
	shift
	bus call "$BUS_NAME" "$BUS_PATH" "$MGR_IFACE" "$_m" "$@"
}

# must_call METHOD [SIGNATURE ARGS...]: ... which must succeed
must_call() {
	bus_call "$@"
	[ "$rc" = 0 ] || fail "Manager.$1 failed (busctl exit status $rc): $out"
}

# call_expect_error ERROR METHOD ARGS...: Manager.METHOD (called with
# dbus-send, which names the error; ARGS in its form: string:x uint32:0)
# must fail with ERROR (org.freedesktop.DBus.Error.ERROR unless it has a
# dot); $errmsg is its message. $CALL_AS (a command prefix, e.g. "as_nobody")
# runs the call as another user.
call_expect_error() {
	_want=$1 _m=$2
	shift 2
	case "$_want" in *.*) ;; *) _want=org.freedesktop.DBus.Error.$_want ;; esac
	# shellcheck disable=SC2086
	run ${CALL_AS:-} timeout -k 2 "$BUS_TIMEOUT" dbus-send --system --print-reply \
		--reply-timeout=$((BUS_TIMEOUT * 1000)) --dest="$BUS_NAME" "$BUS_PATH" \
		"$MGR_IFACE.$_m" "$@"
	[ "$rc" != 0 ] || fail "Manager.$_m $* succeeded, expected $_want"
	_l=$(printf '%s\n' "$out" | grep -m 1 '^Error ')
	errname=$(printf '%s\n' "$_l" | sed -n 's/^Error \([^:]*\):.*/\1/p')
	# shellcheck disable=SC2034 # for the scenarios
	errmsg=${_l#*: }
	expect "error of Manager.$_m $*" "$errname" "$_want"
}

# bus_value TEXT: a busctl "TYPE VALUE" answer without its type, a string's
# quotes removed ("s \"x\"" -> x, "u 1" -> 1, "b true" -> true)
bus_value() {
	_v=${1#* }
	case "$1" in
	s\ *|o\ *) _v=${_v#\"}; _v=${_v%\"} ;;
	esac
	printf '%s\n' "$_v"
}

# bus_get PATH IFACE PROP: the value of a property (bus_value form);
# empty and status 1 if it cannot be read
bus_get() {
	_a=$(timeout -k 2 "$BUS_TIMEOUT" busctl --system "--timeout=$BUS_TIMEOUT" \
		get-property "$BUS_NAME" "$1" "$2" "$3" 2>&1) ||
		{ echo "-- get-property $1 $2 $3: $_a" >&2; return 1; }
	bus_value "$_a"
}

# dev_path ADDR / slot_path ADDR: the object paths (Manager.GetDevice /
# GetSlot, remembered: they do not change). Call them once outside a $(...)
# (bus_objects) so that the shell remembers them.
_obj_path() {
	_key=$(printf '%s_%s' "$1" "$2" | tr -c 'A-Za-z0-9\n' '_')
	eval "_p=\${_pathcache_$_key:-}"
	if [ -z "$_p" ]; then
		_a=$(timeout -k 2 "$BUS_TIMEOUT" busctl --system "--timeout=$BUS_TIMEOUT" \
			call "$BUS_NAME" "$BUS_PATH" "$MGR_IFACE" "$1" s "$2" 2>&1) ||
			{ echo "-- Manager.$1 $2: $_a" >&2; return 1; }
		_p=$(bus_value "$_a")
		eval "_pathcache_$_key=\$_p"
	fi
	printf '%s\n' "$_p"
}
dev_path() { _obj_path GetDevice "$1"; }
slot_path() { _obj_path GetSlot "$1"; }
# bus_objects SLOT DEVICE...: look the objects up once (fails if one is
# missing) and print them
bus_objects() {
	_s=$1
	shift
	slot_path "$_s" > /dev/null || fail "Manager.GetSlot $_s failed"
	echo "  slot $_s: $(slot_path "$_s")"
	for _d in "$@"; do
		dev_path "$_d" > /dev/null || fail "Manager.GetDevice $_d failed"
		echo "  device $_d: $(dev_path "$_d")"
	done
}

# dev_prop ADDR PROP / slot_prop ADDR PROP / mgr_prop PROP
dev_prop() { _dp=$(dev_path "$1") && bus_get "$_dp" "$DEV_IFACE" "$2"; }
slot_prop() { _sp=$(slot_path "$1") && bus_get "$_sp" "$SLOT_IFACE" "$2"; }
mgr_prop() { bus_get "$BUS_PATH" "$MGR_IFACE" "$1"; }

# expect_prop dev|slot|mgr ADDR PROP WANT (mgr: ADDR is ignored)
expect_prop() {
	case "$1" in
	dev) _got=$(dev_prop "$2" "$3") ;;
	slot) _got=$(slot_prop "$2" "$3") ;;
	mgr) _got=$(mgr_prop "$3") ;;
	esac
	expect "$1 $2 $3" "$_got" "$4"
}

# wait_prop SECONDS dev|slot|mgr ADDR PROP WANT: poll until it has WANT
wait_prop() {
	_end=$(( $(date +%s) + $1 ))
	shift
	while :; do
		case "$1" in
		dev) _got=$(dev_prop "$2" "$3" 2>/dev/null) ;;
		slot) _got=$(slot_prop "$2" "$3" 2>/dev/null) ;;
		mgr) _got=$(mgr_prop "$3" 2>/dev/null) ;;
		esac
		[ "$_got" = "$4" ] && { ok "$1 $2 $3 = $4"; return 0; }
		[ "$(date +%s)" -lt "$_end" ] || fail "$1 $2 $3 is '$_got', expected '$4' (waited)"
		sleep 0.2
	done
}

# history_count [ADDR]: entries of Manager.GetHistory (all, or of ADDR)
history_count() {
	timeout -k 2 "$BUS_TIMEOUT" busctl --system "--timeout=$BUS_TIMEOUT" \
		call "$BUS_NAME" "$BUS_PATH" "$MGR_IFACE" GetHistory tsu 0 "${1:-}" 0 \
		2>/dev/null | sed -n 's/^a(tsssssstis) \([0-9]*\).*/\1/p'
}

# --- signals -------------------------------------------------------------------
#
# sig_start: a background "busctl monitor" of every org.pcierr1.Manager
# signal (and of the test's own ready ping) into $SIG_FILE, one JSON
# object per line; subscribed when this returns. It outlives pcierrd
# restarts. sig_mark: later waits only look at what arrives after it.
# wait_signal SECONDS MEMBER [FIXED-STRING...]: the first such signal after
# the mark whose line holds every FIXED-STRING (e.g. '"0000:00:10.0"'); the
# line in $sig, its arguments one per line by sig_args. Each wait_signal
# moves the mark past the line it found, so consecutive waits see
# consecutive signals.

SIG_FILE=$TMP/signals.json
SIG_FROM=1
SIG_MARK=1

sig_start() {
	_seq=$((_seq + 1))
	echo "+ busctl --system monitor --json=short --match sender=org.pcierr1,interface=org.pcierr1.Manager > $SIG_FILE &"
	busctl --system monitor --json=short \
		--match "type='signal',sender='org.pcierr1',interface='org.pcierr1.Manager'" \
		--match "type='signal',interface='org.pcierr1.Test'" \
		> "$SIG_FILE" 2> "$SIG_FILE.err" &
	SIG_PID=$!
	BG_PIDS="$BG_PIDS $SIG_PID"
	_end=$(( $(date +%s) + 10 ))
	while ! grep -q "\"member\":\"Ready$_seq\"" "$SIG_FILE" 2>/dev/null; do
		gone "$SIG_PID" && fail "busctl monitor exited: $(cat "$SIG_FILE.err")"
		[ "$(date +%s)" -lt "$_end" ] ||
			fail "busctl monitor saw no test signal in 10 s: $(cat "$SIG_FILE.err")"
		busctl --system emit /org/pcierr1/test org.pcierr1.Test "Ready$_seq" 2>/dev/null
		sleep 0.2
	done
	sig_mark
}

sig_mark() {
	SIG_FROM=$(( $(wc -l < "$SIG_FILE") + 1 ))
	SIG_MARK=$SIG_FROM
}

# sig_find MEMBER [FIXED-STRING...]: the line number (absolute) of the first
# match at or after $SIG_FROM, empty if none
sig_find() {
	_m=$1
	shift
	tail -n +"$SIG_FROM" "$SIG_FILE" | awk -v m="\"member\":\"$_m\"" -v from="$SIG_FROM" '
		BEGIN { n = ARGC - 1; for (i = 1; i <= n; i++) { f[i] = ARGV[i]; ARGV[i] = "" } }
		index($0, m) {
			for (i = 1; i <= n; i++) if (!index($0, f[i])) next
			print NR + from - 1; exit
		}' "$@"
}

wait_signal() {
	_to=$1
	shift
	_end=$(( $(date +%s) + _to ))
	while :; do
		_n=$(sig_find "$@")
		if [ -n "$_n" ]; then
			sig=$(sed -n "${_n}p" "$SIG_FILE")
			SIG_FROM=$((_n + 1))
			echo "  signal: $(sig_show "$sig")"
			return 0
		fi
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.1
	done
}

# must_signal SECONDS MEMBER [FIXED-STRING...]: wait_signal or fail
must_signal() {
	wait_signal "$@" && return 0
	_to=$1
	shift
	echo "-- the signals since the mark:"
	tail -n +"$SIG_MARK" "$SIG_FILE" | while IFS= read -r _l; do
		echo "  | $(sig_show "$_l")"
	done
	fail "no signal $* within $_to s"
}

# sig_args LINE: the signal's arguments, one per line (strings unquoted)
sig_args() {
	printf '%s\n' "$1" | sed -n 's/.*"data":\[\(.*\)\]}.*/\1/p' | awk '
		{
			s = $0; out = ""; inq = 0; esc = 0
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				if (inq) {
					if (esc) { out = out c; esc = 0 }
					else if (c == "\\") esc = 1
					else if (c == "\"") inq = 0
					else out = out c
				} else if (c == "\"") inq = 1
				else if (c == ",") { print out; out = "" }
				else out = out c
			}
			print out
		}'
}
# sig_arg LINE N: the N-th argument (1-based)
sig_arg() { sig_args "$1" | sed -n "$2p"; }
# sig_show LINE: "Member(arg, arg, ...)"
sig_show() {
	_mem=$(printf '%s\n' "$1" | sed -n 's/.*"member":"\([^"]*\)".*/\1/p')
	echo "$_mem($(sig_args "$1" | tr '\n' ',' | sed 's/,$//; s/,/, /g'))"
}
# sig_all MEMBER [FIXED-STRING...]: every such signal since the last
# sig_mark (not moved by wait_signal), one "Member(args)" per line
sig_all() {
	_m=$1
	shift
	tail -n +"$SIG_MARK" "$SIG_FILE" | awk -v m="\"member\":\"$_m\"" '
		BEGIN { n = ARGC - 1; for (i = 1; i <= n; i++) { f[i] = ARGV[i]; ARGV[i] = "" } }
		index($0, m) {
			for (i = 1; i <= n; i++) if (!index($0, f[i])) next
			print
		}' "$@" | while IFS= read -r _l; do sig_show "$_l"; done
}
# steps_since SLOT: the RecoveryStep steps of SLOT since the last sig_mark,
# in order, as "step=result step=result ..."; step_names SLOT: the names
steps_since() {
	tail -n +"$SIG_MARK" "$SIG_FILE" | grep '"member":"RecoveryStep"' |
		grep -F "\"$1\"" | while IFS= read -r _l; do
		_s=$(sig_arg "$_l" 2)
		_r=$(sig_arg "$_l" 3)
		printf '%s=%s ' "$_s" "$_r"
	done | sed 's/ $//'
}
step_names() {
	steps_since "$1" | sed 's/=[^ ]*//g'
}

# finish_of SLOT SECONDS: wait for the slot's RecoveryFinished; its result
# in $fin_result, its duration (µs) in $fin_usec
finish_of() {
	must_signal "$2" RecoveryFinished "\"$1\""
	# shellcheck disable=SC2034 # for the scenarios
	fin_result=$(sig_arg "$sig" 2)
	# shellcheck disable=SC2034
	fin_usec=$(sig_arg "$sig" 3)
}

# as_nobody CMD...: run CMD as uid/gid 65534, no groups, no capabilities
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}

# nobody_may_run FILE...: uid 65534 may run each FILE (o+rx along its
# path) and load the build's shared libraries; the guest's overlay copy
# only
nobody_may_run() {
	for _f in "$@"; do
		_p=$_f
		while [ "$_p" != / ] && [ -n "$_p" ]; do
			chmod o+rx "$_p" 2>/dev/null
			_p=$(dirname "$_p")
		done
	done
	chmod o+rx "$BUILD/lib" 2>/dev/null
	for _f in "$BUILD"/lib/*.so*; do [ -e "$_f" ] && chmod o+r "$_f"; done
	return 0
}

# pd_rss_kb FIELD: VmRSS, RssAnon or RssFile of pcierrd, in kB. Memory
# bounds are on RssAnon (heap, stacks, anonymous mappings: what pcierrd
# allocates); RssFile is code and data of the binary and its libraries
# mapped from the page cache as they are first run, fault-around included,
# which depends on what else ran in the guest (1-2 MiB more after the
# D-Bus abuse, with the same anonymous memory): a figure.
pd_rss_kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$PD_PID/status"; }

# freeze_counts DEV...: "DEV=FreezeCount " of each, from D-Bus
freeze_counts() {
	for _d in "$@"; do
		printf '%s=%s ' "$_d" "$(dev_prop "$_d" FreezeCount)"
	done
}

# D-Bus abuse of pcierrd (scenarios 41 and 43; tests/fuzz/bus-abuse.c as
# $BA, $DEV the device the valid Injects name, $OTHERS the devices nothing
# may change):
# bus_abuse_start: pcierrd started, a warm-up of 300 read calls, then the
# baseline: $pid0, $others0, $anon0, $rss0, $file0
bus_abuse_start() {
	pcierrd_start
	pid0=$PD_PID
	bus_objects "$PE" "$DEV"
	expect_prop dev "$DEV" FreezeCount 0
	others0=$(freeze_counts $OTHERS)
	run as_nobody "$BA" loop 300
	[ "$rc" = 0 ] || fail "bus-abuse loop 300 exited $rc"
	rss0=$(pd_rss_kb VmRSS) anon0=$(pd_rss_kb RssAnon) file0=$(pd_rss_kb RssFile)
	info "pcierrd after warm-up: VmRSS $rss0 kB (RssAnon $anon0, RssFile $file0)"
}

# bus_abuse_malformed NAME: bus-abuse malformed as root, then as uid 65534
# (it exits 1 on a violation); figures NAME_root, NAME_nobody
bus_abuse_malformed() {
	for _who in root nobody; do
		if [ "$_who" = root ]; then run "$BA" malformed; else run as_nobody "$BA" malformed; fi
		[ "$rc" = 0 ] || fail "bus-abuse malformed as $_who exited $rc"
		_sum=$(printf '%s\n' "$out" | grep '^summary')
		expect "$_who: malformed calls that broke a rule" "$(kv violations "$_sum")" 0
		echo "figure ${1}_$_who $_sum"
	done
	[ "$PD_PID" = "$pid0" ] && pcierrd_running || fail "pcierrd is gone"
}

# bus_abuse_end NAME N: pcierrd the same process, owning the name; $DEV's
# FreezeCount N, the others' as at the start; RssAnon grown by less than
# 1 MiB (figure NAME_rss)
bus_abuse_end() {
	[ "$PD_PID" = "$pid0" ] && pcierrd_running || fail "pcierrd is gone"
	bus_owner | grep -q . || fail "org.pcierr1 has no owner"
	expect_prop dev "$DEV" FreezeCount "$2"
	expect "the other devices' freeze counts" "$(freeze_counts $OTHERS)" "$others0"
	_rss1=$(pd_rss_kb VmRSS) _anon1=$(pd_rss_kb RssAnon) _file1=$(pd_rss_kb RssFile)
	echo "figure ${1}_rss before_kb=$rss0 after_kb=$_rss1 anon_before_kb=$anon0 anon_after_kb=$_anon1 file_before_kb=$file0 file_after_kb=$_file1"
	# ASan's quarantine keeps what is freed (make vm-sanitize): said, not judged
	if grep -q libasan "/proc/$PD_PID/maps"; then
		info "NOT JUDGED: pcierrd's memory bound (an ASan build: its quarantine holds freed memory)"
		return 0
	fi
	[ $((_anon1 - anon0)) -lt 1024 ] ||
		fail "pcierrd's anonymous memory (RssAnon) grew from $anon0 to $_anon1 kB (1 MiB or more)"
	ok "pcierrd RssAnon $anon0 kB -> $_anon1 kB (VmRSS $rss0 -> $_rss1 kB, RssFile $file0 -> $_file1 kB)"
}

# --- the e1000e -------------------------------------------------------------------

# nic_works DEV WHEN: the e1000e at DEV is bound to e1000e, its interface
# comes up with carrier (15 s) and its device status register, read
# through the driver (ethtool -d), is sane: not all-ones, link up. The
# interface is set down again afterwards.
nic_works() {
	wait_until 15 bound_to "$1" e1000e || fail "$1 is not bound to e1000e $2 (driver $(driver_of "$1"))"
	wait_until 10 sh -c "ls $SYS/$1/net/ | grep -q ." || fail "$1 has no network interface $2"
	_eth=$(ls "$SYS/$1/net" | head -n 1)
	ip link set "$_eth" up || fail "cannot bring $_eth up $2"
	wait_until 15 sh -c "[ \"\$(cat /sys/class/net/$_eth/carrier 2>/dev/null)\" = 1 ]" ||
		{ ip link set "$_eth" down; fail "$_eth has no carrier $2"; }
	_o=$(ethtool -d "$_eth" 2>&1)
	rc=$?
	_st=$(printf '%s\n' "$_o" | sed -n 's/^0x00008: .* \(0x[0-9A-Fa-f]\{8\}\)$/\1/p')
	ip link set "$_eth" down
	[ "$rc" = 0 ] && [ -n "$_st" ] && [ "$_st" != 0xFFFFFFFF ] && [ "$_st" != 0xffffffff ] &&
		[ $((_st & 2)) != 0 ] || fail "$_eth registers not sane $2 (status register ${_st:-unreadable})"
	expect "$_eth MAC $2" "$(cat "/sys/class/net/$_eth/address")" "$E1000E_MAC"
	ok "$_eth ($1) works $2: bound to e1000e, carrier, status register $_st"
}

# --- the kernel's AER injector (tests/tools/aer-inject.c) -----------------------

# aer_inject_load: modprobe aer_inject (once)
aer_inject_load() {
	[ -c /dev/aer_inject ] && return 0
	run modprobe aer_inject
	[ "$rc" = 0 ] || fail "modprobe aer_inject failed"
	wait_until 5 test -c /dev/aer_inject || fail "no /dev/aer_inject after modprobe aer_inject"
}

# --- QEMU's monitor (tests/vm/run's relay) -------------------------------------

# qemu_monitor CMD...: one HMP command to QEMU's monitor, through the
# host's relay (a request file in the results share, the answer next to
# it); the answer (without prompt and echo) in $out. HMP prints nothing
# when a command such as device_del or device_add succeeds.
qemu_monitor() {
	_md=${PCIERR_OUT:?}/monitor
	[ -d "$_md" ] || fail "no monitor relay ($_md): tests/vm/run makes it"
	_seq=$((_seq + 1))
	_mf=$_md/$$.$_seq
	echo "+ (qemu) $*"
	printf '%s\n' "$*" > "$_mf.tmp" && mv "$_mf.tmp" "$_mf.req" ||
		fail "cannot write the monitor request $_mf.req"
	wait_until 60 test -e "$_mf.resp" ||
		fail "the host's monitor relay did not answer '$*' within 60 s"
	out=$(cat "$_mf.resp")
	rm -f "$_mf.resp"
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  | /'
	# shellcheck disable=SC2034 # for the scenarios
	case "$out" in *rror*) monitor_error=1 ;; *) monitor_error=0 ;; esac
	return 0
}

_cleanup() {
	_exit_status=$?
	_pcierrd_cleanup
	# the scenario's own restoring, when it set one
	[ -n "${CLEANUP_CMD:-}" ] && eval "$CLEANUP_CMD" >/dev/null 2>&1
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

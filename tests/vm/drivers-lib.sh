# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # variables shared with lib.sh and the scenarios
#
# Helpers of the driver suite (tests/vm/driver-scenarios, topology
# tests/vm/topology-drivers, docs/drivers.md), sourced after lib.sh:
#   . "$VM_LIB"; . "$PCIERR_TREE/tests/vm/drivers-lib.sh"
#
# Network: every NIC under test is renamed (t_NAME) and moved into a
# network namespace of its own (ns_NAME) with 10.77.0.HOST/24, and runs a
# UDP echo (build/udp-stream echo); the peer (virtio-net on bus 0, never
# frozen) is peer0 in namespace "peer" with 10.77.0.1. QEMU's hub 0 joins
# them: nothing leaves the VM. A stream (build/udp-stream send, 10 packets
# a second from the peer) is split by stream_stats at the injection and at
# RecoveryFinished, both in guest time.
# Disks: build/blkpat's pattern (made on the host by tests/vm/run), read
# (and written, in a scratch region) with O_DIRECT while the slot is frozen
# and recovered (blk_start/blk_stop/blk_stats).
# Table: row appends one line to $PCIERR_OUT/drivers.table, which
# tests/vm/run prints at the end of the run.

BLKPAT=$BUILD/blkpat
UDP_STREAM=$BUILD/udp-stream
PCIERRCTL=$BUILD/pcierrctl
DRV_TABLE=${PCIERR_OUT:-$TMP}/drivers.table
NET=10.77.0
UDP_PORT=7777
# packets a second of a stream: one every STREAM_MS
STREAM_MS=100

# --- the table ------------------------------------------------------------

# row DEVICE DRIVER HANDLERS PATH RECOVERY BEFORE DURING AFTER DATA
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$DRV_TABLE"
	echo "-- row: $*"
}

# handlers_of DEV: the device's handlers as pcierrd sees them, comma
# separated ("-" for none)
handlers_of() {
	_h=$(dev_prop "$1" Handlers 2>/dev/null)
	# "3 \"error_detected\" \"slot_reset\" \"resume\"" (bus_value of "as ...")
	_h=$(printf '%s\n' "$_h" | sed 's/^[0-9]* *//; s/"//g; s/ /,/g')
	echo "${_h:--}"
}

# ms US: microseconds as "N ms"
ms() { echo "$(( ($1 + 500) / 1000 )) ms"; }

# --- injection through pcierrctl -------------------------------------------

# inject_bg DEV: "pcierrctl inject DEV" in the background (it follows the
# recovery and exits 0 only if recovered); $INJ_T0 the guest time before,
# $INJ_PID, its output in $TMP/inject.out
inject_bg() {
	INJ_T0=$(now_ns)
	echo "+ pcierrctl --no-pager inject --timeout=90 $1 > $TMP/inject.out &"
	"$PCIERRCTL" --no-pager inject --timeout=90 "$1" > "$TMP/inject.out" 2>&1 &
	INJ_PID=$!
	BG_PIDS="$BG_PIDS $INJ_PID"
}

# inject_wait: wait for it (bounded); its status in $INJ_RC, output shown
inject_wait() {
	wait_until 100 gone "$INJ_PID" || { kill "$INJ_PID"; fail "pcierrctl inject still running after 100 s"; }
	wait "$INJ_PID"
	INJ_RC=$?
	sed 's/^/  | /' "$TMP/inject.out"
	echo "  pcierrctl inject exit status $INJ_RC"
}

# recovery_of PE DEV: inject_bg DEV, then RecoveryStarted ($rec_mode) and
# RecoveryFinished ($fin_result, $fin_usec); pcierrctl's exit status in
# $INJ_RC. The phases' bounds, in guest ns: $INJ_T0 the error (the
# Device's LastErrorUSec, wall clock), $INJ_T1 = that + the recovery's
# duration: when it finished, not when this (slow, under TCG) shell saw
# the signal; without LastErrorUSec (the device gone), the times this
# shell saw.
recovery_of() {
	sig_mark
	inject_bg "$2"
	must_signal 30 RecoveryStarted "\"$1\""
	rec_mode=$(sig_arg "$sig" 2)
	finish_of "$1" 90
	INJ_T1=$(now_ns)
	_le=$(dev_prop "$2" LastErrorUSec 2>/dev/null)
	if [ -n "$_le" ] && [ "$_le" -gt 0 ] 2>/dev/null; then
		echo "  the error at $_le us (LastErrorUSec), finished $fin_usec us later; seen $(( (INJ_T1 - (_le + fin_usec) * 1000) / 1000000 )) ms after that"
		INJ_T0=$((_le * 1000))
		INJ_T1=$(( (_le + fin_usec) * 1000 ))
	fi
	inject_wait
	echo "  $1: $rec_mode, $fin_result in $fin_usec us; steps: $(steps_since "$1")"
}

# --- network --------------------------------------------------------------

# in_ns NS CMD...
in_ns() { ip netns exec "$@"; }

# iface_of DEV: the network interface of PCI device DEV in this namespace
# (virtio-net's is below its virtio device)
iface_of() {
	for _i in "$SYS/$1"/net/* "$SYS/$1"/virtio*/net/*; do
		[ -e "$_i" ] && { basename "$_i"; return 0; }
	done
	return 1
}

# carrier_in NS IF: the interface is up with a carrier (LOWER_UP)
carrier_in() { ip -n "$1" link show "$2" 2>/dev/null | grep -q 'LOWER_UP'; }

# nic_setup NAME DEV HOST: DEV's interface as t_NAME in ns_NAME with
# 10.77.0.HOST, up, carrier (20 s), its UDP echo running; idempotent (an
# interface that came back by a rescan is moved in again)
nic_setup() {
	_n=$1 _d=$2 _h=$3
	_ns=ns_$_n _if=t_$_n
	[ -e "/run/netns/$_ns" ] || ip netns add "$_ns" || fail "ip netns add $_ns"
	if ! ip -n "$_ns" link show "$_if" >/dev/null 2>&1; then
		wait_until 20 iface_of "$_d" ||
			fail "$_d ($(driver_of "$_d")) has no network interface"
		_e=$(iface_of "$_d")
		ip link set "$_e" down
		ip link set "$_e" name "$_if" || fail "cannot rename $_e to $_if"
		ip link set "$_if" netns "$_ns" || fail "cannot move $_if into $_ns"
		echo "  $_d: $_e -> $_if in $_ns"
	fi
	ip -n "$_ns" link set lo up
	ip -n "$_ns" addr replace "$NET.$_h/24" dev "$_if" || fail "cannot give $_if $NET.$_h"
	ip -n "$_ns" link set "$_if" up || fail "cannot bring $_if up"
	wait_until 20 carrier_in "$_ns" "$_if" || fail "$_if ($_d) has no carrier in 20 s"
	_p=$(cat "$TMP/echo.$_n.pid" 2>/dev/null)
	if [ -z "$_p" ] || gone "$_p"; then
		in_ns "$_ns" "$UDP_STREAM" echo "$UDP_PORT" > /dev/null 2>&1 &
		echo $! > "$TMP/echo.$_n.pid"
		BG_PIDS="$BG_PIDS $!"
	fi
	ok "$_if ($_d, $(driver_of "$_d")) up in $_ns as $NET.$_h, echo on udp/$UDP_PORT"
}

# nic_replumb_bg NAME DEV HOST: in the background, as udev and networkd
# would: as soon as DEV has a network interface in this namespace again (a
# rescan made a new one), rename it t_NAME, move it into ns_NAME and give
# it 10.77.0.HOST, up; the guest time it was done (now_ns) goes to
# $TMP/replumb.NAME. The UDP echo in ns_NAME (bound to no interface)
# answers on it again by itself. Without it the interface would come back
# only when this slow shell got round to nic_setup, and the stream's
# figures would measure the test, not the recovery. A later nic_setup
# checks what it did (carrier, echo).
nic_replumb_bg() {
	rm -f "$TMP/replumb.$1"
	(
		wait_until 120 iface_of "$2" || exit 0
		_e=$(iface_of "$2")
		ip link set "$_e" name "t_$1" && ip link set "t_$1" netns "ns_$1" &&
			ip -n "ns_$1" addr replace "$NET.$3/24" dev "t_$1" &&
			ip -n "ns_$1" link set "t_$1" up && now_ns > "$TMP/replumb.$1"
	) > /dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
}

# replumbed_ms NAME T_NS: ms from T_NS to nic_replumb_bg's re-plumbing
# ("-" when it did not)
replumbed_ms() {
	_t=$(cat "$TMP/replumb.$1" 2>/dev/null)
	if [ -n "$_t" ]; then echo $(( (_t - $2) / 1000000 )); else echo -; fi
}

peer_setup() {
	nic_setup peer0 "$PEER" 1
}

# reach NAME HOST [COUNT]: COUNT (20) echoes from the peer to
# 10.77.0.HOST, 100 ms apart, each awaited up to 3 s after the last was
# sent: $reach_got answered of $reach_sent
reach() {
	in_ns ns_peer0 timeout 60 "$UDP_STREAM" send "$NET.$2" "$UDP_PORT" "$STREAM_MS" "${3:-20}" \
		> "$TMP/reach.$1" 2>&1
	reach_got=$(grep -c '^r ' "$TMP/reach.$1")
	reach_sent=$(grep -c '^[sx] ' "$TMP/reach.$1")
}

# must_reach NAME HOST: a short stream answered in full
must_reach() {
	reach "$1" "$2" "${REACH_COUNT:-20}"
	[ "$reach_got" = "$reach_sent" ] && [ "$reach_sent" -gt 0 ] ||
		fail "$1 ($NET.$2): $reach_got of $reach_sent packets echoed"
	ok "$1 ($NET.$2) answers: $reach_got of $reach_sent echoed"
}

# stream_start NAME HOST: the peer streams to 10.77.0.HOST
stream_start() {
	echo "+ udp-stream send $NET.$2 (ns_peer0) > $TMP/stream.$1 &"
	in_ns ns_peer0 "$UDP_STREAM" send "$NET.$2" "$UDP_PORT" "$STREAM_MS" > "$TMP/stream.$1" 2>&1 &
	echo $! > "$TMP/stream.$1.pid"
	BG_PIDS="$BG_PIDS $!"
}

stream_stop() {
	_p=$(cat "$TMP/stream.$1.pid")
	kill -TERM "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

# stream_dump: for a failed scenario, every stream's unanswered packets
# (seq, send time) and last lines, the peer's neighbours and the links
stream_dump() {
	for _f in "$TMP"/stream.* "$TMP"/reach.*; do
		case "$_f" in *.pid|*"*") continue ;; esac
		echo "${_f##*/}: $(grep -c '^[sx] ' "$_f") sent, $(grep -c '^r ' "$_f") echoed; unanswered:"
		awk '$1 == "s" || $1 == "x" { s[$2] = $0 } $1 == "r" { delete s[$2] }
			END { for (k in s) print "  " s[k] }' "$_f" | sort -k2n | head -n 20
		tail -n 3 "$_f" | sed 's/^/  last: /'
	done
	echo "now: $(now_ns)"
	ip -n ns_peer0 neigh 2>&1
	for _ns in $(ip netns list | cut -d' ' -f1); do
		ip -n "$_ns" -br link 2>&1 | sed "s/^/$_ns: /"
	done
}

# stream_stats NAME T0 T1: the stream of NAME split at T0 (the error) and
# T1 (the recovery's end), guest ns. Sets st_before st_during st_after
# ("answered/sent" of the packets sent in each phase), st_lost (unanswered
# of those sent in the outage, T0-T1), st_resume_ms (ms after T1 from which
# every packet was answered: the echo of the first packet of the last
# unbroken run, or of the first after T1 if nothing was lost; -1: no echo
# after T1), st_after_gaps (packets lost after the first echo that came
# after T1: the stream stopped again; 0 when it came back for good at
# once). The last second of the stream (in flight when it stopped) is not
# judged.
stream_stats() {
	_r=$(awk -v t0="$2" -v t1="$3" '
		$1 == "s" || $1 == "x" { sent[$2 + 0] = $3 + 0; if ($2 + 0 > max) max = $2 + 0; if ($3 + 0 > last) last = $3 + 0 }
		$1 == "r" { got[$2 + 0] = $4 + 0; if ($4 + 0 >= t1 && (first == "" || $4 + 0 < first)) { first = $4 + 0; fseq = $2 + 0 } }
		END {
			lu = 0
			for (k = 1; k <= max; k++) {
				if (!(k in sent)) continue
				p = sent[k] < t0 ? 1 : (sent[k] < t1 ? 2 : 3)
				s[p]++
				if (k in got) a[p]++
				else {
					if (p == 2) lost++
					if (sent[k] < last - 1e9) {
						lu = k
						if (first != "" && k > fseq) gaps++
					}
				}
			}
			res = -1
			if (first != "") {
				res = first
				if (lu + 1 <= max && (lu + 1) in got && got[lu + 1] > res) res = got[lu + 1]
				res = (res - t1) / 1e6
			}
			printf "%d/%d %d/%d %d/%d %d %d %d\n", a[1], s[1], a[2], s[2], a[3], s[3], lost, res, gaps
		}' "$TMP/stream.$1")
	# shellcheck disable=SC2086 # the fields
	set -- $_r
	st_before=$1 st_during=$2 st_after=$3 st_lost=$4 st_resume_ms=$5 st_after_gaps=$6
	echo "  stream: before $st_before, during $st_during, after $st_after answered; lost in the outage $st_lost; answered for good from $st_resume_ms ms after the recovery; $st_after_gaps lost after a first echo"
}

# --- disks ----------------------------------------------------------------

# disk_of DEV: the block device (sdX, nvmeXnY, vdX) of the storage
# controller DEV (virtio's below its virtio device)
disk_of() {
	for _b in "$SYS/$1"/host*/target*/*/block/* "$SYS/$1"/nvme/nvme*/nvme*n* \
		"$SYS/$1"/virtio*/host*/target*/*/block/* "$SYS/$1"/virtio*/block/*; do
		[ -e "$_b" ] && { basename "$_b"; return 0; }
	done
	return 1
}

# disk_ready DEV DRIVER: DEV is bound to DRIVER and has its disk: $disk
disk_ready() {
	bound_to "$1" "$2" || fail "$1 is bound to '$(driver_of "$1")', not $2"
	wait_until 20 disk_of "$1" || fail "no disk below $1 ($2)"
	disk=$(disk_of "$1")
	ok "the disk of $1 ($2) is /dev/$disk"
}

# pd_begin SLOT DEVICE...: the signal monitor, pcierrd, the objects of SLOT
# and its DEVICEs; the first DEVICE's handlers in $handlers
pd_begin() {
	sig_start
	pcierrd_start
	bus_objects "$@"
	handlers=$(handlers_of "$2")
}

# blk_start NAME DEV ARGS...: blkpat loop on /dev/DEV in the background
blk_start() {
	_n=$1 _b=$2
	shift 2
	echo "+ blkpat loop /dev/$_b $* > $TMP/blk.$_n &"
	"$BLKPAT" loop "/dev/$_b" "$@" > "$TMP/blk.$_n" 2>&1 &
	echo $! > "$TMP/blk.$_n.pid"
	BG_PIDS="$BG_PIDS $!"
}

# blk_stop NAME SECONDS: SIGTERM, wait for its final pass and summary;
# $bk_hung 1 (and said) if it did not stop within SECONDS (I/O stuck)
blk_stop() {
	bk_hung=0
	_p=$(cat "$TMP/blk.$1.pid")
	kill -TERM "$_p" 2>/dev/null
	if ! wait_until "$2" gone "$_p"; then
		bk_hung=1
		echo "-- blkpat on $1 did not stop within $2 s of SIGTERM: its I/O is stuck"
		return 0
	fi
	wait "$_p" 2>/dev/null
	grep -q '^summary ' "$TMP/blk.$1" || { tail -n 20 "$TMP/blk.$1"; fail "blkpat on $1 ended without a summary"; }
	echo "  $(grep '^summary ' "$TMP/blk.$1")"
}

# blk_stats NAME T0 T1: reads (and read-backs) per phase by when they
# STARTED (before T0, between, after T1): bk_before bk_during bk_after ("right/done, N failed"),
# bk_bad (wrong bytes returned: any), bk_after_bad (started after T1, not
# right), bk_resume_ms (the first right read started after T1: ms after T1),
# bk_longest_ms (the longest operation: one that waited out the outage)
blk_stats() {
	_r=$(awk -v t0="$2" -v t1="$3" '
		$3 == "read" || $3 == "readback" {
			e = $1 + 0; p = e < t0 ? 1 : (e < t1 ? 2 : 3); n[p]++
			st = $3 == "read" ? $5 : $6
			if (st == "ok") ok[p]++; else if (st == "bad") { bad++; if (p == 3) ab++ } else { err[p]++; if (p == 3) ab++ }
			if (p == 3 && st == "ok" && (first == "" || e < first)) first = e
		}
		$3 == "read" || $3 == "readback" || $3 == "write" { d = ($2 - $1) / 1e6; if (d > longest) longest = d }
		END {
			for (p = 1; p <= 3; p++) printf "%d/%d,%d ", ok[p], n[p], err[p]
			printf "%d %d %d %d\n", bad, ab, first == "" ? -1 : (first - t1) / 1e6, longest
		}' "$TMP/blk.$1")
	set -- $_r
	bk_before=$(echo "$1" | awk -F, '{ printf "%s right, %d failed", $1, $2 }')
	bk_during=$(echo "$2" | awk -F, '{ printf "%s right, %d failed", $1, $2 }')
	bk_after=$(echo "$3" | awk -F, '{ printf "%s right, %d failed", $1, $2 }')
	bk_bad=$4 bk_after_bad=$5 bk_resume_ms=$6 bk_longest_ms=$7
	echo "  reads: before $bk_before; during $bk_during; after $bk_after; wrong bytes $bk_bad; not right after recovery $bk_after_bad; first right read $bk_resume_ms ms after RecoveryFinished; longest operation $bk_longest_ms ms"
}

# --- nvme controller resets -------------------------------------------------

# nvme_resets_start: count nvme's controller resets (nvme_reset_work runs)
# with the function tracer from now on; nvme_resets_stop: stop, show them,
# their number in $resets
NVME_TR=/sys/kernel/debug/tracing
nvme_resets_start() {
	CLEANUP_CMD='echo 0 > $NVME_TR/tracing_on; echo nop > $NVME_TR/current_tracer; echo > $NVME_TR/set_ftrace_filter'
	echo nvme_reset_work > "$NVME_TR/set_ftrace_filter" || fail "cannot trace nvme_reset_work"
	echo function > "$NVME_TR/current_tracer"
	echo > "$NVME_TR/trace"
	echo 1 > "$NVME_TR/tracing_on"
}
nvme_resets_stop() {
	echo 0 > "$NVME_TR/tracing_on"
	grep 'nvme_reset_work' "$NVME_TR/trace" | sed 's/^/  | /'
	resets=$(grep -c ' nvme_reset_work <-' "$NVME_TR/trace")
}

# The pci-serial's (driver scenarios 08 and 96; SEROUT: QEMU's chardev file)
# tty_of DEV: its ttyS (below the PCI device, or below serial-base
# devices on newer kernels)
tty_of() {
	for _t in "$SYS/$1"/tty/* "$SYS/$1"/*/*/tty/*; do
		[ -e "$_t" ] && { basename "$_t"; return 0; }
	done
	return 1
}
has_tty() { tty_of "$DEV" >/dev/null; }

# serial_io WORD: WORD written to the card's ttyS reaches QEMU's file
serial_io() {
	_tty=$(tty_of "$DEV") || fail "$DEV has no ttyS ($1)"
	[ -c "/dev/$_tty" ] || fail "no /dev/$_tty (devtmpfs)"
	timeout 10 sh -c "stty -F /dev/$_tty raw 115200 clocal && printf 'pcierr-%s\n' '$1' > /dev/$_tty" ||
		fail "writing to /dev/$_tty ($1) failed"
	wait_until 10 grep -q "pcierr-$1" "$SEROUT" ||
		fail "pcierr-$1 written to /dev/$_tty did not reach QEMU ($SEROUT: $(tail -c 200 "$SEROUT" 2>/dev/null))"
	ok "/dev/$_tty ($DEV) writes: pcierr-$1 reached QEMU"
}

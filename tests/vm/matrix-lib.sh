# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # variables shared with lib.sh and the scenarios
#
# Helpers of the device-class matrix (tests/vm/matrix-scenarios, topology
# tests/vm/topology-matrix, issue 25, docs/drivers.md), sourced after
# lib.sh and drivers-lib.sh. One call per device: it is frozen with its I/O
# running, pcierrd recovers it, and its function is checked afterwards
# (traffic passes, the disk's data is right); one row goes to the table
# (drivers.table, printed by tests/vm/run) with "verified" yes or NO.
# Never a hang (each step bounded), never a wrong byte: those fail the
# scenario; a recovery whose function did not come back fails it too,
# after its row says so.

# mx_row DEVICE DRIVER HANDLERS PATH TIME BEFORE DURING AFTER FUNCTION
# VERIFIED: drivers-lib.sh's row with the "verified" column
mx_row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$DRV_TABLE"
	echo "-- row: $*"
}

# mx_recover PE DEV: pcierrd started, the freeze and the recovery
# (recovery_of): $rec_mode $fin_result $fin_usec $INJ_T0 $INJ_T1 $INJ_RC;
# $mx_path, the row's path: $rec_mode and MX_PATH_NOTE (the scenario's why)
mx_recover() {
	if [ -n "${MX_WAIT:-}" ]; then
		# a driver known to wait for its own timeouts: bounded by MX_WAIT s
		sig_mark
		INJ_T0=$(now_ns)
		"$PCIERRCTL" --no-pager inject --timeout="$MX_WAIT" "$2" > "$TMP/inject.out" 2>&1 &
		INJ_PID=$!
		BG_PIDS="$BG_PIDS $INJ_PID"
		must_signal 30 RecoveryStarted "\"$1\""
		rec_mode=$(sig_arg "$sig" 2)
		finish_of "$1" "$MX_WAIT"
		INJ_T1=$(now_ns)
		wait_until 20 gone "$INJ_PID" || fail "pcierrctl inject still running"
		wait "$INJ_PID"
		INJ_RC=$?
		sed 's/^/  | /' "$TMP/inject.out"
	else
		recovery_of "$1" "$2"
	fi
	expect "RecoveryFinished" "$fin_result" recovered
	expect "pcierrctl inject exit status" "$INJ_RC" 0
	case $rec_mode in
	full-hotplug) mx_path="full hotplug" ;;
	*) mx_path=$rec_mode ;;
	esac
	# why this path (a scenario's own words, e.g. the shipped list's Method=)
	mx_path="$mx_path${MX_PATH_NOTE:-}"
}

# mx_slow_remove HUNG WAIT: a driver without handlers whose REMOVE waits
# for the read lost in the freeze to time out in its own error handling
# (the SCSI midlayer's command timeout, then the driver's abort and
# reset): that wait is bounded, but longer than the test bed's 30 s
# hung-task bound. HUNG: the bound for this scenario (set back at its
# end); WAIT: how long its recovery is awaited (MX_WAIT)
mx_slow_remove() {
	_hung=/proc/sys/kernel/hung_task_timeout_secs
	CLEANUP_CMD="echo $(cat "$_hung") > $_hung"
	echo "$1" > "$_hung"
	MX_WAIT=$2
}

# mx_nic NAME PE DEV DRIVER HOST: a NIC with the peer's stream running
mx_nic() {
	mx_n=$1 mx_pe=$2 mx_dev=$3 mx_drv=$4 mx_host=$5
	CLEANUP_PES=$mx_pe
	require_normal "$mx_pe"
	wait_until 20 bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev is bound to '$(driver_of "$mx_dev")', not $mx_drv"
	peer_setup
	nic_setup "$mx_n" "$mx_dev" "$mx_host"
	pd_begin "$mx_pe" "$mx_dev"
	must_reach "$mx_n" "$mx_host"
	stream_start "$mx_n" "$mx_host"
	sleep 3
	nic_replumb_bg "$mx_n" "$mx_dev" "$mx_host"
	mx_recover "$mx_pe" "$mx_dev"
	wait_until 20 bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev not bound to $mx_drv after the recovery (driver $(driver_of "$mx_dev"))"
	mx_up=-
	if [ "$rec_mode" = full-hotplug ]; then
		mx_up=$(replumbed_ms "$mx_n" "$INJ_T1")
		[ "$mx_up" != - ] || wait_until 20 iface_of "$mx_dev" || true
	fi
	nic_setup "$mx_n" "$mx_dev" "$mx_host"
	sleep 5
	stream_stop "$mx_n"
	stream_stats "$mx_n" "$INJ_T0" "$INJ_T1"
	reach "$mx_n" "$mx_host"
	mx_ver=yes
	[ "$reach_got" = "$reach_sent" ] && [ "$reach_sent" -gt 0 ] || mx_ver=NO
	mx_row "$mx_dev" "$mx_drv" "$handlers" "$mx_path" "$(ms "$fin_usec")" \
		"echoed $st_before" "$st_during ($st_lost lost)" "$st_after (resumed +$st_resume_ms ms)" \
		"traffic: $reach_got/$reach_sent echoed" "$mx_ver"
	[ "$mx_ver" = yes ] || fail "$mx_dev ($mx_drv) recovered but its traffic does not pass: $reach_got of $reach_sent echoed"
	ok "$mx_dev ($mx_drv) recovered ($mx_path) and passes traffic"
	pcierrd_stop
}

# mx_disk_of DEV: the disk below the PCI device DEV, at any depth (a USB
# disk is below the host controller's root hub and port, an SD card below
# the mmc host, an AHCI disk below its ata port)
mx_disk_of() {
	_b=$(find "$SYS/$1/" -mindepth 2 -maxdepth 12 \( -path '*/block/*' \
		\( -name 'sd[a-z]' -o -name 'vd[a-z]' -o -name 'mmcblk[0-9]' \) \) -o \
		\( -path '*/nvme/nvme*' -name 'nvme*n1' \) 2>/dev/null | head -n 1)
	[ -n "$_b" ] || return 1
	basename "$_b"
}

# mx_disk NAME PE DEV DRIVER SECTORS: a disk controller with a reader's
# O_DIRECT reads running; the disk (the new one after a rescan) read back
# whole afterwards
mx_disk() {
	mx_n=$1 mx_pe=$2 mx_dev=$3 mx_drv=$4 mx_sec=$5
	CLEANUP_PES=$mx_pe
	require_normal "$mx_pe"
	bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev is bound to '$(driver_of "$mx_dev")', not $mx_drv"
	wait_until 30 mx_disk_of "$mx_dev" || fail "no disk below $mx_dev ($mx_drv)"
	disk=$(mx_disk_of "$mx_dev")
	ok "the disk of $mx_dev ($mx_drv) is /dev/$disk"
	pd_begin "$mx_pe" "$mx_dev"
	blk_start "$mx_n" "$disk" --read 0 "$mx_sec" --interval 20
	sleep 3
	mx_recover "$mx_pe" "$mx_dev"
	sleep 3
	blk_stop "$mx_n" 60
	[ "$bk_hung" = 0 ] || fail "the reader's I/O is stuck after the recovery (blkpat did not stop within 60 s)"
	blk_stats "$mx_n" "$INJ_T0" "$INJ_T1"
	wait_until 30 bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev not bound to $mx_drv after the recovery (driver $(driver_of "$mx_dev"))"
	wait_until 30 mx_disk_of "$mx_dev" || fail "no disk below $mx_dev after the recovery"
	mx_d=$(mx_disk_of "$mx_dev")
	mx_ver=yes
	run "$BLKPAT" check "/dev/$mx_d" 0 "$mx_sec"
	[ "$rc" = 0 ] || mx_ver=NO
	mx_row "$mx_dev" "$mx_drv" "$handlers" "$mx_path" "$(ms "$fin_usec")" \
		"reads $bk_before" "$bk_during" "$bk_after" \
		"wrong bytes: $bk_bad; /dev/$mx_d read back $([ "$rc" = 0 ] && echo right || echo WRONG)" "$mx_ver"
	expect "reads that returned wrong bytes" "$bk_bad" 0
	[ "$mx_ver" = yes ] || fail "/dev/$mx_d does not hold the pattern after the recovery"
	ok "$mx_dev ($mx_drv) recovered ($mx_path); /dev/$mx_d holds the whole pattern"
	pcierrd_stop
}

# mx_class_of DEV GLOB: the class devices below DEV matching GLOB (a path
# relative to it: sound/card*, tty/ttyS*, watchdog/watchdog*), names
mx_class_of() {
	for _c in "$SYS/$1"/$2; do
		[ -e "$_c" ] && basename "$_c"
	done
}
# ... or, where a scenario names MX_CLASS_OF, that function's (the same
# arguments): for class devices that are not below their PCI device
mx_classes() { "${MX_CLASS_OF:-mx_class_of}" "$@"; }
mx_has_class() { [ -n "$(mx_classes "$1" "$2")" ]; }

# mx_io_loop KIND ARG: in the background until killed, one line per
# operation ("ok" or "err") into $TMP/mxio, with the guest time:
#   tty ttySN    write a line to /dev/ttySN (a null chardev behind it)
#   rng -        read 16 bytes from /dev/hwrng
mx_io_loop() {
	: > "$TMP/mxio"
	(
		while :; do
			_t=$(now_ns)
			case $1 in
			tty) timeout 3 sh -c "echo pcierr > /dev/$2" 2>/dev/null ;;
			rng) [ "$(timeout 3 dd if=/dev/hwrng bs=16 count=1 2>/dev/null | wc -c)" = 16 ] ;;
			esac && echo "$_t ok" >> "$TMP/mxio" || echo "$_t err" >> "$TMP/mxio"
			sleep 0.2
		done
	) > /dev/null 2>&1 &
	MX_IO_PID=$!
	BG_PIDS="$BG_PIDS $MX_IO_PID"
}

# mx_io_stats T0 T1: "ok/done" of the operations started before T0,
# between, after T1: $io_before $io_during $io_after
mx_io_stats() {
	kill "$MX_IO_PID" 2>/dev/null
	wait "$MX_IO_PID" 2>/dev/null
	_r=$(awk -v t0="$1" -v t1="$2" '{ p = $1 < t0 ? 1 : ($1 < t1 ? 2 : 3); n[p]++; if ($2 == "ok") o[p]++ }
		END { printf "%d/%d %d/%d %d/%d\n", o[1], n[1], o[2], n[2], o[3], n[3] }' "$TMP/mxio")
	# shellcheck disable=SC2086 # the fields
	set -- $_r
	io_before=$1 io_during=$2 io_after=$3
	echo "  I/O: before $io_before, during $io_during, after $io_after ok"
}

# mx_class NAME PE DEV DRIVER GLOB IO [KNOWN]: a device whose function is
# its class devices (GLOB below it, mx_class_of), with I/O of kind IO (tty,
# rng, or - for none) running; verified when the class devices are back
# (and the I/O works again). KNOWN: the reason why this device is known to
# come back dead today: its row says NO and the scenario asserts exactly
# that (so that it fails once the device comes back, or is escalated).
mx_class() {
	mx_n=$1 mx_pe=$2 mx_dev=$3 mx_drv=$4 mx_glob=$5 mx_io=$6 mx_known=${7:-}
	CLEANUP_PES=$mx_pe
	require_normal "$mx_pe"
	wait_until 20 bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev is bound to '$(driver_of "$mx_dev")', not $mx_drv"
	wait_until 30 mx_has_class "$mx_dev" "$mx_glob" || fail "$mx_dev ($mx_drv) has no $mx_glob"
	mx_before=$(mx_classes "$mx_dev" "$mx_glob" | tr '\n' ' ' | sed 's/ $//')
	ok "$mx_dev ($mx_drv): $mx_before"
	pd_begin "$mx_pe" "$mx_dev"
	case $mx_io in
	tty) mx_io_loop tty "$(mx_classes "$mx_dev" "$mx_glob" | head -n 1)" ;;
	rng) mx_io_loop rng - ;;
	esac
	sleep 2
	mx_recover "$mx_pe" "$mx_dev"
	wait_until 20 bound_to "$mx_dev" "$mx_drv" || fail "$mx_dev not bound to $mx_drv after the recovery (driver $(driver_of "$mx_dev"))"
	mx_ver=yes
	wait_until 20 mx_has_class "$mx_dev" "$mx_glob" || mx_ver=NO
	mx_after=$(mx_classes "$mx_dev" "$mx_glob" | tr '\n' ' ' | sed 's/ $//')
	io_before=- io_during=- io_after=-
	if [ "$mx_io" != - ]; then
		sleep 3
		mx_io_stats "$INJ_T0" "$INJ_T1"
		case $io_after in 0/*) mx_ver=NO ;; esac
	fi
	mx_func="${mx_glob%%/*}: ${mx_before:--} -> ${mx_after:-none}"
	[ "$mx_ver" = NO ] && [ -n "$mx_known" ] && mx_ver="NO ($mx_known)"
	mx_row "$mx_dev" "$mx_drv" "$handlers" "$mx_path" "$(ms "$fin_usec")" \
		"$io_before" "$io_during" "$io_after" "$mx_func" "$mx_ver"
	if [ -n "$mx_known" ]; then
		[ "$mx_ver" != yes ] || fail "$mx_dev ($mx_drv) is known to come back dead ($mx_known), but it works: update this scenario and docs/drivers.md"
		ok "$mx_dev ($mx_drv): pcierrd says recovered, but its function did not come back ($mx_func): shown as not verified ($mx_known)"
	else
		[ "$mx_ver" = yes ] || fail "$mx_dev ($mx_drv) recovered but its function did not come back: $mx_func, I/O after $io_after"
		ok "$mx_dev ($mx_drv) recovered ($mx_path), $mx_func"
	fi
	pcierrd_stop
}

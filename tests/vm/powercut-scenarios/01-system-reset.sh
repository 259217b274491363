#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Power cut during state writes, the VM-reset half (issue 11 point 9).
# Runs in `tests/vm/run --topology powercut` (make vm-powercut-check): one
# QEMU without -no-reboot, pcierrd's state directory on an ext4 virtio disk
# (STATE_DISK, topology-powercut.extra). The guest runner runs this script
# in every boot; the boot number is kept in the results share
# (PCIERR_OUT/powercut/boot), which, like everything this script records
# there, is written through to the host at once and outlives a reset.
#
# Boots 1..RESETS (a workload, then a reset): pcierrd runs with its state
# on the disk; testdev A and B are injected freezes in a loop (each
# recovery writes freeze records with synchronous=FULL and history), and
# after each round a second process (sqlite3 -readonly) reads what is
# committed: every identity's freeze count and the history's rows, in one
# read transaction. Before each injection the number of injections so far
# is recorded. At a random round (2-4), one card's callback of a step held
# by the test driver (error_detected, slot_reset, resume in boots 1, 2, 3)
# and the other's delayed at random (0-399 ms per callback), a random time
# (0.1-0.9 s) after that round's injections, the guest asks the host to
# `system_reset` (tests/vm/run's monitor relay) and goes on injecting and
# reading until the reset lands. After the reboot, pcierrd's log of the
# boot before must show the held card's recovery under way.
#
# Boots 2..RESETS+1 (checks first): the image's journal is replayed by the
# mount, then `e2fsck -fn` must find it clean; `PRAGMA integrity_check`
# says ok; every identity's committed freeze count is at least the last
# one read before the reset (committed = seen by another process: pcierrd
# commits freeze records with synchronous=FULL, and in WAL mode SQLite
# syncs the log before a commit becomes visible, so what was seen is on
# the disk); the total is at most the injections made before the reset
# (none counted twice); the history's rows are at least those seen
# before a later commit that raised a count (history-only batches are
# synchronous=NORMAL: the tail after the last FULL commit may go) and
# their ids are contiguous. pcierrd starts on the database (not moved
# aside as corrupt) and its FreezeCount properties say the same.
# Freezes acted on but not committed at the reset are lost: the reset
# also resets the devices and the kernel's state, so there is nothing to
# re-derive them from (docs/reliability.md, point 9).
#
# The last boot: after the checks, three recoveries one after another:
# each FreezeCount goes up by exactly one and, pcierrd stopped, so does the
# database; the file system is clean after the unmount.
# shellcheck source=tests/vm/lib.sh

PC=${PCIERR_OUT:?}/powercut
RESETS=3

# This script's own log of each boot (the runner keeps only the last
# boot's): the boot counted, and the script run again under tee.
if [ -z "${PC_BOOT:-}" ]; then
	mkdir -p "$PC"
	n=$(cat "$PC/boot" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" > "$PC/boot"
	# answers of the relay to the reset request of the boot before
	rm -f "$PCIERR_OUT"/monitor/*.resp
	# the earlier boots' logs, into the runner's log only
	i=1
	while [ "$i" -lt "$n" ]; do
		echo "=== boot $i (its log: $PC/boot.$i.log)"
		sed 's/^/  /' "$PC/boot.$i.log"
		i=$((i + 1))
	done
	{
		PC_BOOT=$n sh "$0"
		echo $? > /tmp/powercut.rc
	} 2>&1 | tee "$PC/boot.$n.log"
	exit "$(cat /tmp/powercut.rc 2>/dev/null || echo 1)"
fi

. "$VM_LIB"
# shellcheck source=tests/vm/guest/klog.sh
. "$PCIERR_TREE/tests/vm/guest/klog.sh"
N=$PC_BOOT
A=$TESTDEV_A
B=$TESTDEV_B
CLEANUP_PES="$RP_TESTDEV_A $RP_TESTDEV_B"
MNT=/run/pcierr-powercut
PD_STATE=$MNT/state
DB=$PD_STATE/state.db
ISSUED=$PC/issued
OBS=$PC/obs

echo "=== boot $N of $((RESETS + 1))"
[ "$N" -le $((RESETS + 1)) ] || fail "boot $N: more boots than the $RESETS resets asked for"
if [ "$N" -gt 1 ]; then
	[ -f "$PC/reset.$((N - 1))" ] ||
		fail "boot $N: boot $((N - 1)) asked for no reset: the VM rebooted by itself (a panic? console.log)"
	echo "  reset asked for: $(cat "$PC/reset.$((N - 1))")"
fi

# rand N: a number in 0..N-1
rand() { echo $(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1 )); }

# the last complete line of FILE that starts with WORD (its fields after
# WORD, without the closing "end"), for the boot BOOT if given
last_rec() {
	awk -v w="$1" -v b="${3:-}" '$1 == w && $NF == "end" && (b == "" || $2 == b) { l = $0 }
		END { sub(/^[^ ]* /, "", l); sub(/ end$/, "", l); print l }' "$2" 2>/dev/null
}

# --- the disk ---------------------------------------------------------------
run modprobe virtio_blk
run modprobe ext4
DISK=
find_disk() {
	for _b in /sys/block/vd*; do
		[ -e "$_b/serial" ] || continue
		[ "$(cat "$_b/serial")" = pcierr-state ] && DISK=/dev/${_b##*/}
	done
	[ -n "$DISK" ] && [ -b "$DISK" ]
}
wait_until 10 find_disk || fail "no virtio disk with serial pcierr-state (STATE_DISK $STATE_DISK)"
ok "state disk $DISK ($STATE_DISK)"
mkdir -p "$MNT"
if [ "$N" -gt 1 ]; then
	# the mount replays the journal of the reset file system
	_l=$(dmesg | wc -l)
	run mount -t ext4 "$DISK" "$MNT"
	[ "$rc" = 0 ] || fail "cannot mount $DISK after the reset"
	dmesg | tail -n +$((_l + 1)) | grep 'EXT4-fs' | sed 's/^/  kernel: /'
	run umount "$MNT"
	[ "$rc" = 0 ] || fail "cannot unmount $DISK"
fi
run e2fsck -fn "$DISK"
[ "$rc" = 0 ] || fail "e2fsck -fn $DISK: status $rc (the file system is not clean)"
ok "e2fsck: $DISK clean"
run mount -t ext4 "$DISK" "$MNT"
[ "$rc" = 0 ] || fail "cannot mount $DISK"

# --- what is committed ----------------------------------------------------
# one read transaction: history rows, lowest and highest id, the total of
# the freeze counts, then IDENTITY=COUNT per identity
OBS_SQL="SELECT (SELECT COUNT(*) FROM history) || ' ' ||
 (SELECT COALESCE(MIN(id), 0) FROM history) || ' ' ||
 (SELECT COALESCE(MAX(id), 0) FROM history) || ' ' ||
 (SELECT COALESCE(SUM(count), 0) FROM freeze) ||
 COALESCE((SELECT ' ' || group_concat(identity || '=' || count, ' ')
  FROM (SELECT identity, count FROM freeze ORDER BY identity)), '');"
# db_read [-readonly]: that line
db_read() {
	sqlite3 "$@" -cmd '.timeout 10000' "$DB" "$OBS_SQL" 2>&1
}
# count_of IDENTITY LINE: its count in a db_read line (0 if absent)
count_of() {
	printf '%s\n' "$2" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { c = $2 } END { print c + 0 }'
}
# ids_of LINE: the identities in a db_read line
ids_of() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n 's/=.*//p'
}

SUMMARY=$PC/summary
if [ "$N" -gt 1 ]; then
	P=$((N - 1))
	info "checks after reset $P"
	[ -f "$DB" ] || fail "no $DB after the reset"
	ls -la "$PD_STATE" | sed 's/^/  | /'
	# the recoveries under way at the reset, by pcierrd's log of the
	# boot before (stderr, unbuffered, written through to the host)
	[ -f "$PD_LOG" ] || fail "no pcierrd log $PD_LOG"
	echo "  pcierrd's last log lines before the reset:"
	tail -n 8 "$PD_LOG" | sed 's/^/  | /'
	open=$(awk '/^=== pcierrd/ { delete o }
		/: recovery started / { s = $3; sub(/:$/, "", s); o[s] = 1 }
		/ recovered in | was not recovered / { delete o[$3] }
		END { for (s in o) printf "%s ", s }' "$PD_LOG")
	echo "  recoveries under way at the reset: ${open:-none}"
	held=$(cat "$PC/held.$P")
	case " $open" in
	*" $held "*) ok "the reset landed in the recovery of $held" ;;
	*) fail "the reset did not land in the recovery of $held (held by the test driver)" ;;
	esac
	# (read-write, as pcierrd opens it: the first opener recovers the WAL)
	run sqlite3 -cmd '.timeout 10000' "$DB" 'PRAGMA integrity_check;'
	expect "integrity_check after reset $P" "$out" ok
	now=$(db_read) || fail "cannot read the database: $now"
	seen=$(last_rec obs "$OBS" "$P")
	issued=$(last_rec issued "$ISSUED")
	issued=${issued:-0}
	[ -n "$seen" ] || fail "boot $P recorded no reading of the database"
	seen=${seen#* * }	# boot and round
	echo "  committed before the reset (last read): $seen"
	echo "  on the disk after the reset:            $now"
	echo "  injections before the reset: $issued"
	set -- $now
	h=$1 hmin=$2 hmax=$3 total=$4
	set -- $seen
	h_seen=$1 total_seen=$4
	for id in $(ids_of "$seen"); do
		c0=$(count_of "$id" "$seen")
		c1=$(count_of "$id" "$now")
		[ "$c1" -ge "$c0" ] ||
			fail "reset $P: the freeze count of $id went down from $c0 (committed) to $c1"
		ok "$id: $c1 >= $c0 committed"
	done
	[ "$total" -ge "$total_seen" ] || fail "reset $P: total $total < committed $total_seen"
	[ "$total" -le "$issued" ] ||
		fail "reset $P: $total freezes counted after $issued injections: counted twice"
	ok "total $total: committed $total_seen <= $total <= $issued injected"
	# history: what was seen before a later commit that raised a count
	# was synced by that commit
	h_sync=$(awk -v b="$P" '$1 == "obs" && $2 == b && $NF == "end" {
			n++; h[n] = $4; t[n] = $7 }
		END { m = 0; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (t[j] > t[i] && h[i] > m) m = h[i]; print m }' "$OBS")
	[ "$h" -ge "$h_sync" ] ||
		fail "reset $P: $h history rows, fewer than the $h_sync seen before a later FULL commit"
	if [ "$h" -gt 0 ]; then
		[ $((hmax - hmin + 1)) = "$h" ] ||
			fail "reset $P: history ids $hmin..$hmax for $h rows: not contiguous"
	fi
	ok "history: $h rows (ids $hmin..$hmax contiguous; >= $h_sync synced; $h_seen seen last)"
	echo "reset $P: $(cat "$PC/reset.$P"); committed $total_seen (history $h_seen) seen last;" \
		"after: $total (history $h); in flight and lost: $((issued - total));" \
		"recoveries under way: $open" >> "$SUMMARY"
	BASE=$now
elif [ -f "$DB" ]; then
	fail "boot 1: $DB exists on the fresh disk"
else
	BASE="0 0 0 0"
fi

# --- pcierrd on the disk ---------------------------------------------------
require_normal "$RP_TESTDEV_A" "$RP_TESTDEV_B"
td_defaults
command -v sqlite3 >/dev/null || fail "no sqlite3 (scripts/install-deps)"
# (MaxFreezes: many rounds on two cards; the default 5 an hour disables)
pd_conf "[Policy]
MaxFreezes=100000"
pcierrd_start
bus_objects "$RP_TESTDEV_A" "$A"
bus_objects "$RP_TESTDEV_B" "$B"
for f in "$PD_STATE"/state.db.corrupt*; do
	[ -e "$f" ] && fail "pcierrd moved the database aside as corrupt: $f"
done
set -- $BASE
base_total=$4
fa=$(dev_prop "$A" FreezeCount)
fb=$(dev_prop "$B" FreezeCount)
expect "FreezeCount A + B (D-Bus) against the database" "$((fa + fb))" "$base_total"

if [ "$N" -le "$RESETS" ]; then
	# --- the workload and the reset ---------------------------------------
	# The reset round: one card's callback of a step held (so that the
	# reset surely lands in its recovery; the step differs from boot to
	# boot), the other's callbacks delayed at random (so that it lands
	# at a random point of that one), and the reset asked for a random
	# time after the round's injections.
	K=$((2 + $(rand 3)))
	case "$N" in
	1) H=$A HRP=$RP_TESTDEV_A O=$B hold=error_detected ;;
	2) H=$B HRP=$RP_TESTDEV_B O=$A hold=slot_reset ;;
	*) H=$A HRP=$RP_TESTDEV_A O=$B hold=resume ;;
	esac
	delay=0.$((100 + $(rand 800)))
	d_ed=$(rand 400) d_sr=$(rand 400) d_re=$(rand 400)
	info "reset asked for in round $K, ${delay}s after its injections;" \
		"$H holds $hold, $O's callbacks take $d_ed/$d_sr/$d_re ms"
	issued=$(last_rec issued "$ISSUED")
	issued=${issued:-0}
	prev=$BASE
	r=0
	t_reset=
	while :; do
		r=$((r + 1))
		if [ "$r" = "$K" ]; then
			klog_scan "$PC/kernel-log.$N" ||
				fail "the kernel log has reports before the reset: $(head -n 40 "$PC/kernel-log.$N")"
		fi
		if [ "$r" = "$K" ]; then
			td_set "$H" "delay_$hold" hang
			td_set "$O" delay_error_detected "$d_ed"
			td_set "$O" delay_slot_reset "$d_sr"
			td_set "$O" delay_resume "$d_re"
		fi
		for d in "$A" "$B"; do
			issued=$((issued + 1))
			echo "issued $issued end" >> "$ISSUED"
			bus_call Inject ssu "$d" frozen 0 > /dev/null
			[ "$rc" = 0 ] || echo "  (Inject $d: busctl status $rc: $out)"
		done
		if [ "$r" = "$K" ]; then
			sleep "$delay"
			echo "round $r, ${delay}s after its injections, $issued injected;" \
				"$H held in $hold, $O's callbacks $d_ed/$d_sr/$d_re ms" > "$PC/reset.$N"
			echo "$HRP" > "$PC/held.$N"
			echo "+ (qemu) system_reset, in the background ($(date +%T.%N))"
			(
				trap - EXIT INT TERM
				qemu_monitor system_reset
			) > "$PC/monitor.$N" 2>&1 &
			t_reset=$(date +%s)
		fi
		o=$(db_read -readonly) || fail "round $r: cannot read the database: $o"
		echo "obs $N $r $o end" >> "$OBS"
		echo "  round $r: $issued injected; committed: $o"
		for id in $(ids_of "$prev"); do
			[ "$(count_of "$id" "$o")" -ge "$(count_of "$id" "$prev")" ] ||
				fail "round $r: the committed count of $id went down ($prev -> $o)"
		done
		prev=$o
		if [ -n "$t_reset" ] && [ $(( $(date +%s) - t_reset )) -gt 90 ]; then
			fail "no reset 90 s after system_reset was asked for: $(cat "$PC/monitor.$N")"
		fi
	done
fi

# --- the last boot: recoveries count on -------------------------------------
info "three recoveries on the database that survived $RESETS resets"
sig_start
for d in "$A" "$B" "$A"; do
	case "$d" in
	"$A") rp=$RP_TESTDEV_A ;;
	*) rp=$RP_TESTDEV_B ;;
	esac
	c0=$(dev_prop "$d" FreezeCount)
	sig_mark
	must_call Inject ssu "$d" frozen 0
	finish_of "$rp" 60
	expect "recovery of $d" "$fin_result" recovered
	expect "FreezeCount of $d" "$(dev_prop "$d" FreezeCount)" $((c0 + 1))
done
pcierrd_stop
run sqlite3 -cmd '.timeout 10000' "$DB" 'PRAGMA integrity_check;'
expect "integrity_check at the end" "$out" ok
end=$(db_read) || fail "cannot read the database: $end"
set -- $end
expect "committed freeze total at the end" "$4" $((base_total + 3))
run umount "$MNT"
[ "$rc" = 0 ] || fail "cannot unmount $DISK"
run e2fsck -fn "$DISK"
[ "$rc" = 0 ] || fail "e2fsck -fn $DISK at the end: status $rc"
echo "=== summary"
cat "$SUMMARY"
echo "end: committed $4 freezes, $(last_rec issued "$ISSUED") injected before the last boot, 3 in it"

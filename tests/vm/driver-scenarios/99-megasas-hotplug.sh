#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 360
#
# Driver suite 99: megaraid_sas (no handlers) with disk reads running: the
# full hotplug fallback, and another slot recovered while megaraid_sas's
# removal waits (issue 8 point 1).
#
# With a reader's I/O in flight the freeze loses a command: megaraid_sas's
# remove() waits in scsi_remove_host() until its own timeouts give that
# command up (docs/drivers.md, "99-megasas-hotplug"): 2 x scmd_timeout,
# then its host reset waits resetwaittime. With the defaults (90 s, 180 s)
# that is minutes; here megaraid_sas is loaded again with the smallest it
# accepts (scmd_timeout=10 resetwaittime=1), so that the scenario sees the
# whole recovery in well under the step timeout it gives pcierrd (120 s).
#
#   A reader (blkpat loop, O_DIRECT) on the megasas disk; `pcierr-nl
#   inject` freezes the slot while pcierrd is stopped for 2 s (so that a
#   read is posted to the frozen card and lost); then RecoveryStarted
#   full-hotplug. While its
#   remove step still waits in the driver (checked before and after), the
#   rtl8139 slot (8139cp, no handlers: full hotplug too, REMOVE and
#   RESCAN under the PCI rescan/remove lock) is frozen and recovered: it
#   must finish within 30 s, before megaraid_sas's removal does. The shim
#   detaches drivers outside that global lock, so a driver that waits in
#   remove() holds up its own slot only. Then the megasas slot recovers
#   (steps remove, wait_udev, reset, rescan); the reader's reads fail
#   visibly once the disk is gone (never wrong bytes); megaraid_sas binds
#   the new device by itself, its new disk holds the pattern, all of it.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
PE=$RP_MEGASAS
DEV=$MEGASAS
PE2=$RP_RTL
DEV2=$RTL
CLEANUP_PES="$PE $PE2"
require_normal "$PE" "$PE2"

run rmmod megaraid_sas
[ "$rc" = 0 ] || fail "rmmod megaraid_sas failed"
run modprobe megaraid_sas scmd_timeout=10 resetwaittime=1
[ "$rc" = 0 ] || fail "modprobe megaraid_sas scmd_timeout=10 resetwaittime=1 failed"
expect "megaraid_sas scmd_timeout" "$(cat /sys/module/megaraid_sas/parameters/scmd_timeout)" 10
wait_until 30 bound_to "$DEV" megaraid_sas || fail "$DEV not bound to megaraid_sas after its reload"
disk_ready "$DEV" megaraid_sas

# That wait is megaraid_sas's own (about 70 s here, in its remove()): the
# runner's 30 s hung-task bound would report it; the kernel's default is
# 120 s. Every other report still fails the run.
HUNG=/proc/sys/kernel/hung_task_timeout_secs
hung0=$(cat "$HUNG")
echo 150 > "$HUNG"

pd_conf "[Policy]
StepTimeoutSec=120"
pd_begin "$PE" "$DEV"
bus_objects "$PE2" "$DEV2"
handlers2=$(handlers_of "$DEV2")
blk_start megasas "$disk" --read 0 "$DISK_MEGASAS_SECTORS" --interval 20
sleep 3
# The freeze must catch a command in flight: pcierrd is stopped for 2 s
# around the injection (a daemon slow to act, as under load), so the
# reader posts reads to the frozen card, and one is lost for sure.
sig_mark
INJ_T0=$(now_ns)
kill -STOP "$PD_PID"
must_nl inject "$DEV"
sleep 2
kill -CONT "$PD_PID"
must_signal 30 RecoveryStarted "\"$PE\""
rec_mode=$(sig_arg "$sig" 2)
expect "RecoveryStarted mode" "$rec_mode" full-hotplug

# megaraid_sas's removal: waiting for its lost command, or not
in_remove() { [ "$(slot_prop "$PE" Step 2>/dev/null)" = remove ]; }
wait_until 30 in_remove || fail "the megasas slot never reached its remove step (Step $(slot_prop "$PE" Step 2>/dev/null))"
sleep 3
in_remove || fail "megaraid_sas's removal ended within 3 s: the freeze lost no command, so this run cannot show that another slot recovers beside it"
ok "megaraid_sas's removal is waiting in the driver (Step remove for more than 3 s)"

T2=$(now_ns)
echo "+ pcierrctl --no-pager inject --timeout=60 $DEV2"
"$PCIERRCTL" --no-pager inject --timeout=60 "$DEV2" > "$TMP/inject2.out" 2>&1
rc2=$?
t2_ms=$(( ($(now_ns) - T2) / 1000000 ))
sed 's/^/  | /' "$TMP/inject2.out"
expect "pcierrctl inject $DEV2 exit status" "$rc2" 0
[ "$t2_ms" -le 30000 ] || fail "the rtl8139 slot took $t2_ms ms to recover beside the megasas removal (bound 30 s)"
in_remove || fail "megaraid_sas's removal ended before the rtl8139 slot recovered: nothing shown"
ok "the rtl8139 slot recovered in $t2_ms ms while megaraid_sas's removal still waited"
wait_until 20 bound_to "$DEV2" 8139cp || fail "$DEV2 not rebound to 8139cp (driver $(driver_of "$DEV2"))"
row "$DEV2" 8139cp "$handlers2" "full hotplug beside a stuck removal" "$t2_ms ms (pcierrctl)" - - \
	"rebound to 8139cp" "megasas's removal still waiting"

if ! wait_signal 150 RecoveryFinished "\"$PE\""; then
	echo "-- steps so far: $(steps_since "$PE"); slot Step: $(slot_prop "$PE" Step 2>/dev/null)"
	echo "-- blocked tasks:"
	echo w > /proc/sysrq-trigger 2>/dev/null
	CLEANUP_PES=$PE2
	fail "no RecoveryFinished for $PE within 150 s of the rtl8139's recovery (megaraid_sas's removal is stuck, see the blocked tasks above)"
fi
fin_result=$(sig_arg "$sig" 2)
fin_usec=$(sig_arg "$sig" 3)
INJ_T1=$(now_ns)
echo "  steps: $(steps_since "$PE")"
dmesg | grep -i 'megaraid_sas\|megasas' | tail -n 8 | sed 's/^/  | /'
expect "RecoveryFinished" "$fin_result" recovered
expect "steps" "$(step_names "$PE")" "remove wait_udev reset rescan"
wait_until 30 bound_to "$DEV" megaraid_sas || fail "$DEV not rebound to megaraid_sas (driver $(driver_of "$DEV"))"
wait_until 30 disk_of "$DEV" || fail "no disk below the rescanned $DEV"
back_ms=$(( ($(now_ns) - INJ_T1) / 1000000 ))
new=$(disk_of "$DEV")
ok "$DEV rebound to megaraid_sas, its disk back as /dev/$new $back_ms ms after RecoveryFinished"
blk_stop megasas 60
[ "$bk_hung" = 0 ] || fail "the reader's I/O on the removed disk is stuck (blkpat did not stop within 60 s)"
blk_stats megasas "$INJ_T0" "$INJ_T1"
expect "reads that returned wrong bytes" "$bk_bad" 0
run "$BLKPAT" check "/dev/$new" 0 "$DISK_MEGASAS_SECTORS"
[ "$rc" = 0 ] || fail "/dev/$new does not hold the pattern after the hotplug"
row "$DEV" megaraid_sas "$handlers" "full hotplug, a command lost" "$(ms "$fin_usec")" \
	"reads $bk_before" "$bk_during" "disk back as /dev/$new +$back_ms ms" \
	"wrong bytes: $bk_bad; new disk all right"
pcierrd_stop
echo "$hung0" > "$HUNG"

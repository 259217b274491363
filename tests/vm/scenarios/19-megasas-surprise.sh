#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 19: the full hotplug fallback on a frozen megasas (megaraid_sas:
# no err_handler, a remove() that talks to the firmware), whose scsi-hd
# holds known contents (tests/vm/run writes $PCIERR_OUT/megasas.img).
#   the disk reads the image's bytes; inject (frozen); error_detected
#   (none: no callbacks); REMOVE is a surprise removal: the shim marks the
#   frozen card disconnected first ("marked disconnected" in the kernel
#   log); megaraid_sas (6.1) does not look and flushes its cache and shuts
#   the firmware down in remove(), so the card, which still answers config
#   reads, gets its freeze lifted for the teardown ("still answer" in the
#   log) and the removal completes (figure in the log) instead of waiting
#   180 s per firmware command a frozen card never completes; RESET; RESCAN
#   binds megaraid_sas again and the disk reads the same bytes.
#   Meanwhile a partial hotplug recovery of the mixed PE (error_detected,
#   remove --device, reset, slot_reset, resume, rescan), started with the
#   megasas REMOVE, completes on its own.
#   Then a second freeze of a RESCAN-ed device (the pci-testdev of
#   TESTDEV_B after remove/rescan): RESET restores its BARs and command
#   register from the snapshot taken after the rescan (review D2), and
#   its driver sees error_detected, slot_reset, resume.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_MEGASAS
DEV=$MEGASAS
IMG=${PCIERR_OUT:?}/megasas.img
CLEANUP_PES="$PE $MIXED_BRIDGE $RP_TESTDEV_B"
require_normal "$PE" "$MIXED_BRIDGE" "$RP_TESTDEV_B"
td_defaults

# the block device of the megasas' disk (sdX)
disk_of() {
	for _b in "$SYS/$DEV"/host*/target*/*/block/*; do
		[ -e "$_b" ] || continue
		basename "$_b"
		return 0
	done
	return 1
}
disk_reads_image() {
	_d=$(disk_of) || return 1
	[ -b "/dev/$_d" ] || return 1
	dd if="/dev/$_d" bs=64k count=64 iflag=direct 2>/dev/null | cmp -s - "$IMG"
}

bound_to "$DEV" megaraid_sas || fail "$DEV is not bound to megaraid_sas at the start (driver $(driver_of "$DEV"))"
wait_until 20 disk_of || fail "no disk below $DEV"
disk=$(disk_of)
disk_reads_image || fail "/dev/$disk does not read the contents of $IMG"
ok "/dev/$disk (on $DEV) reads the 4 MiB of $IMG"

info "the mixed PE's partial hotplug, in the background"
bound_to "$MIXED_TESTDEV" pcierr_test || fail "$MIXED_TESTDEV is not bound to pcierr_test"
td_clear "$MIXED_TESTDEV"
must_nl inject "$MIXED_TESTDEV"
other_log=$TMP/other.log
(
	set -e
	t0=$(now_ns)
	"$NL" report "$MIXED_BRIDGE" error_detected --state frozen
	"$NL" remove "$MIXED_BRIDGE" --device "$MIXED_EDU"
	"$NL" reset "$MIXED_BRIDGE"
	"$NL" report "$MIXED_BRIDGE" slot_reset
	"$NL" report "$MIXED_BRIDGE" resume
	"$NL" rescan "$MIXED_BRIDGE"
	echo "other-done ms=$(ms_between "$t0" "$(now_ns)")"
) > "$other_log" 2>&1 &
other=$!
BG_PIDS="$BG_PIDS $other"

info "freeze the megasas, full hotplug fallback"
klines=$(dmesg | wc -l)
must_nl inject "$DEV"
expect "PE state after inject" "$(pe_state "$PE")" frozen
report_expect "$PE" error_detected none --state frozen
t0=$(now_ns)
op remove "$PE"
t_remove=$(ms_between "$t0" "$(now_ns)")
expect "PE state after remove" "$(kv pe_state "$op")" removed
absent "$DEV" || fail "$DEV is still in $SYS after remove"
ok "REMOVE of the frozen megasas completed in $t_remove ms (guest time)"
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: 1 frozen devices marked disconnected" ||
	fail "no '$PE: pcierr: 1 frozen devices marked disconnected' in the kernel log"
ok "the card was marked disconnected before its removal"
dmesg | tail -n +"$((klines + 1))" | grep -q "$PE: pcierr: 1 of them still answer: freeze lifted for their drivers' teardown" ||
	fail "no '1 of them still answer: freeze lifted' in the kernel log"
ok "the card still answered: its freeze was lifted for megaraid_sas' teardown"
op reset "$PE"
t0=$(now_ns)
op rescan "$PE"
wait_until 30 bound_to "$DEV" megaraid_sas ||
	fail "$DEV did not come back bound to megaraid_sas (driver $(driver_of "$DEV"))"
wait_until 30 disk_reads_image ||
	fail "the disk below $DEV does not read the contents of $IMG after the rescan"
t_back=$(ms_between "$t0" "$(now_ns)")
ok "megaraid_sas bound again, /dev/$(disk_of) reads the same 4 MiB ($t_back ms after the rescan started)"
expect "PE state after rescan" "$(pe_state "$PE")" normal
expect "$DEV's channel state" "$(dev_state "$DEV")" normal

info "the mixed PE's recovery completed by itself"
wait_until 60 gone "$other" || fail "the mixed PE's recovery did not finish in 60 s: $(cat "$other_log")"
wait "$other" || fail "the mixed PE's recovery failed: $(cat "$other_log")"
sed 's/^/  | /' "$other_log"
grep -q "^other-done" "$other_log" || fail "the mixed PE's recovery did not complete"
ok "the mixed PE recovered alongside ($(sed -n 's/^other-done //p' "$other_log"))"
wait_until 10 bound_to "$MIXED_EDU" pcierr_test_unaware || fail "$MIXED_EDU did not come back bound"
expect "mixed PE state" "$(pe_state "$MIXED_BRIDGE")" normal
expect_calls "$MIXED_TESTDEV" "error_detected(frozen)=need_reset slot_reset=recovered resume"

info "a RESCAN-ed device recovers from a second freeze with its BARs"
TD=$TESTDEV_B
op remove "$RP_TESTDEV_B"
op rescan "$RP_TESTDEV_B"
wait_until 10 bound_to "$TD" pcierr_test || fail "$TD did not come back bound to pcierr_test"
bars() { od -An -tx4 -j16 -N24 "$SYS/$TD/config" | tr -s ' '; }
bars0=$(bars)
cmd0=$(cmdreg "$TD")
[ $((cmd0 & CMD_MEM)) != 0 ] || fail "$TD decodes no memory after the rescan (command $cmd0)"
td_clear "$TD"
must_nl inject "$TD"
[ $((  $(cmdreg "$TD") & CMD_MEM)) = 0 ] || fail "$TD still decodes memory while frozen"
report_expect "$RP_TESTDEV_B" error_detected need_reset --state frozen
op reset "$RP_TESTDEV_B"
expect "$TD's BARs after the reset" "$(bars)" "$bars0"
expect "$TD's command register after the reset" "$(cmdreg "$TD")" "$cmd0"
report_expect "$RP_TESTDEV_B" slot_reset recovered
op report "$RP_TESTDEV_B" resume
expect "PE state after resume" "$(pe_state "$RP_TESTDEV_B")" normal
expect_calls "$TD" "error_detected(frozen)=need_reset slot_reset=recovered resume"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 35: a switch whose cards are gone is still recovered.
#   The root port's PE of RP_SWITCH freezes (the testdev reports a failure
#   of the root port, report_upstream 3: the switch's three ports and both
#   cards frozen); then both cards (the testdev and the nvme) are removed
#   through sysfs, and the switch's ports stay, frozen. A RECOVER of the
#   PE (pcierr-nl recover) must not stop as GONE: the ports are devices of
#   the PE, still there, and pcieport answers for them (error_detected
#   need_reset, slot_reset recovered), so the RECOVER resets the subtree
#   and ends recovered with the PE normal, as err.c's walk over an empty
#   switch does. A RECOVER that counted only the cards (0 of 0 gone:
#   GONE) would leave the ports frozen, their decoding off, and a card
#   added below them would not work. Last, a rescan brings both cards
#   back: the testdev is bound and answers, the nvme reads its image.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
RP=$RP_SWITCH
TD=$SW_TESTDEV
NV=$NVME
IMG=${PCIERR_OUT:?}/nvme.img
CLEANUP_PES="$RP $SW_DOWN1 $SW_DOWN2"
# whatever happens, the cards come back for the next scenarios
# shellcheck disable=SC2016
CLEANUP_CMD='{ [ -e "$SYS/$TD" ] && [ -e "$SYS/$NV" ]; } || "$NL" rescan "$RP"'
require_normal "$RP" "$SW_DOWN1" "$SW_DOWN2"
td_defaults
bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test (driver $(driver_of "$TD"))"
bound_to "$NV" nvme || fail "$NV is not bound to nvme (driver $(driver_of "$NV"))"
io_want=$(cat "$SYS/$TD/io") || fail "cannot read $TD's io"
PORTS="$SW_UP $SW_DOWN1 $SW_DOWN2"
# before the freeze, to compare after the recovery
cmd0=
for d in $PORTS; do
	cmd0="$cmd0 $(cmdreg "$d")"
done

info "the root port's PE frozen, then both cards below the switch removed"
td_clear "$TD"
td_set "$TD" report_upstream 3
wait_until 10 sh -c "[ \"\$($NL pe $RP 2>/dev/null | head -n 1 | grep -o 'pe_state=[a-z_]*')\" = pe_state=frozen ]" ||
	fail "the root port's PE did not freeze"
for d in "$TD" "$NV"; do
	echo "+ echo 1 > $SYS/$d/remove"
	echo 1 > "$SYS/$d/remove" || fail "cannot remove $d"
	wait_until 30 absent "$d" || fail "$d is still in $SYS"
done
ok "$TD and $NV are gone; the switch's ports stay"
expect "root port PE state with the cards gone" "$(pe_state "$RP")" frozen
for d in $PORTS; do
	bound_to "$d" pcieport || fail "$d is not bound to pcieport (driver $(driver_of "$d"))"
done

dmesg_lines=$(dmesg | wc -l)
must_nl recover "$RP"
rd=$(line_with "recover_done " "$out")
[ -n "$rd" ] || fail "pcierr-nl recover printed no recover_done line"
expect "how the RECOVER of the emptied switch stopped" "$(kv stop "$rd")" recovered
expect "its steps" "$(kv steps "$rd")" "error_detected,reset,slot_reset,resume"
expect "its errno" "$(kv errno "$rd")" 0
expect "PE state in its end" "$(kv pe_state "$rd")" normal
dmesg | tail -n +"$((dmesg_lines + 1))" | grep -E 'pcierr|pcieport|pciehp' | sed 's/^/  | /'
expect "root port PE state" "$(pe_state "$RP")" normal
cmd1=
for d in $PORTS; do
	expect "$d's channel state" "$(dev_state "$d")" normal
	bound_to "$d" pcieport || fail "$d lost pcieport in the recovery"
	cmd1="$cmd1 $(cmdreg "$d")"
done
expect "the ports' command registers (as before the freeze)" "$cmd1" "$cmd0"
ok "the switch's ports were recovered, not left frozen"

info "the cards come back below the recovered switch"
op rescan "$RP"
wait_until 30 bound_to "$TD" pcierr_test ||
	fail "$TD did not come back bound to pcierr_test (driver $(driver_of "$TD"))"
wait_until 30 bound_to "$NV" nvme || fail "$NV did not come back bound to nvme (driver $(driver_of "$NV"))"
expect "$TD's io" "$(cat "$SYS/$TD/io")" "$io_want"
wait_until 60 nvme_reads "$NV" "$IMG" || fail "the nvme disk does not read $IMG after the rescan"
ok "the nvme reads the 4 MiB of $IMG again"
for d in "$TD" "$NV"; do
	expect "$d's channel state" "$(dev_state "$d")" normal
done
expect "PE state of $SW_DOWN1" "$(pe_state "$SW_DOWN1")" normal
expect "PE state of $SW_DOWN2" "$(pe_state "$SW_DOWN2")" normal
expect "root port PE state at the end" "$(pe_state "$RP")" normal

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 90
#
# Scenario 2: INJECT on the e1000e. The EVENT arrives with the right PE,
# device, state and sequence number (the next injection gets the next
# number); the device is really cut off (memory and I/O decode and bus
# mastering off in its command register); IOCHK sees the error, and sees
# none when nothing happened. Both PEs are recovered at the end.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
CLEANUP_PES="$RP_E1000E $RP_TESTDEV_B"
require_normal "$RP_E1000E" "$RP_TESTDEV_B"

before=$(cmdreg "$E1000E")
[ $((before & CMD_MEM)) != 0 ] || fail "e1000e memory decode is off before the test (command $before)"
ok "e1000e command register before: $(printf 0x%04x "$before") (memory decode on)"
freezes0=$(nl_stat freezes)

# IOCHK with nothing happening in between
must_nl iochk "$E1000E" -- true
expect "iochk around 'true'" "$(kv iochk "$(line_with iochk= "$out")")" 0

listen_start "$TMP/events" --count 2 --timeout 30

# IOCHK around the injection itself
must_nl iochk "$E1000E" -- "$NL" inject "$E1000E"
seq1=$(kv seq "$(line_with seq= "$out")")
n=$(kv iochk "$(line_with iochk= "$out")")
[ -n "$seq1" ] || fail "inject printed no seq="
[ -n "$n" ] && [ "$n" -ge 1 ] || fail "iochk around the injection is '$n', expected >= 1"
ok "iochk around the injection = $n, inject seq=$seq1"

# a second injection, elsewhere: the next sequence number
must_nl inject "$TESTDEV_B"
seq2=$(kv seq "$out")
expect "seq of the second injection" "$seq2" $((seq1 + 1))

listen_wait "$LPID" 20
sed 's/^/  | /' "$TMP/events"
[ "$rc" = 0 ] || fail "listen --count 2 exited $rc"
ev1=$(grep -m 1 "^event seq=$seq1 " "$TMP/events") || fail "no event with seq=$seq1"
ev2=$(grep -m 1 "^event seq=$seq2 " "$TMP/events") || fail "no event with seq=$seq2"
expect "event 1 pe" "$(kv pe "$ev1")" "$RP_E1000E"
expect "event 1 dev" "$(kv dev "$ev1")" "$E1000E"
expect "event 1 state" "$(kv state "$ev1")" frozen
expect "event 1 source" "$(kv source "$ev1")" inject
expect "event 2 pe" "$(kv pe "$ev2")" "$RP_TESTDEV_B"
expect "event 2 dev" "$(kv dev "$ev2")" "$TESTDEV_B"
expect "event 2 state" "$(kv state "$ev2")" frozen
[ "$(grep -c '^event ' "$TMP/events")" = 2 ] || fail "expected exactly 2 events"
if [ "$seq1" = 1 ]; then
	ok "first event of this module load has seq 1"
fi

# the device is cut off
c=$(cmdreg "$E1000E")
info "e1000e command register after inject: $(printf 0x%04x "$c")"
[ $((c & CMD_MEM)) = 0 ] || fail "memory decode still on after inject (command $(printf 0x%04x "$c"))"
[ $((c & CMD_MASTER)) = 0 ] || fail "bus mastering still on after inject (command $(printf 0x%04x "$c"))"
[ $((c & CMD_IO)) = 0 ] || fail "I/O decode still on after inject (command $(printf 0x%04x "$c"))"
ok "e1000e memory, I/O decode and bus mastering are off"
expect "PE $RP_E1000E state" "$(pe_state "$RP_E1000E")" frozen
expect "e1000e channel state" "$(dev_state "$E1000E")" frozen
expect "PE $RP_TESTDEV_B state" "$(pe_state "$RP_TESTDEV_B")" frozen
expect "freezes counted" "$(nl_stat freezes)" $((freezes0 + 2))

# the error generation moved
gen=$(kv gen "$(dev_line "$E1000E")")
[ "$gen" -ge 1 ] || fail "e1000e error generation is $gen after an injection"
ok "e1000e error generation = $gen"

# recover both (scenario 3 tests the e1000e path in detail)
report_expect "$RP_E1000E" error_detected need_reset --state frozen
op reset "$RP_E1000E"
report_expect "$RP_E1000E" slot_reset recovered
op report "$RP_E1000E" resume
report_expect "$RP_TESTDEV_B" error_detected need_reset --state frozen
op reset "$RP_TESTDEV_B"
report_expect "$RP_TESTDEV_B" slot_reset recovered
op report "$RP_TESTDEV_B" resume
expect "PE $RP_E1000E state after recovery" "$(pe_state "$RP_E1000E")" normal
expect "PE $RP_TESTDEV_B state after recovery" "$(pe_state "$RP_TESTDEV_B")" normal
expect_calls "$TESTDEV_B" "error_detected(frozen)=need_reset slot_reset=recovered resume"
c=$(cmdreg "$E1000E")
[ $((c & CMD_MEM)) != 0 ] || fail "e1000e memory decode off after recovery (command $(printf 0x%04x "$c"))"
[ $((c & CMD_MASTER)) != 0 ] || fail "e1000e bus mastering off after recovery (command $(printf 0x%04x "$c"))"
ok "e1000e command register after recovery: $(printf 0x%04x "$c") (memory decode, bus mastering on)"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# Scenario 50 (issue 21 points 1-2, review U3/U5): the kernel's own AER
# recoveries followed as EEH counts freezes, on a two-function e1000e
# card (multifunction=on) below its ioh3420 root port. The kernel's
# software injector (aer_inject) drives them.
#   a. ten non-fatal errors (Completion Timeout, uncorrectable status bit
#      14, non-fatal by the default severity) within about a minute: the
#      kernel recovers each (pci_channel_io_normal); pcierrd follows one
#      recovery per error, counts no freeze on either function, disables
#      nothing, records them (NonFatalErrors of the function 10); both
#      functions pass traffic afterwards (to each other, through one
#      QEMU hub).
#   b. then fatal errors (Surprise Down, bit 5): one freeze per error for
#      the card (both functions' FreezeCount 1..5, each recovered by the
#      kernel); the sixth disables the PE, the message names the whole
#      card (both functions).
# The figures (each recovery's duration, the counts) are printed.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_CARD
F0=$CARD_F0
F1=$CARD_F1
UDP_STREAM=${UDP_STREAM:-$BUILD/udp-stream}
CLEANUP_PES=$PE
CLEANUP_CMD='
	ip netns del ns_card 2>/dev/null
	rmmod aer_inject'
require_normal "$PE"
for f in "$F0" "$F1"; do
	wait_until 15 bound_to "$f" e1000e || fail "$f is not bound to e1000e at the start"
done
ok "$F0 and $F1 (one card) bound to e1000e"

# card_traffic WHEN: F1 in its own namespace echoes, F0 sends 10 UDP
# datagrams to it over the hub; every one must come back
card_traffic() {
	_e0=$(ls "$SYS/$F0/net" 2>/dev/null | head -n 1)
	_e1=$(ls "$SYS/$F1/net" 2>/dev/null | head -n 1)
	[ -n "$_e0" ] && [ -n "$_e1" ] || fail "no network interface on $F0/$F1 $1"
	ip netns add ns_card || fail "cannot make a network namespace"
	ip link set "$_e1" netns ns_card || fail "cannot move $_e1"
	ip addr add 10.77.0.1/24 dev "$_e0" && ip link set "$_e0" up &&
		ip netns exec ns_card ip addr add 10.77.0.2/24 dev "$_e1" &&
		ip netns exec ns_card ip link set "$_e1" up || fail "cannot configure $_e0/$_e1"
	wait_until 15 sh -c "[ \"\$(cat /sys/class/net/$_e0/carrier 2>/dev/null)\" = 1 ]" ||
		fail "$_e0 has no carrier $1"
	ip netns exec ns_card "$UDP_STREAM" echo 7777 > /dev/null 2>&1 &
	_echo=$!
	sleep 1
	timeout 30 "$UDP_STREAM" send 10.77.0.2 7777 50 10 > "$TMP/stream" 2>&1
	kill "$_echo" 2>/dev/null
	wait "$_echo" 2>/dev/null
	_got=$(grep -c '^r ' "$TMP/stream")
	ip addr flush dev "$_e0"
	ip link set "$_e0" down
	ip netns del ns_card
	# the interface comes back to the first namespace
	wait_until 10 sh -c "ls $SYS/$F1/net/ | grep -q ." || fail "$F1's interface did not come back"
	expect "datagrams echoed from $F1 to $F0 $1" "$_got" 10
}

card_traffic "before"
aer_inject_load

sig_start
pcierrd_start
bus_objects "$PE" "$F0"
bus_objects "$PE" "$F1"
expect_prop dev "$F0" FreezeCount 0
expect_prop dev "$F1" FreezeCount 0
expect_prop dev "$F0" NonFatalErrors 0
disables0=$(mgr_prop PermanentDisables)
resets0=$(nl_stat resets)

# one_error KIND MASK N: inject, wait for the PE's RecoveryFinished,
# print the figures
one_error() {
	klines=$(dmesg | wc -l)
	sig_mark
	_t0=$(date +%s%N)
	run "$AER_INJECT" -u "$2" "$F0"
	[ "$rc" = 0 ] || fail "aer-inject $1 $3 failed"
	finish_of "$PE" 60
	_t1=$(date +%s%N)
	started=$(sig_all RecoveryStarted "\"$PE\"" | wc -l)
	echo "  $1 $3: RecoveryFinished $fin_result in $fin_usec us" \
		"(injection to signal $(((_t1 - _t0) / 1000000)) ms), RecoveryStarted x$started," \
		"steps: $(steps_since "$PE")"
	dmesg | tail -n +"$((klines + 1))" | grep -E 'AER: device recovery|severity=' | sed 's/^/  | /'
	expect "$1 $3: one recovery per error" "$started" 1
}

info "a. ten non-fatal errors (Completion Timeout) in about a minute"
i=1
t_start=$(date +%s)
while [ $i -le 10 ]; do
	one_error non-fatal 0x4000 $i
	expect "non-fatal $i: RecoveryFinished" "$fin_result" recovered
	expect "non-fatal $i: pcierr's own steps" "$(steps_since "$PE")" ""
	i=$((i + 1))
done
echo "  ten non-fatal errors in $(($(date +%s) - t_start)) s"
expect_prop dev "$F0" FreezeCount 0
expect_prop dev "$F1" FreezeCount 0
wait_prop 10 dev "$F0" NonFatalErrors 10
expect_prop slot "$PE" Disabled false
expect_prop mgr - PermanentDisables "$disables0"
expect "shim: resets" "$(nl_stat resets)" "$resets0"
expect "shim: PE state" "$(pe_state "$PE")" normal
for f in "$F0" "$F1"; do
	wait_until 15 bound_to "$f" e1000e || fail "$f is not bound after the non-fatal errors"
done
card_traffic "after ten non-fatal errors"

info "b. fatal errors (Surprise Down) on the same card"
i=1
while [ $i -le 5 ]; do
	one_error fatal 0x20 $i
	expect "fatal $i: RecoveryFinished" "$fin_result" recovered
	expect_prop dev "$F0" FreezeCount $i
	expect_prop dev "$F1" FreezeCount $i
	for f in "$F0" "$F1"; do
		wait_until 15 bound_to "$f" e1000e || fail "$f is not bound after fatal error $i"
	done
	i=$((i + 1))
done
card_traffic "after five fatal errors"

sig_mark
run "$AER_INJECT" -u 0x20 "$F0"
[ "$rc" = 0 ] || fail "aer-inject fatal 6 failed"
finish_of "$PE" 60
echo "  fatal 6: RecoveryFinished $fin_result in $fin_usec us; steps: $(steps_since "$PE")"
expect "fatal 6: RecoveryFinished" "$fin_result" disabled
must_signal 10 PermanentlyDisabled "\"$PE\""
reason=$(sig_arg "$sig" 3)
echo "  reason: $reason"
case "$reason" in
*"functions $F0 $F1"*) ok "the whole card is named: $F0 and $F1" ;;
*) fail "the reason does not name both functions of the card: $reason" ;;
esac
case "$reason" in
*"froze 6 times"*) ok "counted once per error: 6" ;;
*) fail "the reason does not say 6 freezes: $reason" ;;
esac
expect_prop mgr - PermanentDisables $((disables0 + 1))
wait_until 10 absent "$F0" || fail "$F0 is still present after the disable"
wait_until 10 absent "$F1" || fail "$F1 is still present after the disable"
ok "both functions are gone"
expect "shim: PE state" "$(pe_state "$PE")" disabled
pcierrd_stop

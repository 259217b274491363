#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# Scenario 3: full recovery of the e1000e with its own driver callbacks,
# the NIC up and passing traffic before and after.
#   inject -> report error_detected (e1000e answers need_reset) -> reset
#   (config space restored) -> report slot_reset (recovered) -> resume
# e1000e prints nothing in error_detected, so its callbacks are seen with
# the function tracer (e1000_io_error_detected/_slot_reset/_resume) and by
# their answers in OP_DONE; e1000e's own "NIC Link is Up" in the kernel log
# and its register file read through the driver (ethtool -d: the device
# status register sane, link up, not the all-ones of a frozen device) show
# that it works again. No traffic is sent anywhere.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
CLEANUP_PES=$RP_E1000E
PE=$RP_E1000E
DEV=$E1000E
TR=/sys/kernel/debug/tracing

require_normal "$PE"
eth=$(ls "$SYS/$DEV/net" 2>/dev/null | head -n 1)
[ -n "$eth" ] || fail "no network interface under $SYS/$DEV/net"
ok "e1000e is $eth"

nic_cleanup() {
	ip link set "$eth" down 2>/dev/null
	if [ -w "$TR/current_tracer" ]; then
		echo 0 > "$TR/tracing_on"
		echo nop > "$TR/current_tracer"
		echo > "$TR/set_ftrace_filter"
	fi
}
carrier() { [ "$(cat "/sys/class/net/$eth/carrier" 2>/dev/null)" = 1 ]; }
# regs_sane: the driver reads the device status register (STATUS, offset
# 8) through the NIC's BAR: not all-ones, link up (bit 1)
regs_sane() {
	run ethtool -d "$eth"
	[ "$rc" = 0 ] || return 1
	st=$(printf '%s\n' "$out" | sed -n 's/^0x00008: .* \(0x[0-9A-Fa-f]\{8\}\)$/\1/p')
	echo "  status register: ${st:-none}"
	[ -n "$st" ] && [ "$st" != 0xFFFFFFFF ] && [ "$st" != 0xffffffff ] &&
		[ $((st & 2)) != 0 ]
}

# the NIC works before the error
ip link set "$eth" up || fail "cannot bring $eth up"
wait_until 15 carrier || { nic_cleanup; fail "$eth has no carrier before the test"; }
ok "$eth carrier up before the error"
regs_sane || { nic_cleanup; fail "$eth registers not sane before the test"; }
ok "$eth registers sane before the error"

# trace the e1000e recovery callbacks
tracing=0
if [ -w "$TR/set_ftrace_filter" ] &&
   echo 'e1000_io_error_detected e1000_io_slot_reset e1000_io_resume' > "$TR/set_ftrace_filter" 2>/dev/null; then
	echo function > "$TR/current_tracer"
	echo > "$TR/trace"
	echo 1 > "$TR/tracing_on"
	tracing=1
	ok "tracing e1000_io_error_detected, e1000_io_slot_reset, e1000_io_resume"
else
	info "function tracer not available: the callbacks are checked by their answers only"
fi
traced() { grep -q " $1 <-" "$TR/trace"; }

# config dwords 4..9 (BAR0..5) and 15 (interrupt line/pin)
bars() { printf '%s\n' "$1" | tr -s ' ' '\n' | grep . | sed -n '5,10p;16p' | tr '\n' ' '; }
config_before=$(od -An -v -tx4 -N64 "$SYS/$DEV/config")
klines=$(dmesg | wc -l)

must_nl inject "$DEV"
ok "injected: $out"
expect "PE state after inject" "$(pe_state "$PE")" frozen
# the check below can fail: a frozen NIC's registers read all-ones
regs_sane && { nic_cleanup; fail "$eth registers look sane while frozen"; }
ok "$eth registers unreadable while frozen"

report_expect "$PE" error_detected need_reset --state frozen
expect "e1000e's own answer to error_detected" "$(dev_result "$DEV")" need_reset
[ $tracing = 0 ] || { traced e1000_io_error_detected || fail "e1000_io_error_detected was not called"; ok "e1000_io_error_detected ran"; }
expect "PE state after error_detected" "$(kv pe_state "$op")" frozen

resets0=$(nl_stat resets)
op reset "$PE"
expect "PE state after reset" "$(kv pe_state "$op")" reset
expect "resets counted" "$(nl_stat resets)" $((resets0 + 1))
c=$(cmdreg "$DEV")
[ $((c & CMD_MEM)) != 0 ] || fail "memory decode is off after the reset (command $(printf 0x%04x "$c"))"
ok "memory decode on after the reset (command $(printf 0x%04x "$c"))"
config_after=$(od -An -v -tx4 -N64 "$SYS/$DEV/config")
expect "BARs and interrupt line after the reset" "$(bars "$config_after")" "$(bars "$config_before")"

report_expect "$PE" slot_reset recovered
expect "e1000e's own answer to slot_reset" "$(dev_result "$DEV")" recovered
op report "$PE" resume
expect "PE state after resume" "$(kv pe_state "$op")" normal
expect "PE state" "$(pe_state "$PE")" normal
expect "e1000e channel state" "$(dev_state "$DEV")" normal
if [ $tracing = 1 ]; then
	echo 0 > "$TR/tracing_on"
	grep ' e1000_io_' "$TR/trace" | sed 's/^/  | /'
	order=$(grep -o ' e1000_io_[a-z_]* <-' "$TR/trace" | sed 's/ <-//; s/^ //' | tr '\n' ' ')
	expect "e1000e callbacks called, in order" "$order" "e1000_io_error_detected e1000_io_slot_reset e1000_io_resume "
fi
c=$(cmdreg "$DEV")
[ $((c & CMD_MASTER)) != 0 ] || fail "bus mastering off after resume (command $(printf 0x%04x "$c"))"
ok "bus mastering on after resume"

# the NIC works again
ip link set "$eth" up
wait_until 15 carrier || { nic_cleanup; fail "$eth carrier did not come back within 15 s"; }
ok "$eth carrier up after recovery"
expect "$eth MAC" "$(cat "/sys/class/net/$eth/address")" "$E1000E_MAC"
expect "$eth speed" "$(cat "/sys/class/net/$eth/speed")" 1000
regs_sane || { nic_cleanup; fail "$eth registers not sane after recovery"; }
ok "$eth registers sane after recovery"
dmesg | tail -n +"$((klines + 1))" | grep -q "e1000e $DEV $eth: NIC Link is Up" ||
	{ nic_cleanup; fail "no 'NIC Link is Up' from e1000e after recovery"; }
ok "e1000e reported its link up again"
nic_cleanup

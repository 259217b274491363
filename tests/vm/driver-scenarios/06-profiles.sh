#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Driver suite 6: the seeds' ipr and ixgb, which QEMU does not model, as
# profiles of the test driver (pcierr_ipr: error_detected and slot_reset
# only; pcierr_ixgb: error_detected, slot_reset and resume; both answer as
# the 2005 patches did: need_reset, then recovered), each on a pci-testdev
# of its own slot.
#   `pcierrctl inject` on each: recovered by callbacks, steps
#   error_detected (need_reset), reset, slot_reset (recovered), resume;
#   the driver's own call log shows what it was called for, in order:
#   ipr "error_detected(frozen)=need_reset slot_reset=recovered" (it has
#   no resume: the resume step calls nothing), ixgb the same and "resume".
#   No mmio_enabled anywhere (neither has it, and both ask for a reset).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=tests/vm/drivers-lib.sh
. "$PCIERR_TREE/tests/vm/drivers-lib.sh"
CLEANUP_PES="$RP_IPR $RP_IXGB"
require_normal $CLEANUP_PES
for pair in "$IPR pcierr_ipr" "$IXGB pcierr_ixgb"; do
	set -- $pair
	if ! bound_to "$1" "$2"; then
		echo "$2" > "$SYS/$1/driver_override"
		[ -e "$SYS/$1/driver" ] && echo "$1" > "$SYS/$1/driver/unbind"
		echo "$1" > /sys/bus/pci/drivers_probe
	fi
	wait_until 10 bound_to "$1" "$2" || fail "$1 is not bound to $2 (driver $(driver_of "$1"))"
	ok "$1 bound to $2"
done

sig_start
pcierrd_start
for prof in "ipr $IPR $RP_IPR" "ixgb $IXGB $RP_IXGB"; do
	set -- $prof
	name=$1 dev=$2 pe=$3
	info "the $name profile ($dev)"
	bus_objects "$pe" "$dev"
	handlers=$(handlers_of "$dev")
	td_clear "$dev"
	recovery_of "$pe" "$dev"
	expect "$name: RecoveryStarted mode" "$rec_mode" callbacks
	expect "$name: RecoveryFinished" "$fin_result" recovered
	expect "$name: pcierrctl inject exit status" "$INJ_RC" 0
	expect "$name: steps" "$(step_names "$pe")" "error_detected reset slot_reset resume"
	case $name in
	ipr)
		expect "$name: handlers" "$handlers" "error_detected,slot_reset"
		want="error_detected(frozen)=need_reset slot_reset=recovered"
		;;
	ixgb)
		expect "$name: handlers" "$handlers" "error_detected,slot_reset,resume"
		want="error_detected(frozen)=need_reset slot_reset=recovered resume"
		;;
	esac
	expect_calls "$dev" "$want"
	bound_to "$dev" "pcierr_$name" || fail "$dev lost pcierr_$name"
	row "$dev" "pcierr_$name (profile)" "$handlers" callbacks "$(ms "$fin_usec")" \
		- - - "calls: $(td_calls "$dev")"
done
pcierrd_stop

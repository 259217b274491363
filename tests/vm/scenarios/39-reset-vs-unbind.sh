#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 39: RESET takes the locks the core's bus reset takes (review R8,
# issue 22): pci_dev_lock() of the bridge and of every device below it.
# RESETs of the mixed PE (a PCIe-to-PCI bridge: a secondary bus reset)
# race a loop that unbinds and binds the drivers of the devices below it
# through sysfs and writes their driver_override:
#   - every RESET ends (errno 0: it waits for a bind or unbind in flight
#     to finish, it does not fail or hang);
#   - no oops, no lockdep report, no hung task (the kernel-log check);
#   - afterwards both devices are bound again and the test device does
#     I/O after a recovery.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$MIXED_BRIDGE
TD=$MIXED_TESTDEV
EDU=$MIXED_EDU
UNAWARE=/sys/bus/pci/drivers/pcierr_test_unaware
CLEANUP_PES=$PE
rebind() {
	echo > "$SYS/$EDU/driver_override" 2>/dev/null
	echo > "$SYS/$TD/driver_override" 2>/dev/null
	bound_to "$TD" pcierr_test || echo "$TD" > "$TD_DRIVER/bind" 2>/dev/null
	bound_to "$EDU" pcierr_test_unaware || echo "$EDU" > "$UNAWARE/bind" 2>/dev/null
	return 0
}
CLEANUP_CMD=rebind
require_normal "$PE"
td_defaults
bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test"
bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound to pcierr_test_unaware"
io_want=$(cat "$SYS/$TD/io") || fail "cannot read $TD's io"

# the loop: unbind, override, bind, clear, over and over, until $TMP/stop
churn() {
	i=0
	while [ ! -e "$TMP/stop" ]; do
		echo "$TD" > "$TD_DRIVER/unbind" 2>/dev/null
		echo pcierr_test > "$SYS/$TD/driver_override" 2>/dev/null
		echo "$TD" > "$TD_DRIVER/bind" 2>/dev/null
		echo "$EDU" > "$UNAWARE/unbind" 2>/dev/null
		echo pcierr_test_unaware > "$SYS/$EDU/driver_override" 2>/dev/null
		echo "$EDU" > /sys/bus/pci/drivers_probe 2>/dev/null
		echo > "$SYS/$TD/driver_override" 2>/dev/null
		echo > "$SYS/$EDU/driver_override" 2>/dev/null
		i=$((i + 1))
	done
	echo "$i" > "$TMP/rounds"
}
churn &
CHURN=$!
BG_PIDS="$BG_PIDS $CHURN"

n=0
while [ $n -lt 6 ]; do
	op reset "$PE"
	n=$((n + 1))
done
ok "$n RESETs ended with errno 0 while the drivers below were unbound and bound"
touch "$TMP/stop"
wait "$CHURN"
rounds=$(cat "$TMP/rounds")
info "unbind/bind rounds meanwhile: $rounds"
[ "$rounds" -gt 0 ] || fail "the unbind/bind loop did not run"

rebind
wait_until 10 bound_to "$TD" pcierr_test || fail "$TD is not bound to pcierr_test after the race"
wait_until 10 bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound after the race"
ok "both devices are bound again"
pe_normalize "$PE"
expect "PE state" "$(pe_state "$PE")" normal
must_nl inject "$TD"
op report "$PE" error_detected --state frozen
op reset "$PE"
op report "$PE" slot_reset
op report "$PE" resume
expect "PE state after a recovery" "$(pe_state "$PE")" normal
expect "$TD's I/O after the recovery (as before the race)" "$(cat "$SYS/$TD/io")" "$io_want"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# Benchmark 2: parallel recovery. Three fast PEs -- testdev B, the e1000e,
# the mixed PE (its unaware edu: partial hotplug) -- each recovered alone
# first ("lone"), then frozen together with a slow fourth:
#   parallel    testdev A, its driver sleeping 5 s in error_detected,
#               under pcierrd (one recovery per slot, all at once);
#   serialised  the same four, recovered one after the other, the slow
#               one first, by a script driving the shim (pcierr-nl), as
#               the seed's single kernel thread and EEH's event thread
#               do: pcierrd has no one-at-a-time setting (no config key
#               was added: it would be a queue in daemon/recovery-exec.c);
#   hotplug     the edu PE (no err_handler: remove, wait_udev, reset,
#               rescan under the kernel's global rescan/remove lock) in
#               place of testdev A, under pcierrd.
# Each time is from the freeze (t0 of the inject request) to the PE's
# resume OP_DONE (rescan for the hotplug PE) as pcierr-bench watch reads it.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
FAST_PES="$RP_TESTDEV_B $RP_E1000E $MIXED_BRIDGE"
FAST_DEVS="$TESTDEV_B $E1000E $MIXED_TESTDEV"
CLEANUP_PES="$RP_TESTDEV_A $FAST_PES $RP_EDU"
ROUNDS=5
[ "$BENCH_QUICK" = 1 ] && ROUNDS=2
require_normal $CLEANUP_PES
td_defaults
watch_start

# wait_all SECONDS "PE@OP ...": every one seen
wait_all() {
	_to=$1
	for _po in $2; do
		_p=${_po%%@*} _o=${_po#*@}
		watch_wait "$_to" "^op .* pe=$_p op=$_o" || fail "no $_o OP_DONE of $_p within $_to s"
	done
}
RESUME="report step=resume"

# pcierrd, for lone, parallel, hotplug
pd_bench_conf
pcierrd_start
for pe in $CLEANUP_PES; do bus_objects "$pe" >/dev/null; done
i=1
while [ "$i" -le "$ROUNDS" ]; do
	set -- $FAST_DEVS
	for pe in $FAST_PES; do
		watch_mark
		o=$("$BENCH" inject "$1") || fail "inject $1: $o"
		wait_all 60 "$pe@report.step=resume"
		rec "inj row=lone i=$i $o dev=$1"
		watch_rec "row=lone i=$i"
		wait_until 30 pd_idle "$pe" || fail "pcierrd still busy with $pe"
		shift
	done
	i=$((i + 1))
done
ok "lone recoveries of $FAST_PES, $ROUNDS rounds"

# row SLOWDEV SLOWPE SLOWEND NAME
par_row() {
	_sd=$1 _sp=$2 _se=$3 _row=$4
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		td_set "$TESTDEV_A" delay_error_detected 5000 >/dev/null
		watch_mark
		o=$("$BENCH" inject "$_sd" $FAST_DEVS) || fail "inject: $o"
		_w="$_sp@$_se"
		for pe in $FAST_PES; do _w="$_w $pe@report.step=resume"; done
		wait_all 90 "$_w"
		printf '%s\n' "$o" | while read -r l; do rec "inj row=$_row i=$i $l"; done
		watch_rec "row=$_row i=$i"
		for pe in $_sp $FAST_PES; do
			wait_until 60 pd_idle "$pe" || fail "pcierrd still busy with $pe"
			expect "$pe after $_row round $i" "$(pe_state "$pe")" normal >/dev/null
		done
		i=$((i + 1))
	done
	ok "$_row: $ROUNDS rounds"
}
par_row "$TESTDEV_A" "$RP_TESTDEV_A" "report.step=resume" parallel
par_row "$EDU" "$RP_EDU" "rescan" hotplug
wait_until 20 bound_to "$EDU" pcierr_test_unaware || fail "edu not bound again after the hotplug rows"
pcierrd_stop

# serialised: the shim driven one PE at a time, slow one first
i=1
while [ "$i" -le "$ROUNDS" ]; do
	td_set "$TESTDEV_A" delay_error_detected 5000 >/dev/null
	watch_mark
	o=$("$BENCH" inject "$TESTDEV_A" $FAST_DEVS) || fail "inject: $o"
	for pe in $RP_TESTDEV_A $FAST_PES; do
		"$NL" report "$pe" error_detected --state frozen >/dev/null &&
		"$NL" reset "$pe" >/dev/null &&
		"$NL" report "$pe" slot_reset >/dev/null &&
		"$NL" report "$pe" resume >/dev/null || fail "serialised recovery of $pe failed"
	done
	wait_all 30 "$RP_TESTDEV_A@report.step=resume $(for pe in $FAST_PES; do printf "%s@report.step=resume " "$pe"; done)"
	printf '%s\n' "$o" | while read -r l; do rec "inj row=serialised i=$i $l"; done
	watch_rec "row=serialised i=$i"
	i=$((i + 1))
done
ok "serialised: $ROUNDS rounds"
td_defaults
nic_works "$E1000E" "after the rows"

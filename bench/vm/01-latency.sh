#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 1500
#
# Benchmark 1: recovery latency against the kernel's own path. On the
# e1000e below its ioh3420 root port (and on the nvme of the bench
# topology), alternately, BENCH_ROUNDS times each:
#   A  the kernel's AER recovery of a fatal Surprise Down (aer_inject):
#      t0 just before the write to /dev/aer_inject, end = the kernel's
#      ERROR_EVENT=SUCCESSFUL_RECOVERY uevent (sent after resume);
#   B  pcierr's: PCIERR_CMD_INJECT (a freeze), the EVENT to pcierrd,
#      error_detected, reset, slot_reset, resume as pcierrd drives them:
#      t0 just before the inject request, end = the resume's OP_DONE.
# Both ends are seen by the same listener (pcierr-bench watch), so the
# delivery to it costs both the same. The OP_DONEs' durations (the
# drivers' callbacks, the kernel's reset) and the EVENT's timestamp give
# pcierr's own share: the time outside them (bench/report).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
# shellcheck source=bench/vm/bench-lib.sh
. "$PCIERR_TREE/bench/vm/bench-lib.sh"
CLEANUP_PES="$RP_E1000E ${RP_BNVME:-}"
CLEANUP_CMD='rmmod aer_inject'

targets="e1000e,$RP_E1000E,$E1000E"
if [ -n "${BNVME:-}" ]; then
	modprobe nvme 2>/dev/null
	if wait_until 20 bound_to "$BNVME" nvme; then
		targets="$targets nvme,$RP_BNVME,$BNVME"
	else
		info "nvme $BNVME not bound to nvme: no nvme rows"
	fi
fi
for t in $targets; do
	r=${t#*,}
	require_normal "${r%%,*}"
done
aer_inject_load
pd_bench_conf
pcierrd_start
watch_start

# one_round KIND NAME PE DEV ROUND
one_round() {
	_k=$1 _n=$2 _pe=$3 _dev=$4 _i=$5
	watch_mark
	if [ "$_k" = A ]; then
		_o=$("$BENCH" aer "$_dev") || fail "aer_inject on $_dev failed: $_o"
		watch_wait 60 "^uev .* dev=$_dev event=(SUCCESSFUL|FAILED)_RECOVERY" ||
			fail "no end of the kernel's recovery of $_dev in 60 s"
		watch_since | grep -q "dev=$_dev event=SUCCESSFUL_RECOVERY" ||
			fail "the kernel's recovery of $_dev failed (round $_i)"
	else
		_o=$("$BENCH" inject "$_dev") || fail "inject on $_dev failed: $_o"
		watch_wait 60 "^op .* pe=$_pe op=report step=resume" ||
			fail "no resume OP_DONE for $_pe in 60 s (round $_i)"
	fi
	rec "round kind=$_k target=$_n pe=$_pe dev=$_dev i=$_i $_o"
	watch_rec "kind=$_k target=$_n i=$_i"
	# pcierrd done with it (its RecoveryFinished), outside the measure
	wait_until 30 pd_idle "$_pe" || fail "pcierrd still recovering $_pe after 30 s"
	expect "PE $_pe after round $_i ($_k)" "$(pe_state "$_pe")" normal >/dev/null
}

for t in $targets; do
	n=${t%%,*}
	r=${t#*,}
	pe=${r%%,*}
	dev=${r#*,}
	bus_objects "$pe" "$dev" >/dev/null
	# the kernel's path needs an AER capability on the device (QEMU's nvme
	# has none: "aer_inject: Device doesn't support AER"): B alone then
	kinds="A B"
	if ! lspci -s "$dev" -vv 2>/dev/null | grep -q "Advanced Error Reporting"; then
		kinds=B
		info "$dev has no AER capability: no kernel (A) rounds for $n"
		rec "noaer target=$n dev=$dev"
	fi
	i=1
	while [ "$i" -le "$BENCH_ROUNDS" ]; do
		for k in $kinds; do
			one_round "$k" "$n" "$pe" "$dev" "$i"
		done
		i=$((i + 1))
	done
	ok "$n: $BENCH_ROUNDS rounds of $kinds alternated (A kernel AER, B pcierr)"
done
[ -n "${BNVME:-}" ] && rec "nvme present=$(echo "$targets" | grep -c nvme,)"
nic_works "$E1000E" "after the rounds"
pcierrd_stop

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# Scenario 33: a freeze under a new shim whose error generation equals the
# one pcierrd stored under the old (found with issue 11 point 9's reset
# test). The shim's per-device error generation starts at 0 at each load
# (a reboot, as in make vm-powercut-check, or an rmmod/insmod); pcierrd
# keeps the generation it counted last in its state database and, at its
# start-up resync, takes a frozen device whose generation equals it for a
# freeze it counted before (state-writer.h: "one that the store counted
# already is not counted again").
#   pcierrd on a fresh shim counts one injected freeze of testdev B
#   (generation 1) and stops; the shim is loaded again (generation 0);
#   B is frozen once by pcierr-nl with no pcierrd running (generation 1
#   again), then pcierrd starts on the same state: it must recover B and
#   count that freeze, FreezeCount +1.
# Failed before the shim's load id (docs/reliability.md, "Faults", defect
# 7): pcierrd logged "found frozen by a resync (counted before)" and
# FreezeCount stayed: the freeze was lost.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
SHIM=$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko
CLEANUP_PES=$PE
# shellcheck disable=SC2016 # expanded by the clean-up
CLEANUP_CMD='grep -q "^pcierr_shim " /proc/modules || insmod "$SHIM"'
require_normal "$PE"
td_defaults

gen_of() { kv gen "$(dev_line "$DEV")"; }
reload_shim() {
	run rmmod pcierr_shim
	[ "$rc" = 0 ] || fail "rmmod pcierr_shim exited $rc"
	run insmod "$SHIM"
	[ "$rc" = 0 ] || fail "insmod $SHIM exited $rc"
	wait_until 10 dev_line "$DEV" || fail "the new shim does not list $DEV"
	expect "B's error generation under the new shim" "$(gen_of)" 0
}

info "a fresh shim; pcierrd counts one freeze of B"
reload_shim
pd_conf "[Policy]
MaxFreezes=1000"
pcierrd_start
bus_objects "$PE" "$DEV"
c0=$(dev_prop "$DEV" FreezeCount)
sig_start
sig_mark
must_call Inject ssu "$DEV" frozen 0
finish_of "$PE" 60
expect "recovery of B" "$fin_result" recovered
expect "FreezeCount after the first freeze" "$(dev_prop "$DEV" FreezeCount)" $((c0 + 1))
g1=$(gen_of)
echo "  B's error generation counted: $g1"
pcierrd_stop

info "the shim loaded again (as by a reboot); B frozen before pcierrd runs"
reload_shim
must_nl inject "$DEV"
expect "B's error generation" "$(gen_of)" "$g1"
expect "PE $PE" "$(pe_state "$PE")" frozen
pcierrd_start
pe_normal() { [ "$(pe_state "$PE")" = normal ]; }
wait_until 60 pe_normal ||
	fail "PE $PE is $(pe_state "$PE") 60 s after pcierrd started"
wait_prop 30 slot "$PE" Step idle
grep -F "$PE" "$PD_LOG" | grep 'by a resync' | tail -n 1 | sed 's/^/  log: /'
expect "FreezeCount: the freeze under the new shim counted" \
	"$(dev_prop "$DEV" FreezeCount)" $((c0 + 2))

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 36: a driver whose probe waits holds up its own RESCAN only.
#   Testdev A is removed (REMOVE of its PE) and pcierr_test's probe made
#   to wait (the driver's delay_probe = hang, a card whose firmware does
#   not answer); A's RESCAN then waits in that probe. Meanwhile the edu's
#   PE is removed and rescanned: both must finish (30 s each at most;
#   they would wait for ever), the edu bound again, because the shim
#   probes what a RESCAN found only after the PCI rescan/remove lock is
#   released (pci_bus_add_device() probes under it, drivers/pci/bus.c).
#   Then release_all: A's probe goes on, its RESCAN ends, A is bound and
#   answers, its PE normal. Fails with a shim that adds and probes under
#   the lock (the edu's REMOVE times out).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
A=$TESTDEV_A
PA=$RP_TESTDEV_A
PE=$RP_EDU
CLEANUP_PES="$PA $PE"
# whatever happens: probes no longer wait, A is back
# shellcheck disable=SC2016
CLEANUP_CMD='echo 0 > "$TD_DRIVER/delay_probe"; echo 1 > "$TD_DRIVER/release_all";
[ -e "$SYS/$A" ] || "$NL" rescan "$PA"'
require_normal "$PA" "$PE"
td_defaults
[ -e "$TD_DRIVER/delay_probe" ] || fail "the test driver has no delay_probe"
bound_to "$A" pcierr_test || fail "$A is not bound to pcierr_test at the start"
bound_to "$EDU" pcierr_test_unaware || fail "$EDU is not bound to pcierr_test_unaware at the start"
io_want=$(cat "$SYS/$A/io") || fail "cannot read $A's io"

op remove "$PA"
wait_until 10 absent "$A" || fail "$A is still present after the REMOVE"
echo "+ echo hang > $TD_DRIVER/delay_probe"
echo hang > "$TD_DRIVER/delay_probe" || fail "cannot set delay_probe"
nhang=$(dmesg | grep -c "$A: probe hangs")
echo "+ $NL rescan $PA --timeout 180 > $TMP/rescan &"
"$NL" rescan "$PA" --timeout 180 > "$TMP/rescan" 2>&1 &
RPID=$!
BG_PIDS="$BG_PIDS $RPID"
wait_until 30 sh -c "[ \$(dmesg | grep -c '$A: probe hangs') -gt $nhang ]" ||
	fail "A's probe did not start: $(cat "$TMP/rescan")"
ok "$A's RESCAN waits in pcierr_test's probe"

info "the edu's PE removed and rescanned meanwhile"
t0=$(now_ns)
op remove "$PE" --timeout 30
wait_until 10 absent "$EDU" || fail "$EDU is still present after the REMOVE"
op rescan "$PE" --timeout 30
wait_until 10 bound_to "$EDU" pcierr_test_unaware ||
	fail "$EDU did not come back bound to pcierr_test_unaware (driver $(driver_of "$EDU"))"
ms=$(ms_between "$t0" "$(now_ns)")
echo "figure rescan_probe_other_pe_ms $ms"
ok "the edu's PE was removed and rescanned in $ms ms while $A's probe waited"
gone "$RPID" && fail "A's RESCAN ended while its probe waited: $(cat "$TMP/rescan")"
expect "PE state of $PE" "$(pe_state "$PE")" normal

info "A's probe released"
echo "+ echo 1 > $TD_DRIVER/release_all"
echo 1 > "$TD_DRIVER/release_all"
echo 0 > "$TD_DRIVER/delay_probe"
listen_wait "$RPID" 60
sed 's/^/  | /' "$TMP/rescan"
[ "$rc" = 0 ] || fail "A's RESCAN exited $rc"
opl=$(grep -m 1 '^op_done ' "$TMP/rescan")
expect "errno of A's RESCAN" "$(kv errno "$opl")" 0
wait_until 10 bound_to "$A" pcierr_test || fail "$A is not bound to pcierr_test (driver $(driver_of "$A"))"
expect "$A's io" "$(cat "$SYS/$A/io")" "$io_want"
expect "PE state of $PA" "$(pe_state "$PA")" normal
expect "$A's channel state" "$(dev_state "$A")" normal

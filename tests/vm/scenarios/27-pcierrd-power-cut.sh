#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 27: a power cut during state writes, as far as one boot allows
# (issue 11 point 9, first half). pcierrd is SIGKILLed in a tight loop
# while it writes its state: each round injects a freeze of testdev B
# (whose recovery writes the freeze count, the steps and the result to
# the database) and kills pcierrd 0 to 900 ms later (a fixed sequence of
# delays across the write window), then, pcierrd down, runs
# "PRAGMA integrity_check" on the database (sqlite3 from Debian) and reads
# the committed freeze count of B's identity straight from the database;
# then pcierrd starts again on it and finishes or resyncs the recovery.
#   Every round: integrity_check says ok; the committed count never goes
#   down from one round to the next and never exceeds the injections so
#   far; after pcierrd's restart its FreezeCount is at least the
#   committed one. At the end (the last recovery allowed to finish and
#   pcierrd stopped cleanly), the committed count equals the number of
#   injections: no freeze lost or counted twice across the kills.
# The second half (QEMU system_reset during a recovery, the state on a
# virtio disk) needs further boots of the VM: make vm-powercut-check
# (tests/vm/powercut-scenarios, docs/reliability.md).
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
ROUNDS=${PCIERR_POWER_CUT_ROUNDS:-12}
require_normal "$PE"
td_defaults
command -v sqlite3 >/dev/null || fail "no sqlite3 (scripts/install-deps)"
DB=$PD_STATE/state.db

# the committed freeze count of DEV in the database (pcierrd down)
db_count() {
	_c=$(sqlite3 -readonly "$DB" "$COUNT_SQL" 2>&1) || { echo "$_c"; return 1; }
	echo "${_c:-0}"
}

# (MaxFreezes: more rounds than the default 5 of an hour, or the card is
# disabled by policy on the 6th)
pd_conf "[Policy]
MaxFreezes=1000"
sig_start
pcierrd_start
bus_objects "$PE" "$DEV"
c0=$(dev_prop "$DEV" FreezeCount)
pcierrd_stop
# state.c's table "freeze": one row per device identity, its count; this
# scenario's database is its own, and only B freezes here
COUNT_SQL="SELECT COALESCE(SUM(count), 0) FROM freeze;"
base=$(db_count) || fail "cannot read the count: $base"
echo "  committed before: $base (D-Bus FreezeCount $c0)"

prev=$base
i=0
delays="0 0.05 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.15 0.25 0.35 0.45"
for d in $delays; do
	[ "$i" -lt "$ROUNDS" ] || break
	i=$((i + 1))
	pcierrd_start
	must_call Inject ssu "$DEV" frozen 0
	sleep "$d"
	pcierrd_kill9 > /dev/null
	ic=$(sqlite3 -readonly "$DB" 'PRAGMA integrity_check;' 2>&1)
	[ "$ic" = ok ] || fail "round $i (kill after ${d}s): integrity_check: $ic"
	c=$(db_count) || fail "round $i: cannot read the count: $c"
	echo "  round $i: killed ${d}s after the injection; integrity ok; committed $c"
	[ "$c" -ge "$prev" ] || fail "round $i: the committed count went down ($prev -> $c)"
	[ "$c" -le $((base + i)) ] || fail "round $i: committed $c after $i injections (base $base): counted twice"
	prev=$c
done

info "the last recovery finishes"
sig_mark
pcierrd_start
wait_prop 60 slot "$PE" Step idle
wait_until 20 bound_to "$DEV" pcierr_test || fail "$DEV is not bound"
unset _pathcache_GetDevice_0000_03_00_0 2>/dev/null
wait_until 10 dev_path "$DEV" || fail "no Device object for $DEV"
fc=$(dev_prop "$DEV" FreezeCount)
echo "  D-Bus FreezeCount $fc"
[ "$fc" -ge "$((c0 + prev - base))" ] || fail "FreezeCount $fc is below the committed count"
pcierrd_stop
run sqlite3 -readonly "$DB" 'PRAGMA integrity_check;'
expect "integrity_check at the end" "$out" ok
c=$(db_count) || fail "cannot read the count: $c"
echo "  committed at the end: $c, injections $i (base $base)"
expect "committed freeze count" "$c" $((base + i))
expect "FreezeCount after the kills" "$fc" $((c0 + i))
expect "shim: PE state" "$(pe_state "$PE")" normal

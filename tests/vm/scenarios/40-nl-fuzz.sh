#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 400
#
# Scenario 40: the netlink fuzzer (tests/fuzz/nl-fuzz.c, issue 11).
#   200000 random and mutated messages as root and 50000 as uid 65534
#   without capabilities (each seeded: the seed is printed, and
#   `nl-fuzz --seed S --count N --show I` prints message I again). As root
#   no mutating command may succeed (the fuzzer names a present device
#   only with a PE id no PE can have: more than 100 of those must get
#   ESTALE from the handlers' id check); unprivileged, every mutating command that passes the generic
#   netlink core's header checks gets EPERM. Afterwards: the dump and the
#   counters are as before, and the family still works (an injection and
#   a whole recovery of TESTDEV_B). The runner scans the kernel log.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
NLF=$BUILD/nl-fuzz
ROOT_SEED=${NLFUZZ_ROOT_SEED:-20261203}
NOBODY_SEED=${NLFUZZ_NOBODY_SEED:-65534}
ROOT_COUNT=${NLFUZZ_ROOT_COUNT:-200000}
NOBODY_COUNT=${NLFUZZ_NOBODY_COUNT:-50000}
require_normal "$PE"
[ -x "$NLF" ] || fail "$NLF missing (make $NLF)"

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}
# nobody must be able to run it (the guest's overlay copy only)
p=$NLF
while [ "$p" != / ] && [ -n "$p" ]; do
	chmod o+rx "$p" 2>/dev/null
	p=$(dirname "$p")
done

counters() {
	timeout -k 2 "$NL_TIMEOUT" "$NL" stats 2>/dev/null |
		grep -E '^(freezes|events_sent|events_dropped|resets|hotplugs|ops|ops_failed)='
}
must_nl dump
dump0=$out
stats0=$(counters)

# fuzz: the summary line only in the log, the rest when something is wrong
fuzz() {
	_who=$1
	shift
	echo "+ $_who $NLF $*"
	if [ "$_who" = nobody ]; then
		nobody "$NLF" "$@" > "$TMP/fuzz.out" 2>&1
	else
		"$NLF" "$@" > "$TMP/fuzz.out" 2>&1
	fi
	rc=$?
	grep -E '^(nl-fuzz|progress|summary)' "$TMP/fuzz.out" | sed 's/^/  | /'
	summary=$(grep '^summary ' "$TMP/fuzz.out")
	if [ "$rc" != 0 ]; then
		grep -v -E '^(nl-fuzz|progress|summary)' "$TMP/fuzz.out" | head -n 60
		fail "nl-fuzz as $_who exited $rc"
	fi
}

t0=$(now_ns)
fuzz root --seed "$ROOT_SEED" --count "$ROOT_COUNT"
t1=$(now_ns)
[ "$(kv privileged "$summary")" = 1 ] || fail "the root run was not privileged"
[ "$(kv messages "$summary")" = "$ROOT_COUNT" ] || fail "root: $(kv messages "$summary") messages, not $ROOT_COUNT"
[ "$(kv valid_mutations "$summary")" = 0 ] || fail "root: a mutating command succeeded"
[ "$(kv einval "$summary")" -gt 1000 ] || fail "root: hardly any EINVAL: the messages did not reach the family's checks"
[ "$(kv enodev "$summary")" -gt 100 ] || fail "root: hardly any ENODEV: no well-formed address reached a handler"
# the stale targets: present devices named with an id no PE can have
# reach the handlers' id check, and every one is refused
[ "$(kv stale_estale "$summary")" -gt 100 ] ||
	fail "root: hardly any ESTALE ($(kv stale_estale "$summary") of $(kv stale_targets "$summary") stale targets): the id check was not reached"
ok "root: $(kv stale_targets "$summary") commands named present devices with a stale PE id: $(kv stale_estale "$summary") ESTALE, the rest refused earlier, none accepted"
ok "root: $ROOT_COUNT messages (seed $ROOT_SEED) in $(ms_between "$t0" "$t1") ms: einval=$(kv einval "$summary") enodev=$(kv enodev "$summary") eopnotsupp=$(kv eopnotsupp "$summary") acks_ok=$(kv acks_ok "$summary") data=$(kv data "$summary"), no mutation succeeded"
echo "figure nlfuzz_root $summary"

t0=$(now_ns)
fuzz nobody --seed "$NOBODY_SEED" --count "$NOBODY_COUNT"
t1=$(now_ns)
[ "$(kv privileged "$summary")" = 0 ] || fail "the uid 65534 run had CAP_NET_ADMIN"
[ "$(kv messages "$summary")" = "$NOBODY_COUNT" ] || fail "nobody: $(kv messages "$summary") messages, not $NOBODY_COUNT"
[ "$(kv eperm_violations "$summary")" = 0 ] || fail "nobody: a mutating command was not refused with EPERM"
[ "$(kv eperm_expected "$summary")" -gt 1000 ] || fail "nobody: hardly any mutating command was checked"
[ "$(kv eperm_seen "$summary")" = "$(kv eperm_expected "$summary")" ] || fail "nobody: EPERM seen != expected"
ok "uid 65534: $NOBODY_COUNT messages (seed $NOBODY_SEED) in $(ms_between "$t0" "$t1") ms: EPERM for all $(kv eperm_expected "$summary") mutating commands that passed the header checks"
echo "figure nlfuzz_nobody $summary"

must_nl dump
expect "dump after fuzzing" "$out" "$dump0"
expect "counters after fuzzing" "$(counters)" "$stats0"

# the family still works
must_nl inject "$DEV"
[ "$(pe_state "$PE")" = frozen ] || fail "PE $PE not frozen after the injection"
report_expect "$PE" error_detected need_reset --state frozen
op reset "$PE"
report_expect "$PE" slot_reset recovered
op report "$PE" resume
[ "$(pe_state "$PE")" = normal ] || fail "PE $PE not normal after the recovery"
ok "after fuzzing: inject and a whole recovery of $PE work"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 90
#
# Scenario 6: permissions and input validation.
#   An unprivileged caller (uid/gid 65534, no capabilities) gets EPERM on
#   every command that changes anything; it may dump, read the stats and
#   listen to events. Malformed requests (pcierr-nl malformed, as root) get
#   EINVAL/ENODEV. Nothing changed (dump and counters equal before and
#   after). The kernel log is checked by the runner after every run.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
require_normal "$PE"

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@"
}

# nobody must be able to run the CLI: open the path in the guest's overlay
# (this changes the guest's copy only, never the host's tree)
p=$NL
while [ "$p" != / ] && [ -n "$p" ]; do
	chmod o+rx "$p" 2>/dev/null
	p=$(dirname "$p")
done
chmod o+rx "$BUILD/lib" 2>/dev/null
for f in "$BUILD"/*.so* "$BUILD"/lib/*.so*; do
	[ -e "$f" ] && chmod o+r "$f"
done
run nobody sh -c 'id; grep ^Cap /proc/self/status'
printf '%s\n' "$out" | grep -q '^CapEff:[[:space:]]*0*$' || fail "the unprivileged shell still has capabilities"
ok "the unprivileged caller has no capabilities"

must_nl dump
dump0=$out
must_nl stats
stats0=$(printf '%s\n' "$out" | grep -E '^(freezes|resets|hotplugs|ops|ops_failed)=')

# every mutating command: exit 1, "Operation not permitted"
denied() {
	run nobody timeout -k 2 "$NL_TIMEOUT" "$NL" "$@"
	[ "$rc" = 1 ] || fail "unprivileged '$*' exited $rc, expected 1"
	printf '%s\n' "$out" | grep -q 'Operation not permitted' ||
		fail "unprivileged '$*' did not say 'Operation not permitted'"
	ok "unprivileged $1: Operation not permitted"
}
denied inject "$DEV"
denied inject "$DEV" --state perm_failure
denied report "$PE" error_detected --state frozen
denied report "$PE" resume
denied enable-io "$PE"
denied reset "$PE"
denied reset "$PE" --fundamental
denied remove "$PE"
denied rescan "$PE"
denied disable "$PE"
denied enable "$PE"
denied watch "$PE" 1000
denied watch "$PE" 0

# reading is allowed
run nobody "$NL" dump
[ "$rc" = 0 ] || fail "unprivileged dump exited $rc"
expect "unprivileged dump" "$out" "$dump0"
run nobody "$NL" stats
[ "$rc" = 0 ] || fail "unprivileged stats exited $rc"
printf '%s\n' "$out" | grep -q '^freezes=' || fail "unprivileged stats has no freezes="
ok "unprivileged dump and stats work"
run nobody "$NL" pe "$PE"
[ "$rc" = 0 ] || fail "unprivileged pe exited $rc"

must_nl dump
expect "dump after the unprivileged attempts" "$out" "$dump0"
must_nl stats
expect "counters after the unprivileged attempts" \
	"$(printf '%s\n' "$out" | grep -E '^(freezes|resets|hotplugs|ops|ops_failed)=')" "$stats0"

# anyone may listen: an unprivileged listener sees root's injection
_ready=$TMP/nobody.ready
chmod 777 "$TMP"
echo "+ nobody $NL listen --count 1 --timeout 20 --ready-file $_ready &"
nobody "$NL" listen --count 1 --timeout 20 --ready-file "$_ready" > "$TMP/nobody.events" 2>&1 &
LPID=$!
BG_PIDS="$BG_PIDS $LPID"
wait_until 10 test -e "$_ready" || fail "unprivileged listener not ready: $(cat "$TMP/nobody.events")"
must_nl inject "$DEV"
seq=$(kv seq "$out")
listen_wait "$LPID" 15
sed 's/^/  | /' "$TMP/nobody.events"
[ "$rc" = 0 ] || fail "unprivileged listener exited $rc"
grep -q "^event seq=$seq pe=$PE dev=$DEV " "$TMP/nobody.events" ||
	fail "the unprivileged listener did not get event seq=$seq"
ok "the unprivileged listener got event seq=$seq"
report_expect "$PE" error_detected need_reset --state frozen
op reset "$PE"
report_expect "$PE" slot_reset recovered
op report "$PE" resume

# malformed requests, as root (permission is checked before the attributes)
must_nl dump
dump1=$out
pnl malformed
[ "$rc" = 0 ] || fail "pcierr-nl malformed exited $rc"
printf '%s\n' "$out" | grep -q '^case=' || fail "pcierr-nl malformed ran no cases"
printf '%s\n' "$out" | grep -q ' FAIL' && fail "pcierr-nl malformed has failing cases"
ok "every malformed case was refused as expected ($(printf '%s\n' "$out" | grep -c '^case=') cases)"
must_nl dump
expect "dump after the malformed requests" "$out" "$dump1"

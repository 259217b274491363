#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
#
# Scenario 6: permissions and input validation.
#   An unprivileged caller (uid/gid 65534, no capabilities) and one with
#   CAP_NET_ADMIN alone get EPERM on every command that changes anything
#   (they need CAP_SYS_ADMIN); both may dump and read the stats, but see no
#   device serial number (DSN); only the CAP_NET_ADMIN one may listen to
#   events. Malformed requests (pcierr-nl malformed, as root) get
#   EINVAL/ERANGE/ENODEV/ESTALE. Nothing changed (dump and counters equal
#   before and after). The kernel log is checked by the runner after every
#   run.
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

# uid 65534 with CAP_NET_ADMIN alone (effective through the ambient set)
netadmin() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all,+net_admin --ambient-caps=+net_admin \
		--bounding-set=-all,+net_admin "$@"
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
run netadmin sh -c 'id; grep ^Cap /proc/self/status'
# CAP_NET_ADMIN is bit 12: 0x1000, and nothing else
printf '%s\n' "$out" | grep -q '^CapEff:[[:space:]]*0*1000$' ||
	fail "the CAP_NET_ADMIN shell does not have exactly CAP_NET_ADMIN"
ok "the second caller has CAP_NET_ADMIN alone"

# D24: resolving the family does not load the module for anyone: it has
# no generic netlink family alias (net-pf-16-proto-16-family-pcierr)
SHIM_KO=$PCIERR_TREE/kernel/pcierr_shim/pcierr_shim.ko
run modinfo -F alias "$SHIM_KO"
printf '%s\n' "$out" | grep -q 'family-pcierr' && fail "pcierr_shim.ko still has a family alias"
ok "pcierr_shim.ko has no family alias: no autoload by unprivileged users"

must_nl dump
dump0=$out
must_nl stats
stats0=$(printf '%s\n' "$out" | grep -E '^(freezes|resets|hotplugs|ops|ops_failed)=')

# every mutating command: exit 1, "Operation not permitted", for both
# (the PE id is looked up as the caller may: it is the current one, so
# only the permission stands in the way)
denied_as() {
	_who=$1
	shift
	run "$_who" timeout -k 2 "$NL_TIMEOUT" "$NL" "$@"
	[ "$rc" = 1 ] || fail "$_who '$*' exited $rc, expected 1"
	printf '%s\n' "$out" | grep -q 'Operation not permitted' ||
		fail "$_who '$*' did not say 'Operation not permitted'"
	ok "$_who $1: Operation not permitted"
}
denied() {
	denied_as nobody "$@"
	denied_as netadmin "$@"
}
denied inject "$DEV"
denied inject "$DEV" --state perm_failure
denied report "$PE" error_detected --state frozen
denied report "$PE" resume
denied enable-io "$PE"
denied reset "$PE"
denied reset "$PE" --fundamental
denied remove "$PE"
denied remove "$PE" --device "$DEV"
denied rescan "$PE"
denied disable "$PE"
denied enable "$PE"
denied watch "$PE" 1000
denied watch "$PE" 0
denied arm "$PE" 1
denied arm "$PE" 0
denied hold "$PE" 30000
denied hold "$PE" 0
# the kernel's own words for the CAP_NET_ADMIN caller: the core let it
# through (GENL_ADMIN_PERM), the shim's pre_doit did not
run netadmin "$NL" rescan "$PE"
printf '%s\n' "$out" | grep -q 'kernel says: this command needs CAP_SYS_ADMIN' ||
	fail "the CAP_NET_ADMIN caller was not told that CAP_SYS_ADMIN is needed"
ok "CAP_NET_ADMIN alone: this command needs CAP_SYS_ADMIN"

# reading is allowed, but the device serial numbers are root's (D23): the
# e1000e has one (QEMU gives it a DSN), which only root sees
printf '%s\n' "$dump0" | grep -q " dev=$E1000E .* dsn=yes" ||
	fail "root's dump shows no DSN for the e1000e $E1000E"
nodsn() { printf '%s\n' "$1" | sed 's/ dsn=[a-z]*//'; }
for who in nobody netadmin; do
	run $who "$NL" dump
	[ "$rc" = 0 ] || fail "$who dump exited $rc"
	printf '%s\n' "$out" | grep -q ' dsn=yes' && fail "$who sees a device serial number"
	ok "$who sees no device serial number"
	expect "$who dump, but for the DSN" "$(nodsn "$out")" "$(nodsn "$dump0")"
done
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

# the events group needs CAP_NET_ADMIN (D23): nobody is refused...
run nobody timeout -k 2 "$NL_TIMEOUT" "$NL" listen --count 1 --timeout 1
[ "$rc" = 1 ] || fail "unprivileged listen exited $rc, expected 1"
printf '%s\n' "$out" | grep -q 'Operation not permitted' ||
	fail "unprivileged listen did not say 'Operation not permitted'"
ok "unprivileged listen: Operation not permitted"
# ... a CAP_NET_ADMIN listener sees root's injection
_ready=$TMP/netadmin.ready
chmod 777 "$TMP"
echo "+ netadmin $NL listen --count 1 --timeout 20 --ready-file $_ready &"
netadmin "$NL" listen --count 1 --timeout 20 --ready-file "$_ready" > "$TMP/netadmin.events" 2>&1 &
LPID=$!
BG_PIDS="$BG_PIDS $LPID"
wait_until 10 test -e "$_ready" || fail "CAP_NET_ADMIN listener not ready: $(cat "$TMP/netadmin.events")"
must_nl inject "$DEV"
seq=$(kv seq "$out")
listen_wait "$LPID" 15
sed 's/^/  | /' "$TMP/netadmin.events"
[ "$rc" = 0 ] || fail "CAP_NET_ADMIN listener exited $rc"
grep -q "^event seq=$seq pe=$PE dev=$DEV " "$TMP/netadmin.events" ||
	fail "the CAP_NET_ADMIN listener did not get event seq=$seq"
ok "the CAP_NET_ADMIN listener got event seq=$seq"
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

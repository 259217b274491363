#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 120
#
# systemd 7: polkit decides for whom is not root (issue 10 point 9).
#   The installed org.pcierr1.policy is known to polkitd (pkaction: four
#   actions, auth_admin_keep for a local active session, auth_admin else).
#   A rules file in /etc/polkit-1/rules.d (this guest's overlay) allows
#   uid 65534 (nobody) the org.pcierr1.* actions and refuses them to uid 1
#   (daemon); uid 2 (bin) has no rule.
#   - nobody: "pcierrctl clear" exits 0 and the device's FreezeCount is 0;
#   - daemon: clear and enable exit 1 with "Permission denied: Not
#     authorised to ... (polkit action org.pcierr1....). Try sudo.", and
#     polkitd's journal names the refused action;
#   - bin: "authentication is required" (polkit would ask a password);
#   - root: allowed (pcierrd does not ask polkit for root: the unit suite
#     "polkit" checks that).
#   Nothing refused changed anything (the freeze count, the slot).
#   Then docs/dbus.md's example rule (group pcierr-ops may reset one
#   address, read from the question's details): games (uid 5), in the
#   group, resets that device; resetting another device, or clearing, is
#   refused; bin, not in the group, is refused.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E
RULES=/etc/polkit-1/rules.d/50-pcierr-vm-test.rules

command -v pkaction >/dev/null || fail "no pkaction: polkitd is not installed (scripts/install-deps)"
run pkaction --action-id org.pcierr1.clear-freeze-count --verbose
expect "pkaction exit status" "$rc" 0
case "$out" in
*"implicit active:   auth_admin_keep"*) ok "org.pcierr1.clear-freeze-count: auth_admin_keep when active" ;;
*) fail "pkaction does not show auth_admin_keep for an active session" ;;
esac
for a in inject reset enable; do
	pkaction --action-id "org.pcierr1.$a" > /dev/null 2>&1 || fail "polkit does not know org.pcierr1.$a"
done
ok "polkit knows org.pcierr1.inject, reset, enable, clear-freeze-count"

cat > "$RULES" <<'RULES'
// pcierr VM test (systemd-scenarios/07-polkit.sh)
polkit.addRule(function(action, subject) {
	if (action.id.indexOf("org.pcierr1.") != 0)
		return polkit.Result.NOT_HANDLED;
	if (subject.user == "nobody")
		return polkit.Result.YES;
	if (subject.user == "daemon")
		return polkit.Result.NO;
	return polkit.Result.NOT_HANDLED;
});
RULES
# (removed again at the end; lib.sh's EXIT trap stays)
# polkitd reads the rules when it starts (and on changes): start afresh
run systemctl restart polkit.service
expect "systemctl restart polkit exit status" "$rc" 0
pcierrd_active

as_uid() {
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --clear-groups --inh-caps=-all --bounding-set=-all "$@"
}

# uctl UID ARGS...: pcierrctl as UID; $out (stdout), $err, $rc
uctl() {
	_u=$1
	shift
	echo "+ (uid $_u) pcierrctl $*"
	out=$(as_uid "$_u" timeout -k 2 "$CTL_TIMEOUT" "$PCIERRCTL" --no-pager "$@" 2> "$TMP/u.err")
	rc=$?
	err=$(cat "$TMP/u.err")
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  | /'
	[ -n "$err" ] && printf '%s\n' "$err" | sed 's/^/  2| /'
	return 0
}

# a freeze to clear: one injection by root (counted)
fc=$(dev_prop "$DEV" FreezeCount)
if [ "$fc" = 0 ]; then
	ctl inject "$DEV"
	expect "pcierrctl inject (root) exit status" "$rc" 0
	fc=$(dev_prop "$DEV" FreezeCount)
fi
[ "$fc" -gt 0 ] || fail "FreezeCount of $DEV is $fc after an injection"
ok "FreezeCount of $DEV is $fc"

# refused: daemon (uid 1), by the rule
uctl 1 clear "$DEV"
expect "clear as daemon: exit status" "$rc" 1
expect "clear as daemon: stderr" "$err" \
	"Permission denied: Not authorised to clear freeze counts (polkit action org.pcierr1.clear-freeze-count). Try sudo."
expect_prop dev "$DEV" FreezeCount "$fc"
uctl 1 enable "$PE"
expect "enable as daemon: exit status" "$rc" 1
expect "enable as daemon: stderr" "$err" \
	"Permission denied: Not authorised to enable slots (polkit action org.pcierr1.enable). Try sudo."

# no rule: bin (uid 2) would be asked for an administrator's password
uctl 2 clear "$DEV"
expect "clear as bin: exit status" "$rc" 1
expect "clear as bin: stderr" "$err" \
	"Permission denied: authentication is required to clear freeze counts; run pcierrctl on a terminal without --no-ask-password to be asked, or use sudo."
expect_prop dev "$DEV" FreezeCount "$fc"

# allowed: nobody (uid 65534), by the rule
uctl 65534 clear "$DEV"
expect "clear as nobody: exit status" "$rc" 0
expect "clear as nobody: stderr" "$err" ""
expect_prop dev "$DEV" FreezeCount 0
ok "nobody cleared the freeze count of $DEV (polkit said yes)"
expect_prop slot "$PE" State normal

# The example of docs/dbus.md: one group may reset one device only. The
# question carries the address and the verb as details (review U10).
groupadd -f pcierr-ops && usermod -a -G pcierr-ops games ||
	fail "cannot make user games (uid 5) a member of group pcierr-ops"
OPS_RULES=/etc/polkit-1/rules.d/50-pcierr-ops.rules
# the rule as docs/dbus.md shows it (the js block after its marker)
sed -n '/<!-- polkit-example: reset one device -->/,/^  ```$/p' "$PCIERR_TREE/docs/dbus.md" |
	sed -e '1,2d' -e '$d' -e 's/^  //' -e "s/0000:3b:00.0/$TESTDEV_A/" > "$OPS_RULES"
grep -q "\"$TESTDEV_A\"" "$OPS_RULES" || fail "the example rule was not found in docs/dbus.md"
sed 's/^/  rule| /' "$OPS_RULES"
run systemctl restart polkit.service
expect "systemctl restart polkit exit status" "$rc" 0
uctl 5 reset "$TESTDEV_A"
expect "reset $TESTDEV_A as games (group pcierr-ops): exit status" "$rc" 0
ok "group pcierr-ops reset $TESTDEV_A (the rule's device)"
uctl 5 reset "$DEV"
expect "reset $DEV as games: exit status" "$rc" 1
case "$err" in
*"authentication is required to reset slots"*) ok "group pcierr-ops may not reset $DEV (another device)" ;;
*) fail "reset of $DEV as games: unexpected stderr: $err" ;;
esac
uctl 5 clear "$TESTDEV_A"
expect "clear $TESTDEV_A as games: exit status" "$rc" 1
uctl 2 reset "$TESTDEV_A"
expect "reset $TESTDEV_A as bin (not in the group): exit status" "$rc" 1
rm -f "$OPS_RULES"

# root: allowed without asking polkit
uctl 0 clear "$DEV"
expect "clear as root: exit status" "$rc" 0
expect "clear as root: stderr" "$err" ""
uexpect SubState running
rm -f "$RULES"
run systemctl restart polkit.service

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 90
#
# systemd 4: a user who is not root (uid/gid 65534, no groups, no
# capabilities).
#   pcierrctl status, list, show, stats, history and --json status work
#   and show what root sees; reset, inject, enable and clear are refused
#   with exit status 1 and "Permission denied: authentication is required
#   to ...; run pcierrctl on a terminal without --no-ask-password to be
#   asked, or use sudo." (nothing else on stdout or stderr): the bus policy
#   lets the calls through, pcierrd asks polkit (polkitd, D-Bus activated),
#   which wants an administrator's password (auth_admin, the caller has no
#   session) that nobody can give without a terminal; and nothing changed:
#   no recovery started, the freeze count, the slot's state and step as
#   they were.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$(dirname "$0")/common.sh"
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"
run as_nobody id
expect "id as nobody" "$out" "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)"

fc=$(dev_prop "$DEV" FreezeCount)
max=$(dev_prop "$DEV" MaxFreezes)
started=$(mgr_prop RecoveriesStarted)
gen=$(dev_prop "$DEV" ErrorGeneration)

# nobody: timeout, then pcierrctl
nctl() {
	echo "+ (uid 65534) pcierrctl $*"
	out=$(as_nobody timeout -k 2 "$CTL_TIMEOUT" "$PCIERRCTL" --no-pager "$@" 2> "$TMP/n.err")
	rc=$?
	err=$(cat "$TMP/n.err")
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  | /'
	[ -n "$err" ] && printf '%s\n' "$err" | sed 's/^/  2| /'
	return 0
}

nctl status
expect "pcierrctl status as nobody: exit status" "$rc" 0
expect "pcierrctl status as nobody: stderr" "$err" ""
case "$(ctl_line "$out" "$DEV")" in
*" $fc/$max "*) ok "pcierrctl status as nobody shows $DEV with $fc/$max" ;;
*) fail "pcierrctl status as nobody: no line of $DEV with $fc/$max" ;;
esac
for c in list "show $DEV" stats history; do
	# shellcheck disable=SC2086
	nctl $c
	expect "pcierrctl $c as nobody: exit status" "$rc" 0
	[ -n "$out" ] || fail "pcierrctl $c as nobody printed nothing"
done
nctl --json status
expect "pcierrctl --json status as nobody: exit status" "$rc" 0
json_valid "$out" "pcierrctl --json status as nobody"
jexpect "$out" "Devices[Address=$DEV].FreezeCount" "$fc"
jexpect "$out" "Slots[Address=$PE].LastResult" "$(slot_prop "$PE" LastResult)"

# refusals
refused() {
	_want=$1
	shift
	nctl "$@"
	expect "pcierrctl $* as nobody: exit status" "$rc" 1
	expect "pcierrctl $* as nobody: stdout" "$out" ""
	expect "pcierrctl $* as nobody: stderr" "$err" \
		"Permission denied: authentication is required to $_want; run pcierrctl on a terminal without --no-ask-password to be asked, or use sudo."
}
refused "reset slots" reset "$DEV"
refused "reset slots" reset --fundamental "$PE"
refused "inject errors" inject "$DEV"
refused "enable slots" enable "$DEV"
refused "clear freeze counts" clear "$DEV"

# nothing changed
expect_prop mgr - RecoveriesStarted "$started"
expect_prop dev "$DEV" FreezeCount "$fc"
expect_prop dev "$DEV" ErrorGeneration "$gen"
expect_prop slot "$PE" State normal
expect_prop slot "$PE" Step idle
uexpect SubState running

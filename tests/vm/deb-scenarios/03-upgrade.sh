#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 2400
#
# deb 3: an upgrade to a rebuilt higher version ("apt-get install
# ./*.deb" of $PCIERR_DEBS_UP).
#   apt exits 0; every package has the new version; DKMS rebuilt the
#   module for the running kernel; pcierrd.service was restarted (a new
#   invocation, a new main PID), is active and still enabled; its state
#   database is the one from before, and the e1000e's FreezeCount recorded
#   in 02-recover is intact (D-Bus and pcierrctl status).
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$PCIERR_TREE/tests/vm/systemd-scenarios/common.sh"
# shellcheck source=tests/vm/deb-scenarios/common.sh
. "$(dirname "$0")/common.sh"
DEV=$E1000E
kver=$(uname -r)

fc=$(cat "$STATE/freeze-count") || fail "no freeze count from 02-recover"
pcierrd_active
expect_prop dev "$DEV" FreezeCount "$fc"
inv0=$(uprop InvocationID)
pid0=$(uprop MainPID)
[ -f /var/lib/pcierr/state.db ] || fail "no /var/lib/pcierr/state.db before the upgrade"

[ -n "${PCIERR_DEBS_UP:-}" ] && [ "$PCIERR_DEBS_UP" != - ] || fail "no upgrade packages (PCIERR_DEBS_UP)"
apt_install_debs "$PCIERR_DEBS_UP"
for p in $PKGS; do
	v=$(version "$p")
	old=$(cat "$STATE/version-$p")
	dpkg --compare-versions "$v" gt "$old" || fail "$p is $v after the upgrade, not above $old"
	ok "$p upgraded: $old -> $v"
done

run dkms status pcierr
case "$out" in
*"pcierr/"*", $kver, "*": installed"*) ok "dkms: pcierr installed for $kver" ;;
*) fail "dkms status does not show pcierr installed for $kver after the upgrade" ;;
esac
[ -f "$(modinfo -n pcierr_shim)" ] || fail "no pcierr_shim.ko after the upgrade"
[ -e /sys/module/pcierr_shim ] || fail "pcierr_shim is not loaded after the upgrade"

wait_until 60 sh -c '[ "$(systemctl is-active pcierrd.service)" = active ]' ||
	fail "pcierrd.service is $(systemctl is-active pcierrd.service) after the upgrade"
inv1=$(uprop InvocationID)
pid1=$(uprop MainPID)
[ "$inv1" != "$inv0" ] && [ "$pid1" != "$pid0" ] ||
	fail "pcierrd was not restarted by the upgrade (invocation $inv0, PID $pid0 before and after)"
ok "pcierrd restarted by the upgrade (PID $pid0 -> $pid1)"
[ -L /etc/systemd/system/multi-user.target.wants/pcierrd.service ] ||
	fail "pcierrd.service is no longer enabled after the upgrade"
pcierrd_active
expect_prop dev "$DEV" FreezeCount "$fc"
ctl status "$DEV"
expect "pcierrctl status $DEV exit status" "$rc" 0
case "$(ctl_line "$out" "$DEV")" in
*" $fc/"*) ok "pcierrctl status shows $fc freezes of $DEV after the upgrade" ;;
*) fail "pcierrctl status does not show $fc freezes of $DEV after the upgrade" ;;
esac

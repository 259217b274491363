#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 900
#
# deb 3: an upgrade to a rebuilt higher version ("apt-get install
# ./*.deb" of $PCIERR_DEBS_UP).
#   make deb-check gives a binary-only rebuild (a binNMU: pcierrd,
#   libpcierr2, libpcierr-dev one version higher; pcierr-dkms, Architecture:
#   all, is not rebuilt, tests/vm/README.md says why); what is upgraded and
#   to which version is read from the .deb files, so that a full rebuild
#   (pcierr-dkms too) is checked as well. apt exits 0; each package of
#   the rebuild has its new version, above the one 01-install installed,
#   the others kept theirs; pcierr-dkms upgraded: DKMS rebuilt the module
#   for the running kernel; not upgraded: its module file is the one DKMS
#   built in 01-install (same checksum); either way it stays loaded (the
#   upgrade never takes recovery away). pcierrd.service was restarted (a
#   new invocation, a new main PID), is active and still enabled; its state
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
ko=/lib/modules/$kver/updates/dkms/pcierr_shim.ko
ko_sum0=$(md5sum < "$ko" | cut -d' ' -f1) || fail "no $ko before the upgrade"

[ -n "${PCIERR_DEBS_UP:-}" ] && [ "$PCIERR_DEBS_UP" != - ] || fail "no upgrade packages (PCIERR_DEBS_UP)"
# which of the packages the rebuild holds, at which version
up=" "
for d in "$PCIERR_DEBS_UP"/*.deb; do
	p=$(dpkg-deb -f "$d" Package)
	case " $PKGS " in *" $p "*) ;; *) continue ;; esac
	up="$up$p "
	dpkg-deb -f "$d" Version > "$STATE/up-version-$p"
done
[ "$up" != " " ] || fail "no package of $PKGS in $PCIERR_DEBS_UP"
case "$up" in *" pcierrd "*) ;; *) fail "pcierrd is not among the upgrade's packages:$up" ;; esac
info "the rebuild holds:$up"

apt_install_debs "$PCIERR_DEBS_UP"
for p in $PKGS; do
	v=$(version "$p")
	old=$(cat "$STATE/version-$p")
	case "$up" in
	*" $p "*)
		expect "$p's version after the upgrade" "$v" "$(cat "$STATE/up-version-$p")"
		dpkg --compare-versions "$v" gt "$old" || fail "$p is $v after the upgrade, not above $old"
		ok "$p upgraded: $old -> $v"
		;;
	*)
		expect "$p's version (not in the rebuild)" "$v" "$old"
		ok "$p kept $v"
		;;
	esac
done

dkms_status
expect "dkms status exit status" "$rc" 0
case "$out" in
*"pcierr/"*", $kver, "*": installed"*) ok "dkms: pcierr installed for $kver" ;;
*) fail "dkms status does not show pcierr installed for $kver after the upgrade" ;;
esac
expect "pcierr_shim's file after the upgrade" "$(modinfo -n pcierr_shim)" "$ko"
ko_sum1=$(md5sum < "$ko" | cut -d' ' -f1)
case "$up" in
*" pcierr-dkms "*) ok "DKMS rebuilt the module for the new pcierr-dkms" ;;
*)
	expect "pcierr_shim.ko's checksum (pcierr-dkms not upgraded)" "$ko_sum1" "$ko_sum0"
	ok "the module DKMS built in 01-install is untouched"
	;;
esac
[ -e /sys/module/pcierr_shim ] || fail "pcierr_shim is not loaded after the upgrade"
ok "pcierr_shim still loaded"

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

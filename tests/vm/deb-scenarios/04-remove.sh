#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# deb 4: "apt-get remove" of the packages.
#   apt exits 0; pcierrd is stopped (the unit inactive, nobody owns
#   org.pcierr1), the module unloaded and gone from DKMS and
#   /lib/modules; pcierrd is in state rc (its configuration left); the
#   state database /var/lib/pcierr/state.db and /etc/pcierr/pcierrd.conf
#   are still there.
# shellcheck source=tests/vm/deb-scenarios/common.sh
. "$(dirname "$0")/common.sh"

[ -f /var/lib/pcierr/state.db ] || fail "no /var/lib/pcierr/state.db before the removal"
dbgsym=$(dpkg-query -W -f='${Package}\n' '*-dbgsym' 2>/dev/null | grep -E '^(pcierrd|libpcierr2)-dbgsym$' | tr '\n' ' ')
# shellcheck disable=SC2086
apt_run remove $PKGS $dbgsym
expect "apt-get remove exit status" "$rc" 0
# pcierrd keeps its conffile (rc); the others have none, dpkg may forget them
expect "pcierrd after the removal" "$(status pcierrd)" rc
for p in $PKGS; do
	[ "$(status "$p")" = ii ] && fail "$p is still installed after the removal"
done
ok "the packages are removed"
expect "pcierrd.service after the removal" "$(systemctl is-active pcierrd.service)" inactive
bus_has_owner && fail "org.pcierr1 still has an owner after the removal"
ok "pcierrd stopped"
[ -e /sys/module/pcierr_shim ] && fail "pcierr_shim is still loaded after the removal"
ok "pcierr_shim unloaded"
dkms_status
expect "dkms status exit status" "$rc" 0
[ -z "$out" ] || fail "dkms still knows pcierr after the removal"
shim_ko_written | grep . && fail "a pcierr_shim.ko is left in /lib/modules"
ok "the module is gone"
[ -f /var/lib/pcierr/state.db ] || fail "the removal deleted the state database"
ok "the state database is kept"
[ -f /etc/pcierr/pcierrd.conf ] || fail "the removal deleted /etc/pcierr/pcierrd.conf"
ok "the configuration is kept"

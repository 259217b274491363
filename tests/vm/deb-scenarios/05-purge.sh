#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 600
#
# deb 5: "apt-get purge" of the removed packages.
#   apt exits 0; the packages are unknown to dpkg; the state database
#   (/var/lib/pcierr) and the configuration (/etc/pcierr) are gone; no path
#   of the packages (dpkg -L in 01-install) is left but those the host has
#   too (directories, /lib -> usr/lib); and the root is as it was before
#   01-install: the
#   same differences from the host's (root_snapshot, common.sh), apt's and
#   dpkg's own records aside, and DKMS's signing key (dkms's, kept for
#   every DKMS module: named in the log).
# shellcheck source=tests/vm/deb-scenarios/common.sh
. "$(dirname "$0")/common.sh"

left=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $PKGS pcierrd-dbgsym libpcierr2-dbgsym 2>/dev/null |
	awk '$2 != "un" { print $1 }' | tr '\n' ' ')
# shellcheck disable=SC2086
apt_run purge $left
expect "apt-get purge exit status" "$rc" 0
for p in $PKGS; do
	expect "$p after the purge" "$(status "$p")" ""
done
[ -e /var/lib/pcierr ] && fail "/var/lib/pcierr is left after the purge"
ok "the state database is gone"
[ -e /etc/pcierr ] && fail "/etc/pcierr is left after the purge: $(find /etc/pcierr)"
ok "the configuration is gone"

n=0
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	# what the host has too (/usr/sbin, /lib: merged /usr's link ...)
	# is not the packages' own; a change to it shows in the root's
	# comparison below
	{ [ -e "$LOWER$f" ] || [ -L "$LOWER$f" ]; } && continue
	echo "left: $f"
	n=$((n + 1))
done < "$STATE/files"
[ "$n" = 0 ] || fail "$n paths of the packages are left after the purge"
ok "no path of the packages is left ($(wc -l < "$STATE/files") checked)"

t0=$(now_ns)
root_snapshot > "$STATE/root-after"
info "the root's state taken in $(ms_between "$t0" "$(now_ns)") ms"
# DKMS's own: the key it signs every DKMS module with, made at its first
# build on a machine (of any module) and kept by dkms (not pcierr-dkms)
# for the next ones, as a zfs-dkms or wireguard-dkms install leaves it
dkms_key='^/var/lib/dkms/mok\.(key|pub) '
grep -E "$dkms_key" "$STATE/root-after" | sed 's/^/-- kept by dkms: /'
grep -Ev "$dkms_key" "$STATE/root-after" > "$STATE/root-after.cmp"
grep -Ev "$dkms_key" "$STATE/root-before" > "$STATE/root-before.cmp"
if ! diff -u "$STATE/root-before.cmp" "$STATE/root-after.cmp"; then
	fail "the root differs from before the install (above: - before, + after the purge)"
fi
ok "the root is as before the install ($(wc -l < "$STATE/root-after") differences from the host's, none new)"

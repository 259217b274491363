#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 2400
#
# deb 1: "apt-get install ./*.deb" of the packages make deb built, as an
# administrator installs them on a server.
#   Before: nothing of pcierr on the machine (no package, no unit, no
#   module). apt installs the four packages (and their -dbgsym) without the
#   network and exits 0; DKMS built and installed pcierr_shim for the
#   running kernel (dkms status, /lib/modules/KVER/updates/dkms); the
#   module is loaded, pcierrd.service enabled and active ("systemctl
#   status pcierrd" exits 0) with the installed /usr/sbin/pcierrd;
#   "pcierrctl status" lists the e1000e and the other devices; a program
#   built with "pkg-config --cflags --libs libpcierr" against
#   libpcierr-dev links to libpcierr.so.2 and talks to the module.
#   The root's state before (tests/vm/deb-scenarios/common.sh) is kept
#   for 05-purge.
# shellcheck source=tests/vm/deb-scenarios/common.sh
. "$(dirname "$0")/common.sh"

kver=$(uname -r)
# A server running one kernel: the VM's root is the build host's, which
# also has other kernels (6.12, and headers of PREEMPT_RT ones: for other
# targets); DKMS's postinst builds for the running kernel and "the newest
# one" (by /boot/config-*), minutes each under TCG. Their configs are moved
# aside in the guest only (the host's files are untouched; their module
# trees stay: moving them would copy them up), before the root's state is
# taken.
mkdir -p /var/tmp/other-kernels
for c in /boot/config-*; do
	[ "${c#/boot/config-}" = "$kver" ] && continue
	mv "$c" /var/tmp/other-kernels/ && info "moved aside in the guest: $c"
done
# The build host's image forbids maintainer scripts to start services
# (/usr/sbin/policy-rc.d exits 101, as in containers); a server has none:
# removed in the guest, so that the postinst starts pcierrd as it would
# there (seen: "policy-rc.d returned 101, not running 'start
# pcierrd.service'")
rm -f /usr/sbin/policy-rc.d
# The same image keeps no apt cache (apt.conf.d/docker-clean:
# Dir::Cache::pkgcache ""): each apt-get parsed the archive's package
# lists again, 15 to 35 s under TCG; a server keeps its cache: removed in
# the guest
rm -f /etc/apt/apt.conf.d/docker-clean

# man-db's trigger re-reads every manual page to update its index (over 9p
# under TCG: minutes); off in the guest, as the test bed masks the timers
rm -f /var/lib/man-db/auto-update

for p in $PKGS; do
	expect "$p before" "$(status "$p")" ""
done
[ -e /sys/module/pcierr_shim ] && fail "pcierr_shim is loaded before the install"
# (guest/init hides the build host's /var/lib/pcierr)
for d in /var/lib/pcierr /etc/pcierr; do
	[ -e "$d" ] && fail "$d exists before the install"
done
expect "pcierrd.service before" "$(systemctl show -P LoadState pcierrd.service)" not-found
root_snapshot > "$STATE/root-before"
info "the root before: $(wc -l < "$STATE/root-before") differences from the host's"

apt_install_debs "$PCIERR_DEBS"
for p in $PKGS; do
	v=$(version "$p")
	[ -n "$v" ] || fail "$p is not installed"
	ok "$p $v installed"
	echo "$v" > "$STATE/version-$p"
done
for p in $PKGS; do dpkg -L "$p"; done | LC_ALL=C sort -u > "$STATE/files"
info "$(wc -l < "$STATE/files") paths in the packages"

# DKMS: built and installed for the running kernel
dkms_status
expect "dkms status exit status" "$rc" 0
case "$out" in
*"pcierr/"*", $kver, "*": installed"*) ok "dkms: pcierr installed for $kver" ;;
*) fail "dkms status does not show pcierr installed for $kver" ;;
esac
ko=$(modinfo -n pcierr_shim)
expect "pcierr_shim's file" "$ko" "/lib/modules/$kver/updates/dkms/pcierr_shim.ko"
shim_ko_written | grep -q "/updates/dkms/pcierr_shim.ko$" ||
	fail "DKMS's pcierr_shim.ko is not among the files the guest wrote (04-remove looks there)"
[ -e /sys/module/pcierr_shim ] || fail "pcierr_shim is not loaded after the install"
ok "pcierr_shim loaded"
expect "modules-load.d" "$(grep -v '^#' /usr/lib/modules-load.d/pcierr.conf)" pcierr_shim

# the unit: enabled (deb-systemd-helper) and running
[ -L /etc/systemd/system/multi-user.target.wants/pcierrd.service ] ||
	fail "pcierrd.service is not enabled (no multi-user.target.wants link)"
ok "pcierrd.service enabled"
wait_until 60 sh -c '[ "$(systemctl is-active pcierrd.service)" = active ]' ||
	fail "pcierrd.service is $(systemctl is-active pcierrd.service)"
run systemctl status --no-pager pcierrd.service
expect "systemctl status pcierrd exit status" "$rc" 0
expect "pcierrd's ExecStart" "$(systemctl show -P ExecStart pcierrd.service | sed -n 's/.*path=\([^ ;]*\).*/\1/p')" \
	/usr/sbin/pcierrd
wait_until 60 sh -c '[ "$(systemctl show -P StatusText pcierrd.service)" = "Watching PCI slots." ]' ||
	fail "pcierrd is not watching (StatusText: $(systemctl show -P StatusText pcierrd.service))"
ok "pcierrd watching PCI slots"

run timeout 60 pcierrctl --no-pager status
expect "pcierrctl status exit status" "$rc" 0
printf '%s\n' "$out" | grep -q "$E1000E" || fail "pcierrctl status does not list $E1000E"
printf '%s\n' "$out" | grep -q "$NVME" || fail "pcierrctl status does not list $NVME"
ok "pcierrctl status lists the devices"

# libpcierr-dev: a program built the way its users build theirs
cat > "$TMP/uses-libpcierr.c" <<'PROG'
#include <stdio.h>
#include <pcierr/pcierr.h>

int main(void)
{
	struct pcierr_ctx *ctx = NULL;
	int r = pcierr_ctx_new(&ctx);

	if (r < 0) {
		fprintf(stderr, "pcierr_ctx_new: %d\n", r);
		return 1;
	}
	printf("family %d\n", pcierr_family_id(ctx));
	pcierr_ctx_free(ctx);
	return 0;
}
PROG
run pkg-config --cflags --libs libpcierr
expect "pkg-config exit status" "$rc" 0
# shellcheck disable=SC2046
run cc -Wall -Werror -o "$TMP/uses-libpcierr" "$TMP/uses-libpcierr.c" $(pkg-config --cflags --libs libpcierr)
expect "cc with pkg-config's flags exit status" "$rc" 0
run ldd "$TMP/uses-libpcierr"
# (the loader names it by its first search path, /lib/MULTIARCH, which
# merged /usr makes the same directory as the package's /usr/lib/MULTIARCH)
lib=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*libpcierr\.so\.2 => \([^ ]*\) .*/\1/p')
pkglib=/usr/lib/$(gcc -print-multiarch)/libpcierr.so.2
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "$pkglib")" ] ||
	fail "the program is not linked to the installed $pkglib (ldd: ${lib:-none})"
expect "the package of $pkglib" "$(dpkg -S "$pkglib" 2>/dev/null | cut -d: -f1)" libpcierr2
ok "linked to libpcierr2's $pkglib (as $lib)"
run "$TMP/uses-libpcierr"
expect "the libpcierr program's exit status" "$rc" 0
case "$out" in "family "[1-9]*) ok "libpcierr found the pcierr genl family: $out" ;;
*) fail "the program found no genl family: $out" ;; esac

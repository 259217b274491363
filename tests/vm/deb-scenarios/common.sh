# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Helpers of the package scenarios (tests/vm/deb-scenarios/*.sh, make
# deb-check): the guest boots the host's root with nothing of pcierr in it;
# the scenarios install the packages of $PCIERR_DEBS with apt, upgrade to
# those of $PCIERR_DEBS_UP, remove and purge them, in this order, in one
# boot. What they hand on to each other is in $STATE (the results share:
# never in the guest's root, which the last one compares).

# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
td_defaults() { :; }

PKGS="pcierr-dkms pcierrd libpcierr2 libpcierr-dev"
STATE=$PCIERR_OUT/deb-state
mkdir -p "$STATE"
UPPER=/mnt/pcierr-rw/upper
LOWER=/mnt/pcierr-lower
export DEBIAN_FRONTEND=noninteractive
# apt must not reach for the network: what the packages depend on is
# installed on the host (scripts/install-deps), whose root the guest has
APT="apt-get -y -q -o Acquire::Retries=0"

# apt_run ARGS...: "apt-get ARGS", its output as it comes with the
# seconds since it started (when the scenario's time runs out, the log
# says where: DKMS's build, depmod); $rc its exit status
apt_run() {
	_t0=$(now_ns)
	echo "+ $APT $*"
	{ $APT "$@"; echo $? > "$TMP/apt.rc"; } 2>&1 |
		while IFS= read -r _l; do
			echo "  | [$(ms_between "$_t0" "$(now_ns)" | awk '{ printf "%.1f", $1 / 1000 }')s] $_l"
		done
	rc=$(cat "$TMP/apt.rc")
	info "apt-get $1 took $(ms_between "$_t0" "$(now_ns)") ms"
}

# apt_install_debs DIR: "apt-get install ./*.deb" in DIR, as an
# administrator does; it must exit 0
apt_install_debs() {
	cd "$1" || fail "no $1"
	ls ./*.deb
	apt_run install ./*.deb
	expect "apt-get install ./*.deb in $1: exit status" "$rc" 0
	cd /
}

# dkms_status: "dkms status pcierr", its standard output in $out, $rc;
# its standard error only in the log: dkms 3.0's own check of /proc
# ("[ -e <(echo) ]") races and at times prints "echo: write error: Broken
# pipe" (seen in 04-remove, where it made an empty status look non-empty)
dkms_status() {
	echo "+ dkms status pcierr"
	out=$(dkms status pcierr 2> "$TMP/dkms.err")
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/  | /'
	[ -s "$TMP/dkms.err" ] && sed 's/^/  | (stderr) /' "$TMP/dkms.err"
	return 0
}

# shim_ko_written: the pcierr_shim.ko files the guest wrote into
# /lib/modules. They are in the overlay's upper layer (merged /usr:
# usr/lib/modules), where find is quick: over the host's whole
# /lib/modules (9p) it took 100 s under TCG. 01-install checks that it
# finds DKMS's, 04-remove that none is left.
shim_ko_written() {
	find "$UPPER/usr/lib/modules" "$UPPER/lib/modules" -name 'pcierr_shim.ko*' ! -type c 2> /dev/null
}

# version PKG: the installed version ("" when not installed)
version() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^ii  *//p'
}

# status PKG: dpkg's two-letter status (ii, rc; "" when unknown)
status() {
	dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | cut -c1-2
}

# Ignored by root_snapshot: the bookkeeping apt, dpkg and the system keep
# by design (package database, download cache, logs, the journal, the
# journal catalog's index rebuilt by the trigger, the scenarios' own
# temporary directories).
SNAP_IGNORE='^/(var/lib/dpkg|var/lib/apt|var/cache|var/log|var/lib/systemd/catalog|tmp|var/tmp|mnt)/'

# root_snapshot: one line per file, link or deletion that the guest's root
# has differently from the host's (the overlay's upper layer), with its
# content: "PATH md5|-> TARGET|deleted". A file copied up whose content is
# the host's again is not a change.
root_snapshot() {
	(cd "$UPPER" && find . ! -type d) | sed 's|^\.||' | LC_ALL=C sort |
	grep -Ev "$SNAP_IGNORE" | while read -r f; do
		if [ -c "$UPPER$f" ]; then
			echo "$f deleted"
		elif [ -L "$UPPER$f" ]; then
			t=$(readlink "$UPPER$f")
			[ -L "$LOWER$f" ] && [ "$(readlink "$LOWER$f")" = "$t" ] && continue
			echo "$f -> $t"
		else
			m=$(md5sum < "$UPPER$f" | cut -d' ' -f1)
			[ -f "$LOWER$f" ] && [ ! -L "$LOWER$f" ] &&
				[ "$(md5sum < "$LOWER$f" | cut -d' ' -f1)" = "$m" ] && continue
			echo "$f $m"
		fi
	done
}

# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# The guest's kernel-log check, shared by guest/runner and
# guest/systemd-runner (sourced):
#
#   klog_scan FILE   scan dmesg for reports (WARNING, BUG, Oops, lockdep,
#                    hung tasks, ...); writes what it found (or what it
#                    looked for) to FILE; status 0 when clean, 1 on a
#                    report or when the ring wrapped (lost its start)

KLOG_PATTERN='WARNING:|BUG:|Oops|lockdep|possible circular locking|INFO: task .* blocked|general protection|Call Trace|Kernel panic|UBSAN:|KASAN:|kernel BUG|soft lockup|hard LOCKUP|refcount_t:|list_(add|del) corruption'

klog_scan() {
	# a wrapped ring has lost its oldest messages, reports among them
	if ! dmesg | head -n 1 | grep -q 'Linux version'; then
		{
			echo "the guest kernel log wrapped: its first line is not the boot's, so reports may be lost"
			echo "(raise log_buf_len in tests/vm/run); first line now:"
			dmesg | head -n 1
		} > "$1"
		return 1
	fi
	if dmesg | grep -E -n -B2 -A20 "$KLOG_PATTERN" > "$1"; then
		sed -i '1i the guest kernel log has reports (pattern: '"$KLOG_PATTERN"'):' "$1"
		return 1
	fi
	echo "no reports matching: $KLOG_PATTERN" > "$1"
	return 0
}

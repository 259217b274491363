#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 180
#
# deb 2: the installed pcierrd recovers a frozen card.
#   "pcierrctl inject" on the e1000e: the steps error_detected
#   (need_reset), reset, slot_reset (recovered), resume, "recovered", exit
#   0; the NIC works afterwards; its FreezeCount is one more than before,
#   and is kept for 03-upgrade.
# shellcheck source=tests/vm/systemd-scenarios/common.sh
. "$PCIERR_TREE/tests/vm/systemd-scenarios/common.sh"
STATE=$PCIERR_OUT/deb-state
PE=$RP_E1000E
DEV=$E1000E

pcierrd_active
bus_objects "$PE" "$DEV"
fc0=$(dev_prop "$DEV" FreezeCount)
nic_works "$DEV" "before the error"

ctl inject "$DEV"
expect "pcierrctl inject $DEV exit status" "$rc" 0
steps=$(printf '%s\n' "$out" | sed -n "s/^.*$PE:   \([a-z_]*\) *\([a-z_]*\) .*/\1=\2/p" | tr '\n' ' ')
expect "steps shown by pcierrctl inject" "$steps" \
	"error_detected=need_reset reset=ok slot_reset=recovered resume=recovered "
printf '%s\n' "$out" | grep -q "$PE: recovered in " || fail "pcierrctl inject shows no '$PE: recovered in ...'"
ok "the frozen e1000e recovered"
nic_works "$DEV" "after the recovery"
expect_prop dev "$DEV" FreezeCount $((fc0 + 1))
echo $((fc0 + 1)) > "$STATE/freeze-count"

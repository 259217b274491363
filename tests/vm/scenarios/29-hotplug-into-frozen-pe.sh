#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 29: a new card in the slot of a card that was unplugged while
# frozen (issue 11 point 5, "a device_add of a new card gives a fresh,
# healthy PE"; in vm-check since branch k-faults, docs/reliability.md).
#   No pcierrd. Testdev B's PE is frozen (INJECT) and stays so; QEMU's
#   monitor unplugs B (device_del, pciehp). Once it is gone, a new
#   pci-testdev is added at the same place (device_add): the shim must give
#   it a fresh PE (new id) that is normal, not frozen, with the new card
#   bound and its config space readable, without any recovery.
# Before the fix (scenario 23, with pcierrd): the emptied PE stayed frozen
# in the shim (pe_state=frozen, last_op error_detected); the new card
# joined the frozen PE, and pcierrd, finding it frozen on its resync,
# recovered it at once by hot-unplug, reset and rescan of the new card.
# Now the emptied PE is "removed" and the new card makes it normal.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_B
DEV=$TESTDEV_B
CLEANUP_PES=$PE
CLEANUP_CMD='present "$DEV" || qemu_monitor device_add pci-testdev,id=testdev_b,bus=rp_testdev_b,addr=0x0'
require_normal "$PE"
td_defaults
id0=$(kv pe_id "$(pe_line "$PE")")

must_nl inject "$DEV"
wait_until 10 sh -c "timeout 5 $NL pe $PE 2>/dev/null | head -n 1 | grep -q 'pe_state=frozen'" ||
	fail "the PE is '$(pe_state "$PE")' after INJECT, not frozen"
ok "PE $PE frozen"

# the card's QEMU id is testdev_b (the topology, or scenario 23's device_add)
qemu_monitor device_del testdev_b
[ "$monitor_error" = 0 ] || fail "device_del failed: $out"
wait_until 30 absent "$DEV" || fail "$DEV still present 30 s after device_del"
ok "$DEV unplugged"
pnl pe "$PE"
echo "  the emptied PE: $(kv pe_state "$(pe_line "$PE")")"
sleep 1
qemu_monitor device_add pci-testdev,id=testdev_b,bus=rp_testdev_b,addr=0x0
[ "$monitor_error" = 0 ] || fail "device_add failed: $out"
wait_until 30 bound_to "$DEV" pcierr_test || fail "the new card is not bound to pcierr_test within 30 s"
ok "the new card is bound"
pnl pe "$PE"
l=$(pe_line "$PE")
id1=$(kv pe_id "$l")
[ -n "$id1" ] && [ "$id1" != "$id0" ] || fail "the PE id is '$id1' after the replug, '$id0' before"
expect "the new card's PE state" "$(kv pe_state "$l")" normal
expect "the new card's device state" "$(dev_state "$DEV")" normal
v=$(od -An -tx2 -N2 "$SYS/$DEV/config" | tr -d ' ')
expect "the new card's vendor id (config space)" "$v" 1b36
ok "a fresh, healthy PE for the new card, with no recovery"

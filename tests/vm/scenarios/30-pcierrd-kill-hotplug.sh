#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 300
#
# Scenario 30: pcierrd SIGKILLed during the hotplug path of a recovery
# (issue 11 point 7: remove, rescan; vm-faults-defects: fails today, see
# docs/reliability.md). Scenario 25's rounds, on testdev B whose driver
# has no err_handler (pcierrd then removes, waits for udev, resets and
# rescans):
#   - remove: killed while the driver's remove() hangs (delay_remove hang),
#     started again, remove() released;
#   - rescan: remove() released and pcierrd killed at once.
#   After each restart the recovery must complete: RecoveryFinished
#   recovered, the device bound, the PE normal, FreezeCount +1 exactly.
# Measured (as rounds 5-6 of scenario 25, run of 16:41): after the kill in
# remove, the restarted pcierrd waits for the operation, then says "Slot
# 0000:00:12.0 was left hot-unplugged; rescanning" and "rescan done": the
# card comes back bound, but without the reset step and without any
# RecoveryFinished signal (the round waits for it in vain).
# Mended (branch d-faults): the resync finishes the cut recovery (reset,
# rescan, RecoveryFinished); passed 3 of 3 runs; in vm-check now.
KILL_HOTPLUG=1
KILL_ROUNDS="remove rescan"
. "${VM_LIB%/lib.sh}/scenarios/25-pcierrd-kill-steps.sh"

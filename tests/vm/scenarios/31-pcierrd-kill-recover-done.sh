#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 31: scenario 25's "reset" round alone (issue 11 point 7).
#   error_detected hangs, is released and pcierrd SIGKILLed at once: the
#   kernel's RECOVER goes on through reset, slot_reset and resume and ends
#   while no pcierrd runs. The restarted pcierrd must finish that recovery
#   (RecoveryFinished recovered, a "recovery" history entry, the freeze
#   counted once). Known defect (tests/vm/vm.mk VM_FAULTS_DEFECTS): the
#   restarted pcierrd finds the PE normal and records nothing
#   (docs/reliability.md, "Faults").
KILL_ROUNDS=reset
. "${VM_LIB%/lib.sh}/scenarios/25-pcierrd-kill-steps.sh"

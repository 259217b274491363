#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 150
#
# Scenario 31: scenario 25's "reset" round alone (issue 11 point 7).
#   error_detected hangs, is released and pcierrd SIGKILLed at once: the
#   kernel's RECOVER goes on through reset, slot_reset and resume and ends
#   while no pcierrd runs. The restarted pcierrd must finish that recovery
#   (RecoveryFinished recovered, a "recovery" history entry, the freeze
#   counted once). It was a known defect (the restarted pcierrd found the
#   PE normal and recorded nothing); mended in branch d-resync: the
#   start-up resync reads the RECOVER's steps back (GET_PE's last
#   operation) when the history's newest mark is that RECOVER's "recover
#   started" entry, and records them and the end once. In vm-check now
#   (docs/reliability.md, "Faults").
KILL_ROUNDS=reset
. "${VM_LIB%/lib.sh}/scenarios/25-pcierrd-kill-steps.sh"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 90
#
# Scenario 47: the signals of pcierrd's start-up resync come from
#   org.pcierr1 (review U9). A PE frozen while no pcierrd runs is taken up
#   by the resync that pcierrd runs as it starts; a client listening with
#   a match on sender='org.pcierr1' (as a D-Bus client does, and as
#   sig_start here does) sees its RecoveryStarted and RecoveryFinished. The
#   bus routes a signal by its sender's names at that moment: a signal sent
#   before pcierrd owns its name is lost to such a client.
# shellcheck source=tests/vm/lib.sh
. "$VM_LIB"
PE=$RP_TESTDEV_A
DEV=$TESTDEV_A
CLEANUP_PES=$PE
require_normal "$PE"
td_defaults
td_clear "$DEV"

sig_start
must_nl inject "$DEV"
expect "shim: PE state before pcierrd starts" "$(pe_state "$PE")" frozen
sig_mark
pcierrd_start
must_signal 30 RecoveryStarted "\"$PE\""
ok "RecoveryStarted of the start-up resync, from org.pcierr1"
finish_of "$PE" 60
expect "RecoveryFinished" "$fin_result" recovered
expect "shim: PE state" "$(pe_state "$PE")" normal
expect_prop dev "$DEV" FreezeCount 1
pcierrd_stop
